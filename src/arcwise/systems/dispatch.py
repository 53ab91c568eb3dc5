"""Every transition system behind one set of compiled functions, selected by system id.

Compiled loops shared by all systems (the static-oracle walk, feature
extraction, parsing, training) call these with an `arcwise.systems.ids` id
instead of taking the kernels as function arguments, which numba cannot
cache.  A variant's option bits (`SystemKernels.options`) are given to
`initial` and then travel in the state's OPTIONS slot.
"""

from __future__ import annotations

from numba import njit

from arcwise.systems import arc_eager, arc_eager_nonmonotonic, arc_hybrid, covington
from arcwise.systems import covington_nonmonotonic, two_planar
from arcwise.systems.ids import ARC_EAGER, ARC_EAGER_NM, ARC_HYBRID, COVINGTON, COVINGTON_NM
from arcwise.systems.ids import TWO_PLANAR

ARC_EAGER_ACTIONS = len(arc_eager.ACTIONS)
ARC_EAGER_NM_ACTIONS = len(arc_eager_nonmonotonic.ACTIONS)
ARC_HYBRID_ACTIONS = len(arc_hybrid.ACTIONS)
COVINGTON_ACTIONS = len(covington.ACTIONS)
COVINGTON_NM_ACTIONS = len(covington_nonmonotonic.ACTIONS)
TWO_PLANAR_ACTIONS = len(two_planar.ACTIONS)
MAX_ACTIONS = max(
    ARC_EAGER_ACTIONS,
    ARC_EAGER_NM_ACTIONS,
    ARC_HYBRID_ACTIONS,
    COVINGTON_ACTIONS,
    COVINGTON_NM_ACTIONS,
    TWO_PLANAR_ACTIONS,
)


@njit(cache=True)
def n_actions(system):
    """Number of action ids of the system's kernels (the length of a legal mask)."""
    if system == ARC_EAGER:
        return ARC_EAGER_ACTIONS
    if system == ARC_EAGER_NM:
        return ARC_EAGER_NM_ACTIONS
    if system == ARC_HYBRID:
        return ARC_HYBRID_ACTIONS
    if system == COVINGTON:
        return COVINGTON_ACTIONS
    if system == COVINGTON_NM:
        return COVINGTON_NM_ACTIONS
    if system == TWO_PLANAR:
        return TWO_PLANAR_ACTIONS
    raise ValueError("unknown system id")


@njit(cache=True)
def initial(system, n, options):
    """Initial state of an n-word sentence; `options` = the variant's option bits."""
    if system == ARC_EAGER or system == ARC_EAGER_NM:
        return arc_eager.initial(n, options)
    if system == ARC_HYBRID:
        return arc_hybrid.initial(n, options)
    if system == COVINGTON or system == COVINGTON_NM:
        return covington.initial(n, options)
    if system == TWO_PLANAR:
        return two_planar.initial(n)
    raise ValueError("unknown system id")


@njit(cache=True)
def is_terminal(system, state):
    if system == ARC_EAGER or system == ARC_EAGER_NM:
        return arc_eager.is_terminal(state)
    if system == ARC_HYBRID:
        return arc_hybrid.is_terminal(state)
    if system == COVINGTON or system == COVINGTON_NM:
        return covington.is_terminal(state)
    if system == TWO_PLANAR:
        return two_planar.is_terminal(state)
    raise ValueError("unknown system id")


@njit(cache=True)
def legal(system, state, mask):
    """Fill the bool mask over every action id with what state allows (as the system's `legal`)."""
    if system == ARC_EAGER:
        arc_eager.legal(state, mask)
    elif system == ARC_EAGER_NM:
        arc_eager_nonmonotonic.legal(state, mask)
    elif system == ARC_HYBRID:
        arc_hybrid.legal(state, mask)
    elif system == COVINGTON:
        covington.legal(state, mask)
    elif system == COVINGTON_NM:
        covington_nonmonotonic.legal(state, mask)
    elif system == TWO_PLANAR:
        two_planar.legal(state, mask)
    else:
        raise ValueError("unknown system id")


@njit(cache=True)
def apply(system, state, action, label):
    """Apply action (with label, -1 = unlabeled) to state in place."""
    if system == ARC_EAGER:
        arc_eager.apply(state, action, label)
    elif system == ARC_EAGER_NM:
        arc_eager_nonmonotonic.apply(state, action, label)
    elif system == ARC_HYBRID:
        arc_hybrid.apply(state, action, label)
    elif system == COVINGTON:
        covington.apply(state, action, label)
    elif system == COVINGTON_NM:
        covington_nonmonotonic.apply(state, action, label)
    elif system == TWO_PLANAR:
        two_planar.apply(state, action, label)
    else:
        raise ValueError("unknown system id")


@njit(cache=True)
def arc(system, state, action):
    """(head, dependent) of the arc `action` would build in state, (-1, -1) if it builds none.

    Read before applying the action.  An arc transition changes the heads of
    no words but these two: the dependent's is set (replacing any, in the
    non-monotonic systems), and covington-nm deletes the head's own arc when
    the new arc would close a cycle.
    """
    if system == ARC_EAGER:
        return arc_eager.arc(state, action)
    if system == ARC_EAGER_NM:
        return arc_eager_nonmonotonic.arc(state, action)
    if system == ARC_HYBRID:
        return arc_hybrid.arc(state, action)
    if system == COVINGTON or system == COVINGTON_NM:
        return covington.arc(state, action)
    if system == TWO_PLANAR:
        return two_planar.arc(state, action)
    raise ValueError("unknown system id")
