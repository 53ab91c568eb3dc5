"""Vocabularies: deterministic ids, frozen lookups, JSON round trips, encoded sentences."""

import dataclasses
import io
import json
from pathlib import Path

import numpy as np
import pytest

from arcwise.core.corpus import ROOT
from arcwise.core.vocab import (
    COLUMNS,
    DERIVED,
    ROOT_ID,
    UNKNOWN,
    Vocabularies,
    Vocabulary,
    form_signature,
)
from arcwise.io import conllu

DATA = Path(__file__).resolve().parent / "data"


def test_ids_follow_first_appearance_after_the_reserved_ones():
    v = Vocabulary(["the", "dog", "the", "barks"])
    assert [v.id(s) for s in ["the", "dog", "barks"]] == [2, 3, 4]
    assert len(v) == 5 and list(v) == ["the", "dog", "barks"]
    assert v.id(ROOT) == ROOT_ID and v.string(ROOT_ID) == ROOT and v.string(UNKNOWN) == "<unknown>"
    assert v.id("cat") == 5 and "cat" in v  # growing: new strings are added


def test_frozen_vocabulary_maps_unknown_strings_to_unknown():
    v = Vocabulary(["a", "b"], frozen=True)
    assert v.id("c") == UNKNOWN and "c" not in v and len(v) == 4
    assert v.encode((ROOT, "b", "c", "a")).tolist() == [ROOT_ID, 3, UNKNOWN, 2]


def test_a_frozen_column_of_blanks_alone_reads_every_value_as_blank():
    """A model trained without tags (the column all _) reads a tagged input as untagged, not
    as unknown tags; a growing vocabulary, or a frozen one with other values, does not."""
    blank_only = Vocabulary(["_"], frozen=True)
    blank = blank_only.id("_")
    assert blank_only.encode((ROOT, "NOUN", "_", "VERB")).tolist() == [ROOT_ID] + [blank] * 3
    assert blank_only.id("ADJ") == blank
    assert Vocabulary.from_dict(blank_only.to_dict()).encode((ROOT, "X")).tolist() == [ROOT_ID,
                                                                                         blank]
    growing = Vocabulary(["_"])
    assert growing.id("NOUN") != blank
    assert Vocabulary(["_", "NOUN"], frozen=True).id("VERB") == UNKNOWN


def test_json_round_trip_keeps_ids():
    sentences = list(conllu.read(DATA / "mwt_empty.conllu"))
    vocabularies = Vocabularies.build(sentences)
    data = json.loads(json.dumps(vocabularies.to_dict()))
    assert set(data) == set(COLUMNS + DERIVED)
    restored = Vocabularies.from_dict(data)
    for s in sentences:
        a, b = vocabularies.encode(s), restored.encode(s)
        assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert restored.upos.frozen and restored.upos.id("NOVEL") == UNKNOWN
    with pytest.raises(ValueError):
        Vocabulary.from_dict({"strings": ["a", "a"], "frozen": True})


def test_build_is_deterministic():
    sentences = list(conllu.read(DATA / "mwt_empty.conllu"))
    assert Vocabularies.build(sentences).to_dict() == Vocabularies.build(sentences).to_dict()
    upos = Vocabularies.build(sentences).upos
    assert list(upos)[:3] == ["AUX", "PART", "VERB"]


def test_encoded_sentence_is_int32_arrays_of_n_plus_1():
    s = next(conllu.read(DATA / "mwt_empty.conllu"))
    vocabularies = Vocabularies()
    encoded = vocabularies.encode(s)
    for column in COLUMNS:
        ids = getattr(encoded, column)
        assert ids.dtype == np.int32 and ids.shape == (s.n + 1,) and ids[0] == ROOT_ID
        vocabulary = getattr(vocabularies, column)
        assert [vocabulary.string(i) for i in ids[1:]] == list(getattr(s, column)[1:])
    assert encoded.head is s.head
    assert encoded.upos.tolist() == [ROOT_ID, 2, 3, 4, 5]


def test_frozen_encoding_of_unseen_sentence():
    train = list(conllu.read(DATA / "mwt_empty.conllu"))
    vocabularies = Vocabularies.build(train)
    text = "1\tzebra\tzebra\tNOUN\tNN\tNew=Yes\t0\troot\t_\t_\n\n"
    encoded = vocabularies.encode(next(conllu.read(io.StringIO(text))))
    assert encoded.form.tolist() == [ROOT_ID, UNKNOWN]
    assert encoded.feats.tolist() == [ROOT_ID, UNKNOWN]
    assert encoded.upos[1] == vocabularies.upos.id("NOUN") != UNKNOWN
    assert encoded.deprel[1] == vocabularies.deprel.id("root")


def test_form_signature_lowercases_cuts_the_suffix_and_collapses_the_shape():
    assert form_signature("McDonald's") == ("mcdonald's", "d's", "XxXx'x")
    assert form_signature("1,234.5") == ("1,234.5", "4.5", "d,d.d")
    assert form_signature("Über") == ("über", "ber", "Xx")
    assert form_signature("A") == ("a", "a", "X")


def test_derived_columns_give_an_unknown_word_the_ids_of_its_signature():
    sentences = list(conllu.read(DATA / "mwt_empty.conllu"))
    vocabularies = Vocabularies.build(sentences)
    s = sentences[0]
    k = next(k for k in range(1, s.n + 1) if len(s.form[k]) >= 3)
    novel = s.form[:k] + ("Zz" + s.form[k],) + s.form[k + 1 :]
    encoded = vocabularies.encode(dataclasses.replace(s, form=novel))
    assert encoded.form[k] == UNKNOWN
    lower, suffix, shape = form_signature("Zz" + s.form[k])
    assert encoded.suffix[k] == vocabularies.suffix.id(suffix) != UNKNOWN
    assert encoded.lower[0] == encoded.suffix[0] == encoded.shape[0] == ROOT_ID


def test_model_files_without_derived_vocabularies_still_load():
    sentences = list(conllu.read(DATA / "mwt_empty.conllu"))
    data = Vocabularies.build(sentences).to_dict()
    for column in DERIVED:
        del data[column]
    restored = Vocabularies.from_dict(data)
    assert len(restored.suffix) == 2 and restored.suffix.frozen


def test_the_derived_ids_cache_stays_bounded(monkeypatch):
    """A long-running parser meets new forms forever: the cache of derived ids forgets
    (and the ids stay the same)."""
    import arcwise.core.vocab as vocab_module

    path = Path(__file__).resolve().parents[1] / "data" / "en_ewt" / "dev.conllu.gz"
    sentences = list(conllu.read(path))[:200]
    vocabularies = Vocabularies.build(sentences[:100])
    before = [vocabularies.encode(s).lower.tolist() for s in sentences]
    monkeypatch.setattr(vocab_module, "MAX_DERIVED", 50)
    fresh = Vocabularies.from_dict(vocabularies.to_dict())
    after = [fresh.encode(s).lower.tolist() for s in sentences]
    assert after == before and len(fresh._derived) <= 51
