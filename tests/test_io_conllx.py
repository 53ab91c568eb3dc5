"""CoNLL-X reading, writing, and conversion to and from CoNLL-U."""

import gzip
import io
from pathlib import Path

import pytest

from arcwise.core.corpus import ROOT
from arcwise.core.errors import ArcwiseError, InputError
from arcwise.io import conllu, conllx, convert, format_of, read_treebank

DATA = Path(__file__).resolve().parent / "data"
EWT_DEV = Path(__file__).resolve().parent.parent / "data" / "en_ewt" / "dev.conllu.gz"


def written(sentences) -> str:
    out = io.StringIO()
    conllu.write(out, sentences)
    return out.getvalue()


def test_columns_map_cpostag_to_upos_and_postag_to_xpos():
    first, second = conllx.read(DATA / "small.conll")
    assert first.form == (ROOT, "The", "dog", "barks")
    assert first.upos == (ROOT, "DT", "NN", "VB") and first.xpos == (ROOT, "DT", "NN", "VBZ")
    assert first.head.tolist() == [-1, 2, 3, 0] and first.deprel == (ROOT, "NMOD", "SBJ", "ROOT")
    assert first.word_lines.tolist() == [-1, 0, 1, 2]
    assert second.n == 1 and second.first_line == 5


def test_conllx_round_trips_byte_for_byte_phead_included():
    text = (DATA / "small.conll").read_text()
    assert written(conllx.read(DATA / "small.conll")) == text
    assert "3\tSBJ" in text  # PHEAD/PDEPREL kept in the lines


def test_with_tree_on_conllx_clears_phead_and_pdeprel():
    first = next(conllx.read(DATA / "small.conll"))
    assert first.lines[1] == "2\tdog\tdog\tNN\tNN\t_\t3\tSBJ\t3\tSBJ"
    new = conllu.with_tree(first, [-1, 3, 3, 0], [ROOT, "a", "b", "c"])
    # the old projective tree would contradict the new one
    assert new.lines[1] == "2\tdog\tdog\tNN\tNN\t_\t3\tb\t_\t_"


@pytest.mark.parametrize(
    "text, message",
    [
        ("# comment\n1\tx\tx\tX\tX\t_\t0\tROOT\t_\t_\n", "comment line in CoNLL-X"),
        ("1-2\txy\t_\t_\t_\t_\t_\t_\t_\t_\n1\tx\tx\tX\tX\t_\t0\tROOT\t_\t_\n", "bad ID '1-2'"),
        ("1\tx\tx\tX\tX\t_\t0\tROOT\t_\t_\n1.1\tx\tx\tX\tX\t_\t_\t_\t_\t_\n", "bad ID '1.1'"),
        ("1\tx\tx\tX\tX\t_\t0\tROOT\t_\n", "9 columns; CoNLL-X has 10"),
    ],
)
def test_conllu_only_lines_are_errors(text, message):
    with pytest.raises(InputError, match=message):
        list(conllx.read(io.StringIO(text)))


def test_malformed_conllx_fixture():
    path = DATA / "malformed" / "comment_in_conllx.conll"
    with pytest.raises(InputError) as caught:
        list(read_treebank(path))
    assert (caught.value.path, caught.value.line) == (str(path), 4)


def test_conllu_to_conllx_and_back():
    sentences = list(conllu.read(DATA / "mwt_empty.conllu"))
    as_x = list(convert(sentences, "conllu", "conllx"))
    text = written(as_x)
    assert "#" not in text and "1-2\t" not in text and "5.1\t" not in text
    assert text.split("\n")[0] == "1\tDo\tdo\tAUX\tVBP\tMood=Ind\t3\taux\t_\t_"
    back = list(convert(conllx.read(io.StringIO(text)), "conllx", "conllu"))
    for a, b in zip(sentences, back, strict=True):
        assert (a.form, a.lemma, a.upos, a.xpos, a.feats, a.head.tolist(), a.deprel) == (
            b.form,
            b.lemma,
            b.upos,
            b.xpos,
            b.feats,
            b.head.tolist(),
            b.deprel,
        )
        assert all(line.endswith("\t_\t_") for line in b.lines)
    assert (
        written(convert(sentences, "conllu", "conllu")) == (DATA / "mwt_empty.conllu").read_text()
    )


def test_ewt_dev_as_conllx_keeps_every_word_column():
    raw = gzip.decompress(EWT_DEV.read_bytes()).decode()
    words = [
        line.split("\t")
        for line in raw.split("\n")
        if line and line[0].isdigit() and line.split("\t")[0].isdigit()
    ]
    text = written(convert(conllu.read(EWT_DEV), "conllu", "conllx"))
    x_words = [line.split("\t") for line in text.split("\n") if line]
    assert [w[:8] for w in x_words] == [w[:8] for w in words]
    assert all(w[8:] == ["_", "_"] for w in x_words)
    assert written(conllx.read(io.StringIO(text))) == text


def test_format_detection():
    assert format_of("a.conllu") == format_of("A.CONLLU.gz") == "conllu"
    assert format_of("a.conll") == format_of("b.conllx.gz") == "conllx"
    assert (
        format_of("a.txt") is None and format_of("-") is None and format_of(io.StringIO()) is None
    )
    # unknown extension: the CoNLL-U reader, which reads CoNLL-X too
    assert [s.n for s in read_treebank(io.StringIO((DATA / "small.conll").read_text()))] == [3, 1]
    with pytest.raises(ArcwiseError, match="unknown treebank format"):
        read_treebank(DATA / "small.conll", "tiger")
