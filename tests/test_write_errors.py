"""Every command that writes, on a full disk (/dev/full: ENOSPC) or past the file size limit
(RLIMIT_FSIZE: EFBIG): `arcwise: FILE: cannot write: REASON`, exit 2, no traceback, no
leftover file; a closed stdout (`| head`) stops quietly."""

import os
import resource
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from arcwise.io import conllu
from tests.ewt import NO_JIT, train_and_dev
from tests.tiny_model import SRC, arcwise, one_line, tiny_model  # noqa: F401 -- a fixture

FULL = "No space left on device"
TOO_LARGE = "File too large"

pytestmark = [pytest.mark.end_to_end,
              pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")]


@pytest.fixture(scope="module")
def hundred(tmp_path_factory):
    """100 EWT dev sentences: about 100 KB of output, more than a pipe holds."""
    path = tmp_path_factory.mktemp("hundred") / "hundred.conllu"
    conllu.write(path, train_and_dev(0, 100)[1])
    return path


def small_file_limit():
    """In the child: files may not grow past 1 KiB, and going past is an error, not a signal."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))


def run_all(runs):
    """The runs [(args, kwargs)] two at a time (each is mostly a process start)."""
    with ThreadPoolExecutor(2) as pool:
        return list(pool.map(lambda run: arcwise(*run[0], **run[1]), runs))


def last_line(stderr: bytes) -> str:
    """Train draws a progress line first; the error must still be the last line, alone."""
    assert b"Traceback" not in stderr, stderr.decode()
    return stderr.decode().rstrip("\n").split("\n")[-1].split("\r")[-1]


def test_stdout_on_a_full_disk(tiny_model):
    model, three = tiny_model
    commands = [
        ["parse", "-m", model, three],
        ["convert", three],
        ["convert", three, "--to", "conllx"],
        ["stats", three],
        ["stats", "--json", three],
        ["evaluate", three, three],
        ["evaluate", "--json", three, three],
        ["compare", three, three, three, "--samples", "10"],
        ["oracle", three, "-s", "arc-eager"],
        ["loss-bounds", three, "-t", "50", "--policy", "random"],
        ["--version"],
    ]
    with open("/dev/full", "wb") as full:
        results = run_all([(command, {"stdout": full, "stderr": subprocess.PIPE})
                           for command in commands])
    for command, done in zip(commands, results):
        assert done.returncode == 2, (command, done.stderr.decode())
        assert one_line(done.stderr) == f"arcwise: stdout: cannot write: {FULL}", command


def test_output_files_on_a_full_disk_and_past_the_size_limit(tiny_model, tmp_path):
    model, three = tiny_model
    big = three  # about 3 KB of output
    out = tmp_path / "out"
    out.mkdir()
    model_out = str(out / "m.arcwise")
    too_large = [  # run first without the limit (compiled), so numba has written its cache
        ["parse", "-m", model, big, "-o", out / "x.conllu"],
        ["convert", big, "-o", out / "x.conllu"],
        ["train", "-s", "arc-eager", "--train", three, "--epochs", "1", "-o", model_out],
    ]
    if not NO_JIT:
        assert all(done.returncode == 0 for done in run_all([(c, {}) for c in too_large]))
        for name in os.listdir(out):
            os.unlink(out / name)
    cases = [  # (command, file named in the message, reason, kwargs)
        (["parse", "-m", model, big, "-o", "/dev/full"], "/dev/full", FULL, {}),
        (["convert", big, "-o", "/dev/full"], "/dev/full", FULL, {}),
        (["combine", "--method", "vote", three, three, three, "-o", "/dev/full"],
         "/dev/full", FULL, {}),
        (["train", "-s", "arc-eager", "--train", three, "--epochs", "1", "-o", "/dev/full"],
         "/dev/full", FULL, {}),
        *((command, str(command[-1]), TOO_LARGE, {"preexec_fn": small_file_limit})
          for command in too_large),
    ]
    results = run_all([(command, kwargs) for command, _, _, kwargs in cases])
    for (command, target, reason, _), done in zip(cases, results):
        assert done.returncode == 2, (command, done.stderr.decode())
        message = f"arcwise: {target}: cannot write: {reason}"
        if command[0] == "train":  # its progress line goes to stdout
            assert last_line(done.stderr) == message, command
        else:
            assert one_line(done.stderr) == message and done.stdout == b"", command
    assert os.listdir(out) == []  # no output, no temporary file


def test_a_closed_stdout_stops_parse_quietly(tiny_model, hundred):
    env = dict(os.environ, PYTHONPATH=str(SRC))
    command = [sys.executable, "-m", "arcwise", "parse", "-m", tiny_model[0], hundred]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout.readline().startswith(b"# newdoc")
    process.stdout.close()  # `| head -1`
    assert process.wait(timeout=300) == 1
    assert process.stderr.read() == b""
    process.stderr.close()
