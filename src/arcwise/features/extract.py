"""The compiled feature extractor: a `FeatureProgram` run on one configuration.

Per configuration `extract` (1) fills the system's base positions
(`addresses.base_positions`), (2) resolves every address of the program once,
in order (a base position, or a tree move from an earlier address), scanning
the heads region for the dependents of the few words whose dependents a
template asks for, (3) computes every (address, atom) value once, and (4)
folds each template's values into one 64-bit hash seeded by the template
(`arcwise.features.hashing.combine`).

Atom values are non-negative integers: MISSING (0) for every atom of a word
that does not exist (the feature still fires, with that value), else the id
+ 2 (form, tags, FEATS, derived form strings, guide label, the label with -1
= no arc, valencies), the signed distance bucket + 8, a hash of the label
set (labels taken modulo 256, so the set is exact for up to 255 labels), or
a small code (guide head direction, guide arc between the focus words, place
of the word's head relative to them).
"""

from __future__ import annotations

import numpy as np

from arcwise.core import arrays
from arcwise.core.jit import njit
from arcwise.features import words as column
from arcwise.features.addresses import (
    N_BASES,
    base_positions,
    focus_distance,
    focus_words,
    heads_offset,
)
from arcwise.features.hashing import combine
from arcwise.features.templates import (
    CLOSEST_LEFT,
    CLOSEST_RIGHT,
    DISTANCE,
    FEATS,
    FORM,
    GRANDPARENT,
    GUIDE_ARC,
    GUIDE_DIRECTION,
    GUIDE_LABEL,
    HEAD,
    HEAD_PLACE,
    LABEL,
    LEFT_LABELS,
    LEFT_VALENCY,
    LEFTMOST,
    LEFTMOST2,
    LOWER,
    RIGHT_LABELS,
    RIGHT_VALENCY,
    RIGHTMOST,
    RIGHTMOST2,
    SHAPE,
    SUFFIX,
    UPOS,
    XPOS,
)
from arcwise.systems import state as st

MISSING = np.uint64(0)

# Columns of a word's dependents summary: the word a dependent move leads to
# (column move - LEFTMOST), then the left and right valencies.
_LEFTMOST, _CLOSEST_LEFT = LEFTMOST - LEFTMOST, CLOSEST_LEFT - LEFTMOST
_RIGHTMOST, _CLOSEST_RIGHT = RIGHTMOST - LEFTMOST, CLOSEST_RIGHT - LEFTMOST
_LEFTMOST2, _RIGHTMOST2 = LEFTMOST2 - LEFTMOST, RIGHTMOST2 - LEFTMOST
N_LEFT, N_RIGHT, SUMMARY = 6, 7, 8


@njit(cache=True)
def _set_bit(words, bit):
    """words | 1 << bit in a 256-bit set held as 4 uint64 words (a tuple)."""
    one = np.uint64(1) << np.uint64(bit & 63)
    w0, w1, w2, w3 = words
    k = bit >> 6
    if k == 0:
        w0 |= one
    elif k == 1:
        w1 |= one
    elif k == 2:
        w2 |= one
    else:
        w3 |= one
    return w0, w1, w2, w3


@njit(cache=True)
def _set_hash(words):
    w0, w1, w2, w3 = words
    return combine(combine(combine(combine(0, w0), w1), w2), w3)


@njit(cache=True)
def dependents(state, word, summary, label_sets):
    """Scan the heads for word's dependents: fill its summary row and label-set hashes.

    A label set is the set of (label + 1) mod 256 (-1 = unlabeled arc), hashed.
    """
    n = state[st.N]
    heads = heads_offset(state)
    labels = st.HEADER + st.LABELS * (n + 1)
    for c in range(SUMMARY):
        summary[c] = -1
    n_left = 0
    n_right = 0
    zero = np.uint64(0)
    left = (zero, zero, zero, zero)
    right = (zero, zero, zero, zero)
    for d in range(1, n + 1):
        if state[heads + d] != word:
            continue
        bit = (state[labels + d] + 1) & 255
        if d < word:
            if n_left == 0:
                summary[_LEFTMOST] = d
            elif n_left == 1:
                summary[_LEFTMOST2] = d
            summary[_CLOSEST_LEFT] = d
            n_left += 1
            left = _set_bit(left, bit)
        else:
            if n_right == 0:
                summary[_CLOSEST_RIGHT] = d
            summary[_RIGHTMOST2] = summary[_RIGHTMOST]
            summary[_RIGHTMOST] = d
            n_right += 1
            right = _set_bit(right, bit)
    summary[N_LEFT] = n_left
    summary[N_RIGHT] = n_right
    label_sets[0] = _set_hash(left)
    label_sets[1] = _set_hash(right)


@njit(cache=True)
def guide_direction(words, w):
    """Where word w's guide head is: 1 root, 2 left, 3 right (0: no guide head)."""
    g = words[w, column.GUIDE_HEAD]
    if g < 0:
        return 0
    return 1 if g == 0 else (2 if g < w else 3)


@njit(cache=True)
def guide_arc(words, left, right):
    """The guide arc between the focus words: 1 left -> right, 2 right -> left, 3 none
    (0: a focus word is missing)."""
    if left == -1 or right == -1:
        return 0
    if words[right, column.GUIDE_HEAD] == left:
        return 1
    if words[left, column.GUIDE_HEAD] == right:
        return 2
    return 3


@njit(cache=True)
def head_place(head, left, right):
    """Where a word's current head lies relative to the focus words left < right (-1:
    missing): 0 no head, 1 the root, 2 left of `left`, 3 `left`, 4 between, 5 `right`,
    6 right of `right`."""
    if head == -1:
        return 0
    if head == 0:
        return 1
    if left != -1 and head < left:
        return 2
    if head == left:
        return 3
    if right == -1 or head < right:
        return 4
    return 5 if head == right else 6


@njit(cache=True)
def resolve(state, program, positions, at, summary, label_sets):
    """at[a] = the word at address a of the program (-1 if none), given the base positions;
    an address whose dependents the program reads gets its summary row and label sets."""
    heads = heads_offset(state)
    for a in range(program.address_base.shape[0]):
        if program.address_base[a] >= 0:
            w = positions[program.address_base[a]]
        else:
            parent = program.address_parent[a]
            move = program.address_move[a]
            w = at[parent]
            if w != -1:
                if move == HEAD or move == GRANDPARENT:
                    w = state[heads + w]
                    if move == GRANDPARENT and w != -1:
                        w = state[heads + w]
                else:
                    w = summary[parent, move - LEFTMOST]
        at[a] = w
        if program.address_dependents[a] and w != -1:
            dependents(state, w, summary[a], label_sets[a])


@njit(cache=True, literal=("system_id",))
def address_words(system_id, state, program, wanted, out):
    """out[k] = the word at address wanted[k] of an address program
    (`arcwise.features.templates.compile_addresses`), -1 if none: the words a neural
    scorer reads."""
    n_addresses = program.address_base.shape[0]
    positions = arrays.empty(N_BASES, dtype=np.int64)
    base_positions(system_id, state, positions)
    at = arrays.empty(n_addresses, dtype=np.int64)
    summary = arrays.empty((n_addresses, SUMMARY), dtype=np.int64)
    label_sets = arrays.empty((n_addresses, 2), dtype=np.uint64)
    resolve(state, program, positions, at, summary, label_sets)
    for k in range(wanted.shape[0]):
        out[k] = at[wanted[k]]


@njit(cache=True, literal=("system_id",))
def extract(system_id, state, program, words, out_transition, out_label):
    """Hash the features of a configuration.

    system_id: an `arcwise.systems.ids` id; state: the configuration array;
    program: a `FeatureProgram`; words: the sentence's words matrix (int32
    [n + 1, columns], `arcwise.features.words`); out_transition: uint64
    [n templates], out_label: uint64 [n label templates] (written).
    """
    n_addresses = program.address_base.shape[0]
    positions = arrays.empty(N_BASES, dtype=np.int64)
    base_positions(system_id, state, positions)
    at = arrays.empty(n_addresses, dtype=np.int64)  # the word at each address, -1 if none
    summary = arrays.empty((n_addresses, SUMMARY), dtype=np.int64)
    label_sets = arrays.empty((n_addresses, 2), dtype=np.uint64)
    values = arrays.empty(program.value_address.shape[0], dtype=np.uint64)
    extract_at(system_id, state, positions, program, words, at, summary, label_sets, values,
               out_transition, out_label)


@njit(cache=True, inline="always")  # the body of `extract`, and a call per candidate of k
def extract_at(system_id, state, positions, program, words, at, summary, label_sets, values,
               out_transition, out_label):
    """`extract` from given base positions (N_BASES words, -1 where none), with given work
    arrays: at (int64 [addresses]), summary (int64 [addresses, SUMMARY]), label_sets
    (uint64 [addresses, 2]) and values (uint64 [values])."""
    heads = heads_offset(state)
    labels = st.HEADER + st.LABELS * (state[st.N] + 1)
    distance = focus_distance(system_id, state, positions)
    left, right = focus_words(system_id, positions)
    resolve(state, program, positions, at, summary, label_sets)

    for v in range(program.value_address.shape[0]):
        a = program.value_address[v]
        w = at[a]
        atom = program.value_atom[v]
        if w == -1:
            values[v] = MISSING
        elif atom == FORM:
            values[v] = words[w, column.FORM] + 2
        elif atom == UPOS:
            values[v] = words[w, column.UPOS] + 2
        elif atom == XPOS:
            values[v] = words[w, column.XPOS] + 2
        elif atom == FEATS:
            values[v] = words[w, column.FEATS] + 2
        elif atom == LABEL:
            values[v] = state[labels + w] + 2
        elif atom == DISTANCE:
            values[v] = distance + 8
        elif atom == LEFT_VALENCY:
            values[v] = summary[a, N_LEFT] + 2
        elif atom == RIGHT_VALENCY:
            values[v] = summary[a, N_RIGHT] + 2
        elif atom == LEFT_LABELS:
            values[v] = label_sets[a, 0]
        elif atom == RIGHT_LABELS:
            values[v] = label_sets[a, 1]
        elif atom == LOWER:
            values[v] = words[w, column.LOWER] + 2
        elif atom == SUFFIX:
            values[v] = words[w, column.SUFFIX] + 2
        elif atom == SHAPE:
            values[v] = words[w, column.SHAPE] + 2
        elif atom == GUIDE_DIRECTION:
            values[v] = guide_direction(words, w) + 2
        elif atom == GUIDE_LABEL:
            values[v] = words[w, column.GUIDE_LABEL] + 2
        elif atom == GUIDE_ARC:
            values[v] = guide_arc(words, left, right) + 2
        elif atom == HEAD_PLACE:
            values[v] = head_place(state[heads + w], left, right) + 2

    width = program.template_values.shape[1]
    for t in range(program.template_values.shape[0]):
        h = program.template_seed[t]
        for k in range(width):
            v = program.template_values[t, k]
            if v < 0:
                break
            h = combine(h, values[v])
        out_transition[t] = h
    for k in range(program.label_templates.shape[0]):
        out_label[k] = out_transition[program.label_templates[k]]


def new_outputs(program) -> tuple[np.ndarray, np.ndarray]:
    """Zeroed (transition, label) feature arrays of the right sizes for a program."""
    return (
        np.zeros(program.template_values.shape[0], dtype=np.uint64),
        np.zeros(program.label_templates.shape[0], dtype=np.uint64),
    )
