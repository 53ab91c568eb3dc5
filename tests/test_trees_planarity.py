"""Crossings, planarity, 2-planarity and the canonical plane assignment, against brute force."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as hs

from arcwise.trees.planarity import (
    crossing,
    is_planar,
    is_two_planar,
    plane_assignment,
    words_two_planar,
)
from tests.reference import planarity_bruteforce as brute
from tests.reference.random_trees import trees


def as_heads(gold):
    return np.asarray(gold, dtype=np.int32)


def test_crossing_worked_examples():
    assert crossing((1, 3), (2, 4)) and crossing((4, 2), (3, 1))  # interleaved, either direction
    assert not crossing((1, 4), (2, 3))  # nested
    assert not crossing((1, 2), (3, 4))  # disjoint
    assert not crossing((1, 3), (3, 5)) and not crossing((1, 3), (1, 4))  # shared endpoint
    assert crossing((0, 2), (1, 3))  # a root arc crosses too


def test_two_planar_worked_example():
    # 4 -> 2 and 2 -> 5 both cross 3 -> 1
    gold = as_heads([-1, 3, 4, 0, 3, 2])
    assert not is_planar(gold) and is_two_planar(gold) and words_two_planar(gold)
    # 3->1 and 3->4 built first in plane 0; 4->2 and 2->5 cross 3->1 so go to plane 1
    assert plane_assignment(gold).tolist() == [-1, 0, 1, -1, 0, 1]


def test_root_arcs_count_for_two_planarity_but_the_parser_does_not_build_them():
    # 0 -> 2 crosses 4 -> 1, which crosses 1 -> 3 ... an odd cycle only through the root arc
    gold = as_heads([-1, 4, 0, 1, 2, 3])
    assert not is_two_planar(gold)
    assert words_two_planar(gold)
    planes = plane_assignment(gold)
    assert planes[2] == -1 and all(planes[d] >= 0 for d in (1, 3, 4, 5))


def test_three_mutually_crossing_arcs_are_not_two_planar():
    # 4 -> 1, 5 -> 2, 6 -> 3 cross pairwise
    gold = as_heads([-1, 4, 5, 6, 0, 4, 4])
    assert not words_two_planar(gold) and not is_two_planar(gold)
    planes = plane_assignment(gold)
    assert brute.same_plane_crossings(gold, planes) == []
    assert sum(planes[d] == -1 for d in (1, 2, 3)) == 1  # one arc is left out (footnote 4)


@settings(max_examples=300, deadline=None)
@given(hs.lists(hs.integers(0, 8), min_size=4, max_size=4))
def test_crossing_matches_brute_force(ends):
    a, b = (ends[0], ends[1]), (ends[2], ends[3])
    if a[0] == a[1] or b[0] == b[1]:
        return
    assert crossing(a, b) == brute.crosses(a, b) == crossing(b, a)


@settings(max_examples=300, deadline=None)
@given(trees(max_words=8))
def test_planarity_matches_brute_force(gold):
    heads = as_heads(gold)
    assert is_planar(heads) == brute.is_planar(gold)
    assert is_two_planar(heads) == brute.is_two_planar(gold, with_root=True)
    assert words_two_planar(heads) == brute.is_two_planar(gold, with_root=False)


@settings(max_examples=300, deadline=None)
@given(trees(max_words=8))
def test_plane_assignment_is_a_two_colouring(gold):
    heads = as_heads(gold)
    planes = plane_assignment(heads)
    assert planes.dtype == np.int8 and len(planes) == len(gold)
    assert planes[0] == -1
    assert all(planes[d] == -1 for d in range(1, len(gold)) if gold[d] == 0)
    assert brute.same_plane_crossings(gold, planes) == []
    placed_all = all(planes[d] >= 0 for d in range(1, len(gold)) if gold[d] != 0)
    assert placed_all == words_two_planar(heads)
