"""SIGINT, SIGTERM and SIGHUP at random moments of the commands that write files: `arcwise
train`, `arcwise train --pipeline`, `arcwise parse` and `arcwise parse --workers 2`.

Each command first runs undisturbed, for its output and its duration D; then each signal
(SIGINT, SIGTERM, SIGHUP in turn) comes a random time in [0, D) after the command's handlers
are in place (before, the interpreter is starting: Python's defaults apply), drawn from
ARCWISE_STRESS_SEED (default 0), in a folder where an old version of the outputs waits.
Whatever the moment: exit 0 or 128 + the signal, no traceback, stderr the undisturbed run's
lines (numbers aside) then at most the one line ``arcwise: interrupted by SIG...``, no
temporary file nor worker left, and the outputs all old or all complete (the undisturbed
run's).  `make test` runs a short version (two signals a command, tiny data: 25-30 s on two
loaded cores); ARCWISE_STRESS=long (`make stress`) runs issue #41's 50 SIGTERMs during a
parse of all of EWT and ten signals in each other command (about 4 minutes).

Not here: two writers racing for the same files and a signal during the renames
(test_atomic_files.py, in one process, at chosen moments), fuzzed model files
(test_modelfile.py, which also finds that the same training writes the same file, as the
comparisons here assume), the service under SIGTERM and fuzzed requests
(test_service_uvicorn.py, test_service_connections.py, test_service_schema_fuzz.py).
"""

import json
import os
import random
import re
import signal
import time

import pytest

from arcwise.io import conllu
from tests.ewt import DATA, train_and_dev
from tests.signal_dispositions import SIGNALS, started, wait_for_handlers, wait_for_no_group
from tests.tiny_model import tiny_model  # noqa: F401 -- a fixture

pytestmark = [pytest.mark.end_to_end, pytest.mark.stress]

LONG = os.environ.get("ARCWISE_STRESS", "short") == "long"
SEED = int(os.environ.get("ARCWISE_STRESS_SEED", "0"))
TIMEOUT = 600  # seconds for any one run

# command: (arguments with {model}, {text}, {train} in them, outputs, signals short, long)
COMMANDS = {
    "train": (["train", "--system", "arc-eager", "--train", "{train}", "--epochs", "2",
               "-o", "m.arcwise"], ["m.arcwise", "m.arcwise.log.json"], 2, 10),
    "train --pipeline": (["train", "--pipeline", "--system", "arc-eager", "--train",
                          "{few}", "--epochs", "1", "--tag-folds", "2", "-o", "p.arcwise"],
                         ["p.arcwise", "p.arcwise.log.json"], 2, 10),
    "parse": (["parse", "-m", "{model}", "{text}", "-o", "out.conllu"], ["out.conllu"], 2, 50),
    "parse --workers 2": (["parse", "-m", "{model}", "{text}", "-o", "out.conllu",
                           "--workers", "2"], ["out.conllu"], 2, 10),
}


@pytest.fixture(scope="module")
def inputs(tiny_model, tmp_path_factory):
    """{model}: the tiny parser; {text}: EWT's dev set, or all of EWT for the long run;
    {train}: 100 training sentences (500 long); {few}: 20."""
    folder = tmp_path_factory.mktemp("inputs")
    n = 500 if LONG else 100
    train, _ = train_and_dev(n, 0)
    conllu.write(folder / "train.conllu", train)
    conllu.write(folder / "few.conllu", train[:20])
    parts = ["train", "dev", "test"] if LONG else ["dev"]
    conllu.write(folder / "text.conllu",
                 (s for part in parts for s in conllu.read(DATA / f"{part}.conllu.gz")))
    return {"model": tiny_model[0], "text": folder / "text.conllu",
            "train": folder / "train.conllu", "few": folder / "few.conllu"}


def finished(process, directory, outputs):
    """(exit code, stderr text, {output: bytes}) once `process` has ended."""
    _, stderr = process.communicate(timeout=TIMEOUT)
    left = sorted(os.listdir(directory))
    assert left == sorted(outputs), f"left beside the outputs: {left}"
    return process.returncode, stderr.decode(), {o: (directory / o).read_bytes() for o in outputs}


def shape(line: str) -> str:
    """A line of stderr with its numbers blanked (speeds and rates vary from run to run)."""
    return re.sub(r"\d+(\.\d+)?", "#", line)


def same(output: str, new: bytes, reference: bytes) -> bool:
    """Is `new` the undisturbed run's output?  A training log, but for its timings."""
    if not output.endswith(".log.json"):
        return new == reference

    def untimed(log):
        if isinstance(log, dict):
            return {k: untimed(v) for k, v in log.items()
                    if k not in ("seconds", "sentences_per_second")}
        return [untimed(v) for v in log] if isinstance(log, list) else log

    return untimed(json.loads(new)) == untimed(json.loads(reference))


@pytest.mark.parametrize("name", COMMANDS)
def test_a_signal_at_any_moment_leaves_old_or_complete_outputs(inputs, tmp_path, name):
    template, outputs, short, long = COMMANDS[name]
    args = [a.format(**inputs) for a in template]
    undisturbed = tmp_path / "undisturbed"
    undisturbed.mkdir()
    with started(args, undisturbed) as process:
        wait_for_handlers(process)
        start = time.monotonic()
        code, stderr, reference = finished(process, undisturbed, outputs)
        duration = time.monotonic() - start
    assert code == 0 and "Traceback" not in stderr, stderr[-2000:]
    lines = {shape(line) for line in stderr.splitlines()}

    rng = random.Random(f"{SEED} {name}")
    first = list(COMMANDS).index(name)  # the short run sends each signal to some command
    for run in range(long if LONG else short):
        signum = (signal.SIGTERM if LONG and name == "parse"
                  else SIGNALS[(first + run) % len(SIGNALS)])
        delay = rng.uniform(0, duration)
        where = f"{name}, ARCWISE_STRESS_SEED={SEED}, run {run}: {signum.name} {delay:.2f} s in"
        folder = tmp_path / f"run{run}"
        folder.mkdir()
        for output in outputs:
            (folder / output).write_bytes(b"old\n")
        with started(args, folder) as process:
            wait_for_handlers(process)
            time.sleep(delay)
            process.send_signal(signum)
            code, stderr, written = finished(process, folder, outputs)
        print(f"{where}: exit {code}")  # shown by pytest -s or -rP
        assert "Traceback" not in stderr, f"{where}\n{stderr[-2000:]}"
        said = stderr.splitlines()
        if code == 128 + signum and said[-1:] == [f"arcwise: interrupted by {signum.name}"]:
            said.pop()
        else:
            assert code == 0, f"{where}: exit {code}\n{stderr[-2000:]}"
        assert {shape(line) for line in said} <= lines, f"{where}\n{stderr[-2000:]}"
        if all(content == b"old\n" for content in written.values()):
            assert code != 0, f"{where}: exit 0 but the outputs are the old ones"
        else:
            bad = [o for o in outputs if not same(o, written[o], reference[o])]
            assert not bad, f"{where}: {bad} neither the old nor the complete output"
        assert not wait_for_no_group(process.pid), f"{where}: a process of its group is left"
