"""`arcwise.io.sniff`: CoNLL-U or plain text, decided from the first lines of a file, a
stream or standard input (which is peeked at, not consumed)."""

import gzip
import io

from arcwise.io.sniff import input_format, looks_like_conllu, reading_format

CONLLU = "# sent_id = 1\n# text = Hi.\n1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\tSpaceAfter=No\n"


def test_conllu_and_conllx_are_recognised_by_their_columns_and_ids():
    assert looks_like_conllu(CONLLU)
    assert looks_like_conllu("\n\n1-2\tdon't\t_\t_\t_\t_\t_\t_\t_\t_\n")
    assert looks_like_conllu("1\tHi\thi\tINTJ\tUH\t_\t0\tROOT\t_\t_\n")  # CoNLL-X
    assert looks_like_conllu("# only comments so far\n")
    assert looks_like_conllu("1\tHi\thi\tINTJ\n1\t2\t3\t4\t5\t6\t7\t8\n") is False
    for text in ("The cat sat on the mat.\n", "", "# A hashtag heading\nThen text.\n",
                 "1. The first point\n", "a\tb\tc\td\te\tf\tg\th\ti\tj\n"):
        assert not looks_like_conllu(text), text


def test_files_gzip_and_streams(tmp_path):
    text, tree, packed = tmp_path / "a", tmp_path / "b", tmp_path / "c.gz"
    text.write_text("Some raw text.\n")
    tree.write_text(CONLLU)
    packed.write_bytes(gzip.compress(CONLLU.encode()))
    assert [input_format(p) for p in (text, tree, packed)] == ["text", "conllu", "conllu"]
    named_txt = tmp_path / "x.txt"
    named_txt.write_text(CONLLU)
    assert input_format(named_txt) == "text"  # the extension says so
    stream = io.BytesIO(b"Raw words here.\n")
    assert input_format(stream) == "text" and stream.read() == b"Raw words here.\n"
    assert input_format(io.BufferedReader(io.BytesIO(CONLLU.encode()))) == "conllu"
    assert input_format(tmp_path / "missing") == "conllu"  # the reader then says what is wrong


def test_only_models_that_read_text_sniff():
    stream = io.BytesIO(b"Raw words here.\n")
    assert reading_format(stream, None, reads_text=True) == "text"
    assert reading_format(stream, None, reads_text=False) is None
    assert reading_format(stream, "tokens", reads_text=True) == "tokens"
