"""The 2011 paper's factors on a hand-computed sentence, counts against `evaluate`, significance.

tests/data/analysis: gold "The dog barks at the cat ." with heads
2 3 0 6 6 3 3; system A differs only in the label of "cat" (obj for obl);
system B attaches "at" to "barks" (3) and "." to "The" (1), a
non-projective arc of length 6.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from arcwise.analysis.factors import factor_results, label_confusions
from arcwise.analysis.records import build_records
from arcwise.core.errors import ArcwiseError, InputError
from arcwise.eval.metrics import evaluate
from arcwise.eval.significance import stratified_shuffle_ratios
from arcwise.io import conllu
from tests.reference.random_trees import examples, trees

DATA = Path(__file__).resolve().parent / "data" / "analysis"


def records(*systems, names=None):
    g = list(conllu.read(DATA / "gold.conllu"))
    return build_records([g], [[list(conllu.read(DATA / s))] for s in systems],
                         names or [Path(s).stem for s in systems])


def table(results, name):
    return next(r for r in results if r.factor.name == name).to_dict()


def pr(entry):
    """(predicted_correct, predicted, gold_correct, gold) of a system's bin entry."""
    return (entry["predicted_correct"], entry["predicted"], entry["gold_correct"], entry["gold"])


@pytest.fixture(scope="module")
def results():
    return factor_results(records("a.conllu", "b.conllu"), samples=0)


def test_sentence_length_and_upos_accuracy(results):
    length = table(results, "sentence_length")
    assert list(length) == ["1-10", "11-20", "21-30", "31-40", "41-50", "51-60", ">60"]
    assert (length["1-10"]["a"]["correct"], length["1-10"]["a"]["words"]) == (6, 7)
    assert length["1-10"]["b"]["correct"] == 5
    assert length["1-10"]["b"]["accuracy"] == pytest.approx(500 / 7)
    assert length["11-20"]["a"]["words"] == 0
    upos = table(results, "upos")
    assert list(upos)[:2] == ["DET", "NOUN"]  # most frequent first, ties by name
    assert {t: (upos[t]["a"]["correct"], upos[t]["a"]["words"]) for t in upos} == {
        "DET": (2, 2), "NOUN": (1, 2), "ADP": (1, 1), "PUNCT": (1, 1), "VERB": (1, 1)}
    assert {t: upos[t]["b"]["correct"] for t in upos} == {
        "DET": 2, "NOUN": 2, "ADP": 0, "PUNCT": 0, "VERB": 1}


def test_upos_classes_with_and_without_det():
    r = records("a.conllu", "b.conllu")
    classes = table(factor_results(r, samples=0), "upos_class")
    assert list(classes) == ["verb", "noun", "pronoun", "adjective", "adverb", "adposition",
                             "conjunction"]
    assert classes["noun"]["a"]["words"] == 2 and classes["pronoun"]["a"]["words"] == 0
    assert classes["adposition"]["b"]["correct"] == 0
    with_det = table(factor_results(r, samples=0, pronoun_det=True), "upos_class")
    assert (with_det["pronoun"]["a"]["correct"], with_det["pronoun"]["a"]["words"]) == (2, 2)


def test_arc_length(results):
    length = table(results, "arc_length")
    assert list(length) == ["root", *map(str, range(1, 15)), ">14"]
    # gold lengths 1 1 root 2 1 3 4; B's 1 1 root 1 1 3 6
    assert pr(length["root"]["b"]) == (1, 1, 1, 1)
    assert pr(length["1"]["b"]) == (3, 4, 3, 3)
    assert pr(length["2"]["b"]) == (0, 0, 0, 1)
    assert pr(length["3"]["a"]) == (0, 1, 0, 1)  # A's obj for obl: labeled error
    assert pr(length["4"]["b"]) == (0, 0, 0, 1)
    assert pr(length["6"]["b"]) == (0, 1, 0, 0)
    assert length["1"]["b"]["precision"] == 75.0 and length["1"]["b"]["recall"] == 100.0


def test_arc_length_unlabeled_counts_heads_only():
    length = table(factor_results(records("a.conllu", "b.conllu"), labeled=False, samples=0),
                   "arc_length")
    assert pr(length["3"]["a"]) == (1, 1, 1, 1)


def test_root_distance_and_siblings(results):
    distance = table(results, "root_distance")
    assert list(distance) == ["1", "2", "3", "4", "5", "6", ">6"]  # no empty "cycle" bin
    # gold distances 3 2 1 3 3 2 2; B's 3 2 1 2 3 2 4
    assert pr(distance["1"]["b"]) == (1, 1, 1, 1)
    assert pr(distance["2"]["b"]) == (2, 3, 2, 3)
    assert pr(distance["3"]["b"]) == (2, 2, 2, 3)
    assert pr(distance["4"]["b"]) == (0, 1, 0, 0)
    siblings = table(results, "siblings")
    # gold siblings 0 2 0 1 1 2 2; B's 0 2 0 2 0 2 0
    assert pr(siblings["0"]["b"]) == (3, 4, 2, 2)
    assert pr(siblings["1"]["b"]) == (0, 0, 1, 2)
    assert pr(siblings["2"]["b"]) == (2, 3, 2, 3)


def test_deprel_groups_direction_projectivity_long_arcs(results):
    deprel = table(results, "deprel")
    assert pr(deprel["obl"]["a"]) == (0, 0, 0, 1) and pr(deprel["obj"]["a"]) == (0, 1, 0, 0)
    assert pr(deprel["det"]["b"]) == (2, 2, 2, 2)
    groups = table(results, "deprel_group")
    assert pr(groups["object"]["a"]) == (0, 1, 0, 0)
    assert pr(groups["subject"]["b"]) == (1, 1, 1, 1) and pr(groups["root"]["b"]) == (1, 1, 1, 1)
    direction = table(results, "direction")
    assert pr(direction["left"]["b"]) == (3, 3, 3, 4)
    assert pr(direction["right"]["b"]) == (1, 3, 1, 2)
    assert pr(direction["root"]["b"]) == (1, 1, 1, 1)
    projectivity = table(results, "projectivity")
    assert pr(projectivity["projective"]["b"]) == (5, 6, 5, 7)
    assert pr(projectivity["non-projective"]["b"]) == (0, 1, 0, 0)
    long_arcs = table(results, "long_arcs")
    assert list(long_arcs) == ["root", "1-7", ">7"]
    assert pr(long_arcs["1-7"]["b"]) == (4, 6, 4, 6)


def test_punctuation_excluded_drops_the_gold_punct_word():
    length = table(factor_results(records("a.conllu", "b.conllu"), punct="exclude", samples=0),
                   "arc_length")
    assert pr(length["4"]["b"]) == (0, 0, 0, 0)
    assert pr(length["6"]["b"]) == (0, 0, 0, 0)


def test_a_cycle_in_foreign_input_has_its_own_bin(tmp_path):
    lines = (DATA / "b.conllu").read_text().split("\n")
    lines[2] = lines[2].replace("\t3\tnsubj\t", "\t1\tnsubj\t")  # 1 -> 2 -> 1
    (tmp_path / "cycle.conllu").write_text("\n".join(lines))
    r = build_records([list(conllu.read(DATA / "gold.conllu"))],
                      [[list(conllu.read(tmp_path / "cycle.conllu"))]], ["c"])
    distance = table(factor_results(r, samples=0), "root_distance")
    # "The" (right arc), "dog" and "." (attached to "The": under the cycle)
    assert pr(distance["cycle"]["c"]) == (1, 3, 0, 0)


def test_label_confusions():
    confusions = label_confusions(records("a.conllu", "b.conllu"))
    assert confusions["a"] == [{"gold": "obl", "predicted": "obj", "count": 1,
                                "head_correct": 1}]
    assert confusions["b"] == []


def test_misaligned_system_is_an_input_error(tmp_path):
    (tmp_path / "x.conllu").write_text(
        (DATA / "a.conllu").read_text().replace("\tdog\t", "\tcat\t"))
    with pytest.raises(InputError, match="does not match"):
        build_records([list(conllu.read(DATA / "gold.conllu"))],
                      [[list(conllu.read(tmp_path / "x.conllu"))]], ["x"])


# ---------------------------------------------------------------- significance


def test_identical_systems_have_p_one_everywhere():
    results = factor_results(records("a.conllu", "a.conllu", names=["a", "a2"]), samples=200)
    for result in results:
        for p in result.p_values[(0, 1)].values():
            tested = ~np.isnan(p)
            assert np.all(p[tested] == 1.0), result.factor.name
    assert not np.isnan(results[0].p_values[(0, 1)]["accuracy"][0])


def test_bins_a_system_leaves_empty_are_not_tested():
    arcs = factor_results(records("a.conllu", "b.conllu"), samples=100, which=("arc_length",))[0]
    p = arcs.p_values[(0, 1)]
    predicted = arcs.counts["predicted"]
    assert np.array_equal(np.isnan(p["precision"]), (predicted == 0).any(axis=0))
    assert np.isnan(p["recall"][arcs.bins.index("5")]) and not np.isnan(p["recall"][0])
    assert arcs.to_dict()["6"]["a"]["p_values"]["b"]["precision"] is None


def test_clearly_different_ratios_have_a_small_p_and_equal_ones_a_large_p():
    rng = np.random.default_rng(3)
    n = 400
    a = rng.random(n) < 0.9
    b = rng.random(n) < 0.5
    ones = np.ones(n)
    p = stratified_shuffle_ratios(np.arange(n), np.zeros(n), a, ones, b, ones, groups=1,
                                  samples=300, seed=1)
    assert p[0] == pytest.approx(1 / 301)
    same_rate = rng.random(n) < 0.9
    p = stratified_shuffle_ratios(np.arange(n), np.zeros(n), a, ones, same_rate, ones, groups=1,
                                  samples=300, seed=1)
    assert p[0] > 0.05


def test_shuffling_is_seeded_and_groups_are_independent_of_each_other():
    rng = np.random.default_rng(5)
    n = 200
    a, b = rng.random(n) < 0.8, rng.random(n) < 0.7
    group = rng.integers(0, 3, n)
    ones = np.ones(n)
    run = [stratified_shuffle_ratios(np.arange(n), group, a, ones, b, ones, groups=3,
                                     samples=200, seed=s) for s in (4, 4, 5)]
    assert np.array_equal(run[0], run[1]) and not np.array_equal(run[0], run[2])
    assert np.all((run[0] > 0) & (run[0] <= 1))


def test_precision_rows_of_one_word_in_two_bins_swap_together():
    # one word: A's arc in bin 0 (correct), B's in bin 1 (wrong); a swap moves both
    p = stratified_shuffle_ratios([0, 0], [0, 1], [1, 0], [1, 0], [0, 0], [0, 1], groups=2,
                                  samples=400, seed=2)
    # bin 0: A 1/1 vs B 0/0 observed; swapped: A 0/0 vs B 1/1 -- same |difference| 1
    assert p[0] == 1.0
    assert p[1] == 1.0


# ---------------------------------------------------------------- against evaluate


@hs.composite
def treebank(draw):
    """Gold and two system outputs of 1-3 random sentences, as CoNLL-U text."""
    labels = ["nsubj", "obj", "punct", "det", "nmod:poss"]
    tags = ["NOUN", "VERB", "PUNCT", "DET"]
    sentences = [], [], []
    for _ in range(draw(hs.integers(1, 3))):
        gold = draw(trees(max_words=8))
        n = len(gold) - 1
        upos = [draw(hs.sampled_from(tags)) for _ in range(n)]
        for side in range(3):
            heads = gold if side == 0 or draw(hs.booleans()) else draw(trees(n, n))
            rel = [draw(hs.sampled_from(labels)) for _ in range(n)]
            sentences[side].append("\n".join(
                f"{i}\tw{i}\t_\t{upos[i - 1]}\t_\t_\t{heads[i]}\t{rel[i - 1]}\t_\t_"
                for i in range(1, n + 1)) + "\n")
    return ["\n".join(s) + "\n" for s in sentences]


@settings(max_examples=examples(60), deadline=None)
@given(treebank(), hs.sampled_from(["include", "exclude"]), hs.booleans())
def test_bins_add_up_to_the_totals_of_evaluate(text, punct, labeled):
    gold, a, b = ([conllu.parse_block(block) for block in t.strip("\n").split("\n\n")]
                  for t in text)
    r = build_records([gold], [[a], [b]], ["a", "b"])
    for s, system in enumerate((a, b)):
        scores = evaluate(gold, system, punct=punct)
        correct = scores.labeled_correct if labeled else scores.head_correct
        for result in factor_results(r, labeled=labeled, punct=punct, samples=0):
            c = result.counts
            if result.factor.kind == "accuracy":
                if result.factor.name == "upos_class":
                    continue  # only some tags have a class
                assert c["correct"][s].sum() == correct
                assert c["words"][s].sum() == scores.scored_words
            elif result.factor.name not in ("deprel_group",):
                assert c["predicted_correct"][s].sum() == correct, result.factor.name
                assert c["predicted"][s].sum() == scores.scored_words
                assert c["gold_correct"][s].sum() == correct
                assert c["gold"][s].sum() == scores.scored_words


def test_conllx_input_gives_the_same_counts(tmp_path):
    from arcwise.io import read_treebank

    for name in ("gold", "b"):
        lines = (DATA / f"{name}.conllu").read_text().split("\n")
        (tmp_path / f"{name}.conll").write_text("\n".join(
            "\t".join(line.split("\t")[:8] + ["_", "_"]) if line else ""
            for line in lines if not line.startswith("#")))
    r = build_records([read_treebank(tmp_path / "gold.conll")],
                      [[read_treebank(tmp_path / "b.conll")]], ["b"])
    assert r.systems[0].trace is None
    expected = records("b.conllu")
    for got, want in zip(factor_results(r, samples=0), factor_results(expected, samples=0)):
        assert got.to_dict() == want.to_dict(), got.factor.name


def test_sentence_as_the_shuffling_unit():
    # one sentence: a shuffle swaps all of it or nothing, so |difference| never changes
    r = records("a.conllu", "b.conllu")
    for result in factor_results(r, samples=100, unit="sentence"):
        for p in result.p_values[(0, 1)].values():
            assert np.all(p[~np.isnan(p)] == 1.0)
    n = 300  # the same clear difference: significant by word, not when one unit holds it all
    a, b, ones = np.ones(n), np.zeros(n), np.ones(n)
    by_word = stratified_shuffle_ratios(np.arange(n), np.zeros(n), a, ones, b, ones, groups=1,
                                        samples=100)
    one_unit = stratified_shuffle_ratios(np.zeros(n), np.zeros(n), a, ones, b, ones, groups=1,
                                         samples=100)
    assert by_word[0] == pytest.approx(1 / 101) and one_unit[0] == 1.0
    with pytest.raises(ArcwiseError, match="unknown shuffling unit"):
        factor_results(r, unit="token")
