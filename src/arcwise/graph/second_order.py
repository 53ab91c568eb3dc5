"""Second-order (adjacent sibling) decoding, McDonald & Pereira (2006).

A tree scores its arcs plus, for every head h and each side of h, every
pair of adjacent dependents taken from h outwards (2011 paper §3.2, the
pairs (i, j ◇ k)):

    score(y) = sum over arcs h -> m of arc[h, m]
             + sum over (h, s, m) of sib[h, s, m],

where m is a dependent of h and s is the dependent of h on the same side
next closer to h, or s = h when m is the closest one (the paper's
s(i, -, j)).  No score marks the last dependent.

- `second_order_eisner`: the paper's exact projective decoder:
  Eisner's spans plus *sibling* spans [r, t] holding two
  adjacent dependents r < t of a head outside them.  O(n^3) time.
- `second_order_nonprojective`: the approximate non-projective decoder
  (the paper's Figure 4): the projective parse, then, while some change
  of one word's head keeps a tree and raises the score, make the change
  that raises it most.  What a word adds under a head depends only on
  that head's other dependents, so a table of these gains is kept and a
  move recomputes two of its rows: O(n^2) per move.  The number of moves
  is bounded only by the number of trees (every move raises the score);
  on standard normal scores it was 0.6 to 0.9 n.

Memory: `sib` is dense, (n + 1)^3 float64: 2.2 MB at n = 64, 8.2 MB at
n = 100, 27.5 MB at n = 150, 217 MB at n = 300.  Callers should use the
first-order decoders above `SIBLING_MAX_WORDS` words.
"""

from __future__ import annotations

import numpy as np

from arcwise.core.jit import njit
from arcwise.graph.eisner import (
    COMPLETE,
    INCOMPLETE,
    LEFT,
    RIGHT,
    SIBLING,
    complete_span,
    push,
    push_complete_parts,
    span_tables,
)
from arcwise.trees.projectivity import children, dominates, subtree_spans

SIBLING_MAX_WORDS = 200  # (n + 1)^3 float64 = 65 MB; longer sentences: first order


@njit(cache=True)
def second_order_score(heads, arc, sib):
    """Score of the tree `heads` under arc scores and adjacent-sibling scores."""
    start, words = children(heads)
    total = 0.0
    for h in range(len(heads)):
        previous = h
        for k in range(start[h + 1] - 1, start[h] - 1, -1):  # left dependents, inside out
            m = words[k]
            if m < h:
                total += arc[h, m] + sib[h, previous, m]
                previous = m
        previous = h
        for k in range(start[h], start[h + 1]):  # right dependents, inside out
            m = words[k]
            if m > h:
                total += arc[h, m] + sib[h, previous, m]
                previous = m
    return total


@njit(cache=True)
def second_order_eisner(arc, sib, single_root=False):
    """Heads (int32, n + 1, heads[0] = -1) of the best projective tree.

    arc[h, m]: arc scores, float64 (n + 1) x (n + 1); sib[h, s, m]:
    adjacent-sibling scores, float64 (n + 1)^3 (see the module docstring).
    With `single_root`, the root has exactly one dependent.  O(n^3).
    """
    size = arc.shape[0]
    heads = np.full(size, -1, dtype=np.int32)
    if size <= 1:
        return heads
    complete, incomplete, complete_split = span_tables(size)
    sibling = np.full((size, size), -np.inf)
    incomplete_split = np.zeros((2, size, size), dtype=np.int32)
    sibling_split = np.zeros((size, size), dtype=np.int32)

    for width in range(1, size):
        for s in range(size - width):
            t = s + width
            if s > 0:  # sibling[s, t]: s's right half and t's left half, for a head outside
                best, best_r = -np.inf, s
                for r in range(s, t):
                    value = complete[RIGHT, s, r] + complete[LEFT, r + 1, t]
                    if value > best:
                        best, best_r = value, r
                sibling[s, t] = best
                sibling_split[s, t] = best_r

            # s -> t; split r = s: t is s's first right dependent, else r is the one before
            best = complete[LEFT, s + 1, t] + sib[s, s, t]
            best_r = s
            if not (single_root and s == 0):
                for r in range(s + 1, t):
                    value = incomplete[RIGHT, s, r] + sibling[r, t] + sib[s, r, t]
                    if value > best:
                        best, best_r = value, r
            incomplete[RIGHT, s, t] = best + arc[s, t]
            incomplete_split[RIGHT, s, t] = best_r

            if s > 0:  # t -> s; split r = t: s is t's first left dependent
                best = complete[RIGHT, s, t - 1] + sib[t, t, s]
                best_r = t
                for r in range(s + 1, t):
                    value = sibling[s, r] + incomplete[LEFT, r, t] + sib[t, r, s]
                    if value > best:
                        best, best_r = value, r
                incomplete[LEFT, s, t] = best + arc[t, s]
                incomplete_split[LEFT, s, t] = best_r
            complete_span(complete, incomplete, complete_split, s, t)

    # backtrack with an explicit stack of spans (kind, direction, s, t)
    stack = np.empty((4 * size, 4), dtype=np.int32)
    push(stack, 0, COMPLETE, RIGHT, 0, size - 1)
    top = 1
    while top > 0:
        top -= 1
        kind, direction, s, t = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3]
        if s == t:
            continue
        if kind == SIBLING:
            r = sibling_split[s, t]
            push(stack, top, COMPLETE, RIGHT, s, r)
            push(stack, top + 1, COMPLETE, LEFT, r + 1, t)
            top += 2
        elif kind == COMPLETE:
            push_complete_parts(stack, top, complete_split, direction, s, t)
            top += 2
        elif direction == RIGHT:
            heads[t] = s
            r = incomplete_split[RIGHT, s, t]
            if r == s:
                push(stack, top, COMPLETE, LEFT, s + 1, t)
                top += 1
            else:
                push(stack, top, INCOMPLETE, RIGHT, s, r)
                push(stack, top + 1, SIBLING, 0, r, t)
                top += 2
        else:
            heads[s] = t
            r = incomplete_split[LEFT, s, t]
            if r == t:
                push(stack, top, COMPLETE, RIGHT, s, t - 1)
                top += 1
            else:
                push(stack, top, SIBLING, 0, s, r)
                push(stack, top + 1, INCOMPLETE, LEFT, r, t)
                top += 2
    return heads


@njit(cache=True)
def _neighbours(start, words, h, m):
    """The dependents of h on m's side next to m, m itself left out: (inner, outer).

    inner is the one between h and m closest to m (h if none), outer the one
    beyond m closest to it (-1 if none).
    """
    inner, outer = h, -1
    for k in range(start[h], start[h + 1]):
        d = words[k]
        if d == m:
            continue
        if m > h and d > h:
            if d < m:
                inner = d  # ascending: the last one below m
            elif outer == -1:
                outer = d
        elif m < h and d < h:
            if d > m:
                if inner == h:
                    inner = d  # ascending: the first one above m
            else:
                outer = d  # ascending: the last one below m
    return inner, outer


@njit(cache=True)
def _attachment_gain(start, words, arc, sib, h, m):
    """Score that m adds as a dependent of h, given h's other dependents."""
    inner, outer = _neighbours(start, words, h, m)
    gain = arc[h, m] + sib[h, inner, m]
    if outer != -1:
        gain += sib[h, m, outer] - sib[h, inner, outer]
    return gain


@njit(cache=True)
def _attachment_gains(start, words, arc, sib, h, out):
    """out[m] = `_attachment_gain` of every word m != h under h."""
    for m in range(1, len(out)):
        if m != h:
            out[m] = _attachment_gain(start, words, arc, sib, h, m)


@njit(cache=True)
def second_order_nonprojective(arc, sib, single_root=False, max_rounds=-1):
    """Heads of an approximately best tree, projective or not (the paper's Figure 4).

    Starts from `second_order_eisner` and repeatedly moves the one word to
    the new head that raises the score most while keeping a tree (and a
    single root dependent with `single_root`); stops when no move raises
    it, or after `max_rounds` moves (-1: no limit; each move raises the
    score strictly, so it stops).  O(n^3) for the parse, then O(n^2) per
    move: what m adds under h depends only on h's dependents, so a move
    recomputes the rows of the old and the new head of a table of gains.
    """
    heads = second_order_eisner(arc, sib, single_root)
    size = len(heads)
    gain = np.zeros((size, size))  # gain[h, m]: what m adds as a dependent of h
    start, words = children(heads)
    for h in range(size):
        _attachment_gains(start, words, arc, sib, h, gain[h])
    rounds = 0
    while rounds != max_rounds:
        enter, leave = subtree_spans(heads)
        best_gain, best_word, best_head = 0.0, -1, -1
        for h in range(1 if single_root else 0, size):  # 0 already has its one dependent
            for m in range(1, size):
                if h == heads[m] or h == m or dominates(enter, leave, m, h):
                    continue
                change = gain[h, m] - gain[heads[m], m]
                if change > best_gain:
                    best_gain, best_word, best_head = change, m, h
        if best_word == -1:
            break
        old_head = heads[best_word]
        heads[best_word] = best_head
        start, words = children(heads)
        _attachment_gains(start, words, arc, sib, old_head, gain[old_head])
        _attachment_gains(start, words, arc, sib, best_head, gain[best_head])
        rounds += 1
    return heads
