"""Covington's non-projective parser, monotonic (2017 paper, Figure 1; Nivre 2008).

A configuration <λ1, λ2, B, A> keeps λ1 · λ2 = [1 .. j-1] contiguous, so it
is just the focus words: i = last word of λ1 (0 when λ1 is empty) in the
FOCUS slot and j = the buffer front.  Words left headless at the end are
attached to the root 0.
"""

from __future__ import annotations

import sys

from numba import njit

from arcwise.systems import state as st
from arcwise.systems.base import SystemKernels, kernels_of_module

SHIFT, NO_ARC, LEFT_ARC, RIGHT_ARC = range(4)
ACTIONS = ("shift", "no-arc", "left-arc", "right-arc")
LABELED = (False, False, True, True)


@njit(cache=True)
def initial(n):
    """<[], [], [1..n], {}>."""
    return st.new_state(n, 0)


@njit(cache=True)
def is_terminal(state):
    return state[st.BUFFER_LEN] == 0


@njit(cache=True)
def focus(state):
    """(i, j): the focus words; i = 0 when λ1 is empty, j = -1 when B is empty."""
    return state[st.FOCUS], st.buffer_get(state, 0)


@njit(cache=True)
def legal(state, mask):
    i, j = focus(state)
    mask[SHIFT] = j != -1
    mask[NO_ARC] = i > 0
    # Figure 1: single-head and acyclicity preconditions.
    mask[LEFT_ARC] = i > 0 and j != -1 and st.head_of(state, i) == -1 and not st.reaches(state, i, j)
    mask[RIGHT_ARC] = i > 0 and j != -1 and st.head_of(state, j) == -1 and not st.reaches(state, j, i)


@njit(cache=True)
def move_focus_left(state):
    """λ1|i, λ2 => λ1, i|λ2: the next word left of i becomes the focus."""
    state[st.FOCUS] -= 1


@njit(cache=True)
def shift(state):
    """<λ1, λ2, j|B> => <λ1·λ2|j, [], B>."""
    state[st.FOCUS] = st.buffer_pop(state)


@njit(cache=True)
def apply(state, action, label):
    i, j = focus(state)
    if action == SHIFT:
        shift(state)
    elif action == NO_ARC:
        move_focus_left(state)
    elif action == LEFT_ARC:
        st.set_arc(state, j, i, label)
        move_focus_left(state)
    else:  # RIGHT_ARC
        st.set_arc(state, i, j, label)
        move_focus_left(state)
    state[st.PREVIOUS] = action


def describe(state) -> dict:
    """λ1, λ2 and B as lists, for printing a configuration."""
    i, j = focus(state)
    j_end = j if j != -1 else state[st.N] + 1
    buffer = [int(w) for w in st.region(state, st.BUFFER)[: state[st.BUFFER_LEN]][::-1]]
    return {"λ1": list(range(1, i + 1)), "λ2": list(range(i + 1, j_end)), "B": buffer}


def make(options: frozenset[str]) -> SystemKernels:
    return kernels_of_module("covington", sys.modules[__name__], options)
