"""Vocabularies: the strings of each column as int ids, and sentences as id arrays.

Ids are deterministic: 0 is the unknown value, 1 the root (the string
`corpus.ROOT` at index 0 of every column), then each new string gets the next
id in order of first appearance.  A growing vocabulary adds the strings it
encodes; a frozen one maps strings it has not seen to 0, except that a frozen
column whose only value is ``_`` (a model trained without tags) reads every
value as ``_``: the model never learned the column, so tagged input must not
look unknown to it.  Vocabularies are saved as plain JSON-able dicts (for model
files: no pickle).

Besides the input columns, three columns are derived from the form for rare
and unknown words (`form_signature`): the lowercased form, its suffix and its
shape.  Their vocabularies are built with the others.
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain, repeat
from typing import NamedTuple

import numpy as np

from arcwise.core.corpus import ROOT, Sentence

UNKNOWN = 0
ROOT_ID = 1
RESERVED = ("<unknown>", ROOT)  # the strings shown for ids 0 and 1
BLANK = "_"  # CoNLL-U's empty value

COLUMNS = ("form", "lemma", "upos", "xpos", "feats", "deprel")
DERIVED = ("lower", "suffix", "shape")  # from the form: `form_signature`
SUFFIX_LENGTH = 3
_columns_of = operator.attrgetter(*COLUMNS)

_SHAPE_CLASS = {}  # one character -> X (upper case), x (lower case), d (digit) or itself


def _shape_class(char: str) -> str:
    shape = _SHAPE_CLASS.get(char)
    if shape is None:
        shape = "X" if char.isupper() else "x" if char.islower() else "d" if char.isdigit() else char
        _SHAPE_CLASS[char] = shape
    return shape


def form_signature(form: str) -> tuple[str, str, str]:
    """The derived columns of a form: lowercased, its last `SUFFIX_LENGTH` characters
    lowercased, and its shape (X upper case, x lower case, d digit, other characters
    kept; a run of one class written once): "McDonald's" -> ("mcdonald's", "d's", "XxXx'x")."""
    lower = form.lower()
    shape = []
    for char in form:
        c = _shape_class(char)
        if not shape or shape[-1] != c:
            shape.append(c)
    return lower, lower[-SUFFIX_LENGTH:], "".join(shape)


class _GrowingIds(dict):
    """str -> id that gives a missing string the next id (a growing vocabulary)."""

    __slots__ = ("strings",)

    def __missing__(self, string: str) -> int:
        self[string] = id_ = len(self.strings)
        self.strings.append(string)
        return id_


class Vocabulary:
    """The strings of one column and their ids (see the module docstring)."""

    def __init__(self, strings: Iterable[str] = (), *, frozen: bool = False):
        self._ids = _GrowingIds({ROOT: ROOT_ID})
        self._ids.strings = list(RESERVED)
        self.frozen = False
        for string in strings:
            self._ids[string]
        if frozen:
            self.freeze()

    def __len__(self) -> int:
        """Number of ids, the two reserved ones included."""
        return len(self._ids.strings)

    def __contains__(self, string: str) -> bool:
        return string in self._ids

    def __iter__(self) -> Iterator[str]:
        """The strings in id order, from id 2 (after the reserved ones)."""
        return iter(self._ids.strings[len(RESERVED) :])

    def id(self, string: str) -> int:
        """The id of `string`: added if new and not frozen, else `UNKNOWN` (see `freeze`)."""
        return next(self._lookup((string,)))

    def string(self, id_: int) -> str:
        """The string of an id (the reserved ids give `RESERVED`)."""
        return self._ids.strings[id_]

    def freeze(self) -> Vocabulary:
        """Stop adding strings: unknown strings map to `UNKNOWN` from now on (every
        string to ``_``'s id if ``_`` is the only one: a column never learned)."""
        self.frozen = True
        self._blank_only = self._ids.strings[len(RESERVED):] == [BLANK]
        return self

    def encode(self, column: Sequence[str]) -> np.ndarray:
        """The int32 ids of a column of n + 1 strings (ROOT at index 0 gives `ROOT_ID`)."""
        return np.fromiter(self._lookup(column), np.int32, len(column))

    def _lookup(self, strings: Iterable[str]) -> Iterator[int]:
        if self.frozen:
            if self._blank_only:
                blank = self._ids[BLANK]
                return (ROOT_ID if string == ROOT else blank for string in strings)
            return map(self._ids.get, strings, repeat(UNKNOWN))
        return map(self._ids.__getitem__, strings)

    def to_dict(self) -> dict:
        """A JSON-able dict; `from_dict` restores the same ids."""
        return {"strings": list(self), "frozen": self.frozen}

    @classmethod
    def from_dict(cls, data: dict) -> Vocabulary:
        strings = data["strings"]
        if len(set(strings)) != len(strings) or ROOT in strings:
            raise ValueError(
                "vocabulary strings must be distinct and must not contain the root string"
            )
        return cls(strings, frozen=bool(data["frozen"]))


class EncodedSentence(NamedTuple):
    """A sentence's columns as int32 id arrays of n + 1 entries (index 0: the root)."""

    form: np.ndarray
    lemma: np.ndarray
    upos: np.ndarray
    xpos: np.ndarray
    feats: np.ndarray
    deprel: np.ndarray
    head: np.ndarray  # the Sentence's own head array (not copied)
    lower: np.ndarray  # the derived columns (`form_signature`)
    suffix: np.ndarray
    shape: np.ndarray


MAX_DERIVED = 2**20  # forms whose derived ids `Vocabularies` keeps, then forgets


class Vocabularies:
    """One `Vocabulary` per column of `COLUMNS` (form, lemma, upos, xpos, feats, deprel)
    and of `DERIVED` (lower, suffix, shape)."""

    form: Vocabulary
    lemma: Vocabulary
    upos: Vocabulary
    xpos: Vocabulary
    feats: Vocabulary
    deprel: Vocabulary
    lower: Vocabulary
    suffix: Vocabulary
    shape: Vocabulary

    def __init__(self, **vocabularies: Vocabulary):
        unknown = set(vocabularies) - set(COLUMNS + DERIVED)
        if unknown:
            raise ValueError(f"no such column: {', '.join(sorted(unknown))}")
        for column in COLUMNS + DERIVED:
            setattr(self, column, vocabularies.get(column) or Vocabulary())
        self._vocabularies = tuple(getattr(self, column) for column in COLUMNS)
        self._derived: dict[str, tuple[int, int, int]] = {ROOT: (ROOT_ID,) * len(DERIVED)}

    @classmethod
    def build(cls, sentences: Iterable[Sentence]) -> Vocabularies:
        """The frozen vocabularies of every string in `sentences`."""
        vocabularies = cls()
        for sentence in sentences:
            vocabularies.encode(sentence)
        return vocabularies.freeze()

    def freeze(self) -> Vocabularies:
        for column in COLUMNS + DERIVED:
            getattr(self, column).freeze()
        return self

    def _derived_ids(self, form: str) -> tuple[int, int, int]:
        """The ids of a form's derived strings (cached: an id never changes once given)."""
        ids = self._derived.get(form)
        if ids is None:
            if len(self._derived) > MAX_DERIVED:  # a long-running server meets new forms forever
                self._derived = {ROOT: (ROOT_ID,) * len(DERIVED)}
            lower, suffix, shape = form_signature(form)
            ids = self._derived[form] = (
                self.lower.id(lower), self.suffix.id(suffix), self.shape.id(shape)
            )
        return ids

    def encode(self, sentence: Sentence) -> EncodedSentence:
        """The id arrays of a sentence (growing vocabularies add its new strings).

        The six input columns are the rows of one (6, n + 1) array, filled in one
        pass; the derived ones the columns of one (n + 1, 3) array.
        """
        columns = _columns_of(sentence)
        size = len(columns[0])
        if len(set(map(len, columns))) != 1:
            raise ValueError("the columns of the sentence differ in length")
        lookups = map(Vocabulary._lookup, self._vocabularies, columns)
        ids = np.fromiter(chain.from_iterable(lookups), np.int32, len(COLUMNS) * size)
        derived = map(self._derived_ids, columns[0])
        signature = np.fromiter(chain.from_iterable(derived), np.int32, len(DERIVED) * size)
        return EncodedSentence(
            *ids.reshape(len(COLUMNS), size), sentence.head, *signature.reshape(size, 3).T
        )

    def with_lower(self, strings: Iterable[str]) -> Vocabularies:
        """New frozen vocabularies: these, with `strings` (those it lacks) appended to the
        lowercased forms' (the ids it has stay): the words that pretrained vectors add
        (`arcwise.learn.embeddings.with_pretrained`).  The other columns are shared."""
        lower = Vocabulary([*self.lower, *(s for s in strings if s not in self.lower)],
                           frozen=True)
        others = {column: getattr(self, column) for column in COLUMNS + DERIVED}
        return Vocabularies(**{**others, "lower": lower}).freeze()

    def to_dict(self) -> dict:
        """A JSON-able dict: ``{column: Vocabulary.to_dict()}``."""
        return {column: getattr(self, column).to_dict() for column in COLUMNS + DERIVED}

    @classmethod
    def from_dict(cls, data: dict) -> Vocabularies:
        """Restore `to_dict`'s vocabularies (a model without the derived ones gets empty ones)."""
        empty = {"strings": [], "frozen": True}
        return cls(**{column: Vocabulary.from_dict(data[column]) for column in COLUMNS},
                   **{column: Vocabulary.from_dict(data.get(column, empty)) for column in DERIVED})


TAG_COLUMNS = ("upos", "xpos", "feats")


def tag_columns(vocabularies: Vocabularies) -> tuple[str, ...]:
    """The tag columns a model learned from: those whose vocabulary holds a value besides ``_``."""
    return tuple(c for c in TAG_COLUMNS if any(s != BLANK for s in getattr(vocabularies, c)))


def untagged(sentences: Sequence[Sentence], columns: Sequence[str] = TAG_COLUMNS) -> bool:
    """Whether the sentences have words and every word has ``_`` in every one of `columns`."""
    if not columns or not any(s.n for s in sentences):
        return False
    return all(value == BLANK for s in sentences for c in columns
               for value in getattr(s, c)[1:])


class UnseenTagsWarning(UserWarning):
    """Many of the input's tags were never seen in training (a foreign tag set, say PTB
    tags in the UPOS column): the parser will do badly.  ``warnings.simplefilter("error",
    UnseenTagsWarning)`` refuses such input instead (`arcwise parse --unseen-tags refuse`)."""


# more than this share of the tagged words with a tag never seen: warn.  UPOS has 17 tags,
# all in any treebank of size; an XPOS tag set can be large, with a long tail of rare tags
UNSEEN_SHARE = {"upos": 0.05, "xpos": 0.2}
UNSEEN_JUDGED = 1000  # words enough to judge a model's input by


def unseen_tags(sentences: Sequence[Sentence], vocabularies: Vocabularies,
                columns: Sequence[str] = ("upos", "xpos")) -> str | None:
    """What to say when more than `UNSEEN_SHARE` of the tagged words of a column the model
    learned have a tag its vocabulary never saw, naming a few of them; else None."""
    for column in columns:
        known = getattr(vocabularies, column)
        if column not in UNSEEN_SHARE or not any(v != BLANK for v in known):
            continue
        values = [v for s in sentences for v in getattr(s, column)[1:] if v != BLANK]
        unseen = [v for v in values if v not in known]
        if values and len(unseen) > UNSEEN_SHARE[column] * len(values):
            names = list(dict.fromkeys(unseen))
            shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5
                                            else "")
            return (f"{len(unseen) / len(values):.0%} of the input's {column.upper()} values "
                    f"were never seen in training ({shown}): another tag set? The trees "
                    "will be poor; tag the input as the training data was, or let the "
                    "model's tagger retag it")
    return None


def warn_unseen_tags(sentences: Sequence[Sentence], vocabularies: Vocabularies,
                     columns: Sequence[str] | None = None) -> None:
    """An `UnseenTagsWarning` (`unseen_tags`) at most once per model's vocabularies, judged
    on the first input of at least `UNSEEN_JUDGED` words (or on every smaller one until
    then), so that parsing a large file pays for it once."""
    if getattr(vocabularies, "_unseen_judged", False):
        return
    message = unseen_tags(sentences, vocabularies,
                          tag_columns(vocabularies) if columns is None else columns)
    if message is not None or sum(s.n for s in sentences) >= UNSEEN_JUDGED:
        vocabularies._unseen_judged = True
    if message is not None:
        warnings.warn(UnseenTagsWarning(message), stacklevel=3)


def check_tagged(sentences: Sequence[Sentence], vocabularies: Vocabularies) -> None:
    """ArcwiseError when a model trained with tags is given a sentence whose words have
    none (`untagged`), naming its file and line: a parser reading ``_`` where it learned
    tags builds garbage trees, so it must not run.  Warns (`warn_unseen_tags`) when many
    of their tags are unknown to it."""
    from arcwise.core.errors import ArcwiseError

    columns = tag_columns(vocabularies)
    warn_unseen_tags(sentences, vocabularies, columns)
    bare = next((s for s in sentences if untagged([s], columns)), None)
    if bare is not None:
        source = bare.source or "input"
        if bare.source and bare.first_line:
            source += f":{bare.first_line}"
        names = ", ".join(c.upper() for c in columns)
        raise ArcwiseError(
            f"{source}: the words have no tags ({names} all _) but the model was trained with "
            "tags, so its trees would be garbage; tag the input first (e.g. with a pipeline "
            "model that has a tagger: arcwise train --pipeline), or parse with a model "
            "trained without tags"
        )
