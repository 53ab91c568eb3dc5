"""Pseudo-projective parsing (Nivre & Nilsson 2005, "Pseudo-Projective Dependency Parsing", ACL).

A projective parser learns from *projectivized* trees and its output is
*deprojectivized* afterwards:

- PROJECTIVIZE (§2): while the tree is non-projective, lift the smallest
  non-projective arc (shortest ``|h - d|``, ties broken from left to right)
  one step up: LIFT(h -> d) = heads[h] -> d.  The original head is d's
  *syntactic head*, the head it ends up with its *linear head*.
- The lifts are encoded in the labels (§2, Table 1), with the paper's marks:

      encoding    lifted arc   arc on the lifting path
      head        d↑h          p
      path        d↑           p↓
      head+path   d↑h          p↓

  d is the lifted arc's label, h the label of the arc into its syntactic
  head, p the label of an arc lifted over (every arc from the linear head
  down to the syntactic head).  A lifted arc can also lie on a path:
  "d↑↓" (path) and "d↑h↓" (head+path).  The marks LIFTED = "↑" and
  ON_PATH = "↓" must not occur in the original labels.
- Deprojectivization (§2) visits the lifted arcs top-down (breadth-first
  from the root, left to right) and moves each to the syntactic head found
  by a breadth-first, left-to-right search below its linear head that
  skips the lifted word's own subtree:
  head: the first word whose label is h; path: following ↓-arcs only, the
  first word with no ↓-dependent; head+path: following ↓-arcs only, the
  first word labelled h with no ↓-dependent, else the first labelled h
  (as MaltParser does).  When the search finds nothing the arc stays where
  it is.  All marks are removed from the labels.

MaltParser's pseudo-projective options use other marks ("d|h", "p%") and
order its searches by distance from the lifted word; the paper's
left-to-right order is used here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from arcwise.core.errors import ArcwiseError
from arcwise.core.jit import njit
from arcwise.trees import ENCODINGS
from arcwise.trees.projectivity import children, is_well_formed, nonprojective_arcs

LIFTED = "↑"
ON_PATH = "↓"
HEAD, PATH, HEAD_PATH = range(3)  # encoding codes for the compiled search


@njit(cache=True)
def smallest_nonprojective_arc(heads):
    """The dependent of the shortest non-projective arc, leftmost among equals; -1 if none."""
    nonprojective = nonprojective_arcs(heads)
    best, best_length, best_left = -1, len(heads), len(heads)
    for d in range(1, len(heads)):
        if nonprojective[d]:
            length = abs(heads[d] - d)
            left = min(heads[d], d)
            if length < best_length or (length == best_length and left < best_left):
                best, best_length, best_left = d, length, left
    return best


@njit(cache=True)
def lift_nonprojective_arcs(heads):
    """PROJECTIVIZE (§2) on a well-formed tree.

    Returns (projective heads, syntactic_heads, on_path, lifts):
    syntactic_heads[d] is d's original head if its arc was lifted, else -1;
    on_path[w] tells whether the arc into w was lifted over (lies on some
    lifting path); lifts counts single LIFT steps.
    """
    heads = heads.astype(np.int32)  # a copy
    syntactic_heads = np.full(len(heads), -1, dtype=np.int32)
    on_path = np.zeros(len(heads), dtype=np.bool_)
    lifts = 0
    while True:
        d = smallest_nonprojective_arc(heads)
        if d == -1:
            break
        h = heads[d]  # never 0: root arcs of a tree are projective
        if syntactic_heads[d] == -1:
            syntactic_heads[d] = h
        on_path[h] = True
        heads[d] = heads[h]  # LIFT(h -> d) = heads[h] -> d
        lifts += 1
    return heads, syntactic_heads, on_path, lifts


@njit(cache=True)
def breadth_first_order(heads):
    """Words reachable from the root, top-down and left to right within each level."""
    start, words = children(heads)
    order = np.empty(len(heads), dtype=np.int32)
    order[0] = 0
    filled, k = 1, 0
    while k < filled:
        w = order[k]
        for c in words[start[w] : start[w + 1]]:
            order[filled] = c
            filled += 1
        k += 1
    return order[:filled]


@njit(cache=True)
def find_syntactic_head(heads, lifted, labels, head_label, on_path, encoding):
    """The search for the syntactic head of `lifted` below its linear head; -1 if it fails.

    Breadth-first, left to right, never entering the subtree of `lifted`;
    path encodings only follow arcs marked ↓ (`on_path`).
    """
    start, words = children(heads)
    follow_path = encoding != HEAD
    queue = np.empty(len(heads), dtype=np.int32)
    queue[0] = heads[lifted]
    filled, k = 1, 0
    second_choice = -1
    while k < filled:
        w = queue[k]
        k += 1
        path_dependents = 0
        for c in words[start[w] : start[w + 1]]:
            if c != lifted and (on_path[c] or not follow_path):
                queue[filled] = c
                filled += 1
                path_dependents += 1
        if k == 1:
            continue  # the linear head itself is never the syntactic head
        if encoding == HEAD:
            if labels[w] == head_label:
                return w
        elif encoding == PATH:
            if path_dependents == 0:
                return w
        elif labels[w] == head_label:  # HEAD_PATH
            if path_dependents == 0:
                return w
            if second_choice == -1:
                second_choice = w
    return second_choice


@njit(cache=True)
def restore_lifted_arcs(heads, lifted, labels, head_labels, on_path, encoding):
    """Deprojectivization (§2): move every lifted arc, top-down, to its syntactic head.

    `lifted[d]` marks a lifted arc, `labels` are label ids without marks,
    `head_labels[d]` the id of h in d↑h (-1 when absent), `on_path[d]` a ↓
    mark.  Returns the new heads.
    """
    heads = heads.astype(np.int32)  # a copy
    pending = lifted.copy()
    pending[0] = False
    while True:
        next_lifted = -1
        for w in breadth_first_order(heads):
            if pending[w]:
                next_lifted = w
                break
        if next_lifted == -1:
            break
        pending[next_lifted] = False
        if encoding != PATH and head_labels[next_lifted] < 0:
            continue  # nothing to search for
        h = find_syntactic_head(
            heads, next_lifted, labels, head_labels[next_lifted], on_path, encoding
        )
        if h != -1:
            heads[next_lifted] = h
    return heads


class Projectivized(NamedTuple):
    heads: np.ndarray  # int32, n + 1, projective
    deprels: tuple[str, ...]  # with the encoding's marks
    lifted: int  # number of lifted arcs
    lifts: int  # number of single LIFT steps (an arc may be lifted several times)


def encoding_code(encoding: str) -> int:
    """The index of `encoding` in `ENCODINGS`; ArcwiseError naming the known ones if none."""
    if encoding not in ENCODINGS:
        raise ArcwiseError(
            f"unknown pseudo-projective encoding {encoding!r} (choose from {', '.join(ENCODINGS)})"
        )
    return ENCODINGS.index(encoding)


def projectivize(heads, deprels: Sequence[str], encoding: str = "head") -> Projectivized:
    """The projectivized tree of a well-formed tree, with the lifts encoded in its labels.

    `deprels[0]` (the root's) is passed through unchanged.  Raises
    ArcwiseError if `heads` is not a tree or a label already contains ↑ or ↓.
    """
    code = encoding_code(encoding)
    heads = np.asarray(heads, dtype=np.int32)
    if not is_well_formed(heads):
        raise ArcwiseError(f"cannot projectivize {heads.tolist()}: not a tree rooted at 0")
    for label in deprels[1:]:
        if LIFTED in label or ON_PATH in label:
            raise ArcwiseError(
                f"label {label!r} already contains a pseudo-projective mark ({LIFTED} or {ON_PATH})"
            )
    projective, syntactic_heads, on_path, lifts = lift_nonprojective_arcs(heads)
    encoded = [deprels[0]]
    for d in range(1, len(deprels)):
        label = deprels[d]
        if syntactic_heads[d] != -1:
            label += LIFTED
            if code != PATH:
                label += deprels[syntactic_heads[d]]
        if on_path[d] and code != HEAD:
            label += ON_PATH
        encoded.append(label)
    return Projectivized(projective, tuple(encoded), int((syntactic_heads != -1).sum()), int(lifts))


def split_label(label: str) -> tuple[str, bool, str | None, bool]:
    """(label, lifted, syntactic head's label or None, on path) of an encoded label."""
    on_path = label.endswith(ON_PATH)
    if on_path:
        label = label[: -len(ON_PATH)]
    base, lifted, head_label = label.partition(LIFTED)
    return base, bool(lifted), (head_label or None), on_path


def deprojectivize(
    heads, deprels: Sequence[str], encoding: str = "head"
) -> tuple[np.ndarray, tuple[str, ...]]:
    """Undo `projectivize` on a (parsed) tree whose labels carry the encoding's marks.

    Returns the new heads and the labels with every mark removed.  A tree
    stays a tree; words the root does not reach (a parser's leftovers) are
    left alone.
    """
    code = encoding_code(encoding)
    size = len(deprels)
    ids: dict[str, int] = {}
    labels = np.full(size, -1, dtype=np.int32)
    head_labels = np.full(size, -1, dtype=np.int32)
    lifted = np.zeros(size, dtype=np.bool_)
    on_path = np.zeros(size, dtype=np.bool_)
    bases = [deprels[0]]
    for d in range(1, size):
        base, lifted[d], head_label, on_path[d] = split_label(deprels[d])
        labels[d] = ids.setdefault(base, len(ids))
        if head_label is not None:
            head_labels[d] = ids.setdefault(head_label, len(ids))
        bases.append(base)
    restored = restore_lifted_arcs(
        np.asarray(heads, dtype=np.int32), lifted, labels, head_labels, on_path, code
    )
    return restored, tuple(bases)
