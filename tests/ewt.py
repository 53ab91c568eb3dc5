"""The bundled English-EWT slices the training tests share."""

import itertools
import os

import pytest
from pathlib import Path

from arcwise.io import conllu

DATA = Path(__file__).resolve().parents[1] / "data" / "en_ewt"
NO_JIT = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")

# Tests that train on real sentences for epochs run compiled only: uncompiled each takes
# 10-45 s of the suite's time and runs only kernels the no-JIT unit tests check one by one.
compiled_only = pytest.mark.skipif(
    NO_JIT, reason="trains on real sentences for epochs: the compiled suite runs it")


def train_and_dev(n_train: int, n_dev: int):
    """The first n_train training and n_dev dev sentences of the bundled treebank."""
    return (list(itertools.islice(conllu.read(DATA / "train.conllu.gz"), n_train)),
            list(itertools.islice(conllu.read(DATA / "dev.conllu.gz"), n_dev)))
