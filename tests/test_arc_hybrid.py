"""Arc-hybrid (root at the buffer end) and the Goldberg & Nivre (2013) oracles."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as hs

from arcwise import systems
from tests.reference import exhaustive
from tests.reference.random_trees import (
    is_forest,
    is_projective,
    random_walk,
    reachable_configurations,
    static_oracle_path,
    trees,
)


def zero_cost(ts, c, gold):
    return {a for a, cost in ts.costs(c, gold).items() if cost == 0}


def follow_static_oracle(ts, n, gold, limit=10_000):
    """The terminal configuration and the action names the static oracle takes from the start."""
    assert n == len(gold) - 1
    return static_oracle_path(ts, gold, limit)


def follow_zero_cost(ts, c, gold, rng, limit=10_000):
    """Take random zero-cost actions until a terminal configuration."""
    for _ in range(limit):
        if ts.is_terminal(c):
            return c
        free = sorted(zero_cost(ts, c, gold))
        assert free, f"no zero-cost action in {c!r}"
        c = ts.apply(c, free[rng.integers(len(free))])
    raise AssertionError("zero-cost walk does not terminate")


# --- worked examples ----------------------------------------------------------


def test_worked_example_with_zero_cost_sets():
    # "I saw her": I <- saw, ROOT -> saw, saw -> her.
    ts = systems.get("arc-hybrid")
    gold = [-1, 2, 0, 2]
    script = [  # (action taken, zero-cost actions before it)
        ("shift", {"shift"}),
        ("left-arc", {"left-arc"}),  # shifting "saw" would strand "I"
        ("shift", {"shift"}),
        ("shift", {"shift"}),  # left-arc would give "saw" the head "her"
        ("right-arc", {"right-arc"}),
        ("left-arc", {"left-arc"}),  # the root, at the buffer end, takes "saw"
    ]
    c = ts.initial(3)
    assert c.stack == () and c.buffer == (1, 2, 3, 0)
    for action, free in script:
        assert zero_cost(ts, c, gold) == free, c
        assert ts.static_oracle(c, gold) == action
        c = ts.apply(c, action)
    assert ts.is_terminal(c) and c.buffer == (0,) and ts.heads(c) == gold
    assert ts.loss(c, gold) == 0


def test_worked_example_after_a_mistake():
    ts = systems.get("arc-hybrid")
    gold = [-1, 2, 0, 2]
    c = ts.initial(3)
    for action in ["shift", "left-arc", "shift"]:
        c = ts.apply(c, action)
    # σ=[saw], β=[her, ROOT]: LEFT-ARC would make "her" the head of "saw" and
    # strand "her" (its head leaves the stack): two gold arcs lost at once.
    assert ts.costs(c, gold) == {"shift": 0, "left-arc": 2}
    c = ts.apply(c, "left-arc")
    assert ts.loss(c, gold) == 2
    assert ts.legal(c) == ["shift"]


def test_several_root_dependents_and_variants():
    ts = systems.get("arc-hybrid")
    c = ts.initial(2)
    for action in ["shift", "left-arc", "shift", "left-arc"]:
        c = ts.apply(c, action)
    assert ts.is_terminal(c) and ts.heads(c) == [-1, 2, 0]
    c = ts.initial(2)
    for action in ["shift", "shift", "left-arc", "left-arc"]:
        c = ts.apply(c, action)
    assert ts.is_terminal(c) and ts.heads(c) == [-1, 0, 0]  # two root dependents
    assert "swap" not in ts.actions and ts.initial(0) == ts.initial(0)
    assert ts.is_terminal(ts.initial(0))


# --- properties against brute force --------------------------------------------


@settings(max_examples=60, deadline=None)
@given(trees(max_words=7, projective=True))
def test_static_oracle_rebuilds_projective_trees(gold):
    ts = systems.get("arc-hybrid")
    c, _ = follow_static_oracle(ts, len(gold) - 1, gold)
    assert ts.heads(c) == gold


@settings(max_examples=40, deadline=None)
@given(trees(max_words=6))
def test_can_build_agrees_with_exhaustive_search(gold):
    ts = systems.get("arc-hybrid")
    reachable = exhaustive.min_loss(ts, ts.initial(len(gold) - 1), gold) == 0
    assert ts.can_build(gold) == reachable == is_projective(gold)


@settings(max_examples=80, deadline=None)
@given(hs.data())
def test_dynamic_oracle_is_exact_on_projective_trees(data):
    ts = systems.get("arc-hybrid")
    gold = data.draw(trees(max_words=7, projective=True))
    c = data.draw(reachable_configurations(ts, gold))
    memo = {}
    assert ts.loss(c, gold) == exhaustive.min_loss(ts, c, gold, memo)
    assert ts.costs(c, gold) == exhaustive.costs(ts, c, gold, memo)


@settings(max_examples=40, deadline=None)
@given(hs.data())
def test_loss_is_a_lower_bound_on_non_projective_trees(data):
    ts = systems.get("arc-hybrid")
    gold = data.draw(trees(min_words=3, max_words=6))
    c = data.draw(reachable_configurations(ts, gold))
    assert ts.loss(c, gold) <= exhaustive.min_loss(ts, c, gold)


@settings(max_examples=50, deadline=None)
@given(trees(max_words=7), hs.integers(0, 2**32 - 1))
def test_random_walks_terminate_in_a_tree(gold, seed):
    ts = systems.get("arc-hybrid")
    n = len(gold) - 1
    c = random_walk(ts, n, np.random.default_rng(seed), 4 * n + 1)
    assert ts.is_terminal(c) and c.stack == () and c.buffer == (0,)
    heads = ts.heads(c)
    assert all(h != -1 for h in heads[1:]) and is_forest(heads)
