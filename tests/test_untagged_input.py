"""Input a parser cannot use well: words without tags given to a model trained with tags
(refused with one line naming the remedy), plain strings and word lists in the Python API,
and pre-tokenized text (`--input tokens`) on the command line."""

import pytest

from arcwise.core.corpus import from_words
from arcwise.core.errors import ArcwiseError
from arcwise.io import conllu
from arcwise.transition.train import train
from tests.cli_run import run
from tests.ewt import train_and_dev
from tests.tiny_model import tiny_model, tiny_parser  # noqa: F401  (a fixture)


def blanked(sentence):
    """The sentence with UPOS, XPOS and FEATS all _ (as a user's untagged CoNLL-U)."""
    return conllu.without_tags(sentence)


@pytest.fixture(scope="module")
def parser():
    return tiny_parser()


@pytest.fixture(scope="module")
def untagged_parser():
    """A parser trained on the same sentences with their tags blanked."""
    sentences, _ = train_and_dev(10, 0)
    model, _ = train("arc-eager", [blanked(s) for s in sentences], oracle="static", epochs=1,
                     seed=1, transition_buckets=2**10, label_buckets=2**8)
    return model


def test_a_tagged_model_refuses_untagged_words(parser):
    _, dev = train_and_dev(0, 3)
    with pytest.raises(ArcwiseError, match="no tags .*trained with tags.*tag the input first"):
        parser.parse([blanked(s) for s in dev])
    assert len(parser.parse(dev)) == 3  # tagged: parsed
    # one untagged sentence among tagged ones is refused too, named by its file and line
    mixed = with_one_untagged(dev)
    with pytest.raises(ArcwiseError, match=r"^mixed.conllu:\d+: the words have no tags"):
        parser.parse(mixed)


def with_one_untagged(dev):
    """dev with its second sentence untagged, read back from a CoNLL-U text named
    mixed.conllu (so that its sentences know their lines)."""
    import io

    text = "".join(conllu.format_sentence(s if k != 1 else blanked(s))
                   for k, s in enumerate(dev))
    stream = io.BytesIO(text.encode())
    stream.name = "mixed.conllu"
    return list(conllu.read(stream))


def test_a_pipeline_tags_each_untagged_sentence_and_keeps_tagged_ones():
    """Input mixing tagged and untagged sentences: only the untagged ones are tagged (before,
    tagging was all or nothing per batch, and the untagged ones were parsed on _)."""
    from tests.tiny_model import tiny_pipeline

    nlp = tiny_pipeline()
    _, dev = train_and_dev(0, 3)
    mixed = with_one_untagged(dev)
    read, written = nlp.tagged(mixed)
    assert written[0].upos == dev[0].upos and written[2].xpos == dev[2].xpos  # kept
    assert all(t != "_" for t in written[1].upos[1:])  # tagged
    assert written[1].upos == nlp.tagger.tag(blanked(dev[1])).upos
    assert [w.upos for w in nlp(mixed).sentences[1].words] == list(written[1].upos[1:])


def test_strings_and_word_lists_are_sentences(parser, untagged_parser):
    with pytest.raises(ArcwiseError, match="no tags"):  # never AttributeError
        parser.parse("The cat sat .")
    head, deprel = untagged_parser.parse("The cat sat .")
    assert len(head) == len(deprel) == 5 and (head[1:] == 0).sum() == 1
    same = untagged_parser.parse(["The", "cat", "sat", "."])
    assert same[0].tolist() == head.tolist() and same[1] == deprel
    both = untagged_parser.parse(["The cat sat .", ["Dogs", "bark"]])
    assert [len(h) for h, _ in both] == [5, 3]
    with pytest.raises(ArcwiseError, match="cannot be a word"):
        untagged_parser.parse(["a\tb"])
    assert from_words(["x"]).n == 1


def test_a_model_trained_without_tags_ignores_the_tags_of_its_input(untagged_parser):
    """Tags it never learned do not look like unknown tags to it: tagged and untagged input
    get the same trees."""
    _, dev = train_and_dev(0, 20)
    tagged = untagged_parser.parse(dev)
    bare = untagged_parser.parse([blanked(s) for s in dev])
    assert [(h.tolist(), d) for h, d in tagged] == [(h.tolist(), d) for h, d in bare]


def test_cli_refuses_untagged_conllu(tiny_model, tmp_path, capsys, monkeypatch):  # noqa: F811
    model, three = tiny_model
    untagged = tmp_path / "untagged.conllu"
    conllu.write(untagged, [blanked(s) for s in conllu.read(three)])
    code, out, err = run(["parse", "-m", model, untagged], capsys, monkeypatch)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and str(untagged) in err and "trained with tags" in err


def test_cli_tokens_input(tmp_path, capsys, monkeypatch, untagged_parser):
    model = tmp_path / "untagged.arcwise"
    untagged_parser.save(model)
    text = tmp_path / "tokens.txt"
    # a byte-order mark starting the file is not text (a Windows editor's UTF-8)
    text.write_text("\ufeffThe cat sat on the mat .\n\n  Dogs   bark .\n", encoding="utf-8")
    code, out, err = run(["parse", "-m", model, "--input", "tokens", text], capsys, monkeypatch)
    assert code == 0, err
    sentences = list(conllu.read(__import__("io").BytesIO(out.encode())))
    assert [s.form[1:] for s in sentences] == [tuple("The cat sat on the mat .".split()),
                                               ("Dogs", "bark", ".")]
    assert sentences[1].lines[:2] == ["# sent_id = 2", "# text = Dogs bark ."]
    assert all((s.head[1:] == 0).sum() == 1 for s in sentences)
    for raw in ("text", "lines"):
        code, _, err = run(["parse", "-m", model, "--input", raw, text], capsys, monkeypatch)
        assert code == 2 and f"--input {raw}: " in err and "no tokenizer" in err
    code, _, err = run(["parse", "-m", model, "--input", "words", text], capsys, monkeypatch)
    assert code == 2 and "--input words" in err
