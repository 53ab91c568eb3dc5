"""The bundled English-EWT slices the training tests share."""

import itertools
import os
from pathlib import Path

from arcwise.io import conllu

DATA = Path(__file__).resolve().parents[1] / "data" / "en_ewt"
NO_JIT = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")


def train_and_dev(n_train: int, n_dev: int):
    """The first n_train training and n_dev dev sentences of the bundled treebank."""
    return (list(itertools.islice(conllu.read(DATA / "train.conllu.gz"), n_train)),
            list(itertools.islice(conllu.read(DATA / "dev.conllu.gz"), n_dev)))
