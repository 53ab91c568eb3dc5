"""`arcwise train` and `arcwise parse` end to end, as a user runs them."""

import itertools
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from arcwise.io import conllu
from arcwise.transition.parser import Parser
from arcwise.trees.projectivity import is_projective, is_well_formed
from arcwise.trees.pseudoprojective import LIFTED

pytestmark = pytest.mark.end_to_end

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
    model.with_name("train.stderr").write_text(run.stderr)
    return train, dev, model


@pytest.fixture(scope="module")
def pseudo_projective_model(files):
    train, dev, _ = files
    model = train.with_name("pp.arcwise")
    run = arcwise("train", "--system", "arc-eager", "--train", train, "--dev", dev,
                  "-o", model, "--epochs", "1", "--oracle", "static", "--seed", "3",
                  "--pseudo-projective", "head+path")
    assert run.returncode == 0, run.stderr
    return model, run.stderr


def test_train_writes_a_model_and_a_json_log(files):
    _, _, model = files
    assert model.stat().st_size > 0
    log = json.loads(model.with_name(model.name + ".log.json").read_text())
    assert log["best_epoch"] == 1 and log["sentences"] == 40 and len(log["epochs"]) == 1


def test_parse_changes_only_head_deprel_and_deps(files, tmp_path):
    _, dev, model = files
    out = tmp_path / "parsed.conllu"
    run = arcwise("parse", "-m", model, dev, "-o", out)
    assert run.returncode == 0, run.stderr
    before, after = dev.read_text().splitlines(), out.read_text().splitlines()
    assert len(before) == len(after)
    for a, b in zip(before, after):
        if a and not a.startswith("#"):
            cols_a, cols_b = a.split("\t"), b.split("\t")
            assert cols_a[:6] + cols_a[9:] == cols_b[:6] + cols_b[9:]
            if "-" in cols_a[0] or "." in cols_a[0]:  # ranges and empty nodes stay
                assert a == b
            else:  # EWT has enhanced graphs: DEPS is the new basic arc
                assert cols_b[8] == f"{cols_b[6]}:{cols_b[7]}"
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


def test_oracle_priority_option(files, tmp_path):
    train, dev, _ = files
    model = tmp_path / "nm.arcwise"
    run = arcwise("train", "--system", "covington-nm", "--train", train, "-o", model,
                  "--epochs", "1", "--oracle-priority", "monotonic")
    assert run.returncode == 0, run.stderr
    log = json.loads(model.with_name(model.name + ".log.json").read_text())
    assert log["hyperparameters"]["oracle_priority"] == "monotonic"
    assert Parser.load(model).hyperparameters["oracle_priority"] == "monotonic"
    run = arcwise("train", "--system", "arc-eager", "--train", train, "-o",
                  tmp_path / "m.arcwise", "--epochs", "1", "--oracle-priority", "monotonic")
    assert run.returncode == 2 and "priority" in run.stderr
    assert not (tmp_path / "m.arcwise").exists()


def test_train_counts_the_trees_the_system_cannot_build(files):
    train, _, model = files
    nonprojective = sum(not is_projective(s.head) for s in conllu.read(train))
    assert nonprojective > 0
    log = json.loads(model.with_name(model.name + ".log.json").read_text())
    assert log["unbuildable"] == log["skipped"] == nonprojective
    summary = model.with_name("train.stderr").read_text().strip().splitlines()[-1]
    assert summary == (f"skipped {nonprojective} of 40 training trees the system cannot build "
                       "(static oracle)")


def test_pseudo_projective_training_and_parsing(files, pseudo_projective_model, tmp_path):
    train, dev, _ = files
    model, stderr = pseudo_projective_model
    trees = list(conllu.read(train))
    nonprojective = sum(not is_projective(s.head) for s in trees)
    log = json.loads(model.with_name(model.name + ".log.json").read_text())
    assert log["unbuildable"] == 0
    assert log["pseudo_projective"]["encoding"] == "head+path"
    assert log["pseudo_projective"]["trees"] == nonprojective
    assert stderr.strip().splitlines()[-1].startswith(
        f"pseudo-projective (head+path): lifted {log['pseudo_projective']['arcs']} arcs "
        f"in {nonprojective} of 40 training trees; skipped 0 of 40"
    )
    parser = Parser.load(model)
    assert parser.pseudo_projective == "head+path"
    assert any(LIFTED in label for label in parser.classes.labels)
    out = tmp_path / "parsed.conllu"
    run = arcwise("parse", "-m", model, dev, "-o", out)
    assert run.returncode == 0, run.stderr
    original = {label for s in trees for label in s.deprel[1:]}
    for s in conllu.read(out):
        assert set(s.deprel[1:]) <= original
        assert is_well_formed(np.asarray(s.head, dtype=np.int32))


@pytest.mark.parametrize("pseudo_projective, flag, single_root", [
    (False, "--multi-root", False), (True, None, None), (False, "--single-root", True)])
def test_cli_output_is_parse_file_output_byte_for_byte(files, pseudo_projective_model, tmp_path,
                                                       pseudo_projective, flag, single_root):
    _, dev, model = files
    model = pseudo_projective_model[0] if pseudo_projective else model
    flags = [flag] if flag else []
    out = tmp_path / "cli.conllu"
    run = arcwise("parse", "-m", model, dev, "-o", out, *flags)
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""  # no progress bar when stderr is not a terminal
    python = tmp_path / "python.conllu"
    assert Parser.load(model).parse_file(dev, python, single_root=single_root) == 20
    assert out.read_bytes() == python.read_bytes()
    if single_root is None:  # stdin is CoNLL-U too: one root by default
        stdout = arcwise("parse", "-m", model, *flags, stdin=dev.read_text())
        assert stdout.returncode == 0, stdout.stderr
        assert stdout.stdout.encode() == out.read_bytes()
    root_label = Parser.load(model).root_label
    for s in conllu.read(out):
        roots = np.flatnonzero(np.asarray(s.head) == 0)
        if single_root is False:
            assert len(roots) >= 1
        else:  # CoNLL-U by default: exactly one root, labeled as the model's root arcs
            assert len(roots) == 1 and s.deprel[roots[0]] == root_label


def test_conllx_output_keeps_several_roots_by_default(files, tmp_path):
    _, dev, model = files
    conllx = tmp_path / "dev.conllx"
    conllu.write(conllx, map(conllu.common_core, conllu.read(dev)))
    parser = Parser.load(model)
    several, one = tmp_path / "several.conllx", tmp_path / "one.conllx"
    parser.parse_file(conllx, several)
    parser.parse_file(conllx, one, single_root=True)
    raw = parser.parse(list(conllu.read(conllx)), single_root=False)
    written = list(conllu.read(several))
    assert [s.head.tolist() for s in written] == [head.tolist() for head, _ in raw]
    assert all((s.head == 0).sum() == 1 for s in conllu.read(one))


def test_failed_parse_leaves_no_output_file(files, tmp_path):
    _, dev, model = files
    text = dev.read_text()
    bad = tmp_path / "bad.conllu"  # good sentences, then a word line with 9 columns
    bad.write_text(text + "1\tword\tword\tNOUN\tNN\t_\t0\troot\t_\n\n")
    out = tmp_path / "out.conllu"
    run = arcwise("parse", "-m", model, bad, "-o", out)
    assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1
    assert run.stderr.startswith(f"{bad}:{len(text.splitlines()) + 1}:")
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["bad.conllu"]
