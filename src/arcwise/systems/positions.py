"""Base positions: the named words of a configuration that feature templates and
neural scorers start from, and the helpers the stack systems share to fill them.

Each system module exports three compiled functions over them, which
`arcwise.dispatch.systems` calls by system id and `arcwise.features.addresses`
builds on::

    base_positions(state, out)  fills out[code] with the word at each base it has
                                (out arrives filled with -1)
    focus_words(positions)      its two focus words (-1 if missing)
    distance_words(state, positions)
                                the two words whose distance is a feature

- Covington (2017 paper, Table 2): L0 = i, the last word of λ1 (none when λ1
  is empty), L1 = i-1, L2 = i-2 (the words left of L0; λ1 = [1..i], or
  [0..i] with +root, where L0 = 0 is the root word); R0 = j,
  the buffer front, R1 = j+1, R2 = j+2 (the words right of it; B = [j..n]);
  CL / CR = the first / last word strictly between L0 and R0 whose head is not
  in [L0, R0] (a headless word counts); none unless both L0 and R0 exist.
- Stack systems: S0, S1, S2 = the stack from the top (2-Planar: the active
  stack), B0..B3 = the buffer from the front, T0, T1 = 2-Planar's inactive
  stack from the top.  The root 0 is a word like the others where a system
  puts it on the stack (arc-eager) or at the end of the buffer (arc-hybrid).
- Every system (`arcwise.features.addresses`, an addition to the papers'
  tables): IL / IR, the inner string neighbours of the two focus words.
"""

from __future__ import annotations

from arcwise.core.jit import njit
from arcwise.systems import state as st

INNER_BASES = ("IL", "IR")  # every system
COVINGTON_BASES = ("L0", "L1", "L2", "R0", "R1", "R2", "CL", "CR") + INNER_BASES
STACK_BASES = ("S0", "S1", "S2", "B0", "B1", "B2", "B3") + INNER_BASES
INACTIVE_STACK_BASES = ("T0", "T1")  # 2-Planar
BASE_NAMES = ("L0", "L1", "L2", "R0", "R1", "R2", "CL", "CR", "S0", "S1", "S2", "B0", "B1", "B2",
              "B3", "T0", "T1") + INNER_BASES  # a base's code is its index
N_BASES = len(BASE_NAMES)
L0, L1, L2, R0, R1, R2, CL, CR, S0, S1, S2, B0, B1, B2, B3, T0, T1, IL, IR = range(N_BASES)


@njit(cache=True)
def stack_and_buffer(state, stack, out):
    """S0..S2 from the stack region `stack`, B0..B3 from the buffer."""
    for k in range(3):
        out[S0 + k] = st.stack_get(state, stack, k)
    for k in range(4):
        out[B0 + k] = st.buffer_get(state, k)


@njit(cache=True)
def stack_base_positions(state, out):
    """The bases of a system with one stack and a buffer (arc-eager, arc-hybrid)."""
    stack_and_buffer(state, st.STACK, out)


@njit(cache=True)
def stack_focus_words(positions):
    """A stack system's focus words: S0 and B0."""
    return positions[S0], positions[B0]


@njit(cache=True)
def stack_distance_words(state, positions):
    """The words whose distance a stack system's features read: S0 and B0."""
    return positions[S0], positions[B0]
