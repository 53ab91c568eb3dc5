"""Ctrl-C, SIGTERM and SIGHUP during `arcwise parse` of a large input: one line, exit 128 + signal,
no temporary file, no crash (numba's parallel loop must never see a Python exception).
A signal the command inherits as ignored (nohup, `&` in a script) stays ignored.  A worker
of `arcwise parse --workers 2` killed (SIGKILL, as by the out-of-memory killer): one line
saying so, exit 2."""

import contextlib
import os
import signal
import subprocess
import sys
import time

import pytest

from arcwise.io import conllu
from tests.ewt import NO_JIT
from tests.signal_dispositions import (
    SIGNALS,
    dispositions,
    group,
    signal_mask,
    started,
    wait_for_handlers,
    wait_for_no_group,
)
from tests.tiny_model import SRC, one_line, tiny_model  # noqa: F401 -- a fixture

TEST = SRC.parent / "data" / "en_ewt" / "test.conllu.gz"


@pytest.fixture(scope="module")
def large_input(tmp_path_factory):
    """About 31,000 sentences: the EWT test set 15 times."""
    path = tmp_path_factory.mktemp("large") / "large.conllu"
    sentences = list(conllu.read(TEST))
    conllu.write(path, (s for _ in range(15) for s in sentences))
    return path


def started_parse(model, source, directory, ignored=(), options=()):
    """A running `arcwise parse MODEL SOURCE -o out.conllu [OPTIONS]` in `directory`
    (`started`)."""
    return started(["parse", "-m", model, source, "-o", "out.conllu", *options], directory,
                   ignored)


def wait_for_output(process, directory, timeout=120):
    """Block until the parse has written part of its (temporary) output (without the JIT,
    where its first batch takes minutes, three seconds into parsing it)."""
    if NO_JIT:
        time.sleep(3)
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        if any(n.startswith(".out.conllu.") and os.path.getsize(directory / n) > 0
               for n in os.listdir(directory)):
            return
        time.sleep(0.02)
    pytest.fail("the parse wrote nothing")


def assert_stopped_cleanly(process, signum, directory):
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 128 + signum, (process.returncode, stderr.decode()[-2000:])
    assert one_line(stderr) == f"arcwise: interrupted by {signal.Signals(signum).name}"
    assert stdout == b""
    assert os.listdir(directory) == []  # no output, no temporary file, no core


@pytest.mark.parametrize("seconds", ["importing", 1.0, 2.0, "writing"])
def test_ctrl_c_stops_cleanly(tiny_model, large_input, tmp_path, seconds):
    with started_parse(tiny_model[0], large_input, tmp_path) as process:
        if seconds == "writing":
            wait_for_output(process, tmp_path)
        elif seconds == "importing":
            wait_for_handlers(process)
        else:
            time.sleep(seconds)
        process.send_signal(signal.SIGINT)
        assert_stopped_cleanly(process, signal.SIGINT, tmp_path)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_stop_cleanly(tiny_model, large_input, tmp_path, signum):
    with started_parse(tiny_model[0], large_input, tmp_path) as process:
        wait_for_output(process, tmp_path)
        process.send_signal(signum)
        assert_stopped_cleanly(process, signum, tmp_path)


@pytest.mark.parametrize("ignored", [signal.SIGHUP, signal.SIGINT])
def test_an_ignored_signal_stays_ignored(tiny_model, large_input, tmp_path, ignored):
    """`nohup arcwise parse` outlives its terminal; `arcwise parse &` in a script outlives
    a Ctrl-C meant for the script's foreground job.  The other signals still stop it."""
    stopping = signal.SIGTERM if ignored == signal.SIGINT else signal.SIGINT
    with started_parse(tiny_model[0], large_input, tmp_path, ignored=(ignored,)) as process:
        wait_for_output(process, tmp_path)
        assert ignored in signal_mask(process, "SigIgn")
        assert stopping in signal_mask(process, "SigCgt")
        process.send_signal(ignored)
        time.sleep(0.2)
        assert process.poll() is None
        process.send_signal(stopping)
        assert_stopped_cleanly(process, stopping, tmp_path)


@pytest.mark.parametrize("moment", ["spawning", "writing"])
def test_ctrl_c_stops_a_parse_in_processes_cleanly(tiny_model, large_input, tmp_path, moment):
    """`arcwise parse --workers 2`: a Ctrl-C while the workers are being started (when
    they hold signals back) or while they parse stops it as in one process, and no worker
    is left."""
    with started_parse(tiny_model[0], large_input, tmp_path,
                       options=("--workers", "2")) as process:
        deadline = time.monotonic() + 120
        while len(group(process.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.002)
        if moment == "writing":
            wait_for_output(process, tmp_path)
        process.send_signal(signal.SIGINT)
        assert_stopped_cleanly(process, signal.SIGINT, tmp_path)
    assert not wait_for_no_group(process.pid)  # the workers are killed


def workers_of(process) -> list[int]:
    """The pids of the pool workers `process` spawned (not multiprocessing's resource
    tracker), from /proc."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError):
            with open(f"/proc/{pid}/stat") as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if parent == process.pid and b"spawn_main" in f.read():
                    found.append(int(pid))
    return found


@pytest.mark.parametrize("moment", ["starting", "parsing"])
def test_a_killed_worker_ends_a_parse_in_processes_in_one_line(tiny_model, large_input, tmp_path,
                                                               moment):
    """`arcwise parse --workers 2` with a worker killed while the pool starts (it was a
    BrokenProcessPool traceback, exit 1) or while it parses: one line naming how the worker
    ended, exit 2, no output, no worker left."""
    with started_parse(tiny_model[0], large_input, tmp_path,
                       options=("--workers", "2")) as process:
        deadline = time.monotonic() + 300
        while not (workers := workers_of(process)) and time.monotonic() < deadline:
            time.sleep(0.002)
        if moment == "parsing":  # the first chunks written (a minute or more without JIT)
            while time.monotonic() < deadline and not any(
                    n.startswith(".out.conllu.") and os.path.getsize(tmp_path / n) > 0
                    for n in os.listdir(tmp_path)):
                time.sleep(0.05)
            workers = workers_of(process)
        assert workers and process.poll() is None, process.communicate()[1].decode()[-2000:]
        os.kill(workers[0], signal.SIGKILL)
        stdout, stderr = process.communicate(timeout=300)
    assert process.returncode == 2, stderr.decode()[-2000:]
    assert one_line(stderr) == "arcwise: a parsing process died (killed by SIGKILL: out of " \
                               "memory?)"
    assert stdout == b"" and os.listdir(tmp_path) == []
    assert not wait_for_no_group(process.pid)


SIGNAL_AT_EXIT = """
import atexit, os, sys
atexit.register(os.kill, os.getpid(), int(sys.argv[1]))
sys.argv[:2] = ["arcwise"]
from arcwise.__main__ import main
main()
"""


@pytest.mark.parametrize("signum", SIGNALS)
def test_a_signal_while_the_interpreter_exits_changes_nothing(tiny_model, tmp_path, signum):
    """The parse has ended and written its output; a signal while Python exits (here from
    an atexit function; numba's teardown takes half a second) leaves its exit status 0 and
    stderr empty: it used to kill the process (SIGTERM, SIGHUP) or print a traceback
    (SIGINT)."""
    model, text = tiny_model
    done = subprocess.run(
        [sys.executable, "-c", SIGNAL_AT_EXIT, str(int(signum)), "parse", "-m", model, text,
         "-o", tmp_path / "out.conllu"],
        env=dict(os.environ, PYTHONPATH=str(SRC)), preexec_fn=dispositions(),
        capture_output=True, timeout=300)
    assert (done.returncode, done.stderr.decode()) == (0, "")
    assert len(list(conllu.read(tmp_path / "out.conllu"))) == len(list(conllu.read(text)))
