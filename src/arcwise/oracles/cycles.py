"""Counting and enumerating the cycles the Covington oracles need.

Graphs are given by successor tables: ``succ[v, k]`` is the k-th successor of
node v, -1 padding.  The oracles pass the *parent* direction (v -> head of v),
whose cycles are those of the dependency graph, reversed.

- `count_functional_cycles`: a graph where every node has at most one
  successor (monotonic Covington's A ∪ I, in-degree 1) has disjoint cycles;
  colouring walks counts them in O(n).
- `elementary_cycles`: every elementary cycle of a small directed graph by
  Johnson's (1975) algorithm, O((n + e)(c + 1)); the non-monotonic A ∪ I has
  in-degree up to 2 and overlapping cycles.
"""

from __future__ import annotations

import numpy as np

from arcwise.core.jit import njit


@njit(cache=True)
def count_functional_cycles(parent):
    """Number of cycles of the graph v -> parent[v] (parent[v] = -1: none)."""
    n = len(parent)
    walk = np.full(n, -1, dtype=np.int32)  # the walk that first reached each node
    cycles = 0
    for start in range(n):
        v = start
        while v != -1 and walk[v] == -1:
            walk[v] = start
            v = parent[v]
        if v != -1 and walk[v] == start:
            cycles += 1
    return cycles


@njit(cache=True)
def has_cycle(succ):
    """Does the graph have a directed cycle?  (Iterative DFS colouring.)"""
    n, width = succ.shape
    colour = np.zeros(n, dtype=np.int8)  # 0 new, 1 on the DFS path, 2 done
    stack = np.empty(n, dtype=np.int32)
    edge = np.empty(n, dtype=np.int32)
    for root in range(n):
        if colour[root] != 0:
            continue
        depth = 0
        stack[0] = root
        edge[0] = 0
        colour[root] = 1
        while depth >= 0:
            v = stack[depth]
            if edge[depth] == width:
                colour[v] = 2
                depth -= 1
                continue
            w = succ[v, edge[depth]]
            edge[depth] += 1
            if w == -1 or colour[w] == 2:
                continue
            if colour[w] == 1:
                return True
            colour[w] = 1
            depth += 1
            stack[depth] = w
            edge[depth] = 0
    return False


@njit(cache=True)
def _component_of(succ, s):
    """Nodes of the strongly connected component of s in the subgraph of nodes >= s."""
    n, width = succ.shape
    forward = np.zeros(n, dtype=np.bool_)
    queue = np.empty(n, dtype=np.int32)
    forward[s] = True
    queue[0] = s
    head, tail = 0, 1
    while head < tail:
        v = queue[head]
        head += 1
        for k in range(width):
            w = succ[v, k]
            if w >= s and not forward[w]:
                forward[w] = True
                queue[tail] = w
                tail += 1
    # backward closure from s, restricted to nodes reached forward
    inside = np.zeros(n, dtype=np.bool_)
    inside[s] = True
    changed = True
    while changed:
        changed = False
        for v in range(s, n):
            if forward[v] and not inside[v]:
                for k in range(width):
                    w = succ[v, k]
                    if w != -1 and inside[w]:
                        inside[v] = True
                        changed = True
                        break
    return inside


@njit(cache=True)
def _unblock(u, blocked, b_sets, work):
    """Johnson's UNBLOCK, iteratively: free u and everything B(u) waits on."""
    top = 0
    work[0] = u
    blocked[u] = False
    while top >= 0:
        v = work[top]
        top -= 1
        for w in range(len(blocked)):
            if b_sets[v, w]:
                b_sets[v, w] = False
                if blocked[w]:
                    blocked[w] = False
                    top += 1
                    work[top] = w


@njit(cache=True)
def _grown(array, needed):
    bigger = np.empty(max(needed, 2 * len(array)), dtype=array.dtype)
    bigger[: len(array)] = array
    return bigger


@njit(cache=True)
def elementary_cycles(succ):
    """Every elementary cycle of the graph (Johnson 1975).

    Returns (nodes, starts): cycle c is nodes[starts[c]:starts[c + 1]], a
    closed walk v0 -> v1 -> ... -> v0 listed from its least node v0.
    """
    n, width = succ.shape
    nodes = np.empty(4 * n + 4, dtype=np.int32)
    starts = np.zeros(n + 2, dtype=np.int64)
    cycles = 0
    if not has_cycle(succ):
        return nodes[:0], starts[:1]
    blocked = np.zeros(n, dtype=np.bool_)
    b_sets = np.zeros((n, n), dtype=np.bool_)  # b_sets[w, v]: v is in B(w)
    path = np.empty(n, dtype=np.int32)
    edge = np.empty(n, dtype=np.int32)
    found = np.zeros(n, dtype=np.bool_)
    work = np.empty(n + 1, dtype=np.int32)
    for s in range(n):
        inside = _component_of(succ, s)
        closes = False
        for v in range(s, n):
            if inside[v]:
                for k in range(width):
                    if succ[v, k] == s:
                        closes = True
        if not closes:
            continue
        for v in range(s, n):
            blocked[v] = False
            b_sets[v, :] = False
        # CIRCUIT(s), with an explicit stack of (node, next edge, found a cycle)
        depth = 0
        path[0] = s
        edge[0] = 0
        found[0] = False
        blocked[s] = True
        while depth >= 0:
            v = path[depth]
            if edge[depth] < width:
                w = succ[v, edge[depth]]
                edge[depth] += 1
                if w == -1 or not inside[w]:
                    continue
                if w == s:
                    end = starts[cycles] + depth + 1
                    if end > len(nodes):
                        nodes = _grown(nodes, end)
                    if cycles + 2 > len(starts):
                        starts = _grown(starts, cycles + 2)
                    nodes[starts[cycles] : end] = path[: depth + 1]
                    cycles += 1
                    starts[cycles] = end
                    found[depth] = True
                elif not blocked[w]:
                    depth += 1
                    path[depth] = w
                    edge[depth] = 0
                    found[depth] = False
                    blocked[w] = True
                continue
            if found[depth]:
                _unblock(v, blocked, b_sets, work)
            else:
                for k in range(width):
                    w = succ[v, k]
                    if w != -1 and inside[w]:
                        b_sets[w, v] = True
            depth -= 1
            if depth >= 0 and found[depth + 1]:
                found[depth] = True
    return nodes[: starts[cycles]], starts[: cycles + 1]


@njit(cache=True)
def count_elementary_cycles(succ):
    """Number of elementary cycles (Johnson 1975)."""
    _, starts = elementary_cycles(succ)
    return len(starts) - 1
