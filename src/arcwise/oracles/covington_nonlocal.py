"""Oracles for non-local Covington (Fernández-González & Gómez-Rodríguez 2018).

Static oracle (the paper's): Left-Arc_k / Right-Arc_k with the nearest word i_k of λ1
linked with j in gold (the smallest such k), else Shift.  It rebuilds every tree, in
n Shifts and one arc transition per word attached by an arc.

Dynamic oracle, exact.  Left-Arc_k is k - 1 of Covington's No-Arcs then its Left-Arc
(Right-Arc_k likewise), and No-Arcs before a Shift change nothing: from any
configuration the non-local system reaches exactly the terminal configurations Covington
reaches from it.  So the least loss reachable is monotonic Covington's exact loss
(Algorithm 1 of the 2017 paper, `arcwise.oracles.covington.loss`: a gold arc stays
reachable while single head and acyclicity allow it and the sweep has not passed its
pair), and an action's cost is that loss after the action minus before: the gold arcs
the k - 1 skipped pairs and the arc made put out of reach.
"""

from __future__ import annotations

import numpy as np

from arcwise.core.jit import njit
from arcwise.oracles.covington import can_build, focus_positions, loss, prepare
from arcwise.systems import covington_nonlocal as system
from arcwise.systems import state as st
from arcwise.systems.base import OracleKernels, SystemKernels
from arcwise.systems.covington import first_word

# what the compiled dispatch reads here, Covington's exact loss included
__all__ = ["can_build", "costs", "loss", "make", "prepare", "static"]


@njit(cache=True)
def static(state, prepared):
    gold, leftmost = prepared[0], prepared[1]
    i, j = focus_positions(state)
    first = first_word(state)
    if j < len(gold):
        left_end = 0 if gold[j] == 0 and first == 0 else leftmost[j]
        for x in range(i, max(left_end, first) - 1, -1):  # x = i_k, k = i - x + 1
            if gold[x] == j and st.head_of(state, x) == -1:
                return system.left_arc(i - x + 1)
            if gold[j] == x and st.head_of(state, j) == -1:
                return system.right_arc(i - x + 1)  # from x = 0 only with +root
    return system.SHIFT


@njit(cache=True)
def costs(state, prepared, bound, out):
    """out[a] = loss(apply(c, a)) - loss(c) for every legal a (Covington's exact loss)."""
    mask = np.zeros(len(out), dtype=np.bool_)
    system.legal(state, mask)
    base = loss(state, prepared, bound)
    after = state.copy()
    for a in range(len(out)):
        if mask[a]:
            after[:] = state
            system.apply(after, a, -1)
            out[a] = loss(after, prepared, bound) - base


def make(kernels: SystemKernels, **options) -> OracleKernels:
    if options:
        raise ValueError(f"the covington-nl oracle takes no options, got {sorted(options)}")
    return OracleKernels(
        prepare=prepare, static=static, loss=loss, can_build=can_build, costs=costs, exact=True
    )
