"""Non-monotonic arc-eager (Honnibal, Goldberg & Johnson 2013) and its dynamic oracle."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from arcwise import systems
from arcwise.systems import Configuration
from arcwise.systems import state as st
from tests.reference import exhaustive
from tests.reference.random_trees import random_walk, reachable_configurations, trees
from tests.test_arc_eager import APPLE, examples, follow_static, is_forest, zero_cost


RAW = {"priority": "none"}  # the non-monotonic costs alone, without the paper's priority (§6)


def test_left_arc_repairs_a_right_arc_that_should_have_been_a_shift():
    ts = systems.get("arc-eager-nm", **RAW)
    c = ts.initial(5)
    for a in ["shift", "left-arc", "right-arc"]:
        c = ts.apply(c, a)
    # σ=[0, ate], β=[the, red, apple]: ate -> the is wrong, but LEFT-ARC can still replace it
    assert zero_cost(ts, c, APPLE) == {"shift", "right-arc"}
    assert systems.get("arc-eager").costs(c, APPLE)["right-arc"] == 1  # monotonic: lost
    script = [
        ("right-arc", {"shift", "right-arc"}),  # the mistake: ate -> the
        ("shift", {"shift", "right-arc"}),  # the -> red would be repairable too
        ("left-arc", {"left-arc"}),  # red <- apple
        ("left-arc", {"left-arc"}),  # the <- apple replaces ate -> the
        ("right-arc", {"right-arc"}),
    ]
    for action, free in script:
        assert zero_cost(ts, c, APPLE) == free
        c = ts.apply(c, action)
    assert ts.is_terminal(c) and ts.heads(c) == APPLE


def test_reduce_repairs_a_shift_that_should_have_been_a_right_arc():
    # "She ate apples today": 2 -> 1, 0 -> 2, 2 -> 3, 2 -> 4
    ts = systems.get("arc-eager-nm", **RAW)
    gold = [-1, 2, 0, 2, 2]
    c = ts.initial(4)
    for a in ["shift", "left-arc", "right-arc"]:
        c = ts.apply(c, a)
    assert zero_cost(ts, c, gold) == {"shift", "right-arc"}  # shifting apples is repairable
    c = ts.apply(c, "shift")
    assert ts.costs(c, gold) == {"shift": 2, "left-arc": 1, "right-arc": 2, "reduce": 0}
    c = ts.apply(c, "reduce")  # headless apples attached to s1 = ate
    assert ts.heads(c) == [-1, 2, 0, 2, -1]
    c = ts.apply(c, "right-arc")
    assert ts.is_terminal(c) and ts.heads(c) == gold


def test_no_repair_after_the_last_word():
    # Shifting the last word ends the parse, so nothing can attach it to s0 any more.
    ts = systems.get("arc-eager-nm", **RAW)
    gold = [-1, 0, 1]
    c = ts.apply(ts.initial(2), "right-arc")
    assert ts.costs(c, gold) == {"shift": 1, "left-arc": 2, "right-arc": 0, "reduce": 1}


def test_preconditions():
    ts = systems.get("arc-eager-nm")
    c = ts.initial(3)
    assert ts.legal(c) == ["shift", "right-arc"]  # 0 is never popped
    c = ts.apply(ts.apply(c, "shift"), "right-arc")  # σ=[0, 1, 2], 1 -> 2
    assert ts.legal(c) == ["shift", "left-arc", "right-arc", "reduce"]  # LEFT-ARC despite the head


@settings(max_examples=examples(120), deadline=None)
@given(hs.data())
def test_dynamic_oracle_is_exact_on_projective_trees(data):
    ts = systems.get("arc-eager-nm", **RAW)
    gold = data.draw(trees(max_words=7, projective=True))
    c = data.draw(reachable_configurations(ts, gold))
    memo = {}
    assert ts.loss(c, gold) == exhaustive.min_loss(ts, c, gold, memo)
    if not ts.is_terminal(c):
        assert ts.costs(c, gold) == exhaustive.costs(ts, c, gold, memo)


@pytest.mark.parametrize("priority", ["monotonic", "none"])
@settings(max_examples=examples(100), deadline=None)
@given(data=hs.data())
def test_following_zero_cost_actions_reaches_the_predicted_loss(priority, data):
    ts = systems.get("arc-eager-nm", priority=priority)
    gold = data.draw(trees(max_words=7, projective=True))
    c = data.draw(reachable_configurations(ts, gold))
    predicted = ts.loss(c, gold)
    assert predicted == exhaustive.min_loss(ts, c, gold)
    rng = np.random.default_rng(data.draw(hs.integers(0, 2**32 - 1)))
    while not ts.is_terminal(c):
        free = sorted(zero_cost(ts, c, gold))
        assert free, "a configuration without a zero-cost action"
        c = ts.apply(c, free[rng.integers(len(free))])
    assert exhaustive.hamming(ts.heads(c), gold) == predicted


# --- priority for monotonic paths (the paper's training, §6) -------------------------

MONOTONIC = systems.get("arc-eager")


def test_priority_prefers_the_shift_a_monotonic_parser_needs():
    # gold 2 -> 1: RIGHT-ARC 0 -> 1 is repairable (LEFT-ARC 2 -> 1 replaces it later), so the
    # non-monotonic costs leave it free; the monotonic oracle does not, and the paper follows it
    gold = [-1, 2, 0]
    c = systems.get("arc-eager-nm").initial(2)
    assert zero_cost(systems.get("arc-eager-nm", **RAW), c, gold) == {"shift", "right-arc"}
    assert zero_cost(MONOTONIC, c, gold) == {"shift"}
    assert zero_cost(systems.get("arc-eager-nm"), c, gold) == {"shift"}
    assert systems.get("arc-eager-nm").oracle.priority == "monotonic"  # the paper's default


def test_priority_falls_back_to_the_repair_when_it_is_the_only_way():
    ts = systems.get("arc-eager-nm")
    gold = [-1, 2, 0]
    c = ts.apply(ts.initial(2), "right-arc")  # the mistake: 0 -> 1
    assert zero_cost(ts, c, gold) == {"left-arc"}  # LEFT-ARC 2 -> 1 replaces it


def monotonic_loss(c, gold):
    """Exhaustive minimum loss of monotonic arc-eager from the same configuration."""
    return exhaustive.min_loss(MONOTONIC, Configuration(c.state, MONOTONIC), gold)


@settings(max_examples=examples(100), deadline=None)
@given(hs.data())
def test_priority_is_the_papers_against_exhaustive_search(data):
    """The zero-cost actions are the non-monotonic oracle's, narrowed to those that do not
    raise the monotonic loss whenever one of them does not (both losses exhaustive)."""
    ts = systems.get("arc-eager-nm")
    gold = data.draw(trees(max_words=6, projective=True))
    c = data.draw(reachable_configurations(ts, gold))
    if ts.is_terminal(c):
        return
    memo = {}
    free = {a for a, cost in exhaustive.costs(ts, c, gold, memo).items() if cost == 0}
    base = monotonic_loss(c, gold)
    keeps = {a for a in free if monotonic_loss(ts.apply(c, a), gold) <= base}
    assert zero_cost(ts, c, gold) == (keeps or free)
    if keeps:  # never a zero-cost action that raises the monotonic loss
        assert all(monotonic_loss(ts.apply(c, a), gold) <= base for a in zero_cost(ts, c, gold))


@settings(max_examples=examples(50), deadline=None)
@given(hs.data())
def test_loss_is_a_lower_bound_on_non_projective_trees(data):
    ts = systems.get("arc-eager-nm")
    gold = data.draw(trees(max_words=6))
    c = data.draw(reachable_configurations(ts, gold))
    assert ts.loss(c, gold) <= exhaustive.min_loss(ts, c, gold)


@settings(max_examples=examples(100), deadline=None)
@given(trees(max_words=8))
def test_static_oracle_rebuilds_projective_trees(gold):
    ts = systems.get("arc-eager-nm")
    assert ts.can_build(gold) == systems.get("arc-eager").can_build(gold)
    if ts.can_build(gold):
        c = ts.initial(len(gold) - 1)
        while not ts.is_terminal(c):
            action = ts.static_oracle(c, gold)
            assert ts.costs(c, gold)[action] == 0
            c = ts.apply(c, action)
        assert exhaustive.hamming(ts.heads(c), gold) == 0
        assert follow_static(systems.get("arc-eager"), gold) == gold


@settings(max_examples=examples(25), deadline=None)
@given(trees(max_words=6))
def test_can_build_agrees_with_exhaustive_min_loss(gold):
    ts = systems.get("arc-eager-nm")
    assert ts.can_build(gold) == (exhaustive.min_loss(ts, ts.initial(len(gold) - 1), gold) == 0)


@settings(max_examples=examples(60), deadline=None)
@given(hs.integers(1, 10), hs.integers(0, 2**32 - 1))
def test_random_walks_terminate_in_forests(n, seed):
    ts = systems.get("arc-eager-nm")
    c = random_walk(ts, n, np.random.default_rng(seed), 2 * n + 1)
    assert ts.is_terminal(c)
    assert is_forest(ts.heads(c))


def labels(c) -> list[int]:
    return [int(x) for x in st.region(c.state, st.LABELS)]


def test_reduce_labels_the_arc_it_adds_and_only_that_arc():
    ts = systems.get("arc-eager-nm")
    c = ts.initial(4)  # "She ate apples today", gold [-1, 2, 0, 2, 2]
    c = ts.apply(c, "shift")
    c = ts.apply(c, "left-arc", 3)
    c = ts.apply(c, "right-arc", 5)
    c = ts.apply(c, "shift")
    c = ts.apply(c, "reduce", 7)  # headless apples: the arc ate -> apples gets label 7
    assert ts.heads(c)[3] == 2 and labels(c)[3] == 7
    before = labels(c)
    c = ts.apply(c, "reduce", 9)  # ate has a head: nothing is added, no label changes
    assert labels(c) == before
