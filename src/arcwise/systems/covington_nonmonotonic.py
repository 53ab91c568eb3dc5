"""Covington's non-projective parser, non-monotonic (2017 paper, Figure 2).

The configurations and Shift / No-Arc are those of monotonic Covington
(`arcwise.systems.covington`).  Left-Arc and Right-Arc are always allowed
when both focus words exist; the single-head and acyclicity constraints are
kept by deleting the offending arcs instead of forbidding the transition:
the dependent's previous head, and the arc that the new arc would close a
cycle with (the arc into the new head whose source the dependent dominates).

Variant ``+root`` as in `arcwise.systems.covington`: 0 is the first word of
λ1 and Right-Arc from i = 0 builds a root arc, which a later arc into the
same word replaces like any other (0 has no head, so it is never on a cycle);
Left-Arc with i = 0 is never legal.

`arc` (the arc an action builds) is monotonic Covington's: an arc
transition changes the head of its dependent and, when it would close a
cycle, deletes the arc into its head; no other arc.
"""

from __future__ import annotations

import sys

from arcwise.core.jit import njit
from arcwise.systems import state as st
from arcwise.systems.base import SystemKernels
from arcwise.systems.covington import (
    ACTIONS,
    BASES,
    LABELED,
    LEFT_ARC,
    NEURAL_FEATURES,
    NO_ARC,
    RIGHT_ARC,
    SHIFT,
    arc,
    base_positions,
    describe,
    distance_words,
    first_word,
    focus,
    focus_words,
    initial,
    is_terminal,
    kernels_of,
    move_focus_left,
    shift,
)


@njit(cache=True)
def legal(state, mask):
    i, j = focus(state)
    has_i = i >= first_word(state)
    mask[SHIFT] = j != -1
    mask[NO_ARC] = has_i
    mask[LEFT_ARC] = i > 0 and j != -1  # 0 takes no head
    mask[RIGHT_ARC] = has_i and j != -1


@njit(cache=True)
def attach(state, head, dependent, label):
    """A ∪ {head -> dependent} \\ {x -> dependent} \\ {k -> head | dependent ->* k} (Figure 2)."""
    if st.reaches(state, dependent, head):
        st.remove_arc(state, head)  # the arc into `head` that would close a cycle
    st.set_arc(state, head, dependent, label)  # replaces the dependent's previous head


@njit(cache=True)
def apply(state, action, label):
    i, j = focus(state)
    if action == SHIFT:
        shift(state)
    elif action == NO_ARC:
        move_focus_left(state)
    elif action == LEFT_ARC:
        attach(state, j, i, label)
        move_focus_left(state)
    else:  # RIGHT_ARC
        attach(state, i, j, label)
        move_focus_left(state)
    state[st.PREVIOUS] = action


VARIANTS = ("root",)  # covington-nm+root


def make(options: frozenset[str]) -> SystemKernels:
    return kernels_of("covington-nm", sys.modules[__name__], options)
