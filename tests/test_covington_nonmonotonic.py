"""Non-monotonic Covington (Figure 2) and its approximate oracle (Algorithm 2, three bounds)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as hs

from arcwise import systems
from tests.reference import exhaustive
from tests.reference.random_trees import is_forest, random_walk, reachable_configurations, trees
from tests.test_covington import follow_static_oracle, run, zero_cost

TS = systems.get("covington-nm")
BOUNDS = ("lower", "pc-upper", "upper")


def assert_forest(heads):
    assert is_forest(heads), f"cycle in {heads}"


def test_arc_transitions_are_always_allowed():
    c = run(TS, 3, ["shift", "shift", "right-arc"])  # 2 -> 3 at focus (2, 3)
    assert TS.heads(c) == [-1, -1, -1, 2]
    assert sorted(TS.legal(c)) == ["left-arc", "no-arc", "right-arc", "shift"]


def test_figure_2_replaces_the_previous_head():
    c = run(TS, 3, ["shift", "shift", "right-arc", "right-arc"])  # 2 -> 3, then 1 -> 3 replaces it
    assert TS.heads(c) == [-1, -1, -1, 1]


def test_figure_2_breaks_the_cycle_a_left_arc_would_close():
    # 1 -> 2 at (1, 2), 2 -> 3 at (2, 3); at (1, 3) Left-Arc 3 -> 1 would close 1 -> 2 -> 3 -> 1
    c = run(TS, 3, ["shift", "right-arc", "shift", "right-arc"])
    assert TS.heads(c) == [-1, -1, 1, 2]
    c = TS.apply(c, "left-arc")  # A ∪ {3 -> 1} \ {k -> 3 | 1 ->* k}: 2 -> 3 goes
    assert TS.heads(c) == [-1, 3, 1, -1]


def test_figure_2_breaks_the_cycle_a_right_arc_would_close():
    # 2 -> 1 at (1, 2), 3 -> 2 at (2, 3); at (1, 3) Right-Arc 1 -> 3 would close 1 -> 3 -> 2 -> 1
    c = run(TS, 3, ["shift", "left-arc", "shift", "left-arc"])
    assert TS.heads(c) == [-1, 2, 3, -1]
    c = TS.apply(c, "right-arc")  # A ∪ {1 -> 3} \ {k -> 1 | 3 ->* k}: 2 -> 1 goes
    assert TS.heads(c) == [-1, -1, 3, 1]


def test_default_bound_is_upper_the_best_for_training():
    assert TS.oracle.bounds[0] == "upper" and set(TS.oracle.bounds) == set(BOUNDS)
    assert not TS.oracle.exact
    gold = [-1, 0, 3, 1]
    c = run(TS, 3, ["shift", "left-arc", "shift"])
    assert TS.loss(c, gold) == TS.loss(c, gold, "upper")


def test_the_three_bounds_on_a_cycle():
    # gold 0 -> 1, 1 -> 3, 3 -> 2, the wrong 2 -> 1 built: A ∪ I has the cycle 1 -> 3 -> 2 -> 1,
    # closed last by 1 -> 3 (pair (1, 3)), which deletes 2 -> 1: not gold, so not problematic
    gold = [-1, 0, 3, 1]
    c = run(TS, 3, ["shift", "left-arc", "shift"])
    assert {b: TS.loss(c, gold, b) for b in BOUNDS} == {"lower": 0, "pc-upper": 1, "upper": 2}
    # ... and the cycle-breaking deletion of 2 -> 1 even repairs the root arc of 1
    assert exhaustive.min_loss(TS, c, gold) == 0
    assert zero_cost(TS, c, gold, "lower") == ["left-arc"]  # then 1 -> 3 deletes 2 -> 1


def test_a_problematic_cycle():
    # gold 3 -> 1, 0 -> 2, 2 -> 3; the wrong 1 -> 2 built.  At focus (2, 3), A ∪ I has the cycle
    # 1 -> 2 -> 3 -> 1, closed last by 3 -> 1 (pair (1, 3)), which deletes the gold 2 -> 3
    gold = [-1, 3, 0, 2]
    c = run(TS, 3, ["shift", "right-arc", "shift"])
    assert TS.heads(c) == [-1, -1, 1, -1]
    assert {b: TS.loss(c, gold, b) for b in BOUNDS} == {"lower": 1, "pc-upper": 2, "upper": 2}
    assert exhaustive.min_loss(TS, c, gold) == 2


@settings(max_examples=150, deadline=None)
@given(hs.data())
def test_bounds_sandwich_the_exhaustive_loss(data):
    gold = data.draw(trees(max_words=6))
    c = data.draw(reachable_configurations(TS, gold))
    loss = exhaustive.min_loss(TS, c, gold)
    lower, pc_upper, upper = (TS.loss(c, gold, b) for b in BOUNDS)
    assert lower <= loss <= pc_upper <= upper


@settings(max_examples=60, deadline=None)
@given(trees(max_words=7), hs.sampled_from(BOUNDS), hs.integers(0, 2**32 - 1))
def test_following_zero_cost_actions_ends_in_a_forest(gold, bound, seed):
    rng = np.random.default_rng(seed)
    c = TS.initial(len(gold) - 1)
    start = TS.loss(c, gold, bound)
    steps = 0
    while not TS.is_terminal(c):
        costs = TS.costs(c, gold, bound)
        best = min(costs.values())
        if bound != "lower":  # Covington's criteria over I keep an upper bound
            assert best <= 0
        choices = sorted(a for a, cost in costs.items() if cost == best)
        c = TS.apply(c, choices[rng.integers(len(choices))])
        steps += 1
        assert steps <= (len(gold) + 1) ** 2
    assert_forest(TS.heads(c))
    final = sum(max(h, 0) != g for h, g in zip(TS.heads(c)[1:], gold[1:]))
    assert final == TS.loss(c, gold, bound)  # all bounds are exact at the end
    if bound != "lower":
        assert final == start == 0  # from the start, zero-cost actions reach the gold tree


@settings(max_examples=50, deadline=None)
@given(trees(max_words=7), hs.integers(0, 2**32 - 1))
def test_random_walks_end_in_forests(gold, seed):
    c = random_walk(TS, len(gold) - 1, np.random.default_rng(seed), 10_000)
    assert TS.is_terminal(c)
    assert_forest(TS.heads(c))


@settings(max_examples=100, deadline=None)
@given(trees(max_words=8))
def test_static_oracle_rebuilds_every_tree(gold):
    assert TS.can_build(gold)
    assert follow_static_oracle(TS, gold) == gold[1:]


@settings(max_examples=60, deadline=None)
@given(hs.data())
def test_costs_are_differences_of_the_bound(data):
    gold = data.draw(trees(max_words=7))
    c = data.draw(reachable_configurations(TS, gold))
    for bound in BOUNDS:
        base = TS.loss(c, gold, bound)
        expected = {a: TS.loss(TS.apply(c, a), gold, bound) - base for a in TS.legal(c)}
        assert TS.costs(c, gold, bound) == expected
