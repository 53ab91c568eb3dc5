"""The arc-hybrid parser (Kuhlmann, Gómez-Rodríguez & Satta 2011) and its
Swap extension (de Lhoneux, Stymne & Nivre 2017).

The root 0 sits at the *end* of the buffer, as in de Lhoneux et al. (2017),
Kiperwasser & Goldberg (2016) and Ballesteros & Nivre (2013), so that
root attachments are decided last::

    initial   ([], [1..n, 0], {})        terminal  ([], [0], A)

    SHIFT      (σ, b|β, A)      => (σ|b, β, A)                 b ≠ 0
    LEFT-ARC   (σ|s0, b|β, A)   => (σ, b|β, A ∪ {b -> s0})
    RIGHT-ARC  (σ|s1|s0, β, A)  => (σ|s1, β, A ∪ {s1 -> s0})
    SWAP       (σ|s0, b|β, A)   => (σ, b|s0|β, A)               0 < s0 < b

LEFT-ARC with b = 0 attaches s0 to the root and may be repeated, so a tree
may have several root dependents.  Every word is popped by an arc, so a
terminal configuration has a head for every word (the API's loss convention
of headless words attached to 0 never comes into play).  There are no dead
ends: LEFT-ARC is legal whenever the stack is not empty, SHIFT whenever it
is and the configuration is not terminal.

SWAP is Nivre's (2009) swap seen from arc-hybrid: the pair an arc-hybrid
arc joins is (s0, b), where arc-standard joins (s1, s0), so the word moved
back is s0 and it goes behind b.  Its precondition (the two words still in
sentence order) lets each pair of words be swapped at most once, since SWAP
leaves them inverted and no transition restores the order; so a derivation
has at most n(n-1)/2 swaps, n + n(n-1)/2 shifts and n arcs: O(n²).

marks[w] holds 1 + w's depth from the stack bottom while w is on the stack,
0 otherwise, so "is w on the stack, and just above v?" is O(1).
"""

from __future__ import annotations

from arcwise.core.jit import njit
from arcwise.systems import state as st
from arcwise.systems.base import SystemKernels
from arcwise.systems.positions import B0, S0, STACK_BASES
from arcwise.systems.positions import stack_base_positions as base_positions
from arcwise.systems.positions import stack_focus_words as focus_words

SHIFT, LEFT_ARC, RIGHT_ARC, SWAP = range(4)
ACTIONS = ("shift", "left-arc", "right-arc", "swap")
LABELED = (False, True, True, False)

HAS_SWAP = 1  # option bit in the OPTIONS header slot


# The words a neural scorer reads (`arcwise.features.templates.compile_addresses`: a base
# position, then tree moves), by feature set name (`--neural features=NAME`).  "paper":
# Kiperwasser & Goldberg 2016 (§5) as the 2018 paper (§4.2) reads them, the top 3 stack
# words and the buffer front, the leftmost and rightmost dependents of the stack words and
# the leftmost dependent of the buffer front; "compact": the words alone.
NEURAL_FEATURES = {
    "paper": ("S0", "S1", "S2", "B0", "S0.l", "S0.r", "S1.l", "S1.r", "S2.l", "S2.r", "B0.l"),
    "compact": ("S0", "S1", "S2", "B0"),
}
BASES = STACK_BASES  # the base positions its configurations fill (`base_positions`)


@njit(cache=True)
def distance_words(state, positions):
    """S0 and B0, the root at the buffer's end counting as word n + 1."""
    right = positions[B0]
    if right == 0:
        right = state[st.N] + 1
    return positions[S0], right


@njit(cache=True)
def initial(n, options=0):
    """([], [1..n, 0], {}): the root waits at the end of the buffer."""
    state = st.new_state(n, options)
    buffer = st.region(state, st.BUFFER)
    for k in range(n, 0, -1):  # reversed: the front (word 1) is the last cell
        buffer[k] = n + 1 - k
    buffer[0] = 0
    state[st.BUFFER_LEN] = n + 1
    return state


@njit(cache=True)
def initial_with_swap(n):
    return initial(n, HAS_SWAP)


@njit(cache=True)
def is_terminal(state):
    """([], [0], A)."""
    return state[st.STACK_LEN] == 0 and state[st.BUFFER_LEN] == 1


@njit(cache=True)
def top(state):
    """(s1, s0, b): the second and top stack words and the buffer front (-1 = none)."""
    s1 = st.stack_get(state, st.STACK, 1)
    s0 = st.stack_get(state, st.STACK, 0)
    return s1, s0, st.buffer_get(state, 0)


@njit(cache=True)
def stack_depth(state, word):
    """1 + w's position from the stack bottom while w is on the stack, else 0."""
    return state[st.HEADER + st.MARKS * (state[st.N] + 1) + word]


@njit(cache=True)
def legal(state, mask):
    s1, s0, b = top(state)
    mask[SHIFT] = b > 0
    mask[LEFT_ARC] = s0 != -1
    mask[RIGHT_ARC] = s1 != -1
    mask[SWAP] = (state[st.OPTIONS] & HAS_SWAP) != 0 and 0 < s0 < b


@njit(cache=True)
def push(state, word):
    st.stack_push(state, st.STACK, word)
    st.region(state, st.MARKS)[word] = state[st.STACK_LEN]


@njit(cache=True)
def pop(state):
    word = st.stack_pop(state, st.STACK)
    st.region(state, st.MARKS)[word] = 0
    return word


@njit(cache=True)
def apply(state, action, label):
    s1, s0, b = top(state)
    if action == SHIFT:  # (σ, b|β) => (σ|b, β)
        push(state, st.buffer_pop(state))
    elif action == LEFT_ARC:  # (σ|s0, b|β) => (σ, b|β), b -> s0
        st.set_arc(state, b, pop(state), label)
    elif action == RIGHT_ARC:  # (σ|s1|s0, β) => (σ|s1, β), s1 -> s0
        st.set_arc(state, s1, pop(state), label)
    else:  # SWAP: (σ|s0, b|β) => (σ, b|s0|β)
        st.buffer_pop(state)
        st.buffer_push(state, pop(state))
        st.buffer_push(state, b)
    state[st.PREVIOUS] = action


@njit(cache=True)
def arc(state, action):
    """(head, dependent) of the arc `action` builds in state, (-1, -1) for SHIFT and SWAP."""
    s1, s0, b = top(state)
    if action == LEFT_ARC:
        return b, s0
    if action == RIGHT_ARC:
        return s1, s0
    return -1, -1


def describe(state) -> dict:
    """σ and β as lists, for printing a configuration."""
    stack = [int(w) for w in st.region(state, st.STACK)[: state[st.STACK_LEN]]]
    buffer = [int(w) for w in st.region(state, st.BUFFER)[: state[st.BUFFER_LEN]][::-1]]
    return {"σ": stack, "β": buffer}


VARIANTS = ("swap",)  # arc-hybrid+swap


def make(options: frozenset[str]) -> SystemKernels:
    """arc-hybrid, or arc-hybrid+swap."""
    unknown = options - set(VARIANTS)
    if unknown:
        raise ValueError(f"arc-hybrid has only the variant +swap, got +{'+'.join(sorted(unknown))}")
    swap = "swap" in options
    return SystemKernels(
        name="arc-hybrid+swap" if swap else "arc-hybrid",
        actions=ACTIONS,
        labeled=LABELED,
        enabled=(SHIFT, LEFT_ARC, RIGHT_ARC, SWAP) if swap else (SHIFT, LEFT_ARC, RIGHT_ARC),
        initial=initial_with_swap if swap else initial,
        is_terminal=is_terminal,
        legal=legal,
        apply=apply,
        arc=arc,
        describe=describe,
        options=HAS_SWAP if swap else 0,
    )
