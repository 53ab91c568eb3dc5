"""Files replaced together (a model and its log), folders replaced as a whole (a report), and
the guard that keeps a command's -o off its inputs (`arcwise.io.atomic`)."""

import os
import random
import signal
import threading
import time

import pytest

from arcwise.core import interrupts
from arcwise.core.errors import ArcwiseError
from arcwise.io import atomic
from arcwise.io.atomic import AtomicFiles, atomic_directory, check_output


def write_pair(model, log, text, between=lambda: None):
    with AtomicFiles() as files:
        with files.write(model) as f:
            f.write(text)
        between()
        with files.write(log) as f:
            f.write(text)


@pytest.fixture
def old_pair(tmp_path):
    model, log = tmp_path / "m.arcwise", tmp_path / "m.arcwise.log.json"
    model.write_text("old")
    log.write_text("old")
    return model, log


def test_a_failure_before_the_end_replaces_nothing(old_pair):
    """A model that does not load is refused after it was written: the old pair stays,
    and no temporary file."""
    model, log = old_pair

    def verify_fails():
        raise ArcwiseError("does not load")

    with pytest.raises(ArcwiseError):
        write_pair(model, log, "new", between=verify_fails)
    assert (model.read_text(), log.read_text()) == ("old", "old")
    assert sorted(os.listdir(model.parent)) == [model.name, log.name]


def test_the_written_file_can_be_read_before_it_is_in_place(old_pair):
    model, log = old_pair
    with AtomicFiles() as files:
        with files.write(model) as f:
            f.write("new")
        temp = files.temp(model)
        assert open(temp).read() == "new" and model.read_text() == "old"
        assert files.temp(log) is None
    assert model.read_text() == "new" and not os.path.exists(temp)


@pytest.fixture
def handlers_installed():
    """SIGTERM raises `Interrupted`, as under the `arcwise` command."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers are set in the main thread")
    with interrupts.installed():
        yield


def test_sigterm_while_the_pair_is_renamed_is_held_until_both_are_in_place(
        old_pair, handlers_installed, monkeypatch):
    model, log = old_pair
    replace = os.replace

    def replace_then_sigterm(source, target):
        replace(source, target)
        os.kill(os.getpid(), signal.SIGTERM)  # after the model, before its log
        time.sleep(0.05)  # time enough for a handler that is not held to run

    monkeypatch.setattr(atomic.os, "replace", replace_then_sigterm)
    with pytest.raises(interrupts.Interrupted) as caught:
        write_pair(model, log, "new")
    assert caught.value.signum == signal.SIGTERM
    assert (model.read_text(), log.read_text()) == ("new", "new")
    assert sorted(os.listdir(model.parent)) == [model.name, log.name]


def test_sigterm_while_the_pair_is_written_leaves_the_old_pair(old_pair, handlers_installed):
    model, log = old_pair

    def sigterm():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(1)  # interrupted

    with pytest.raises(interrupts.Interrupted):
        write_pair(model, log, "new", between=sigterm)
    assert (model.read_text(), log.read_text()) == ("old", "old")
    assert sorted(os.listdir(model.parent)) == [model.name, log.name]


def test_two_writers_of_the_same_pair_never_leave_halves_of_each(old_pair, monkeypatch):
    """Two `arcwise train -o M` finishing at once: M and M.log.json come from one run."""
    model, log = old_pair
    replace = os.replace

    def slow_replace(source, target):  # widens the moment between the two renames
        replace(source, target)
        time.sleep(random.random() / 200)

    monkeypatch.setattr(atomic.os, "replace", slow_replace)
    for round_ in range(20):
        writers = [threading.Thread(target=write_pair, args=(model, log, f"{round_}-{k}"))
                   for k in range(2)]
        for writer in writers:
            writer.start()
        for writer in writers:
            writer.join()
        assert model.read_text() == log.read_text()
    assert sorted(os.listdir(model.parent)) == [model.name, log.name]


@pytest.fixture
def old_report(tmp_path):
    report = tmp_path / "report"
    report.mkdir()
    (report / "index.html").write_text("old")
    (report / "a.svg").write_text("old")
    return report


def test_a_folder_is_replaced_as_a_whole(old_report):
    with atomic_directory(old_report) as folder:
        (folder / "index.html").write_text("new")
        assert (old_report / "index.html").read_text() == "old"
    assert sorted(os.listdir(old_report)) == ["index.html"]
    assert (old_report / "index.html").read_text() == "new"
    assert os.listdir(old_report.parent) == ["report"]


def test_a_failing_folder_leaves_the_old_one(old_report):
    with pytest.raises(ArcwiseError, match="No space left"), \
            atomic_directory(old_report) as folder:
        (folder / "b.svg").write_text("new")
        raise ArcwiseError("report/index.html: cannot write: No space left on device")
    assert sorted(os.listdir(old_report)) == ["a.svg", "index.html"]
    assert (old_report / "index.html").read_text() == "old"
    assert os.listdir(old_report.parent) == ["report"]


def test_a_new_folder_and_its_parents_are_made(tmp_path):
    with atomic_directory(tmp_path / "a" / "report") as folder:
        (folder / "index.html").write_text("new")
    assert (tmp_path / "a" / "report" / "index.html").read_text() == "new"


def test_a_file_is_not_a_folder(tmp_path):
    file = tmp_path / "report"
    file.write_text("mine")
    with pytest.raises(ArcwiseError, match=f"^{file}: not a directory$"), \
            atomic_directory(file):
        pass
    with pytest.raises(ArcwiseError, match=f"^{file}: not a directory$"):
        atomic.made_folder(file)
    assert file.read_text() == "mine" and os.listdir(tmp_path) == ["report"]


def test_an_output_that_is_an_input_is_refused_by_any_name(tmp_path, monkeypatch):
    gold = tmp_path / "gold.conllu"
    gold.write_text("1\tw\n")
    (tmp_path / "sub").mkdir()
    symlink = tmp_path / "link.conllu"
    symlink.symlink_to(gold.name)
    hard_link = tmp_path / "hard.conllu"
    os.link(gold, hard_link)
    monkeypatch.chdir(tmp_path / "sub")
    for output in [gold, "../gold.conllu", f"{tmp_path}/sub/../gold.conllu", symlink,
                   hard_link]:
        with pytest.raises(ArcwiseError) as caught:
            check_output(output, ["other.conllu", gold])
        assert str(caught.value) == (f"-o {output}: the same file as the input {gold}; "
                                     "it would be overwritten")
    with pytest.raises(ArcwiseError, match="^-o '': an empty path names no file$"):
        check_output("", [gold])
    for fine in ["-", tmp_path / "new.conllu", tmp_path / "sub"]:
        check_output(fine, [gold, "-", None, tmp_path / "missing.conllu"])


def test_a_folder_output_must_be_a_folder_holding_no_input(tmp_path):
    gold = tmp_path / "report" / "gold.conllu"
    gold.parent.mkdir()
    gold.write_text("1\tw\n")
    with pytest.raises(ArcwiseError, match="the folder holds the input"):
        check_output(tmp_path / "report", [gold], folder=True)
    with pytest.raises(ArcwiseError, match="the folder holds the input"):
        check_output(tmp_path, [gold], folder=True)
    with pytest.raises(ArcwiseError, match=f"^{gold}: not a directory$"):
        check_output(gold, [], folder=True)
    with pytest.raises(ArcwiseError, match="an empty path"):
        check_output("", [], folder=True)
    check_output(tmp_path / "elsewhere", [gold], folder=True)
