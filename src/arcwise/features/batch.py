"""Sentences encoded as the flat id matrix every compiled loop reads (`Batch`), and a
batch of some of them (`sub_batch`)."""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace

import numpy as np

from arcwise.core.corpus import Sentence
from arcwise.core.vocab import Vocabularies
from arcwise.features import batch_matrix


class Batch:
    """Sentences encoded as the words matrix the compiled loops read (sentence k:
    rows offsets[k] .. offsets[k+1] - 1), with their gold deprel ids and heads.

    guide: the guide parser's output on the same sentences (a guided parser's
    input; only head and deprel are read).
    """

    def __init__(
        self,
        sentences: Sequence[Sentence],
        vocabularies: Vocabularies,
        guide: Sequence[Sentence] | None = None,
    ):
        encoded = [vocabularies.encode(s) for s in sentences]
        sizes = np.array([len(e.form) for e in encoded], dtype=np.int64)
        self.offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum(sizes, out=self.offsets[1:])
        self.words = batch_matrix(encoded, vocabularies, guide)
        self.guided = guide is not None

        def flat(column: str) -> np.ndarray:
            if not encoded:
                return np.zeros(0, dtype=np.int32)
            return np.ascontiguousarray(np.concatenate([getattr(e, column) for e in encoded]))

        self.deprel = flat("deprel")
        self.head = flat("head")
        self._sentences = sentences
        self._forms: np.ndarray | None = None

    @property
    def forms(self) -> np.ndarray:
        """Every row's form (an object array; made when first asked: only character
        models read it)."""
        if self._forms is None:
            self._forms = np.array([f for s in self._sentences for f in s.form], dtype=object)
        return self._forms

    def __len__(self) -> int:
        return len(self.offsets) - 1


def sub_batch(batch: Batch, indices: Sequence[int]) -> SimpleNamespace:
    """The sentences `indices` of an encoded batch, as a batch of their own (words, offsets,
    deprel, forms)."""
    offsets = batch.offsets
    sizes = np.array([offsets[k + 1] - offsets[k] for k in indices], dtype=np.int64)
    new_offsets = np.zeros(len(indices) + 1, dtype=np.int64)
    np.cumsum(sizes, out=new_offsets[1:])
    rows = np.concatenate([np.arange(offsets[k], offsets[k + 1]) for k in indices]) \
        if len(indices) else np.zeros(0, dtype=np.int64)
    return SimpleNamespace(words=batch.words[rows], offsets=new_offsets,
                           deprel=batch.deprel[rows], guided=batch.guided,
                           forms=batch.forms[rows])
