"""Pseudo-projective parsing (Nivre & Nilsson 2005): lifting, label encodings, inverse."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from arcwise.core.errors import ArcwiseError
from arcwise.trees.projectivity import is_projective, is_well_formed
from arcwise.trees.pseudoprojective import (
    ENCODINGS,
    LIFTED,
    ON_PATH,
    deprojectivize,
    projectivize,
    split_label,
)
from tests.reference import trees_bruteforce as brute
from tests.reference.random_trees import trees

# 2011 paper, Figure 1: A hearing is scheduled on the issue today .
HEARING = np.array([-1, 2, 3, 0, 3, 2, 7, 5, 4, 3], dtype=np.int32)
HEARING_LABELS = ("<root>", "DET", "SBJ", "ROOT", "VC", "PP", "NMOD", "PC", "TMP", "P")


@hs.composite
def labelled_trees(draw, labels="abc", **tree_options):
    heads = draw(trees(**tree_options))
    deprels = ("<root>",) + tuple(draw(hs.sampled_from(labels)) for _ in heads[1:])
    return heads, deprels


def test_figure_1_lifts_on_and_today_to_is():
    # "on" (arc length 3) is lifted first; then scheduled -> today is still non-projective.
    p = projectivize(HEARING, HEARING_LABELS, "head")
    assert p.heads.tolist() == [-1, 2, 3, 0, 3, 3, 7, 5, 3, 3]
    assert (p.lifted, p.lifts) == (2, 2)
    assert p.deprels[5] == "PP↑SBJ" and p.deprels[8] == "TMP↑VC"
    assert [p.deprels[d] for d in (1, 2, 3, 4)] == ["DET", "SBJ", "ROOT", "VC"]
    path = projectivize(HEARING, HEARING_LABELS, "path").deprels
    assert [path[d] for d in (2, 4, 5, 8)] == ["SBJ↓", "VC↓", "PP↑", "TMP↑"]
    both = projectivize(HEARING, HEARING_LABELS, "head+path").deprels
    assert [both[d] for d in (2, 4, 5, 8)] == ["SBJ↓", "VC↓", "PP↑SBJ", "TMP↑VC"]
    for encoding in ("head", "head+path"):
        p = projectivize(HEARING, HEARING_LABELS, encoding)
        heads, deprels = deprojectivize(p.heads, p.deprels, encoding)
        assert heads.tolist() == HEARING.tolist() and deprels == HEARING_LABELS
    # Path is ambiguous here: "SBJ↓" and "VC↓" both end a ↓-path below "is",
    # and the left-to-right search gives both lifted arcs to "hearing".
    p = projectivize(HEARING, HEARING_LABELS, "path")
    heads, deprels = deprojectivize(p.heads, p.deprels, "path")
    assert heads.tolist() == [-1, 2, 3, 0, 3, 2, 7, 5, 2, 3] and deprels == HEARING_LABELS


def test_split_label():
    assert split_label("nmod:poss") == ("nmod:poss", False, None, False)
    assert split_label("obj↑acl") == ("obj", True, "acl", False)
    assert split_label("obj↑") == ("obj", True, None, False)
    assert split_label("obj↑↓") == ("obj", True, None, True)
    assert split_label("obj↑acl↓") == ("obj", True, "acl", True)
    assert split_label("nsubj↓") == ("nsubj", False, None, True)


def test_rejects_marked_labels_and_unknown_encodings():
    with pytest.raises(ArcwiseError, match="already contains"):
        projectivize([-1, 0], ("<root>", "a↑b"), "head")
    with pytest.raises(ArcwiseError, match="unknown pseudo-projective encoding"):
        projectivize([-1, 0], ("<root>", "a"), "trace")


def test_unresolvable_lift_stays_at_the_linear_head():
    # 2 says its syntactic head is labelled "x", but nothing below 1 is.
    heads, deprels = deprojectivize([-1, 0, 1, 1], ("<root>", "root", "a↑x", "b"), "head")
    assert heads.tolist() == [-1, 0, 1, 1] and deprels == ("<root>", "root", "a", "b")


@settings(max_examples=300, deadline=None)
@given(labelled_trees(min_words=1, max_words=8), hs.sampled_from(ENCODINGS))
def test_projectivize_lifts_arcs_to_ancestors_until_projective(tree, encoding):
    heads, deprels = tree
    p = projectivize(heads, deprels, encoding)
    assert is_well_formed(p.heads) and is_projective(p.heads)
    expected_heads, syntactic, lifts = brute.lift_nonprojective_arcs(heads)
    assert p.heads.tolist() == expected_heads and p.lifts == lifts
    changed = [d for d in range(1, len(heads)) if p.heads[d] != heads[d]]
    assert p.lifted == len(changed) == sum(s != -1 for s in syntactic)
    for d in range(1, len(heads)):
        base, lifted, head_label, _ = split_label(p.deprels[d])
        assert base == deprels[d] and lifted == (d in changed)
        if d in changed:  # the linear head is a proper ancestor of the syntactic head
            assert syntactic[d] == heads[d] and p.heads[d] in brute.ancestors(heads, heads[d])
            assert head_label == (None if encoding == "path" else deprels[heads[d]])


@settings(max_examples=200, deadline=None)
@given(labelled_trees(min_words=1, max_words=8, projective=True), hs.sampled_from(ENCODINGS))
def test_projective_trees_are_left_alone(tree, encoding):
    heads, deprels = tree
    p = projectivize(heads, deprels, encoding)
    assert p.heads.tolist() == heads and p.deprels == deprels and p.lifted == p.lifts == 0
    restored, labels = deprojectivize(heads, deprels, encoding)
    assert restored.tolist() == heads and labels == deprels


@settings(max_examples=300, deadline=None)
@given(labelled_trees(min_words=3, max_words=9), hs.sampled_from(ENCODINGS))
def test_a_single_lifted_arc_is_always_restored(tree, encoding):
    heads, deprels = tree
    if (
        encoding == "head"
    ):  # Head needs the syntactic head's label to be unique below the linear head
        deprels = ("<root>",) + tuple(f"w{d}" for d in range(1, len(heads)))
    p = projectivize(heads, deprels, encoding)
    if p.lifted == 1:
        restored, labels = deprojectivize(p.heads, p.deprels, encoding)
        assert restored.tolist() == heads and labels == deprels


@settings(max_examples=300, deadline=None)
@given(trees(min_words=1, max_words=9), hs.sampled_from(["head", "head+path"]))
def test_distinct_labels_make_head_encodings_exact(heads, encoding):
    deprels = ("<root>",) + tuple(f"w{d}" for d in range(1, len(heads)))
    p = projectivize(heads, deprels, encoding)
    restored, labels = deprojectivize(p.heads, p.deprels, encoding)
    assert restored.tolist() == heads and labels == deprels


def test_projectivize_rejects_non_trees():
    with pytest.raises(ArcwiseError, match="not a tree"):
        projectivize([-1, 2, 1, 1], ("<root>", "a", "b", "c"), "head")


@settings(max_examples=300, deadline=None)
@given(
    labelled_trees(min_words=1, max_words=8, labels=["a", "b", "a↑b", "b↑a↓", "a↑↓", "b↓"]),
    hs.sampled_from(ENCODINGS),
)
def test_deprojectivize_keeps_any_parse_a_tree(tree, encoding):
    # A parser's output can carry any marks: only arcs marked lifted move,
    # and only down into their linear head's subtree.
    heads, deprels = tree
    restored, labels = deprojectivize(heads, deprels, encoding)
    assert is_well_formed(restored)
    assert all(LIFTED not in label and ON_PATH not in label for label in labels)
    for d in range(1, len(heads)):
        if restored[d] != heads[d]:
            assert split_label(deprels[d])[1]
            assert heads[d] in brute.ancestors(restored.tolist(), restored[d])
