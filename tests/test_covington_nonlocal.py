"""Non-local Covington (2018 paper, Figure 1): static oracle, exact dynamic oracle, actions."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from arcwise import systems
from arcwise.dispatch.walk import final_heads, follow_static_oracle
from arcwise.systems import covington_nonlocal as nl
from arcwise.systems.base import Configuration
from tests.reference import exhaustive
from tests.reference.all_trees import all_trees
from tests.reference.random_trees import (
    PURE_PYTHON,
    examples,
    headless_to_root,
    reachable_configurations,
    static_oracle_path,
    trees,
)

TS = systems.get("covington-nl")
ROOTED = systems.get("covington-nl+root")  # 0 is the first word of λ1, as covington+root
VARIANTS = {"covington-nl": TS, "covington-nl+root": ROOTED}
COVINGTON = {TS: systems.get("covington"), ROOTED: systems.get("covington+root")}


def run(ts, n, actions):
    c = ts.initial(n)
    for a in actions:
        c = ts.apply(c, a)
    return c


def zero_cost(ts, c, gold):
    return sorted(a for a, cost in ts.costs(c, gold).items() if cost == 0)


@pytest.mark.parametrize("name", VARIANTS)
@settings(max_examples=examples(150), deadline=None)
@given(gold=trees(max_words=10))
def test_static_oracle_rebuilds_every_tree_in_at_most_2n_transitions(name, gold):
    ts = VARIANTS[name]
    final, taken = static_oracle_path(ts, gold)
    n = len(gold) - 1
    assert ts.can_build(gold)
    if ts is ROOTED:
        assert ts.heads(final) == gold  # every root arc made, multi-root trees included
    else:
        assert headless_to_root(ts.heads(final)) == gold
    # n Shifts and one arc transition per word attached by an arc: no No-Arc to pay for
    arcs = n if ts is ROOTED else sum(1 for h in gold[1:] if h != 0)
    assert taken.count("shift") == n and len(taken) == n + arcs <= 2 * n


@pytest.mark.parametrize("name", VARIANTS)
def test_static_oracle_rebuilds_all_trees_of_short_sentences(name):
    """Every tree of up to 6 words (5 without the JIT), through the compiled walk."""
    k, oracle = VARIANTS[name].kernels, VARIANTS[name].oracle
    for n in range(1, 6 if PURE_PYTHON else 7):
        for gold in all_trees(n).astype(np.int32):
            state = k.initial(n)
            steps = follow_static_oracle(k.system_id, oracle.variant, state,
                                         oracle.prepare(gold), 2 * n)
            assert 0 <= steps <= 2 * n and np.array_equal(final_heads(state), gold), gold


@pytest.mark.parametrize("name", VARIANTS)
@settings(max_examples=examples(60), deadline=None)
@given(data=hs.data())
def test_loss_and_costs_equal_exhaustive_search(name, data):
    ts = VARIANTS[name]
    gold = data.draw(trees(max_words=7 if ts is TS else 6))  # +root: more states to search
    c = data.draw(reachable_configurations(ts, gold, max_steps=2 * len(gold)))  # <= 2n steps
    memo = {}
    assert ts.loss(c, gold) == exhaustive.min_loss(ts, c, gold, memo)
    assert ts.costs(c, gold) == exhaustive.costs(ts, c, gold, memo)


@pytest.mark.parametrize("name", VARIANTS)
@settings(max_examples=examples(60), deadline=None)
@given(data=hs.data())
def test_an_arc_k_is_k_minus_1_no_arcs_then_covingtons_arc(name, data):
    """Left-Arc_k's cost and configuration are those of k - 1 No-Arcs then a Left-Arc of
    Covington's (likewise Right-Arc_k): the equivalence the dynamic oracle rests on."""
    ts = VARIANTS[name]
    cov = COVINGTON[ts]
    gold = data.draw(trees(max_words=8))
    c = data.draw(reachable_configurations(ts, gold, max_steps=2 * len(gold)))
    costs = ts.costs(c, gold)
    for action, cost in costs.items():
        d = Configuration(c.state, cov)  # the same configuration, as Covington's
        covington_cost = 0
        if action != "shift":
            family, k = action.rsplit("-", 1)
            steps = ["no-arc"] * (int(k) - 1) + [family]
        else:
            steps = ["shift"]
        for step in steps:
            covington_cost += cov.costs(d, gold)[step]
            d = cov.apply(d, step)
        assert covington_cost == cost
        after = ts.apply(c, action)
        assert np.array_equal(after.state[8:], d.state[8:])  # PREVIOUS aside, the same state


def test_scripted_non_projective_sentence():
    # gold: 3 -> 1, 4 -> 2, 0 -> 3, 3 -> 4; 3 -> 1 and 4 -> 2 cross
    gold = [-1, 3, 4, 0, 3]
    c = run(TS, 4, ["shift", "shift"])  # λ1 = [1, 2], j = 3
    assert zero_cost(TS, c, gold) == ["left-arc-2"]  # Covington: no-arc, then left-arc
    assert TS.static_oracle(c, gold) == "left-arc-2"
    assert TS.arc(c, "left-arc-2") == (3, 1)
    c = TS.apply(c, "left-arc-2")
    assert repr(c) == "<covington-nl λ1=[], λ2=[1, 2], B=[3, 4], arcs={3->1}>"
    c = TS.apply(c, "shift")  # λ1 = [1, 2, 3], j = 4
    assert zero_cost(TS, c, gold) == ["right-arc-1"]
    assert "left-arc-3" not in TS.legal(c)  # 1 has its head
    c = TS.apply(c, "right-arc-1")  # 3 -> 4: j stays, the focus moves left
    assert repr(c) == "<covington-nl λ1=[1, 2], λ2=[3], B=[4], arcs={3->1 3->4}>"
    assert TS.legal(c) == ["shift", "left-arc-1"]  # j has its head: no right-arc
    assert TS.costs(c, gold) == {"shift": 1, "left-arc-1": 0}  # shift loses 4 -> 2
    c = TS.apply(TS.apply(c, "left-arc-1"), "shift")
    assert TS.is_terminal(c) and headless_to_root(TS.heads(c)) == gold


def test_after_a_right_arc_j_still_takes_dependents_further_left():
    """j stays the focus after Right-Arc_k (Figure 1, as Covington's Right-Arc): here 3's
    head 2 and its dependent 1 are both left of it, the head nearer."""
    gold = [-1, 3, 0, 2]  # 2 -> 3 -> 1
    final, taken = static_oracle_path(TS, gold)
    assert taken == ["shift", "shift", "right-arc-1", "left-arc-1", "shift"]
    assert headless_to_root(TS.heads(final)) == gold


def test_a_long_arc_in_one_transition_and_what_it_skips():
    gold = [-1, 4, 4, 4, 0]  # 4 heads every word before it
    c = run(TS, 4, ["shift"] * 3)  # λ1 = [1, 2, 3], j = 4
    assert zero_cost(TS, c, gold) == ["left-arc-1"]
    assert TS.costs(c, gold)["left-arc-3"] == 2  # 3 -> ... 1: skips 3 and 2, loses them
    c = TS.apply(c, "left-arc-3")
    assert TS.heads(c) == [-1, 4, -1, -1, -1] and TS.loss(c, gold) == 2


def test_with_root_root_arcs_are_right_arcs_from_0():
    c = ROOTED.initial(2)
    assert repr(c) == "<covington-nl+root λ1=[0], λ2=[], B=[1, 2], arcs={}>"
    assert ROOTED.legal(c) == ["shift", "right-arc-1"]  # 0 takes no head
    c = ROOTED.apply(c, "shift")  # λ1 = [0, 1], j = 2
    assert ROOTED.legal(c) == ["shift", "left-arc-1", "right-arc-1", "right-arc-2"]
    assert ROOTED.arc(c, "right-arc-2") == (0, 2)
    gold = [-1, 2, 0]
    assert ROOTED.static_oracle(c, gold) == "left-arc-1"
    c = ROOTED.apply(c, "left-arc-1")
    assert ROOTED.static_oracle(c, gold) == "right-arc-1"  # now k = 1 reaches 0


def test_action_names_carry_k():
    c = run(TS, 5, ["shift"] * 4)  # λ1 = [1, 2, 3, 4], j = 5
    assert TS.legal(c) == ["shift"] + [f"{a}-{k}" for k in range(1, 5)
                                        for a in ("left-arc", "right-arc")]
    labeled = TS.apply(c, "left-arc-3", label=7)  # 5 -> 2
    assert TS.heads(labeled)[2] == 5 and labeled.state[8 + 4 * 6 + 2] == 7  # the LABELS region
    assert repr(labeled).startswith("<covington-nl λ1=[1], λ2=[2, 3, 4]")
    for bad in ("no-arc", "left-arc", "left-arc-0", "left-arc-03", "right-arc-x", "swap"):
        with pytest.raises(ValueError, match="has no action"):
            TS.apply(c, bad)
    with pytest.raises(ValueError, match="not legal"):
        TS.apply(c, "left-arc-5")  # λ1 has 4 words
    assert TS.arc(c, "right-arc-5") is None and TS.arc(c, "right-arc-4") == (1, 5)
    assert TS.actions == ("shift", "left-arc-k", "right-arc-k")


def test_action_ids_are_the_same_in_every_sentence():
    k = TS.kernels
    assert [k.action_count(n) for n in range(4)] == [1, 3, 5, 7]
    assert [k.action_name(a) for a in range(5)] == [
        "shift", "left-arc-1", "right-arc-1", "left-arc-2", "right-arc-2"]
    for a in range(k.action_count(40)):
        assert k.action_id(k.action_name(a)) == a
        assert k.takes_label(a) == (a != nl.SHIFT)
    assert [nl.left_arc(3), nl.right_arc(3)] == [k.action_id("left-arc-3"),
                                                  k.action_id("right-arc-3")]


def test_oracle_is_exact():
    assert TS.oracle.exact and TS.oracle.bounds == ()
    assert TS.loss(TS.initial(0), [-1]) == 0 and TS.legal(TS.initial(0)) == []
