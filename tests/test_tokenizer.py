"""The tokenizer and sentence splitter trained from a slice of English-EWT: it recovers the
treebank's tokens and sentences from its raw text, splits multiword tokens as the treebank
does, ends sentences at blank lines, and survives a model file round trip."""

import itertools

import numpy as np
import pytest

from arcwise.io import conllu
from arcwise.pipeline.tokenizer import (
    NONE,
    SENTENCE,
    TOKEN,
    MultiwordSplits,
    Tokenizer,
    sentence_tokens,
    training_text,
)
from tests.ewt import DATA, NO_JIT

N_TRAIN = 40 if NO_JIT else 400


@pytest.fixture(scope="module")
def sentences():
    return list(itertools.islice(conllu.read(DATA / "train.conllu.gz"), N_TRAIN))


@pytest.fixture(scope="module")
def tokenizer(sentences):
    return Tokenizer.train(sentences, epochs=3, buckets=2**16, seed=1)


def test_training_text_spells_out_the_treebank(sentences):
    text, labels, tokenized = training_text(sentences)
    assert len(text) == len(labels) and len(tokenized) == len(sentences)
    assert text.startswith("Al-Zaman : American forces")
    assert "\n\n" in text  # paragraphs (# newpar) are blank-line separated
    assert labels.tolist()[:8] == [NONE, TOKEN, TOKEN, NONE, NONE, NONE, NONE, TOKEN]
    assert (labels == SENTENCE).sum() == len(sentences)
    assert (labels != NONE).sum() == sum(map(len, tokenized))


def test_multiword_tokens_are_read_and_split():
    block = "\n".join(["# text = I don't", "1\tI\t_\t_\t_\t_\t_\t_\t_\t_",
                       "2-3\tdon't\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No",
                       "2\tdo\t_\t_\t_\t_\t_\t_\t_\t_", "3\tn't\t_\t_\t_\t_\t_\t_\t_\t_"])
    tokens = sentence_tokens(conllu.parse_block(block))
    assert tokens == [("I", ("I",), True), ("don't", ("do", "n't"), False)]
    splits = MultiwordSplits.learn([tokens, [("del", ("de", "el"), True)]])
    assert splits.words("Don't") == ("Do", "n't")
    assert splits.words("Del") == ("De", "el")
    assert splits.words("cat") == ("cat",)


def test_tokenizes_its_training_text(tokenizer, sentences):
    text, _, gold = training_text(sentences)
    got = tokenizer.tokenize(text)
    gold_tokens = [t[0] for s in gold for t in s]
    got_tokens = [t[0] for s in got for t in s]
    assert "".join(got_tokens) == "".join(gold_tokens)  # no character lost or added
    assert len(set(gold_tokens) ^ set(got_tokens)) < 0.05 * len(set(gold_tokens))
    assert abs(len(got) - len(gold)) < 0.2 * len(gold)


def test_sentences_paragraphs_and_output(tokenizer):
    got = tokenizer.tokenize("I don't know.\n\nwhat  now\nthen ")
    assert ("don't", ("do", "n't"), True) in got[0]
    assert [t[0] for t in got[-1]][-3:] == ["what", "now", "then"]  # one line break: a space
    assert got[0][-1][0] == "."
    sentence = conllu.from_tokens(got[0], "1")
    assert sentence.lines[:2] == ["# sent_id = 1", "# text = I don't know."]
    assert "2-3\tdon't" in "\n".join(sentence.lines) and sentence.form[1:4] == ("I", "do", "n't")
    assert tokenizer.tokenize("") == [] and tokenizer.tokenize(" \n\n \n") == []


def test_model_arrays_round_trip(tokenizer):
    arrays, meta = tokenizer.saved("tokenizer_")
    again = Tokenizer.from_saved(arrays, meta, "model", "tokenizer_")
    assert np.array_equal(again.weights.transition, tokenizer.weights.transition)
    text = "Mr. Smith went to Washington. He didn't stay."
    assert again.tokenize(text) == tokenizer.tokenize(text)
