"""What every trainer does with its data: a fingerprint of it, batches of similar
lengths, pseudo-projective training trees, and the dev score of a parser."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterable
from typing import Any

import numpy as np

from arcwise.core.corpus import Sentence
from arcwise.eval.metrics import evaluate
from arcwise.features.batch import Batch
from arcwise.io.conllu import with_tree
from arcwise.trees.projectivity import is_well_formed
from arcwise.trees.pseudoprojective import (
    projectivize,
)


def projectivized(
    sentences: Iterable[Sentence], encoding: str
) -> tuple[list[Sentence], dict[str, int]]:
    """The sentences with projectivized trees, their lifts encoded in the labels.

    PROJECTIVIZE of Nivre & Nilsson 2005 with `encoding` ("head", "path" or
    "head+path"; see `arcwise.trees.pseudoprojective`).  A sentence whose
    tree is not well formed is passed through unchanged.  Only `head` and
    `deprel` change: `lines` keep the original text.  Also returns the counts
    {"trees": trees changed, "arcs": arcs lifted, "lifts": single LIFT steps}.
    """
    out, counts = [], {"trees": 0, "arcs": 0, "lifts": 0}
    for s in sentences:
        head = np.asarray(s.head, dtype=np.int32)
        if not is_well_formed(head):
            out.append(s)
            continue
        p = projectivize(head, s.deprel, encoding)
        if p.lifted:
            counts["trees"] += 1
            counts["arcs"] += p.lifted
            counts["lifts"] += p.lifts
            s = dataclasses.replace(s, head=p.heads, deprel=p.deprels)
        out.append(s)
    return out, counts


def data_sha256(sentences: Iterable[Sentence]) -> str:
    """SHA-256 of the sentences' lines (what a model records of its training data)."""
    digest = hashlib.sha256()
    for s in sentences:
        digest.update("\n".join(s.lines).encode("utf-8"))
        digest.update(b"\n\n")
    return digest.hexdigest()


def length_batches(lengths: np.ndarray, size: int, rng: np.random.Generator) -> list[np.ndarray]:
    """The indices of `lengths` in batches of `size` sentences of similar lengths, in a random
    order: shuffled, sorted by length within windows of 16 batches, cut, the batches shuffled."""
    order = rng.permutation(len(lengths))
    if size == 1:  # nothing to pad: the shuffled order (the fused perceptron epoch's)
        return [order[k : k + 1] for k in range(len(order))]
    window = 16 * size
    batches = []
    for start in range(0, len(order), window):
        chunk = order[start : start + window]
        chunk = chunk[np.argsort(lengths[chunk], kind="stable")]
        batches.extend(chunk[k : k + size] for k in range(0, len(chunk), size))
    return [batches[k] for k in rng.permutation(len(batches))]


def score_parser(parser: Any, gold: list[Sentence], batch: Batch | None = None,
                 guide: list[Sentence] | None = None):
    """`evaluate` the parser's output on gold sentences (an encoded batch of them may be
    given; a guided graph-based parser takes its guide's trees of them)."""
    if hasattr(parser, "trees"):  # a transition-based parser: the encoded batch
        trees = parser.trees(batch or Batch(gold, parser.vocabularies))
    elif guide is not None:
        trees = parser.parse(gold, single_root=False, guide=guide)
    else:
        trees = parser.parse(gold, single_root=False)
    parsed = [with_tree(s, *tree) for s, tree in zip(gold, trees)]
    return evaluate(gold, parsed)
