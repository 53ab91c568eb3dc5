"""Oracles for monotonic Covington (2017 paper §2.2, after Gómez-Rodríguez & Fernández-González 2015).

Dynamic oracle, exact (Algorithm 1): ``ℓ(c) = |U(c, tG)| + n_c(A ∪ I(c, tG))``,
where U are the gold arcs no longer individually reachable and I the others.
Every word has at most one head in A ∪ I, so its cycles are disjoint and
counted in O(n).  A gold root arc 0 -> y is "built" while y is headless
(headless words attach to 0 at the end) and lost once y has a head other
than 0.  The same U serves ``covington+root``: there 0 -> y can also be built
explicitly, which changes nothing in the loss (y headless or headed by 0 ends
the same, and 0, having no head, is on no cycle).

Static oracle: the usual Covington one — an arc transition when the focus
words are linked in gold, Shift when j has no gold link left with a word
before i, else No-Arc.  With +root a gold root arc is a link with 0, built
by Right-Arc from i = 0.  It rebuilds every tree.

Focus positions are read as in `arcwise.systems.covington`: i < first_word
when λ1 is empty, and a terminal configuration (empty buffer) is read as
j = n + 1.
"""

from __future__ import annotations

import numpy as np

from arcwise.core.jit import njit
from arcwise.oracles.cycles import count_functional_cycles
from arcwise.systems import covington
from arcwise.systems import state as st
from arcwise.systems.base import OracleKernels, SystemKernels, pack_gold
from arcwise.systems.covington import LEFT_ARC, NO_ARC, RIGHT_ARC, SHIFT


def prepare(gold: np.ndarray) -> tuple:
    """(gold heads, leftmost[j]: the leftmost word k >= 1 linked to j in gold, j if none)."""
    gold = np.ascontiguousarray(gold, dtype=np.int32)
    return pack_gold(gold, _leftmost_links(gold))


@njit(cache=True)
def _leftmost_links(gold):
    n = len(gold) - 1
    leftmost = np.arange(n + 1).astype(np.int32)
    for d in range(1, n + 1):
        h = gold[d]
        if h >= 1:
            left, right = min(h, d), max(h, d)
            leftmost[right] = min(leftmost[right], left)
    return leftmost


@njit(cache=True)
def focus_positions(state):
    """(i, j) with a terminal configuration read as j = n + 1."""
    i = state[st.FOCUS]
    j = st.buffer_get(state, 0)
    if j == -1:
        j = state[st.N] + 1
    return i, j


@njit(cache=True)
def is_past(i, j, x, y):
    """Has Covington's sweep gone past the pair {x, y} (it can no longer be linked)?"""
    left, right = min(x, y), max(x, y)
    return j > right or (j == right and i < left)


@njit(cache=True)
def in_sweep(state, i, j, x, y):
    """Will Covington's sweep still reach the pair {x, y}?  (Pairs with 0 only with +root.)"""
    return min(x, y) >= covington.first_word(state) and not is_past(i, j, x, y)


@njit(cache=True)
def static(state, prepared):
    gold, leftmost = prepared[0], prepared[1]
    i, j = focus_positions(state)
    first = covington.first_word(state)
    if i >= first and j < len(gold):
        if gold[i] == j and st.head_of(state, i) == -1:
            return LEFT_ARC
        if gold[j] == i and st.head_of(state, j) == -1:
            return RIGHT_ARC  # from i = 0 only with +root
        left_end = 0 if gold[j] == 0 and first == 0 else leftmost[j]
        if left_end < i:
            return NO_ARC
    return SHIFT


@njit(cache=True)
def _component_roots(heads):
    """root[v]: the root of v's tree in the forest `heads` (weak components of A)."""
    n = len(heads)
    root = np.full(n, -1, dtype=np.int32)
    for v in range(n):
        w = v
        while root[w] == -1 and heads[w] != -1:
            w = heads[w]
        r = root[w] if root[w] != -1 else w
        w = v
        while root[w] == -1:
            root[w] = r
            if heads[w] == -1:
                break
            w = heads[w]
    return root


@njit(cache=True)
def loss(state, prepared, bound):
    """Algorithm 1: ``|U(c, tG)| + COUNTCYCLES(A ∪ I(c, tG))``."""
    gold = prepared[0]
    i, j = focus_positions(state)
    heads = st.region(state, st.HEADS)
    root = _component_roots(heads)
    n = len(gold) - 1
    parent = heads.copy()  # A ∪ I in the parent direction
    unreachable = 0
    for y in range(1, n + 1):
        x = gold[y]
        if heads[y] == x or (x == 0 and heads[y] == -1):
            continue  # in A (a gold root arc: y still headless)
        if x == 0 or heads[y] != -1 or is_past(i, j, x, y) or root[x] == root[y]:
            unreachable += 1
        else:
            parent[y] = x
    return unreachable + count_functional_cycles(parent)


@njit(cache=True)
def costs(state, prepared, bound, out):
    """out[a] = loss(apply(c, a)) - loss(c) for every legal a (Algorithm 1 after each action)."""
    mask = np.zeros(len(out), dtype=np.bool_)
    covington.legal(state, mask)
    base = loss(state, prepared, bound)
    after = state.copy()
    for a in range(len(out)):
        if mask[a]:
            after[:] = state
            covington.apply(after, a, -1)
            out[a] = loss(after, prepared, bound) - base


def can_build(gold: np.ndarray) -> bool:
    """Covington builds every forest, so every tree."""
    return True


def make(kernels: SystemKernels, **options) -> OracleKernels:
    if options:
        raise ValueError(f"the covington oracle takes no options, got {sorted(options)}")
    return OracleKernels(
        prepare=prepare, static=static, loss=loss, can_build=can_build, costs=costs, exact=True
    )
