"""The projective order and the maximal projective components, against brute force."""

from functools import lru_cache

import numpy as np
from hypothesis import given, settings

from arcwise.trees.projective_order import (
    inorder,
    maximal_projective_components,
    projective_positions,
)
from tests.reference.random_trees import is_projective, trees

# "A hearing is scheduled on the issue today" (Nivre 2009).
HEARING = [-1, 2, 3, 0, 3, 2, 7, 5, 4]


def recursive_inorder(heads):
    def visit(w):
        deps = [d for d in range(1, len(heads)) if heads[d] == w]
        left = [x for d in deps if d < w for x in visit(d)]
        right = [x for d in deps if d > w for x in visit(d)]
        return left + [w] + right

    return visit(0)


def reordered(heads, order):
    """The tree with its words renumbered by their place in `order`."""
    place = {w: k for k, w in enumerate(order)}
    new = [-1] * len(heads)
    for d in range(1, len(heads)):
        new[place[d]] = place[heads[d]]
    return new


def most_gold_arcs_without_swap(heads):
    """Exhaustive arc-standard over words 1..n building only gold arcs into
    complete dependents (losing none): the most arcs it can build."""
    n = len(heads) - 1

    def complete(w, attached):
        return all(d in attached for d in range(1, n + 1) if heads[d] == w)

    @lru_cache(maxsize=None)
    def best(stack, j, attached):
        options = [best(stack + (j,), j + 1, attached)] if j <= n else [0]
        if len(stack) >= 2:
            s1, s0 = stack[-2], stack[-1]
            if heads[s0] == s1 and complete(s0, attached):
                options.append(1 + best(stack[:-1], j, attached | {s0}))
            if heads[s1] == s0 and complete(s1, attached):
                options.append(1 + best(stack[:-2] + (s0,), j, attached | {s1}))
        return max(options)

    return best((), 1, frozenset())


def test_hearing_example():
    assert inorder(np.array(HEARING, dtype=np.int32)).tolist() == [0, 1, 2, 5, 6, 7, 3, 4, 8]
    # A hearing | is | scheduled | on the issue | today
    assert maximal_projective_components(np.array(HEARING, dtype=np.int32)).tolist() == [
        0, 2, 2, 3, 4, 5, 5, 5, 8,
    ]


@settings(max_examples=200, deadline=None)
@given(trees(max_words=9))
def test_inorder_matches_brute_force_and_makes_every_tree_projective(gold):
    order = inorder(np.array(gold, dtype=np.int32)).tolist()
    assert order == recursive_inorder(gold)
    assert sorted(order) == list(range(len(gold))) and order[0] == 0
    assert is_projective(reordered(gold, order))
    position = projective_positions(np.array(gold, dtype=np.int32))
    assert [order[p] for p in position] == list(range(len(gold)))


@settings(max_examples=100, deadline=None)
@given(trees(max_words=9, projective=True))
def test_projective_trees_keep_their_order_and_split_at_the_root(gold):
    assert inorder(np.array(gold, dtype=np.int32)).tolist() == list(range(len(gold)))
    component = maximal_projective_components(np.array(gold, dtype=np.int32))
    for w in range(1, len(gold)):
        top = w
        while gold[top] != 0:
            top = gold[top]
        assert component[w] == top  # the whole subtree of each root dependent


@settings(max_examples=150, deadline=None)
@given(trees(max_words=8))
def test_components_are_the_most_a_projective_parser_builds(gold):
    component = maximal_projective_components(np.array(gold, dtype=np.int32)).tolist()
    n = len(gold) - 1
    roots = set(component[1:])
    assert n - len(roots) == most_gold_arcs_without_swap(gold)
    for r in roots:
        words = [w for w in range(1, n + 1) if component[w] == r]
        assert words == list(range(words[0], words[-1] + 1))  # a contiguous span
        assert all(gold[w] in words for w in words if w != r)  # a subtree headed by r
