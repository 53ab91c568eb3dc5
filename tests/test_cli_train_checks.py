"""`arcwise train` checks its options, data and output before training, and its model after."""

import itertools
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import arcwise
from arcwise.core.errors import ArcwiseError
from arcwise.io import conllu
from arcwise.transition.train import train
from tests.cli_run import run
from tests.ewt import DATA

pytestmark = pytest.mark.end_to_end

WORD = "{i}\tw{i}\tw\tNOUN\tNN\t_\t{head}\t{label}\t_\t_"


def one_line_exit_2(code: int, err: str, pattern: str) -> None:
    assert code == 2 and "Traceback" not in err
    assert re.fullmatch(rf"arcwise: [^\n]*{pattern}[^\n]*\n", err), err


def sentence(heads: list[int | str], labels: list[str] | None = None) -> str:
    labels = labels or ["root" if h == 0 else "dep" for h in heads]
    return "\n".join(WORD.format(i=i, head=h, label=lb)
                     for i, (h, lb) in enumerate(zip(heads, labels), 1)) + "\n\n"


@pytest.fixture(scope="module")
def small_train(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("train") / "train.conllu"
    conllu.write(path, itertools.islice(conllu.read(DATA / "train.conllu.gz"), 30))
    return path


@pytest.mark.parametrize("options, message", [
    (["-s", "arc-eager", "--order", "2", "--decoder", "bogus", "--update", "nonsense"],
     "--decoder bogus: use one of projective, non-projective"),
    (["-s", "arc-eager", "--update", "nonsense"], "--update nonsense: use one of mira"),
    (["-s", "arc-eager", "--order", "2"], "--order applies to --system mst only"),
    (["-s", "arc-eager", "--decoder", "projective"], "--decoder applies to --system mst only"),
    (["-s", "mst", "--bound", "upper", "--explore-p", "0.5"], "--bound applies to transition"),
    (["-s", "mst", "--explore-p", "0.5"], "--explore-p applies to transition systems with"),
    (["-s", "mst", "--oracle", "static"], "--oracle applies to transition systems only"),
    (["-s", "mst", "--pseudo-projective", "head"], "--pseudo-projective applies to transition"),
    (["-s", "mst", "--features", "f.txt"], "--features applies to transition systems only"),
    (["-s", "arc-eager", "--model", "bilstm", "--features", "f.txt"],
     "--features is the perceptron's feature table"),
    (["-s", "arc-eager", "--oracle", "static", "--explore-from", "2"],
     "--explore-from applies to transition systems with --oracle dynamic only"),
    (["-s", "arc-eager", "--bound", "upper"], "arc-eager takes no --bound"),
    (["-s", "covington-nm", "--bound", "nope"], "covington-nm takes one of"),
    (["-s", "arc-eager+swap"], "arc-eager has no variant \\+swap"),
    (["-s", "bogus"], "unknown system 'bogus'; known: arc-eager \\(\\+lba, \\+rba, \\+lnba, "
                      "\\+rnba\\), .*arc-hybrid \\(\\+swap\\), .*mst \\(graph-based\\)"),
])
def test_options_are_checked_before_any_file_is_read(options, message, tmp_path, capsys,
                                                     monkeypatch):
    missing = tmp_path / "missing.conllu"  # never read: the options fail first
    code, _, err = run(["train", *options, "--train", missing, "-o", tmp_path / "m.arcwise"],
                       capsys, monkeypatch)
    one_line_exit_2(code, err, message)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("options", [
    ["-s", "mst", "--order", "2", "--decoder", "projective", "--update", "perceptron"],
    ["-s", "covington-nm", "--bound", "lower", "--explore-p", "0.5", "--explore-from", "0"],
    ["-s", "arc-eager", "--oracle", "static", "--pseudo-projective", "head"],
])
def test_options_of_the_model_kind_are_accepted(options, tmp_path, capsys, monkeypatch):
    code, _, err = run(["train", *options, "--train", tmp_path / "missing.conllu",
                        "-o", tmp_path / "m.arcwise"], capsys, monkeypatch)
    assert code == 2 and "cannot read" in err  # got as far as reading the data


@pytest.mark.parametrize("text, message", [
    ("", "the training file is empty"),
    (sentence([0]) * 3, "3 of one word"),
    (sentence(["_", "_", "_"]), "1 not trees"),
    (sentence([2, 3, 1]), "1 not trees"),
])
@pytest.mark.parametrize("system", ["arc-eager", "mst"])
def test_unusable_training_data_is_refused_before_training(text, message, system, tmp_path,
                                                          capsys, monkeypatch):
    data = tmp_path / "train.conllu"
    data.write_text(text)
    model = tmp_path / "m.arcwise"
    code, _, err = run(["train", "-s", system, "--train", data, "-o", model, "--epochs", "1"],
                       capsys, monkeypatch)
    one_line_exit_2(code, err, f"(nothing to learn from|no training sentences).*{message}")
    assert sorted(os.listdir(tmp_path)) == ["train.conllu"]


def test_a_feature_table_file_replaces_the_default_table(small_train, tmp_path, capsys,
                                                         monkeypatch):
    """--features FILE (MaltParser's feature model): the model is trained with, stores and
    parses with that table; a bad template stops training with the file and line."""
    table = tmp_path / "features.txt"
    table.write_text("# focus words only\nL0.w  @label\nL0.p  @label\nR0.w  @label\n"
                     "R0.p  @label\nL0.p + R0.p\n")
    model = tmp_path / "m.arcwise"
    code, _, err = run(["train", "-s", "covington-nm", "--train", small_train, "-o", model,
                        "--epochs", "1", "--features", table], capsys, monkeypatch)
    assert code == 0, err
    parser = arcwise.load(model).parser
    assert (parser.table.n_features, parser.table.n_label_features) == (5, 4)
    assert parser.table.text == table.read_text()
    sentences = list(itertools.islice(conllu.read(small_train), 3))
    assert all((head[1:] == 0).sum() == 1 for head, _ in parser.parse(sentences))
    table.write_text("L0.w\nL0.zz\n")
    code, _, err = run(["train", "-s", "covington-nm", "--train", small_train, "-o",
                        tmp_path / "bad.arcwise", "--features", table], capsys, monkeypatch)
    assert code == 2 and err.count("\n") == 1 and f"{table}:2: cannot read atoms 'zz'" in err
    assert not (tmp_path / "bad.arcwise").exists()


def test_all_nonprojective_under_the_static_oracle_is_refused(tmp_path, capsys, monkeypatch):
    data = tmp_path / "train.conllu"
    data.write_text(sentence([3, 4, 0, 3]) * 2)  # 1 <- 3 crosses 2 <- 4: non-projective
    args = ["train", "-s", "arc-eager", "--train", data, "-o", tmp_path / "m.arcwise",
            "--epochs", "1"]
    code, _, err = run([*args, "--oracle", "static"], capsys, monkeypatch)
    one_line_exit_2(code, err, "2 trees the system cannot build .*--oracle dynamic")
    with pytest.raises(ArcwiseError, match="cannot build"):  # the Python API says the same
        train("arc-eager", list(conllu.read(data)), oracle="static", epochs=1)
    code, _, err = run(args, capsys, monkeypatch)  # the dynamic oracle learns from them
    assert code == 0, err


def test_output_that_is_an_input_or_cannot_be_written_is_refused(small_train, tmp_path, capsys,
                                                                  monkeypatch):
    before = small_train.read_bytes()
    for output, message in [(small_train, "the same file as the input"),
                            (tmp_path / "missing" / "m.arcwise", "no such directory"),
                            (tmp_path, "is a directory")]:
        code, _, err = run(["train", "-s", "arc-eager", "--train", small_train, "-o", output],
                           capsys, monkeypatch)
        one_line_exit_2(code, err, message)
    link = tmp_path / "link.conllu"
    link.symlink_to(small_train)
    code, _, err = run(["train", "-s", "arc-eager", "--train", small_train, "--dev", small_train,
                        "-o", link], capsys, monkeypatch)
    one_line_exit_2(code, err, "the same file as the input")
    assert small_train.read_bytes() == before


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_unwritable_output_directory_is_refused(small_train, tmp_path, capsys, monkeypatch):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    code, _, err = run(["train", "-s", "arc-eager", "--train", small_train,
                        "-o", locked / "m.arcwise"], capsys, monkeypatch)
    one_line_exit_2(code, err, "is not writable")


def test_a_saved_model_that_does_not_load_is_removed(small_train, tmp_path, capsys, monkeypatch):
    def broken(path):
        raise ArcwiseError(f"{path}: corrupt model file (simulated)")

    monkeypatch.setattr(arcwise, "load", broken)
    model = tmp_path / "m.arcwise"
    code, _, err = run(["train", "-s", "arc-eager", "--train", small_train, "-o", model,
                        "--epochs", "1"], capsys, monkeypatch)
    assert code == 2 and "Traceback" not in err  # after the epoch's progress line:
    assert re.fullmatch(r"arcwise: the trained model does not load, not kept \(.*simulated\)\)",
                        err.splitlines()[-1])
    assert os.listdir(tmp_path) == []


def test_a_model_that_does_not_load_never_removes_the_one_in_place(small_train, tmp_path,
                                                                   capsys, monkeypatch):
    model, log = tmp_path / "m.arcwise", tmp_path / "m.arcwise.log.json"
    model.write_bytes(b"the model of an earlier run")
    log.write_text("its log")

    def broken(path):
        raise ArcwiseError(f"{path}: corrupt model file (simulated)")

    monkeypatch.setattr(arcwise, "load", broken)
    code, _, err = run(["train", "-s", "arc-eager", "--train", small_train, "-o", model,
                        "--epochs", "1"], capsys, monkeypatch)
    assert code == 2 and err.splitlines()[-1] == (
        f"arcwise: the trained model does not load, not kept ({model}: corrupt model file "
        "(simulated))")
    assert model.read_bytes() == b"the model of an earlier run" and log.read_text() == "its log"
    assert sorted(os.listdir(tmp_path)) == [model.name, log.name]


@pytest.mark.parametrize("moment", ["verifying", "renaming"])
def test_sigterm_during_the_save_leaves_a_model_and_its_own_log(small_train, tmp_path, moment,
                                                                capsys, monkeypatch):
    """SIGTERM while the new model is checked: the earlier pair stays; while the pair is
    renamed into place: held until both are, then the run stops as interrupted."""
    from arcwise.io import atomic

    model, log = tmp_path / "m.arcwise", tmp_path / "m.arcwise.log.json"
    model.write_bytes(b"the model of an earlier run")
    log.write_text("its log")
    load, replace = arcwise.load, os.replace

    def sigterm():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.5)  # a handler that is not held runs now

    def load_then_sigterm(path):
        load(path)
        sigterm()

    def replace_then_sigterm(source, target):  # after the first of the pair
        replace(source, target)
        sigterm()

    if moment == "verifying":
        monkeypatch.setattr(arcwise, "load", load_then_sigterm)
    else:
        monkeypatch.setattr(atomic.os, "replace", replace_then_sigterm)
    code, _, err = run(["train", "-s", "arc-eager", "--train", small_train, "-o", model,
                        "--epochs", "1"], capsys, monkeypatch)
    assert code == 128 + signal.SIGTERM
    assert err.splitlines()[-1] == "arcwise: interrupted by SIGTERM"
    assert sorted(os.listdir(tmp_path)) == [model.name, log.name]
    if moment == "verifying":
        assert model.read_bytes() == b"the model of an earlier run"
        assert log.read_text() == "its log"
    else:
        monkeypatch.undo()
        assert json.loads(log.read_text())["sentences"] == 30
        arcwise.load(model)


def test_progress_lines_are_whole_when_stderr_is_not_a_terminal(small_train, tmp_path):
    model = tmp_path / "m.arcwise"
    done = subprocess.run(
        [sys.executable, "-m", "arcwise", "train", "-s", "arc-eager", "--train", small_train,
         "--dev", small_train, "-o", model, "--epochs", "2"],
        capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    for epoch in (1, 2):
        assert any(re.fullmatch(rf"arc-eager \(dynamic\) epoch {epoch}: \d+ sentences/s, update "
                                r"rate [0-9.]+, dev UAS [0-9.]+ LAS [0-9.]+", line)
                   for line in lines), done.stderr
    assert "…" not in done.stderr and "━" not in done.stderr and done.stdout == ""
    arcwise.load(model)


@pytest.mark.parametrize("command", [["oracle"], ["loss-bounds", "-t", "10"]])
def test_analysis_commands_refuse_an_unknown_system_in_one_line(command, tmp_path, capsys,
                                                                monkeypatch):
    code, _, err = run([*command, tmp_path / "missing.conllu", "-s", "bogus"], capsys,
                       monkeypatch)
    assert code == 2 and "Traceback" not in err
    assert re.fullmatch(r"arcwise: [^\n]*'bogus'[^\n]*\n", err), err
