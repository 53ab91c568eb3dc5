"""`arcwise evaluate` through a subprocess: exit codes, printed policy, JSON, alignment errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.end_to_end

ROOT = Path(__file__).resolve().parents[1]
DATA = Path("tests") / "data" / "eval"


def arcwise(*args):
    return subprocess.run([sys.executable, "-m", "arcwise", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT)


def test_human_output_states_the_punctuation_policy():
    run = arcwise("evaluate", DATA / "gold.conllu", DATA / "system.conllu")
    assert run.returncode == 0, run.stderr
    assert "punctuation included: all 11 words scored" in run.stdout
    for line in ("UAS", "LAS", "LA", "CLAS F1", "exact, unlabeled", "exact, labeled"):
        assert line in run.stdout
    assert "81.82" in run.stdout and "54.55" in run.stdout  # UAS 9/11, LAS 6/11
    assert "CoNLL 2018" in run.stdout and "63.64" in run.stdout  # universal LAS 7/11
    assert "obl:arg" in run.stdout and "By gold UPOS" in run.stdout
    run = arcwise("evaluate", "--punct", "exclude", DATA / "gold.conllu", DATA / "system.conllu")
    assert run.returncode == 0, run.stderr
    assert "punctuation excluded: 3 of 11 words not scored (gold UPOS is PUNCT), 8 scored" \
        in " ".join(run.stdout.split())


def test_json_output():
    run = arcwise("evaluate", "--json", DATA / "gold.conllu", DATA / "system.conllu")
    assert run.returncode == 0, run.stderr
    scores = json.loads(run.stdout)
    assert scores["uas"] == pytest.approx(100 * 9 / 11)
    assert scores["las"] == pytest.approx(100 * 6 / 11)
    assert scores["la"] == pytest.approx(100 * 8 / 11)
    assert scores["clas"] == pytest.approx(100 * 6 / 11)
    assert scores["conll18"]["uas"] == pytest.approx(100 * 9 / 11)
    assert scores["conll18"]["las"] == pytest.approx(100 * 7 / 11)
    assert scores["conll18"]["clas"] == pytest.approx(100 * 8 / 11)
    assert scores["punct"] == "include"
    run = arcwise("evaluate", "--json", "--punct", "exclude",
                  DATA / "gold.conll", DATA / "system.conll")
    assert run.returncode == 0, run.stderr
    scores = json.loads(run.stdout)
    assert (scores["uas"], scores["las"]) == (75.0, 50.0)
    assert scores["counts"]["scored_words"] == 4


def test_gold_against_itself_scores_100_on_ewt_test():
    gold = Path("data") / "en_ewt" / "test.conllu.gz"
    run = arcwise("evaluate", "--json", "--punct", "exclude", gold, gold)
    assert run.returncode == 0, run.stderr
    scores = json.loads(run.stdout)
    assert scores["uas"] == scores["las"] == scores["la"] == scores["clas"] == 100.0
    assert scores["exact_unlabeled"] == scores["exact_labeled"] == 100.0
    assert scores["conll18"]["uas"] == scores["conll18"]["las"] == 100.0
    assert scores["conll18"]["clas"] == 100.0
    assert scores["counts"]["words"] == 25094


@pytest.mark.parametrize("system, message", [
    ("system_other_form.conllu",
     "tests/data/eval/gold.conllu:8: sentence 2 does not match "
     "tests/data/eval/system_other_form.conllu:8: word 4 is 'parque' in gold, 'parc' in system"),
    ("system_short_sentence.conllu",
     "tests/data/eval/gold.conllu:18: sentence 3 does not match "
     "tests/data/eval/system_short_sentence.conllu:18: 2 words in gold, 1 in system"),
    ("system_two_sentences.conllu",
     "tests/data/eval/gold.conllu:18: sentence 3 has no counterpart: "
     "the system side has 2 sentences, gold 3"),
])
def test_misaligned_files_exit_2_with_one_line(system, message):
    run = arcwise("evaluate", DATA / "gold.conllu", DATA / system)
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr.splitlines() == [message]  # FILE:LINE: what is wrong


def test_unknown_punct_policy_is_a_usage_error():
    run = arcwise("evaluate", "--punct", "drop", DATA / "gold.conllu", DATA / "system.conllu")
    assert run.returncode == 2


def test_files_without_words_are_an_error_not_a_score(tmp_path):
    empty = tmp_path / "empty.conllu"
    empty.write_text("")
    done = arcwise("evaluate", empty, empty)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"arcwise: {empty}: no words to evaluate\n"
