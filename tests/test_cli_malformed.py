"""Every command that reads CoNLL-U, on every malformed fixture: one line naming FILE:LINE,
exit 2, no traceback, no output file left.

The corpus: tests/data/malformed (each file says `# expect: line N: ...`), plus gzip files
broken in the ways a download or a disk breaks them, made here.  Commands run in-process
through the real entry point (`arcwise.cli.main.main`), so the suite takes seconds.
"""

import gzip
import itertools
import os
import re
from pathlib import Path

import pytest

from arcwise.io import conllu
from arcwise.transition.train import train
from tests.cli_run import run
from tests.ewt import DATA

pytestmark = pytest.mark.end_to_end

TESTS = Path(__file__).resolve().parent
MALFORMED = sorted((TESTS / "data" / "malformed").glob("*.conll*"))
GOOD = "1\tIt\tit\tPRON\tPRP\t_\t2\tnsubj\t_\t_\n2\tworks\twork\tVERB\tVBZ\t_\t0\troot\t_\t_\n\n"


def expected_line(path: Path) -> int:
    if path.suffix == ".gz":
        return int(re.search(r"line(\d+)", path.name)[1])
    return int(re.search(rb"# expect: line (\d+):", path.read_bytes())[1])


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> list[Path]:
    """The malformed fixtures and the broken gzip files (their name gives the line)."""
    folder = tmp_path_factory.mktemp("gzip")
    whole = gzip.compress((GOOD * 3).encode(), mtime=0)  # 9 lines
    broken = {
        "trailing_garbage_line10.conllu.gz": whole + b"garbage",
        "zero_padding_line10.conllu.gz": whole + b"\0\0\0\0",
        "truncated_line10.conllu.gz": whole[:-8],  # no CRC and length: cut after the data
    }
    for name, data in broken.items():
        (folder / name).write_bytes(data)
    return [*MALFORMED, *sorted(folder.iterdir())]


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    """A tiny arc-eager model (20 sentences, 1 epoch), trained once for the parse runs."""
    sentences = list(itertools.islice(conllu.read(DATA / "train.conllu.gz"), 20))
    parser, _ = train("arc-eager", sentences, oracle="static", epochs=1)
    path = tmp_path_factory.mktemp("model") / "tiny.arcwise"
    parser.save(path)
    return path


def commands(bad: Path, good: Path, model: Path, out: Path) -> dict[str, list]:
    """Every command reading CoNLL-U, with `bad` in a place it reads (output to `out`)."""
    return {
        "parse": ["parse", "-m", model, bad, "-o", out],
        "train": ["train", "-s", "arc-eager", "--train", bad, "-o", out, "--epochs", "1"],
        "train --dev": ["train", "-s", "arc-eager", "--train", good, "--dev", bad, "-o", out,
                        "--epochs", "1"],
        "evaluate": ["evaluate", bad, bad],
        "compare": ["compare", bad, bad, bad],
        "combine": ["combine", bad, bad, "--method", "vote", "-o", out],
        "combine --gold": ["combine", good, "--gold", bad, "--method", "oracle-graph", "-o", out],
        "convert": ["convert", bad, "-o", out],
        "stats": ["stats", bad],
        "oracle": ["oracle", bad, "-s", "arc-eager"],
        "loss-bounds": ["loss-bounds", bad, "-t", "100"],
    }


COMMANDS = list(commands(Path(), Path(), Path(), Path()))


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_reports_malformed_input_in_one_line(command, corpus, model, tmp_path,
                                                          capsys, monkeypatch):
    good = tmp_path / "good.conllu"
    good.write_text(GOOD)
    out = tmp_path / "out" / "result.conllu"
    out.parent.mkdir()
    wrong = []
    for bad in corpus:
        args = commands(bad, good, model, out)[command]
        code, _, err = run(args, capsys, monkeypatch)
        where = f"{re.escape(str(bad))}:{expected_line(bad)}"
        if (code != 2 or "Traceback" in err
                or not re.fullmatch(rf"(arcwise: )?{where}: [^\n]+\n", err)
                or os.listdir(out.parent)):
            wrong.append(f"{bad.name}: exit {code}, left "
                         f"{os.listdir(out.parent)}, stderr {err!r}")
    assert not wrong, "\n".join(wrong)
