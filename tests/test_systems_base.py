"""The configuration array and the steppable API, on monotonic Covington."""

import re

import numpy as np
import pytest
from hypothesis import given, settings

from arcwise import systems
from arcwise.systems import state as st
from tests.reference.random_trees import is_forest, random_walk, trees


def test_buffer_and_stack_helpers():
    s = st.new_state(4, 0)
    assert [st.buffer_get(s, k) for k in range(5)] == [1, 2, 3, 4, -1]
    assert st.buffer_pop(s) == 1
    st.stack_push(s, st.STACK, 0)
    st.stack_push(s, st.STACK, 1)
    assert st.stack_get(s, st.STACK, 0) == 1 and st.stack_get(s, st.STACK, 1) == 0
    st.buffer_push(s, 1)
    assert st.buffer_remove(s, 1) == 2
    assert [st.buffer_get(s, k) for k in range(3)] == [1, 3, 4]
    st.set_arc(s, 3, 1, 5)
    assert st.head_of(s, 1) == 3 and st.reaches(s, 3, 1) and not st.reaches(s, 1, 3)


def test_configurations_are_immutable_and_hashable():
    ts = systems.get("covington")
    c = ts.initial(3)
    c2 = ts.apply(c, "shift")
    assert c != c2 and ts.initial(3) == c and hash(ts.initial(3)) == hash(c)
    assert ts.heads(c2) == [-1, -1, -1, -1]
    with pytest.raises(ValueError):
        c.state[0] = 7
    with pytest.raises(ValueError, match="not legal"):
        ts.apply(c, "left-arc")
    with pytest.raises(ValueError, match="unknown transition system"):
        systems.get("nonsense")


def test_covington_worked_example():
    ts = systems.get("covington")
    c = ts.initial(3)
    for a in ["shift", "left-arc", "shift", "right-arc"]:
        c = ts.apply(c, a)
    # 2 -> 1 and 2 -> 3 after: shift; 1 <- 2; shift (λ1=[1,2]); 2 -> 3
    assert ts.heads(c) == [-1, 2, -1, 2]
    assert not ts.is_terminal(c)
    assert "left-arc" not in ts.legal(c)  # 1 already has a head


@settings(max_examples=50, deadline=None)
@given(trees(max_words=7))
def test_covington_random_walks_build_forests(gold):
    ts = systems.get("covington")
    rng = np.random.default_rng(len(gold))
    c = random_walk(ts, len(gold) - 1, rng, 10_000)
    assert ts.is_terminal(c)
    heads = ts.heads(c)
    assert is_forest(heads)


@pytest.mark.parametrize("name", ["arc-eager", "arc-hybrid", "covington", "covington-nm",
                                  "two-planar"])
@pytest.mark.parametrize(("gold", "problem"), [
    ([-1, 0, 1, 5], "head of word 3 is 5, outside 0..3"),
    ([-1, 2, 3, 1], "cycle through words 1 -> 2 -> 3 -> 1"),
    ([-1, 0, -1, 2], "word 2 has no head"),
    ([-1, 0, 1], "gold has 2 words, the configuration 3"),
])
def test_gold_that_is_not_a_tree_of_the_sentence_is_a_value_error(name, gold, problem):
    ts = systems.get(name)
    c = ts.initial(3)
    for call in (ts.static_oracle, ts.loss, ts.costs):
        with pytest.raises(ValueError, match=re.escape(problem)):
            call(c, gold)
