"""Crossing arcs, planarity, 2-planarity and the canonical plane assignment.

A tree is an int32 array `heads` of n+1 cells, heads[0] == -1; the arc of word
d >= 1 is heads[d] -> d, and arcs are indexed by their dependent.  Two arcs
cross when their endpoints strictly interleave (arcs sharing an endpoint never
cross).  A tree is 2-planar when its arcs can be split into two planes without
crossings inside a plane, i.e. the crossing graph of its arcs is bipartite
(Gómez-Rodríguez & Nivre 2010).  `is_planar` and `is_two_planar` count the
root arcs from node 0, as the treebank statistics do; the 2-Planar parser
builds root arcs implicitly, so what it can build is `words_two_planar`.
"""

from __future__ import annotations

import numpy as np

from arcwise.core.jit import njit

ANY_PLANE = 2  # plane constraint of an arc no built arc has fixed yet
NO_PLANE = 3  # an arc that crosses arcs of both planes (the tree is not 2-planar)


@njit(cache=True)
def crossing(a, b):
    """Do arcs a = (u, v) and b = (w, x) cross (strictly interleaved endpoints)?"""
    l1, r1 = min(a[0], a[1]), max(a[0], a[1])
    l2, r2 = min(b[0], b[1]), max(b[0], b[1])
    return (l1 < l2 < r1 < r2) or (l2 < l1 < r2 < r1)


@njit(cache=True)
def _arcs_cross(heads, d, e):
    return crossing((np.int64(heads[d]), np.int64(d)), (np.int64(heads[e]), np.int64(e)))


@njit(cache=True)
def _crossing_graph_colouring(heads, with_root):
    """A 2-colouring of the crossing graph (colour per dependent) and whether one exists."""
    n = len(heads) - 1
    colour = np.full(n + 1, -1, dtype=np.int8)
    queue = np.empty(n + 1, dtype=np.int64)
    for start in range(1, n + 1):
        if colour[start] != -1 or heads[start] < 0 or (heads[start] == 0 and not with_root):
            continue
        colour[start] = 0
        queue[0], size, k = start, 1, 0
        while k < size:
            d = queue[k]
            k += 1
            for e in range(1, n + 1):
                if e == d or heads[e] < 0 or (heads[e] == 0 and not with_root):
                    continue
                if _arcs_cross(heads, d, e):
                    if colour[e] == -1:
                        colour[e] = 1 - colour[d]
                        queue[size] = e
                        size += 1
                    elif colour[e] == colour[d]:
                        return colour, False
    return colour, True


@njit(cache=True)
def is_planar(heads):
    """No two arcs (root arcs included) cross."""
    n = len(heads) - 1
    for d in range(1, n + 1):
        for e in range(d + 1, n + 1):
            if _arcs_cross(heads, d, e):
                return False
    return True


@njit(cache=True)
def is_two_planar(heads):
    """The crossing graph of the arcs, root arcs from node 0 included, is bipartite."""
    return _crossing_graph_colouring(heads, True)[1]


@njit(cache=True)
def words_two_planar(heads):
    """The arcs between words (root arcs left out) are 2-planar: what the 2-Planar parser builds."""
    return _crossing_graph_colouring(heads, False)[1]


# --- the canonical plane assignment ------------------------------------------


@njit(cache=True)
def _fix_plane(heads, constraint, d, plane):
    """Arc d is built in `plane`: arcs crossing it get the other plane, and so on.

    The constraint spreads through the arc's component of the crossing graph;
    an arc that would need both planes gets NO_PLANE.
    """
    n = len(heads) - 1
    todo = np.empty(n + 1, dtype=np.int64)
    constraint[d] = plane
    todo[0], size = d, 1
    while size > 0:
        size -= 1
        a = todo[size]
        p = constraint[a]
        for e in range(1, n + 1):
            if e == a or heads[e] <= 0 or not _arcs_cross(heads, a, e):
                continue
            if constraint[e] == ANY_PLANE:
                constraint[e] = 1 - p
                todo[size] = e
                size += 1
            elif constraint[e] == p:
                constraint[e] = NO_PLANE


@njit(cache=True)
def _pending_on_plane(heads, built, constraint, j, limit, plane, active):
    """An unbuilt arc between j and a word k < limit that goes to `plane`?

    An arc with no constraint yet goes to the active plane.
    """
    for k in range(1, limit):
        if heads[k] == j and not built[k]:
            d = k
        elif heads[j] == k and not built[j]:
            d = j
        else:
            continue
        decided = active if constraint[d] == ANY_PLANE else constraint[d]
        if decided == plane:
            return True
    return False


@njit(cache=True)
def plane_assignment(heads):
    """The plane (0/1) of each word's arc in the static oracle's derivation; int8 array (n+1).

    The 2018 dynamic oracle paper (§3) takes as canonical the planes chosen by
    the static oracle of Gómez-Rodríguez & Nivre (2010), which prefers the
    active plane; this runs that oracle on two bare stacks (plane 0 active
    first, empty stacks, root arcs implicit) and records where it builds each
    arc.  Rules, in order, with s / t the tops of the active / inactive stack
    and j the buffer front::

      1. a gold arc s - j: Left-Arc / Right-Arc in the active plane;
      2. a gold arc t - j: Switch;
      3. an unbuilt gold arc between j and a word left of s that goes to the
         active plane: Reduce;
      4. the same for t and the inactive plane: Switch;
      5. Shift.

    An arc goes to the plane forced by the built arcs it crosses (directly or
    through other arcs), else to the active plane.  A Switch never follows a
    Switch (the parser forbids it; on trees of up to 6 words it never comes
    up).  -1 for word 0, for root arcs (never built) and for the arcs the
    oracle cannot build when the words' arcs are not 2-planar (footnote 4:
    the rest is the 2-planar subset the dynamic oracle works with).
    """
    n = len(heads) - 1
    plane = np.full(n + 1, -1, dtype=np.int8)
    built = np.zeros(n + 1, dtype=np.bool_)
    constraint = np.full(n + 1, ANY_PLANE, dtype=np.int8)
    stacks = np.empty((2, n + 1), dtype=np.int64)
    depth = np.zeros(2, dtype=np.int64)
    active, j, switched = 0, 1, False
    steps = 0
    while j <= n and steps < 4 * (n + 1) * (n + 1):
        steps += 1
        s = stacks[active, depth[active] - 1] if depth[active] > 0 else -1
        t = stacks[1 - active, depth[1 - active] - 1] if depth[1 - active] > 0 else -1
        if s != -1 and heads[s] == j and not built[s]:  # 1. Left-Arc
            d = s
        elif s != -1 and heads[j] == s and not built[j]:  # 1. Right-Arc
            d = j
        else:
            d = -1
        if d != -1:
            built[d] = True
            plane[d] = active
            _fix_plane(heads, constraint, d, active)
            switched = False
            continue
        arc_to_t = t != -1 and (
            (heads[t] == j and not built[t]) or (heads[j] == t and not built[j])
        )
        if arc_to_t and not switched:  # 2.
            active, switched = 1 - active, True
        elif s != -1 and _pending_on_plane(heads, built, constraint, j, s, active, active):  # 3.
            depth[active] -= 1
            switched = False
        elif (
            not switched
            and t != -1
            and _pending_on_plane(heads, built, constraint, j, t, 1 - active, active)
        ):  # 4.
            active, switched = 1 - active, True
        else:  # 5. Shift
            for p in range(2):
                stacks[p, depth[p]] = j
                depth[p] += 1
            j += 1
            switched = False
    return plane
