"""Non-local Covington, non-monotonic: covington-nl's transitions with covington-nm's arcs.

Not in the 2018 paper, which kept Covington monotonic.  The configurations, Shift and
the action ids are those of `arcwise.systems.covington_nonlocal`; Left-Arc_k and
Right-Arc_k drop the single-head and acyclicity preconditions and, as in the 2017
paper's Figure 2 (`arcwise.systems.covington_nonmonotonic`), the new arc replaces the
dependent's head and deletes the arc that it would close a cycle with::

    Left-Arc_k   <λ1|i_k|...|i_1, λ2, j|B, A>  =>  <λ1, i_k|...|i_1|λ2, j|B, A'>
                 A' = A ∪ {j → i_k} \\ {x → i_k} \\ {x → j | i_k →* x}
    Right-Arc_k  <λ1|i_k|...|i_1, λ2, j|B, A>  =>  <λ1, i_k|...|i_1|λ2, j|B, A'>
                 A' = A ∪ {i_k → j} \\ {x → j} \\ {x → i_k | j →* x}

Left-Arc_k is k - 1 No-Arcs then covington-nm's Left-Arc (Right-Arc_k likewise), so from
every configuration this system reaches what covington-nm reaches.  Variant ``+root`` as
covington-nm's (Left-Arc_k with i_k = 0 is never legal).
"""

from __future__ import annotations

import sys

from arcwise.core.jit import njit
from arcwise.systems import covington_nonlocal as nl
from arcwise.systems import state as st
from arcwise.systems.base import SystemKernels
from arcwise.systems.covington import (
    BASES,
    NEURAL_FEATURES,
    base_positions,
    distance_words,
    first_word,
    focus,
    focus_words,
    initial,
    is_terminal,
    shift,
)
from arcwise.systems.covington_nonlocal import (
    ACTIONS,
    LABELED,
    SHIFT,
    arc,
    attached,
    left_arc,
    n_actions,
    right_arc,
)
from arcwise.systems.covington_nonmonotonic import attach

VARIANTS = ("root",)  # covington-nl-nm+root

# what the compiled dispatch reads here, covington and covington-nl kernels included
__all__ = ["ACTIONS", "BASES", "LABELED", "NEURAL_FEATURES", "apply", "arc", "base_positions",
           "distance_words", "focus_words", "initial", "is_terminal", "legal", "make",
           "n_actions"]


@njit(cache=True)
def legal(state, mask):
    i, j = focus(state)
    mask[:] = False
    mask[SHIFT] = j != -1
    if j == -1:
        return
    for x in range(i, first_word(state) - 1, -1):  # x = i_k, k = i - x + 1
        mask[left_arc(i - x + 1)] = x > 0  # 0 takes no head
        mask[right_arc(i - x + 1)] = True


@njit(cache=True)
def apply(state, action, label):
    if action == SHIFT:
        shift(state)
    else:
        head, dependent = arc(state, action)
        attach(state, head, dependent, label)
        state[st.FOCUS] = attached(state, action) - 1  # i_k .. i_1 move to λ2
    state[st.PREVIOUS] = action


def make(options: frozenset[str]) -> SystemKernels:
    return nl.kernels_of("covington-nl-nm", sys.modules[__name__], options)
