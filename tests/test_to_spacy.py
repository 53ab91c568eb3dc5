"""`Document.to_spacy`: the words, spaces, tags and trees of a document as a spaCy Doc."""

import dataclasses
import itertools
from pathlib import Path

import numpy as np
import pytest

from arcwise.io import conllu
from arcwise.pipeline.document import Document

spacy = pytest.importorskip("spacy")
ROOT = Path(__file__).resolve().parents[1]


def test_a_parsed_document_becomes_a_spacy_doc_with_its_trees():
    sentences = list(itertools.islice(conllu.read(ROOT / "data" / "en_ewt" / "dev.conllu.gz"),
                                      40))
    doc = Document(sentences)
    spacy_doc = doc.to_spacy(spacy.blank("en"))
    assert [t.text for t in spacy_doc] == [w.form for w in doc.words]
    spans = list(spacy_doc.sents)
    assert len(spans) == len(doc.sentences)
    for span, sentence in zip(spans, doc.sentences):
        assert span.text == sentence.text  # the spaces come from SpaceAfter
        for token, word in zip(span, sentence.words):
            assert (token.pos_, token.tag_, token.lemma_, token.dep_) == (
                word.upos, word.xpos, word.lemma, word.deprel)
            # the same features (spaCy orders them case-sensitively, UD case-insensitively)
            assert set(str(token.morph).split("|")) == set(
                ("" if word.feats == "_" else word.feats).split("|"))
            if word.head == 0:
                assert token.head.i == token.i
            else:
                assert token.head.i == span.start + word.head - 1


def test_multiword_tokens_and_unparsed_sentences():
    sentences = list(conllu.read(ROOT / "tests" / "data" / "mwt_empty.conllu"))
    doc = Document(sentences)
    spacy_doc = doc.to_spacy(spacy.blank("en").vocab)  # a Vocab will do
    first = list(spacy_doc.sents)[0]
    assert [t.text for t in first] == ["Do", "n't", "go", "."]
    assert first.text == "Don't go."  # the words of "Don't" are written together
    unparsed = Document([dataclasses.replace(s, head=np.full(s.n + 1, -1, dtype=np.int32))
                         for s in sentences])
    spacy_doc = unparsed.to_spacy(spacy.blank("en"))
    assert not spacy_doc.has_annotation("DEP")
    assert [len(span) for span in spacy_doc.sents] == [s.n for s in sentences]


def test_the_default_pipeline_is_a_blank_one_of_the_documents_language():
    sentences = list(itertools.islice(conllu.read(ROOT / "data" / "en_ewt" / "dev.conllu.gz"),
                                      3))
    english, unknown = Document(sentences, lang="en"), Document(sentences)
    assert english.to_spacy().lang_ == "en" and unknown.to_spacy().lang_ == "xx"
    assert Document(sentences, lang="qqq").to_spacy().lang_ == "xx"  # not a spaCy language
    doc = english.to_spacy()
    assert doc[-1].whitespace_ == "" and doc.text == doc.text.rstrip()


def test_the_document_text_is_the_input_or_its_tokens_with_their_spaces():
    sentences = list(itertools.islice(conllu.read(ROOT / "data" / "en_ewt" / "dev.conllu.gz"),
                                      3))
    assert Document(sentences, text="As given.\n").text == "As given.\n"
    joined = Document(sentences).text
    assert joined == " ".join(s.text for s in Document(sentences).sentences)
