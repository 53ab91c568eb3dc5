"""Well-formedness, dominance and projectivity of a dependency tree.

A tree is an int array `heads` of length n + 1 with heads[0] == -1: word d
(1..n) depends on heads[d], and word 0 is the artificial root.  An arc
h -> d is *projective* when every word strictly between h and d is a
descendant of h (2011 paper, §1; Nivre & Nilsson 2005, §2); root arcs
0 -> d are included and, in a tree, are always projective.

Dominance is answered in O(1) from a depth-first numbering of the tree
(`subtree_spans`): word w lies in the subtree of a iff
enter[a] <= enter[w] <= leave[a].
"""

from __future__ import annotations

import numpy as np

from arcwise.core.jit import njit


@njit(cache=True)
def children(heads):
    """Dependents of every word, left to right, as (start, words).

    The dependents of h are words[start[h]:start[h + 1]], in sentence order.
    Words whose head is -1 or out of range are nobody's dependent.
    """
    size = len(heads)
    start = np.zeros(size + 1, dtype=np.int32)
    for d in range(1, size):
        h = heads[d]
        if 0 <= h < size:
            start[h + 1] += 1
    for h in range(size):
        start[h + 1] += start[h]
    words = np.empty(start[size], dtype=np.int32)
    filled = start[:size].copy()
    for d in range(1, size):  # increasing d: each list comes out in sentence order
        h = heads[d]
        if 0 <= h < size:
            words[filled[h]] = d
            filled[h] += 1
    return start, words


@njit(cache=True)
def subtree_spans(heads):
    """Preorder numbers of a depth-first walk from the root, children left to right.

    Returns (enter, leave): enter[w] is w's preorder number, leave[w] the
    largest preorder number in w's subtree; -1 for words the walk from 0
    never reaches (they hang from a cycle or a missing head).
    """
    size = len(heads)
    start, words = children(heads)
    enter = np.full(size, -1, dtype=np.int32)
    leave = np.full(size, -1, dtype=np.int32)
    stack = np.empty(size, dtype=np.int32)
    cursor = start[:size].copy()  # next child to visit, per word on the stack
    top = 0
    stack[0] = 0
    enter[0] = 0
    count = 1
    while top >= 0:
        w = stack[top]
        if cursor[w] < start[w + 1]:
            c = words[cursor[w]]
            cursor[w] += 1
            enter[c] = count
            count += 1
            top += 1
            stack[top] = c
        else:
            leave[w] = count - 1
            top -= 1
    return enter, leave


@njit(cache=True)
def dominates(enter, leave, ancestor, word):
    """Is `word` in the subtree of `ancestor` (itself included)?  Spans from `subtree_spans`."""
    return enter[word] >= 0 and enter[ancestor] <= enter[word] <= leave[ancestor]


@njit(cache=True)
def is_well_formed(heads):
    """Is `heads` a tree rooted at 0?

    heads[0] == -1, every other head is in 0..n and every word reaches 0
    (hence no cycle).  Several dependents of 0 are allowed.
    """
    size = len(heads)
    if size == 0 or heads[0] != -1:
        return False
    for d in range(1, size):
        if not 0 <= heads[d] < size:
            return False
    enter, _ = subtree_spans(heads)
    for d in range(size):
        if enter[d] < 0:
            return False
    return True


def tree_problem(heads) -> str | None:
    """Why `heads` is not a tree rooted at 0 (`is_well_formed`), in words; None if it is one."""
    heads = np.asarray(heads)
    size = len(heads)
    if heads.ndim != 1 or size == 0 or heads[0] != -1:
        return "a tree is a list of n + 1 heads with heads[0] == -1"
    for d in range(1, size):
        h = int(heads[d])
        if h == -1:
            return f"word {d} has no head"
        if not 0 <= h < size:
            return f"the head of word {d} is {h}, outside 0..{size - 1}"
    if is_well_formed(heads):
        return None
    enter, _ = subtree_spans(heads)
    d = int(np.flatnonzero(enter < 0)[0])
    cycle = []
    while d not in cycle:  # every word not reached from 0 leads to a cycle
        cycle.append(d)
        d = int(heads[d])
    cycle = cycle[cycle.index(d):]
    return f"cycle through words {' -> '.join(map(str, cycle))} -> {d}"


@njit(cache=True)
def nonprojective_arcs(heads):
    """True at d when the arc heads[d] -> d is non-projective; False at 0.

    `heads` must be a well-formed tree (`is_well_formed`).  O(n^2).
    """
    size = len(heads)
    enter, leave = subtree_spans(heads)
    result = np.zeros(size, dtype=np.bool_)
    for d in range(1, size):
        h = heads[d]
        if h < 0:
            continue  # no arc
        for k in range(min(h, d) + 1, max(h, d)):
            if not dominates(enter, leave, h, k):
                result[d] = True
                break
    return result


@njit(cache=True)
def is_projective(heads):
    """Are all arcs of the tree projective?"""
    return not nonprojective_arcs(heads).any()
