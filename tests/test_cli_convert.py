"""`arcwise convert`: lossless copies, format conversion, and malformed input (exit 2)."""

import gzip
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_run import run

pytestmark = pytest.mark.end_to_end

TESTS = Path(__file__).resolve().parent
EWT = TESTS.parent / "data" / "en_ewt"
MALFORMED = sorted((TESTS / "data" / "malformed").glob("*.conll*"))
FILE_LEVEL = {"crlf_line_ends", "byte_order_mark"}  # no sentence to skip: always exit 2


def expected_line(path: Path) -> int:
    return int(re.search(rb"# expect: line (\d+):", path.read_bytes())[1])


@pytest.mark.parametrize("path", MALFORMED, ids=lambda p: p.stem)
def test_malformed_input_exit_2_one_line_no_output(path, tmp_path, capsys, monkeypatch):
    out = tmp_path / "out.conllu"
    code, stdout, stderr = run(["convert", path, "-o", out], capsys, monkeypatch)
    assert code == 2
    assert re.fullmatch(
        rf"(arcwise: )?{re.escape(str(path))}:{expected_line(path)}: [^\n]+\n", stderr
    )
    assert "Traceback" not in stderr and stdout == ""
    assert os.listdir(tmp_path) == []  # neither the output nor a temporary file


@pytest.mark.parametrize("path", MALFORMED, ids=lambda p: p.stem)
def test_skip_bad(path, tmp_path, capsys, monkeypatch):
    out = tmp_path / "out.conllu"
    code, _, stderr = run(["convert", path, "-o", out, "--skip-bad"], capsys, monkeypatch)
    line = expected_line(path)
    if path.stem in FILE_LEVEL:
        assert code == 2 and not out.exists()
        return
    assert code == 0
    assert re.fullmatch(rf"{re.escape(str(path))}:{line}: [^\n]+ \(sentence skipped\)\n", stderr)
    good = (
        path.read_bytes().split(b"\n\n")[0] + b"\n\n"
    )  # the first sentence of each fixture is valid
    assert out.read_bytes() == good


def test_failure_leaves_an_existing_output_untouched(tmp_path, capsys, monkeypatch):
    out = tmp_path / "out.conllu"
    out.write_text("precious\n")
    code, _, _ = run(
        ["convert", TESTS / "data" / "malformed" / "id_duplicate.conllu", "-o", out],
        capsys,
        monkeypatch,
    )
    assert code == 2 and out.read_text() == "precious\n" and os.listdir(tmp_path) == ["out.conllu"]


def test_round_trip_and_conversions(tmp_path, capsys, monkeypatch):
    source = EWT / "dev.conllu.gz"
    raw = gzip.decompress(source.read_bytes())
    out = tmp_path / "dev.conllu"
    assert run(["convert", source, "-o", out], capsys, monkeypatch)[0] == 0
    assert out.read_bytes() == raw
    conll = tmp_path / "dev.conll"  # --to by the output's extension
    assert run(["convert", out, "-o", conll], capsys, monkeypatch)[0] == 0
    text = conll.read_text()
    assert "#" not in text.split("\t")[0] and text.count("\n\n") == raw.count(b"\n\n")
    code, stdout, _ = run(["convert", conll, "--to", "conllu"], capsys, monkeypatch)
    assert code == 0 and stdout.split("\n")[0] == "1\tFrom\tfrom\tADP\tIN\t_\t3\tcase\t_\t_"
    gz = tmp_path / "copy.conllu.gz"
    assert run(["convert", out, "-o", gz], capsys, monkeypatch)[0] == 0
    assert gzip.decompress(gz.read_bytes()) == raw
    code, stdout, _ = run(
        ["convert", conll, "--from", "conllx", "--to", "conllx"], capsys, monkeypatch
    )
    assert stdout == text


def test_stdin_to_stdout_as_a_process():
    """The installed entry point: `-` for stdin, stdout by default, exit codes."""
    text = (TESTS / "data" / "mwt_empty.conllu").read_bytes()
    command = [sys.executable, "-m", "arcwise", "convert", "-"]
    done = subprocess.run(command, input=text, capture_output=True, timeout=120, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, text, b"")
    done = subprocess.run(
        command, input=gzip.compress(text), capture_output=True, timeout=120, check=False
    )
    assert done.stdout == text
    done = subprocess.run(
        command, input=text + b"1\tx\n", capture_output=True, timeout=120, check=False
    )
    assert done.returncode == 2 and done.stdout == text  # stdout is not atomic
    assert re.fullmatch(
        rb"(arcwise: )?<stdin>:27: 2 columns; CoNLL-U has 10, separated by tabs\n", done.stderr
    )


def test_unwritable_output_is_one_line_exit_2(tmp_path, capsys, monkeypatch):
    source = TESTS / "data" / "mwt_empty.conllu"
    for out in [tmp_path, tmp_path / "missing" / "out.conllu"]:
        code, _, stderr = run(["convert", source, "-o", out], capsys, monkeypatch)
        assert code == 2 and re.fullmatch(
            rf"(arcwise: )?{re.escape(str(out))}: cannot write: .+\n", stderr
        )
    assert os.listdir(tmp_path) == []


def test_closed_stdout_stops_quietly():
    command = [sys.executable, "-m", "arcwise", "convert", str(EWT / "dev.conllu.gz")]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout.readline().startswith(b"# newdoc")
    process.stdout.close()
    assert process.wait(timeout=120) == 1
    assert process.stderr.read() == b""
    process.stderr.close()
