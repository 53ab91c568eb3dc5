"""Per-arc measures of a dependency tree, as defined for the error analysis of
McDonald & Nivre, "Analyzing and Integrating Dependency Parsers" (2011), §4.

Each function takes `heads` (length n + 1, heads[0] == -1) and returns an
int32 array of length n + 1 whose entry d describes the arc heads[d] -> d;
entry 0 (the root has no arc) is 0.

- arc length (§4.1): ``|h - d|``.  Root arcs count like any other: the root is
  word 0, so the arc 0 -> d has length d.
- distance to root (§4.2): the number of arcs on the path from d up to 0;
  a root arc has distance 1.  -1 for a word not connected to 0.
- siblings (§4.2): the number of *other* arcs with the same head, so an only
  child has 0 siblings (the paper's Figure 7 starts at 0).
- direction: RIGHT (+1) when the head precedes the dependent (root arcs
  included), LEFT (-1) when it follows.
"""

from __future__ import annotations

import numpy as np

from arcwise.core.jit import njit

LEFT = -1
RIGHT = 1
_UNKNOWN = -2


@njit(cache=True)
def arc_lengths(heads):
    """``|heads[d] - d|`` for every word d; root arcs have length d (§4.1)."""
    size = len(heads)
    result = np.zeros(size, dtype=np.int32)
    for d in range(1, size):
        result[d] = abs(heads[d] - d)
    return result


@njit(cache=True)
def root_distances(heads):
    """Number of arcs from d up to the root 0 (§4.2); 0 at the root, -1 if d never reaches 0."""
    size = len(heads)
    distance = np.full(size, _UNKNOWN, dtype=np.int32)
    distance[0] = 0
    path = np.empty(size + 1, dtype=np.int32)
    for d in range(1, size):
        steps = 0
        w = d
        while 0 <= w < size and distance[w] == _UNKNOWN and steps <= size:
            path[steps] = w
            steps += 1
            w = heads[w]
        if 0 <= w < size and distance[w] >= 0:
            base = distance[w]
            for k in range(steps):
                distance[path[k]] = base + steps - k
        else:  # a missing head, or a walk longer than the sentence: a cycle
            for k in range(steps):
                distance[path[k]] = -1
    return distance


@njit(cache=True)
def sibling_counts(heads):
    """Number of other dependents of heads[d] (§4.2); 0 at the root."""
    size = len(heads)
    dependents = np.zeros(size, dtype=np.int32)
    for d in range(1, size):
        if 0 <= heads[d] < size:
            dependents[heads[d]] += 1
    result = np.zeros(size, dtype=np.int32)
    for d in range(1, size):
        if 0 <= heads[d] < size:
            result[d] = dependents[heads[d]] - 1
    return result


@njit(cache=True)
def arc_directions(heads):
    """RIGHT (+1) if heads[d] < d, LEFT (-1) if heads[d] > d; 0 at the root."""
    size = len(heads)
    result = np.zeros(size, dtype=np.int32)
    for d in range(1, size):
        result[d] = RIGHT if heads[d] < d else LEFT
    return result
