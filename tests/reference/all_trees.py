"""Every dependency tree of a short sentence, and the best one by brute force.

For checking the decoders of arcwise.graph.  Trees are enumerated once per
length (word by word, dropping a choice of head as soon as it closes a
cycle) and kept as an int array, one row per tree; a score matrix then
scores all of them at once.  n words have (n + 1)^(n - 1) trees (Cayley),
16,807 at n = 6.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from tests.reference.random_trees import is_projective


def _closes_cycle(heads, d) -> bool:
    """Does following heads up from d (every word up to d has its head) come back to d?"""
    w = heads[d]
    while w > 0 and heads[w] != -1:
        if w == d:
            return True
        w = heads[w]
    return w == d


@lru_cache(maxsize=None)
def all_trees(n: int) -> np.ndarray:
    """All head lists [-1, h1, ..., hn] of trees rooted at 0, as rows of an int array."""
    found: list[list[int]] = []
    heads = [-1] * (n + 1)

    def extend(d: int) -> None:
        if d > n:
            found.append(list(heads))
            return
        for h in range(n + 1):
            if h == d:
                continue
            heads[d] = h
            if not _closes_cycle(heads, d):
                extend(d + 1)
            heads[d] = -1

    extend(1)
    return np.array(found, dtype=np.int64).reshape(len(found), n + 1)


def trees_of(n: int, projective: bool = False, single_root: bool = False) -> np.ndarray:
    """The rows of all_trees(n) that are projective / have one root dependent, as asked."""
    return _trees_of(n, projective, single_root)


@lru_cache(maxsize=None)
def _trees_of(n: int, projective: bool, single_root: bool) -> np.ndarray:
    trees = all_trees(n)
    keep = np.ones(len(trees), dtype=bool)
    if single_root:
        keep &= (trees[:, 1:] == 0).sum(axis=1) == 1
    if projective:
        keep &= np.array([is_projective(list(t)) for t in trees], dtype=bool)
    return trees[keep]


def sibling_triples(heads) -> list[tuple[int, int, int]]:
    """(h, s, m) for every dependent m of h, s the next dependent on the same side closer
    to h, or h itself for the closest one (McDonald & Pereira 2006)."""
    triples = []
    for h in range(len(heads)):
        left = sorted((m for m in range(1, len(heads)) if heads[m] == h and m < h), reverse=True)
        right = sorted(m for m in range(1, len(heads)) if heads[m] == h and m > h)
        for side in (left, right):
            for k, m in enumerate(side):
                triples.append((h, h if k == 0 else side[k - 1], m))
    return triples


@lru_cache(maxsize=None)
def _triples_table(n: int, projective: bool, single_root: bool):
    rows, hs, ss, ms = [], [], [], []
    for row, tree in enumerate(_trees_of(n, projective, single_root)):
        for h, s, m in sibling_triples(list(tree)):
            rows.append(row)
            hs.append(h)
            ss.append(s)
            ms.append(m)
    return tuple(np.array(a, dtype=np.int64) for a in (rows, hs, ss, ms))


def first_order_scores(trees: np.ndarray, arc: np.ndarray) -> np.ndarray:
    """Sum of arc[heads[m], m] over words m, for every row of `trees`."""
    n = trees.shape[1] - 1
    return arc[trees[:, 1:], np.arange(1, n + 1)].sum(axis=1)


def tree_score(heads, arc, sib=None) -> float:
    """Score of one tree, by the definition: arcs, plus sibling triples if `sib` is given."""
    total = sum(arc[heads[m], m] for m in range(1, len(heads)))
    if sib is not None:
        total += sum(sib[h, s, m] for h, s, m in sibling_triples(list(heads)))
    return float(total)


def best_score(arc, sib=None, projective: bool = False, single_root: bool = False) -> float:
    """The highest score of any tree (projective / single-root, as asked) of len(arc) - 1 words."""
    n = arc.shape[0] - 1
    trees = trees_of(n, projective, single_root)
    scores = first_order_scores(trees, arc)
    if sib is not None:
        rows, hs, ss, ms = _triples_table(n, projective, single_root)
        scores = scores + np.bincount(rows, weights=sib[hs, ss, ms], minlength=len(trees))
    return float(scores.max())
