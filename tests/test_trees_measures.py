"""Arc length, root distance, siblings and direction (2011 paper, §4) against brute force."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as hs

from arcwise.trees import measures
from tests.reference import trees_bruteforce as brute
from tests.reference.random_trees import trees

# 2011 paper, Figure 1: A hearing is scheduled on the issue today .
HEARING = np.array([-1, 2, 3, 0, 3, 2, 7, 5, 4, 3], dtype=np.int32)


def test_figure_1_examples_of_section_4():
    distance = measures.root_distances(HEARING)
    assert distance[3] == 1  # ROOT -> is
    assert distance[1] == 3  # hearing -> A
    siblings = measures.sibling_counts(HEARING)
    assert siblings[[2, 4, 9]].tolist() == [2, 2, 2]  # is -> hearing, scheduled, "."
    assert siblings[3] == 0
    lengths = measures.arc_lengths(HEARING)
    assert lengths.tolist() == [0, 1, 1, 3, 1, 3, 1, 2, 4, 6]  # root arc 0 -> 3 has length 3
    L, R = measures.LEFT, measures.RIGHT
    assert measures.arc_directions(HEARING).tolist() == [0, L, L, R, R, R, L, R, R, R]


@settings(max_examples=300, deadline=None)
@given(trees(min_words=1, max_words=8))
def test_measures_match_brute_force(heads):
    array = np.array(heads, dtype=np.int32)
    assert measures.arc_lengths(array).tolist() == brute.arc_lengths(heads)
    assert measures.root_distances(array).tolist() == brute.root_distances(heads)
    assert measures.sibling_counts(array).tolist() == brute.sibling_counts(heads)
    assert measures.arc_directions(array).tolist() == brute.arc_directions(heads)


@settings(max_examples=300, deadline=None)
@given(hs.integers(0, 7).flatmap(lambda n: hs.lists(hs.integers(-1, n), min_size=n, max_size=n)))
def test_root_distance_is_minus_one_off_the_tree(tail):
    heads = [-1] + tail  # arbitrary graphs: cycles and missing heads
    assert measures.root_distances(
        np.array(heads, dtype=np.int32)
    ).tolist() == brute.root_distances(heads)
