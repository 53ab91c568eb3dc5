"""`arcwise.load` of a plain parser model file gives a one-stage pipeline: nlp(words),
nlp("words separated by spaces"), nlp.pipe, the same `Document` -- while the parser's
parse and parse_file stay as they were (nlp.parse is the parser's); raw text that needs a
tokenizer, and bare words to a parser trained with tags, stop with the remedy named."""

import re

import pytest

import arcwise
from arcwise.combination.stacking import GuidedParser
from arcwise.core.errors import ArcwiseError, InputError
from arcwise.graph.mst_parser import GraphParser
from arcwise.pipeline.document import Document
from arcwise.pipeline.pipeline import Pipeline, whitespace_words
from arcwise.transition.parser import Parser
from tests.tiny_model import (  # noqa: F401  (fixtures)
    tiny_model,
    tiny_pipeline_model,
    untagged_tiny_model,
)


def test_a_parser_file_takes_text(untagged_tiny_model):
    path, _ = untagged_tiny_model
    nlp = arcwise.load(path)
    assert isinstance(nlp, Pipeline) and nlp.components == ("parser",)
    assert isinstance(nlp.parser, Parser)  # the parser itself, whose own API stays
    doc = nlp(["The", "dog", "barks", "."])
    assert isinstance(doc, Document) and [w.form for w in doc.words] == ["The", "dog", "barks", "."]
    assert sum(w.head == 0 for w in doc.words) == 1 and all(w.deprel != "_" for w in doc.words)
    head, deprel = nlp.parse(doc.sentences[0].sentence)
    assert [w.head for w in doc.words] == list(head[1:])
    assert [w.deprel for w in doc.words] == list(deprel[1:])
    two = nlp("The dog barks .\n\nCats sleep")
    assert [[w.form for w in s] for s in two] == [["The", "dog", "barks", "."], ["Cats", "sleep"]]
    assert two.to_json() == Pipeline(parser=nlp.parser)("The dog barks .\nCats sleep").to_json()
    sentences = two.sentences
    words = [s.sentence for s in sentences]
    assert [(list(h), list(d)) for h, d in nlp.parse(words)] == [
        (list(h), list(d)) for h, d in nlp.parser.parse(words)]
    texts = ["A b c", ["Dogs", "bark"], "One .\nTwo ."]
    assert [d.to_conllu() for d in nlp.pipe(texts, batch_size=2)] == [
        nlp(t).to_conllu() for t in texts]


def test_raw_text_that_needs_a_tokenizer_is_refused(untagged_tiny_model):
    nlp = arcwise.load(untagged_tiny_model[0])
    for text in ("The cat sat on the mat.", "Hello, world", "Really?"):
        with pytest.raises(ArcwiseError, match="no tokenizer.*arcwise train --pipeline"):
            nlp(text)
    assert whitespace_words("U.S. policy , he said .\n e.g. this\n\n") == [
        ["U.S.", "policy", ",", "he", "said", "."], ["e.g.", "this"]]
    assert nlp(["The", "mat."]).words[1].form == "mat."  # a list of words is never checked
    # text as files are read: NFC, no byte-order mark; an empty sentence is refused in words
    assert [w.form for w in nlp("\ufeffThe cafe\u0301 .").words] == ["The", "caf\u00e9", "."]
    for empty in ([[]], [["The", "dog"], []]):
        with pytest.raises(ArcwiseError, match="a sentence needs at least one word"):
            nlp(empty)
    with pytest.raises(ArcwiseError, match="cannot be a word"):
        nlp([["The", ["dog"]]])


def test_bare_words_to_a_tagged_parser_name_the_remedy(tiny_model):
    nlp = arcwise.load(tiny_model[0])
    with pytest.raises(ArcwiseError, match="no tags .* tag the input first"):
        nlp(["The", "dog", "barks", "."])


def test_every_parser_class_is_a_pipeline_stage_not_a_pipeline():
    """The text API is the pipeline's alone: no parser class inherits from the pipeline
    layer (the import-linter contract checks the imports), and `Pipeline.of` wraps any."""
    for cls in (Parser, GraphParser, GuidedParser):
        assert not issubclass(cls, Pipeline) and not hasattr(cls, "pipe")
        assert callable(getattr(cls, "parse")) and callable(getattr(cls, "parse_file"))


def test_what_is_neither_text_nor_words_is_refused_naming_what_is_taken(untagged_tiny_model):
    """None, a number, bytes, a dict: a TypeError that says what the pipeline takes, not
    "'int' object is not iterable"; a set of words has no order, so it is refused, not parsed
    in whatever order it iterates.  The parser's parse and the pipeline's pipe check the same."""
    nlp = arcwise.load(untagged_tiny_model[0])
    accepted = re.escape("expected a str, a list or tuple of words (one sentence)")
    for given, why in [(None, "NoneType$"), (123, "int$"), (b"The dog", "bytes: decode them"),
                       ({"The", "dog"}, r"set \(a set has no order\)"), ({"The": 1}, "dict$")]:
        with pytest.raises(TypeError, match=f"^{accepted}.*, not {why}"):
            nlp(given)
    for words in ([b"The", b"dog"], [{"The", "dog"}], [["The"], 7]):
        with pytest.raises(TypeError, match="^expected a sentence as a str, a list or tuple"):
            nlp(words)
    with pytest.raises(TypeError, match=r"not set \(a set has no order\)"):
        nlp.parser.parse({"The", "dog"})
    for inputs in ("The dog", b"The dog", {"The dog"}):
        with pytest.raises(TypeError, match="^expected an iterable of inputs"):
            list(nlp.pipe(inputs))
    words = ["The", "dog", "barks", "."]  # any ordered collection of words is a sentence
    expected = nlp(words).to_conllu()
    assert nlp(tuple(words)).to_conllu() == nlp(iter(words)).to_conllu() == expected


def test_a_lone_surrogate_is_an_arcwise_error_in_one_line(untagged_tiny_model,
                                                          tiny_pipeline_model):
    """A str may hold half of a UTF-16 pair (a JSON "\\udc80"), which UTF-8 cannot encode:
    raw text and words with one are refused where they enter, as invalid UTF-8 in a file is,
    never a UnicodeEncodeError from the hashing of features."""
    nlp = arcwise.load(untagged_tiny_model[0])
    pipeline = arcwise.load(tiny_pipeline_model)  # raw text through its tokenizer
    for model in (nlp, pipeline):
        with pytest.raises(InputError, match=r"^<text>: lone surrogate U\+DC80 at character 7: "
                                             "half of a UTF-16 pair") as refused:
            model("Hello \udc80 world .")
        assert "\n" not in str(refused.value)
        with pytest.raises(InputError, match=r"^<text>:2: lone surrogate U\+D800 at character 1"):
            list(model.pipe(["Hello .", "Hello world\n\ud800 ."]))
    with pytest.raises(ArcwiseError, match=r"^<words>: 'w\\udc80': lone surrogate U\+DC80"):
        nlp(["Hello", "w\udc80"])
    with pytest.raises(ArcwiseError, match=r"'\\ud800': lone surrogate"):
        nlp.parser.parse([["Hello"], ["\ud800"]])
    assert [w.form for w in pipeline("Hello world.").words][:2] == ["Hello", "world"]
