"""Nivre's arc-eager parser (2011 paper, Figure 3) with the buffer transitions
of Fernández-González & Gómez-Rodríguez (2012 paper, §3.1 and §4.1).

A configuration (σ, β, A) starts as ([0], [1..n], {}) and is terminal when
the buffer is empty; words still headless then count as attached to 0.
REDUCE needs a head on the stack top (Figure 3), so a headless word is never
popped without an arc; there are no dead ends, since SHIFT is legal in every
non-terminal configuration.

Buffer nodes never have a head in this system (every arc transition removes
its dependent from the buffer), which is what keeps the buffer transitions
sound without extra preconditions (2012 paper, §3.1 and its footnote 1).
One invariant follows that the oracles use: the buffer is sorted, and a
word is in the buffer iff it is headless and not left of the buffer front.

Variants, by option name (``arc-eager+lba+rnba``)::

    lba   LEFT-BUFFER-ARC        (σ, i|j|β, A) => (σ, j|β, A ∪ {(j, i)})
    rba   RIGHT-BUFFER-ARC       (σ, i|j|β, A) => (σ, i|β, A ∪ {(i, j)})
    lnba  LEFT-NONPROJ-BUFFER-ARC  (σ|i, j|k|β, A) => (σ, j|k|β, A ∪ {(k, i)})
    rnba  RIGHT-NONPROJ-BUFFER-ARC (σ|i, j|k|β, A) => (σ|i, j|β, A ∪ {(i, k)})

Every kernel knows all eight actions; the variant's option bits live in the
OPTIONS header slot and `legal` masks the actions they do not enable.
"""

from __future__ import annotations

from functools import partial

from arcwise.core.jit import njit
from arcwise.systems import state as st
from arcwise.systems.base import SystemKernels
from arcwise.systems.positions import STACK_BASES
from arcwise.systems.positions import stack_base_positions as base_positions
from arcwise.systems.positions import stack_distance_words as distance_words
from arcwise.systems.positions import stack_focus_words as focus_words

SHIFT, LEFT_ARC, RIGHT_ARC, REDUCE, LBA, RBA, LNBA, RNBA = range(8)
ACTIONS = (
    "shift",
    "left-arc",
    "right-arc",
    "reduce",
    "left-buffer-arc",
    "right-buffer-arc",
    "left-nonproj-buffer-arc",
    "right-nonproj-buffer-arc",
)
LABELED = (False, True, True, False, True, True, True, True)

# The words a neural scorer reads (`arcwise.features.templates.compile_addresses`: a base
# position, then tree moves), by feature set name (`--neural features=NAME`).  "paper":
# Kiperwasser & Goldberg's (2016, §5) set as the 2018 paper (§4.2) reads it for arc-hybrid,
# the top 3 stack words and the buffer front with the leftmost and rightmost dependents of
# the stack words and the leftmost of the buffer front, and B1, which the buffer
# transitions touch; "compact": the words alone.
NEURAL_FEATURES = {
    "paper": ("S0", "S1", "S2", "B0", "B1",
              "S0.l", "S0.r", "S1.l", "S1.r", "S2.l", "S2.r", "B0.l"),
    "compact": ("S0", "S1", "S2", "B0", "B1"),
}
BASES = STACK_BASES  # the base positions its configurations fill (`base_positions`)

# Option bits (OPTIONS header slot) and the action each one enables.
OPTION_BITS = {"lba": 1, "rba": 2, "lnba": 4, "rnba": 8}
VARIANTS = tuple(OPTION_BITS)  # arc-eager+lba, ... (combinable)
OPTION_ACTION = {"lba": LBA, "rba": RBA, "lnba": LNBA, "rnba": RNBA}
HAS_LBA, HAS_RBA, HAS_LNBA, HAS_RNBA = 1, 2, 4, 8


@njit(cache=True)
def initial(n, options=0):
    """([0], [1..n], {})."""
    state = st.new_state(n, options)
    st.stack_push(state, st.STACK, 0)
    return state


@njit(cache=True)
def is_terminal(state):
    return state[st.BUFFER_LEN] == 0


@njit(cache=True)
def top(state):
    """(s, b, b1): stack top, buffer front and second buffer node (-1 when absent)."""
    return st.stack_get(state, st.STACK, 0), st.buffer_get(state, 0), st.buffer_get(state, 1)


@njit(cache=True)
def in_buffer(state, word):
    """Is `word` in the buffer?  O(1): it holds exactly the headless words from its front on."""
    b = st.buffer_get(state, 0)
    return b != -1 and word >= b and st.head_of(state, word) == -1


@njit(cache=True)
def legal(state, mask):
    s, b, b1 = top(state)
    options = state[st.OPTIONS]
    s_headless = s != -1 and st.head_of(state, s) == -1
    # Figure 3 preconditions.
    mask[SHIFT] = b != -1
    mask[LEFT_ARC] = b != -1 and s > 0 and s_headless
    mask[RIGHT_ARC] = b != -1 and s != -1
    mask[REDUCE] = s != -1 and not s_headless
    # 2012 paper §3.1 (no preconditions) and §4.1 (LNBA: i != 0, single head).
    mask[LBA] = (options & HAS_LBA) != 0 and b1 != -1
    mask[RBA] = (options & HAS_RBA) != 0 and b1 != -1
    mask[LNBA] = (options & HAS_LNBA) != 0 and b1 != -1 and s > 0 and s_headless
    mask[RNBA] = (options & HAS_RNBA) != 0 and b1 != -1 and s != -1


@njit(cache=True)
def shift(state):
    """(σ, i|β, A) => (σ|i, β, A)."""
    st.stack_push(state, st.STACK, st.buffer_pop(state))


@njit(cache=True)
def right_arc(state, label):
    """(σ|i, j|β, A) => (σ|i|j, β, A ∪ {(i, j)})."""
    i = st.stack_get(state, st.STACK, 0)
    j = st.buffer_pop(state)
    st.set_arc(state, i, j, label)
    st.stack_push(state, st.STACK, j)


@njit(cache=True)
def apply(state, action, label):
    s, b, b1 = top(state)
    if action == SHIFT:
        shift(state)
    elif action == LEFT_ARC:  # (σ|i, j|β, A) => (σ, j|β, A ∪ {(j, i)})
        st.stack_pop(state, st.STACK)
        st.set_arc(state, b, s, label)
    elif action == RIGHT_ARC:
        right_arc(state, label)
    elif action == REDUCE:  # (σ|i, β, A) => (σ, β, A)
        st.stack_pop(state, st.STACK)
    elif action == LBA:  # (σ, i|j|β, A) => (σ, j|β, A ∪ {(j, i)})
        st.buffer_pop(state)
        st.set_arc(state, b1, b, label)
    elif action == RBA:  # (σ, i|j|β, A) => (σ, i|β, A ∪ {(i, j)})
        st.buffer_remove(state, 1)
        st.set_arc(state, b, b1, label)
    elif action == LNBA:  # (σ|i, j|k|β, A) => (σ, j|k|β, A ∪ {(k, i)})
        st.stack_pop(state, st.STACK)
        st.set_arc(state, b1, s, label)
    else:  # RNBA: (σ|i, j|k|β, A) => (σ|i, j|β, A ∪ {(i, k)})
        st.buffer_remove(state, 1)
        st.set_arc(state, s, b1, label)
    state[st.PREVIOUS] = action


@njit(cache=True)
def arc(state, action):
    """(head, dependent) of the arc `action` builds in state, (-1, -1) for SHIFT and REDUCE."""
    s, b, b1 = top(state)
    if action == LEFT_ARC:
        return b, s
    if action == RIGHT_ARC:
        return s, b
    if action == LBA:
        return b1, b
    if action == RBA:
        return b, b1
    if action == LNBA:
        return b1, s
    if action == RNBA:
        return s, b1
    return -1, -1


def describe(state) -> dict:
    """σ and β as lists, for printing a configuration."""
    stack = [int(w) for w in st.region(state, st.STACK)[: state[st.STACK_LEN]]]
    buffer = [int(w) for w in st.region(state, st.BUFFER)[: state[st.BUFFER_LEN]][::-1]]
    return {"σ": stack, "β": buffer}


def option_bits(options: frozenset[str]) -> int:
    """The OPTIONS header bits of a set of buffer-transition names."""
    unknown = sorted(set(options) - set(OPTION_BITS))
    if unknown:
        raise ValueError(
            f"arc-eager has no variant +{'+'.join(unknown)}; "
            f"options are {', '.join('+' + o for o in OPTION_BITS)}"
        )
    return sum(OPTION_BITS[o] for o in options)


def make(options: frozenset[str]) -> SystemKernels:
    """arc-eager with the buffer transitions named in `options` (lba, rba, lnba, rnba).

    `initial` of a variant with buffer transitions is ``partial(initial,
    options=bits)`` (a Python callable); compiled loops that build their own
    initial states call ``initial(n, bits)``.
    """
    bits = option_bits(options)
    enabled = (SHIFT, LEFT_ARC, RIGHT_ARC, REDUCE) + tuple(
        OPTION_ACTION[o] for o in OPTION_BITS if o in options
    )
    name = "arc-eager" + "".join(f"+{o}" for o in OPTION_BITS if o in options)
    return SystemKernels(
        name=name,
        actions=ACTIONS,
        labeled=LABELED,
        enabled=enabled,
        initial=initial if bits == 0 else partial(initial, options=bits),
        is_terminal=is_terminal,
        legal=legal,
        apply=apply,
        arc=arc,
        describe=describe,
        options=bits,
    )
