"""Monotonic Covington: static oracle and the exact dynamic oracle (Algorithm 1)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from arcwise import systems
from tests.reference import exhaustive
from tests.reference.random_trees import (
    headless_to_root,
    reachable_configurations,
    static_oracle_path,
    trees,
)

TS = systems.get("covington")
ROOTED = systems.get("covington+root")  # 0 is the first word of λ1 (MaltParser's allow_root)
VARIANTS = {"covington": TS, "covington+root": ROOTED}


def run(ts, n, actions):
    c = ts.initial(n)
    for a in actions:
        c = ts.apply(c, a)
    return c


def zero_cost(ts, c, gold, bound=None):
    return sorted(a for a, cost in ts.costs(c, gold, bound).items() if cost == 0)


def follow_static_oracle(ts, gold):
    return headless_to_root(ts.heads(static_oracle_path(ts, gold)[0]))[1:]


@pytest.mark.parametrize("name", VARIANTS)
@settings(max_examples=150, deadline=None)
@given(gold=trees(max_words=8))
def test_static_oracle_rebuilds_every_tree(name, gold):
    ts = VARIANTS[name]
    assert ts.can_build(gold)
    assert follow_static_oracle(ts, gold) == gold[1:]


@settings(max_examples=100, deadline=None)
@given(trees(max_words=8))
def test_with_root_the_static_oracle_builds_every_root_arc(gold):
    final, taken = static_oracle_path(ROOTED, gold)
    assert ROOTED.heads(final) == gold  # no word left headless, multi-root trees included
    assert taken.count("right-arc") + taken.count("left-arc") == len(gold) - 1


@pytest.mark.parametrize("name", VARIANTS)
@settings(max_examples=60, deadline=None)
@given(data=hs.data())
def test_loss_and_costs_equal_exhaustive_search(name, data):
    ts = VARIANTS[name]
    gold = data.draw(trees(max_words=7 if ts is TS else 6))  # +root: more states to search
    c = data.draw(reachable_configurations(ts, gold))
    memo = {}
    assert ts.loss(c, gold) == exhaustive.min_loss(ts, c, gold, memo)
    assert ts.costs(c, gold) == exhaustive.costs(ts, c, gold, memo)


def test_with_root_0_starts_in_lambda_1_and_takes_no_head():
    c = ROOTED.initial(2)
    assert repr(c) == "<covington+root λ1=[0], λ2=[], B=[1, 2], arcs={}>"
    assert sorted(ROOTED.legal(c)) == ["no-arc", "right-arc", "shift"]  # no left-arc from 0
    c = ROOTED.apply(c, "no-arc")  # λ1 empty: only shift
    assert ROOTED.legal(c) == ["shift"]
    c = ROOTED.apply(ROOTED.apply(c, "shift"), "no-arc")  # focus (0, 2)
    assert sorted(ROOTED.legal(c)) == ["no-arc", "right-arc", "shift"]
    c = ROOTED.apply(c, "right-arc")
    assert ROOTED.heads(c) == [-1, -1, 0]
    assert repr(c).startswith("<covington+root λ1=[], λ2=[0, 1]")


def test_with_root_a_root_arc_is_an_arc_of_a():
    gold = [-1, 2, 0]  # 2 -> 1, 0 -> 2
    c = run(ROOTED, 2, ["shift"])  # focus (1, 2)
    assert zero_cost(ROOTED, c, gold) == ["left-arc"]
    c = ROOTED.apply(c, "left-arc")  # focus (0, 2): the root arc, or leave 2 headless
    assert ROOTED.static_oracle(c, gold) == "right-arc"
    assert zero_cost(ROOTED, c, gold) == ["no-arc", "right-arc", "shift"]
    wrong = run(ROOTED, 2, ["right-arc", "shift"])  # 0 -> 1 was wrong, and blocks 2 -> 1
    assert ROOTED.loss(wrong, gold) == 1 == exhaustive.min_loss(ROOTED, wrong, gold)


def test_oracle_is_exact_and_has_no_bounds():
    assert TS.oracle.exact and TS.oracle.bounds == ()
    assert TS.loss(TS.initial(0), [-1]) == 0


def test_scripted_non_projective_sentence():
    # gold: 1 <- 3, 3 -> 2 ... a crossing pair: 2 -> 4 and 3 -> 1 cross (1 < 2 < 3 < 4)
    gold = [-1, 3, 4, 0, 3]
    c = TS.initial(4)
    assert zero_cost(TS, c, gold) == ["shift"]
    c = TS.apply(c, "shift")  # λ1=[1], B=[2,3,4]
    assert zero_cost(TS, c, gold) == ["no-arc", "shift"]
    c = TS.apply(c, "shift")  # λ1=[1,2], B=[3,4]: 2 and 3 unlinked, 1 <- 3 further left
    assert zero_cost(TS, c, gold) == ["no-arc"]
    c = TS.apply(c, "no-arc")  # focus (1, 3): gold 3 -> 1
    assert zero_cost(TS, c, gold) == ["left-arc"]
    assert TS.static_oracle(c, gold) == "left-arc"
    c = TS.apply(c, "left-arc")
    assert TS.costs(c, gold) == {"shift": 0}
    c = TS.apply(c, "shift")  # focus (3, 4): gold 4 <- 3
    assert zero_cost(TS, c, gold) == ["right-arc"]
    c = TS.apply(c, "no-arc")  # skipping 3 -> 4 loses it
    assert TS.loss(c, gold) == 1
    c = TS.apply(c, "right-arc")  # focus (2, 4): 2 -> 4 is wrong, but 4's gold arc was already lost
    assert TS.loss(c, gold) == 2 and TS.heads(c) == [-1, 3, -1, -1, 2]


def test_cycle_term_of_algorithm_1():
    # gold 0 -> 1, 1 -> 3, 3 -> 2; the parser wrongly built 2 -> 1
    gold = [-1, 0, 3, 1]
    c = run(TS, 3, ["shift", "left-arc", "shift"])  # focus (2, 3)
    assert TS.heads(c) == [-1, 2, -1, -1]
    # U = {0 -> 1}; 3 -> 2 and 1 -> 3 are each reachable, but with 2 -> 1 they close a cycle
    assert TS.loss(c, gold) == 2 == exhaustive.min_loss(TS, c, gold)
    assert zero_cost(TS, c, gold) == ["left-arc", "no-arc"]  # shift loses both 3 -> 2 and 1 -> 3
