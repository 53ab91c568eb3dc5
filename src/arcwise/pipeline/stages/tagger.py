"""A greedy left-to-right tagger: UPOS, then XPOS, then FEATS, one averaged perceptron each.

Every word is described by a few hashed *atoms* of its form (`word_atoms`: the
form, lowercased, its prefixes and suffixes, its shape and a few flags), and
each decision reads the atoms of the words around it and the tags already
given: the two previous words' tags of the same column, and for XPOS and
FEATS the word's own UPOS (and XPOS).  The perceptrons are those of the
parser (`arcwise.pipeline.classifier`), trained on the tagger's own
predictions of the previous tags (greedy, as it runs), the examples in a
seeded order, the epoch with the best dev accuracy kept.  FEATS is one class
per feature string seen in training (``_`` included).

The tags written are a combination seen in training (``combinations=True``, the
default; ``--tagger combinations=any`` turns it off), as UDPipe 1's tagger, which
chooses whole tags, never writes an unseen one: a word keeps its tags when its (UPOS,
XPOS, FEATS) was seen, else it keeps its UPOS and gets the seen (XPOS, FEATS) of that
UPOS of highest summed score (`consistent_tags`).  A parser reads each column's own
best instead (`Tagger.tagged`), the tags it was trained on: a perceptron pipeline on
English-EWT trained and run on constrained tags (an earlier, greedy constraint: XPOS
first, then FEATS) lost 0.26 LAS from raw text (79.72 against 79.98).  On the dev
splits of five treebanks (English-EWT, Swedish-LinES, Czech-CLTT, Portuguese-Bosque,
Italian-ParTUT) the written tags had AllTags 0.15 to 2.70 higher, XPOS -0.01 to +0.85,
UFeats -0.19 to +0.13.  Training never constrains.

Features version 2 adds what the standard perceptron taggers read (Collins 2002;
Honnibal's tagger; UDPipe 1's MorphoDiTa) and version 1 lacks: a tag dictionary
(`arcwise.pipeline.tag_dictionary`: the tags a frequent word had in training, for the
word and the next two), the prefix of 4, the tag two words back alone, the suffix of the
word after next, the previous word with its tag, and for XPOS and FEATS the word's own
UPOS with its suffixes and form.  It helps one treebank and hurts another (dev UPOS:
Swedish-LinES 93.89 -> 94.70, Portuguese-Bosque 96.52 -> 96.63; Czech-CLTT 97.41 -> 96.61,
Italian-ParTUT 95.58 -> 95.21, English-EWT 94.86 -> 94.81).  Their sum beats either: by
default (``features="both"``) a tagger of each version is trained as alone and the pair
tags by their added scores (`Tagger._both_versions`, `column_scores`); dev AllTags of the
written tags (English-EWT, Swedish-LinES, Czech-CLTT, Portuguese-Bosque, Italian-ParTUT)
0.13 to 0.51 above the better version's.  The pair computes version 2's features once,
the weights of those version 1 shares being both members' summed (`Tagger._scoring_tables`):
English-EWT test, one thread, in 0.31 s against version 2's 0.26 s alone (and 0.50 s when
each member computed its own).  ``features="auto"`` keeps the version of better dev
accuracy (`Tagger._best_version`; without dev, version 1).
Model files record their version (none: 1) and the partner's; a version this code does not
know is refused.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from functools import partial
from typing import Any

import numpy as np

from arcwise.core import arrays, interrupts
from arcwise.core.corpus import ROOT, Sentence
from arcwise.core.errors import ArcwiseError, MissingArray
from arcwise.core.jit import njit
from arcwise.core.threads import in_threads
from arcwise.core.vocab import TAG_COLUMNS, form_signature
from arcwise.features.hashing import combine, text_hashes
from arcwise.io.conllu import with_columns
from arcwise.learn import perceptron as pc
from arcwise.pipeline.classifier import arrays_of, new_perceptron, table_rows, weights_from
from arcwise.pipeline.lemmatizer import Lemmatizer
from arcwise.pipeline.tag_dictionary import TagDictionary

N_ATOMS = 13  # per word: see `atom_strings`
FORM, LOWER, SHAPE, FLAGS, S1, S2, S3, S4, P1, P2, P3, CLUSTER, P4 = range(N_ATOMS)
AMBIGUITY = N_ATOMS  # then the word's tag-dictionary atoms, one per column (version 2)
FEATURES_VERSION = 1  # of a tagger trained without dev (see the module docstring)
FEATURES_V1, FEATURES_V2 = 30, 43  # features of a word in each version (`word_features`)
N_FEATURES = {1: FEATURES_V1, 2: FEATURES_V2}
MAX_WEIGHTS = 2**23  # per column's table: at most 32 MiB to tag with, 128 MiB to train
MAX_BUCKETS = 2**20
PAD = 2  # words of padding on each side of a sentence's atoms
UPOS, XPOS, FEATS = range(3)
PARTNER = "partner_"  # the prefix of a partner tagger's arrays in a model file
XPOS_CANDIDATES = 3  # a word's best XPOS `consistent_tags` tries (FEATS scored for each)


def atom_strings(form: str) -> tuple[str, ...]:
    """The strings of a form's atoms, in atom order: form, lowercased, shape, flags (digit,
    hyphen, upper first, all upper), suffixes of 1..4 and prefixes of 1..3 lowercased
    characters, the lowercased form's last 6 characters and its prefix of 4."""
    lower, _, shape = form_signature(form)
    flags = (any(c.isdigit() for c in form), "-" in form, form[:1].isupper(), form.isupper())
    return (form, lower, shape, "".join("1" if f else "0" for f in flags),
            lower[-1:], lower[-2:], lower[-3:], lower[-4:], lower[:1], lower[:2], lower[:3],
            lower[-6:], lower[:4])


@njit(cache=True)
def _keyed(hashes):
    """combine(k + 1, hashes[i, k]) of every atom k of every word i."""
    out = np.empty_like(hashes)
    for i in range(hashes.shape[0]):
        for k in range(hashes.shape[1]):
            out[i, k] = combine(k + 1, hashes[i, k])
    return out


def forms_atoms(forms: Sequence[str]) -> np.ndarray:
    """[len(forms), N_ATOMS] the hashed atoms of each form: atom k is combine(k + 1,
    text_hash(atom_strings(form)[k])), all the strings hashed in one compiled pass."""
    strings = [s for form in forms for s in atom_strings(form)]
    return _keyed(text_hashes(strings).reshape(len(forms), N_ATOMS))


def word_atoms(form: str) -> np.ndarray:
    """The hashed atoms of one form (`forms_atoms`)."""
    return forms_atoms([form])[0]


class Atoms:
    """The atoms of the words of sentences, memoised per form (a form's atoms never
    change) as rows of one table; row 0, all zeros, pads the sentences.  Safe to share
    between threads (a server tags requests in several)."""

    MAX_FORMS = 2**20  # then forgotten, so that a long-running process stays small

    def __init__(self):
        self._row: dict[str, int] = {}
        self._table = np.zeros((1, N_ATOMS), dtype=np.uint64)
        self._lock = threading.Lock()

    def _rows(self, forms: Sequence[str]) -> np.ndarray:
        """The table rows of these forms, new forms' atoms computed and added."""
        if len(self._row) > self.MAX_FORMS:
            self._row = {}
            self._table = self._table[:1]
        new = list(dict.fromkeys(f for f in forms if f not in self._row))
        if new:
            start = self._table.shape[0]
            self._table = np.concatenate([self._table, forms_atoms(new)])
            self._row.update(zip(new, range(start, start + len(new))))
        return np.array([self._row[f] for f in forms], dtype=np.int64)

    def sentence(self, forms: Sequence[str]) -> np.ndarray:
        """[PAD + n + PAD, N_ATOMS] atoms of a sentence's words (padding rows 0)."""
        return self.of_forms([forms])[0]

    def batch(self, sentences: Sequence[Sentence]) -> tuple[np.ndarray, np.ndarray]:
        """(atoms of every sentence stacked, offsets: sentence k's rows are offsets[k] ..
        offsets[k + 1] - 1, padding included)."""
        return self.of_forms([s.form[1:] for s in sentences])

    def of_forms(self, sentences: Sequence[Sequence[str]]) -> tuple[np.ndarray, np.ndarray]:
        """`batch` of sentences given as their forms."""
        sizes = np.array([len(forms) for forms in sentences], dtype=np.int64)
        offsets = np.zeros(len(sentences) + 1, dtype=np.int64)
        np.cumsum(sizes + 2 * PAD, out=offsets[1:])
        where = np.zeros(offsets[-1], dtype=np.int64)  # padding: row 0
        starts = np.repeat(offsets[:-1] + PAD - np.cumsum(sizes) + sizes, sizes)
        with self._lock:  # the rows and the table they index change together
            where[starts + np.arange(sizes.sum())] = self._rows([f for s in sentences for f in s])
            return self._table[where], offsets


@njit(cache=True)
def word_features(atoms, i, column, tags, out, version):
    """The features of word row i (padded index) for `column` into out (N_FEATURES[version]
    of them); tags[c, i] holds the tags given so far (-1 none; rows before i of every
    column, and the earlier columns of row i).  A version's features begin with those of
    the versions before it (a pair relies on it: `Tagger._scoring_tables`)."""
    a = atoms
    t1 = tags[column, i - 1]
    t2 = tags[column, i - 2]
    base = np.int64(column * 64)
    out[0] = combine(base, 1)
    out[1] = combine(base + 2, a[i, FORM])
    out[2] = combine(base + 3, a[i, LOWER])
    out[3] = combine(base + 4, a[i - 1, LOWER])
    out[4] = combine(base + 5, a[i + 1, LOWER])
    out[5] = combine(base + 6, a[i - 2, LOWER])
    out[6] = combine(base + 7, a[i + 2, LOWER])
    out[7] = combine(base + 8, a[i, S1])
    out[8] = combine(base + 9, a[i, S2])
    out[9] = combine(base + 10, a[i, S3])
    out[10] = combine(base + 11, a[i, S4])
    out[11] = combine(base + 12, a[i, P1])
    out[12] = combine(base + 13, a[i, P2])
    out[13] = combine(base + 14, a[i, P3])
    out[14] = combine(base + 15, a[i, SHAPE])
    out[15] = combine(base + 16, a[i, FLAGS])
    out[16] = combine(base + 17, a[i - 1, S3])
    out[17] = combine(base + 18, a[i + 1, S3])
    out[18] = combine(base + 19, a[i - 1, SHAPE])
    out[19] = combine(base + 20, a[i + 1, SHAPE])
    out[20] = combine(base + 21, t1)
    out[21] = combine(combine(base + 22, t1), t2)
    out[22] = combine(combine(base + 23, t1), a[i, LOWER])
    out[23] = combine(combine(base + 24, a[i - 1, LOWER]), a[i, LOWER])
    out[24] = combine(combine(base + 25, a[i, LOWER]), a[i + 1, LOWER])
    out[25] = combine(base + 26, a[i, CLUSTER])
    out[26] = combine(combine(base + 27, t1), a[i, S3])
    out[27] = combine(base + 28, a[i + 1, S1])
    own_upos = tags[UPOS, i] if column > UPOS else np.int64(-1)
    own_xpos = tags[XPOS, i] if column > XPOS else np.int64(-1)
    out[28] = combine(combine(base + 29, own_upos), own_xpos)
    out[29] = combine(combine(combine(base + 30, own_upos), own_xpos), a[i, S3])
    if version < 2:
        return
    own = combine(own_upos, own_xpos)
    known = AMBIGUITY + column
    out[30] = combine(base + 31, a[i, P4])
    out[31] = combine(base + 32, t2)
    out[32] = combine(base + 33, a[i + 2, S3])
    out[33] = combine(combine(base + 34, t1), a[i - 1, LOWER])
    out[34] = combine(base + 35, a[i, known])
    out[35] = combine(base + 36, a[i + 1, known])
    out[36] = combine(base + 37, a[i + 2, known])
    out[37] = combine(combine(base + 38, t1), a[i, known])
    out[38] = combine(combine(base + 39, a[i, known]), a[i + 1, known])
    out[39] = combine(combine(base + 40, own), a[i, S2])
    out[40] = combine(combine(base + 41, own), a[i, S4])
    out[41] = combine(combine(base + 42, own), a[i, LOWER])
    out[42] = combine(combine(base + 43, own), a[i + 1, AMBIGUITY + UPOS])


@njit(cache=True)
def combination_codes(upos, xpos, feats, n_xpos, n_feats):
    """The code of each (UPOS, XPOS, FEATS) id triple: one int64, in the order of the
    triples (UPOS first), so that one UPOS's or one (UPOS, XPOS)'s are a range."""
    return (upos * n_xpos + xpos) * n_feats + feats


@njit(cache=True)
def first_at_least(values, x):
    """The first index of the sorted values whose value is at least x (their length if
    none): np.searchsorted, which numba compiles as seven functions."""
    lo, hi = 0, values.shape[0]
    while lo < hi:
        middle = (lo + hi) // 2
        if values[middle] < x:
            lo = middle + 1
        else:
            hi = middle
    return lo


@njit(cache=True)
def legal_combinations(combinations, column, i, tags, n_xpos, n_feats, legal):
    """The classes of a column a word may take, given its UPOS (and XPOS) already chosen:
    those seen with them in training (`combinations`, sorted codes; empty: every class)."""
    if combinations.shape[0] == 0 or column == UPOS:
        legal[:] = True
        return
    u = tags[UPOS, i]
    if column == XPOS:
        a = combination_codes(u, 0, 0, n_xpos, n_feats)
        b = combination_codes(u + 1, 0, 0, n_xpos, n_feats)
    else:
        a = combination_codes(u, tags[XPOS, i], 0, n_xpos, n_feats)
        b = a + n_feats
    lo = first_at_least(combinations, a)
    hi = first_at_least(combinations, b)
    if lo == hi:  # nothing seen with them: no constraint
        legal[:] = True
        return
    legal[:] = False
    for k in range(lo, hi):
        c = combinations[k]
        legal[(c // n_feats) % n_xpos if column == XPOS else c - a] = True


@njit(cache=True)
def n_features(version):
    """N_FEATURES[version], in compiled code."""
    return FEATURES_V1 if version < 2 else FEATURES_V2


@njit(cache=True)
def feature_buffer(version):
    """Room for the features of a word in a features version."""
    return arrays.zeros(n_features(version), dtype=np.uint64)


@njit(cache=True)
def column_scores(atoms, i, column, tags, weights, weights2, shared, version, features,
                  legal, out, out2):
    """out = the scores of `column`'s classes for word row i (-inf where not legal): its
    features (`word_features` of `version`), the first `shared` of them weighted by
    `weights` (one table per column), the rest by `weights2` (out2: room for their scores).
    A tagger alone: every feature by its weights; a pair: see `Tagger._scoring_tables`."""
    word_features(atoms, i, column, tags, features, version)
    # features[:0]: a tagger's classes have no label features (an empty array of the
    # parser's type: a global one, read-only in compiled code, would compile `score` again)
    pc.score(weights[column], features[:shared], features[:0], legal, out)
    if shared < features.shape[0]:
        pc.score(weights2[column], features[shared:], features[:0], legal, out2)
        out += out2


@njit(cache=True)
def tag_sentence(atoms, tags, gold, weights, weights2, shared, version, totals, step):
    """Tag one sentence (atoms with PAD rows each side; tags [3, rows] filled with -1 gets
    the tags), scored by `column_scores`; with the perceptron's totals (training a tagger
    alone), also its updates toward gold [3, rows] on the way; totals=None when tagging
    (the updates are then not even compiled).  Returns (steps, errors)."""
    features = feature_buffer(version)
    errors = 0
    most = max(weights[UPOS].transition.shape[1], weights[XPOS].transition.shape[1],
               weights[FEATS].transition.shape[1])
    every_class = arrays.full(most, True, dtype=np.bool_)
    scores = arrays.zeros(most, dtype=np.float64)
    scores2 = arrays.zeros(most, dtype=np.float64)
    for i in range(PAD, atoms.shape[0] - PAD):
        for column in range(3):
            n = weights[column].transition.shape[1]
            column_scores(atoms, i, column, tags, weights, weights2, shared, version, features,
                          every_class[:n], scores[:n], scores2[:n])
            predicted = pc.argmax(scores[:n], every_class[:n])
            if totals is not None:
                if predicted != gold[column, i]:
                    errors += 1
                    pc.update(weights[column], totals[column], features, features[:0],
                              gold[column, i], predicted, step)
                step += 1
            tags[column, i] = predicted
    return step, errors


@njit(cache=True)
def seen_combination(combinations, upos, xpos, feats, n_xpos, n_feats):
    """Whether the (UPOS, XPOS, FEATS) ids were seen together in training."""
    code = combination_codes(upos, xpos, feats, n_xpos, n_feats)
    k = first_at_least(combinations, code)
    return k < combinations.shape[0] and combinations[k] == code


@njit(cache=True)
def consistent_tags(atoms, tags, written, weights, weights2, shared, version, combinations):
    """The tags to write [3, rows] of a sentence tagged freely (`tag_sentence`): a word
    keeps its tags when they were seen together in training and its two previous words
    kept theirs; otherwise it keeps its UPOS and gets the seen (XPOS, FEATS) of that UPOS
    (`legal_combinations`) of highest summed score, among its XPOS_CANDIDATES best XPOS,
    the features reading the previous words' written tags."""
    features = feature_buffer(version)
    n_xpos = weights[XPOS].transition.shape[1]
    n_feats = weights[FEATS].transition.shape[1]
    xpos_scores = arrays.zeros(n_xpos, dtype=np.float64)
    feats_scores = arrays.zeros(n_feats, dtype=np.float64)
    spare = arrays.zeros(max(n_xpos, n_feats), dtype=np.float64)
    legal_xpos = arrays.empty(n_xpos, dtype=np.bool_)
    legal_feats = arrays.empty(n_feats, dtype=np.bool_)
    for i in range(PAD, atoms.shape[0] - PAD):
        same_history = True
        for column in (XPOS, FEATS):
            for back in (1, 2):
                if written[column, i - back] != tags[column, i - back]:
                    same_history = False
        written[UPOS, i] = tags[UPOS, i]
        if same_history and seen_combination(combinations, tags[UPOS, i], tags[XPOS, i],
                                             tags[FEATS, i], n_xpos, n_feats):
            written[XPOS, i] = tags[XPOS, i]
            written[FEATS, i] = tags[FEATS, i]
            continue
        legal_combinations(combinations, XPOS, i, written, n_xpos, n_feats, legal_xpos)
        column_scores(atoms, i, XPOS, written, weights, weights2, shared, version, features,
                      legal_xpos, xpos_scores, spare[:n_xpos])
        best, best_x, best_f = -np.inf, -1, -1
        for _ in range(XPOS_CANDIDATES):
            x = pc.argmax(xpos_scores, legal_xpos)
            if x < 0:
                break
            legal_xpos[x] = False
            written[XPOS, i] = x
            legal_combinations(combinations, FEATS, i, written, n_xpos, n_feats, legal_feats)
            column_scores(atoms, i, FEATS, written, weights, weights2, shared, version,
                          features, legal_feats, feats_scores, spare[:n_feats])
            f = pc.argmax(feats_scores, legal_feats)
            if best_x < 0 or xpos_scores[x] + feats_scores[f] > best:
                best, best_x, best_f = xpos_scores[x] + feats_scores[f], x, f
        written[XPOS, i] = best_x
        written[FEATS, i] = best_f


def tag_batch(atoms, offsets, upos_w, xpos_w, feats_w, upos2, xpos2, feats2, shared, version,
              combinations):
    """(tags, written): the tag ids [3, rows] of every sentence of a batch (see
    `Atoms.batch`), each word's best of each column, and with `combinations` those to
    write (`consistent_tags`; without, the same array).  The weights of each column, then
    the second weights of each, `shared` and `version` as `column_scores` takes them.  The
    sentences are shared among threads (`arcwise.core.threads.in_threads`), each tagged
    alone."""
    tags = np.full((3, atoms.shape[0]), -1, dtype=np.int64)
    written = np.full((3, atoms.shape[0]), -1, dtype=np.int64) if combinations.shape[0] \
        else tags
    in_threads(lambda first, last: tag_range(
        first, last, atoms, offsets, upos_w, xpos_w, feats_w, upos2, xpos2, feats2, shared,
        version, combinations, tags, written), offsets.shape[0] - 1)
    return tags, written


@njit(cache=True, nogil=True)  # threads tag at once (`tag_batch`)
def tag_range(first, last, atoms, offsets, upos_w, xpos_w, feats_w, upos2, xpos2, feats2,
              shared, version, combinations, tags, written):
    """`tag_batch` on sentences first .. last - 1 of its batch, into its tags and written."""
    weights = (upos_w, xpos_w, feats_w)
    weights2 = (upos2, xpos2, feats2)
    for k in range(first, last):
        a, b = offsets[k], offsets[k + 1]
        tag_sentence(atoms[a:b], tags[:, a:b], tags[:, a:b], weights, weights2, shared,
                     version, None, 0)
        if combinations.shape[0]:
            consistent_tags(atoms[a:b], tags[:, a:b], written[:, a:b], weights, weights2,
                            shared, version, combinations)


@njit(cache=True)
def train_epoch(order, atoms, offsets, gold, weights, totals, step, version):
    """One pass over the sentences in `order`; returns (steps, errors).  Training tags
    freely, as the parser reads the tags (see `Tagger.tagged`)."""
    errors = 0
    tags = arrays.full((3, atoms.shape[0]), -1, dtype=np.int64)
    for k in order:
        a, b = offsets[k], offsets[k + 1]
        step, e = tag_sentence(atoms[a:b], tags[:, a:b], gold[:, a:b], weights, weights,
                               n_features(version), version, totals, step)
        errors += e
    return step, errors


NO_COMBINATIONS = np.zeros(0, dtype=np.int64)


def seen_combinations(gold: np.ndarray, n_xpos: int, n_feats: int) -> np.ndarray:
    """The sorted codes (`combination_codes`) of the tag-id triples of gold [3, rows] (-1 on
    padding)."""
    words = gold[0] >= 0
    return np.unique(combination_codes(gold[0, words], gold[1, words], gold[2, words],
                                       n_xpos, n_feats))


def _buckets(n_classes: int, n_words: int, version: int) -> int:
    rows = 1 << max((MAX_WEIGHTS // max(n_classes, 1)).bit_length() - 1, 0)
    return table_rows(min(MAX_BUCKETS, rows), n_words, N_FEATURES[version])


class Tagger:
    """UPOS, XPOS and FEATS of words (see the module docstring).

    >>> tagger = Tagger.train(treebank_sentences)
    >>> tagged = tagger.tag(sentences)           # new Sentences; only the tag columns change
    """

    def __init__(self, tagsets: Sequence[Sequence[str]], weights: Sequence[pc.Weights],
                 hyperparameters: dict[str, Any] | None = None,
                 scores: dict[str, Any] | None = None, *,
                 features: int = FEATURES_VERSION, dictionary: TagDictionary | None = None,
                 lemmatizer: Lemmatizer | None = None,
                 combinations: np.ndarray | None = None, partner: Tagger | None = None):
        if features not in N_FEATURES:
            raise ValueError(f"features version {features}: use one of {sorted(N_FEATURES)}")
        if (dictionary is None) != (features < 2):
            raise ValueError("a tag dictionary goes with features version 2 and later")
        self.tagsets = [tuple(t) for t in tagsets]
        self.weights = list(weights)
        self.hyperparameters = dict(hyperparameters or {})
        self.scores = dict(scores or {})
        self.features = features
        self.dictionary = dictionary
        self.lemmatizer = lemmatizer  # fills LEMMA where it is _, from the form and tags
        # the codes of the (UPOS, XPOS, FEATS) seen in training, sorted (`legal_combinations`)
        self.combinations = NO_COMBINATIONS if combinations is None else combinations
        # a tagger of another features version trained apart on the same data, whose
        # scores are added to this one's (`column_scores`); its own combinations and
        # lemmatizer unused
        if partner is not None and (partner.partner is not None
                                    or partner.tagsets != self.tagsets):
            raise ValueError("a partner tagger has the same tags and no partner of its own")
        self.partner = partner
        self._atoms = Atoms()
        self._scoring = self._scoring_tables()

    def _scoring_tables(self) -> tuple[Tagger, tuple[pc.Weights, ...],
                                       tuple[pc.Weights, ...], int]:
        """(reader, weights, weights2, shared) as `column_scores` takes them: the tagger
        whose features are computed (its atoms, its version) and the tables weighting them.
        Alone, its own.  With a partner, one pass of the features of the pair's member of
        the larger version, whose first features are those of the other's (`word_features`);
        their weights are both members' summed, row by row (a table of fewer rows repeated:
        a hash's row in it is its row in the larger one's low bits, `hashing.bucket`), and
        the rest the larger member's own -- the sum of the two taggers' scores, from one
        pass of features.  The sums of a loaded pair's int8 tables are int8 again
        (`arcwise.learn.perceptron.quantized`)."""
        if self.partner is None:
            return self, tuple(self.weights), tuple(self.weights), N_FEATURES[self.features]
        small, large = sorted((self, self.partner), key=lambda t: t.features)
        summed = []
        for a, b in zip(small.weights, large.weights):
            rows = max(a.transition.shape[0], b.transition.shape[0])
            table = np.zeros((rows, a.transition.shape[1]), dtype=np.float32)
            for member in (a, b):
                values = pc.dequantized(member.transition, member.transition_scale)
                table += np.tile(values, (rows // values.shape[0], 1))
            weights = pc.Weights(table, b.label, b.n_labels, 1.0, b.label_scale)
            compact = np.int8 in (a.transition.dtype, b.transition.dtype)
            summed.append(pc.quantized(weights) if compact else weights)
        return large, tuple(summed), tuple(large.weights), N_FEATURES[small.features]

    def __repr__(self) -> str:
        sizes = ", ".join(f"{len(t)} {c.upper()}" for c, t in zip(TAG_COLUMNS, self.tagsets))
        versions = f"features {self.features}" + (
            f" + {self.partner.features}" if self.partner is not None else "")
        return f"Tagger({sizes}, {versions})"

    @classmethod
    def train(cls, sentences: Iterable[Sentence], dev: Iterable[Sentence] | None = None, *,
              epochs: int = 8, seed: int = 0, buckets: int | None = None,
              features: int | str = "both", combinations: bool = True,
              progress=None) -> Tagger:
        """Train on tagged sentences; with dev, keep the epoch of best mean accuracy over the
        three columns (of each column's best tag, as a parser reads them: `tagged`).
        buckets: rows of each table (default: as many as fit `MAX_WEIGHTS` weights, fewer
        for little data: `classifier.table_rows`); features: the feature set's version
        (see the module docstring), or "auto": each version trained, the one of best dev
        accuracy kept (version 1 without dev); combinations: write a word only a (UPOS,
        XPOS, FEATS) combination seen in training (`consistent_tags`).
        progress(entry) after each epoch."""
        if features in ("auto", "both"):
            chosen = cls._best_version if features == "auto" else cls._both_versions
            return chosen(sentences, dev, epochs=epochs, seed=seed, buckets=buckets,
                          combinations=combinations, progress=progress)
        sentences = [s for s in sentences if s.n]
        if not sentences:
            raise ArcwiseError("no training sentences: the training file is empty")
        tagsets = [sorted({t for s in sentences for t in getattr(s, c)[1:]})
                   for c in TAG_COLUMNS]
        words = sum(s.n for s in sentences)
        models = [new_perceptron(tags, buckets or _buckets(len(tags), words, features))
                  for tags in tagsets]
        dictionary = None
        if features >= 2:
            dictionary = TagDictionary.learn(sentences, lambda f: forms_atoms(f)[:, LOWER])
        atoms, offsets = cls(tagsets, [], features=features, dictionary=dictionary
                             ).atoms(sentences)
        gold = _gold_ids(sentences, tagsets, atoms.shape[0])
        seen = seen_combinations(gold, len(tagsets[XPOS]), len(tagsets[FEATS])) \
            if combinations else NO_COMBINATIONS
        trained = partial(cls, tagsets, features=features, dictionary=dictionary,
                          lemmatizer=Lemmatizer.train(sentences), combinations=seen)
        dev = [s for s in dev or () if s.n]
        step, best, best_weights, log = 0, -1.0, None, []
        for epoch in range(epochs):
            order = np.random.default_rng([seed, epoch]).permutation(len(sentences))
            with interrupts.deferred():
                step, errors = train_epoch(order, atoms, offsets, gold,
                                           tuple(m.weights for m in models),
                                           tuple(m.totals for m in models), step, features)
            averaged = [m.averaged(max(step, 1)) for m in models]
            entry = {"epoch": epoch + 1, "error_rate": errors / max(step // (epoch + 1), 1)}
            if dev:
                # of the tags a parser reads: the same weights with or without combinations
                entry.update(trained(averaged, combinations=NO_COMBINATIONS).accuracy(dev))
            log.append(entry)
            if progress is not None:
                progress(entry)
            score = np.mean([entry[f"dev_{c}"] for c in TAG_COLUMNS]) if dev else epoch
            if score > best:
                best, best_weights = score, averaged
        hyperparameters = {"epochs": epochs, "seed": seed,
                           "buckets": [int(w.transition.shape[0]) for w in best_weights]}
        return trained(best_weights, hyperparameters, {"epochs": log})

    @classmethod
    def _best_version(cls, sentences, dev, **options) -> Tagger:
        """The tagger of the features version (`N_FEATURES`) with the best dev accuracy
        (the mean over the three columns of its kept epoch), its hyperparameters saying
        each version's; version 1 without dev."""
        sentences, dev = list(sentences), list(dev or ())
        if not any(s.n for s in dev):
            return cls.train(sentences, features=FEATURES_VERSION, **options)
        taggers = {v: cls.train(sentences, dev, features=v, **options) for v in N_FEATURES}
        by_version = {str(v): max(float(np.mean([e[f"dev_{c}"] for c in TAG_COLUMNS]))
                                  for e in t.scores["epochs"]) for v, t in taggers.items()}
        best = taggers[max(N_FEATURES, key=lambda v: by_version[str(v)])]
        best.hyperparameters["features"] = {"auto": by_version}
        return best

    @classmethod
    def _both_versions(cls, sentences, dev, **options) -> Tagger:
        """A tagger of each features version (`N_FEATURES`), each trained as alone (with
        dev, the epoch of its best dev accuracy kept), the first with the second as its
        partner: their scores are added.  Its hyperparameters and scores say each one's,
        and its scores the pair's dev accuracy."""
        sentences, dev = list(sentences), [s for s in dev or () if s.n]
        first, second = (cls.train(sentences, dev, features=v, **options)
                         for v in sorted(N_FEATURES))
        pair = cls(first.tagsets, first.weights,
                   {"features": {"both": {str(t.features): t.hyperparameters
                                          for t in (first, second)}}},
                   {str(t.features): t.scores for t in (first, second)},
                   features=first.features, dictionary=first.dictionary,
                   lemmatizer=first.lemmatizer, combinations=first.combinations,
                   partner=cls(second.tagsets, second.weights, features=second.features,
                               dictionary=second.dictionary))
        if dev:
            pair.scores["dev"] = pair.accuracy(dev)
        return pair

    def atoms(self, sentences: Sequence[Sentence]) -> tuple[np.ndarray, np.ndarray]:
        """(atoms, offsets) of the sentences as `Atoms.batch` lays them out, with the tag
        dictionary's atoms as further columns (features version 2)."""
        atoms, offsets = self._atoms.batch(sentences)
        return self._with_dictionary(atoms), offsets

    def _with_dictionary(self, atoms: np.ndarray) -> np.ndarray:
        """Word atoms with this tagger's tag-dictionary atoms after them, if it has one."""
        if self.dictionary is None:
            return atoms
        return np.ascontiguousarray(np.concatenate(
            [atoms, self.dictionary.lookup(atoms[:, LOWER])], axis=1))

    def tag_ids(self, sentences: Sequence[Sentence]
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(read, written, offsets): the tag ids [3, rows] a parser reads and those written
        (`tagged`), as `Atoms.batch` lays the sentences out."""
        words, offsets = self._atoms.batch(sentences)
        reader, weights, weights2, shared = self._scoring
        with interrupts.deferred():
            read, written = tag_batch(reader._with_dictionary(words), offsets, *weights,
                                      *weights2, shared, reader.features, self.combinations)
        return read, written, offsets

    def tagged(self, sentences: Sequence[Sentence]) -> tuple[list[Sentence], list[Sentence]]:
        """(read, written): the sentences with the tags a parser reads -- each column's
        best, those parsers train on (`arcwise.pipeline.predicted_tags`) -- and with those
        to write: the same, or with `combinations` a combination seen in training
        (`consistent_tags`).  Lemmas as `tag`."""
        sentences = list(sentences)
        read, written, offsets = self.tag_ids(sentences)

        def tagged(sentence: Sentence, ids: np.ndarray) -> Sentence:
            return with_tags(sentence, [[tags[i] for i in ids[j].tolist()]
                                        for j, tags in enumerate(self.tagsets)], self.lemmatizer)

        out_read, out_written = [], []
        for sentence, a, b in zip(sentences, offsets[:-1] + PAD, offsets[1:] - PAD):
            out_read.append(tagged(sentence, read[:, a:b]))
            same = not self.combinations.shape[0] or np.array_equal(read[:, a:b],
                                                                    written[:, a:b])
            out_written.append(out_read[-1] if same else tagged(sentence, written[:, a:b]))
        return out_read, out_written

    def tag(self, sentences: Sentence | Sequence[Sentence]) -> Any:
        """The sentences with the predicted UPOS, XPOS and FEATS to write (`tagged`), and
        lemmas where they have none (``_``) when the tagger has a lemmatizer (the rest
        unchanged)."""
        if isinstance(sentences, Sentence):
            return self.tag([sentences])[0]
        return self.tagged(sentences)[1]

    def accuracy(self, sentences: Sequence[Sentence]) -> dict[str, float]:
        """{"dev_upos", "dev_xpos", "dev_feats"}: the share of words given the gold tag (%);
        with a lemmatizer also "dev_lemma", lemmas from the predicted UPOS and FEATS."""
        _, ids, offsets = self.tag_ids(sentences)
        gold = _gold_ids(sentences, self.tagsets, ids.shape[1])
        words = np.zeros(ids.shape[1], dtype=np.bool_)
        for k in range(len(sentences)):
            words[offsets[k] + PAD : offsets[k + 1] - PAD] = True
        scores = {f"dev_{c}": float(100 * (ids[j, words] == gold[j, words]).mean())
                  for j, c in enumerate(TAG_COLUMNS)}
        if self.lemmatizer is not None:
            tags = [[[tagset[t] for t in ids[j, a:b].tolist()]
                     for j, tagset in ((UPOS, self.tagsets[UPOS]), (FEATS, self.tagsets[FEATS]))]
                    for a, b in zip(offsets[:-1] + PAD, offsets[1:] - PAD)]
            scores.update(lemma_accuracy(self.lemmatizer, sentences, tags))
        return scores

    # --- model files ---------------------------------------------------------------

    def saved(self, prefix: str = "") -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """(arrays, metadata) of this tagger in a model file; array names prefixed."""
        arrays = {}
        for c, weights in zip(TAG_COLUMNS, self.weights):
            arrays.update(arrays_of(weights, f"{prefix}{c}_"))
        if self.dictionary is not None:
            arrays.update(self.dictionary.arrays(prefix))
        meta = {"kind": "tagger", "tagsets": {c: list(t) for c, t in zip(TAG_COLUMNS,
                                                                          self.tagsets)},
                "features": self.features,
                "hyperparameters": self.hyperparameters, "scores": self.scores}
        if self.lemmatizer is not None:
            meta["lemmatizer"] = self.lemmatizer.to_json()
        if self.combinations.shape[0]:
            arrays[f"{prefix}combinations"] = self.combinations
            meta["combinations"] = True
        if self.partner is not None:
            partner_arrays, meta["partner"] = self.partner.saved(prefix + PARTNER)
            arrays.update(partner_arrays)
        return arrays, meta

    @classmethod
    def from_saved(cls, arrays, meta: dict[str, Any], source: str, prefix: str = "") -> Tagger:
        tagsets = meta.get("tagsets") if isinstance(meta, dict) else None
        if not isinstance(tagsets, dict) or meta.get("kind") != "tagger" or not all(
            isinstance(tagsets.get(c), list) and tagsets[c]
            and all(isinstance(t, str) and t and "\t" not in t and "\n" not in t
                    and t.strip() == t for t in tagsets[c]) for c in TAG_COLUMNS
        ):
            raise ArcwiseError(f"{source}: corrupt model file (bad tagger metadata)")
        features = meta.get("features", 1)  # files written before version 2 have none
        if features not in N_FEATURES or isinstance(features, bool):
            raise ArcwiseError(
                f"{source}: tagger features version {features!r}, but this arcwise reads "
                f"versions {', '.join(map(str, sorted(N_FEATURES)))}: retrain the tagger or "
                "update arcwise")
        weights = [weights_from(arrays, tagsets[c], source, f"{prefix}{c}_")
                   for c in TAG_COLUMNS]
        dictionary = TagDictionary.from_arrays(arrays, source, prefix) if features >= 2 \
            else None
        lemmatizer = Lemmatizer.from_json(meta["lemmatizer"], source) \
            if meta.get("lemmatizer") is not None else None
        combinations = None
        if meta.get("combinations", False) is not False:  # absent: a file of before them
            combinations = arrays.get(f"{prefix}combinations")
            if combinations is None:
                raise MissingArray(source, f"{prefix}combinations")
            n = [len(tagsets[c]) for c in TAG_COLUMNS]
            if meta["combinations"] is not True \
                    or combinations.dtype != np.int64 or combinations.ndim != 1 \
                    or not (combinations[1:] > combinations[:-1]).all() \
                    or (combinations.shape[0] and (combinations[0] < 0 or
                                                   combinations[-1] >= n[0] * n[1] * n[2])):
                raise ArcwiseError(f"{source}: corrupt model file (bad tag combinations)")
        partner = None
        if meta.get("partner") is not None:  # absent: a tagger alone
            partner = cls.from_saved(arrays, meta["partner"], source, prefix + PARTNER)
        try:
            return cls([tagsets[c] for c in TAG_COLUMNS], weights,
                       meta.get("hyperparameters"), meta.get("scores"), features=features,
                       dictionary=dictionary, lemmatizer=lemmatizer,
                       combinations=combinations, partner=partner)
        except ValueError:
            raise ArcwiseError(f"{source}: corrupt model file (bad partner tagger)") from None


def with_tags(sentence: Sentence, tags: Sequence[Sequence[str]],
              lemmatizer: Lemmatizer | None) -> Sentence:
    """The sentence with these UPOS, XPOS and FEATS (one list per column, a tag per word),
    and with lemmas from the lemmatizer where it has none (``_``)."""
    columns = {c: (ROOT, *column) for c, column in zip(TAG_COLUMNS, tags)}
    if lemmatizer is not None:
        columns["lemma"] = (sentence.lemma[0], *(
            lemmatizer.lemma(form, upos, feats) if lemma == "_" else lemma
            for form, upos, feats, lemma in zip(sentence.form[1:], columns["upos"][1:],
                                                columns["feats"][1:], sentence.lemma[1:])))
    return with_columns(sentence, **columns)


def lemma_accuracy(lemmatizer: Lemmatizer, sentences: Sequence[Sentence],
                   tags: Sequence[tuple[Sequence[str], Sequence[str]]]) -> dict[str, float]:
    """{"dev_lemma": % of the words with a gold lemma given it by the lemmatizer from
    these predicted tags (per sentence, its UPOS and its FEATS)}, or {} when no word has
    a lemma."""
    right = total = 0
    for sentence, (upos, feats) in zip(sentences, tags):
        for form, u, x, lemma in zip(sentence.form[1:], upos, feats, sentence.lemma[1:]):
            if lemma != "_":
                total += 1
                right += lemmatizer.lemma(form, u, x) == lemma
    return {"dev_lemma": 100.0 * right / total} if total else {}


def _gold_ids(sentences: Sequence[Sentence], tagsets, rows: int) -> np.ndarray:
    """[3, rows] gold tag ids laid out as `Atoms.batch` (-1 on padding and unknown tags)."""
    gold = np.full((3, rows), -1, dtype=np.int64)
    ids = [{t: k for k, t in enumerate(tags)} for tags in tagsets]
    at = 0
    for s in sentences:
        for j, c in enumerate(TAG_COLUMNS):
            gold[j, at + PAD : at + PAD + s.n] = [ids[j].get(t, -1) for t in getattr(s, c)[1:]]
        at += s.n + 2 * PAD
    return gold
