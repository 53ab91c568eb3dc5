"""Cycle counting (functional graphs) and Johnson's enumeration against brute force."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as hs

from arcwise.oracles.cycles import (
    count_elementary_cycles,
    count_functional_cycles,
    elementary_cycles,
    has_cycle,
)


def brute_force_cycles(succ) -> list[tuple[int, ...]]:
    """Every simple cycle, as the tuple of its nodes starting from its least node."""
    n = len(succ)
    found = []

    def extend(path):
        for w in succ[path[-1]]:
            if w == -1:
                continue
            if w == path[0]:
                found.append(tuple(path))
            elif w > path[0] and w not in path:
                extend(path + [w])

    for s in range(n):
        extend([s])
    return found


def as_cycles(nodes, starts) -> list[tuple[int, ...]]:
    return [tuple(int(v) for v in nodes[starts[c] : starts[c + 1]]) for c in range(len(starts) - 1)]


@hs.composite
def graphs(draw, max_nodes=7, max_width=3):
    n = draw(hs.integers(1, max_nodes))
    width = draw(hs.integers(1, max_width))
    rows = []
    for v in range(n):
        row = draw(hs.lists(hs.integers(-1, n - 1), min_size=width, max_size=width))
        row = [w for w in dict.fromkeys(row) if w != v]  # no self-loops or repeated edges
        rows.append(row + [-1] * (width - len(row)))
    return np.array(rows, dtype=np.int32).reshape(n, width)


@settings(max_examples=300, deadline=None)
@given(graphs())
def test_johnson_enumerates_every_elementary_cycle_once(succ):
    nodes, starts = elementary_cycles(succ)
    found = as_cycles(nodes, starts)
    expected = brute_force_cycles(succ.tolist())
    assert sorted(found) == sorted(expected)  # no cycle missing or repeated
    assert count_elementary_cycles(succ) == len(expected)
    assert has_cycle(succ) == bool(expected)
    for cycle in found:  # each is a closed walk along edges
        for k, v in enumerate(cycle):
            assert cycle[(k + 1) % len(cycle)] in succ[v]


@settings(max_examples=300, deadline=None)
@given(
    hs.integers(1, 9).flatmap(lambda n: hs.lists(hs.integers(-1, n - 1), min_size=n, max_size=n))
)
def test_functional_graph_count_is_the_number_of_cycles(parent):
    parent = [p if p != v else -1 for v, p in enumerate(parent)]
    succ = np.array(parent, dtype=np.int32).reshape(-1, 1)
    expected = len(brute_force_cycles(succ.tolist()))
    assert count_functional_cycles(np.array(parent, dtype=np.int32)) == expected


def test_overlapping_cycles_of_a_nonmonotonic_graph():
    # 1 -> 2 -> 3 -> 1 and 2 -> 3 -> 2 share the edge 2 -> 3; 4 is on no cycle
    succ = np.array([[-1, -1], [2, -1], [3, -1], [1, 2], [1, -1]], dtype=np.int32)
    assert sorted(as_cycles(*elementary_cycles(succ))) == [(1, 2, 3), (2, 3)]
    assert count_elementary_cycles(np.full((4, 2), -1, dtype=np.int32)) == 0
