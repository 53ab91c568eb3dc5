"""Dynamic oracle of non-monotonic arc-eager (Honnibal, Goldberg & Johnson 2013, §4).

The arc-eager oracle (`arcwise.oracles.arc_eager`) with reachability widened
by the two repairs.  The gold arc into d is reachable when::

    d was popped:                 its head is gold[d] (popped words keep their head)
    d is on the stack with head h: h == gold[d], or gold[d] is in the buffer
                                  (non-monotonic LEFT-ARC can replace h)
    d is headless on the stack:   gold[d] is 0, in the buffer, or the word right
                                  below d while the buffer is not empty
                                  (non-monotonic REDUCE attaches d to it)
    d is in the buffer:           gold[d] was not popped.

So, unlike the monotonic costs, SHIFT does not charge a gold arc s0 -> b
(REDUCE can still add it), RIGHT-ARC does not charge a gold head of b in the
buffer (LEFT-ARC can still replace the arc), LEFT-ARC charges a correct head
it overwrites, and REDUCE of a headless word charges its gold arc unless s1
is its gold head — the cost changes of the paper's oracle.

Unlike monotonic arc-eager, the system is not arc-decomposable: a word
waiting for a REDUCE repair must leave the stack before the buffer runs
out, so it conflicts with headless root words above it and with the stack
word the last word's gold chain hangs from.  loss(c) adds the fewest arcs
that resolve those conflicts (`repair_conflicts`, a minimum over one cut
of the stack), which makes it the exact minimum loss on projective gold
trees (checked against exhaustive search in
tests/test_arc_eager_nonmonotonic.py) and a lower bound otherwise.  costs
are loss differences: four O(n) loss evaluations per call.

Priority for monotonic paths (option ``priority``, "monotonic" by default as
in the paper's training, §6; "none" gives the raw costs above): among the
zero-cost actions, those that do not raise arc-eager's monotonic loss are
preferred when there are any (`arcwise.oracles.priority`).

Static oracle: arc-eager's (gold arcs only), first zero-cost.
"""

from __future__ import annotations

import numpy as np

from arcwise.core.jit import njit
from arcwise.oracles import arc_eager as monotonic
from arcwise.oracles import priority as priorities
from arcwise.oracles.arc_eager import BUFFER, GONE, STACK, first_free, locate
from arcwise.systems import arc_eager_nonmonotonic as nm
from arcwise.systems import state as st
from arcwise.systems.base import OracleKernels, SystemKernels

prepare = monotonic.prepare
can_build = monotonic.can_build


@njit(cache=True)
def locate_below(state):
    """below[w]: the word right below stack word w (-1 for the bottom and non-stack words)."""
    below = np.full(state[st.N] + 1, -1, dtype=np.int32)
    stack = st.region(state, st.STACK)
    for k in range(1, state[st.STACK_LEN]):
        below[stack[k]] = stack[k - 1]
    return below


@njit(cache=True)
def reachable(state, where, below, gold, d):
    """Can the gold arc into d still be in the final tree (see module docstring)?"""
    g = gold[d]
    h = st.head_of(state, d)
    if where[d] == GONE:
        return h == g
    if where[d] == STACK:
        if h != -1:
            return h == g or where[g] == BUFFER
        return g == 0 or where[g] == BUFFER or (g == below[d] and state[st.BUFFER_LEN] > 0)
    return where[g] != GONE


@njit(cache=True)
def end_anchor(state, where, gold):
    """Stack index of the word the last buffer word's gold chain hangs from, or -1.

    If the chain of gold arcs from the last word n up through the buffer
    is reachable and reaches a stack word q (q != 0 via an arc, not a
    headless root word), q must stay on the stack until the parse ends.
    """
    if state[st.BUFFER_LEN] == 0:
        return -1
    x = st.region(state, st.BUFFER)[0]  # the last word of the buffer
    while where[x] == BUFFER:
        g = gold[x]
        if g == 0 or where[g] == GONE:
            return -1  # a headless root word, or a chain that is broken anyway
        x = g
    stack = st.region(state, st.STACK)
    for k in range(state[st.STACK_LEN]):
        if stack[k] == x:
            return k
    return -1


@njit(cache=True)
def repair_conflicts(state, where, gold):
    """Fewest gold arcs to give up so that every pending REDUCE repair can happen.

    A headless stack word waiting for a REDUCE to attach it to the word
    below (R) must be popped while the buffer is not empty, so it conflicts
    with every word above it that has to stay to the end: a headless root
    word (Z, reachable only by staying headless) and the anchor of the last
    word's chain (`end_anchor`, at or above R).  Keeping the R words above
    some cut and the Z words below it, the fewest given up is a minimum
    over the cuts.  Arc-eager's other arc pairs do not conflict on
    projective gold trees (Goldberg & Nivre 2012).
    """
    length = state[st.STACK_LEN]
    if state[st.BUFFER_LEN] == 0 or length < 3:
        return 0
    stack = st.region(state, st.STACK)
    anchor = end_anchor(state, where, gold)
    # Positions doubled: word k at 2k, the anchor's constraint at 2k + 1.
    kind = np.zeros(2 * length + 2, dtype=np.int8)  # 1 = R, 2 = Z
    for k in range(1, length):
        d = stack[k]
        if st.head_of(state, d) != -1:
            continue
        if gold[d] == 0 and k >= 2:
            kind[2 * k] = 2
        elif gold[d] != 0 and gold[d] == stack[k - 1]:
            kind[2 * k] = 1
    if anchor > 0:
        kind[2 * anchor + 1] = 2
    z_above = 0
    for p in range(len(kind)):
        if kind[p] == 2:
            z_above += 1
    best = z_above  # cut below everything: give up every Z
    r_below = 0
    for p in range(len(kind)):
        if kind[p] == 1:
            r_below += 1
        elif kind[p] == 2:
            z_above -= 1
        if r_below + z_above < best:
            best = r_below + z_above
    return best


@njit(cache=True)
def loss(state, prepared, bound):
    """Unreachable gold arcs plus the repairs that cannot all be made (see module docstring)."""
    gold = prepared[0]
    where = locate(state)
    below = locate_below(state)
    lost = 0
    for d in range(1, state[st.N] + 1):
        if not reachable(state, where, below, gold, d):
            lost += 1
    return lost + repair_conflicts(state, where, gold)


@njit(cache=True)
def costs(state, prepared, bound, out):
    """loss(apply(c, a)) - loss(c) for every legal a: four O(n) loss evaluations."""
    mask = np.zeros(len(nm.ACTIONS), dtype=np.bool_)
    nm.legal(state, mask)
    base = loss(state, prepared, bound)
    for a in range(len(nm.ACTIONS)):
        if mask[a]:
            after = state.copy()
            nm.apply(after, a, -1)
            out[a] = loss(after, prepared, bound) - base


@njit(cache=True)
def costs_monotonic_priority(state, prepared, bound, out):
    """`costs`, with priority for the actions that keep arc-eager's monotonic loss."""
    costs(state, prepared, bound, out)
    mask = np.zeros(len(nm.ACTIONS), dtype=np.bool_)
    nm.legal(state, mask)
    raises = np.zeros(len(nm.ACTIONS), dtype=np.bool_)
    base = monotonic.loss(state, prepared, bound)
    for a in range(len(nm.ACTIONS)):
        if mask[a]:
            after = state.copy()
            nm.apply(after, a, -1)
            raises[a] = monotonic.loss(after, prepared, bound) > base
    priorities.prefer_monotonic(mask, out, raises)


STATIC_ORDER = np.array([nm.LEFT_ARC, nm.RIGHT_ARC, nm.REDUCE, nm.SHIFT], dtype=np.int64)


@njit(cache=True)
def static(state, prepared):
    """Arc-eager's static oracle: the first zero-cost gold LEFT-ARC, gold RIGHT-ARC, REDUCE,
    SHIFT (on its own path from the initial configuration it never needs a repair)."""
    mask = np.zeros(len(nm.ACTIONS), dtype=np.bool_)
    nm.legal(state, mask)
    out = np.zeros(len(nm.ACTIONS), dtype=np.int64)
    costs(state, prepared, 0, out)
    return first_free(state, prepared, mask, out, STATIC_ORDER)


MONOTONIC_PRIORITY, NO_PRIORITY = 0, 1  # OracleKernels.variant
VARIANT_KERNELS = {"MONOTONIC_PRIORITY": {"costs": costs_monotonic_priority}}  # compiled dispatch


def make(kernels: SystemKernels, priority: str = priorities.MONOTONIC) -> OracleKernels:
    """The oracle; priority "monotonic" (the paper's, §6) or "none" (the raw costs)."""
    monotonic_first = priorities.check(priority) == priorities.MONOTONIC
    return OracleKernels(
        prepare=prepare,
        static=static,
        loss=loss,
        can_build=can_build,
        costs=costs_monotonic_priority if monotonic_first else costs,
        variant=MONOTONIC_PRIORITY if monotonic_first else NO_PRIORITY,
        priority=priority,
    )
