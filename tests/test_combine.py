"""Parser combination: voting and the two oracles against brute force over all trees; the CLI."""

from __future__ import annotations

import functools
import itertools
import sys
from pathlib import Path

import numpy as np
import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as hs
from typer.testing import CliRunner

from arcwise.cli import combine as combine_cli
from arcwise.combination.voting import (
    UposWeights,
    combine,
    estimate_upos_weights,
    oracle_arc,
    oracle_graph,
    vote,
)
from arcwise.core.corpus import ROOT, Sentence
from arcwise.core.errors import ArcwiseError
from arcwise.eval.metrics import evaluate
from arcwise.io import conllu, read_treebank
from tests.reference.random_trees import is_forest, trees
from tests.test_significance import perturbed

DEV = Path(__file__).resolve().parents[1] / "data" / "en_ewt" / "dev.conllu.gz"
LABELS = ("nsubj", "obj", "det")


def sentence(heads, deprels=None, upos=None) -> Sentence:
    n = len(heads) - 1
    words = (ROOT, *(f"w{i}" for i in range(1, n + 1)))
    return Sentence(form=words, lemma=words, upos=(ROOT, *(upos or ["NOUN"] * n)),
                    xpos=("_",) * (n + 1), feats=("_",) * (n + 1),
                    head=np.array(heads, dtype=np.int32),
                    deprel=(ROOT, *(deprels or ["dep"] * n)))


def is_tree(head) -> bool:
    n = len(head) - 1
    return (head[0] == -1 and all(0 <= h <= n and h != m for m, h in enumerate(head[1:], 1))
            and is_forest(list(head)))


@functools.cache
def all_trees(n: int) -> np.ndarray:
    """Brute force: every tree over words 1..n rooted at 0, as rows of heads [-1, h1..hn]."""
    rows = [[-1, *h] for h in itertools.product(range(n + 1), repeat=n)
            if all(h[m - 1] != m for m in range(1, n + 1)) and is_forest([-1, *h])]
    return np.array(rows, dtype=np.int64)


def arc_sums(candidates: np.ndarray, value: np.ndarray) -> np.ndarray:
    """Sum over words of value[h, m] for each candidate tree (row of heads)."""
    words = np.arange(1, candidates.shape[1])
    return value[candidates[:, 1:], words].sum(axis=1)


@hs.composite
def systems_and_gold(draw, max_words=5, max_systems=4):
    """k system trees and a gold tree over the same n words, with labels from LABELS."""
    n = draw(hs.integers(1, max_words))
    k = draw(hs.integers(1, max_systems))

    def labelled_tree():
        return sentence(draw(trees(n, n)), draw(hs.lists(hs.sampled_from(LABELS),
                                                         min_size=n, max_size=n)))
    return [labelled_tree() for _ in range(k)], labelled_tree()


def test_two_agreeing_systems_outvote_the_third():
    a = sentence([-1, 2, 0, 2], ["det", "root", "obj"])
    b = sentence([-1, 2, 0, 2], ["nsubj", "root", "obj"])
    c = sentence([-1, 0, 1, 1], ["det", "root", "nsubj"])
    head, deprel = vote([a, b, c], np.ones(3))
    assert head.tolist() == [-1, 2, 0, 2]
    # word 1: a and b propose 2 -> 1 with det and nsubj, a tie: the first system's label
    assert deprel == (ROOT, "det", "root", "obj")
    head, deprel = vote([a, b, c], np.array([1.0, 1.0, 3.0]))  # c now outweighs a + b
    assert head.tolist() == [-1, 0, 1, 1] and deprel == (ROOT, "det", "root", "nsubj")
    head, _ = vote([a, b, c], np.ones(3), single_root=True)
    assert head.tolist() == [-1, 2, 0, 2]


def test_single_root_vote_gives_the_root_one_dependent():
    a = sentence([-1, 0, 0, 2])
    head, _ = vote([a, a], np.ones(2), single_root=False)
    assert head.tolist() == [-1, 0, 0, 2]
    head, _ = vote([a, a], np.ones(2))  # one root by default, as UD demands
    assert is_tree(head) and np.count_nonzero(head[1:] == 0) == 1
    for oracle in (oracle_graph, oracle_arc):
        head, _ = oracle([a, a], a)
        assert is_tree(head) and np.count_nonzero(head[1:] == 0) == 1
        head, _ = oracle([a, a], a, single_root=False)
        assert head.tolist() == [-1, 0, 0, 2]


@settings(max_examples=60, deadline=None)
@given(systems_and_gold(), hs.lists(hs.integers(0, 3), min_size=4, max_size=4))
def test_vote_is_the_best_tree_of_proposed_arcs(data, integer_weights):
    systems, _ = data
    n, k = systems[0].n, len(systems)
    weights = np.array(integer_weights[:k], dtype=float)
    head, deprel = vote(systems, weights, single_root=False)
    assert is_tree(head)
    votes = np.zeros((n + 1, n + 1))
    proposed = np.zeros((n + 1, n + 1), dtype=bool)
    for s, w in zip(systems, weights):
        for m in range(1, n + 1):
            votes[s.head[m], m] += w
            proposed[s.head[m], m] = True
    candidates = all_trees(n)
    candidates = candidates[arc_sums(candidates, ~proposed) == 0]  # proposed arcs only
    assert arc_sums(head[None, :], ~proposed)[0] == 0
    assert arc_sums(head[None, :], votes)[0] == pytest.approx(arc_sums(candidates, votes).max())
    for m in range(1, n + 1):  # each label comes from a system proposing the chosen arc
        assert any(s.head[m] == head[m] and s.deprel[m] == deprel[m] for s in systems)


@settings(max_examples=60, deadline=None)
@given(hs.integers(1, 6), hs.integers(1, 4), hs.randoms(use_true_random=False))
def test_vote_makes_a_tree_even_of_cycles_and_self_loops(n, k, random):
    systems = [sentence([-1, *(random.randint(0, n) for _ in range(n))]) for _ in range(k)]
    head, _ = vote(systems, np.ones(k))
    assert is_tree(head)
    head, _ = oracle_arc(systems, sentence([-1, *[0] * n]), "uas")
    assert is_tree(head)


def correct(head, deprel, gold: Sentence, metric: str) -> int:
    ok = np.asarray(head[1:]) == gold.head[1:]
    if metric == "las":
        ok &= np.array(deprel[1:]) == np.array(gold.deprel[1:])
    return int(np.count_nonzero(ok))


@settings(max_examples=60, deadline=None)
@given(systems_and_gold(), hs.sampled_from(["las", "uas"]))
def test_oracles_are_at_least_as_good_as_every_system(data, metric):
    systems, gold = data
    n = gold.n
    best_system = max(correct(s.head, s.deprel, gold, metric) for s in systems)

    head, deprel = oracle_graph(systems, gold, metric, single_root=False)
    assert correct(head, deprel, gold, metric) == best_system
    first_best = next(s for s in systems if correct(s.head, s.deprel, gold, metric) == best_system)
    assert head.tolist() == first_best.head.tolist() and deprel == first_best.deprel

    head, deprel = oracle_arc(systems, gold, metric, single_root=False)
    assert is_tree(head)
    # brute force: the most correct attachments of any tree made of proposed arcs
    proposed = np.zeros((n + 1, n + 1), dtype=bool)
    gain = np.zeros((n + 1, n + 1))
    for s in systems:
        for m in range(1, n + 1):
            proposed[s.head[m], m] = True
            if s.head[m] == gold.head[m] and (metric == "uas" or s.deprel[m] == gold.deprel[m]):
                gain[s.head[m], m] = 1
    candidates = all_trees(n)
    candidates = candidates[arc_sums(candidates, ~proposed) == 0]
    assert arc_sums(head[None, :], ~proposed)[0] == 0
    oracle = correct(head, deprel, gold, metric)
    assert oracle == arc_sums(candidates, gain).max()
    assert oracle >= best_system  # each system's own tree is a candidate


def test_oracle_arc_metric_decides_when_labeled_and_unlabeled_optima_conflict():
    # proposed gold arcs: 5 -> 1 by a (right label), 3 -> 2 and 1 -> 4 by b (wrong labels);
    # no tree of proposed arcs holds 5 -> 1 together with both of b's
    gold = sentence([-1, 5, 3, 1, 1, 0], ["x"] * 5)
    a = sentence([-1, 5, 0, 2, 3, 4], ["x", "x", "x", "y", "x"])
    b = sentence([-1, 0, 3, 5, 1, 1], ["x", "y", "y", "y", "y"])
    head, deprel = oracle_arc([a, b], gold, "las")
    assert (correct(head, deprel, gold, "las"), correct(head, deprel, gold, "uas")) == (1, 1)
    head, deprel = oracle_arc([a, b], gold, "uas")
    assert (correct(head, deprel, gold, "las"), correct(head, deprel, gold, "uas")) == (0, 2)


def test_upos_weights_from_held_out_accuracy():
    gold = [sentence([-1, 2, 0], ["det", "root"], ["DET", "NOUN"])]
    good_on_det = [sentence([-1, 2, 1], ["det", "root"], ["DET", "NOUN"])]
    good_on_noun = [sentence([-1, 0, 0], ["det", "root"], ["DET", "NOUN"])]
    weights = estimate_upos_weights(gold, [good_on_det, good_on_noun])
    assert weights.by_upos["DET"].tolist() == [1.0, 0.0]
    assert weights.by_upos["NOUN"].tolist() == [0.0, 1.0]
    assert weights.overall.tolist() == [0.5, 0.5]
    assert weights.of((ROOT, "NOUN", "VERB")).tolist() == [[0.5, 0.0, 0.5], [0.5, 1.0, 0.5]]
    # each system wins the words whose tag it is good at
    merged = list(combine([good_on_det, good_on_noun], "vote", weights=weights))
    assert merged[0][0].tolist() == [-1, 2, 0]


def test_combine_checks_its_inputs():
    a, short = [sentence([-1, 0, 1])], [sentence([-1, 0])]
    with pytest.raises(ArcwiseError, match="2 words in system 1, 1 in system 2"):
        list(combine([a, short], "vote"))
    with pytest.raises(ArcwiseError, match="1 words in gold, 2 in system 1"):
        list(combine([a, a], "oracle-graph", gold=short))
    with pytest.raises(ArcwiseError, match="needs the gold"):
        list(combine([a, a], "oracle-arc"))
    with pytest.raises(ArcwiseError, match="2 weights for 3 systems"):
        list(combine([a, a, a], "vote", weights=[1, 2]))
    with pytest.raises(ArcwiseError, match="non-negative"):
        list(combine([a, a], "vote", weights=[1, -2]))
    with pytest.raises(ArcwiseError, match="unknown combination method"):
        list(combine([a], "majority"))
    assert isinstance(estimate_upos_weights([sentence([-1, 0])], [[sentence([-1, 0])]]),
                      UposWeights)


# ---------------------------------------------------------------- the CLI


def app_with_combine() -> typer.Typer:
    app = typer.Typer()
    app.callback()(lambda: None)  # keep `combine` a subcommand
    combine_cli.register(app)
    return app


@pytest.fixture(scope="module")
def dev_files(tmp_path_factory):
    """Gold: the first 25 dev sentences; three systems: their trees with heads perturbed."""
    folder = tmp_path_factory.mktemp("combine")
    gold = list(itertools.islice(read_treebank(DEV), 25))
    paths = [folder / "gold.conllu"]
    conllu.write(paths[0], gold)
    for k in range(3):
        paths.append(folder / f"system{k}.conllu")
        conllu.write(paths[-1], perturbed(gold, 0.25, seed=k))
    return paths


@pytest.mark.parametrize("method, options", [
    ("vote", []), ("vote", ["--weights", "1,0.5,2", "--single-root"]),
    ("vote", ["--weights-by-upos", "--multi-root"]), ("oracle-graph", []), ("oracle-arc", []),
    ("oracle-arc", ["--metric", "uas", "--multi-root"]),
    ("oracle-graph", ["--metric", "uas", "--multi-root"]), ("oracle-arc", ["--multi-root"]),
])
def test_cli_end_to_end_on_dev_sentences(dev_files, tmp_path, method, options):
    gold, *systems = dev_files
    out = tmp_path / "combined.conllu"
    args = ["combine", *map(str, systems), "--gold", str(gold), "--method", method,
            "-o", str(out), *options]
    run = CliRunner().invoke(app_with_combine(), args)
    assert run.exit_code == 0, run.output
    first = list(read_treebank(systems[0]))
    combined = list(read_treebank(out))
    assert len(combined) == len(first) == 25
    for c, s in zip(combined, first):
        assert is_tree(c.head)
        if "--multi-root" not in options:  # CoNLL-U: one root by default
            assert np.count_nonzero(c.head == 0) == 1
        assert len(c.lines) == len(s.lines)
        for new, old in zip(c.lines, s.lines):  # only HEAD, DEPREL and DEPS may change
            new_columns, old_columns = new.split("\t"), old.split("\t")
            if new[0] != "#" and "." not in new_columns[0] and "-" not in new_columns[0]:
                # a word: its DEPS is the new basic arc (EWT has enhanced graphs)
                assert new_columns[8] == f"{new_columns[6]}:{new_columns[7]}"
            del new_columns[6:9], old_columns[6:9]
            assert new_columns == old_columns
    if method.startswith("oracle") and "--multi-root" in options:  # as good as any system
        metric = "uas" if "uas" in options else "las"
        scores = [getattr(evaluate(read_treebank(gold), read_treebank(p)), metric)
                  for p in (out, *systems)]
        assert scores[0] >= max(scores[1:])
    assert f"{method}: UAS" in run.output  # scores on stderr with --gold


def test_cli_upos_weights_from_held_out_files(dev_files, tmp_path):
    gold, *systems = dev_files
    held_out = ["--dev-gold", str(gold)]
    for path in systems:
        held_out += ["--dev-output", str(path)]
    outs = [tmp_path / "held_out.conllu", tmp_path / "same_data.conllu"]
    runner, app = CliRunner(), app_with_combine()
    for out, options in zip(outs, (held_out, ["--gold", str(gold)])):
        run = runner.invoke(app, ["combine", *map(str, systems), "--method", "vote",
                                  "--weights-by-upos", *options, "-o", str(out)])
        assert run.exit_code == 0, run.output
    # the same data as held-out set and as --gold: the same weights, the same output
    assert outs[0].read_bytes() == outs[1].read_bytes()
    run = runner.invoke(app, ["combine", *map(str, systems), "--method", "vote",
                              "--weights-by-upos", *held_out[:4], "-o", str(outs[0])])
    assert isinstance(run.exception, ArcwiseError) and "1 --dev-output files for 3" in str(
        run.exception)


def test_cli_errors_exit_2_with_one_line(dev_files, tmp_path, monkeypatch, capsys):
    from arcwise.cli import main as cli_main

    gold, *systems = dev_files
    short = tmp_path / "short.conllu"
    conllu.write(short, itertools.islice(read_treebank(systems[1]), 24))
    monkeypatch.setattr(cli_main, "app", app_with_combine())
    out = tmp_path / "out.conllu"
    for args, message in [
        ([systems[0], short, "--method", "vote"], "has no counterpart"),
        ([systems[0], systems[1], "--method", "oracle-arc"], "needs the gold standard"),
        ([systems[0], systems[1], "--method", "vote", "--weights", "1,x"], "--weights"),
    ]:
        monkeypatch.setattr(sys, "argv", ["arcwise", "combine", *map(str, args), "-o", str(out)])
        with pytest.raises(SystemExit) as exit:
            cli_main.main()
        assert exit.value.code == 2
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1 and message in err
        assert not out.exists()
