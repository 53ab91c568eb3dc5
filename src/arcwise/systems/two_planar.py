"""The 2-Planar parser (2018 paper, Figure 1; Gómez-Rodríguez & Nivre 2010).

A configuration <Σ1, Σ2, B, A> has an active stack Σ1 and an inactive stack
Σ2, each tied to one plane of the output.  The stacks stay in place and a flag
says which one is active: STACK holds plane 0's stack, STACK2 plane 1's, FOCUS
is the active plane (0 first), so Switch flips FOCUS.  MARKS[d] records the
plane in which the arc to d was built (-1 while d has no head), which the
dynamic oracle needs.  PREVIOUS holds the last action: two consecutive
Switches are forbidden, which makes every derivation finite.

As in the paper the parser starts at <[], [], [1..n], {}>: node 0 is never on
a stack and root arcs are implicit (words left headless attach to 0).
"""

from __future__ import annotations

import sys

from arcwise.core.jit import njit
from arcwise.systems import state as st
from arcwise.systems.base import SystemKernels, kernels_of_module
from arcwise.systems.positions import INACTIVE_STACK_BASES, STACK_BASES, T0, T1, stack_and_buffer
from arcwise.systems.positions import stack_distance_words as distance_words
from arcwise.systems.positions import stack_focus_words as focus_words

SHIFT, REDUCE, LEFT_ARC, RIGHT_ARC, SWITCH = range(5)
ACTIONS = ("shift", "reduce", "left-arc", "right-arc", "switch")
LABELED = (False, False, True, True, False)


# The words a neural scorer reads (`arcwise.features.templates.compile_addresses`: a base
# position, then tree moves), by feature set name (`--neural features=NAME`).  "paper": the
# 2018 paper's §4.2, after Kiperwasser & Goldberg 2016: the top 3 words of the active stack,
# the buffer front, the top 2 of the inactive stack, the leftmost and rightmost dependents
# of those stack words and the leftmost dependent of the buffer front; "compact": the tops
# of both stacks and the buffer front.
NEURAL_FEATURES = {
    "paper": ("S0", "S1", "S2", "B0", "T0", "T1",
              "S0.l", "S0.r", "S1.l", "S1.r", "S2.l", "S2.r", "T0.l", "T0.r", "T1.l", "T1.r",
              "B0.l"),
    "compact": ("S0", "S1", "T0", "T1", "B0"),
}
BASES = STACK_BASES + INACTIVE_STACK_BASES  # the base positions it fills (`base_positions`)


@njit(cache=True)
def initial(n):
    """<[], [], [1..n], {}>, plane 0 active."""
    state = st.new_state(n, 0)
    st.region(state, st.MARKS)[:] = -1
    return state


@njit(cache=True)
def is_terminal(state):
    return state[st.BUFFER_LEN] == 0


@njit(cache=True)
def stack_of(plane):
    """The state region holding the stack of a plane."""
    return st.STACK if plane == 0 else st.STACK2


@njit(cache=True)
def active_plane(state):
    return state[st.FOCUS]


@njit(cache=True)
def tops(state):
    """(s, t, j): tops of the active and inactive stacks and the buffer front, -1 if empty."""
    p = state[st.FOCUS]
    return (
        st.stack_get(state, stack_of(p), 0),
        st.stack_get(state, stack_of(1 - p), 0),
        st.buffer_get(state, 0),
    )


@njit(cache=True)
def base_positions(state, out):
    """S0..S2 of the active stack, B0..B3, T0, T1 of the inactive stack."""
    active = active_plane(state)
    stack_and_buffer(state, stack_of(active), out)
    inactive = stack_of(1 - active)
    out[T0] = st.stack_get(state, inactive, 0)
    out[T1] = st.stack_get(state, inactive, 1)


@njit(cache=True)
def legal(state, mask):
    i, _, j = tops(state)
    mask[SHIFT] = j != -1
    mask[REDUCE] = i != -1
    # Figure 1: single-head and acyclicity preconditions.
    both = i != -1 and j != -1
    mask[LEFT_ARC] = both and st.head_of(state, i) == -1 and not st.reaches(state, i, j)
    mask[RIGHT_ARC] = both and st.head_of(state, j) == -1 and not st.reaches(state, j, i)
    mask[SWITCH] = state[st.PREVIOUS] != SWITCH


@njit(cache=True)
def build(state, head, dependent, label):
    """Add head -> dependent in the active plane."""
    st.set_arc(state, head, dependent, label)
    st.region(state, st.MARKS)[dependent] = state[st.FOCUS]


@njit(cache=True)
def apply(state, action, label):
    p = state[st.FOCUS]
    i, _, j = tops(state)
    if action == SHIFT:  # <Σ1, Σ2, wi|B> => <Σ1|wi, Σ2|wi, B>
        w = st.buffer_pop(state)
        st.stack_push(state, st.STACK, w)
        st.stack_push(state, st.STACK2, w)
    elif action == REDUCE:  # <Σ1|wi, Σ2, B> => <Σ1, Σ2, B>
        st.stack_pop(state, stack_of(p))
        # clear the freed cell: equal configurations are equal arrays
        st.region(state, stack_of(p))[st.stack_len(state, stack_of(p))] = 0
    elif action == LEFT_ARC:  # <Σ1|wi, Σ2, wj|B> => ..., A ∪ {wj -> wi}
        build(state, j, i, label)
    elif action == RIGHT_ARC:  # <Σ1|wi, Σ2, wj|B> => ..., A ∪ {wi -> wj}
        build(state, i, j, label)
    else:  # SWITCH: <Σ1, Σ2, B> => <Σ2, Σ1, B>
        state[st.FOCUS] = 1 - p
    state[st.PREVIOUS] = action


@njit(cache=True)
def arc(state, action):
    """(head, dependent) of the arc `action` builds in state, (-1, -1) if none."""
    i, _, j = tops(state)
    if action == LEFT_ARC:
        return j, i
    if action == RIGHT_ARC:
        return i, j
    return -1, -1


def describe(state) -> dict:
    """Active and inactive stacks (bottom first) and the buffer, for printing."""
    p = int(state[st.FOCUS])

    def stack(plane):
        which = stack_of(plane)
        return [int(w) for w in st.region(state, which)[: st.stack_len(state, which)]]

    buffer = [int(w) for w in st.region(state, st.BUFFER)[: state[st.BUFFER_LEN]][::-1]]
    return {"active": p, "Σ1": stack(p), "Σ2": stack(1 - p), "B": buffer}


def make(options: frozenset[str]) -> SystemKernels:
    return kernels_of_module("two-planar", sys.modules[__name__], options)
