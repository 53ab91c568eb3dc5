"""Exact loss of covington-nm configurations by pruned search (2017 paper §5) vs brute force."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from arcwise import systems
from arcwise.oracles.exact_loss import (
    LossMemo,
    SearchLimitExceeded,
    detaching_loss,
    exact_loss,
    root_penalty,
    witness_loss,
)
from tests.reference import exhaustive
from tests.reference.random_trees import examples, reachable_configurations, trees
from tests.test_covington import run

TS = systems.get("covington-nm")


@settings(max_examples=150, deadline=None)
@given(hs.data())
def test_exact_loss_equals_exhaustive_search(data):
    gold = data.draw(trees(max_words=6))
    c = data.draw(reachable_configurations(TS, gold))
    loss = exhaustive.min_loss(TS, c, gold)
    assert exact_loss(c.state, gold) == loss
    witness = witness_loss(c.state, np.array(gold, dtype=np.int32))
    assert loss <= witness <= TS.loss(c, gold, "pc-upper")


@settings(max_examples=15, deadline=None)
@given(trees(min_words=4, max_words=6), hs.integers(0, 2**32 - 1))
def test_a_shared_memo_gives_the_same_losses(gold, seed):
    rng = np.random.default_rng(seed)
    memo = LossMemo(gold)
    c = TS.initial(len(gold) - 1)
    while not TS.is_terminal(c):
        assert exact_loss(c.state, gold, memo) == exact_loss(c.state, gold)
        legal = TS.legal(c)
        c = TS.apply(c, legal[rng.integers(len(legal))])


def test_a_loss_below_every_upper_bound():
    # the wrong 2 -> 1 over the gold root word 1: the upper bounds count 0 -> 1 as lost, but
    # Left-Arc 3 -> 2 and then 1 -> 3 deletes 2 -> 1 and builds the gold tree
    gold = [-1, 0, 3, 1]
    c = run(TS, 3, ["shift", "left-arc", "shift"])
    assert exact_loss(c.state, gold) == 0 < TS.loss(c, gold, "pc-upper")


def test_search_limit():
    # the lower bound (0: 1 might still be detached) and the witness (1) disagree: search
    gold = [-1, 0, 3, 0]
    c = run(TS, 3, ["shift", "left-arc", "shift"])
    with pytest.raises(SearchLimitExceeded):
        exact_loss(c.state, gold, max_states=0)
    assert exact_loss(c.state, gold) == 1 == exhaustive.min_loss(TS, c, gold)


@settings(max_examples=examples(300), deadline=None)
@given(hs.data(), hs.sampled_from(["covington-nm", "covington-nm+root"]))
def test_the_search_bounds_hold(data, name):
    # the detaching sequence is achievable; the root penalty keeps the lower bound below ℓ(c)
    ts = systems.get(name)
    gold = data.draw(trees(min_words=2, max_words=6))
    c = data.draw(reachable_configurations(ts, gold))
    heads = np.array(gold, dtype=np.int32)
    loss = exhaustive.min_loss(ts, c, gold)
    assert ts.loss(c, gold, "lower") + root_penalty(c.state, heads) <= loss
    assert loss <= detaching_loss(c.state, heads)


def test_the_detaching_sequence_detaches_a_gold_root_for_free():
    # gold: 2 heads 1, 3 and 4.  After 2 -> 1, the wrong 3 -> 2 and Shift, at (3, 4): 3's gold
    # arc is lost, 2 is headed.  The witness builds 2 -> 4 and keeps 3 -> 2 (loss 2); 4 -> 3
    # first makes 4 an ancestor of 2, so that 2 -> 4 at (2, 4) also deletes 3 -> 2 (loss 1)
    gold = [-1, 2, 0, 2, 2]
    c = run(TS, 4, ["shift", "left-arc", "shift", "left-arc", "no-arc", "shift"])
    heads = np.array(gold, dtype=np.int32)
    assert TS.loss(c, gold, "lower") == 1 == exhaustive.min_loss(TS, c, gold)
    assert witness_loss(c.state, heads) == 2 == TS.loss(c, gold, "pc-upper")
    assert detaching_loss(c.state, heads) == 1
