"""The base positions of a configuration, per system: the words feature templates start from.

`base_positions` fills one word index (or -1: no such word) per base code
(the index in `BASE_NAMES`); codes a system does not use stay -1.

- Covington (2017 paper, Table 2): L0 = i, the last word of λ1 (none when λ1
  is empty), L1 = i-1, L2 = i-2 (the words left of L0; λ1 = [1..i], or
  [0..i] with +root, where L0 = 0 is the root word); R0 = j,
  the buffer front, R1 = j+1, R2 = j+2 (the words right of it; B = [j..n]);
  CL / CR = the first / last word strictly between L0 and R0 whose head is not
  in [L0, R0] (a headless word counts); none unless both L0 and R0 exist.
- Every system (an addition to the papers' tables): IL / IR = the inner
  string neighbours left + 1 and right - 1 of the two focus words (Covington
  L0, R0; stack systems S0, B0), when both lie strictly between them: the
  surrounding-PoS context of an arc that graph-based parsers read
  (McDonald, Crammer & Pereira 2005).
- Stack systems: S0, S1, S2 = the stack from the top (2-Planar: the active
  stack), B0..B3 = the buffer from the front, T0, T1 = 2-Planar's inactive
  stack from the top.  The root 0 is a word like the others where a system
  puts it on the stack (arc-eager) or at the end of the buffer (arc-hybrid).
"""

from __future__ import annotations

from numba import njit

from arcwise.systems import covington, ids
from arcwise.systems import state as st
from arcwise.systems import two_planar

INNER_BASES = ("IL", "IR")  # every system
COVINGTON_BASES = ("L0", "L1", "L2", "R0", "R1", "R2", "CL", "CR") + INNER_BASES
STACK_BASES = ("S0", "S1", "S2", "B0", "B1", "B2", "B3") + INNER_BASES
INACTIVE_STACK_BASES = ("T0", "T1")  # 2-Planar
BASE_NAMES = ("L0", "L1", "L2", "R0", "R1", "R2", "CL", "CR", "S0", "S1", "S2", "B0", "B1", "B2",
              "B3", "T0", "T1") + INNER_BASES  # a base's code is its index
N_BASES = len(BASE_NAMES)
L0, L1, L2, R0, R1, R2, CL, CR, S0, S1, S2, B0, B1, B2, B3, T0, T1, IL, IR = range(N_BASES)

NO_DISTANCE = 0  # `focus_distance` when a focus word is missing


@njit(cache=True)
def heads_offset(state):
    """Index of heads[0] in the state array."""
    return st.HEADER + st.HEADS * (state[st.N] + 1)


@njit(cache=True)
def _covington(state, out):
    n = state[st.N]
    i, j = covington.focus(state)
    first = covington.first_word(state)
    if i >= first:
        for k in range(3):
            out[L0 + k] = i - k if i - k >= first else -1
    if j != -1:
        for k in range(3):
            out[R0 + k] = j + k if j + k <= n else -1
    if i >= first and j != -1:
        heads = heads_offset(state)
        for k in range(i + 1, j):
            h = state[heads + k]
            if h < i or h > j:
                if out[CL] == -1:
                    out[CL] = k
                out[CR] = k


@njit(cache=True)
def _stack_and_buffer(state, stack, out):
    for k in range(3):
        out[S0 + k] = st.stack_get(state, stack, k)
    for k in range(4):
        out[B0 + k] = st.buffer_get(state, k)


@njit(cache=True)
def focus_words(system_id, positions):
    """The system's two focus words (-1 if missing): Covington L0, R0; stack systems S0, B0."""
    if system_id == ids.COVINGTON or system_id == ids.COVINGTON_NM:
        return positions[L0], positions[R0]
    return positions[S0], positions[B0]


@njit(cache=True)
def base_positions(system_id, state, out):
    """Fill out[code] (int array of N_BASES) with the word at each base position, -1 if none."""
    out[:] = -1
    if system_id == ids.COVINGTON or system_id == ids.COVINGTON_NM:
        _covington(state, out)
    elif system_id == ids.TWO_PLANAR:
        active = two_planar.active_plane(state)
        _stack_and_buffer(state, two_planar.stack_of(active), out)
        inactive = two_planar.stack_of(1 - active)
        out[T0] = st.stack_get(state, inactive, 0)
        out[T1] = st.stack_get(state, inactive, 1)
    else:  # arc-eager, arc-eager-nm, arc-hybrid
        _stack_and_buffer(state, st.STACK, out)
    left, right = focus_words(system_id, out)
    if left != -1 and left + 1 < right:
        out[IL] = left + 1
        out[IR] = right - 1


@njit(cache=True)
def distance_bucket(distance):
    """1, 2, 3, 4, 5 (5-9), 6 (10+), with the sign of `distance`."""
    size = abs(distance)
    bucket = size if size < 5 else (5 if size < 10 else 6)
    return bucket if distance >= 0 else -bucket


@njit(cache=True)
def focus_distance(system_id, state, positions):
    """The signed, bucketed distance from the left to the right focus word.

    Covington: L0 -> R0; stack systems: S0 -> B0 (negative when B0 precedes S0,
    as after arc-hybrid's SWAP; arc-hybrid's root at the buffer end counts as
    position n + 1).  `NO_DISTANCE` when a focus word is missing.
    """
    left, right = focus_words(system_id, positions)
    if system_id == ids.ARC_HYBRID and right == 0:
            right = state[st.N] + 1
    if left == -1 or right == -1:
        return NO_DISTANCE
    return distance_bucket(right - left)
