"""Non-local non-monotonic Covington: covington-nm's reach and bounds, in O(n) transitions."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from arcwise import systems
from arcwise.systems.base import Configuration
from tests.reference import exhaustive
from tests.reference.random_trees import (
    examples,
    headless_to_root,
    is_forest,
    random_walk,
    reachable_configurations,
    static_oracle_path,
    trees,
)

TS = systems.get("covington-nl-nm")
ROOTED = systems.get("covington-nl-nm+root")
VARIANTS = {"covington-nl-nm": TS, "covington-nl-nm+root": ROOTED}
NM = {TS: systems.get("covington-nm"), ROOTED: systems.get("covington-nm+root")}
BOUNDS = ("lower", "pc-upper", "upper")


def run(ts, n, actions):
    c = ts.initial(n)
    for a in actions:
        c = ts.apply(c, a)
    return c


def test_an_arc_k_replaces_the_dependents_head():
    c = run(TS, 3, ["shift", "shift", "right-arc-1"])  # 2 -> 3, λ1 = [1]
    assert TS.legal(c) == ["shift", "left-arc-1", "right-arc-1"]  # 3 has a head: still legal
    assert TS.heads(TS.apply(c, "right-arc-1")) == [-1, -1, -1, 1]  # 1 -> 3 replaces 2 -> 3


def test_an_arc_k_breaks_the_cycle_it_would_close():
    actions = ["shift", "shift", "left-arc-1", "left-arc-1", "shift", "left-arc-1"]
    c = run(TS, 4, actions)  # 3 -> 2, 3 -> 1, 4 -> 3; λ1 = [1, 2], j = 4
    assert "right-arc-2" not in systems.get("covington-nl").legal(
        Configuration(c.state, systems.get("covington-nl")))  # 1 -> 4 closes 1 -> 4 -> 3 -> 1
    c = TS.apply(c, "right-arc-2")
    assert TS.heads(c) == [-1, -1, 3, 4, 1]  # 3 -> 1 deleted


@pytest.mark.parametrize("name", VARIANTS)
@settings(max_examples=examples(100), deadline=None)
@given(gold=trees(max_words=9))
def test_static_oracle_rebuilds_every_tree_in_at_most_2n_transitions(name, gold):
    ts = VARIANTS[name]
    final, taken = static_oracle_path(ts, gold)
    tree = ts.heads(final) if ts is ROOTED else headless_to_root(ts.heads(final))
    assert tree == gold and len(taken) <= 2 * (len(gold) - 1)


@pytest.mark.parametrize("name", VARIANTS)
@settings(max_examples=examples(60), deadline=None)
@given(data=hs.data())
def test_the_bounds_of_covington_nm_sandwich_the_exhaustive_loss(name, data):
    """The exhaustive loss is covington-nm's from the same configuration, so its bounds hold."""
    ts = VARIANTS[name]
    gold = data.draw(trees(max_words=6 if ts is TS else 5))
    c = data.draw(reachable_configurations(ts, gold, max_steps=2 * len(gold)))
    loss = exhaustive.min_loss(ts, c, gold)
    assert loss == exhaustive.min_loss(NM[ts], Configuration(c.state, NM[ts]), gold)
    lower, pc_upper, upper = (ts.loss(c, gold, b) for b in BOUNDS)
    assert lower <= loss <= pc_upper <= upper


@pytest.mark.parametrize("name", VARIANTS)
@settings(max_examples=examples(60), deadline=None)
@given(data=hs.data(), bound=hs.sampled_from(BOUNDS))
def test_an_arc_k_is_k_minus_1_no_arcs_then_covington_nms_arc(name, data, bound):
    ts = VARIANTS[name]
    nm = NM[ts]
    gold = data.draw(trees(max_words=8))
    c = data.draw(reachable_configurations(ts, gold, max_steps=2 * len(gold)))
    for action, cost in ts.costs(c, gold, bound).items():
        d = Configuration(c.state, nm)
        steps = ["shift"]
        if action != "shift":
            family, k = action.rsplit("-", 1)
            steps = ["no-arc"] * (int(k) - 1) + [family]
        for step in steps:
            d = nm.apply(d, step)
        assert cost == nm.loss(d, gold, bound) - nm.loss(Configuration(c.state, nm), gold, bound)
        assert np.array_equal(ts.apply(c, action).state[8:], d.state[8:])  # PREVIOUS aside


@pytest.mark.parametrize("name", VARIANTS)
@settings(max_examples=examples(40), deadline=None)
@given(gold=trees(max_words=7), bound=hs.sampled_from(("upper", "pc-upper")),
       seed=hs.integers(0, 2**32 - 1))
def test_zero_cost_actions_from_the_start_reach_the_gold_tree(name, gold, bound, seed):
    ts = VARIANTS[name]
    rng = np.random.default_rng(seed)
    c = ts.initial(len(gold) - 1)
    while not ts.is_terminal(c):
        costs = ts.costs(c, gold, bound)
        choices = sorted(a for a, cost in costs.items() if cost == 0)
        c = ts.apply(c, choices[rng.integers(len(choices))])
    assert headless_to_root(ts.heads(c)) == gold


@pytest.mark.parametrize("name", VARIANTS)
@settings(max_examples=examples(40), deadline=None)
@given(gold=trees(max_words=8), seed=hs.integers(0, 2**32 - 1))
def test_random_walks_end_in_forests(name, gold, seed):
    ts = VARIANTS[name]
    c = random_walk(ts, len(gold) - 1, np.random.default_rng(seed), 10_000)
    assert ts.is_terminal(c) and is_forest(ts.heads(c)) and ts.heads(c)[0] == -1


def test_oracle_is_approximate_with_covington_nms_bounds():
    assert not TS.oracle.exact and TS.oracle.bounds == ("upper", "pc-upper", "lower")
