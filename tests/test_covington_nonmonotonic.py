"""Non-monotonic Covington (Figure 2) and its approximate oracle (Algorithm 2, three bounds)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from arcwise import systems
from tests.reference import exhaustive
from tests.reference.random_trees import (
    examples,
    is_forest,
    random_walk,
    reachable_configurations,
    static_oracle_path,
    trees,
)
from tests.test_covington import follow_static_oracle, run, zero_cost

TS = systems.get("covington-nm")
ROOTED = systems.get("covington-nm+root")  # 0 is the first word of λ1, root arcs are explicit
VARIANTS = {"covington-nm": TS, "covington-nm+root": ROOTED}
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


@pytest.mark.parametrize("name", VARIANTS)
@settings(max_examples=examples(150), deadline=None)
@given(data=hs.data())
def test_bounds_sandwich_the_exhaustive_loss(name, data):
    ts = VARIANTS[name]
    gold = data.draw(trees(max_words=6))
    c = data.draw(reachable_configurations(ts, gold))
    loss = exhaustive.min_loss(ts, c, gold)
    lower, pc_upper, upper = (ts.loss(c, gold, b) for b in BOUNDS)
    assert lower <= loss <= pc_upper <= upper


@pytest.mark.parametrize("name", VARIANTS)
@settings(max_examples=60, deadline=None)
@given(gold=trees(max_words=7), bound=hs.sampled_from(BOUNDS), seed=hs.integers(0, 2**32 - 1))
def test_following_zero_cost_actions_ends_in_a_forest(name, gold, bound, seed):
    ts = VARIANTS[name]
    rng = np.random.default_rng(seed)
    c = ts.initial(len(gold) - 1)
    start = ts.loss(c, gold, bound)
    steps = 0
    while not ts.is_terminal(c):
        costs = ts.costs(c, gold, bound)
        best = min(costs.values())
        if bound != "lower":  # Covington's criteria over I keep an upper bound
            assert best <= 0
        choices = sorted(a for a, cost in costs.items() if cost == best)
        c = ts.apply(c, choices[rng.integers(len(choices))])
        steps += 1
        assert steps <= (len(gold) + 1) ** 2
    assert_forest(ts.heads(c))
    final = sum(max(h, 0) != g for h, g in zip(ts.heads(c)[1:], gold[1:]))
    assert final == ts.loss(c, gold, bound)  # all bounds are exact at the end
    if bound != "lower":
        assert final == start == 0  # from the start, zero-cost actions reach the gold tree


@pytest.mark.parametrize("name", VARIANTS)
@settings(max_examples=50, deadline=None)
@given(gold=trees(max_words=7), seed=hs.integers(0, 2**32 - 1))
def test_random_walks_end_in_forests(name, gold, seed):
    ts = VARIANTS[name]
    c = random_walk(ts, len(gold) - 1, np.random.default_rng(seed), 10_000)
    assert ts.is_terminal(c)
    assert_forest(ts.heads(c))
    assert ts.heads(c)[0] == -1  # 0 never takes a head


@pytest.mark.parametrize("name", VARIANTS)
@settings(max_examples=100, deadline=None)
@given(gold=trees(max_words=8))
def test_static_oracle_rebuilds_every_tree(name, gold):
    ts = VARIANTS[name]
    assert ts.can_build(gold)
    assert follow_static_oracle(ts, gold) == gold[1:]


@settings(max_examples=100, deadline=None)
@given(trees(max_words=8))
def test_with_root_the_static_oracle_builds_every_root_arc(gold):
    assert ROOTED.heads(static_oracle_path(ROOTED, gold)[0]) == gold  # multi-root trees too


@pytest.mark.parametrize("name", VARIANTS)
@settings(max_examples=60, deadline=None)
@given(data=hs.data())
def test_costs_are_differences_of_the_bound(name, data):
    ts = VARIANTS[name]
    gold = data.draw(trees(max_words=7))
    c = data.draw(reachable_configurations(ts, gold))
    for bound in BOUNDS:
        base = ts.loss(c, gold, bound)
        expected = {a: ts.loss(ts.apply(c, a), gold, bound) - base for a in ts.legal(c)}
        assert ts.costs(c, gold, bound) == expected


def test_with_root_left_arc_from_0_is_never_legal():
    c = ROOTED.initial(2)
    assert sorted(ROOTED.legal(c)) == ["no-arc", "right-arc", "shift"]
    assert ROOTED.legal(ROOTED.apply(c, "no-arc")) == ["shift"]  # λ1 empty


def test_with_root_a_root_arc_is_overwritten_like_any_other():
    c = run(ROOTED, 2, ["right-arc", "shift"])  # 0 -> 1, then focus (1, 2)
    assert ROOTED.heads(c) == [-1, 0, -1]
    c = ROOTED.apply(c, "left-arc")  # 2 -> 1 replaces 0 -> 1
    assert ROOTED.heads(c) == [-1, 2, -1]
    c = ROOTED.apply(c, "right-arc")  # focus (0, 2): 0 -> 2; no cycle runs through 0
    assert ROOTED.heads(c) == [-1, 2, 0]


def test_with_root_a_wrong_head_of_a_root_word_is_repaired_by_a_root_arc():
    # gold 0 -> 1, 0 -> 2; the wrong 1 -> 2 built at (1, 2).  Without +root only a
    # cycle-breaking deletion can free 2; with it, Right-Arc at (0, 2) replaces 1 -> 2
    gold = [-1, 0, 0]
    c = run(ROOTED, 2, ["shift", "right-arc"])  # focus (0, 2)
    assert ROOTED.heads(c) == [-1, -1, 1]
    assert {b: ROOTED.loss(c, gold, b) for b in BOUNDS} == {"lower": 0, "pc-upper": 0, "upper": 0}
    assert zero_cost(ROOTED, c, gold) == ["right-arc"]
    plain = run(TS, 2, ["shift", "right-arc"])  # λ1 empty: the pair (0, 2) does not exist
    assert TS.loss(plain, gold, "pc-upper") == 1 == exhaustive.min_loss(TS, plain, gold)


# --- priority for monotonic paths (option; beyond the 2017 paper) ---------------------

PRIORITY = systems.get("covington-nm", priority="monotonic")
MONOTONIC = systems.get("covington")


def test_priority_is_off_by_default_as_in_the_paper():
    assert TS.oracle.priority == "none" and PRIORITY.oracle.priority == "monotonic"
    with pytest.raises(ValueError, match="priority"):
        systems.get("covington-nm", priority="sometimes")


def test_priority_prefers_what_a_monotonic_parser_needs():
    # gold 3 -> 1, 3 -> 2: at focus (1, 2) the arcs 1 -> 2 and 2 -> 1 are repairable (Left-Arcs
    # from 3 replace them later), so the non-monotonic bounds leave them free; the priority does not
    gold = [-1, 3, 3, 0]
    c = run(TS, 3, ["shift"])
    assert zero_cost(TS, c, gold) == ["left-arc", "no-arc", "right-arc", "shift"]
    assert zero_cost(MONOTONIC, c, gold) == ["no-arc", "shift"]
    assert zero_cost(PRIORITY, c, gold) == ["no-arc", "shift"]


def monotonic_loss(c, gold):
    """Exhaustive minimum loss of monotonic Covington from the same configuration."""
    return exhaustive.min_loss(MONOTONIC, systems.Configuration(c.state, MONOTONIC), gold)


@settings(max_examples=examples(60), deadline=None)
@given(data=hs.data(), bound=hs.sampled_from(BOUNDS))
def test_priority_against_exhaustive_search(data, bound):
    """The least-cost actions are the bound's, narrowed to those that do not raise the
    monotonic loss (exhaustive) whenever one of them does not; following them from any
    configuration keeps the upper bounds (and reaches the gold tree from the start)."""
    gold = data.draw(trees(max_words=6))
    c = data.draw(reachable_configurations(PRIORITY, gold))
    if PRIORITY.is_terminal(c):
        return
    raw = TS.costs(c, gold, bound)
    least = {a for a, cost in raw.items() if cost == min(raw.values())}
    base = monotonic_loss(c, gold)
    keeps = {a for a in least if monotonic_loss(PRIORITY.apply(c, a), gold) <= base}
    prioritized = PRIORITY.costs(c, gold, bound)
    assert {a for a, cost in prioritized.items() if cost == min(prioritized.values())} == (
        keeps or least
    )
    start = PRIORITY.loss(c, gold, bound)
    rng = np.random.default_rng(data.draw(hs.integers(0, 2**32 - 1)))
    while not PRIORITY.is_terminal(c):
        costs = PRIORITY.costs(c, gold, bound)
        choices = sorted(a for a, cost in costs.items() if cost == min(costs.values()))
        c = PRIORITY.apply(c, choices[rng.integers(len(choices))])
    final = exhaustive.hamming(PRIORITY.heads(c), gold)
    if bound != "lower":
        assert final <= start


@settings(max_examples=examples(40), deadline=None)
@given(gold=trees(max_words=7), seed=hs.integers(0, 2**32 - 1))
def test_priority_reaches_the_gold_tree_from_the_start(gold, seed):
    rng = np.random.default_rng(seed)
    c = PRIORITY.initial(len(gold) - 1)
    while not PRIORITY.is_terminal(c):
        free = sorted(a for a, cost in PRIORITY.costs(c, gold).items() if cost == 0)
        c = PRIORITY.apply(c, free[rng.integers(len(free))])
    assert exhaustive.hamming(PRIORITY.heads(c), gold) == 0
