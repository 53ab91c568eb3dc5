"""`arcwise parse IN [IN ...] -o OUTDIR` (#44): a tree of inputs parsed into a mirrored tree,
byte-identical to parsing each file alone, resumable after a signal, and as Parquet."""

from __future__ import annotations

import gzip
import os
import shutil
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

import arcwise
from arcwise.io import conllu
from arcwise.io.corpus import MANIFEST
from tests.cli_run import hide_module, run
from tests.ewt import train_and_dev
from tests.tiny_model import SRC, tiny_model, tiny_pipeline_model  # noqa: F401
from tests.tiny_model import arcwise as arcwise_command

pytestmark = pytest.mark.end_to_end

# a multiword token (2-3) and an empty node (7.1): their rows in Parquet
MULTIWORD = """\
# sent_id = mw-1
# text = I don't know, you do.
1\tI\tI\tPRON\tPRP\t_\t4\tnsubj\t4:nsubj\t_
2-3\tdon't\t_\t_\t_\t_\t_\t_\t_\t_
2\tdo\tdo\tAUX\tVBP\t_\t4\taux\t4:aux\t_
3\tn't\tnot\tPART\tRB\t_\t4\tadvmod\t4:advmod\t_
4\tknow\tknow\tVERB\tVB\t_\t0\troot\t0:root\tSpaceAfter=No
5\t,\t,\tPUNCT\t,\t_\t7\tpunct\t7:punct\t_
6\tyou\tyou\tPRON\tPRP\t_\t7\tnsubj\t7:nsubj\t_
7\tdo\tdo\tAUX\tVBP\t_\t4\tparataxis\t4:parataxis\tSpaceAfter=No
7.1\tknow\tknow\tVERB\tVB\t_\t_\t_\t7:conj\t_
8\t.\t.\tPUNCT\t.\t_\t4\tpunct\t4:punct\t_

"""
TEXT = "The cat sat on the mat. It was happy.\n\nA second paragraph, short.\n"

# input (relative to in/) -> output (relative to OUTDIR)
TREE = {
    "a.conllu": "a.conllu",
    "t.txt": "t.conllu",
    "mw.conllu": "mw.conllu",
    "sub/b.conllu.gz": "sub/b.conllu.gz",
    "sub/u.txt.gz": "sub/u.conllu.gz",
    "sub/deeper/c.conllu": "sub/deeper/c.conllu",
}


def make_tree(root: Path) -> Path:
    """in/ with CoNLL-U, gzip, raw text and a nested folder (and a hidden file, skipped)."""
    _, dev = train_and_dev(0, 20)
    root.mkdir(parents=True)
    (root / "sub" / "deeper").mkdir(parents=True)
    conllu.write(root / "a.conllu", dev[:5])
    conllu.write(root / "sub" / "b.conllu.gz", dev[5:12])
    conllu.write(root / "sub" / "deeper" / "c.conllu", dev[12:20])
    (root / "t.txt").write_text(TEXT)
    with gzip.open(root / "sub" / "u.txt.gz", "wt") as f:
        f.write(TEXT.replace("cat", "dog"))
    (root / "mw.conllu").write_text(MULTIWORD)
    (root / ".hidden.txt").write_text("not an input\n")
    return root


@pytest.fixture(scope="module")
def tree(tmp_path_factory, tiny_pipeline_model):  # noqa: F811
    """(model, in/, {output name: the bytes of `parse_file` of its input alone})."""
    tmp = tmp_path_factory.mktemp("corpus")
    inputs = make_tree(tmp / "in")
    nlp = arcwise.load(tiny_pipeline_model)
    alone = {}
    for name, output in TREE.items():
        target = tmp / "alone" / output
        target.parent.mkdir(parents=True, exist_ok=True)
        with warnings.catch_warnings():  # the tiny model has not seen EWT's X tags
            warnings.simplefilter("ignore")
            nlp.parse_file(inputs / name, target)
        alone[output] = target.read_bytes()
    return tiny_pipeline_model, inputs, alone


def outputs_of(outdir: Path) -> dict[str, bytes]:
    return {p.relative_to(outdir).as_posix(): p.read_bytes()
            for p in sorted(outdir.rglob("*")) if p.is_file() and p.name != MANIFEST}


def leftovers(folder: Path) -> list[Path]:
    """Temporary files of atomic writes (``.NAME.RANDOM.tmp``)."""
    return [p for p in folder.rglob(".*") if p.is_file()]


@pytest.mark.parametrize("workers", [1, 2])
def test_a_tree_parses_into_a_mirrored_tree_identical_to_each_file_alone(
        tree, tmp_path, capsys, monkeypatch, workers):
    model, inputs, alone = tree
    out = tmp_path / "out"
    code, _, err = run(["parse", "-m", model, inputs, "-o", out, "--workers", workers],
                       capsys, monkeypatch)
    assert code == 0, err
    assert outputs_of(out) == alone
    assert f"parsed {len(TREE)} files" in err and not leftovers(out)
    assert (out / MANIFEST).is_file()


def test_each_file_alone_is_what_the_single_file_command_writes(tree, tmp_path):
    """The reference above (`parse_file`) is `arcwise parse -m M FILE -o OUT`, unchanged."""
    model, inputs, alone = tree
    done = arcwise_command("parse", "-m", model, inputs / "sub" / "u.txt.gz", "-o",
                           tmp_path / "u.conllu.gz")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "u.conllu.gz").read_bytes() == alone["sub/u.conllu.gz"]


def test_files_folders_and_patterns_mirror_what_was_given(tree, tmp_path, capsys, monkeypatch):
    model, inputs, alone = tree
    out = tmp_path / "out"
    code, _, err = run(["parse", "-m", model, inputs / "a.conllu", str(inputs / "sub" / "**" /
                                                                         "*.conllu*"),
                        inputs / "sub" / "deeper", "-o", out], capsys, monkeypatch)
    assert code == 0, err
    # a file: its name; a pattern: below the folder it starts in; a folder: below it
    assert outputs_of(out) == {"a.conllu": alone["a.conllu"],
                               "b.conllu.gz": alone["sub/b.conllu.gz"],
                               "deeper/c.conllu": alone["sub/deeper/c.conllu"],
                               "c.conllu": alone["sub/deeper/c.conllu"]}


def test_resume_skips_what_is_finished_and_another_model_needs_rerun(
        tree, tiny_model, tmp_path, capsys, monkeypatch):  # noqa: F811
    model, inputs, alone = tree
    inputs = Path(shutil.copytree(inputs, tmp_path / "in"))
    out = tmp_path / "out"
    command = ["parse", "-m", model, inputs, "-o", out]
    assert run(command, capsys, monkeypatch)[0] == 0
    written = {p: p.stat().st_mtime_ns for p in out.rglob("*.conllu*")}
    code, _, err = run([*command, "--resume"], capsys, monkeypatch)
    assert code == 0 and f"parsed 0 files (0 sentences) into {out}, 6 finished before" in err
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*.conllu*")} == written
    # an input changed, an output damaged: both parsed again, the others not
    (inputs / "t.txt").write_text(TEXT + "\nOne more paragraph.\n")
    (out / "a.conllu").write_bytes(b"half")
    code, _, err = run([*command, "--resume"], capsys, monkeypatch)
    assert code == 0 and "parsed 2 files" in err and "4 finished before" in err
    assert (out / "a.conllu").read_bytes() == alone["a.conllu"]
    assert b"One more paragraph" in (out / "t.conllu").read_bytes()
    # another model in the same folder: refused, unless --rerun
    other = ["parse", "-m", tiny_model[0], inputs / "a.conllu", inputs / "mw.conllu",
             "-o", out]
    code, _, err = run([*other, "--resume"], capsys, monkeypatch)
    assert code == 2 and "parsed with another model" in err and "--rerun" in err
    assert err.count("\n") == 1
    code, _, err = run([*other, "--rerun"], capsys, monkeypatch)
    assert code == 0 and "parsed 2 files" in err


@pytest.mark.parametrize("workers", [1, 2])
def test_sigterm_mid_run_leaves_only_finished_outputs_and_resume_completes(
        tree, tmp_path, workers):
    """SIGTERM while the run waits on its last input (a FIFO nobody writes yet, its output's
    temporary file already open): exit 143, one line, finished outputs whole, no partial or
    temporary file; --resume then parses only what is missing, byte-identical."""
    model, inputs, alone = tree
    fifo = tmp_path / "z.conllu"
    os.mkfifo(fifo)
    out = tmp_path / "out"
    env = dict(os.environ, PYTHONPATH=str(SRC))
    command = [sys.executable, "-m", "arcwise", "parse", "-m", str(model), str(inputs),
               str(fifo), "-o", str(out), "--workers", str(workers)]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 300
        while not all((out / name).is_file() for name in alone) and process.poll() is None \
                and time.monotonic() < deadline:  # then on to the FIFO, waiting for a writer
            time.sleep(0.05)
        assert process.poll() is None, process.communicate()[1]
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 128 + signal.SIGTERM, stderr
    assert stderr.strip().splitlines()[-1] == "arcwise: interrupted by SIGTERM"
    assert "Traceback" not in stderr
    assert not leftovers(out) and not (out / "z.conllu").exists()
    assert outputs_of(out) == alone  # every finished output whole
    fifo.unlink()
    shutil.copy(inputs / "a.conllu", fifo)
    resumed = subprocess.run(command + ["--resume"], env=env, capture_output=True, text=True,
                             timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert "parsed 1 files" in resumed.stderr and f"{len(TREE)} finished before" in \
        resumed.stderr
    assert outputs_of(out) == {**alone, "z.conllu": alone["a.conllu"]}
    assert not leftovers(out)


def test_parquet_has_one_row_per_word_with_integer_heads(tree, tmp_path, capsys, monkeypatch):
    import pyarrow as pa
    import pyarrow.dataset as ds

    model, inputs, alone = tree
    out = tmp_path / "out"
    code, _, err = run(["parse", "-m", model, inputs, "-o", out, "--format", "parquet"],
                       capsys, monkeypatch)
    assert code == 0, err
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.parquet")) == sorted(
        name.removesuffix(".gz").replace(".conllu", ".parquet") for name in TREE.values())
    table = ds.dataset(out, format="parquet").to_table()  # the manifest (_...) is skipped
    assert table.schema.field("head").type == pa.int32()
    assert table.schema.field("sentence").type == pa.int32()
    rows = table.to_pylist()
    for output, data in alone.items():
        text = (gzip.decompress(data) if output.endswith(".gz") else data).decode()
        lines = [line.split("\t") for line in text.splitlines()
                 if line and not line.startswith("#")]
        name = next(k for k, v in TREE.items() if v == output)
        mine = [r for r in rows if r["input"] == name]
        assert [r["id"] for r in mine] == [line[0] for line in lines]  # a row per line
        for r, line in zip(mine, lines):
            assert r["form"] == line[1] and r["deprel"] == line[7]
            assert r["head"] == (None if line[6] == "_" else int(line[6]))
        sentences = list(conllu.read(inputs / name)) if "conllu" in name else None
        if sentences is not None:  # one row of kind word per word
            assert sum(r["kind"] == "word" for r in mine) == sum(s.n for s in sentences)
    by_id = {r["id"]: r for r in rows if r["input"] == "mw.conllu"}
    assert (by_id["2-3"]["kind"], by_id["2-3"]["word"], by_id["2-3"]["word_end"],
            by_id["2-3"]["head"]) == ("multiword", 2, 3, None)
    assert (by_id["7.1"]["kind"], by_id["7.1"]["word"], by_id["7.1"]["empty"],
            by_id["7.1"]["deps"]) == ("empty", 7, 1, "7:conj")
    assert by_id["1"]["sent_id"] == "mw-1" and by_id["1"]["sentence"] == 1
    # one file in, one Parquet file out
    code, _, err = run(["parse", "-m", model, inputs / "a.conllu", "-o", tmp_path / "a.parquet",
                        "--format", "parquet"], capsys, monkeypatch)
    assert code == 0, err
    single = ds.dataset(tmp_path / "a.parquet").to_table()
    assert single.to_pylist() == [r for r in rows if r["input"] == "a.conllu"]


def test_parquet_without_pyarrow_is_one_line_naming_the_extra(tree, tmp_path, capsys,
                                                               monkeypatch):
    hide_module(monkeypatch, "pyarrow")
    model, inputs, _ = tree
    code, _, err = run(["parse", "-m", model, inputs, "-o", tmp_path / "out", "--format",
                        "parquet"], capsys, monkeypatch)
    assert code == 2 and err.count("\n") == 1
    assert "pip install 'arcwise[corpus]'" in err and not (tmp_path / "out").exists()


@pytest.mark.parametrize("case, message", [
    ("missing", "missing.txt: cannot read: No such file or directory"),
    ("empty folder", "empty: no input files in the folder"),
    ("no match", "*.nothing: no file matches"),
    ("outdir is a file", "taken: not a directory"),
    ("same output", "would both be written to"),
    ("stdin among several", "-: standard input cannot be one of a corpus's inputs"),
    ("outdir inside an input", "inside the input folder"),
])
def test_bad_inputs_are_one_line_exit_2(tree, tmp_path, capsys, monkeypatch, case, message):
    model, inputs, _ = tree
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty").mkdir()
    (tmp_path / "taken").write_text("a file\n")
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "a.txt").write_text(TEXT)
    args = {"missing": [inputs, "missing.txt", "-o", "out"],
            "empty folder": [inputs, "empty", "-o", "out"],
            "no match": [str(tmp_path / "*.nothing"), inputs, "-o", "out"],
            "outdir is a file": [inputs, "-o", "taken"],
            "same output": [inputs / "t.txt", "x/a.txt", inputs / "a.conllu", "x", "-o",
                            "out"],
            "stdin among several": ["-", inputs, "-o", "out"],
            "outdir inside an input": ["x", "-o", "x/out"]}[case]
    code, out, err = run(["parse", "-m", model, *args], capsys, monkeypatch)
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert message in err, err
    assert not (tmp_path / "out").exists()
