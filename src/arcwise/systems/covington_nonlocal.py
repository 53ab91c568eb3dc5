"""Non-local Covington (Fernández-González & Gómez-Rodríguez 2018, Figure 1).

Covington's non-projective parser (`arcwise.systems.covington`) without No-Arc: its
arc transitions take a parameter k and link the right focus word j with the k-th word
of λ1 counted from its end, i_k, moving i_k and the k - 1 words right of it to λ2::

    Shift        <λ1, λ2, j|B, A>                  =>  <λ1·λ2|j, [], B, A>
    Left-Arc_k   <λ1|i_k|...|i_1, λ2, j|B, A>      =>  <λ1, i_k|...|i_1|λ2, j|B, A ∪ {j → i_k}>
                 only if ∄x: x → i_k ∈ A (single head) and i_k →* j ∉ A (acyclicity)
    Right-Arc_k  <λ1|i_k|...|i_1, λ2, j|B, A>      =>  <λ1, i_k|...|i_1|λ2, j|B, A ∪ {i_k → j}>
                 only if ∄x: x → j ∈ A (single head) and j →* i_k ∉ A (acyclicity)

from <[], [], [1..n], {}> to a terminal <λ1, λ2, [], A>.  As in Covington, a Right-Arc_k
leaves j at the front of the buffer (the focus moves left): a word left of i_k may still be
j's dependent (so does the authors' implementation, danifg/Non-Local-Covington on GitHub,
`NewCovington.advance`, whose static oracle is also this one: the nearest word of λ1
linked to j in the gold tree, else Shift).  Left-Arc_k is Covington's Left-Arc after k - 1 No-Arcs (Right-Arc_k
likewise), and No-Arcs before a Shift change nothing, so the two systems reach the same
configurations and derive the same trees -- every tree -- the non-local one in at most
2n transitions (n Shifts and an arc per word) instead of O(n²).

The configurations are Covington's (λ1 · λ2 = [first .. j-1] is contiguous, FOCUS = i_1),
so an arc transition sets FOCUS to i_k - 1.  Action ids
(`arcwise.systems.base.ParameterisedActions`): 0 = shift, 2k - 1 = left-arc-k,
2k = right-arc-k for k = 1 .. n (λ1 never holds more than n words): 2n + 1 ids for an
n-word sentence, each naming the same transition in every sentence.

Variant ``+root`` as Covington's: 0 is the first word of λ1, root arcs are Right-Arc_k with
i_k = 0, and Left-Arc_k with i_k = 0 is never legal.
"""

from __future__ import annotations

import sys
from functools import partial

from arcwise.core.jit import njit
from arcwise.systems import state as st
from arcwise.systems.base import ParameterisedActions, SystemKernels
from arcwise.systems.covington import (
    BASES,
    NEURAL_FEATURES,
    base_positions,
    describe,
    distance_words,
    first_word,
    focus,
    focus_words,
    initial,
    is_terminal,
    lambda1_positions,
    option_bits,
    shift,
)
from arcwise.systems.positions import CL, CR

SHIFT, LEFT_ARC, RIGHT_ARC = range(3)  # the transition kinds, also the ids of k = 1
ACTIONS = ("shift", "left-arc", "right-arc")  # the transition kinds; ids carry k (see above)
LABELED = (False, True, True)
VARIANTS = ("root",)  # covington-nl+root

# what the compiled dispatch reads here, Covington's shared kernels included
__all__ = ["BASES", "NEURAL_FEATURES", "base_positions", "distance_words", "focus_words",
           "initial", "is_terminal", "legal", "apply", "arc", "n_actions", "make"]


@njit(cache=True)
def n_actions(n):
    """Action ids of an n-word sentence: shift, then left-arc-k and right-arc-k, k <= n."""
    return 2 * n + 1


@njit(cache=True)
def left_arc(k):
    return 2 * k - 1


@njit(cache=True)
def right_arc(k):
    return 2 * k


@njit(cache=True)
def kind(action):
    """SHIFT, LEFT_ARC or RIGHT_ARC: the kind of an action id."""
    return action if action <= RIGHT_ARC else RIGHT_ARC - action % 2


@njit(cache=True)
def parameter(action):
    """k of an arc transition's id (left-arc-k, right-arc-k)."""
    return (action + 1) // 2


@njit(cache=True)
def attached(state, action):
    """i_k, the word of λ1 that arc transition `action` links with j: i_1 - k + 1."""
    return state[st.FOCUS] - (action + 1) // 2 + 1


@njit(cache=True)
def legal(state, mask):
    i, j = focus(state)
    mask[:] = False
    mask[SHIFT] = j != -1
    if j == -1:
        return
    j_headless = st.head_of(state, j) == -1
    for x in range(i, first_word(state) - 1, -1):  # x = i_k, k = i - x + 1
        k = i - x + 1
        # Figure 1: single-head and acyclicity preconditions (and 0 takes no head)
        mask[left_arc(k)] = x > 0 and st.head_of(state, x) == -1 and not st.reaches(state, x, j)
        mask[right_arc(k)] = j_headless and not st.reaches(state, j, x)


@njit(cache=True)
def arc(state, action):
    """(head, dependent) of the arc `action` builds in state, (-1, -1) for Shift and for a
    k beyond λ1."""
    x, j = attached(state, action), st.buffer_get(state, 0)
    if action == SHIFT or x < first_word(state) or j == -1:
        return -1, -1
    if action % 2 == 1:
        return j, x
    return x, j


@njit(cache=True)
def apply(state, action, label):
    if action == SHIFT:
        shift(state)
    else:
        head, dependent = arc(state, action)
        st.set_arc(state, head, dependent, label)
        state[st.FOCUS] = attached(state, action) - 1  # i_k .. i_1 move to λ2
    state[st.PREVIOUS] = action


@njit(cache=True)
def candidate_positions(state, x, out):
    """Covington's base positions (`arcwise.systems.covington.base_positions`) with i_k = x
    as the focus, that is of the configuration Covington reaches after k - 1 No-Arcs, into
    out, which holds this configuration's: L0..L2 move to x, R0..R2 stay, and CL, CR are
    left out (-1: finding them scans the words between x and j)."""
    lambda1_positions(state, x, out)
    out[CL] = -1
    out[CR] = -1


PARAMETERISED = ParameterisedActions(plain=("shift",), families=("left-arc", "right-arc"),
                                     n_actions=n_actions)


def kernels_of(name: str, module, options: frozenset[str]) -> SystemKernels:
    """The kernels of a non-local Covington system module (this one or the non-monotonic
    one): its legal, apply and arc, with this module's actions."""
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
        parameterised=PARAMETERISED,
    )


def make(options: frozenset[str]) -> SystemKernels:
    return kernels_of("covington-nl", sys.modules[__name__], options)
