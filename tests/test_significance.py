"""Paired significance tests: hand-computed cases, exact enumeration, determinism, the CLI."""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

import numpy as np
import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as hs
from typer.testing import CliRunner

from arcwise.cli import compare as compare_cli
from arcwise.core.errors import ArcwiseError
from arcwise.eval.metrics import evaluate, sentence_counts
from arcwise.eval.significance import compare, paired_bootstrap, stratified_shuffle
from arcwise.io import read_treebank
from arcwise.io.conllu import with_tree

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "eval"
DEV = ROOT / "data" / "en_ewt" / "dev.conllu.gz"


def exact_bootstrap(a, b, words):
    """Brute force: the p-value over all n^n equally likely ordered resamples."""
    n, delta = len(a), sum(a) / sum(words) - sum(b) / sum(words)
    hits = total = 0
    for drawn in itertools.product(range(n), repeat=n):
        w = sum(words[i] for i in drawn)
        d = sum(a[i] - b[i] for i in drawn) / w if w else 0.0
        hits += d >= 2 * delta - 1e-12
        total += 1
    return hits / total


def exact_shuffle(a, b):
    """Brute force: the share of all 2^n swap patterns with |difference| >= the observed."""
    diff = [x - y for x, y in zip(a, b)]
    observed = abs(sum(diff))
    patterns = list(itertools.product((1, -1), repeat=len(diff)))
    return sum(abs(sum(s * d for s, d in zip(signs, diff))) >= observed
               for signs in patterns) / len(patterns)


def test_identical_systems_are_not_significantly_different():
    correct, words = np.array([3, 5, 0, 7]), np.array([4, 6, 2, 9])
    assert paired_bootstrap(correct, correct, words, samples=500) == 1.0
    assert stratified_shuffle(correct, correct, samples=500) == 1.0


def test_hand_computed_bootstrap_two_sentences():
    # delta = 1/2; resamples {1,1}: delta* = 1 >= 2 delta (1/4), {1,2} and {2,1}: 1/2, {2,2}: 0
    p = paired_bootstrap([1, 0], [0, 0], [1, 1], samples=20_000, seed=3)
    assert p == pytest.approx(0.25, abs=0.015)


def test_hand_computed_shuffle():
    # only the first sentence differs: every shuffle has |difference| 1, so r = R
    assert stratified_shuffle([1, 4], [0, 4], samples=1000) == 1.0
    # differences 2 and 1: |+-2 +-1| >= 3 for 2 of the 4 swap patterns
    p = stratified_shuffle([5, 3], [3, 2], samples=20_000, seed=3)
    assert p == pytest.approx(0.5, abs=0.015)


@settings(max_examples=25, deadline=None)
@given(hs.lists(hs.tuples(hs.integers(0, 5), hs.integers(0, 5), hs.integers(0, 3)),
                min_size=1, max_size=4))
def test_monte_carlo_p_values_approach_exhaustive_enumeration(rows):
    a = [min(x, w) for x, _, w in rows]
    b = [min(y, w) for _, y, w in rows]
    words = [w for *_, w in rows]
    samples = 4000
    tolerance = 4 * 0.5 / np.sqrt(samples) + 2 / samples  # 4 standard errors at worst
    if sum(words):
        assert paired_bootstrap(a, b, words, samples, seed=1) == pytest.approx(
            exact_bootstrap(a, b, words), abs=tolerance)
    assert stratified_shuffle(a, b, samples, seed=1) == pytest.approx(
        exact_shuffle(a, b), abs=tolerance)


@settings(max_examples=50, deadline=None)
@given(hs.lists(hs.tuples(hs.integers(0, 30), hs.integers(0, 30)), min_size=1, max_size=60),
       hs.integers(1, 300), hs.integers(0, 2**32 - 1))
def test_shuffle_p_value_lies_in_zero_one(pairs, samples, seed):
    a, b = zip(*pairs)
    p = stratified_shuffle(a, b, samples, seed)
    assert 1 / (samples + 1) <= p <= 1


def test_a_clearly_better_system_is_significant():
    rng = np.random.default_rng(0)
    words = rng.integers(5, 40, size=400)
    b = rng.binomial(words, 0.80)
    a = np.minimum(words, b + rng.binomial(words, 0.05))  # about 4 points better
    assert paired_bootstrap(a, b, words, samples=2000) < 0.01
    assert stratified_shuffle(a, b, samples=2000) < 0.01
    # the one-sided bootstrap tests "A better than B": the reverse claim has p near 1
    assert paired_bootstrap(b, a, words, samples=2000) > 0.99


def test_same_seed_same_p_value():
    rng = np.random.default_rng(1)
    words = rng.integers(1, 30, size=300)
    a, b = rng.binomial(words, 0.85), rng.binomial(words, 0.84)
    for test in (lambda s: paired_bootstrap(a, b, words, 3000, seed=s),
                 lambda s: stratified_shuffle(a, b, 3000, seed=s)):
        assert test(7) == test(7)
        assert 0 < test(7) < 1
        assert len({test(s) for s in range(5)}) > 1  # the seed matters


def perturbed(sentences, share, seed):
    """Each word's head moved, with probability `share`, to another word outside its subtree."""
    rng = np.random.default_rng(seed)
    result = []
    for s in sentences:
        head = s.head.copy()
        for m in range(1, s.n + 1):
            if rng.random() < share:
                def below_m(h):
                    while h > 0 and h != m:
                        h = head[h]
                    return h == m
                choices = [h for h in range(s.n + 1) if not below_m(h) and h != head[m]]
                if choices:
                    head[m] = choices[rng.integers(len(choices))]
        result.append(with_tree(s, head))
    return result


@pytest.fixture(scope="module")
def dev_slice():
    gold = list(itertools.islice(read_treebank(DEV), 300))
    return gold, perturbed(gold, 0.1, seed=1), perturbed(gold, 0.2, seed=2)


@pytest.mark.parametrize("punct", ["include", "exclude"])
def test_sentence_counts_add_up_to_evaluate(dev_slice, punct):
    gold, a, _ = dev_slice
    counts = sentence_counts(gold, a, punct)
    scores = evaluate(gold, a, punct)
    assert len(counts.scored_words) == len(gold)
    assert counts.scored_words.sum() == scores.scored_words
    assert counts.head_correct.sum() == scores.head_correct
    assert counts.labeled_correct.sum() == scores.labeled_correct


def test_compare_on_perturbed_dev_trees(dev_slice):
    gold, a, b = dev_slice
    result = compare(gold, a, b, metric="uas", test="bootstrap", samples=2000, seed=0)
    assert result.score_a == pytest.approx(evaluate(gold, a).uas)
    assert result.difference == pytest.approx(result.score_a - result.score_b)
    assert result.difference > 5 and result.p_value < 0.01
    assert result.hypothesis == "A is better than B (one-sided)"
    reverse = compare(gold, b, a, metric="uas", samples=2000, seed=0)
    assert reverse.hypothesis == "B is better than A (one-sided)"
    assert reverse.p_value == result.p_value  # the test follows the winner
    same = compare(gold, a, a, test="shuffle", samples=500)
    assert (same.difference, same.p_value) == (0, 1.0)
    with pytest.raises(ArcwiseError):
        compare(gold, a, b, metric="clas")


def app_with_compare() -> typer.Typer:
    app = typer.Typer()
    app.callback()(lambda: None)  # keep `compare` a subcommand
    compare_cli.register(app)
    return app


def test_cli_prints_both_scores_difference_and_p_value():
    runner = CliRunner()
    args = ["compare", str(DATA / "gold.conllu"), str(DATA / "system.conllu"),
            str(DATA / "gold.conllu"), "--samples", "200", "--seed", "4"]
    run = runner.invoke(app_with_compare(), args)
    assert run.exit_code == 0, run.output
    assert "54.55 LAS (6/11)" in run.output and "100.00 LAS (11/11)" in run.output
    assert "A - B: -45.45 points" in run.output
    assert "H1: B is better than A (one-sided)" in run.output
    run = runner.invoke(app_with_compare(), [*args, "--json", "--metric", "uas", "--test",
                                             "shuffle"])
    assert run.exit_code == 0, run.output
    result = json.loads(run.output)
    assert (result["correct_a"], result["correct_b"], result["words"]) == (9, 11, 11)
    assert result["difference"] == pytest.approx(100 * (9 - 11) / 11)
    assert 0 < result["p_value"] <= 1 and result["test"] == "shuffle"


def test_cli_misaligned_files_exit_2_with_one_line(monkeypatch, capsys):
    from arcwise.cli import main as cli_main

    monkeypatch.setattr(cli_main, "app", app_with_compare())
    monkeypatch.setattr(sys, "argv", ["arcwise", "compare", str(DATA / "gold.conllu"),
                                      str(DATA / "system.conllu"),
                                      str(DATA / "system_short_sentence.conllu")])
    with pytest.raises(SystemExit) as exit:
        cli_main.main()
    assert exit.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.splitlines()) == 1
    assert "sentence 3 does not match" in err and "2 words in gold, 1 in system" in err
