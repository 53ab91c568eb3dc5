"""Arc-hybrid+swap (de Lhoneux, Stymne & Nivre 2017): static and static-dynamic oracles."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from arcwise import systems
from arcwise.oracles import arc_hybrid as oracle
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
    if ts.static_oracle(c, gold) == "swap":  # a static decision: SWAP or nothing
        assert costs == {a: 0 if a == "swap" else 1 for a in costs}
        assert ts.loss(ts.apply(c, "swap"), gold) == predicted
    else:
        for action, cost in costs.items():
            difference = ts.loss(ts.apply(c, action), gold) - predicted
            assert cost == (1 if action == "swap" else difference), action
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


def played_to_the_end(ts, c, gold):
    """Hamming loss of the tree the static-dynamic policy builds from c, one step at a time."""
    prepared = ts.oracle.prepare(np.asarray(gold, dtype=np.int32))
    mask = np.zeros(len(ts.kernels.actions), dtype=np.bool_)
    out = np.zeros(len(ts.kernels.actions), dtype=np.int64)
    while not ts.is_terminal(c):
        mask[:] = False
        ts.kernels.legal(c.state, mask)
        action = oracle.static_dynamic_choice(c.state, prepared, mask, out)
        c = ts.apply(c, ts.kernels.actions[action])
    return exhaustive.hamming(ts.heads(c), gold)


@pytest.mark.parametrize("mode", ["lazy", "eager"])
@settings(max_examples=80, deadline=None)
@given(data=hs.data())
def test_loss_is_that_of_the_policy_played_to_the_end(mode, data):
    """The closed form (projective stack) and the shortened play-out agree with a full play-out."""
    ts = systems.get("arc-hybrid+swap", swap=mode)
    gold = data.draw(trees(max_words=8))
    c = data.draw(reachable_configurations(ts, gold))
    assert ts.loss(c, gold) == played_to_the_end(ts, c, gold)


@pytest.mark.parametrize("mode", ["lazy", "eager"])
@settings(max_examples=60, deadline=None)
@given(gold=trees(max_words=7, projective=True), seed=hs.integers(0, 2**32 - 1))
def test_costs_are_arc_hybrid_costs_on_projective_trees(mode, gold, seed):
    """Without swaps so far, the projective order is the sentence order and
    LEFT-ARC, RIGHT-ARC and SHIFT cost what they cost in plain arc-hybrid."""
    plain = systems.get("arc-hybrid")
    ts = systems.get("arc-hybrid+swap", swap=mode)
    n = len(gold) - 1
    rng = np.random.default_rng(seed)
    c, c_swap = plain.initial(n), ts.initial(n)
    while not plain.is_terminal(c):
        costs = ts.costs(c_swap, gold)
        assert costs.pop("swap", 1) == 1
        assert costs == plain.costs(c, gold)
        assert ts.loss(c_swap, gold) == plain.loss(c, gold)
        action = plain.legal(c)[rng.integers(len(plain.legal(c)))]
        c, c_swap = plain.apply(c, action), ts.apply(c_swap, action)


@pytest.mark.parametrize("mode", ["lazy", "eager"])
@settings(max_examples=80, deadline=None)
@given(gold=trees(max_words=8))
def test_zero_cost_sets_on_the_static_oracle_path(mode, gold):
    """On gold configurations the static oracle's action costs nothing, and
    where it swaps nothing else is free."""
    ts = systems.get("arc-hybrid+swap", swap=mode)
    c = ts.initial(len(gold) - 1)
    while not ts.is_terminal(c):
        action = ts.static_oracle(c, gold)
        free = zero_cost(ts, c, gold)
        assert action in free and ts.loss(c, gold) == 0
        if action == "swap":
            assert free == {"swap"}
        c = ts.apply(c, action)
    assert ts.heads(c) == gold


def test_shift_is_free_for_a_word_that_will_be_swapped_back():
    """de Lhoneux et al.'s exception, in the hearing example: once "is" and
    "scheduled" have passed "on", shifting "is" onto "on" would strand its
    dependent "hearing" below, but "the" and "issue" follow "is" in the sentence
    and precede it in the projective order: "is" will be swapped back."""
    ts = systems.get("arc-hybrid+swap", swap="eager")
    c = ts.initial(8)
    for action in ["shift", "left-arc", "shift", "shift", "shift", "swap", "swap", "shift"]:
        assert zero_cost(ts, c, HEARING) == {action}
        c = ts.apply(c, action)
    # σ=[hearing, on], β=[is, scheduled, the, issue, today, ROOT]
    assert c.stack == (2, 5) and c.buffer == (3, 4, 6, 7, 8, 0) and HEARING[2] == 3
    assert ts.static_oracle(c, HEARING) == "shift"
    assert zero_cost(ts, c, HEARING) == {"shift"}
    assert ts.loss(ts.apply(c, "shift"), HEARING) == 0


class Figure1:
    """de Lhoneux et al.'s (2017) Figure 1 bookkeeping, as the paper states it: per
    word, the gold dependents still reachable (rdeps), struck off as transitions
    are taken; costs count what a transition strikes off."""

    def __init__(self, gold, position):
        self.gold, self.position = gold, position
        self.rdeps = {w: {d for d in range(1, len(gold)) if gold[d] == w} for w in range(len(gold))}

    def lost_at_shift(self, c):
        """(head arc, dependent arcs) a SHIFT strikes off; None when b will be swapped back."""
        stack, (b, *beta) = list(c.stack), c.buffer
        if any(d > b and self.position[d] < self.position[b] for d in beta):
            return None
        head = self.gold[b] in stack[:-1] and b in self.rdeps[self.gold[b]]
        return head, {d for d in self.rdeps[b] if d in stack}

    def costs(self, c, legal):
        gold, rdeps = self.gold, self.rdeps
        stack, b = list(c.stack), c.buffer[0]
        if "swap" in legal and self.position[stack[-1]] > self.position[b]:
            return {a: 0 if a == "swap" else 1 for a in legal}
        costs = {"swap": 1}
        if stack:
            s0 = stack[-1]
            reachable = s0 in rdeps[gold[s0]]
            costs["left-arc"] = len(rdeps[s0]) + (gold[s0] != b and reachable)
            if len(stack) > 1:
                costs["right-arc"] = len(rdeps[s0]) + (gold[s0] != stack[-2] and reachable)
        if "shift" in legal:
            lost = self.lost_at_shift(c)
            costs["shift"] = 0 if lost is None else lost[0] + len(lost[1])
        return {a: costs[a] for a in legal}

    def take(self, c, action):
        gold, rdeps = self.gold, self.rdeps
        if action == "shift":
            lost = self.lost_at_shift(c)
            if lost is not None:
                b = c.buffer[0]
                if lost[0]:
                    rdeps[gold[b]].discard(b)
                rdeps[b] -= lost[1]
        elif action in ("left-arc", "right-arc"):
            s0 = c.stack[-1]
            rdeps[s0] = set()
            rdeps[gold[s0]].discard(s0)


@settings(max_examples=150, deadline=None)
@given(gold=trees(max_words=9), seed=hs.integers(0, 2**32 - 1))
def test_costs_are_figure_1_in_the_papers_training_regime(gold, seed):
    """The paper's training takes every static swap and no other: there, reading
    reachability off the configuration gives exactly Figure 1's costs (eager
    swaps, as in the paper)."""
    ts = systems.get("arc-hybrid+swap", swap="eager")
    figure = Figure1(gold, ts.oracle.prepare(np.asarray(gold, dtype=np.int32))[3])
    rng = np.random.default_rng(seed)
    c = ts.initial(len(gold) - 1)
    while not ts.is_terminal(c):
        legal = ts.legal(c)
        costs = ts.costs(c, gold)
        assert costs == figure.costs(c, legal), c
        if costs.get("swap") == 0:
            action = "swap"
        else:
            choices = [a for a in legal if a != "swap"]
            action = choices[rng.integers(len(choices))]
        figure.take(c, action)
        c = ts.apply(c, action)
