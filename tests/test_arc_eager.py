"""Arc-eager (2011 paper, Figure 3) and its Goldberg & Nivre (2012) oracles, against brute force."""

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from arcwise import systems
from tests.reference import exhaustive
from tests.reference.arc_eager_bruteforce import derivable
from tests.reference.random_trees import (
    headless_to_root,
    is_forest,
    is_projective,
    random_walk,
    reachable_configurations,
    static_oracle_path,
    trees,
)

FEW = os.environ.get("NUMBA_DISABLE_JIT") == "1"  # the pure-Python run gets fewer examples


def examples(n: int) -> int:
    return max(5, n // 5) if FEW else n


def zero_cost(ts, c, gold) -> set[str]:
    return {a for a, cost in ts.costs(c, gold).items() if cost == 0}


def follow_static(ts, gold):
    return headless_to_root(ts.heads(static_oracle_path(ts, gold)[0]))


# "She ate the red apple": 2 -> 1, 0 -> 2, 5 -> 3, 5 -> 4, 2 -> 5
APPLE = [-1, 2, 0, 5, 5, 2]


def test_worked_example_static_path_and_zero_cost_moves():
    ts = systems.get("arc-eager")
    script = [
        # (action taken, zero-cost actions before it)
        ("shift", {"shift"}),
        ("left-arc", {"left-arc"}),  # She <- ate
        ("right-arc", {"right-arc", "shift"}),  # 0 -> ate; shifting ate is free: headless = root
        ("shift", {"shift"}),
        ("shift", {"shift"}),
        ("left-arc", {"left-arc"}),  # red <- apple
        ("left-arc", {"left-arc"}),  # the <- apple
        ("right-arc", {"right-arc"}),  # ate -> apple
    ]
    c = ts.initial(5)
    for action, free in script:
        assert zero_cost(ts, c, APPLE) == free
        assert ts.static_oracle(c, APPLE) == action
        c = ts.apply(c, action)
    assert ts.is_terminal(c) and ts.heads(c) == APPLE
    assert ts.loss(c, APPLE) == 0


def test_worked_example_mistakes_cost_what_they_lose():
    ts = systems.get("arc-eager")
    c = ts.initial(5)
    for a in ["shift", "left-arc", "right-arc"]:
        c = ts.apply(c, a)
    # σ=[0, 2], β=[3, 4, 5]: reducing "ate" loses ate -> apple;
    # attaching "the" to "ate" loses the <- apple
    assert ts.costs(c, APPLE) == {"shift": 0, "right-arc": 1, "reduce": 1}
    c = ts.apply(c, "right-arc")  # ate -> the (wrong)
    assert ts.loss(c, APPLE) == 1
    assert zero_cost(ts, c, APPLE) == {"shift", "reduce"}


def test_preconditions_of_figure_3():
    ts = systems.get("arc-eager")
    c = ts.initial(2)
    assert ts.legal(c) == ["shift", "right-arc"]  # no LEFT-ARC on 0, no REDUCE of a headless word
    c = ts.apply(c, "right-arc")
    assert ts.legal(c) == ["shift", "right-arc", "reduce"]  # 1 has a head: no LEFT-ARC
    assert ts.is_terminal(ts.apply(c, "shift"))
    with pytest.raises(ValueError, match="no variant"):
        systems.get("arc-eager+swap")


@settings(max_examples=examples(150), deadline=None)
@given(trees(max_words=7))
def test_static_oracle_rebuilds_exactly_the_derivable_trees(gold):
    ts = systems.get("arc-eager")
    buildable = derivable(ts, gold)
    assert buildable == is_projective(gold) == ts.can_build(gold)
    if buildable:
        assert follow_static(ts, gold)[1:] == gold[1:]


@settings(max_examples=examples(25), deadline=None)
@given(trees(max_words=7))
def test_can_build_agrees_with_exhaustive_min_loss(gold):
    ts = systems.get("arc-eager")
    assert ts.can_build(gold) == (exhaustive.min_loss(ts, ts.initial(len(gold) - 1), gold) == 0)


@settings(max_examples=examples(120), deadline=None)
@given(hs.data())
def test_dynamic_oracle_is_exact_on_projective_trees(data):
    ts = systems.get("arc-eager")
    gold = data.draw(trees(max_words=7, projective=True))
    c = data.draw(reachable_configurations(ts, gold))
    memo = {}
    assert ts.loss(c, gold) == exhaustive.min_loss(ts, c, gold, memo)
    if not ts.is_terminal(c):
        assert ts.costs(c, gold) == exhaustive.costs(ts, c, gold, memo)


@settings(max_examples=examples(60), deadline=None)
@given(hs.data())
def test_loss_is_a_lower_bound_on_non_projective_trees(data):
    ts = systems.get("arc-eager")
    gold = data.draw(trees(max_words=6))
    c = data.draw(reachable_configurations(ts, gold))
    memo = {}
    assert ts.loss(c, gold) <= exhaustive.min_loss(ts, c, gold, memo)
    if not ts.is_terminal(c):  # costs are still loss differences
        base = ts.loss(c, gold)
        assert ts.costs(c, gold) == {a: ts.loss(ts.apply(c, a), gold) - base for a in ts.legal(c)}


@settings(max_examples=examples(60), deadline=None)
@given(trees(max_words=9), hs.integers(0, 2**32 - 1))
def test_random_walks_terminate_in_forests(gold, seed):
    ts = systems.get("arc-eager")
    n = len(gold) - 1
    # Nivre 2011: at most 2n transitions
    c = random_walk(ts, n, np.random.default_rng(seed), 2 * n + 1)
    assert ts.is_terminal(c)
    assert is_forest(ts.heads(c))
