"""First-order projective decoding: Eisner's (1996) algorithm, O(n^3) time, O(n^2) space.

The best projective tree under arc-factored scores (2011 paper, §2.2,
Equation 1).  Spans [s, t] are *complete* (a head at one end and its whole
projection, in one direction) or *incomplete* (an arc between s and t whose
inside is still open).  Direction 1: the head is s (arcs point right);
direction 0: the head is t (arcs point left).
"""

from __future__ import annotations

import numpy as np

from arcwise.core.jit import njit

LEFT = 0  # head at the right end t
RIGHT = 1  # head at the left end s
INCOMPLETE, COMPLETE, SIBLING = 0, 1, 2  # kinds of span on the backtracking stack


@njit(cache=True)
def push(stack, top, kind, direction, s, t):
    """Put the span (kind, direction, s, t) in row `top` of a backtracking stack."""
    stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = kind, direction, s, t


@njit(cache=True)
def span_tables(size):
    """Empty Eisner charts: complete and incomplete span scores (direction, s, t), -inf
    but for the one-word complete spans (0), and the complete spans' split points."""
    complete = np.full((2, size, size), -np.inf)
    incomplete = np.full((2, size, size), -np.inf)
    complete_split = np.zeros((2, size, size), dtype=np.int32)
    for s in range(size):
        complete[LEFT, s, s] = 0.0
        complete[RIGHT, s, s] = 0.0
    return complete, incomplete, complete_split


@njit(cache=True)
def complete_span(complete, incomplete, complete_split, s, t):
    """Best complete spans [s, t] in both directions, from the incomplete spans inside them."""
    best, best_r = -np.inf, s
    for r in range(s, t):  # [s, r] hangs from r, then the arc t -> r's span
        value = complete[LEFT, s, r] + incomplete[LEFT, r, t]
        if value > best:
            best, best_r = value, r
    complete[LEFT, s, t] = best
    complete_split[LEFT, s, t] = best_r

    best, best_r = -np.inf, t
    for r in range(s + 1, t + 1):  # arc s -> r, then r's right half
        value = incomplete[RIGHT, s, r] + complete[RIGHT, r, t]
        if value > best:
            best, best_r = value, r
    complete[RIGHT, s, t] = best
    complete_split[RIGHT, s, t] = best_r


@njit(cache=True)
def push_complete_parts(stack, top, complete_split, direction, s, t):
    """Backtracking: put the two parts of complete span (direction, s, t) in rows top, top + 1."""
    r = complete_split[direction, s, t]
    if direction == LEFT:
        push(stack, top, COMPLETE, LEFT, s, r)
        push(stack, top + 1, INCOMPLETE, LEFT, r, t)
    else:
        push(stack, top, INCOMPLETE, RIGHT, s, r)
        push(stack, top + 1, COMPLETE, RIGHT, r, t)


@njit(cache=True)
def eisner(scores, single_root=False):
    """Heads (int32, n + 1, heads[0] = -1) of the best projective tree.

    scores[h, m] is the score of the arc h -> m (float64, (n + 1) x (n + 1),
    0 = root; column 0 and the diagonal are ignored; -inf forbids an arc).
    With `single_root`, the root has exactly one dependent.  Ties go to the
    first split found.
    """
    size = scores.shape[0]
    heads = np.full(size, -1, dtype=np.int32)
    if size <= 1:
        return heads
    complete, incomplete, complete_split = span_tables(size)
    incomplete_split = np.zeros((size, size), dtype=np.int32)

    for width in range(1, size):
        for s in range(size - width):
            t = s + width
            # incomplete[s, t]: s's right half [s, r] meets t's left half [r + 1, t]
            best, best_r = -np.inf, s
            # a second dependent of the root would need [0, r] with r > 0
            last_r = s if (single_root and s == 0) else t - 1
            for r in range(s, last_r + 1):
                value = complete[RIGHT, s, r] + complete[LEFT, r + 1, t]
                if value > best:
                    best, best_r = value, r
            incomplete_split[s, t] = best_r
            incomplete[RIGHT, s, t] = best + scores[s, t]
            if s > 0:  # nothing depends on the root
                incomplete[LEFT, s, t] = best + scores[t, s]
            complete_span(complete, incomplete, complete_split, s, t)

    # backtrack with an explicit stack of spans (kind, direction, s, t)
    stack = np.empty((4 * size, 4), dtype=np.int32)  # at most 2n items, two pushes each
    push(stack, 0, COMPLETE, RIGHT, 0, size - 1)
    top = 1
    while top > 0:
        top -= 1
        kind, direction, s, t = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3]
        if s == t:
            continue
        if kind == COMPLETE:
            push_complete_parts(stack, top, complete_split, direction, s, t)
        else:
            if direction == LEFT:
                heads[s] = t
            else:
                heads[t] = s
            r = incomplete_split[s, t]
            push(stack, top, COMPLETE, RIGHT, s, r)
            push(stack, top + 1, COMPLETE, LEFT, r + 1, t)
        top += 2
    return heads
