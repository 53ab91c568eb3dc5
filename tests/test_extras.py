"""A missing extra is one line naming the literal install command, exit 2, before any work;
the help texts show the extras as they are typed; misspelled systems get a suggestion."""

from __future__ import annotations

import pytest

from arcwise.core.errors import ArcwiseError
from arcwise.core.extras import required
from tests.tiny_model import arcwise, one_line

pytestmark = pytest.mark.end_to_end

# run arcwise as if torch (or udtools) were not installed
WITHOUT = ("import sys; sys.modules[{module!r}] = None; sys.argv[0] = 'arcwise'; "
           "from arcwise.__main__ import main; main()")


def without(module: str, *args: str):
    import os
    import subprocess
    import sys
    from pathlib import Path

    src = Path(__file__).resolve().parents[1] / "src"
    return subprocess.run([sys.executable, "-c", WITHOUT.format(module=module), *args],
                          capture_output=True, env={**os.environ, "PYTHONPATH": str(src)},
                          timeout=120)


def test_required_names_the_install_line():
    required("json", "eval", "anything")  # installed: nothing to say
    with pytest.raises(ArcwiseError, match=r"pip install 'arcwise\[neural\]'"):
        required("no_such_module_here", "neural", "--model bilstm")


@pytest.mark.parametrize("args", [
    ("--model", "bilstm", "--system", "arc-eager"),
    ("--model", "biaffine", "--system", "mst"),
    ("--system", "tagger", "--tagger", "model=bilstm"),
])
def test_training_a_neural_model_without_torch(args, tmp_path):
    run = without("torch", "train", *args, "--train", "data/en_ewt/dev.conllu.gz",
                  "-o", str(tmp_path / "m"))
    line = one_line(run.stderr)
    assert run.returncode == 2 and "pip install 'arcwise[neural]'" in line
    assert not list(tmp_path.iterdir())


def test_help_shows_extras_literally():
    run = arcwise("train", "--help", env={"COLUMNS": "200"})
    assert b"pip install 'arcwise[neural]'" in run.stdout


def test_misspelled_systems_and_the_oracle_in_messages(tmp_path):
    run = arcwise("train", "-s", "covingtn-nm", "--train", "x", "-o", tmp_path / "m")
    assert run.returncode == 2 and "did you mean covington-nm?" in one_line(run.stderr)
    run = arcwise("train", "-s", "arc-eager", "--order", "2", "--train", "x",
                  "-o", tmp_path / "m")
    line = one_line(run.stderr)
    assert run.returncode == 2 and "--oracle dynamic" in line and "static" not in line
