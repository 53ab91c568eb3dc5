"""Child processes that start with known signal dispositions, whatever the test runner
inherited: CI may run the suite with SIGINT ignored (as a background job of a script), and
a child inherits an ignored signal, which arcwise then leaves ignored.  And what /proc says
of them: the signals they catch, the processes of their group."""

import contextlib
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.tiny_model import SRC

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def dispositions(ignored=()):
    """A `subprocess.Popen` preexec_fn: the signals in `ignored` ignored, the others at
    their defaults, as a terminal's foreground job has them."""

    def set_them():
        for signum in SIGNALS:
            signal.signal(signum, signal.SIG_IGN if signum in ignored else signal.SIG_DFL)

    return set_them


@contextlib.contextmanager
def started(args, directory, ignored=()):
    """A running `python -m arcwise ARGS` (this checkout's) in `directory`, leading a process
    group of its own, with the signals in `ignored` ignored and the others at their
    defaults; its group is killed if the test fails before it ends."""
    env = dict(os.environ, PYTHONPATH=str(SRC))
    process = subprocess.Popen([sys.executable, "-m", "arcwise", *map(str, args)],
                               cwd=directory, env=env, preexec_fn=dispositions(ignored),
                               process_group=0, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        yield process
    finally:
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.communicate()


def signal_mask(process, field):
    """The signals /proc says `process` has in `field` (SigCgt: caught, SigIgn: ignored)."""
    with open(f"/proc/{process.pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                mask = int(line.split()[1], 16)
                return {signum for signum in SIGNALS if mask >> (signum - 1) & 1}
    return set()


def wait_for_handlers(process, timeout=120):
    """Block until arcwise's handlers are in place: it catches SIGHUP, which Python never
    does by itself.  That is early: numpy, numba and the command are still importing."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        if signal.SIGHUP in signal_mask(process, "SigCgt"):
            return
        time.sleep(0.005)
    pytest.fail("the command never caught SIGHUP")


def group(pgid: int) -> set[int]:
    """The processes (no zombies) of process group `pgid`."""
    found = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError):
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[2]) == pgid and fields[0] != "Z":
                found.add(int(pid))
    return found


def wait_for_no_group(pgid: int, timeout=10) -> set[int]:
    """The processes of group `pgid` still there after up to `timeout` seconds (killed
    workers end a moment after their parent)."""
    deadline = time.monotonic() + timeout
    while (left := group(pgid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left
