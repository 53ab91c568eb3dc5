"""Every command with -o refuses an output that is one of its inputs -- by any spelling,
symbolic link or hard link -- and an empty -o, in one line with exit 2, before writing
anything (`arcwise.io.atomic.check_output`)."""

import os
import re
from pathlib import Path

import pytest

from tests.cli_run import run

pytestmark = pytest.mark.end_to_end

DATA = Path(__file__).resolve().parent / "data" / "analysis"


@pytest.fixture
def files(tmp_path):
    """Copies of a gold treebank and a system output, and a stand-in model file."""
    gold, system, model = tmp_path / "gold.conllu", tmp_path / "a.conllu", tmp_path / "m.arcwise"
    gold.write_bytes((DATA / "gold.conllu").read_bytes())
    system.write_bytes((DATA / "a.conllu").read_bytes())
    model.write_bytes(b"model")  # never read: the output is refused first
    return gold, system, model


COMMANDS = {  # command -> (its arguments but -o, the input the output names)
    "parse": (lambda gold, system, model: ["parse", "-m", model, system], "system"),
    "parse -m": (lambda gold, system, model: ["parse", "-m", model, system], "model"),
    "view": (lambda gold, system, model: ["view", "--gold", gold, system], "gold"),
    "combine": (lambda gold, system, model: ["combine", "--method", "vote", system, system,
                                             system, "--gold", gold], "gold"),
    "convert": (lambda gold, system, model: ["convert", gold], "gold"),
    "train": (lambda gold, system, model: ["train", "-s", "arc-eager", "--train", gold],
              "gold"),
}


def refused(code, err, message):
    assert code == 2 and "Traceback" not in err
    assert re.fullmatch(rf"arcwise: {re.escape(message)}\n", err), err


@pytest.mark.parametrize("spelling", ["same", "relative", "symlink", "hard link"])
@pytest.mark.parametrize("command", COMMANDS)
def test_an_output_that_is_an_input_is_refused(command, spelling, files, tmp_path, capsys,
                                               monkeypatch):
    gold, system, model = files
    arguments, which = COMMANDS[command]
    target = {"gold": gold, "system": system, "model": model}[which]
    before = {path: path.read_bytes() for path in files}
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    output = {"same": target, "relative": Path("..", "sub", "..", target.name),
              "symlink": tmp_path / "link", "hard link": tmp_path / "hard"}[spelling]
    if spelling == "symlink":
        output.symlink_to(target)
    elif spelling == "hard link":
        os.link(target, output)
    code, _, err = run([*arguments(gold, system, model), "-o", output], capsys, monkeypatch)
    refused(code, err, f"-o {output}: the same file as the input {target}; "
                       "it would be overwritten")
    assert {path: path.read_bytes() for path in files} == before


@pytest.mark.parametrize("command", [*COMMANDS, "analyze", "experiment", "package"])
def test_an_empty_output_is_refused(command, files, tmp_path, capsys, monkeypatch):
    gold, system, model = files
    arguments = {"analyze": lambda *_: ["analyze", gold, system],
                 "experiment": lambda *_: ["experiment", tmp_path / "grid.toml"],
                 "package": lambda *_: ["package", model, "--name", "en_test"]}.get(
        command, COMMANDS.get(command, (None,))[0])
    monkeypatch.chdir(tmp_path)
    before = sorted(os.listdir(tmp_path))
    code, _, err = run([*arguments(gold, system, model), "-o", ""], capsys, monkeypatch)
    refused(code, err, "-o '': an empty path names no file")
    assert sorted(os.listdir(tmp_path)) == before


def test_a_train_log_that_would_overwrite_an_input_is_refused(files, capsys, monkeypatch):
    gold, _, _ = files
    log = gold.with_name("m.arcwise.log.json")
    log.write_bytes(gold.read_bytes())
    code, _, err = run(["train", "-s", "arc-eager", "--train", log, "-o",
                        gold.with_name("m.arcwise")], capsys, monkeypatch)
    assert code == 2 and "the same file as the input" in err
    assert log.read_bytes() == gold.read_bytes()


@pytest.mark.parametrize("command", ["analyze", "experiment"])
def test_a_report_folder_that_is_a_file_is_not_a_directory(command, files, tmp_path, capsys,
                                                           monkeypatch):
    gold, system, _ = files
    report = tmp_path / "report.html"
    report.write_text("mine")
    arguments = (["analyze", gold, system] if command == "analyze"
                 else ["experiment", tmp_path / "grid.toml"])
    code, _, err = run([*arguments, "-o", report], capsys, monkeypatch)
    refused(code, err, f"{report}: not a directory")
    assert report.read_text() == "mine"


def test_a_report_folder_holding_an_input_or_other_files_is_refused(files, tmp_path, capsys,
                                                                     monkeypatch):
    gold, system, _ = files
    code, _, err = run(["analyze", gold, system, "-o", tmp_path], capsys, monkeypatch)
    refused(code, err, f"-o {tmp_path}: the folder holds the input {gold}; it would be replaced")
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "todo.txt").write_text("mine")
    code, _, err = run(["analyze", gold, system, "-o", folder], capsys, monkeypatch)
    refused(code, err, f"{folder}: not an earlier report (it holds todo.txt); a report "
                       "replaces its folder: give a new one")
    assert os.listdir(folder) == ["todo.txt"]
