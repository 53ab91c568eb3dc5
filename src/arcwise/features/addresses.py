"""The base positions of a configuration: the words feature templates start from.

`base_positions` fills one word index (or -1: no such word) per base code
(the index in `BASE_NAMES`); codes a system does not use stay -1.  Each
system fills its own (`arcwise.systems.positions` defines them: Covington's
L0..R2, CL, CR of the 2017 paper's Table 2; the stack systems' S0..S2,
B0..B3, T0, T1); this module adds, for every system (an addition to the
papers' tables), IL / IR = the inner string neighbours left + 1 and
right - 1 of the two focus words (Covington L0, R0; stack systems S0, B0),
when both lie strictly between them: the surrounding-PoS context of an arc
that graph-based parsers read (McDonald, Crammer & Pereira 2005).
"""

from __future__ import annotations

from arcwise.core.jit import njit
from arcwise.dispatch import systems
from arcwise.systems import state as st
from arcwise.systems.positions import (  # noqa: F401 (the names of the bases, here for features)
    B0,
    B1,
    B2,
    B3,
    BASE_NAMES,
    CL,
    COVINGTON_BASES,
    CR,
    IL,
    INACTIVE_STACK_BASES,
    INNER_BASES,
    IR,
    L0,
    L1,
    L2,
    N_BASES,
    R0,
    R1,
    R2,
    S0,
    S1,
    S2,
    STACK_BASES,
    T0,
    T1,
)

NO_DISTANCE = 0  # `focus_distance` when a focus word is missing


@njit(cache=True)
def heads_offset(state):
    """Index of heads[0] in the state array."""
    return st.HEADER + st.HEADS * (state[st.N] + 1)


@njit(cache=True, literal=("system_id",))
def focus_words(system_id, positions):
    """The system's two focus words (-1 if missing): Covington L0, R0; stack systems S0, B0."""
    return systems.focus_words(system_id, positions)


@njit(cache=True, literal=("system_id",))
def base_positions(system_id, state, out):
    """Fill out[code] (int array of N_BASES) with the word at each base position, -1 if none."""
    out[:] = -1
    systems.base_positions(system_id, state, out)
    left, right = systems.focus_words(system_id, out)
    inner_positions(left, right, out)


@njit(cache=True)
def inner_positions(left, right, out):
    """out[IL], out[IR] = left + 1, right - 1, the inner neighbours of the focus words left
    and right, when both lie strictly between them; -1 otherwise."""
    inner = left != -1 and left + 1 < right
    out[IL] = left + 1 if inner else -1
    out[IR] = right - 1 if inner else -1


@njit(cache=True)
def distance_bucket(distance):
    """1, 2, 3, 4, 5 (5-9), 6 (10+), with the sign of `distance`."""
    size = abs(distance)
    bucket = size if size < 5 else (5 if size < 10 else 6)
    return bucket if distance >= 0 else -bucket


@njit(cache=True, literal=("system_id",))
def focus_distance(system_id, state, positions):
    """The signed, bucketed distance from the left to the right focus word.

    Covington: L0 -> R0; stack systems: S0 -> B0 (negative when B0 precedes S0,
    as after arc-hybrid's SWAP; arc-hybrid's root at the buffer end counts as
    position n + 1).  `NO_DISTANCE` when a focus word is missing.
    """
    left, right = systems.distance_words(system_id, state, positions)
    if left == -1 or right == -1:
        return NO_DISTANCE
    return distance_bucket(right - left)
