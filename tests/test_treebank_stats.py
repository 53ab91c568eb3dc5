"""Treebank statistics: hand counts on a small fixture, published figures on English-EWT dev."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arcwise.analysis.treebank_stats import treebank_stats
from arcwise.io import read_treebank

ROOT = Path(__file__).resolve().parents[1]
STATS_FIXTURE = ROOT / "tests" / "data" / "eval" / "stats.conllu"
EWT_DEV = ROOT / "data" / "en_ewt" / "dev.conllu.gz"


def test_small_fixture_equals_hand_counts():
    s = treebank_stats(read_treebank(STATS_FIXTURE))
    assert s["sentences"] == 4
    assert s["tokens"] == 16  # 4 + 4 + 6 + 2: the range "bc" and the empty node 4.1 are no tokens
    assert s["tokens_per_sentence"] == 4.0
    assert s["lemmas"] is True
    assert s["cpos"] == 7  # DET NOUN VERB PUNCT ADP X INTJ
    assert s["pos"] == 4  # DT NN VBD . ("_" is no tag)
    assert s["features"] == 6  # Definite=Def PronType=Art Number=Sing Mood=Ind Tense=Past Case=Nom
    assert (s["deprels"], s["deprels_universal"]) == (8, 7)  # nmod:poss and nmod share a base
    # Sentence 2: 3->1 and 1->4 skip word 2 (the root's child); sentence 3: 4->1 and 5->2.
    assert s["nonprojective_arcs"] == 4 and s["nonprojective_arcs_pct"] == 25.0
    assert s["nonprojective_sentences"] == 2 and s["nonprojective_sentences_pct"] == 50.0
    assert s["not_two_planar_sentences"] == 1 and s["not_two_planar_sentences_pct"] == 25.0
    assert s["multi_root_sentences"] == 1 and s["malformed_sentences"] == 0
    # Word-word arcs: sentence 1 L L R (all length 1), sentence 2 L(2) R(1) R(3),
    # sentence 3 L(3) L(3) L(3) L(2) L(1); root attachments left out.
    assert s["word_arcs"] == 11
    assert s["left_arcs_pct"] == pytest.approx(100 * 8 / 11)
    assert s["right_arcs_pct"] == pytest.approx(100 * 3 / 11)
    assert s["left_length1_pct"] == pytest.approx(100 * 3 / 11)
    assert s["right_length1_pct"] == pytest.approx(100 * 2 / 11)
    assert s["length1_pct"] == pytest.approx(100 * 5 / 11)


def test_english_ewt_dev_matches_shared_stats():
    # /work/shared/data/ud/STATS.md: English-EWT dev 2001 sents, 25147 tokens,
    # 49/36 labels, 0.14 % np arcs, 1.55 % np sents, 0.00 % not 2-planar, 0.00 % multi-root.
    s = treebank_stats(read_treebank(EWT_DEV))
    assert (s["sentences"], s["tokens"]) == (2001, 25147)
    assert (s["deprels"], s["deprels_universal"]) == (49, 36)
    assert round(s["nonprojective_arcs_pct"], 2) == 0.14
    assert round(s["nonprojective_sentences_pct"], 2) == 1.55
    assert round(s["not_two_planar_sentences_pct"], 2) == 0.0
    assert s["multi_root_sentences"] == 0 and s["malformed_sentences"] == 0
    assert s["left_arcs_pct"] + s["right_arcs_pct"] == pytest.approx(100.0)


def test_cli_prints_a_table_and_json():
    run = subprocess.run([sys.executable, "-m", "arcwise", "stats", str(STATS_FIXTURE)],
                         capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    assert "stats.conllu" in run.stdout
    assert "NPS %" in run.stdout and "50.00" in run.stdout
    run = subprocess.run([sys.executable, "-m", "arcwise", "stats", "--json", str(STATS_FIXTURE)],
                         capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)[str(STATS_FIXTURE)]["tokens"] == 16
