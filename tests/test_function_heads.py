"""`arcwise.trees.function_heads`: adpositions and subordinators as heads (#42 item 4)."""

from collections import Counter
from pathlib import Path

import numpy as np

from arcwise.io import read_treebank
from arcwise.trees.function_heads import to_function_heads
from arcwise.trees.projectivity import is_projective, is_well_formed

EWT = Path(__file__).resolve().parents[1] / "data" / "en_ewt"


def test_a_preposition_heads_its_noun_and_takes_what_lies_beyond_it():
    # He sat only in the house: "only" (advmod) and "in" (case) both hang from "house"
    words = ["<root>", "He", "sat", "only", "in", "the", "house"]
    heads = np.array([-1, 2, 0, 6, 6, 6, 2])
    deprels = ("_", "nsubj", "root", "advmod", "case", "det", "obl")
    new_heads, new_deprels = to_function_heads(heads, deprels)
    assert len(words) == len(new_heads)
    assert list(new_heads) == [-1, 2, 0, 4, 2, 6, 4]  # in <- sat, only <- in, house <- in
    assert new_deprels == ("_", "nsubj", "root", "advmod", "obl", "det", "case")


def test_a_marked_word_before_its_head_stays_under_the_marker():
    # "In Paris he came": the labels swapped at Paris are not read again at "came"
    heads, deprels = to_function_heads(np.array([-1, 2, 4, 4, 0]),
                                       ("_", "case", "obl", "nsubj", "root"))
    assert list(heads) == [-1, 4, 1, 4, 0]
    assert deprels == ("_", "obl", "case", "nsubj", "root")


def test_of_two_markers_the_farthest_heads_and_the_other_stays():
    # "from under the table": from (case), under (case) -> table
    heads = np.array([-1, 4, 4, 4, 0])
    deprels = ("_", "case", "case", "det", "root")
    new_heads, new_deprels = to_function_heads(heads, deprels)
    assert list(new_heads) == [-1, 0, 4, 4, 1]
    assert new_deprels == ("_", "root", "case", "det", "case")


def test_every_tree_of_a_treebank_stays_a_tree_with_its_labels():
    converted = projective_before = projective_after = 0
    for sentence in read_treebank(EWT / "dev.conllu.gz"):
        heads, deprels = to_function_heads(sentence.head, sentence.deprel)
        assert is_well_formed(heads.astype(np.int32))
        assert Counter(deprels) == Counter(sentence.deprel)
        converted += any(h != g for h, g in zip(heads, sentence.head))
        projective_before += is_projective(np.asarray(sentence.head, np.int32))
        projective_after += is_projective(heads.astype(np.int32))
    assert converted > 100
    assert projective_after >= projective_before - 5  # beyond-words move with the marker
