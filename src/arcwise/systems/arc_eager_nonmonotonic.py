"""Non-monotonic arc-eager (Honnibal, Goldberg & Johnson 2013, CoNLL, §3).

Arc-eager (`arcwise.systems.arc_eager`) with two transitions relaxed::

    LEFT-ARC  (σ|i, j|β, A) => (σ, j|β, A \\ {(k, i)} ∪ {(j, i)})   i != 0
              may replace a head i got from an earlier RIGHT-ARC
              (repairs a RIGHT-ARC that should have been a SHIFT);
    REDUCE    (σ|k|i, β, A) => (σ|k, β, A ∪ {(k, i)} if i is headless)  i != 0
              attaches a headless stack top to the word below it
              (repairs a SHIFT that should have been a RIGHT-ARC).

SHIFT and RIGHT-ARC are those of arc-eager.  As in arc-eager here, root 0
starts on the stack and the configuration is terminal when the buffer is
empty (words left headless count as attached to 0), so the paper's
end-of-sentence Reduces are not needed.  REDUCE is a labeled action: the
label names the arc it adds to a headless top and is ignored otherwise (a
REDUCE that adds no arc teaches the labeler nothing, `arcwise.transition.train`).
"""

from __future__ import annotations

import sys

from arcwise.core.jit import njit
from arcwise.systems import arc_eager as ae
from arcwise.systems import state as st
from arcwise.systems.base import SystemKernels, kernels_of_module

SHIFT, LEFT_ARC, RIGHT_ARC, REDUCE = ae.SHIFT, ae.LEFT_ARC, ae.RIGHT_ARC, ae.REDUCE
ACTIONS = ae.ACTIONS[:4]
LABELED = (False, True, True, True)  # REDUCE may add an arc

initial = ae.initial
is_terminal = ae.is_terminal
base_positions, focus_words, distance_words = ae.base_positions, ae.focus_words, ae.distance_words


NEURAL_FEATURES = ae.NEURAL_FEATURES  # the words a neural scorer reads
BASES = ae.BASES


@njit(cache=True)
def legal(state, mask):
    s = st.stack_get(state, st.STACK, 0)
    b = st.buffer_get(state, 0)
    mask[SHIFT] = b != -1
    mask[LEFT_ARC] = b != -1 and s > 0  # no single-head precondition
    mask[RIGHT_ARC] = b != -1 and s != -1
    mask[REDUCE] = s > 0  # headless or not; 0 is never popped


@njit(cache=True)
def apply(state, action, label):
    if action == SHIFT:
        ae.shift(state)
    elif action == LEFT_ARC:
        i = st.stack_pop(state, st.STACK)
        st.set_arc(state, st.buffer_get(state, 0), i, label)  # replaces any head of i
    elif action == RIGHT_ARC:
        ae.right_arc(state, label)
    else:  # REDUCE
        i = st.stack_pop(state, st.STACK)
        if st.head_of(state, i) == -1:
            st.set_arc(state, st.stack_get(state, st.STACK, 0), i, label)
    state[st.PREVIOUS] = action


@njit(cache=True)
def arc(state, action):
    """(head, dependent) of the arc `action` builds in state, (-1, -1) if none: LEFT-ARC
    replaces any head of its dependent, REDUCE builds one only for a headless top."""
    s = st.stack_get(state, st.STACK, 0)
    if action == LEFT_ARC:
        return st.buffer_get(state, 0), s
    if action == RIGHT_ARC:
        return s, st.buffer_get(state, 0)
    if action == REDUCE and st.head_of(state, s) == -1:
        return st.stack_get(state, st.STACK, 1), s
    return -1, -1


describe = ae.describe


def make(options: frozenset[str]) -> SystemKernels:
    return kernels_of_module("arc-eager-nm", sys.modules[__name__], options)
