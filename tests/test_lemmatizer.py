"""The lemmatizer: edit rules, training on a treebank, inside the tagger and its model file."""

import itertools
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as hs

from arcwise.core.errors import ArcwiseError
from arcwise.io import conllu
from arcwise.pipeline.lemmatizer import Lemmatizer, apply_rule, edit_rule
from arcwise.pipeline.stages.tagger import Tagger
from tests.rounded import rounded

ROOT = Path(__file__).resolve().parents[1]
EWT = ROOT / "data" / "en_ewt"
words = hs.text(hs.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=12)


@given(form=words, lemma=words)
def test_a_rule_turns_its_form_into_its_lemma(form, lemma):
    assert apply_rule(form, edit_rule(form, lemma)) == lemma


def test_rules_carry_over_to_unseen_words():
    assert edit_rule("studies", "study") == (True, 3, "y")
    assert apply_rule("Flies", edit_rule("studies", "study")) == "fly"
    assert edit_rule("Bush", "Bush") == (False, 0, "")


def read(split, n):
    return list(itertools.islice(conllu.read(EWT / f"{split}.conllu.gz"), n))


def test_trained_on_ewt_it_lemmatizes_dev_from_gold_upos():
    lemmatizer = Lemmatizer.train(read("train", 3000))
    assert lemmatizer.lemma("studies", "NOUN") == "study"
    assert lemmatizer.lemma("was", "AUX") == "be"
    assert lemmatizer.accuracy(read("dev", 500)) > 95
    again = Lemmatizer.from_json(lemmatizer.to_json(), "x")
    assert again.words == lemmatizer.words and again.rules == lemmatizer.rules
    assert (again.tagged_words, again.tagged_rules) == (lemmatizer.tagged_words,
                                                         lemmatizer.tagged_rules)
    old = {k: v for k, v in lemmatizer.to_json().items() if not k.startswith("tagged")}
    old = Lemmatizer.from_json({**old, "version": 1}, "x")  # a file of before FEATS
    assert old.lemma("studies", "NOUN", "Number=Plur") == "study" and not old.tagged_rules
    with pytest.raises(ArcwiseError, match="^x: corrupt model file .bad lemmatizer"):
        Lemmatizer.from_json({**lemmatizer.to_json(), "tagged_rules": [["NOUN"]]}, "x")
    unlemmatized = [conllu.with_columns(s, lemma=("_",) * (s.n + 1)) for s in read("dev", 5)]
    assert Lemmatizer.train(unlemmatized) is None


@pytest.mark.end_to_end
def test_the_tagger_fills_missing_lemmas_and_keeps_its_lemmatizer(tmp_path):
    tagger = Tagger.train(read("train", 300), epochs=1)
    assert tagger.lemmatizer is not None
    dev = read("dev", 30)
    blank = [conllu.with_columns(s, lemma=("_",) * (s.n + 1), upos=("_",) * (s.n + 1))
             for s in dev]
    tagged = tagger.tag(blank)
    assert all(lemma != "_" for s in tagged for lemma in s.lemma[1:])
    assert "dev_lemma" in tagger.accuracy(dev)
    kept = tagger.tag(dev)  # given lemmas are kept
    assert [s.lemma for s in kept] == [s.lemma for s in dev]
    arrays, meta = tagger.saved()
    loaded = Tagger.from_saved(arrays, meta, "m")
    # the file's tagger has int8 weights: its lemmas are those of the trained one rounded
    assert [s.lemma for s in loaded.tag(blank)] == [s.lemma for s in rounded(tagger).tag(blank)]


def test_words_and_rules_of_a_upos_and_feats_come_before_those_of_the_upos():
    """Czech-like: an ending lemmatizes one way in one case and another in the other."""
    rows = ([("ženou", "NOUN", "Case=Ins", "žena")] * 3 + [("rukou", "NOUN", "Case=Ins", "ruka")]
            + [("nesou", "VERB", "Number=Plur", "nést")]
            + [(f"x{k}ou", "NOUN", "Case=Gen", f"x{k}ou") for k in range(5)]
            + [("tou", "DET", "Case=Ins", "ten")] * 3 + [("tou", "DET", "Case=Gen", "tou")])
    sentence = conllu.parse_block("\n".join(
        f"{k}\t{form}\t{lemma}\t{upos}\t_\t{feats}\t0\tdep\t_\t_"
        for k, (form, upos, feats, lemma) in enumerate(rows, start=1)))
    lemmatizer = Lemmatizer.train([sentence])
    assert lemmatizer.lemma("horou", "NOUN") == "horou"  # the UPOS's rule: as Case=Gen
    assert lemmatizer.lemma("horou", "NOUN", "Case=Ins") == "hora"  # the (UPOS, FEATS)'s
    assert lemmatizer.lemma("horou", "NOUN", "Case=Dat") == "horou"  # none: the UPOS's
    assert lemmatizer.lemma("tou", "DET", "Case=Ins") == "ten"
    assert lemmatizer.lemma("tou", "DET", "Case=Gen") == "tou"
    # only what differs from the UPOS's is kept
    assert set(lemmatizer.tagged_words) == {("tou", "DET", "Case=Gen")}
    assert all(rule != lemmatizer.rules[upos, ending]
               for (upos, _, ending), rule in lemmatizer.tagged_rules.items())
