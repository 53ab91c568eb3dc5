"""Projectivity and well-formedness against their definitions on small random trees."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as hs

from arcwise.trees.projectivity import (
    children,
    dominates,
    is_projective,
    is_well_formed,
    nonprojective_arcs,
    subtree_spans,
)
from tests.reference import trees_bruteforce as brute
from tests.reference.random_trees import trees

# 2011 paper, Figure 1: A hearing is scheduled on the issue today .
HEARING = np.array([-1, 2, 3, 0, 3, 2, 7, 5, 4, 3], dtype=np.int32)


def test_figure_1_has_two_nonprojective_arcs():
    # hearing -> on spans "is scheduled"; scheduled -> today spans "on the issue".
    assert np.flatnonzero(nonprojective_arcs(HEARING)).tolist() == [5, 8]
    assert not is_projective(HEARING)
    assert is_well_formed(HEARING)


def test_children_are_listed_left_to_right():
    start, words = children(HEARING)
    assert words[start[3] : start[4]].tolist() == [2, 4, 9]
    assert words[start[0] : start[1]].tolist() == [3]
    assert words[start[1] : start[2]].tolist() == []


def test_small_cases():
    assert is_projective(np.array([-1], dtype=np.int32))
    assert is_projective(np.array([-1, 0], dtype=np.int32))
    assert not is_well_formed(np.array([-1, 2, 1], dtype=np.int32))  # cycle 1 <-> 2
    assert not is_well_formed(np.array([-1, 1], dtype=np.int32))  # self loop
    assert not is_well_formed(np.array([0, 0], dtype=np.int32))  # heads[0] must be -1
    assert not is_well_formed(np.array([-1, 5], dtype=np.int32))  # head out of range
    assert not is_well_formed(np.array([-1, -1], dtype=np.int32))  # missing head
    # several root dependents are allowed: 1 -> 3 over the root dependent 2
    assert nonprojective_arcs(np.array([-1, 0, 0, 1], dtype=np.int32)).tolist() == [
        False,
        False,
        False,
        True,
    ]


@settings(max_examples=300, deadline=None)
@given(trees(min_words=1, max_words=8))
def test_nonprojective_arcs_match_definition(heads):
    array = np.array(heads, dtype=np.int32)
    assert nonprojective_arcs(array).tolist() == brute.nonprojective_arcs(heads)
    assert is_projective(array) == (not any(brute.nonprojective_arcs(heads)))


@settings(max_examples=200, deadline=None)
@given(trees(min_words=1, max_words=8))
def test_dominance_matches_ancestor_sets(heads):
    array = np.array(heads, dtype=np.int32)
    enter, leave = subtree_spans(array)
    for a in range(len(heads)):
        for w in range(len(heads)):
            assert dominates(enter, leave, a, w) == (a == w or a in brute.ancestors(heads, w))


@settings(max_examples=300, deadline=None)
@given(
    hs.integers(0, 7).flatmap(lambda n: hs.lists(hs.integers(-1, n + 1), min_size=n, max_size=n))
)
def test_well_formedness_matches_definition(tail):
    heads = [-1] + tail
    assert is_well_formed(np.array(heads, dtype=np.int32)) == brute.is_well_formed(heads)
