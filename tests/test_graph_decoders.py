"""Graph-based decoders against brute-force enumeration of every tree of short sentences.

Scores are compared, not trees: with integer scores, ties are frequent.
"""

from __future__ import annotations

from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from arcwise.graph import (
    chu_liu_edmonds,
    eisner,
    second_order_eisner,
    second_order_nonprojective,
    second_order_score,
)
from tests.reference.all_trees import all_trees, best_score, tree_score, trees_of
from tests.reference.random_trees import is_projective, trees
from tests.reference.trees_bruteforce import is_well_formed

MAX_WORDS = 6


@hs.composite
def score_matrices(draw, min_words=1, max_words=MAX_WORDS, second_order=False):
    """(arc, sib or None): integer scores (many ties) or real ones, from a drawn seed."""
    n = draw(hs.integers(min_words, max_words))
    rng = np.random.default_rng(draw(hs.integers(0, 2**32 - 1)))
    if draw(hs.booleans()):
        draw_scores = lambda shape: rng.integers(-3, 4, size=shape).astype(np.float64)  # noqa: E731
    else:
        draw_scores = lambda shape: rng.normal(size=shape)  # noqa: E731
    arc = draw_scores((n + 1, n + 1))
    sib = draw_scores((n + 1, n + 1, n + 1)) if second_order else None
    return arc, sib


def root_dependents(heads) -> int:
    return sum(1 for h in heads[1:] if h == 0)


def assert_tree(heads, n, projective=False, single_root=False):
    heads = list(heads)
    assert len(heads) == n + 1 and heads[0] == -1
    assert is_well_formed(heads), heads
    if projective:
        assert is_projective(heads), heads
    if single_root:
        assert root_dependents(heads) == 1, heads


# --- the enumerator itself ---------------------------------------------------


@pytest.mark.parametrize("n", range(1, MAX_WORDS + 1))
def test_enumeration_counts_every_tree_once(n):
    every = all_trees(n)
    assert len({tuple(t) for t in every}) == len(every) == (n + 1) ** (n - 1)  # Cayley
    assert all(is_well_formed(list(t)) for t in every[:: max(1, len(every) // 500)])
    assert len(trees_of(n, single_root=True)) == n ** (n - 1)  # a root dependent, then Cayley
    # projective trees under an artificial root: C(3n, n) / (2n + 1)
    assert len(trees_of(n, projective=True)) == comb(3 * n, n) // (2 * n + 1)


# --- first order -------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(score_matrices(), hs.booleans())
def test_eisner_finds_the_best_projective_tree(scores, single_root):
    arc, _ = scores
    n = len(arc) - 1
    heads = eisner(arc, single_root)
    assert heads.dtype == np.int32
    assert_tree(heads, n, projective=True, single_root=single_root)
    expected = best_score(arc, projective=True, single_root=single_root)
    assert tree_score(heads, arc) == pytest.approx(expected, abs=1e-9)


@settings(max_examples=150, deadline=None)
@given(score_matrices(), hs.booleans())
def test_chu_liu_edmonds_finds_the_best_tree(scores, single_root):
    arc, _ = scores
    n = len(arc) - 1
    heads = chu_liu_edmonds(arc, single_root)
    assert heads.dtype == np.int32
    assert_tree(heads, n, single_root=single_root)
    expected = best_score(arc, single_root=single_root)
    assert tree_score(heads, arc) == pytest.approx(expected, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(score_matrices(min_words=10, max_words=60), hs.booleans())
def test_chu_liu_edmonds_beats_eisner_on_longer_sentences(scores, single_root):
    arc, _ = scores
    n = len(arc) - 1
    best_tree = chu_liu_edmonds(arc, single_root)
    best_projective = eisner(arc, single_root)
    assert_tree(best_tree, n, single_root=single_root)
    assert_tree(best_projective, n, projective=True, single_root=single_root)
    assert tree_score(best_tree, arc) >= tree_score(best_projective, arc) - 1e-9
    if is_projective(list(best_tree)):  # then it is also the best projective tree
        assert tree_score(best_tree, arc) == pytest.approx(tree_score(best_projective, arc))


@settings(max_examples=80, deadline=None)
@given(hs.data(), hs.booleans(), hs.booleans())
def test_forbidden_arcs_are_never_used(data, projective, single_root):
    # -inf forbids an arc (e.g. arcs no system proposed); a tree of allowed arcs exists
    gold = data.draw(trees(1, MAX_WORDS, projective=projective, single_root=single_root))
    arc, _ = data.draw(score_matrices(len(gold) - 1, len(gold) - 1))
    rng = np.random.default_rng(data.draw(hs.integers(0, 2**32 - 1)))
    allowed = rng.random(arc.shape) < 0.4
    allowed[gold[1:], range(1, len(gold))] = True
    arc[~allowed] = -np.inf
    decoder = eisner if projective else chu_liu_edmonds
    heads = decoder(arc, single_root)
    assert_tree(heads, len(gold) - 1, projective=projective, single_root=single_root)
    assert all(allowed[heads[m], m] for m in range(1, len(gold)))
    assert tree_score(heads, arc) == pytest.approx(
        best_score(arc, projective=projective, single_root=single_root)
    )


def test_chu_liu_edmonds_contracts_nested_cycles():
    # 1 <-> 2 is the first cycle; {1,2} <-> 3 the next; the root arcs are weak
    arc = np.full((4, 4), -10.0)
    arc[0, 1], arc[0, 2], arc[0, 3] = 1.0, 0.0, 0.0
    arc[1, 2], arc[2, 1] = 10.0, 9.0
    arc[2, 3], arc[3, 1] = 8.0, 8.5
    heads = chu_liu_edmonds(arc)
    assert list(heads) == [-1, 0, 1, 2]
    assert tree_score(heads, arc) == best_score(arc)


@pytest.mark.parametrize("decoder", [eisner, chu_liu_edmonds])
def test_trivial_sentences(decoder):
    assert list(decoder(np.zeros((1, 1)))) == [-1]
    assert list(decoder(np.zeros((2, 2)), True)) == [-1, 0]


# --- second order ------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(hs.data())
def test_second_order_score_sums_arcs_and_adjacent_siblings(data):
    heads = data.draw(trees(1, 8))
    arc, sib = data.draw(score_matrices(len(heads) - 1, len(heads) - 1, second_order=True))
    expected = tree_score(heads, arc, sib)
    assert second_order_score(np.array(heads), arc, sib) == pytest.approx(expected)


@settings(max_examples=100, deadline=None)
@given(score_matrices(second_order=True), hs.booleans())
def test_second_order_eisner_finds_the_best_projective_tree(scores, single_root):
    arc, sib = scores
    n = len(arc) - 1
    heads = second_order_eisner(arc, sib, single_root)
    assert_tree(heads, n, projective=True, single_root=single_root)
    expected = best_score(arc, sib, projective=True, single_root=single_root)
    assert tree_score(heads, arc, sib) == pytest.approx(expected, abs=1e-9)


@settings(max_examples=30, deadline=None)
@given(score_matrices(second_order=True), hs.booleans())
def test_second_order_eisner_without_sibling_scores_is_eisner(scores, single_root):
    arc, sib = scores
    heads = second_order_eisner(arc, np.zeros_like(sib), single_root)
    assert tree_score(heads, arc) == pytest.approx(tree_score(eisner(arc, single_root), arc))


@settings(max_examples=100, deadline=None)
@given(score_matrices(second_order=True), hs.booleans())
def test_approximate_nonprojective_decoder_lies_between_the_optima(scores, single_root):
    arc, sib = scores
    n = len(arc) - 1
    heads = second_order_nonprojective(arc, sib, single_root)
    assert_tree(heads, n, single_root=single_root)
    score = tree_score(heads, arc, sib)
    projective_best = best_score(arc, sib, projective=True, single_root=single_root)
    overall_best = best_score(arc, sib, single_root=single_root)
    assert projective_best - 1e-9 <= score <= overall_best + 1e-9


@settings(max_examples=60, deadline=None)
@given(score_matrices(second_order=True), hs.booleans())
def test_approximate_nonprojective_decoder_stops_at_a_local_optimum(scores, single_root):
    # no change of one head that keeps a (single-root) tree raises the score
    arc, sib = scores
    heads = list(second_order_nonprojective(arc, sib, single_root))
    score = tree_score(heads, arc, sib)
    for m in range(1, len(heads)):
        for h in range(len(heads)):
            moved = heads[:m] + [h] + heads[m + 1 :]
            if h == m or not is_well_formed(moved):
                continue
            if single_root and root_dependents(moved) != 1:
                continue
            assert tree_score(moved, arc, sib) <= score + 1e-9, (heads, moved)


def test_approximate_nonprojective_decoder_can_cross_arcs():
    # 1 <- 3 and 2 <- 0 cross; sibling scores make the non-projective tree the best one
    arc = np.zeros((4, 4))
    arc[0, 3], arc[3, 1], arc[0, 2] = 5.0, 5.0, 5.0
    arc[3, 2] = 4.0
    sib = np.zeros((4, 4, 4))
    best = best_score(arc, sib)
    heads = second_order_nonprojective(arc, sib)
    assert tree_score(heads, arc, sib) == best
    assert list(heads) == [-1, 3, 0, 0] and not is_projective(list(heads))
    assert tree_score(second_order_eisner(arc, sib), arc, sib) < best


def test_max_rounds_zero_is_the_projective_parse():
    rng = np.random.default_rng(7)
    arc, sib = rng.normal(size=(9, 9)), rng.normal(size=(9, 9, 9))
    unmoved = second_order_nonprojective(arc, sib, False, 0)
    assert list(unmoved) == list(second_order_eisner(arc, sib))
