"""The buffer transitions of the 2012 paper (§3.1, §4.1) on arc-eager, and their oracles."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from arcwise import systems
from arcwise.dispatch.walk import final_heads, follow_static_oracle
from arcwise.oracles import arc_eager as oracle
from arcwise.systems import arc_eager as ae
from arcwise.systems import state as st
from tests.reference import exhaustive
from tests.reference.arc_eager_bruteforce import derivable
from tests.reference.random_trees import (
    headless_to_root,
    is_projective,
    random_walk,
    reachable_configurations,
    static_oracle_path,
    trees,
)
from tests.test_arc_eager import FEW, examples, follow_static, is_forest, zero_cost

SINGLE = ["arc-eager+lba", "arc-eager+rba", "arc-eager+lnba", "arc-eager+rnba"]
ALL_FOUR = "arc-eager+lba+rba+lnba+rnba"
VARIANTS = SINGLE + ["arc-eager+lba+rba", "arc-eager+lnba+rnba", ALL_FOUR]
# Every combination of buffer transitions, plain arc-eager included.
COMBINATIONS = [
    "arc-eager" + "".join(f"+{o}" for o in chosen)
    for r in range(5)
    for chosen in itertools.combinations(ae.OPTION_BITS, r)
]
# Those whose static oracle needs the longer RIGHT-BUFFER-ARC of the fallback.
WITH_FALLBACK = [name for name in COMBINATIONS if "+rba" in name and "nba" in name]
# Exhaustive checks on every tree: the smallest and the largest variants with the fallback
# on 6 words (4 to 5 s each), every combination on fewer.
SIX_WORDS = ["arc-eager+rba+lnba", "arc-eager+rba+rnba", ALL_FOUR]
MAX_WORDS_EVERY_COMBINATION = 4 if FEW else 5


def gold_trees(n):
    """Every dependency tree on n words rooted at 0, as head lists."""
    for heads in itertools.product(range(n + 1), repeat=n):
        heads = (-1,) + heads
        if all(reaches_root(heads, d) for d in range(1, n + 1)):
            yield list(heads)


def reaches_root(heads, d):
    for _ in range(len(heads)):
        if d == 0:
            return True
        d = heads[d]
    return False


def derivable_trees(ts, n):
    """Every tree some transition sequence builds on n words (headless words = 0)."""
    k = ts.kernels
    seen, trees_built, todo = set(), set(), [k.initial(n)]
    while todo:
        state = todo.pop()
        if state.tobytes() in seen:
            continue
        seen.add(state.tobytes())
        if k.is_terminal(state):
            trees_built.add(tuple(final_heads(state)[1:]))
            continue
        mask = np.zeros(len(k.actions), dtype=np.bool_)
        k.legal(state, mask)
        for a in k.enabled:
            if mask[a]:
                after = state.copy()
                k.apply(after, a, -1)
                todo.append(after)
    return trees_built


def compiled_static_rebuilds(ts, gold):
    """Does the static oracle, followed in the compiled walk, rebuild gold?"""
    n = len(gold) - 1
    state = ts.kernels.initial(n)
    prepared = oracle.prepare(np.array(gold))
    system, variant = ts.kernels.system_id, ts.oracle.variant
    taken = follow_static_oracle(system, variant, state, prepared, 2 * n + 1)
    return taken >= 0 and final_heads(state)[1:].tolist() == gold[1:]


def paper_choice(state, prepared):
    """The action of the 2012 paper's policy alone (no fallback)."""
    mask, out = oracle.legal_costs(state, prepared)
    return oracle.first_free(state, prepared, mask, out, oracle.STATIC_ORDER)


def test_transitions_as_defined_in_the_paper():
    ts = systems.get(ALL_FOUR)
    c = ts.initial(4)  # σ=[0], β=[1, 2, 3, 4]
    after = ts.apply(c, "left-buffer-arc")  # (σ, i|j|β) => (σ, j|β), j -> i
    assert after.buffer == (2, 3, 4) and ts.heads(after)[1] == 2
    after = ts.apply(c, "right-buffer-arc")  # (σ, i|j|β) => (σ, i|β), i -> j
    assert after.buffer == (1, 3, 4) and ts.heads(after)[2] == 1
    c = ts.apply(c, "shift")  # σ=[0, 1], β=[2, 3, 4]
    after = ts.apply(c, "left-nonproj-buffer-arc")  # (σ|i, j|k|β) => (σ, j|k|β), k -> i
    assert after.stack == (0,) and after.buffer == (2, 3, 4) and ts.heads(after)[1] == 3
    after = ts.apply(c, "right-nonproj-buffer-arc")  # (σ|i, j|k|β) => (σ|i, j|β), i -> k
    assert after.stack == (0, 1) and after.buffer == (2, 4) and ts.heads(after)[3] == 1
    # Two RIGHT-BUFFER-ARCs build an arc of length 2 (2012 paper, §3.1).
    c = ts.apply(ts.apply(ts.initial(3), "right-buffer-arc"), "right-buffer-arc")
    assert ts.heads(c) == [-1, -1, 1, 1]


def test_preconditions():
    ts = systems.get(ALL_FOUR)
    c = ts.initial(2)
    # LNBA needs i != 0; the others need two buffer nodes.
    assert "left-nonproj-buffer-arc" not in ts.legal(c)
    assert {"left-buffer-arc", "right-buffer-arc", "right-nonproj-buffer-arc"} <= set(ts.legal(c))
    c = ts.apply(c, "right-arc")  # 1 has a head: no LEFT-ARC, no LNBA
    assert not {"left-arc", "left-nonproj-buffer-arc", "left-buffer-arc"} & set(ts.legal(c))


def test_option_bits_mask_disabled_actions_in_the_kernel():
    mask = np.zeros(len(ae.ACTIONS), dtype=np.bool_)
    ae.legal(ae.initial(3), mask)  # plain arc-eager
    assert not mask[ae.LBA:].any()
    mask[:] = False
    state = systems.get("arc-eager+rnba").kernels.initial(3)
    assert state[st.OPTIONS] == ae.OPTION_BITS["rnba"]
    ae.legal(state, mask)
    assert mask[ae.RNBA] and not mask[ae.LBA] and not mask[ae.RBA] and not mask[ae.LNBA]
    assert systems.get("arc-eager+rnba+lba").kernels.enabled == (0, 1, 2, 3, ae.LBA, ae.RNBA)


def test_worked_example_policy_of_the_static_oracle():
    # "She ate the red apple" (2 -> 1, 0 -> 2, 5 -> 3, 5 -> 4, 2 -> 5) with LBA and RBA:
    # LBA builds the length-1 arcs she <- ate and red <- apple; the <- apple (length 2)
    # is left to arc-eager's LEFT-ARC.
    ts = systems.get("arc-eager+lba+rba")
    gold = [-1, 2, 0, 5, 5, 2]
    c = ts.initial(5)
    script = [
        ("left-buffer-arc", {"left-buffer-arc", "shift"}),
        ("right-arc", {"right-arc", "shift"}),
        ("shift", {"shift"}),
        ("left-buffer-arc", {"left-buffer-arc", "shift"}),
        ("left-arc", {"left-arc"}),
        ("right-arc", {"right-arc"}),
    ]
    for action, free in script:
        assert zero_cost(ts, c, gold) == free
        assert ts.static_oracle(c, gold) == action
        c = ts.apply(c, action)
    assert ts.is_terminal(c) and ts.heads(c) == gold


def test_right_buffer_arc_is_not_used_when_the_dependent_has_dependents():
    # 2012 paper, footnote 2: 1 -> 2 has length 1, but 2 still needs its dependent 3.
    ts = systems.get("arc-eager+rba")
    gold = [-1, 0, 1, 2]
    c = ts.initial(3)
    assert ts.costs(c, gold)["right-buffer-arc"] == 1
    assert ts.static_oracle(c, gold) == "right-arc"
    assert follow_static(ts, gold) == gold


def test_nonprojective_buffer_arcs_build_a_nonprojective_tree():
    # 0 -> 1, 0 -> 2, 1 -> 3: the arc 1 -> 3 crosses 0 -> 2.
    gold = [-1, 0, 0, 1]
    assert not is_projective(gold)
    assert not systems.get("arc-eager").can_build(gold)
    ts = systems.get("arc-eager+rnba")
    assert ts.can_build(gold)
    c = ts.apply(ts.initial(3), "right-arc")
    assert ts.static_oracle(c, gold) == "right-nonproj-buffer-arc"
    assert follow_static(ts, gold) == gold


@pytest.mark.parametrize("name", COMBINATIONS)
def test_static_oracle_and_can_build_on_every_small_tree(name):
    ts = systems.get(name)
    for n in range(1, MAX_WORDS_EVERY_COMBINATION + 1):
        derivable_here = derivable_trees(ts, n)
        for gold in gold_trees(n):
            buildable = tuple(gold[1:]) in derivable_here
            assert ts.can_build(gold) == buildable, gold
            assert compiled_static_rebuilds(ts, gold) == buildable, gold


@pytest.mark.skipif(FEW, reason="16,807 trees: too slow without the JIT")
@pytest.mark.parametrize("name", SIX_WORDS)
def test_static_oracle_and_can_build_on_every_tree_of_6_words(name):
    ts = systems.get(name)
    derivable_here = derivable_trees(ts, 6)
    for gold in gold_trees(6):
        buildable = tuple(gold[1:]) in derivable_here
        assert ts.can_build(gold) == buildable, gold
        assert compiled_static_rebuilds(ts, gold) == buildable, gold


@pytest.mark.parametrize("name", COMBINATIONS)
def test_static_oracle_rebuilds_exactly_the_derivable_trees(name):
    ts = systems.get(name)

    @settings(max_examples=examples(40), deadline=None)
    @given(trees(min_words=6, max_words=7))
    def check(gold):
        buildable = derivable(ts, gold)
        assert ts.can_build(gold) == buildable
        assert (follow_static(ts, gold)[1:] == gold[1:]) == buildable

    check()


@pytest.mark.parametrize(
    "name, gold",
    [
        ("arc-eager+rba+rnba", [-1, 5, 0, 1, 0, 0]),  # the module docstring's example
        (ALL_FOUR, [-1, 6, 1, 1, 0, 0, 5]),
        ("arc-eager+rba+rnba", [-1, 2, 6, 0, 2, 0, 0]),
        ("arc-eager+rba+lnba", [-1, 5, 6, 2, 2, 2, 0]),
    ],
)
def test_trees_that_need_a_longer_right_buffer_arc(name, gold):
    ts = systems.get(name)
    assert derivable(ts, gold) and ts.can_build(gold)
    c, taken = static_oracle_path(ts, gold)
    assert headless_to_root(ts.heads(c)) == gold
    assert "right-buffer-arc" in taken


def test_fallback_of_the_module_docstring_example():
    # 5 -> 1, 1 -> 3, roots 2, 4, 5: RNBA 0 -> 2 leaves 1 in front of 3.  Shifting 1
    # (the paper's policy: RBA 1 -> 3 has length 2) buries 0 and loses 0 -> 4;
    # RBA 1 -> 3 keeps 1 in the buffer as the front for RNBA 0 -> 4.
    ts = systems.get("arc-eager+rba+rnba")
    gold = [-1, 5, 0, 1, 0, 0]
    c = ts.initial(5)
    script = [
        "right-nonproj-buffer-arc",  # 0 -> 2
        "right-buffer-arc",  # 1 -> 3, length 2: the fallback
        "right-nonproj-buffer-arc",  # 0 -> 4
        "shift",
        "left-arc",  # 5 -> 1
    ]
    for action in script:
        assert ts.static_oracle(c, gold) == action
        c = ts.apply(c, action)
    assert headless_to_root(ts.heads(ts.apply(c, ts.static_oracle(c, gold)))) == gold
    c = ts.apply(ts.initial(5), "right-nonproj-buffer-arc")
    prepared = oracle.prepare(np.array(gold))
    assert ae.ACTIONS[paper_choice(c.state, prepared)] == "shift"
    assert not derivable(ts, gold, start=ts.apply(c, "shift"))


@pytest.mark.parametrize("name", WITH_FALLBACK)
def test_fallback_only_where_the_papers_choice_loses_the_tree(name):
    """Along the static path the oracle differs from the paper's policy only where the
    policy's action makes the gold tree underivable and its own keeps it derivable."""
    ts = systems.get(name)

    @settings(max_examples=examples(60), deadline=None)
    @given(trees(min_words=5, max_words=7))
    def check(gold):
        prepared = oracle.prepare(np.array(gold))
        c = ts.initial(len(gold) - 1)
        while not ts.is_terminal(c):
            action = ts.static_oracle(c, gold)
            paper = ae.ACTIONS[paper_choice(c.state, prepared)]
            if action != paper:
                assert action == "right-buffer-arc"
                assert not derivable(ts, gold, start=ts.apply(c, paper))
                assert derivable(ts, gold, start=ts.apply(c, action))
            c = ts.apply(c, action)

    check()


@pytest.mark.parametrize("name", WITH_FALLBACK)
def test_builds_gold_decides_derivability_from_gold_configurations(name):
    """`builds_gold` (the oracle's derivability test) against exhaustive search, from
    configurations reached by random actions that build gold arcs only."""
    ts = systems.get(name)

    @settings(max_examples=examples(60), deadline=None)
    @given(trees(min_words=4, max_words=7), hs.integers(0, 2**32 - 1), hs.integers(0, 14))
    def check(gold, seed, steps):
        rng = np.random.default_rng(seed)
        c = ts.initial(len(gold) - 1)
        for _ in range(steps):
            consistent = [
                a for a in ts.legal(c) if only_gold_arcs(ts.heads(ts.apply(c, a)), gold)
            ]
            if ts.is_terminal(c) or not consistent:
                break
            c = ts.apply(c, consistent[rng.integers(len(consistent))])
        prepared = oracle.prepare(np.array(gold))
        assert oracle.builds_gold(c.state.copy(), prepared) == derivable(ts, gold, start=c)

    check()


def only_gold_arcs(heads, gold):
    return all(h in (-1, g) for h, g in zip(heads[1:], gold[1:]))


@pytest.mark.parametrize("name", ["arc-eager+lba+rba", "arc-eager+lnba+rnba"])
def test_can_build_agrees_with_exhaustive_min_loss(name):
    ts = systems.get(name)

    @settings(max_examples=examples(12), deadline=None)
    @given(trees(max_words=6))
    def check(gold):
        assert ts.can_build(gold) == (exhaustive.min_loss(ts, ts.initial(len(gold) - 1), gold) == 0)

    check()


@pytest.mark.parametrize("name", VARIANTS)
def test_dynamic_oracle_is_exact_on_projective_trees(name):
    ts = systems.get(name)

    @settings(max_examples=examples(30), deadline=None)
    @given(hs.data())
    def check(data):
        gold = data.draw(trees(max_words=6, projective=True))
        c = data.draw(reachable_configurations(ts, gold))
        memo = {}
        assert ts.loss(c, gold) == exhaustive.min_loss(ts, c, gold, memo)
        if not ts.is_terminal(c):
            assert ts.costs(c, gold) == exhaustive.costs(ts, c, gold, memo)

    check()


@pytest.mark.parametrize("name", ["arc-eager+lnba", "arc-eager+rnba", ALL_FOUR])
def test_loss_is_a_lower_bound_on_non_projective_trees(name):
    ts = systems.get(name)
    assert not ts.oracle.exact

    @settings(max_examples=examples(25), deadline=None)
    @given(hs.data())
    def check(data):
        gold = data.draw(trees(max_words=6))
        c = data.draw(reachable_configurations(ts, gold))
        base = ts.loss(c, gold)
        assert base <= exhaustive.min_loss(ts, c, gold)
        if not ts.is_terminal(c):
            differences = {a: ts.loss(ts.apply(c, a), gold) - base for a in ts.legal(c)}
            assert ts.costs(c, gold) == differences

    check()


@pytest.mark.parametrize("name", VARIANTS)
def test_random_walks_terminate_in_forests(name):
    ts = systems.get(name)

    @settings(max_examples=examples(30), deadline=None)
    @given(hs.integers(1, 10), hs.integers(0, 2**32 - 1))
    def check(n, seed):
        c = random_walk(ts, n, np.random.default_rng(seed), 2 * n + 1)
        assert ts.is_terminal(c)
        assert is_forest(ts.heads(c))

    check()
