"""Non-projective decoding: the maximum spanning arborescence rooted at 0.

Chu & Liu (1965) and Edmonds (1967), as in McDonald et al. (2005) and the
2011 paper §2.2, in the dense O(n^2) form of Tarjan (1977) with the
expansion of Camerini, Fratta & Maffioli (1979):

- every node keeps its best incoming arc; while these arcs close a cycle,
  the cycle is contracted into one new node.  An arc u -> C into the cycle
  scores max over members m of s(u, m) - s(best arc into m); an arc C -> w
  scores max over members of s(m, w).  The new node reuses the matrix row
  and column of one member, so the working matrix stays (n + 1) x (n + 1).
- contracting a cycle of k nodes costs O(k n), and the k nodes become one,
  so all contractions together cost O(n^2); finding the next cycle is an
  O(n) colouring walk, done at most n times.  Total O(n^2) time, O(n^2) space.
- contractions form a forest over nodes 0..2n; expanding it walks, for each
  chosen arc (a, b), from leaf b up to the node the arc entered, dissolving
  the cycles on the way: O(n) in all.

Single root: if the best tree gives 0 several dependents, the decoder is run
again with every root arc lowered by a constant M larger than n times the
spread of the arc scores.  Every tree then pays M once per root dependent,
so the best tree has exactly one (any one-dependent tree beats any tree with
two) and, among those, the highest score.  At most two runs: O(n^2).  The
second run compares scores offset by M, so score differences below about
1e-16 M (M ~ 2 n max|s|) are rounded away.
"""

from __future__ import annotations

import numpy as np

from arcwise.core.jit import njit


@njit(cache=True)
def _find_cycle(best_in, alive, on_cycle):
    """Mark one cycle of the graph v -> best_in[v] over live nodes; its length (0: none)."""
    size = len(best_in)
    walk = np.full(size, -1, dtype=np.int32)
    for start in range(1, size):
        if not alive[start] or walk[start] != -1:
            continue
        v = start
        while v > 0 and walk[v] == -1:
            walk[v] = start
            v = best_in[v]
        if v > 0 and walk[v] == start:  # this walk closed a cycle through v
            length = 0
            u = v
            while True:
                on_cycle[u] = True
                length += 1
                u = best_in[u]
                if u == v:
                    return length
    return 0


@njit(cache=True)
def _best_incoming(weight, alive, v):
    best, best_u = -np.inf, -1
    for u in range(len(alive)):
        if alive[u] and u != v and (best_u == -1 or weight[u, v] > best):
            best, best_u = weight[u, v], u
    return best_u


@njit(cache=True)
def _arborescence(scores):
    size = scores.shape[0]
    weight = scores.copy()
    source = np.empty((size, size), dtype=np.int32)  # the original arc behind weight[u, v]
    target = np.empty((size, size), dtype=np.int32)
    for u in range(size):
        for v in range(size):
            source[u, v], target[u, v] = u, v
    alive = np.ones(size, dtype=np.bool_)
    node_at = np.arange(size).astype(np.int32)  # forest node held by each matrix slot
    forest_parent = np.full(2 * size, -1, dtype=np.int32)
    members_start = np.zeros(2 * size + 1, dtype=np.int32)  # children of contracted nodes
    members = np.empty(2 * size, dtype=np.int32)
    entered_by = np.full((2 * size, 2), -1, dtype=np.int32)  # original arc chosen into a node
    next_node = size

    best_in = np.full(size, -1, dtype=np.int32)
    for v in range(1, size):
        best_in[v] = _best_incoming(weight, alive, v)
    on_cycle = np.zeros(size, dtype=np.bool_)
    cycle = np.empty(size, dtype=np.int32)  # the slots of the cycle being contracted
    cycle_arc = np.zeros(size)  # score of the cycle arc into each of them
    while _find_cycle(best_in, alive, on_cycle) > 0:
        k = 0
        filled = members_start[next_node - size]
        for m in range(size):
            if on_cycle[m]:
                cycle[k] = m
                k += 1
                cycle_arc[m] = weight[best_in[m], m]
                node = node_at[m]
                forest_parent[node] = next_node
                entered_by[node, 0] = source[best_in[m], m]
                entered_by[node, 1] = target[best_in[m], m]
                members[filled] = node
                filled += 1
        members_start[next_node - size + 1] = filled
        rep = cycle[0]  # the slot the contracted node takes over
        for u in range(size):  # O(k n)
            if not alive[u] or on_cycle[u]:
                continue
            best_into, into_m = -np.inf, -1
            best_from, from_m = -np.inf, -1
            for i in range(k):
                m = cycle[i]
                into = weight[u, m] - cycle_arc[m]
                if into_m == -1 or into > best_into:
                    best_into, into_m = into, m
                if from_m == -1 or weight[m, u] > best_from:
                    best_from, from_m = weight[m, u], m
            weight[u, rep] = best_into
            source[u, rep], target[u, rep] = source[u, into_m], target[u, into_m]
            weight[rep, u] = best_from
            source[rep, u], target[rep, u] = source[from_m, u], target[from_m, u]
        for i in range(k):
            on_cycle[cycle[i]] = False
            alive[cycle[i]] = i == 0
        node_at[rep] = next_node
        next_node += 1
        best_in[rep] = _best_incoming(weight, alive, rep)
        for v in range(1, size):  # arcs that left a member now leave the cycle node
            if alive[v] and not alive[best_in[v]]:
                best_in[v] = rep

    # expansion: each chosen arc (a, b) dissolves the cycles from leaf b up to the node it entered
    heads = np.full(size, -1, dtype=np.int32)
    pending = np.empty(2 * size, dtype=np.int32)
    top = 0
    for v in range(1, size):
        if alive[v]:
            node = node_at[v]
            entered_by[node, 0] = source[best_in[v], v]
            entered_by[node, 1] = target[best_in[v], v]
            pending[top] = node
            top += 1
    while top > 0:
        top -= 1
        entered = pending[top]
        a, b = entered_by[entered, 0], entered_by[entered, 1]
        heads[b] = a
        below, x = -1, b
        while below != entered:
            if x >= size:  # a contracted cycle: its other members keep their cycle arcs
                for k in range(members_start[x - size], members_start[x - size + 1]):
                    if members[k] != below:
                        pending[top] = members[k]
                        top += 1
            below, x = x, forest_parent[x]
    return heads


@njit(cache=True)
def chu_liu_edmonds(scores, single_root=False):
    """Heads (int32, n + 1, heads[0] = -1) of the best spanning tree rooted at 0.

    scores[h, m] is the score of the arc h -> m (float64, (n + 1) x (n + 1);
    column 0 and the diagonal are ignored; -inf forbids an arc, and some
    tree must then use allowed arcs only).  With `single_root`, the root
    has exactly one dependent.  O(n^2) time.
    """
    size = scores.shape[0]
    if size <= 2:
        heads = np.full(size, -1, dtype=np.int32)
        if size == 2:
            heads[1] = 0
        return heads
    heads = _arborescence(scores)
    if not single_root:
        return heads
    dependents_of_root = 0
    for d in range(1, size):
        if heads[d] == 0:
            dependents_of_root += 1
    if dependents_of_root == 1:
        return heads
    low, high = np.inf, -np.inf
    for h in range(size):
        for m in range(1, size):
            if h != m and np.isfinite(scores[h, m]):
                low = min(low, scores[h, m])
                high = max(high, scores[h, m])
    penalty = 1.0 + size * (high - low)
    lowered = scores.copy()
    for m in range(1, size):
        lowered[0, m] -= penalty
    return _arborescence(lowered)
