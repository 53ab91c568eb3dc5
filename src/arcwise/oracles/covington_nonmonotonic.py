"""Approximate dynamic oracle for non-monotonic Covington (2017 paper §4, Algorithm 2).

A non-root gold arc x -> y is individually unreachable (in U) when it is not
in A and Covington's sweep has gone past the pair {x, y}; the single-head and
acyclicity conditions of the monotonic oracle no longer apply, since arc
transitions can always replace heads and break cycles.  The loss ℓ(c) is
bounded by three expressions (selected by ``bound``):

- ``upper``    ``|U| + n_c(A ∪ I)``: every elementary cycle of A ∪ I, enumerated
               by Johnson's algorithm (in-degree is up to 2: a word may have
               one head in A and another in I, so cycles overlap);
- ``pc-upper`` ``|U| + n_pc(A ∪ I)``: only the problematic cycles, those whose
               cycle-breaking deletes a gold arc.  Building I in Covington
               order, the cycle is closed by its last arc x -> y to be built,
               which deletes the cycle's arc z -> x; the cycle is problematic
               when z -> x is gold;
- ``lower``    ``|U|``.

``upper`` is index 0, the default: the paper found it the best to train
with (Table 3, 84.74 average UAS), although it is the loosest (Table 1).

Gold root arcs 0 -> y: y is right while headless (headless words attach to
0 at the end) or headed by 0.  With ``covington-nm+root`` 0 -> y is an
ordinary arc while the sweep still reaches the pair (0, y), so it is in I
(0 has no head, so it closes no cycle).  Otherwise (always without +root, as
the paper leaves root arcs implicit) a headed y can be made headless again
only by a cycle-breaking deletion.  The upper bounds then count 0 -> y as
lost (their witness, Covington's criteria over I, never aims at detaching
y); the lower bound counts it lost only when the rest of the sweep allows no
such deletion (`root_detachable`).  See `arcwise.oracles.exact_loss` for ℓ(c).
"""

from __future__ import annotations

import numpy as np

from arcwise.core.jit import njit
from arcwise.oracles import covington as monotonic
from arcwise.oracles import priority as priorities
from arcwise.oracles.covington import can_build, focus_positions, in_sweep, prepare, static
from arcwise.oracles.cycles import count_elementary_cycles, elementary_cycles
from arcwise.systems import covington_nonmonotonic as system
from arcwise.systems import state as st
from arcwise.systems.base import OracleKernels, SystemKernels

BOUNDS = ("upper", "pc-upper", "lower")
UPPER, PC_UPPER, LOWER = range(3)


@njit(cache=True)
def _has_ancestor_in(state, word, low, high):
    """Has `word` a proper ancestor in A within [low, high]?"""
    v = st.head_of(state, word)
    steps = 0
    while v != -1 and steps <= state[st.N]:
        if low <= v <= high:
            return True
        v = st.head_of(state, v)
        steps += 1
    return False


@njit(cache=True)
def root_detachable(state, i, j, y):
    """Can a headed word y still be made headless (so that 0 -> y is reachable)?

    Only a cycle-breaking deletion detaches y: Left-Arc at pair (a, y) or
    Right-Arc at pair (y, a) while a is a proper ancestor of y.  Whether the
    rest of the sweep allows one depends on where y is and on the f = n - j
    words still unread; with f >= 2 (f >= 1 when y is in λ1) it always does.
    With +root it is asked only once the pair (0, y) is past; the extra pairs
    with 0 only re-head words to 0, which cuts ancestor chains, and add no way
    to detach y in the tests against exhaustive search.
    """
    n = state[st.N]
    if j > n:
        return False
    fresh = n - j
    if y == j:  # y is the right focus: a pair (a, y), a <= i, with a above y
        if fresh >= 2 or _has_ancestor_in(state, y, 1, i):
            return True
        for a in range(1, i + 1):  # or: re-head y to a, then detach at an ancestor of a left of a
            if not st.reaches(state, y, a) and _has_ancestor_in(state, a, 1, a - 1):
                return True
        return False
    if y <= i:  # y in λ1: the pair (y, j) and the sweeps to come
        return fresh >= 1 or st.reaches(state, j, y) or _has_ancestor_in(state, y, y + 1, i)
    # y in λ2: only the sweeps to come
    if fresh >= 2:
        return True
    return fresh == 1 and (_has_ancestor_in(state, y, y + 1, j) or _has_ancestor_in(state, y, 1, i))


@njit(cache=True)
def unreachable(state, gold, bound, succ):
    """``|U(c, tG)|`` (Algorithm 2); fills succ with A ∪ I in the parent direction."""
    i, j = focus_positions(state)
    heads = st.region(state, st.HEADS)
    n = len(gold) - 1
    count = 0
    for y in range(n + 1):
        succ[y, 0] = heads[y]
        succ[y, 1] = -1
        if y == 0:
            continue
        x = gold[y]
        if heads[y] == x or (x == 0 and heads[y] == -1):
            continue  # in A (a gold root arc: y still headless)
        if in_sweep(state, i, j, x, y):
            succ[y, 1] = x
        elif x != 0 or bound != LOWER or not root_detachable(state, i, j, y):
            count += 1
    return count


@njit(cache=True)
def covington_order(h, d, n):
    """Rank of the pair {h, d} in Covington's sweep (later pairs rank higher)."""
    return max(h, d) * (n + 2) + (n + 1 - min(h, d))


@njit(cache=True)
def count_problematic_cycles(succ, heads, gold):
    """n_pc: the cycles of A ∪ I whose cycle-breaking deletes a gold arc."""
    nodes, starts = elementary_cycles(succ)
    n = len(gold) - 1
    problematic = 0
    for c in range(len(starts) - 1):
        first, end = starts[c], starts[c + 1]
        closing, last_rank = -1, -1
        for p in range(first, end):
            d = nodes[p]
            h = nodes[p + 1] if p + 1 < end else nodes[first]
            if heads[d] != h:  # an arc of I still to build
                rank = covington_order(h, d, n)
                if rank > last_rank:
                    last_rank, closing = rank, p
        # the closing arc x -> y; x's arc in the cycle is deleted
        x = nodes[closing + 1] if closing + 1 < end else nodes[first]
        q = first
        while nodes[q] != x:
            q += 1
        z = nodes[q + 1] if q + 1 < end else nodes[first]
        if gold[x] == z:
            problematic += 1
    return problematic


@njit(cache=True)
def loss(state, prepared, bound):
    """Algorithm 2: ``|U| + COUNTRELEVANTCYCLES(A ∪ I)`` for bound = UPPER, PC_UPPER, LOWER."""
    gold = prepared[0]
    succ = np.empty((len(gold), 2), dtype=np.int32)
    u = unreachable(state, gold, bound, succ)
    if bound == LOWER:
        return u
    if bound == UPPER:
        return u + count_elementary_cycles(succ)
    return u + count_problematic_cycles(succ, st.region(state, st.HEADS), gold)


@njit(cache=True)
def costs(state, prepared, bound, out):
    """out[a] = loss(apply(c, a)) - loss(c) for every legal a (Algorithm 2 after each action)."""
    mask = np.zeros(len(out), dtype=np.bool_)
    system.legal(state, mask)
    base = loss(state, prepared, bound)
    after = state.copy()
    for a in range(len(out)):
        if mask[a]:
            after[:] = state
            system.apply(after, a, -1)
            out[a] = loss(after, prepared, bound) - base


@njit(cache=True)
def costs_monotonic_priority(state, prepared, bound, out):
    """`costs`, with priority for the actions that keep monotonic Covington's loss."""
    costs(state, prepared, bound, out)
    mask = np.zeros(len(out), dtype=np.bool_)
    system.legal(state, mask)
    raises = np.zeros(len(out), dtype=np.bool_)
    base = monotonic.loss(state, prepared, 0)
    after = state.copy()
    for a in range(len(out)):
        if mask[a]:
            after[:] = state
            system.apply(after, a, -1)
            raises[a] = monotonic.loss(after, prepared, 0) > base
    priorities.prefer_monotonic(mask, out, raises)


NO_PRIORITY, MONOTONIC_PRIORITY = 0, 1  # OracleKernels.variant
VARIANT_KERNELS = {"MONOTONIC_PRIORITY": {"costs": costs_monotonic_priority}}  # compiled dispatch


def make(kernels: SystemKernels, priority: str = priorities.NONE, **options) -> OracleKernels:
    """The oracle; priority "none" (the paper's) or "monotonic" (`costs_monotonic_priority`)."""
    if options:
        raise ValueError(f"the covington-nm oracle takes no options, got {sorted(options)}")
    monotonic_first = priorities.check(priority) == priorities.MONOTONIC
    return OracleKernels(
        prepare=prepare,
        static=static,
        loss=loss,
        can_build=can_build,
        costs=costs_monotonic_priority if monotonic_first else costs,
        bounds=BOUNDS,
        exact=False,
        variant=MONOTONIC_PRIORITY if monotonic_first else NO_PRIORITY,
        priority=priority,
    )
