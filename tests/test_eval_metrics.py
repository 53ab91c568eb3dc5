"""Attachment scores on hand-made treebanks with known scores, and against brute force."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from arcwise.core.corpus import ROOT, Sentence
from arcwise.core.errors import InputError
from arcwise.eval.metrics import (
    CONLL18_CONTENT_DEPRELS,
    CONLL18_FUNCTIONAL_DEPRELS,
    Counts,
    evaluate,
    universal_relation,
)
from arcwise.eval.punctuation import FORM_RULE, UPOS_RULE, is_unicode_punctuation, punctuation_mask
from tests.reference.random_trees import trees

DATA = Path(__file__).parent / "data" / "eval"


def sentence(rows, source="", first_line=0):
    """A Sentence from (form, upos, head, deprel) rows."""
    forms, upos, heads, deprels = zip(*rows) if rows else ((), (), (), ())
    return Sentence(
        form=(ROOT, *forms), lemma=(ROOT, *forms), upos=(ROOT, *upos),
        xpos=(ROOT,) + ("_",) * len(rows), feats=(ROOT,) + ("_",) * len(rows),
        head=np.array([-1, *heads], dtype=np.int32),
        deprel=(ROOT, *deprels), source=source, first_line=first_line,
    )


# The fixture tests/data/eval/{gold,system}.conllu as Sentences (syntactic words only).
GOLD = [
    sentence([("The", "DET", 2, "det"), ("cat", "NOUN", 3, "nsubj"), ("sat", "VERB", 0, "root"),
              (".", "PUNCT", 3, "punct")], "gold.conllu", 1),
    sentence([("Voy", "VERB", 0, "root"), ("de", "ADP", 4, "case"), ("el", "DET", 4, "det"),
              ("parque", "NOUN", 1, "obl:arg"), (".", "PUNCT", 1, "punct")], "gold.conllu", 8),
    sentence([("Hi", "INTJ", 0, "root"), ("!", "PUNCT", 1, "punct")], "gold.conllu", 18),
]
SYSTEM = [
    sentence([("The", "DET", 2, "det"), ("cat", "NOUN", 3, "obj"), ("sat", "VERB", 0, "root"),
              (".", "PUNCT", 2, "punct")], "system.conllu", 1),
    sentence([("Voy", "VERB", 0, "root"), ("de", "ADP", 4, "advmod"), ("el", "DET", 1, "det"),
              ("parque", "NOUN", 1, "obl:mod"), (".", "PUNCT", 1, "punct")], "system.conllu", 8),
    sentence([("Hi", "INTJ", 0, "root"), ("!", "PUNCT", 1, "punct")], "system.conllu", 18),
]


def test_conll18_relation_sets_partition_the_universal_relations():
    ud_relations = set(
        """acl advcl advmod amod appos aux case cc ccomp clf compound conj cop csubj dep det
        discourse dislocated expl fixed flat goeswith iobj list mark nmod nsubj nummod obj obl
        orphan parataxis punct reparandum root vocative xcomp""".split())
    assert len(CONLL18_CONTENT_DEPRELS) == 29
    assert CONLL18_CONTENT_DEPRELS | CONLL18_FUNCTIONAL_DEPRELS | {"punct"} == ud_relations
    assert not CONLL18_CONTENT_DEPRELS & CONLL18_FUNCTIONAL_DEPRELS
    assert {"fixed", "flat", "goeswith", "reparandum", "root", "dep", "orphan"} \
        <= CONLL18_CONTENT_DEPRELS
    assert universal_relation("obl:arg") == "obl" and universal_relation("det") == "det"


def test_known_scores_punctuation_included():
    s = evaluate(GOLD, SYSTEM)
    assert (s.punct, s.punctuation_rules) == ("include", ())
    assert (s.sentences, s.words, s.scored_words) == (3, 11, 11)
    assert (s.head_correct, s.label_correct, s.labeled_correct) == (9, 8, 6)
    assert s.uas == pytest.approx(100 * 9 / 11)
    assert s.la == pytest.approx(100 * 8 / 11)
    assert s.las == pytest.approx(100 * 6 / 11)
    # Full-label CLAS: gold content cat sat Voy parque Hi; system content adds de (advmod)
    # and keeps cat (obj), parque (obl:mod); correct: sat, Voy, Hi.
    assert (s.clas_counts.correct, s.clas_counts.gold, s.clas_counts.system) == (3, 5, 6)
    assert s.clas_counts.precision == pytest.approx(50.0)
    assert s.clas_counts.recall == pytest.approx(60.0)
    assert s.clas == pytest.approx(100 * 6 / 11)
    assert (s.exact_unlabeled_sentences, s.exact_labeled_sentences) == (1, 1)
    assert s.exact_unlabeled == pytest.approx(100 / 3)


def test_conll18_compares_universal_relations_and_ignores_punct_policy():
    for punct in ("include", "exclude"):
        c = evaluate(GOLD, SYSTEM, punct=punct).conll18
        assert (c.words, c.head_correct, c.labeled_correct) == (11, 9, 7)  # obl:arg = obl:mod
        assert (c.clas_counts.correct, c.clas_counts.gold, c.clas_counts.system) == (4, 5, 6)
        assert c.uas == pytest.approx(100 * 9 / 11)
        assert c.las == pytest.approx(100 * 7 / 11)
        assert c.clas == pytest.approx(100 * 8 / 11)
        assert c.clas_counts.precision == pytest.approx(100 * 4 / 6)
        assert c.clas_counts.recall == pytest.approx(80.0)


def test_known_scores_punctuation_excluded_by_upos():
    s = evaluate(GOLD, SYSTEM, punct="exclude")
    assert s.punctuation_rules == (UPOS_RULE,)
    assert (s.words, s.scored_words) == (11, 8)
    assert (s.uas, s.la, s.las) == (87.5, 62.5, 50.0)
    assert (s.clas_counts.correct, s.clas_counts.gold, s.clas_counts.system) == (3, 5, 6)
    # Sentence 1 is unlabeled-exact once its misattached '.' is not scored.
    assert (s.exact_unlabeled_sentences, s.exact_labeled_sentences) == (2, 1)
    assert "PUNCT" not in s.by_upos and "punct" not in s.by_deprel


def test_per_relation_and_per_tag_tables():
    s = evaluate(GOLD, SYSTEM)
    det = s.by_deprel["det"]
    assert (det.labeled.gold, det.labeled.system, det.labeled.correct) == (2, 2, 1)
    assert det.head_correct == 1
    assert det.attachment == 50.0 and det.labeled.f1 == 50.0
    punct = s.by_deprel["punct"]
    assert (punct.labeled.gold, punct.labeled.system, punct.labeled.correct) == (3, 3, 2)
    assert (s.by_deprel["obj"].labeled.gold, s.by_deprel["obj"].labeled.system) == (0, 1)
    assert s.by_deprel["obl:arg"].head_correct == 1 and s.by_deprel["obl:arg"].labeled.correct == 0
    assert s.by_deprel["root"].labeled.f1 == 100.0
    assert list(s.by_deprel)[:2] == ["punct", "root"]  # most frequent gold relations first
    assert s.by_upos["PUNCT"].to_dict() == {"words": 3, "uas": pytest.approx(200 / 3),
                                            "las": pytest.approx(200 / 3), "la": 100.0}
    assert sum(row.words for row in s.by_upos.values()) == 11


def test_to_dict_is_json_with_the_documented_keys():
    d = json.loads(json.dumps(evaluate(GOLD, SYSTEM).to_dict()))
    assert {"uas", "las", "la", "clas", "conll18", "by_deprel", "by_upos", "punct"} <= set(d)
    assert set(d["conll18"]) >= {"uas", "las", "clas"}
    assert all(isinstance(d[k], float) for k in ("uas", "las", "la", "clas"))
    assert d["conll18"]["las"] == pytest.approx(100 * 7 / 11)


def test_gold_against_itself_is_perfect():
    for punct in ("include", "exclude"):
        s = evaluate(GOLD, GOLD, punct=punct)
        assert s.uas == s.las == s.la == s.clas == 100.0
        assert s.exact_unlabeled == s.exact_labeled == 100.0
        assert s.conll18.uas == s.conll18.las == s.conll18.clas == 100.0
        assert s.conll18.clas_counts.precision == s.conll18.clas_counts.recall == 100.0


def test_unicode_punctuation_rule_of_conllx_eval_pl():
    assert is_unicode_punctuation(".") and is_unicode_punctuation("...")
    assert all(is_unicode_punctuation(form) for form in ("«»", "-", "%", "¿"))
    assert not is_unicode_punctuation("$")  # Sc: a currency symbol, not punctuation
    assert not is_unicode_punctuation("a.") and not is_unicode_punctuation("")
    mask, rules = punctuation_mask(["_", "_", "_", "Fe"], ["Hola", "...", "$", "«"])
    assert mask.tolist() == [False, True, False, True]
    assert rules == [FORM_RULE]
    # A UD tag decides by itself, even against the form.
    mask, rules = punctuation_mask(["PUNCT", "SYM", "_"], ["--", ".", ","])
    assert mask.tolist() == [True, False, True]
    assert rules == [UPOS_RULE, FORM_RULE]


def test_punctuation_excluded_by_form_without_upos():
    gold = [sentence([("Ellos", "p", 2, "SUBJ"), ("llegan", "v", 0, "ROOT"), ("«", "F", 4, "PUNC"),
                      ("hoy", "r", 2, "ADV"), ("»", "F", 4, "PUNC"), ("...", "F", 2, "PUNC"),
                      ("$", "Z", 2, "X")])]
    system = [sentence([("Ellos", "p", 2, "SUBJ"), ("llegan", "v", 0, "ROOT"),
                        ("«", "F", 2, "PUNC"), ("hoy", "r", 2, "MOD"), ("»", "F", 4, "PUNC"),
                        ("...", "F", 2, "PUNC"), ("$", "Z", 4, "X")])]
    included = evaluate(gold, system)
    assert (included.head_correct, included.labeled_correct, included.scored_words) == (5, 4, 7)
    excluded = evaluate(gold, system, punct="exclude")
    assert excluded.punctuation_rules == (FORM_RULE,)
    assert excluded.scored_words == 4  # « » ... dropped, $ kept
    assert (excluded.uas, excluded.las) == (75.0, 50.0)


def test_misaligned_sentences_name_the_first_mismatch():
    other_form = [SYSTEM[0], sentence([("Voy", "VERB", 0, "root"), ("de", "ADP", 4, "case"),
                                       ("el", "DET", 4, "det"), ("parc", "NOUN", 1, "obl"),
                                       (".", "PUNCT", 1, "punct")], "system.conllu", 8), SYSTEM[2]]
    with pytest.raises(InputError) as error:
        evaluate(GOLD, other_form)
    assert str(error.value) == ("gold.conllu:8: sentence 2 does not match system.conllu:8: "
                                "word 4 is 'parque' in gold, 'parc' in system")
    with pytest.raises(InputError, match=r"^gold.conllu:18: sentence 3 does not match "
                                         r"system.conllu:18: 2 words in gold, 1 in system$"):
        evaluate(GOLD, [SYSTEM[0], SYSTEM[1], sentence([("Hi", "INTJ", 0, "root")],
                                                       "system.conllu", 18)])
    with pytest.raises(InputError, match=r"^gold.conllu:18: sentence 3 has no counterpart"):
        evaluate(GOLD, SYSTEM[:2])
    with pytest.raises(InputError, match=r"^system.conllu:18: sentence 3 has no counterpart"):
        evaluate(GOLD[:2], SYSTEM)


def test_gold_without_head_is_an_input_error():
    gold = [sentence([("a", "X", 0, "root"), ("b", "X", -1, "dep")], "g.conllu", 5)]
    with pytest.raises(InputError, match="word 2 of sentence 1 has no HEAD"):
        evaluate(gold, gold)


def test_unknown_punct_policy():
    with pytest.raises(Exception, match="punctuation policy"):
        evaluate(GOLD, GOLD, punct="drop")


RELATIONS = ["nsubj", "obj", "det", "case", "punct", "nmod:poss", "nmod", "root", "obl:tmod"]


@hs.composite
def gold_and_system(draw):
    """Random gold trees and a system copy with random heads and labels changed."""
    gold, system = [], []
    for _ in range(draw(hs.integers(1, 4))):
        heads = draw(trees(1, 8))
        n = len(heads) - 1
        upos = draw(hs.lists(hs.sampled_from(["NOUN", "PUNCT", "VERB"]), min_size=n, max_size=n))
        labels = draw(hs.lists(hs.sampled_from(RELATIONS), min_size=n, max_size=n))
        system_heads = [draw(hs.integers(-1, n)) if draw(hs.booleans()) else h for h in heads[1:]]
        system_labels = [draw(hs.sampled_from(RELATIONS)) if draw(hs.booleans()) else d
                         for d in labels]
        forms = [f"w{i}" for i in range(1, n + 1)]
        gold.append(sentence(list(zip(forms, upos, heads[1:], labels))))
        system.append(sentence(list(zip(forms, upos, system_heads, system_labels))))
    return gold, system


@settings(max_examples=150, deadline=None)
@given(gold_and_system(), hs.sampled_from(["include", "exclude"]))
def test_scores_equal_brute_force_counts(pair, punct):
    gold, system = pair
    words = uas = las = la = u18 = l18 = exact_u = exact_l = 0
    clas_gold = clas_system = clas_correct = 0

    def content(deprel):
        return universal_relation(deprel) in CONLL18_CONTENT_DEPRELS
    for g, s in zip(gold, system):
        all_heads = all_labeled = True
        for i in range(1, g.n + 1):
            head_ok = g.head[i] == s.head[i]
            u18 += head_ok
            l18 += head_ok and universal_relation(g.deprel[i]) == universal_relation(s.deprel[i])
            if punct == "exclude" and g.upos[i] == "PUNCT":
                continue
            words += 1
            uas += head_ok
            clas_gold += content(g.deprel[i])
            clas_system += content(s.deprel[i])
            clas_correct += content(g.deprel[i]) and head_ok and g.deprel[i] == s.deprel[i]
            la += g.deprel[i] == s.deprel[i]
            las += head_ok and g.deprel[i] == s.deprel[i]
            all_heads &= head_ok
            all_labeled &= head_ok and g.deprel[i] == s.deprel[i]
        exact_u += all_heads
        exact_l += all_labeled
    scores = evaluate(gold, system, punct=punct)
    assert (scores.scored_words, scores.head_correct) == (words, uas)
    assert (scores.labeled_correct, scores.label_correct) == (las, la)
    assert (scores.exact_unlabeled_sentences, scores.exact_labeled_sentences) == (exact_u, exact_l)
    assert (scores.conll18.head_correct, scores.conll18.labeled_correct) == (u18, l18)
    assert scores.clas_counts == Counts(clas_correct, clas_gold, clas_system)
    assert scores.uas == pytest.approx(100 * uas / words if words else 0.0)


# --- files, through the reader -------------------------------------------------------------


def read(name):
    from arcwise.io import read_treebank

    return list(read_treebank(DATA / name))


def test_fixture_files_with_multiword_tokens_and_empty_nodes_score_syntactic_words():
    gold, system = read("gold.conllu"), read("system.conllu")
    assert [s.n for s in gold] == [4, 5, 2]  # "del" and the empty node 4.1 are not words
    s = evaluate(gold, system)
    assert (s.words, s.head_correct, s.labeled_correct, s.label_correct) == (11, 9, 6, 8)
    assert (s.conll18.labeled_correct, s.conll18.clas_counts.correct) == (7, 4)
    e = evaluate(gold, system, punct="exclude")
    assert (e.uas, e.las) == (87.5, 50.0)


def test_fixture_conllx_files_exclude_punctuation_by_form():
    gold, system = read("gold.conll"), read("system.conll")
    s = evaluate(gold, system, punct="exclude")
    assert s.punctuation_rules == (FORM_RULE,)
    assert (s.scored_words, s.uas, s.las) == (4, 75.0, 50.0)


def test_empty_treebanks_score_zero():
    s = evaluate([], [], punct="exclude")
    assert (s.sentences, s.words, s.uas, s.clas, s.conll18.las) == (0, 0, 0.0, 0.0, 0.0)
