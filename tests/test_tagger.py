"""The tagger trained on a slice of English-EWT: it learns its training tags, tags unseen
sentences far better than chance, writes only the tag columns, is deterministic, and
survives a model-file round trip."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as hs

from arcwise.core.corpus import from_words
from arcwise.core.errors import ArcwiseError
from arcwise.features.hashing import combine, text_hash
from arcwise.io import conllu
from arcwise.pipeline.stages.tagger import (
    N_ATOMS,
    PAD,
    Atoms,
    Tagger,
    atom_strings,
    column_scores,
    combination_codes,
    feature_buffer,
    forms_atoms,
    legal_combinations,
)
from tests.ewt import NO_JIT, train_and_dev
from tests.rounded import rounded

N_TRAIN, N_DEV = (30, 10) if NO_JIT else (300, 100)

@pytest.fixture(scope="module")
def data():
    return train_and_dev(N_TRAIN, N_DEV)

@pytest.fixture(scope="module")
def tagger(data):
    train, dev = data
    return Tagger.train(train, dev, epochs=3, seed=2, buckets=2**14, features=2)

def reference_atoms(form: str) -> np.ndarray:
    """The word atoms as they were first computed, a string at a time (before the compiled
    hashing): every model file's weights were trained on these values."""
    return np.array([combine(k + 1, text_hash(s)) for k, s in enumerate(atom_strings(form))],
                    dtype=np.uint64)


def test_atoms_are_the_reference_ones(data):
    train, dev = data
    forms = sorted({f for s in train + dev for f in s.form[1:]})
    forms += ["ΟΔΟΣ", "İstanbul", "𝔘nicode", "a-b", "12ab", "ǅemal", "x" * 200]
    assert np.array_equal(forms_atoms(forms), np.array([reference_atoms(f) for f in forms]))
    atoms, offsets = Atoms().batch(dev)
    padding = np.zeros((PAD, N_ATOMS), dtype=np.uint64)
    assert np.array_equal(atoms, np.concatenate([
        np.concatenate([padding, np.array([reference_atoms(f) for f in s.form[1:]]), padding])
        for s in dev]))
    assert offsets.tolist() == [0, *np.cumsum([s.n + 2 * PAD for s in dev]).tolist()]
    assert Atoms().batch([])[0].shape == (0, N_ATOMS)


def test_learns_and_generalizes(tagger, data):
    train, dev = data
    seen = tagger.accuracy(train)
    assert seen["dev_upos"] > 90 and seen["dev_feats"] > 85
    unseen = tagger.accuracy(dev)
    assert unseen["dev_upos"] > (50 if NO_JIT else 75)
    assert tagger.scores["epochs"][-1]["epoch"] == 3

def test_tag_changes_only_the_tag_columns(tagger, data):
    _, dev = data
    tagged = tagger.tag(dev[0])
    assert tagged.form == dev[0].form and tagged.deprel == dev[0].deprel
    assert np.array_equal(tagged.head, dev[0].head)
    for old, new in zip(dev[0].lines, tagged.lines):
        if old[:1] != "#" and "-" not in old.split("\t")[0]:
            a, b = old.split("\t"), new.split("\t")
            assert a[:3] + a[6:] == b[:3] + b[6:]
            assert b[3] == tagged.upos[int(b[0])]
        else:
            assert old == new
    plain = tagger.tag(from_words(["The", "dog", "barks", "."]))
    assert all(t in tagger.tagsets[0] for t in plain.upos[1:])
    assert conllu.format_sentence(plain).count("\n") == 5

@pytest.mark.end_to_end
def test_deterministic_and_round_trip(tagger, data):
    train, dev = data
    again = Tagger.train(train, dev, epochs=3, seed=2, buckets=2**14, features=2)
    assert all(np.array_equal(a.transition, b.transition)
               for a, b in zip(again.weights, tagger.weights))
    arrays, meta = tagger.saved("tagger_")
    loaded = Tagger.from_saved(arrays, meta, "model", "tagger_")
    assert [s.upos for s in loaded.tag(dev)] == [s.upos for s in rounded(tagger).tag(dev)]
    with pytest.raises(Exception, match="bad tagger metadata"):
        Tagger.from_saved(arrays, {**meta, "tagsets": {}}, "m", "tagger_")


def test_version_1_model_files_still_load_and_tag(data):
    train, dev = data
    old = Tagger.train(train, epochs=1, seed=2, buckets=2**12, features=1)
    arrays, meta = old.saved("tagger_")
    del meta["features"]  # as files written before version 2 were
    assert not any("dictionary" in name for name in arrays)
    loaded = Tagger.from_saved(arrays, meta, "old.arcwise", "tagger_")
    assert loaded.features == 1 and loaded.dictionary is None
    assert [s.feats for s in loaded.tag(dev)] == [s.feats for s in rounded(old).tag(dev)]
    with pytest.raises(ArcwiseError, match=r"^m: tagger features version 3, but this arcwise "
                                           r"reads versions 1, 2: retrain the tagger"):
        Tagger.from_saved(arrays, {**meta, "features": 3}, "m", "tagger_")


def test_the_tag_dictionary(tagger, data):
    train, _ = data
    assert tagger.features == 2 and len(tagger.dictionary) > 0
    arrays, meta = tagger.saved("tagger_")
    with pytest.raises(ArcwiseError, match="^m: model file has no array 'tagger_dictionary_keys'$"):
        Tagger.from_saved({k: v for k, v in arrays.items() if "dictionary_keys" not in k},
                          meta, "m", "tagger_")
    lower = forms_atoms(["the", "The", "zzzunseenzzz"])[:, 1]  # LOWER
    classes = tagger.dictionary.lookup(lower)
    assert (classes[0] != 0).all() and (classes[0] == classes[1]).all()  # "the" is frequent
    assert (classes[2] == 0).all()


def test_the_atoms_cache_is_safe_to_share_between_threads():
    """A server tags requests in several threads: every thread gets each form's own atoms,
    also while the cache forgets everything (MAX_FORMS)."""
    import threading

    atoms = Atoms()
    atoms.MAX_FORMS = 50
    failures = []

    def work(seed):
        rng = np.random.default_rng(seed)
        for _ in range(40):
            forms = [f"w{int(k)}" for k in rng.integers(0, 400, size=7)]
            table, _ = atoms.of_forms([forms])
            if not np.array_equal(table[PAD:-PAD], forms_atoms(forms)):
                failures.append(forms)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures


def triples(sentences):
    return {t for s in sentences for t in zip(s.upos[1:], s.xpos[1:], s.feats[1:])}


def test_writes_only_combinations_seen_in_training_and_the_parser_reads_each_best(data):
    """By default a word is written a (UPOS, XPOS, FEATS) seen in training: its own best
    tags when they were seen and its two previous words kept theirs, else its UPOS with a
    seen (XPOS, FEATS) of it.  The tags a parser reads are each column's best, those of a
    tagger without the constraint; the weights are the same (training never constrains)."""
    train, dev = data
    untagged = [from_words(s.form[1:]) for s in dev]
    seen = Tagger.train(train, dev, epochs=3, seed=2, buckets=2**14, features=2)
    free = Tagger.train(train, dev, epochs=3, seed=2, buckets=2**14, features=2,
                        combinations=False)
    assert seen.combinations.shape[0] and free.combinations.shape[0] == 0
    assert all(np.array_equal(a.transition, b.transition)
               for a, b in zip(seen.weights, free.weights))
    read, written = seen.tagged(untagged)
    assert triples(written) <= triples(train)
    assert [tags(s) for s in read] == [tags(s) for s in free.tag(untagged)]
    free_read, free_written = free.tagged(untagged)
    assert all(r is w for r, w in zip(free_read, free_written))  # one set of tags
    if not NO_JIT:
        assert not triples(read) <= triples(train)  # so the constraint changed something
    known = triples(train)
    for r, w in zip(read, written):
        assert r.upos == w.upos
        changed = [False, False] + [(w.xpos[k], w.feats[k]) != (r.xpos[k], r.feats[k])
                                    for k in range(1, r.n + 1)]  # 2 before the first word
        for k in range(1, r.n + 1):
            if not changed[k] and not changed[k - 1] \
                    and (r.upos[k], r.xpos[k], r.feats[k]) in known:
                assert not changed[k + 1]
    from arcwise.cli.train import parse_tagger

    assert parse_tagger(["combinations=any"])["combinations"] is False  # --tagger's way
    assert [tags(s) for s in seen.tag(untagged)] == [tags(s) for s in written]
    arrays, meta = seen.saved("tagger_")
    assert np.array_equal(Tagger.from_saved(arrays, meta, "m", "tagger_").combinations,
                          seen.combinations)
    old = {k: v for k, v in meta.items() if k != "combinations"}
    assert Tagger.from_saved(arrays, old, "m", "tagger_").combinations.shape[0] == 0
    assert "combinations" not in free.saved()[1]
    for bad in (seen.combinations[::-1], seen.combinations.astype(np.int32),
                seen.combinations + 10**9):
        with pytest.raises(ArcwiseError, match="^m: corrupt model file .bad tag combinations"):
            Tagger.from_saved({**arrays, "tagger_combinations": bad}, meta, "m", "tagger_")


def test_auto_keeps_the_features_version_of_the_best_dev_accuracy(data):
    """With features="auto" both feature versions are trained and the one of better dev
    accuracy kept, as trained alone; without dev, version 1."""
    from arcwise.cli.train import parse_tagger

    train, dev = data
    auto = Tagger.train(train, dev, epochs=2, seed=2, buckets=2**12, features="auto")
    scores = auto.hyperparameters["features"]["auto"]
    assert set(scores) == {"1", "2"}
    assert auto.features == max((1, 2), key=lambda v: scores[str(v)])
    alone = Tagger.train(train, dev, epochs=2, seed=2, buckets=2**12, features=auto.features)
    assert all(np.array_equal(a.transition, b.transition)
               for a, b in zip(auto.weights, alone.weights))
    assert Tagger.train(train, epochs=1, buckets=2**12, features="auto").features == 1
    assert parse_tagger(["features=auto"])["features"] == "auto"
    arrays, meta = auto.saved()
    assert Tagger.from_saved(arrays, meta, "m").hyperparameters["features"] == {"auto": scores}


def tags(sentence):
    return sentence.upos, sentence.xpos, sentence.feats


@given(hs.sets(hs.tuples(hs.integers(0, 2), hs.integers(0, 3), hs.integers(0, 4)),
               min_size=1))
def test_legal_combinations_are_those_seen(seen):
    n_xpos, n_feats = 4, 5
    codes = np.unique([combination_codes(u, x, f, n_xpos, n_feats) for u, x, f in seen])
    tags = np.zeros((3, 1), dtype=np.int64)
    legal = np.zeros(max(n_xpos, n_feats), dtype=np.bool_)
    for u in range(3):
        tags[0, 0] = u
        legal_combinations(codes, 1, 0, tags, n_xpos, n_feats, legal[:n_xpos])
        with_u = {x for v, x, _ in seen if v == u} or set(range(n_xpos))
        assert set(np.flatnonzero(legal[:n_xpos])) == with_u
        for x in range(n_xpos):
            tags[1, 0] = x
            legal_combinations(codes, 2, 0, tags, n_xpos, n_feats, legal[:n_feats])
            with_ux = {f for v, y, f in seen if (v, y) == (u, x)} or set(range(n_feats))
            assert set(np.flatnonzero(legal[:n_feats])) == with_ux


def test_by_default_both_features_versions_are_trained_and_their_scores_added(data):
    """The default tagger is a pair: one of each features version, each trained as it
    would be alone, whose scores are added; a model file keeps both."""
    from arcwise.cli.train import parse_tagger

    train, dev = data
    options = {"epochs": 2, "seed": 2, "buckets": 2**12}
    both = Tagger.train(train, dev, **options)
    one, two = (Tagger.train(train, dev, features=v, **options) for v in (1, 2))
    assert (both.features, both.partner.features) == (1, 2)
    for pair_member, alone in ((both, one), (both.partner, two)):
        assert all(np.array_equal(a.transition, b.transition)
                   for a, b in zip(pair_member.weights, alone.weights))
    assert set(both.hyperparameters["features"]["both"]) == {"1", "2"}
    assert set(both.scores["dev"]) >= {"dev_upos", "dev_xpos", "dev_feats"}

    def ids(tagger):
        read, written, _ = tagger.tag_ids(dev)
        return np.concatenate([read, written])

    def silenced(tagger):
        return [w._replace(transition=np.zeros_like(w.transition)) for w in tagger.weights]

    # with one side's weights zero, the pair tags as the other side alone
    second_alone = Tagger(two.tagsets, two.weights, features=2, dictionary=two.dictionary)
    assert np.array_equal(ids(Tagger(one.tagsets, silenced(one), features=1,
                                     partner=second_alone)), ids(second_alone))
    first_alone = Tagger(one.tagsets, one.weights, features=1)
    assert np.array_equal(
        ids(Tagger(one.tagsets, one.weights, features=1, partner=Tagger(
            two.tagsets, silenced(two), features=2, dictionary=two.dictionary))),
        ids(first_alone))
    assert not np.array_equal(ids(Tagger(one.tagsets, one.weights, features=1,
                                         partner=second_alone)), ids(first_alone))

    arrays, meta = both.saved("tagger_")
    loaded = Tagger.from_saved(arrays, meta, "m", "tagger_")
    assert np.array_equal(ids(loaded), ids(rounded(both))) and loaded.partner.features == 2
    assert loaded.hyperparameters == both.hyperparameters
    bad = {**meta, "partner": {**meta["partner"], "tagsets": {**meta["tagsets"], "upos": ["X"]}}}
    with pytest.raises(ArcwiseError, match="^m: "):  # the partner's weights have 17 UPOS
        Tagger.from_saved(arrays, bad, "m", "tagger_")
    with pytest.raises(ArcwiseError, match="bad tagger metadata"):
        Tagger.from_saved(arrays, {**meta, "partner": 7}, "m", "tagger_")
    assert Tagger.train(train, epochs=1, buckets=2**12).partner.features == 2  # without dev
    assert parse_tagger(["features=both"])["features"] == "both"


def test_a_pair_scores_with_one_pass_of_features_the_sum_of_its_members_scores(data):
    """A pair computes its larger member's features once, weighting the ones both members
    have by their summed tables (`Tagger._scoring`): each word's scores are the sum of the
    two taggers' own, also when their tables have different numbers of rows."""
    train, dev = data
    one = Tagger.train(train, epochs=1, seed=1, features=1, buckets=2**10)
    two = Tagger.train(train, epochs=1, seed=1, features=2, buckets=2**12)
    pair = Tagger(one.tagsets, one.weights, features=1, partner=Tagger(
        two.tagsets, two.weights, features=2, dictionary=two.dictionary))
    words, offsets = pair._atoms.batch(dev[:20])
    tags, _, _ = pair.tag_ids(dev[:20])

    def scores(tagger, i, column):
        reader, weights, weights2, shared = tagger._scoring
        n = len(tagger.tagsets[column])
        out, spare = np.zeros(n), np.zeros(n)
        column_scores(reader._with_dictionary(words), i, column, tags, weights, weights2,
                      shared, reader.features, feature_buffer(reader.features),
                      np.ones(n, dtype=np.bool_), out, spare)
        return out

    for i in range(PAD, offsets[1] + 40):
        if tags[0, i] < 0:
            continue  # padding between sentences
        for column in range(3):
            alone = scores(one, i, column) + scores(pair.partner, i, column)
            assert np.allclose(scores(pair, i, column), alone, rtol=1e-5, atol=1e-4)
