"""Oracles for the 2-Planar parser (2018 paper §3; Gómez-Rodríguez & Nivre 2010).

Both are relative to the canonical plane assignment of the gold tree,
`arcwise.trees.planarity.plane_assignment`: the planes the static oracle of
Gómez-Rodríguez & Nivre (2010) builds the arcs in (prepared once per sentence).

Static oracle: that oracle's rules with the planes fixed in advance — an arc
between the active top s and the buffer front j; Switch for an arc between
the inactive top t and j; Reduce while j has an unbuilt arc in the active
plane to a word left of s; Switch for the same in the inactive plane; else
Shift.  Its derivation builds each arc in its canonical plane and rebuilds
every tree whose arcs between words are 2-planar.

Dynamic oracle (approximate: exact only for that plane assignment)::

    ℓ(c) = |U1(c, tG1) ∪ U2(c, tG2)| + n_c(A ∪ I1(c, tG1) ∪ I2(c, tG2)),

a gold arc x -> y of plane i being unreachable when it is not already in A in
plane i and min(x, y) is neither on plane i's stack nor in the buffer, or
max(x, y) is not in the buffer, or y has another head, or x and y are in the
same tree of A, or x -> y was built in the other plane.  As in Covington's
oracle a gold root arc 0 -> y is kept while y is headless.  Gold arcs the
static oracle cannot place (trees that are not 2-planar) always count as
lost (footnote 4).  Since two consecutive Switches are forbidden, the loss
of a configuration just after a Switch is the least ℓ after one of the other
four transitions, so the cost of Switch is the paper's
min{ℓ(τ(Switch(c))) - ℓ(c) | τ ≠ Switch}.

Regularization (option `regularize`, on by default as in the paper).  The
paper adds to ℓ(c) the length of the transition sequence to the minimum-loss
tree, which "amounts to penalizing the Switch transition if there is any
zero-cost transition available in the active plane and changing planes will
delay its application".  Switch costs one more when a zero-cost transition τ
of the active plane is legal and switching first cannot make the sequence
shorter (`switch_delays`):

- τ = Left-Arc or Right-Arc of the active plane: arcs move no word, so
  τ, Switch, ... does everything Switch, ... does, and after Switch τ needs
  a second Switch;
- τ = Shift: Shift pushes onto both stacks, so Switch, Shift and
  Shift, Switch reach the same configuration, and Switch first can only add
  a step (at the initial configuration, for instance);
- τ = Reduce when it uncovers a word of the active stack with a gold arc of
  the active plane to the buffer front: that arc is built in the active
  plane before the buffer front leaves, so Switch first only adds the
  Switch back.

So a zero-cost Switch never leads to a longer sequence than a zero-cost
transition of the active plane (checked against exhaustive search in
tests/test_two_planar.py), and Switch stays free where the active plane has
nothing left to do now: for an arc of the inactive plane, or a Reduce there.
"""

from __future__ import annotations

import numpy as np

from arcwise.core.jit import njit
from arcwise.oracles.covington import _component_roots
from arcwise.oracles.cycles import count_functional_cycles
from arcwise.systems import state as st
from arcwise.systems import two_planar
from arcwise.systems.base import OracleKernels, SystemKernels, pack_gold
from arcwise.systems.two_planar import LEFT_ARC, REDUCE, RIGHT_ARC, SHIFT, SWITCH, stack_of, tops
from arcwise.trees.planarity import plane_assignment, words_two_planar
from arcwise.trees.projectivity import is_well_formed

LOST = 1 << 20  # larger than any loss


def prepare(gold: np.ndarray) -> tuple:
    """(gold heads, canonical plane of each word's gold arc; -1: root arc or not placed)."""
    gold = np.ascontiguousarray(gold, dtype=np.int32)
    return pack_gold(gold, plane_assignment(gold))


def can_build(gold: np.ndarray) -> bool:
    """A tree whose arcs between words are 2-planar (root arcs are implicit)."""
    gold = np.asarray(gold, dtype=np.int32)
    return bool(is_well_formed(gold) and words_two_planar(gold))


# --- static oracle ----------------------------------------------------------------


@njit(cache=True)
def _unbuilt_arc_to_left(state, gold, planes, j, limit, plane):
    """Is there a gold arc of `plane` between j and a word k < limit, not built yet?"""
    for k in range(1, limit):
        if gold[k] == j and st.head_of(state, k) == -1 and planes[k] == plane:
            return True
        if gold[j] == k and st.head_of(state, j) == -1 and planes[j] == plane:
            return True
    return False


@njit(cache=True)
def _linked(state, gold, a, b):
    """Is a -> b or b -> a a gold arc whose dependent has no head yet?"""
    if gold[b] == a and st.head_of(state, b) == -1:
        return True
    return gold[a] == b and st.head_of(state, a) == -1


@njit(cache=True)
def static(state, prepared):
    """Gómez-Rodríguez & Nivre's (2010) static oracle, planes fixed in advance."""
    gold, planes = prepared[0], prepared[1]
    p = state[st.FOCUS]
    s, t, j = tops(state)
    may_switch = state[st.PREVIOUS] != SWITCH
    if s != -1:
        if gold[s] == j and st.head_of(state, s) == -1 and not st.reaches(state, s, j):
            return LEFT_ARC
        if gold[j] == s and st.head_of(state, j) == -1 and not st.reaches(state, j, s):
            return RIGHT_ARC
    if may_switch and t != -1 and _linked(state, gold, t, j):
        return SWITCH
    if s != -1 and _unbuilt_arc_to_left(state, gold, planes, j, s, p):
        return REDUCE
    if may_switch and t != -1 and _unbuilt_arc_to_left(state, gold, planes, j, t, 1 - p):
        return SWITCH
    return SHIFT


# --- dynamic oracle ---------------------------------------------------------------


@njit(cache=True)
def plane_loss(state, gold, planes):
    """``ℓ(c) = |U1 ∪ U2| + n_c(A ∪ I1 ∪ I2)``, two consecutive Switches allowed (2018 §3)."""
    n = len(gold) - 1
    j = st.buffer_get(state, 0)
    if j == -1:
        j = n + 1  # terminal: the buffer is empty
    heads = st.region(state, st.HEADS)
    built_in = st.region(state, st.MARKS)
    on_stack = np.zeros((2, n + 1), dtype=np.bool_)
    for p in range(2):
        which = stack_of(p)
        for k in range(st.stack_len(state, which)):
            on_stack[p, st.region(state, which)[k]] = True
    root = _component_roots(heads)
    parent = heads.copy()  # A ∪ I1 ∪ I2 in the parent direction
    unreachable = 0
    for y in range(1, n + 1):
        x, p = gold[y], planes[y]
        if x == 0:  # a root arc: kept while y is headless
            if heads[y] != -1:
                unreachable += 1
            continue
        if heads[y] == x and built_in[y] == p:
            continue  # in A ∩ tG^p
        lo, hi = min(x, y), max(x, y)
        if (
            p == -1  # not in the 2-planar subset (footnote 4)
            or heads[y] != -1  # another head, or built in the other plane
            or hi < j
            or (lo < j and not on_stack[p, lo])
            or root[x] == root[y]
        ):
            unreachable += 1
        else:
            parent[y] = x
    return unreachable + count_functional_cycles(parent)


@njit(cache=True)
def loss(state, prepared, bound):
    """ℓ(c), or after a Switch (no second Switch allowed) the least ℓ one transition later."""
    gold, planes = prepared[0], prepared[1]
    if state[st.PREVIOUS] != SWITCH or two_planar.is_terminal(state):
        return plane_loss(state, gold, planes)
    mask = np.zeros(len(two_planar.ACTIONS), dtype=np.bool_)
    two_planar.legal(state, mask)
    best = LOST
    scratch = state.copy()
    for a in (SHIFT, REDUCE, LEFT_ARC, RIGHT_ARC):
        if mask[a]:
            scratch[:] = state
            two_planar.apply(scratch, a, -1)
            best = min(best, plane_loss(scratch, gold, planes))
    return best


@njit(cache=True)
def _reduce_uncovers_arc(state, gold, planes, j):
    """Is there, below the active top, a word with an unbuilt gold arc of the active plane to j?"""
    p = state[st.FOCUS]
    which = stack_of(p)
    stack = st.region(state, which)
    for k in range(st.stack_len(state, which) - 1):
        w = stack[k]
        if _linked(state, gold, w, j) and planes[w if gold[w] == j else j] == p:
            return True
    return False


@njit(cache=True)
def switch_delays(state, prepared, mask, out):
    """Would Switch delay a zero-cost transition of the active plane (module docstring)?"""
    gold, planes = prepared[0], prepared[1]
    p = state[st.FOCUS]
    s, _, j = tops(state)
    if mask[LEFT_ARC] and out[LEFT_ARC] == 0 and gold[s] == j and planes[s] == p:
        return True
    if mask[RIGHT_ARC] and out[RIGHT_ARC] == 0 and gold[j] == s and planes[j] == p:
        return True
    if mask[SHIFT] and out[SHIFT] == 0:
        return True
    return (
        mask[REDUCE] and out[REDUCE] == 0 and j != -1
        and _reduce_uncovers_arc(state, gold, planes, j)
    )


@njit(cache=True)
def action_costs(state, prepared, out, regularize):
    """out[τ] = loss(τ(c)) - loss(c) for every legal τ, Switch optionally regularized.

    Written out rather than through `covington.costs_with`, whose function
    arguments keep numba from caching the compiled code.
    """
    mask = np.zeros(len(out), dtype=np.bool_)
    two_planar.legal(state, mask)
    base = loss(state, prepared, 0)
    scratch = state.copy()
    for a in range(len(out)):
        if mask[a]:
            scratch[:] = state
            two_planar.apply(scratch, a, -1)
            out[a] = loss(scratch, prepared, 0) - base
    if (
        regularize and mask[SWITCH] and out[SWITCH] == 0
        and switch_delays(state, prepared, mask, out)
    ):
        out[SWITCH] += 1


@njit(cache=True)
def costs(state, prepared, bound, out):
    """The dynamic oracle's costs, with the paper's regularization of Switch."""
    action_costs(state, prepared, out, True)


@njit(cache=True)
def costs_unregularized(state, prepared, bound, out):
    """The dynamic oracle's costs without the regularization."""
    action_costs(state, prepared, out, False)


REGULARIZED, UNREGULARIZED = 0, 1  # OracleKernels.variant
VARIANT_KERNELS = {"UNREGULARIZED": {"costs": costs_unregularized}}  # compiled dispatch


def make(kernels: SystemKernels, regularize: bool = True) -> OracleKernels:
    return OracleKernels(
        prepare=prepare,
        static=static,
        loss=loss,
        can_build=can_build,
        costs=costs if regularize else costs_unregularized,
        exact=False,
        variant=REGULARIZED if regularize else UNREGULARIZED,
    )
