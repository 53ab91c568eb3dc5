"""Raw and pre-tokenized text (`arcwise parse --input text|lines|tokens`) name the line at
fault: the reader decodes and checks each line by itself (`arcwise.io.tokens.lines`).
Decoding the file in blocks named the line the block started on (line 3 as 1, line
5,000 as 4,578), and a control character came from the tokenizer's CoNLL-U lines
(line 3 as 2 or 4)."""

import gzip
import io

import pytest

from arcwise.core.errors import InputError
from arcwise.io import read_treebank, tokens
from arcwise.pipeline.pipeline import raw_paragraphs
from tests.cli_run import run
from tests.tiny_model import tiny_pipeline_model  # noqa: F401 -- a fixture

SENTENCE = b"The cat sat on the mat."
FAULTS = {b"\xff": "invalid UTF-8 (byte 0xff)", b"\x01": "control character U+0001 in line"}


def text_with(fault: bytes, at: int, lines: int = 6000) -> bytes:
    """`lines` lines of a sentence each, line `at` holding `fault` inside a word."""
    text = [SENTENCE] * lines
    text[at - 1] = b"The c" + fault + b"at sat."
    return b"\n".join(text) + b"\n"


READERS = {
    "text": lambda path: raw_paragraphs(path, "text"),
    "lines": lambda path: raw_paragraphs(path, "lines"),
    "tokens": lambda path: read_treebank(path, "tokens"),
}


@pytest.mark.parametrize("gzipped", [False, True])
@pytest.mark.parametrize("fault", list(FAULTS))
@pytest.mark.parametrize("at", [3, 5000])
@pytest.mark.parametrize("format", list(READERS))
def test_every_text_format_names_the_line_at_fault(tmp_path, format, at, fault, gzipped):
    path = tmp_path / ("in.txt.gz" if gzipped else "in.txt")
    data = text_with(fault, at)
    path.write_bytes(gzip.compress(data) if gzipped else data)
    with pytest.raises(InputError) as error:
        list(READERS[format](path))
    assert str(error.value) == f"{path}:{at}: {FAULTS[fault]}"


def test_line_ends_blank_lines_and_control_characters(tmp_path):
    """LF, CRLF and a lone CR end lines (universal newlines), each numbered; a line holding
    only whitespace, a form feed included, is blank; whitespace control characters (VT)
    are spaces in a line, other control characters an error at their line."""
    path = tmp_path / "in.txt"
    path.write_bytes(b"one\r\ntwo\rthree\n\x0c\n\tfour\t\n")
    assert [(n, line) for _, n, line in tokens.lines(path)] == [
        (1, "one"), (2, "two"), (3, "three"), (4, "\x0c"), (5, "\tfour\t")]
    path.write_bytes(b"one\x0btwo\rthree\r\x02four\n")
    with pytest.raises(InputError, match=r"in.txt:3: control character U\+0002"):
        list(tokens.lines(path))
    path.write_bytes(b"one\x0btwo\n")
    assert [line for _, _, line in tokens.lines(path)] == ["one\x0btwo"]


@pytest.mark.end_to_end
@pytest.mark.parametrize("fault", list(FAULTS))
@pytest.mark.parametrize("at", [3, 5000])
@pytest.mark.parametrize("format", list(READERS))
def test_arcwise_parse_names_the_line_at_fault(tiny_pipeline_model, tmp_path, capsys,  # noqa: F811
                                               monkeypatch, format, at, fault):
    path = tmp_path / "in.txt"
    path.write_bytes(text_with(fault, at))
    out = tmp_path / "out.conllu"
    code, _, err = run(["parse", "-m", tiny_pipeline_model, "--input", format, path,
                        "-o", out], capsys, monkeypatch)
    assert (code, err) == (2, f"{path}:{at}: {FAULTS[fault]}\n")
    assert not out.exists()


@pytest.mark.parametrize("surrogate", [chr(0xD800), chr(0xDCFF)])
@pytest.mark.parametrize("at", [3, 5000])
@pytest.mark.parametrize("format", list(READERS))
def test_a_lone_surrogate_in_a_text_stream_is_an_error_at_its_line(format, at, surrogate):
    """A Python text stream's str may hold a lone surrogate, which no file's UTF-8 can:
    an `InputError` at its line, as invalid UTF-8 is in a file (it went through, to fail
    as a UnicodeEncodeError when written)."""
    text = [SENTENCE.decode()] * 6000
    text[at - 1] = f"The c{surrogate}at sat."
    with pytest.raises(InputError) as error:
        list(READERS[format](io.StringIO("\n".join(text) + "\n")))
    assert str(error.value) == (f"<stream>:{at}: lone surrogate U+{ord(surrogate):04X} at "
                                "character 6: half of a UTF-16 pair, not a Unicode character")
