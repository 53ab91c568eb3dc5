"""Arc-hybrid+swap (de Lhoneux, Stymne & Nivre 2017): static and static-dynamic oracles."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from arcwise import systems
from tests.reference import exhaustive
from tests.reference.random_trees import random_walk, reachable_configurations, trees
from tests.test_arc_hybrid import follow_static_oracle, follow_zero_cost, is_forest, zero_cost

# "A hearing is scheduled on the issue today" (Nivre 2009): the arc
# hearing -> on crosses is -> scheduled; projective order
# "A hearing on the issue is scheduled today".
HEARING = [-1, 2, 3, 0, 3, 2, 7, 5, 4]


def test_swap_moves_s0_behind_the_buffer_front():
    ts = systems.get("arc-hybrid+swap")
    c = ts.apply(ts.initial(3), "shift")
    assert "swap" in ts.legal(c)  # 0 < s0 = 1 < b = 2
    c = ts.apply(c, "swap")
    assert c.stack == () and c.buffer == (2, 1, 3, 0)
    c = ts.apply(c, "shift")
    assert "swap" not in ts.legal(c)  # s0 = 2 > b = 1: the pair is already swapped
    c = ts.apply(ts.apply(c, "shift"), "shift")  # σ=[2, 1, 3], β=[0]
    assert "swap" not in ts.legal(c) and "shift" not in ts.legal(c)  # the root stays last


def test_eager_static_oracle_on_the_hearing_example():
    ts = systems.get("arc-hybrid+swap", swap="eager")
    c, taken = follow_static_oracle(ts, 8, HEARING)
    assert ts.heads(c) == HEARING
    # "is" and "scheduled" are swapped past each of "on", "the", "issue".
    assert taken[:7] == ["shift", "left-arc", "shift", "shift", "shift", "swap", "swap"]
    assert taken.count("swap") == 6


def test_lazy_static_oracle_on_the_hearing_example():
    ts = systems.get("arc-hybrid+swap", swap="lazy")
    c, taken = follow_static_oracle(ts, 8, HEARING)
    assert ts.heads(c) == HEARING
    # "the" waits on the stack for its head "issue" instead of being passed:
    # is/scheduled pass "on" and "issue" only.
    assert taken.count("swap") == 4
    assert taken[10:13] == ["shift", "left-arc", "swap"]


def test_oracle_options():
    assert systems.get("arc-hybrid+swap").oracle.exact is False
    assert systems.get("arc-hybrid").oracle.exact is True
    with pytest.raises(ValueError, match="lazy"):
        systems.get("arc-hybrid+swap", swap="sometimes")
    with pytest.raises(ValueError, match="only the variant"):
        systems.get("arc-hybrid+lba")


@settings(max_examples=150, deadline=None)
@given(trees(max_words=7))
def test_static_oracles_rebuild_every_tree_lazy_with_fewer_swaps(gold):
    n = len(gold) - 1
    swaps = {}
    for mode in ("eager", "lazy"):
        ts = systems.get("arc-hybrid+swap", swap=mode)
        assert ts.can_build(gold)
        c, taken = follow_static_oracle(ts, n, gold)
        assert ts.heads(c) == gold, mode
        assert ts.loss(ts.initial(n), gold) == 0
        swaps[mode] = taken.count("swap")
    assert swaps["lazy"] <= swaps["eager"]


def all_trees(n):
    """Every tree over words 1..n rooted at 0, as head lists."""
    for heads in itertools.product(range(n + 1), repeat=n):
        gold = [-1, *heads]
        if all(reaches_root(gold, d) for d in range(1, n + 1)):
            yield gold


def reaches_root(gold, d):
    for _ in range(len(gold)):
        if d == 0:
            return True
        d = gold[d]
    return False


def test_every_tree_of_up_to_five_words_lazy_with_fewer_swaps():
    eager = systems.get("arc-hybrid+swap", swap="eager")
    lazy = systems.get("arc-hybrid+swap", swap="lazy")
    for n in range(1, 6):
        for gold in all_trees(n):
            built_eager, taken_eager = follow_static_oracle(eager, n, gold)
            built_lazy, taken_lazy = follow_static_oracle(lazy, n, gold)
            assert eager.heads(built_eager) == lazy.heads(built_lazy) == gold
            assert taken_lazy.count("swap") <= taken_eager.count("swap"), gold


@settings(max_examples=25, deadline=None)
@given(trees(max_words=5))
def test_can_build_agrees_with_exhaustive_search(gold):
    ts = systems.get("arc-hybrid+swap")
    assert ts.can_build(gold) == (exhaustive.min_loss(ts, ts.initial(len(gold) - 1), gold) == 0)


@pytest.mark.parametrize("mode", ["lazy", "eager"])
@settings(max_examples=60, deadline=None)
@given(data=hs.data())
def test_zero_cost_walks_end_with_the_predicted_loss(mode, data):
    ts = systems.get("arc-hybrid+swap", swap=mode)
    gold = data.draw(trees(max_words=7))
    c = data.draw(reachable_configurations(ts, gold))
    predicted = ts.loss(c, gold)
    costs = ts.costs(c, gold)
    for action, cost in costs.items():
        assert cost == ts.loss(ts.apply(c, action), gold) - predicted
    end = follow_zero_cost(ts, c, gold, np.random.default_rng(data.draw(hs.integers(0, 2**32 - 1))))
    assert exhaustive.hamming(ts.heads(end), gold) == predicted


@pytest.mark.parametrize("mode", ["lazy", "eager"])
@settings(max_examples=40, deadline=None)
@given(data=hs.data())
def test_static_dynamic_loss_is_never_below_the_minimum(mode, data):
    ts = systems.get("arc-hybrid+swap", swap=mode)
    gold = data.draw(trees(max_words=5))
    c = data.draw(reachable_configurations(ts, gold))
    assert ts.loss(c, gold) >= exhaustive.min_loss(ts, c, gold)


@settings(max_examples=60, deadline=None)
@given(trees(max_words=7), hs.integers(0, 2**32 - 1))
def test_random_walks_terminate_in_a_tree(gold, seed):
    ts = systems.get("arc-hybrid+swap")
    n = len(gold) - 1
    # each pair of words is swapped at most once; every swap costs one more shift
    bound = 2 * n + 2 * (n * (n - 1) // 2)
    c = random_walk(ts, n, np.random.default_rng(seed), bound)
    assert ts.is_terminal(c) and c.stack == () and c.buffer == (0,)
    heads = ts.heads(c)
    assert all(h != -1 for h in heads[1:]) and is_forest(heads)


@settings(max_examples=30, deadline=None)
@given(trees(max_words=7), hs.integers(0, 2**32 - 1))
def test_zero_cost_set_is_the_static_swap_when_it_swaps(gold, seed):
    """Where the static oracle swaps, the static-dynamic oracle swaps too."""
    ts = systems.get("arc-hybrid+swap")
    c = random_walk(ts, len(gold) - 1, np.random.default_rng(seed), seed % (3 * len(gold)))
    if ts.is_terminal(c):
        return
    free = zero_cost(ts, c, gold)
    if ts.static_oracle(c, gold) == "swap":
        assert "swap" in free
