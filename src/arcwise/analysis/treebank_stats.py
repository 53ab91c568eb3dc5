"""Descriptive statistics of a treebank.

The columns of Table 2 of McDonald & Nivre (2011), "Analyzing and Integrating
Dependency Parsers": tokens, sentences, tokens per sentence, whether lemmas
are present, the number of coarse (UPOS) and fine (XPOS) part-of-speech tags,
of morphosyntactic features "split into atoms" (distinct Attribute=Value
items of FEATS), of dependency types (distinct full DEPREL; the universal part
before ':' is counted too), and the proportions of non-projective arcs
(per token) and of non-projective sentences.  Added: the share of sentences
that are not 2-planar and of sentences with more than one root.

From Table 2 of Fernández-González & Gómez-Rodríguez (2012), "Improving
Transition-Based Dependency Parsing with Buffer Transitions": the relative
frequency of leftward arcs (head after dependent) and rightward arcs (head
before dependent), and of leftward and rightward arcs of length 1, each as a
percentage of all arcs between two words.  Root attachments (from node 0)
are left out of these: their direction only reflects where node 0 is drawn.

Tokens are syntactic words.  Sentences whose HEAD column is not a tree
(missing heads, cycles) are counted in `malformed_sentences` and skipped by
the projectivity and planarity figures, whose denominators still count them.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from arcwise.core.corpus import Sentence
from arcwise.trees.measures import LEFT, RIGHT, arc_directions, arc_lengths
from arcwise.trees.planarity import is_two_planar
from arcwise.trees.projectivity import is_well_formed, nonprojective_arcs


def _percent(part: int, whole: int) -> float:
    return 100.0 * part / whole if whole else 0.0


def treebank_stats(sentences: Iterable[Sentence]) -> dict:
    """The figures described in the module docstring, as a JSON-able dict."""
    n_sentences = tokens = 0
    lemmas = False
    upos: set[str] = set()
    xpos: set[str] = set()
    features: set[str] = set()
    deprels: set[str] = set()
    malformed = nonprojective_arc_count = nonprojective_sentences = 0
    not_two_planar = multi_root = 0
    left = right = left_1 = right_1 = 0
    for s in sentences:
        n_sentences += 1
        tokens += s.n
        lemmas = lemmas or any(lemma != "_" for lemma in s.lemma[1:])
        upos.update(s.upos[1:])
        xpos.update(s.xpos[1:])
        deprels.update(s.deprel[1:])
        for feats in s.feats[1:]:
            if feats != "_":
                features.update(feats.split("|"))
        heads = s.head
        if np.count_nonzero(heads[1:] == 0) > 1:
            multi_root += 1
        if not is_well_formed(heads):
            malformed += 1
            continue
        nonprojective = int(nonprojective_arcs(heads).sum())
        nonprojective_arc_count += nonprojective
        nonprojective_sentences += nonprojective > 0
        not_two_planar += not is_two_planar(heads)
        between_words = heads[1:] > 0
        direction = arc_directions(heads)[1:][between_words]
        adjacent = arc_lengths(heads)[1:][between_words] == 1
        left += int(np.count_nonzero(direction == LEFT))
        right += int(np.count_nonzero(direction == RIGHT))
        left_1 += int(np.count_nonzero((direction == LEFT) & adjacent))
        right_1 += int(np.count_nonzero((direction == RIGHT) & adjacent))
    upos.discard("_")
    xpos.discard("_")
    deprels.discard("_")
    arcs = left + right
    return {
        "sentences": n_sentences,
        "tokens": tokens,
        "tokens_per_sentence": tokens / n_sentences if n_sentences else 0.0,
        "lemmas": lemmas,
        "cpos": len(upos),
        "pos": len(xpos),
        "features": len(features),
        "deprels": len(deprels),
        "deprels_universal": len({d.split(":", 1)[0] for d in deprels}),
        "nonprojective_arcs": nonprojective_arc_count,
        "nonprojective_arcs_pct": _percent(nonprojective_arc_count, tokens),
        "nonprojective_sentences": nonprojective_sentences,
        "nonprojective_sentences_pct": _percent(nonprojective_sentences, n_sentences),
        "not_two_planar_sentences": not_two_planar,
        "not_two_planar_sentences_pct": _percent(not_two_planar, n_sentences),
        "multi_root_sentences": multi_root,
        "multi_root_sentences_pct": _percent(multi_root, n_sentences),
        "malformed_sentences": malformed,
        "word_arcs": arcs,
        "left_arcs_pct": _percent(left, arcs),
        "right_arcs_pct": _percent(right, arcs),
        "left_length1_pct": _percent(left_1, arcs),
        "right_length1_pct": _percent(right_1, arcs),
        "length1_pct": _percent(left_1 + right_1, arcs),
    }
