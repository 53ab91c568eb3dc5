"""`arcwise train` and `arcwise parse` end to end, as a user runs them."""

import itertools
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from arcwise.io import conllu
from arcwise.trees.projectivity import is_well_formed

DATA = Path(__file__).resolve().parents[1] / "data" / "en_ewt"


def arcwise(*args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "arcwise", *map(str, args)],
        input=stdin, capture_output=True, text=True, timeout=600,
    )


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cli")
    train, dev = tmp / "train.conllu", tmp / "dev.conllu"
    conllu.write(train, itertools.islice(conllu.read(DATA / "train.conllu.gz"), 40))
    conllu.write(dev, itertools.islice(conllu.read(DATA / "dev.conllu.gz"), 20))
    model = tmp / "model.arcwise"
    run = arcwise("train", "--system", "arc-eager", "--train", train, "--dev", dev,
                  "-o", model, "--epochs", "1", "--oracle", "static", "--seed", "3")
    assert run.returncode == 0, run.stderr
    return train, dev, model


def test_train_writes_a_model_and_a_json_log(files):
    _, _, model = files
    assert model.stat().st_size > 0
    log = json.loads(model.with_name(model.name + ".log.json").read_text())
    assert log["best_epoch"] == 1 and log["sentences"] == 40 and len(log["epochs"]) == 1


def test_parse_changes_only_head_and_deprel(files, tmp_path):
    _, dev, model = files
    out = tmp_path / "parsed.conllu"
    run = arcwise("parse", "-m", model, dev, "-o", out)
    assert run.returncode == 0, run.stderr
    before, after = dev.read_text().splitlines(), out.read_text().splitlines()
    assert len(before) == len(after)
    for a, b in zip(before, after):
        if a and not a.startswith("#"):
            cols_a, cols_b = a.split("\t"), b.split("\t")
            assert cols_a[:6] + cols_a[8:] == cols_b[:6] + cols_b[8:]
        else:
            assert a == b
    for s in conllu.read(out):
        assert is_well_formed(np.asarray(s.head, dtype=np.int32))


def test_parse_streams_stdin_to_stdout(files):
    _, dev, model = files
    run = arcwise("parse", "-m", model, stdin=dev.read_text())
    assert run.returncode == 0, run.stderr
    assert len(list(conllu.read(__import__("io").StringIO(run.stdout)))) == 20


def test_bad_model_file_and_bad_option_exit_2_with_one_line(files, tmp_path):
    train, dev, _ = files
    garbage = tmp_path / "garbage.arcwise"
    garbage.write_bytes(b"not a model")
    run = arcwise("parse", "-m", garbage, dev)
    assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1
    run = arcwise("train", "--system", "covington-nm", "--train", train, "-o",
                  tmp_path / "m.arcwise", "--bound", "nonsense", "--epochs", "1")
    assert run.returncode == 2 and "bound" in run.stderr
    assert not (tmp_path / "m.arcwise").exists()
