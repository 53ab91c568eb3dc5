"""Crossings, planarity and 2-planarity by explicit enumeration (truth for trees.planarity)."""

from __future__ import annotations

import itertools


def crosses(a, b) -> bool:
    """Four distinct endpoints, exactly one endpoint of b strictly inside a's span."""
    if len({a[0], a[1], b[0], b[1]}) < 4:
        return False
    left, right = min(a), max(a)
    inside = [left < x < right for x in b]
    return inside.count(True) == 1


def arcs(heads, with_root=True) -> list[tuple[int, int]]:
    """(head, dependent) of every word, root arcs from 0 optionally left out."""
    first = 0 if with_root else 1
    return [(heads[d], d) for d in range(1, len(heads)) if heads[d] >= first]


def is_planar(heads) -> bool:
    return not any(crosses(a, b) for a, b in itertools.combinations(arcs(heads), 2))


def is_two_planar(heads, with_root=True) -> bool:
    """Some split of the arcs into two planes puts no two crossing arcs in one plane."""
    arc_list = arcs(heads, with_root)
    crossing_pairs = [
        (a, b)
        for a, b in itertools.combinations(range(len(arc_list)), 2)
        if crosses(arc_list[a], arc_list[b])
    ]
    for planes in itertools.product((0, 1), repeat=len(arc_list)):
        if all(planes[a] != planes[b] for a, b in crossing_pairs):
            return True
    return False


def same_plane_crossings(heads, planes) -> list[tuple[int, int]]:
    """Pairs of dependents whose arcs cross and were given the same plane (planes[d] >= 0)."""
    n = len(heads) - 1
    return [
        (d, e)
        for d, e in itertools.combinations(range(1, n + 1), 2)
        if planes[d] >= 0 and planes[d] == planes[e] and crosses((heads[d], d), (heads[e], e))
    ]
