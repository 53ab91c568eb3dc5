"""A tokenizer and sentence splitter trained from a UD treebank, in the spirit of UDPipe 1.

The treebank gives its raw text: the tokens with their ``SpaceAfter=No``,
sentences one after another, paragraphs (``# newpar``, ``# newdoc``)
separated by a blank line (`training_text`).  Every gap after a non-space
character is then one of three classes::

    none       the token goes on (``do|n't`` in ``don't`` is a token boundary,
               ``U.|S.`` is not)
    token      a token ends here
    sentence   a token and its sentence end here

Before a space only ``token`` and ``sentence`` are legal; a paragraph break
and the end of the text always end a sentence.  One averaged perceptron
(`arcwise.pipeline.classifier`) decides each gap from hashed features of a
character window: the lowercased characters around the gap, their classes
(upper, lower, digit, punctuation, ...), character bigrams and trigrams, the
whitespace-delimited chunk the gap is in (its part before and after the
gap, the whole chunk) and the next chunk -- what a gap before ``.`` needs to
tell ``Mr.`` from ``mat.``.  The decisions of this first pass are independent of
each other, so one compiled pass classifies a whole text.

The first pass also reads the shape of the chunk on each side of the gap
(`chunk_shapes`: ``01-Feb-02`` is ``d-Xx-d``) and the paragraph around the gap
(`paragraph_context`): the brackets open (the ``)`` of ``(§ 19 odst. 1)`` is a token of
its own), the next chunk with its case and how many chunks came since a sentence's
punctuation (a heading without a full stop ends before ``Flytta``).  A second, stacked pass
(`stacked_features`) decides every gap again, reading also the first pass's
decisions around it and the tokens they make (``vice-|president`` is an odd pair
of tokens, ``303-|832`` an odd split when ``832-8160`` is one token).  It is
trained on first-pass decisions it has not seen: those of first passes trained on
the rest of the training text (`jackknifed_first_pass`).  It decides where tokens
end; where both passes end one, whether a sentence ends too is the first pass's
call (the second's sentence ends were no better on dev).

URLs and e-mail addresses are kept whole (`arcwise.pipeline.web_addresses`) unless the
treebank splits them.

Multiword tokens come from the treebank's own range lines: a surface form
seen as a multiword token more often than not (``don't`` -> ``do n't``,
``del`` -> ``de el``) is split into its most frequent words, an unseen one by
the endings the treebank splits off (``Google's`` -> ``Google 's``, ``attivarci`` ->
``attivar ci``, ``sendo-se`` -> ``sendo se``; `MultiwordSplits`).
"""

from __future__ import annotations

import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from arcwise.core import arrays, interrupts
from arcwise.core.corpus import Sentence
from arcwise.core.errors import ArcwiseError
from arcwise.core.jit import njit
from arcwise.features.hashing import combine
from arcwise.io.conllu import MISC, Token
from arcwise.io.tokens import cut_paragraph, text_read
from arcwise.learn import perceptron as pc
from arcwise.pipeline import web_addresses
from arcwise.pipeline.classifier import arrays_of, new_perceptron, table_rows, weights_from

CLASSES = ("none", "token", "sentence")
NONE, TOKEN, SENTENCE = range(3)
SPACE, UPPER, LOWER, DIGIT, PUNCT, LETTER, OTHER = range(7)  # character classes
N_FEATURES = 28
N_SHAPE = 3  # the shape features after those
N_CONTEXT = 2  # the paragraph-context features after those
N_STACKED = 10  # the second pass's features after the first pass's N_FEATURES
STACKING_FOLDS = 5
SECOND_PASS = "second_pass_"  # the prefix of the second pass's arrays in a model file
MISSING = np.int64(-1)  # the character or class before the start, after the end
DEFAULT_BUCKETS = 2**21
MAX_CHARACTERS = 2**31 - 1
WHITESPACE_ONLY = ("the training treebank has a space after every token inside a sentence "
                   "(no SpaceAfter=No, no multiword token), so the tokenizer only splits text "
                   "at whitespace; sentences it learns to split")
# words: a sentence of raw text that has not ended by then is cut there (a run-on text would
# otherwise make one sentence that graph-based decoders, cubic in its length, cannot afford)
MAX_SENTENCE_WORDS = 1_000

# --- characters ------------------------------------------------------------------


def _class_of(char: str) -> int:
    if char.isspace():
        return SPACE
    if char.isupper():
        return UPPER
    if char.islower():
        return LOWER
    if char.isdigit():
        return DIGIT
    category = unicodedata.category(char)
    if category[0] == "P":
        return PUNCT
    return LETTER if category[0] in "LM" else OTHER


def encode_text(text: str) -> tuple[np.ndarray, np.ndarray]:
    """(lowercased code points int64, character classes int8) of every character."""
    if len(text) > MAX_CHARACTERS:
        raise ArcwiseError(f"text of {len(text):,} characters; at most {MAX_CHARACTERS:,}")
    points = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    unique, inverse = np.unique(points, return_inverse=True)
    lower = np.empty(len(unique), dtype=np.int64)
    kinds = np.empty(len(unique), dtype=np.int8)
    for k, point in enumerate(unique.tolist()):
        char = chr(point)
        low = char.lower()
        lower[k] = ord(low) if len(low) == 1 else point
        kinds[k] = _class_of(char)
    return lower[inverse], kinds[inverse]


# --- features --------------------------------------------------------------------


@njit(cache=True)
def chunk_hashes(chars, kinds):
    """Per position: the hash of its chunk (maximal run of non-space characters) up to and
    including it, of the rest of the chunk after it (0 at the chunk's end), of the whole
    chunk, and of the next chunk (0 if none); also the chunk's start and end (exclusive)."""
    n = chars.shape[0]
    prefix = arrays.zeros(n, dtype=np.uint64)
    suffix = arrays.zeros(n, dtype=np.uint64)
    whole = arrays.zeros(n, dtype=np.uint64)
    following = arrays.zeros(n, dtype=np.uint64)
    start = arrays.zeros(n, dtype=np.int64)
    end = arrays.zeros(n, dtype=np.int64)
    next_whole = np.uint64(0)
    i = n - 1
    while i >= 0:  # chunks from the last one back, so each knows the next one's hash
        if kinds[i] == SPACE:
            i -= 1
            continue
        b = i + 1
        a = i
        while a > 0 and kinds[a - 1] != SPACE:
            a -= 1
        h = np.uint64(1)
        for j in range(b - 1, a - 1, -1):
            suffix[j] = h if j < b - 1 else np.uint64(0)
            h = combine(h, chars[j])
        h = np.uint64(0)
        for j in range(a, b):
            h = combine(h, chars[j])
            prefix[j] = h
        for j in range(a, b):
            whole[j] = h
            following[j] = next_whole
            start[j] = a
            end[j] = b
        next_whole = h
        i = a - 1
    return prefix, suffix, whole, following, start, end


@njit(cache=True)
def _shape_code(char, kind):
    """A character's shape: its class for letters and digits, the character for others."""
    if kind == UPPER or kind == LOWER or kind == DIGIT or kind == LETTER:
        return np.int64(-1 - kind)
    return char


@njit(cache=True)
def _extend_shape(h, last, char, kind):
    """(the shape hash h extended by a character, its shape code): a letter or digit of the
    class of the `last` code adds nothing."""
    code = _shape_code(char, kind)
    return (combine(h, code) if code != last or code >= 0 else h), code


@njit(cache=True)
def chunk_shapes(chars, kinds):
    """Per position, row 0: the hash of the shape of its chunk up to and including it; row 1:
    of the rest of the chunk after it.  A shape writes a letter or digit as its class and
    a run of one class once (``01-Feb-02``: ``d-Xx-d``)."""
    n = chars.shape[0]
    shapes = arrays.zeros((2, n), dtype=np.uint64)
    h, last = np.uint64(0), np.int64(0)
    for i in range(n):
        if kinds[i] == SPACE:
            h, last = np.uint64(0), np.int64(0)
        else:
            h, last = _extend_shape(h, last, chars[i], kinds[i])
            shapes[0, i] = h
    h, last = np.uint64(1), np.int64(0)
    for i in range(n - 1, -1, -1):
        if kinds[i] == SPACE:
            h, last = np.uint64(1), np.int64(0)
        else:
            shapes[1, i] = h
            h, last = _extend_shape(h, last, chars[i], kinds[i])
    return shapes


@njit(cache=True)
def paragraph_context(chars, kinds):
    """Per position, row 0: how many round or square brackets are open after it in its
    paragraph (a blank line closes them), at most 3; row 1: how many chunks came since
    the last one ending in . ! ? : or ; (or the paragraph's start), at most 15."""
    n = chars.shape[0]
    context = arrays.zeros((2, n), dtype=np.int8)
    depth, blank, since = 0, False, 0
    for i in range(n):
        c = chars[i]
        if c == 40 or c == 91:  # ( [
            depth += 1
        elif (c == 41 or c == 93) and depth > 0:  # ) ]
            depth -= 1
        elif c == 10:  # a line break; a second one on a blank line ends the paragraph
            if blank:
                depth, since = 0, 0
            blank = True
        if kinds[i] != SPACE:
            blank = False
        context[0, i] = min(depth, 3)
        context[1, i] = min(since, 15)
        if kinds[i] != SPACE and (i + 1 == n or kinds[i + 1] == SPACE):  # a chunk ends
            since = 0 if c == 46 or c == 33 or c == 63 or c == 58 or c == 59 else since + 1
    return context


@njit(cache=True)
def _at(values, i, missing):
    return values[i] if 0 <= i < values.shape[0] else missing


@njit(cache=True)
def _next_chunk(i, kinds, end):
    """Where the chunk after position i's chunk starts (the text's length if none)."""
    j = end[i]
    while j < kinds.shape[0] and kinds[j] == SPACE:
        j += 1
    return j


@njit(cache=True)
def gap_features(i, chars, kinds, prefix, suffix, whole, following, start, end, out):
    """The hashed features of the gap after character i into out (`N_FEATURES` values)."""
    c0 = _at(chars, i, MISSING)
    c1 = _at(chars, i + 1, MISSING)
    cm1 = _at(chars, i - 1, MISSING)
    c2 = _at(chars, i + 2, MISSING)
    k = np.int64(0)  # the classes of the window i-3 .. i+4 as one number (base 8)
    for j in range(i - 3, i + 5):
        k = k * 8 + (_at(kinds, j, MISSING) + 1)
    k_near = np.int64(0)  # i-1 .. i+2
    for j in range(i - 1, i + 3):
        k_near = k_near * 8 + (_at(kinds, j, MISSING) + 1)
    e = end[i]
    j = _next_chunk(i, kinds, end)  # the next chunk's first character: class, character
    next_kind = _at(kinds, j, MISSING)
    next_char = _at(chars, j, MISSING)
    at_end = 1 if e == i + 1 else 0
    length = min(e - start[i], 12)
    out[0] = combine(0, 1)  # bias
    out[1] = combine(combine(0, 2), c0)
    out[2] = combine(combine(0, 3), c1)
    out[3] = combine(combine(0, 4), cm1)
    out[4] = combine(combine(0, 5), c2)
    out[5] = combine(combine(0, 6), _at(chars, i - 2, MISSING))
    out[6] = combine(combine(0, 7), _at(chars, i + 3, MISSING))
    out[7] = combine(combine(0, 8), k)
    out[8] = combine(combine(0, 9), k_near)
    out[9] = combine(combine(combine(0, 10), c0), c1)
    out[10] = combine(combine(combine(0, 11), cm1), c0)
    out[11] = combine(combine(combine(0, 12), c1), c2)
    out[12] = combine(combine(combine(combine(0, 13), cm1), c0), c1)
    out[13] = combine(combine(combine(combine(0, 14), c0), c1), c2)
    out[14] = combine(combine(0, 15), prefix[i])
    out[15] = combine(combine(0, 16), suffix[i])
    out[16] = combine(combine(combine(0, 17), prefix[i]), c1)
    out[17] = combine(combine(combine(0, 18), suffix[i]), c0)
    out[18] = combine(combine(combine(0, 19), whole[i]), i - start[i])
    out[19] = combine(combine(combine(0, 20), at_end), whole[i])
    out[20] = combine(combine(combine(combine(0, 21), at_end), c0), next_kind)
    out[21] = combine(combine(combine(combine(0, 22), at_end), whole[i]), next_kind)
    out[22] = combine(combine(combine(0, 23), at_end), following[i])
    out[23] = combine(combine(combine(combine(0, 24), at_end), c0), next_char)
    out[24] = combine(combine(combine(combine(0, 25), length), i - start[i]), k_near)
    out[25] = combine(combine(combine(0, 26), at_end),
                      _at(kinds, start[i], MISSING) * 16 + next_kind)
    out[26] = combine(combine(combine(combine(0, 27), c0), c1), e - i if e - i < 4 else 4)
    out[27] = combine(combine(combine(0, 28), cm1), suffix[i])


@njit(cache=True)
def first_pass_pieces(chars, kinds, first):
    """Per gap i, from the first pass's classes `first`: the hash of the first-pass token's
    characters up to i (left) and of the first-pass token's characters from i + 1 on
    (right: 0 if a space or the end follows i)."""
    n = chars.shape[0]
    left = arrays.zeros(n, dtype=np.uint64)
    right = arrays.zeros(n, dtype=np.uint64)
    h = np.uint64(0)
    for i in range(n):
        if kinds[i] == SPACE:
            h = np.uint64(0)
            continue
        h = combine(h, chars[i])
        left[i] = h
        if first[i] != NONE:
            h = np.uint64(0)
    h = np.uint64(1)
    for i in range(n - 1, -1, -1):
        if i + 1 < n and kinds[i + 1] != SPACE:
            if first[i + 1] != NONE:  # the token that starts at i + 1 ends at i + 1
                h = np.uint64(1)
            h = combine(h, chars[i + 1])
            right[i] = h
        else:
            h = np.uint64(1)
    return left, right


@njit(cache=True)
def stacked_features(i, chars, first, left, right, out):
    """The second pass's own features of gap i into out (`N_STACKED` values): the first
    pass's class of the gap and of its neighbours, and the first-pass tokens around it."""
    c0 = _at(chars, i, MISSING)
    c1 = _at(chars, i + 1, MISSING)
    f0 = np.int64(first[i])
    around = np.int64(0)  # the first pass's classes of gaps i-2 .. i+2, base 5
    for j in range(i - 2, i + 3):
        around = around * 5 + (_at(first, j, -2) + 2)
    near = np.int64(0)  # i-1 .. i+1
    for j in range(i - 1, i + 2):
        near = near * 5 + (_at(first, j, -2) + 2)
    out[0] = combine(combine(0, 41), f0)
    out[1] = combine(combine(combine(combine(0, 42), f0), c0), c1)
    out[2] = combine(combine(0, 43), around)
    out[3] = combine(combine(combine(combine(0, 44), near), c0), c1)
    out[4] = combine(combine(combine(0, 45), f0), left[i])
    out[5] = combine(combine(combine(0, 46), f0), right[i])
    out[6] = combine(combine(combine(0, 47), left[i]), right[i])
    out[7] = combine(combine(combine(combine(0, 48), f0), left[i]), c1)
    out[8] = combine(combine(combine(combine(0, 49), f0), right[i]), c0)
    out[9] = combine(combine(combine(0, 50), around), c0)


@njit(cache=True)
def shape_features(i, chars, shapes, out):
    """The shape features of gap i into out (`N_SHAPE` values): the chunk's shape split at
    the gap, each side with the character across the gap."""
    out[0] = combine(combine(combine(0, 31), shapes[0, i]), shapes[1, i])
    out[1] = combine(combine(combine(0, 32), shapes[0, i]), _at(chars, i + 1, MISSING))
    out[2] = combine(combine(combine(0, 33), shapes[1, i]), _at(chars, i, MISSING))


@njit(cache=True)
def context_features(i, chars, kinds, following, end, context, out):
    """The paragraph-context features of gap i into out (`N_CONTEXT` values).  Inside a
    chunk: the brackets open and the characters across the gap (``1)`` after ``(§ 19
    odst. 1`` is two tokens, ``a)`` heading a list item one).  At a chunk's end: the next
    chunk with its case (``Flytta`` starts a sentence, ``flytta`` does not), and how many
    chunks came since a sentence's punctuation (a heading is short)."""
    if end[i] == i + 1:
        next_kind = _at(kinds, _next_chunk(i, kinds, end), MISSING)
        out[0] = combine(combine(combine(0, 61), following[i]), next_kind)
        out[1] = combine(combine(combine(combine(0, 62), context[1, i]), next_kind), kinds[i])
        return
    c1 = _at(chars, i + 1, MISSING)
    depth = np.int64(context[0, i])
    out[0] = combine(combine(combine(combine(0, 63), depth), chars[i]), c1)
    out[1] = combine(combine(combine(0, 64), depth), c1)


@njit(cache=True)
def n_features(shapes, context, first):
    """How many features a gap has: the first pass's (with shapes when `shapes` is not
    empty, paragraph context when `context` is not), and the second pass's own when
    `first` is not empty."""
    return (N_FEATURES + (N_SHAPE if shapes.shape[1] > 0 else 0)
            + (N_CONTEXT if context.shape[1] > 0 else 0)
            + (N_STACKED if first.shape[0] > 0 else 0))


@njit(cache=True)
def features_of(i, chars, kinds, prefix, suffix, whole, following, start, end, shapes,
                context, first, left, right, out):
    """The features of gap i: the first pass's, its shape features when `shapes` is not
    empty, its paragraph-context features when `context` is not, then the second pass's
    own when `first` is not empty."""
    gap_features(i, chars, kinds, prefix, suffix, whole, following, start, end, out)
    at = N_FEATURES
    if shapes.shape[1] > 0:
        shape_features(i, chars, shapes, out[at:])
        at += N_SHAPE
    if context.shape[1] > 0:
        context_features(i, chars, kinds, following, end, context, out[at:])
        at += N_CONTEXT
    if first.shape[0] > 0:
        stacked_features(i, chars, first, left, right, out[at:])


@njit(cache=True)
def _legal(i, kinds, end, legal):
    """Before a space (or the end) a token ends: only token and sentence are legal."""
    legal[NONE] = end[i] != i + 1
    legal[TOKEN] = True
    legal[SENTENCE] = True


@njit(cache=True)
def train_epoch(order, labels, chars, kinds, prefix, suffix, whole, following, start, end,
                shapes, context, first, left, right, weights, totals, step):
    """One perceptron pass over the gaps in `order` (non-space positions); returns
    (steps after it, errors).  first, left, right: the first pass's classes and
    `first_pass_pieces` for the second pass, empty for the first."""
    features = arrays.zeros(n_features(shapes, context, first), dtype=np.uint64)
    no_label_features = arrays.zeros(0, dtype=np.uint64)
    legal = arrays.zeros(3, dtype=np.bool_)
    scores = arrays.zeros(3, dtype=np.float64)
    errors = 0
    for i in order:
        _legal(i, kinds, end, legal)
        gold = labels[i]
        if not legal[gold]:
            continue
        features_of(i, chars, kinds, prefix, suffix, whole, following, start, end,
                    shapes, context, first, left, right, features)
        predicted = pc.best_class(weights, features, no_label_features, legal, scores)
        if predicted != gold:
            errors += 1
            pc.update(weights, totals, features, no_label_features, gold, predicted, step)
        step += 1
    return step, errors


@njit(cache=True)
def classify(chars, kinds, prefix, suffix, whole, following, start, end, shapes,
             context, first, left, right, weights):
    """The class of every gap (-1 after a space); first, left, right as `train_epoch`'s."""
    n = chars.shape[0]
    out = arrays.full(n, -1, dtype=np.int8)
    features = arrays.zeros(n_features(shapes, context, first), dtype=np.uint64)
    no_label_features = arrays.zeros(0, dtype=np.uint64)
    legal = arrays.zeros(3, dtype=np.bool_)
    scores = arrays.zeros(3, dtype=np.float64)
    for i in range(n):
        if kinds[i] == SPACE:
            continue
        _legal(i, kinds, end, legal)
        features_of(i, chars, kinds, prefix, suffix, whole, following, start, end,
                    shapes, context, first, left, right, features)
        out[i] = pc.best_class(weights, features, no_label_features, legal, scores)
    return out


class EncodedText:
    """A text as the compiled functions read it."""

    def __init__(self, text: str, shapes: bool = True, context: bool = True):
        self.text = text
        self.chars, self.kinds = encode_text(text)
        (self.prefix, self.suffix, self.whole, self.following,
         self.start, self.end) = chunk_hashes(self.chars, self.kinds)
        self.shapes = chunk_shapes(self.chars, self.kinds) if shapes else _NO_SHAPES
        self.context = (paragraph_context(self.chars, self.kinds) if context
                        else _NO_CONTEXT)

    def arrays(self) -> tuple[np.ndarray, ...]:
        return (self.chars, self.kinds, self.prefix, self.suffix, self.whole, self.following,
                self.start, self.end, self.shapes, self.context)

    def first_pass(self) -> tuple[np.ndarray, ...]:
        """`arrays` and no first-pass classes: what the first pass reads."""
        return (*self.arrays(), _NO_CLASSES, _NO_HASHES, _NO_HASHES)

    def second_pass(self, first: np.ndarray) -> tuple[np.ndarray, ...]:
        """`arrays` and the first pass's classes with their pieces: what the second
        pass reads."""
        return (*self.arrays(), first, *first_pass_pieces(self.chars, self.kinds, first))


_NO_CLASSES = np.zeros(0, dtype=np.int8)
_NO_SHAPES = np.zeros((2, 0), dtype=np.uint64)
_NO_CONTEXT = np.zeros((2, 0), dtype=np.int8)
_NO_HASHES = np.zeros(0, dtype=np.uint64)


def train_pass(encoded: EncodedText, labels: np.ndarray, positions: np.ndarray,
               first: np.ndarray | None, dev: tuple[EncodedText, np.ndarray,
                                                    np.ndarray | None] | None,
               *, epochs: int, buckets: int, seed: int, progress=None
               ) -> tuple[pc.Weights, list[dict[str, Any]]]:
    """(averaged weights, per-epoch log) of one pass trained on the gaps at `positions`:
    the first pass when first is None, else the second, reading the first pass's
    classes `first`.  dev: (its text, gold classes, its first-pass classes); with dev,
    the epoch most accurate on it is kept, else the last."""
    features = n_features(encoded.shapes, encoded.context,
                          _NO_CLASSES if first is None else first)
    buckets = buckets or table_rows(DEFAULT_BUCKETS, len(positions), features)
    model = new_perceptron(CLASSES, buckets)
    arrays = encoded.first_pass() if first is None else encoded.second_pass(first)
    dev_arrays = None
    if dev is not None:
        dev_arrays = dev[0].first_pass() if dev[2] is None else dev[0].second_pass(dev[2])
    step, best, best_weights, log = 0, -1.0, None, []
    for epoch in range(epochs):
        order = np.random.default_rng([seed, epoch]).permutation(positions)
        with interrupts.deferred():
            step, errors = train_epoch(order, labels, *arrays, model.weights, model.totals,
                                       step)
        averaged = model.averaged(max(step, 1))
        entry = {"epoch": epoch + 1, "error_rate": errors / max(len(order), 1)}
        if dev_arrays is not None:
            got = classify(*dev_arrays, averaged)
            seen = dev[0].kinds != SPACE
            entry["dev_accuracy"] = float((got[seen] == dev[1][seen]).mean())
        log.append(entry)
        if progress is not None:
            progress(entry)
        score = entry.get("dev_accuracy", epoch)
        if score > best:
            best, best_weights = score, averaged
    return best_weights, log


def jackknifed_first_pass(encoded: EncodedText, labels: np.ndarray, folds: int,
                          whole: pc.Weights, *, epochs: int, buckets: int,
                          seed: int) -> np.ndarray:
    """The first pass's classes of every gap of a training text, each decided by a first
    pass trained without it: the text is cut into `folds` parts at sentence ends, and each
    part is classified by a first pass trained on the others.  A text too short to cut
    is classified by `whole`, the first pass trained on all of it."""
    positions = np.flatnonzero(encoded.kinds != SPACE)
    sentence_ends = np.flatnonzero(labels == SENTENCE)
    cuts = [0]
    for k in range(1, folds):
        at = np.searchsorted(sentence_ends, k * len(labels) // folds)
        if at < len(sentence_ends) and sentence_ends[at] + 1 > cuts[-1]:
            cuts.append(int(sentence_ends[at]) + 1)
    cuts.append(len(labels))
    if len(cuts) == 2:
        with interrupts.deferred():
            return classify(*encoded.first_pass(), whole)
    first = np.full(len(labels), -1, dtype=np.int8)
    for a, b in zip(cuts, cuts[1:]):
        held_out = (positions >= a) & (positions < b)
        if not held_out.any():  # the spaces after the last sentence
            continue
        weights, _ = train_pass(encoded, labels, positions[~held_out], None, None,
                                epochs=epochs, buckets=buckets, seed=seed)
        with interrupts.deferred():
            got = classify(*encoded.first_pass(), weights)
        first[a:b] = got[a:b]
    return first


# --- the treebank's text ---------------------------------------------------------


def sentence_tokens(sentence: Sentence) -> list[Token]:
    """The tokens of a sentence read from CoNLL-U: (surface, words, space after), a
    multiword range giving one token of several words (empty nodes are no tokens)."""
    if not sentence.lines:  # built in code: one token per word
        return [(w, (w,), True) for w in sentence.form[1:]]
    tokens: list[Token] = []
    inside = 0  # the last word of the multiword token being read
    for line in sentence.lines:
        if line[:1] == "#":
            continue
        columns = line.split("\t")
        id_ = columns[0]
        space = "SpaceAfter=No" not in columns[MISC].split("|")
        if "-" in id_:
            a, inside = map(int, id_.split("-"))
            tokens.append((columns[1], tuple(sentence.form[a : inside + 1]), space))
        elif "." not in id_ and int(id_) > inside:
            tokens.append((columns[1], (columns[1],), space))
    return tokens


def starts_paragraph(sentence: Sentence) -> bool:
    return any(line.startswith(("# newpar", "# newdoc")) for line in sentence.lines
               if line[:1] == "#")


def training_text(sentences: Iterable[Sentence]) -> tuple[str, np.ndarray, list[list[Token]]]:
    """(the raw text of a treebank, the gold class after each character, the tokens of
    each sentence).  Tokens are joined as ``SpaceAfter`` says, sentences too,
    paragraphs by a blank line; a character that is not the last of a token has class
    none (also spaces, which are never classified)."""
    pieces: list[str] = []
    labels: list[int] = []
    tokenized = []
    for sentence in sentences:
        tokens = sentence_tokens(sentence)
        if not tokens:
            continue
        tokenized.append(tokens)
        if pieces and starts_paragraph(sentence):
            if pieces[-1] == " ":
                pieces.pop()
                labels.pop()
            pieces.append("\n\n")
            labels.extend((NONE, NONE))
        for k, (surface, _, space) in enumerate(tokens):
            pieces.append(surface)
            labels.extend([NONE] * (len(surface) - 1))
            labels.append(SENTENCE if k == len(tokens) - 1 else TOKEN)
            if space:
                pieces.append(" ")
                labels.append(NONE)
    return "".join(pieces), np.array(labels, dtype=np.int8), tokenized


# --- multiword tokens ------------------------------------------------------------


class MultiwordSplits:
    """Surface forms the treebank splits into several words, and their words.

    A lowercased surface is split when the treebank has it as a multiword token
    more often than as a plain token; it gets its most frequent words (ties: the
    first seen).  Case follows the surface: the words' own slices of it when they
    spell it out (``Don't`` -> ``Do n't``), else the first word capitalized like it.

    A surface never seen is split by a *suffix rule*, learnt from the treebank's
    multiword tokens that begin with their first word: what follows that word is split
    off into the other words (``Google's`` -> ``Google 's``, ``sendo-se`` -> ``sendo se``),
    recognized by an *ending*: the part split off with up to `CONTEXT` letters of the
    first word before it (``attivarci`` -> ``attivar ci`` by ``ci``, ``rci`` or ``arci``).
    An ending is a rule when more of the training tokens ending with it are split that
    way than not, and at least three different forms are (one form is a fact about it,
    not a rule).  The longest rule that leaves a first word with a letter or digit
    applies; forms seen whole more often than split stay whole (`whole`).
    """

    MIN_SUFFIX_FORMS = 3
    CONTEXT = 3

    def __init__(self, splits: dict[str, tuple[str, ...]] | None = None,
                 suffixes: dict[str, tuple[int, tuple[str, ...]]] | None = None,
                 whole: Iterable[str] = ()):
        self.splits = dict(splits or {})
        # lowercased ending -> (how many of its last characters are split off, their words)
        self.suffixes = dict(suffixes or {})
        self.whole = frozenset(whole)  # lowercased forms a suffix rule must not split
        self.suffix_lengths = sorted({len(x) for x in self.suffixes}, reverse=True)
        self._any_suffix = tuple(self.suffixes)  # for one str.endswith before the rules

    @classmethod
    def learn(cls, tokenized: Iterable[Sequence[Token]]) -> MultiwordSplits:
        as_words: dict[str, Counter] = defaultdict(Counter)
        plain: Counter = Counter()
        for tokens in tokenized:
            for surface, words, _ in tokens:
                lower = surface.lower()
                if len(words) > 1:
                    as_words[lower][tuple(w.lower() for w in words)] += 1
                else:
                    plain[lower] += 1
        splits = {}
        for surface, counts in as_words.items():
            if sum(counts.values()) > plain[surface]:
                splits[surface] = counts.most_common(1)[0][0]
        # candidate rules: the endings of the multiword tokens that begin with their first
        # word, then how many tokens ending so split that way and how many do not
        endings: dict[str, Counter] = defaultdict(Counter)
        for surface, counts in as_words.items():
            for words, n in counts.items():
                first = words[0]
                if first and surface.startswith(first) and len(surface) > len(first):
                    for k in range(min(cls.CONTEXT, len(first) - 1) + 1):
                        ending = surface[len(first) - k:]
                        endings[ending][len(surface) - len(first), words[1:]] += n
        candidates = {ending: counts.most_common(1)[0][0] for ending, counts in endings.items()}
        split_by = Counter()  # tokens
        split_forms = Counter()
        other = Counter()
        lengths = sorted({len(x) for x in candidates}, reverse=True)
        for surface in plain.keys() | as_words.keys():
            split = as_words.get(surface, Counter())
            tokens = plain[surface] + sum(split.values())
            for n in lengths:
                ending = surface[-n:]
                if ending not in candidates or not _leaves_a_word(surface, n, candidates):
                    continue
                cut, words = candidates[ending]
                right = split[(surface[:-cut], *words)]
                split_by[ending] += right
                split_forms[ending] += right > 0
                other[ending] += tokens - right
        kept = {ending: rule for ending, rule in candidates.items()
                if split_forms[ending] >= cls.MIN_SUFFIX_FORMS
                and split_by[ending] > other[ending]}
        # an ending whose shorter ending is a rule too, splitting the same, adds nothing
        kept = {ending: rule for ending, rule in kept.items()
                if ending[1:] not in kept or kept[ending[1:]] != rule}
        rules = cls(splits, kept)
        whole = [surface for surface in plain
                 if surface not in splits and rules._suffix_rule(surface) is not None]
        return cls(splits, kept, whole)

    def _suffix_rule(self, lower: str) -> tuple[int, tuple[str, ...]] | None:
        """The rule of the longest ending of `lower` that leaves a first word; None if none."""
        if not lower.endswith(self._any_suffix):
            return None
        for n in self.suffix_lengths:
            if lower[-n:] in self.suffixes and _leaves_a_word(lower, n, self.suffixes):
                return self.suffixes[lower[-n:]]
        return None

    def words(self, surface: str) -> tuple[str, ...]:
        """The words of a token (itself alone if it is not split)."""
        lower = surface.lower()
        split = self.splits.get(lower)
        if split is None:
            if lower in self.whole or len(lower) != len(surface):
                return (surface,)
            rule = self._suffix_rule(lower)
            if rule is None:
                return (surface,)
            cut, rest = rule
            spelled = "".join(rest)
            if lower[-cut:].endswith(spelled):  # the words in the surface's own case
                rest = _slices(surface, rest, len(surface) - len(spelled))
            return (surface[:-cut], *rest)
        if "".join(split) == lower:
            return _slices(surface, split, 0)
        first = split[0]
        if surface[:1].isupper():
            first = first[:1].upper() + first[1:]
        return (first, *split[1:])

    def to_json(self) -> dict[str, Any]:
        return {"forms": {surface: list(words) for surface, words in sorted(self.splits.items())},
                "suffixes": {ending: {"split_off": cut, "words": list(words)}
                             for ending, (cut, words) in sorted(self.suffixes.items())},
                "whole": sorted(self.whole)}

    @classmethod
    def from_json(cls, data: Any, source: str) -> MultiwordSplits:
        def is_words(w: Any, least: int) -> bool:
            return isinstance(w, list) and len(w) >= least and all(
                isinstance(x, str) and x and x.strip() == x and "\t" not in x
                and "\n" not in x for x in w)

        def rule(ending: Any, value: Any) -> tuple[int, tuple[str, ...]] | None:
            if isinstance(value, list):  # a file of before the endings: the whole ending
                value = {"split_off": len(ending), "words": value}
            if not (isinstance(ending, str) and ending and isinstance(value, dict)
                    and is_words(value.get("words"), 1)):
                return None
            cut = value.get("split_off")
            if type(cut) is not int or not 0 < cut <= len(ending):
                return None
            return cut, tuple(value["words"])

        if isinstance(data, dict) and isinstance(data.get("forms"), dict):
            forms, suffixes, whole = data["forms"], data.get("suffixes"), data.get("whole")
        else:  # a file of before the suffix rules: the forms alone
            forms, suffixes, whole = data, {}, []
        rules = {ending: rule(ending, value) for ending, value in suffixes.items()} \
            if isinstance(suffixes, dict) else None
        if not (isinstance(forms, dict) and all(isinstance(s, str) and s and is_words(w, 2)
                                                for s, w in forms.items())
                and rules is not None and None not in rules.values()
                and isinstance(whole, list) and all(isinstance(w, str) and w for w in whole)):
            raise ArcwiseError(f"{source}: corrupt model file (bad multiword splits)")
        return cls({s: tuple(w) for s, w in forms.items()}, rules, whole)


def _slices(surface: str, words: Sequence[str], start: int) -> tuple[str, ...]:
    """The pieces of `surface` from `start` on as long as `words` (their case the surface's)."""
    out = []
    for word in words:
        out.append(surface[start : start + len(word)])
        start += len(word)
    return tuple(out)


def _leaves_a_word(lower: str, n: int, rules: dict[str, tuple[int, Any]]) -> bool:
    """Whether the ending of length n of `lower` leaves something before it and a first
    word with a letter or digit (rules: ending -> (characters split off, ...))."""
    return len(lower) > n and any(c.isalnum() for c in lower[: -rules[lower[-n:]][0]])


# --- the tokenizer ---------------------------------------------------------------


class Tokenizer:
    """Raw text -> sentences of tokens (see the module docstring).

    >>> tokenizer = Tokenizer.train(treebank_sentences)
    >>> for tokens in tokenizer.tokenize("Hello world. Bye."): ...
    """

    def __init__(self, weights: pc.Weights, multiwords: MultiwordSplits,
                 hyperparameters: dict[str, Any] | None = None,
                 scores: dict[str, Any] | None = None, *, whole_addresses: bool = False,
                 second: pc.Weights | None = None, shapes: bool = False,
                 context: bool = False):
        self.weights = weights  # the first pass
        self.shapes = shapes  # whether the first pass reads the chunks' shapes
        self.context = context  # whether it reads the paragraph around a gap
        self.second = second  # the stacked second pass, if any
        self.multiwords = multiwords
        self.whole_addresses = whole_addresses  # URLs and e-mail addresses: one token each
        self.hyperparameters = dict(hyperparameters or {})
        self.scores = dict(scores or {})

    def __repr__(self) -> str:
        return (f"Tokenizer({'two passes' if self.second is not None else 'one pass'}, "
                f"{len(self.multiwords.splits)} multiword forms, "
                f"{len(self.multiwords.suffixes)} suffix rules)")

    @classmethod
    def train(cls, sentences: Iterable[Sentence], dev: Iterable[Sentence] | None = None, *,
              epochs: int = 12, buckets: int | None = None, seed: int = 0,
              shapes: bool = True, context: bool = True, stacked: bool = True,
              folds: int = STACKING_FOLDS, progress=None) -> Tokenizer:
        """Train on a treebank's text (`training_text`); with dev, keep the epoch whose
        gap classes are most accurate on dev's text.  buckets: table rows (default
        `DEFAULT_BUCKETS`, fewer for little data: `classifier.table_rows`).  stacked: also
        train the second pass, on `folds`-fold jackknifed first-pass classes.
        progress(entry) after each epoch."""
        text, labels, tokenized = training_text(sentences)
        if not tokenized:
            raise ArcwiseError("no training sentences: the training file is empty")
        encoded = EncodedText(text, shapes, context)
        positions = np.flatnonzero(encoded.kinds != SPACE)
        dev_data = None
        if dev is not None:
            dev_text, dev_labels, _ = training_text(dev)
            if dev_text:
                dev_data = EncodedText(dev_text, shapes, context), dev_labels
        options = {"epochs": epochs, "buckets": buckets or 0, "seed": seed}
        first_progress = None if progress is None else (
            lambda entry: progress({"pass": 1, **entry}))
        weights, log = train_pass(encoded, labels, positions, None,
                                  None if dev_data is None else (*dev_data, None),
                                  progress=first_progress, **options)
        scores: dict[str, Any] = {"epochs": log}
        if all(space and len(words) == 1 for tokens in tokenized
               for _, words, space in tokens[:-1]):
            scores["whitespace_only"] = True  # see `WHITESPACE_ONLY`
        second = None
        if stacked:
            first = jackknifed_first_pass(encoded, labels, folds, weights, **options)
            dev_second = None
            if dev_data is not None:
                with interrupts.deferred():
                    dev_first = classify(*dev_data[0].first_pass(), weights)
                dev_second = (*dev_data, dev_first)
            second_progress = None if progress is None else (
                lambda entry: progress({"pass": 2, **entry}))
            second, scores["second_pass_epochs"] = train_pass(
                encoded, labels, positions, first, dev_second, progress=second_progress,
                **options)
        hyperparameters = {"epochs": epochs, "buckets": buckets or weights.transition.shape[0],
                           "seed": seed, "shapes": shapes, "context": context,
                           "stacked": stacked,
                           **({"folds": folds} if stacked else {})}
        return cls(weights, MultiwordSplits.learn(tokenized), hyperparameters, scores,
                   whole_addresses=web_addresses.kept_whole(text, labels != NONE),
                   second=second, shapes=shapes, context=context)

    def gap_classes(self, encoded: EncodedText) -> np.ndarray:
        """The class of every gap of a text (-1 after a space), by both passes."""
        with interrupts.deferred():
            gaps = classify(*encoded.first_pass(), self.weights)
            if self.second is not None:
                first = gaps
                gaps = classify(*encoded.second_pass(first), self.second)
                ends = (gaps != NONE) & (first != NONE)
                gaps[ends] = first[ends]  # where both end a token, the first says how
        return gaps

    def tokenize(self, text: str, presegmented: bool = False) -> list[list[Token]]:
        """The sentences of `text`, each a list of tokens (surface, words, space after).

        A blank line (a paragraph break) always ends a sentence; any other run of
        whitespace, line breaks included, is a space, except where a paragraph without
        blank lines is cut at a line end every `MAX_PARAGRAPH` characters
        (`arcwise.io.tokens.cut_paragraph`), which ends a sentence too.  presegmented: every
        line that is not blank is one sentence (UDPipe 1's ``presegmented``), only split
        into tokens.  Otherwise a sentence that has not ended after `MAX_SENTENCE_WORDS`
        words is cut there.  The text is read in Unicode NFC, a byte-order mark starting it
        dropped (`arcwise.io.tokens.text_read`).
        """
        text = text_read(text)
        if presegmented:
            return [[token for tokens in self._tokenize_paragraph(line) for token in tokens]
                    for line in text.splitlines() if line.strip()]
        sentences: list[list[Token]] = []
        for paragraph in _paragraphs(text):
            sentences.extend(self._tokenize_paragraph(paragraph))
        return sentences

    def _tokenize_paragraph(self, text: str) -> list[list[Token]]:
        text = text.strip() + " "  # as in training, where a space or a blank line follows
        encoded = EncodedText(text, self.shapes, self.context)
        gaps = self.gap_classes(encoded)
        if self.whole_addresses:
            for start, end in web_addresses.spans(text):
                gaps[start : end - 1] = NONE
                gaps[end - 1] = max(gaps[end - 1], TOKEN)
                if start and gaps[start - 1] == NONE:
                    gaps[start - 1] = TOKEN
        kinds = encoded.kinds
        n = len(text)
        word = kinds != SPACE
        # a token ends at a non-space character whose gap is not "none" (or at the end); it
        # starts at the first non-space character after the previous token's end
        ends = np.flatnonzero(word & ((gaps != NONE) | (np.arange(n) == n - 1)))
        next_word = np.full(n + 1, n, dtype=np.int64)
        next_word[:n][word] = np.flatnonzero(word)
        next_word = np.minimum.accumulate(next_word[::-1])[::-1]
        starts = next_word[np.concatenate([[0], ends[:-1] + 1])] if len(ends) else ends
        spaces = np.append(~word[1:], False)[ends]
        sentence_ends = (gaps[ends] == SENTENCE).tolist()
        sentences, tokens, words = [], [], 0
        for a, b, space, last in zip(starts.tolist(), ends.tolist(), spaces.tolist(),
                                     sentence_ends):
            surface = text[a : b + 1]
            token = (surface, self.multiwords.words(surface), space)
            if tokens and words + len(token[1]) > MAX_SENTENCE_WORDS:  # a run-on: cut it
                sentences.append(tokens)
                tokens, words = [], 0
            tokens.append(token)
            words += len(token[1])
            if last:
                sentences.append(tokens)
                tokens, words = [], 0
        if tokens:
            sentences.append(tokens)
        return sentences

    # --- model files ---------------------------------------------------------------

    def saved(self, prefix: str = "") -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """(arrays, metadata) of this tokenizer in a model file; array names prefixed."""
        meta = {"kind": "tokenizer", "classes": list(CLASSES),
                "multiwords": self.multiwords.to_json(),
                "whole_addresses": self.whole_addresses,
                "hyperparameters": self.hyperparameters, "scores": self.scores,
                "shapes": self.shapes, "context": self.context,
                "second_pass": self.second is not None}
        arrays = arrays_of(self.weights, prefix)
        if self.second is not None:
            arrays.update(arrays_of(self.second, prefix + SECOND_PASS))
        return arrays, meta

    @classmethod
    def from_saved(cls, arrays, meta: dict[str, Any], source: str, prefix: str = "") -> Tokenizer:
        if not isinstance(meta, dict) or meta.get("kind") != "tokenizer" \
                or meta.get("classes") != list(CLASSES):
            raise ArcwiseError(f"{source}: corrupt model file (bad tokenizer metadata)")
        # absent: a file of before shapes, context and the second pass
        second_pass, shapes = meta.get("second_pass", False), meta.get("shapes", False)
        context = meta.get("context", False)
        if not all(isinstance(flag, bool) for flag in (second_pass, shapes, context)):
            raise ArcwiseError(f"{source}: corrupt model file (bad tokenizer metadata)")
        second = None
        if second_pass:
            second = weights_from(arrays, CLASSES, source, prefix + SECOND_PASS)
            arrays = {name: a for name, a in arrays.items()
                      if not name.startswith(prefix + SECOND_PASS)}
        weights = weights_from(arrays, CLASSES, source, prefix)
        multiwords = MultiwordSplits.from_json(meta.get("multiwords"), source)
        whole_addresses = meta.get("whole_addresses", False)  # absent: an older file
        if not isinstance(whole_addresses, bool):
            raise ArcwiseError(f"{source}: corrupt model file (bad tokenizer metadata)")
        return cls(weights, multiwords, meta.get("hyperparameters"), meta.get("scores"),
                   whole_addresses=whole_addresses, second=second, shapes=shapes,
                   context=context)


def _paragraphs(text: str) -> Iterator[str]:
    """The paragraphs of a text: the parts between blank lines, with something in them."""
    import re

    for paragraph in re.split(r"\n[ \t\r\f\v]*\n", text.replace("\r\n", "\n")):
        if paragraph.strip():
            yield from cut_paragraph(paragraph)
