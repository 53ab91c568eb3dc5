"""Covington's non-projective parser, monotonic (2017 paper, Figure 1; Nivre 2008).

A configuration <λ1, λ2, B, A> keeps λ1 · λ2 = [first .. j-1] contiguous, so
it is just the focus words: i = last word of λ1 in the FOCUS slot (first - 1
when λ1 is empty) and j = the buffer front.  Words left headless at the end
are attached to the root 0.

Variant ``+root`` (MaltParser's Covington with allow_root): the root 0 is an
ordinary word at the left end of λ1, so the initial configuration is
<[0], [], [1..n], {}> and first = 0 (FOCUS = -1 when λ1 is empty).  Root
arcs are then explicit Right-Arcs from i = 0; Left-Arc with i = 0 is never
legal (0 takes no head).  Without it (the paper's <[], [], [1..n], {}>),
first = 1, FOCUS = 0 when λ1 is empty, and root arcs are left implicit.
"""

from __future__ import annotations

import sys
from functools import partial

from arcwise.core.jit import njit
from arcwise.systems import state as st
from arcwise.systems.base import SystemKernels
from arcwise.systems.positions import CL, COVINGTON_BASES, CR, L0, R0

SHIFT, NO_ARC, LEFT_ARC, RIGHT_ARC = range(4)
ACTIONS = ("shift", "no-arc", "left-arc", "right-arc")
LABELED = (False, False, True, True)

WITH_ROOT = 1  # option bit (OPTIONS header slot): 0 is the first word of λ1


# The words a neural scorer reads (`arcwise.features.templates.compile_addresses`: a base
# position, then tree moves), by feature set name (`--neural features=NAME`).  "paper":
# Kiperwasser & Goldberg's (2016, §5) set carried over to Covington's lists, λ1 standing for
# the stack: the last 3 words of λ1 (L0 L1 L2) and the buffer front R0, the leftmost and
# rightmost dependents of the λ1 words and the leftmost dependent of R0; "compact": the
# focus words, their neighbours and the first and last words between the focus words whose
# head is not in [L0, R0] (CL, CR).
NEURAL_FEATURES = {
    "paper": ("L0", "L1", "L2", "R0",
              "L0.l", "L0.r", "L1.l", "L1.r", "L2.l", "L2.r", "R0.l"),
    "compact": ("L0", "L1", "R0", "R1", "CL", "CR"),
}
BASES = COVINGTON_BASES  # the base positions its configurations fill (`base_positions`)


@njit(cache=True)
def initial(n, options=0):
    """<[], [], [1..n], {}>; with +root <[0], [], [1..n], {}> (FOCUS = 0 in both)."""
    return st.new_state(n, options)


@njit(cache=True)
def is_terminal(state):
    return state[st.BUFFER_LEN] == 0


@njit(cache=True)
def first_word(state):
    """The leftmost word of λ1 · λ2: 0 with +root, else 1."""
    return 0 if state[st.OPTIONS] & WITH_ROOT else 1


@njit(cache=True)
def focus(state):
    """(i, j): the focus words; i < first_word when λ1 is empty, j = -1 when B is empty."""
    return state[st.FOCUS], st.buffer_get(state, 0)


@njit(cache=True)
def base_positions(state, out):
    """L0..L2, R0..R2, CL, CR (2017 paper, Table 2; `arcwise.systems.positions`)."""
    n = state[st.N]
    i, j = focus(state)
    lambda1_positions(state, i, out)
    if j != -1:
        for k in range(3):
            out[R0 + k] = j + k if j + k <= n else -1
    if i >= first_word(state) and j != -1:
        heads = st.HEADER + st.HEADS * (n + 1)  # heads[0] in the state array
        for k in range(i + 1, j):
            h = state[heads + k]
            if h < i or h > j:
                if out[CL] == -1:
                    out[CL] = k
                out[CR] = k


@njit(cache=True)
def lambda1_positions(state, i, out):
    """L0, L1, L2 = i, i - 1, i - 2: the last words of λ1 = [first .. i], -1 past its start."""
    first = first_word(state)
    for k in range(3):
        out[L0 + k] = i - k if i - k >= first else -1


@njit(cache=True)
def focus_words(positions):
    """L0 and R0."""
    return positions[L0], positions[R0]


@njit(cache=True)
def distance_words(state, positions):
    """L0 and R0."""
    return positions[L0], positions[R0]


@njit(cache=True)
def legal(state, mask):
    i, j = focus(state)
    has_i = i >= first_word(state)
    mask[SHIFT] = j != -1
    mask[NO_ARC] = has_i
    # Figure 1: single-head and acyclicity preconditions (and 0 takes no head).
    mask[LEFT_ARC] = (
        i > 0 and j != -1 and st.head_of(state, i) == -1 and not st.reaches(state, i, j)
    )
    mask[RIGHT_ARC] = (
        has_i and j != -1 and st.head_of(state, j) == -1 and not st.reaches(state, j, i)
    )


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


@njit(cache=True)
def arc(state, action):
    """(head, dependent) of the arc `action` builds in state, (-1, -1) for SHIFT and NO-ARC
    (the same in the non-monotonic system, whose arcs may also replace others)."""
    i, j = focus(state)
    if action == LEFT_ARC:
        return j, i
    if action == RIGHT_ARC:
        return i, j
    return -1, -1


def describe(state) -> dict:
    """λ1, λ2 and B as lists, for printing a configuration."""
    i, j = focus(state)
    j_end = j if j != -1 else state[st.N] + 1
    buffer = [int(w) for w in st.region(state, st.BUFFER)[: state[st.BUFFER_LEN]][::-1]]
    λ1 = list(range(first_word(state), i + 1))
    return {"λ1": λ1, "λ2": list(range(i + 1, j_end)), "B": buffer}


VARIANTS = ("root",)  # covington+root


def option_bits(name: str, options: frozenset[str]) -> int:
    """The OPTIONS header bits of a Covington variant (only ``root``)."""
    unknown = sorted(set(options) - set(VARIANTS))
    if unknown:
        raise ValueError(f"{name} has only the variant +root, got +{'+'.join(unknown)}")
    return WITH_ROOT if "root" in options else 0


def kernels_of(name: str, module, options: frozenset[str]) -> SystemKernels:
    """The kernels of a Covington system module (this one or the non-monotonic one)."""
    bits = option_bits(name, options)
    return SystemKernels(
        name=name + ("+root" if bits else ""),
        actions=ACTIONS,
        labeled=LABELED,
        enabled=tuple(range(len(ACTIONS))),
        initial=initial if bits == 0 else partial(initial, options=bits),
        is_terminal=is_terminal,
        legal=module.legal,
        apply=module.apply,
        arc=module.arc,
        describe=describe,
        options=bits,
    )


def make(options: frozenset[str]) -> SystemKernels:
    return kernels_of("covington", sys.modules[__name__], options)
