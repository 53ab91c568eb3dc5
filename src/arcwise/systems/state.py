"""The configuration of every transition system, as one flat int32 array.

A configuration of a sentence of n words (word 0 is the artificial root) is
a single array laid out as a header of scalars followed by six regions of
n + 1 cells each:

    header | stack | stack2 | buffer | heads | labels | marks

- stack, stack2: stacks, bottom first; their lengths are in the header.
  Covington's lists, the 2-Planar parser's second stack and so on live here.
- buffer: stored *reversed*, so the buffer front is the last used cell and
  shift is a pop; Swap-style moves push words back onto the front.
- heads: head of each word, -1 = none yet (heads[0] is always -1).
- labels: label id of each word's arc, -1 = none.
- marks: per-word scratch a system may need (e.g. "was on the stack").

One array makes copies, hashing and equality trivial (the Python API wraps
it immutably) and lets every transition be a numba function that edits it in
place.  All functions here are compiled with ``cache=True`` and run
unchanged under ``NUMBA_DISABLE_JIT=1``.
"""

from __future__ import annotations

import numpy as np

from arcwise.core import arrays
from arcwise.core.jit import njit

# Header slots.
N = 0  # number of words
STACK_LEN = 1
STACK2_LEN = 2
BUFFER_LEN = 3
FOCUS = 4  # a system-specific position (Covington's i, 2-Planar's active stack, ...)
PREVIOUS = 5  # id of the previous action, -1 at the start
OPTIONS = 6  # bit flags of the system variant (e.g. which buffer transitions)
EXTRA = 7  # one more system-specific scalar
HEADER = 8

NO_HEAD = -1
NO_LABEL = -1

# Region indices, in layout order.
STACK, STACK2, BUFFER, HEADS, LABELS, MARKS = range(6)
REGIONS = 6


@njit(cache=True)
def state_size(n):
    """Length of the state array of an n-word sentence."""
    return HEADER + REGIONS * (n + 1)


@njit(cache=True)
def region(state, which):
    """A writable view of region `which` (STACK, STACK2, ...)."""
    width = state[N] + 1
    start = HEADER + which * width
    return state[start : start + width]


@njit(cache=True)
def new_state(n, options):
    """An empty configuration: empty stacks, buffer [1..n], no arcs."""
    state = arrays.zeros(state_size(n), dtype=np.int32)
    state[N] = n
    state[PREVIOUS] = -1
    state[OPTIONS] = options
    region(state, HEADS)[:] = NO_HEAD
    region(state, LABELS)[:] = NO_LABEL
    buffer = region(state, BUFFER)
    for k in range(n):
        buffer[k] = n - k  # reversed: front (word 1) is the last cell
    state[BUFFER_LEN] = n
    return state


# --- stacks -----------------------------------------------------------------


@njit(cache=True)
def stack_len(state, which):
    return state[STACK_LEN] if which == STACK else state[STACK2_LEN]


@njit(cache=True)
def stack_get(state, which, k):
    """k-th word from the top of a stack (k = 0 is the top), -1 if absent."""
    length = stack_len(state, which)
    if k >= length or k < 0:
        return -1
    return region(state, which)[length - 1 - k]


@njit(cache=True)
def stack_push(state, which, word):
    slot = STACK_LEN if which == STACK else STACK2_LEN
    region(state, which)[state[slot]] = word
    state[slot] += 1


@njit(cache=True)
def stack_pop(state, which):
    slot = STACK_LEN if which == STACK else STACK2_LEN
    state[slot] -= 1
    return region(state, which)[state[slot]]


@njit(cache=True)
def stack_remove(state, which, k):
    """Remove and return the k-th word from the top of a stack."""
    slot = STACK_LEN if which == STACK else STACK2_LEN
    cells = region(state, which)
    length = state[slot]
    pos = length - 1 - k
    word = cells[pos]
    for p in range(pos, length - 1):
        cells[p] = cells[p + 1]
    state[slot] = length - 1
    return word


# --- buffer -----------------------------------------------------------------


@njit(cache=True)
def buffer_get(state, k):
    """k-th word of the buffer (k = 0 is the front), -1 if absent."""
    length = state[BUFFER_LEN]
    if k >= length or k < 0:
        return -1
    return region(state, BUFFER)[length - 1 - k]


@njit(cache=True)
def buffer_pop(state):
    """Remove and return the buffer front."""
    state[BUFFER_LEN] -= 1
    return region(state, BUFFER)[state[BUFFER_LEN]]


@njit(cache=True)
def buffer_push(state, word):
    """Put a word back at the front of the buffer."""
    region(state, BUFFER)[state[BUFFER_LEN]] = word
    state[BUFFER_LEN] += 1


@njit(cache=True)
def buffer_remove(state, k):
    """Remove and return the k-th word of the buffer (k = 0 is the front)."""
    cells = region(state, BUFFER)
    length = state[BUFFER_LEN]
    pos = length - 1 - k
    word = cells[pos]
    for p in range(pos, length - 1):
        cells[p] = cells[p + 1]
    state[BUFFER_LEN] = length - 1
    return word


# --- arcs -------------------------------------------------------------------


@njit(cache=True)
def head_of(state, word):
    return state[HEADER + HEADS * (state[N] + 1) + word]


@njit(cache=True)
def set_arc(state, head, dependent, label):
    """Make `head` the head of `dependent` (replacing any previous head)."""
    width = state[N] + 1
    state[HEADER + HEADS * width + dependent] = head
    state[HEADER + LABELS * width + dependent] = label


@njit(cache=True)
def remove_arc(state, dependent):
    width = state[N] + 1
    state[HEADER + HEADS * width + dependent] = NO_HEAD
    state[HEADER + LABELS * width + dependent] = NO_LABEL


@njit(cache=True)
def reaches(state, ancestor, word):
    """Is there a (possibly empty) path ancestor ->* word in the arcs?"""
    width = state[N] + 1
    base = HEADER + HEADS * width
    steps = 0
    while word != -1 and steps <= width:
        if word == ancestor:
            return True
        word = state[base + word]
        steps += 1
    return False
