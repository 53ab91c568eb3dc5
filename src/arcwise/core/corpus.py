"""A sentence as arrays, plus the original lines for lossless output.

Word i of an n-word sentence sits at index i of every column (1..n); index
0 is the artificial root.  String columns are tuples of n + 1 strings (index
0 holds ROOT); `head` is an int32 array with head[0] == -1 and -1 for an
unknown head ("_" in the input).  `lines` are the sentence's original lines
(comments, multiword-token ranges and empty nodes included, no line ends),
and `word_lines[i]` is the index in `lines` of word i's line, so a writer
can change HEAD and DEPREL of syntactic words and pass everything else
through untouched.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

import numpy as np

ROOT = "<root>"


@dataclass(eq=False)
class Sentence:
    form: tuple[str, ...]
    lemma: tuple[str, ...]
    upos: tuple[str, ...]
    xpos: tuple[str, ...]
    feats: tuple[str, ...]
    head: np.ndarray  # int32, n + 1
    deprel: tuple[str, ...]
    lines: list[str] = field(default_factory=list)
    word_lines: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    source: str = ""  # file name, for messages
    first_line: int = 0  # 1-based line number of lines[0] in source

    @property
    def n(self) -> int:
        """Number of syntactic words."""
        return len(self.form) - 1


def nothing_to_learn(total: int, not_trees: int, unbuildable: int, one_word: int) -> str:
    """The one-line message of a training set without a sentence a parser can learn from:
    a tree of two or more words (that the system can build, under the static oracle)."""
    if total == 0:
        return "no training sentences: the training file is empty"
    reasons = [f"{count:,} {why}" for count, why in [
        (not_trees, "not trees (HEAD _ or out of range, or cycles)"),
        (unbuildable, "trees the system cannot build (static oracle; try --oracle dynamic "
                      "or --pseudo-projective)"),
        (one_word, "of one word"),
    ] if count]
    return f"nothing to learn from: of {total:,} training sentences, {', '.join(reasons)}"


def from_words(words: Sequence[str], source: str = "<words>") -> Sentence:
    """An untagged, unparsed sentence of these words (every other column ``_``).

    Raises ArcwiseError for an empty sentence or a word that cannot be written in a
    FORM column (empty, or holding a tab, a line end, another control character or a lone
    surrogate: `arcwise.core.text.unicode_checked`).
    """
    from arcwise.core.errors import ArcwiseError
    from arcwise.core.text import unicode_checked

    words = tuple(words)
    if not words:
        raise ArcwiseError(f"{source}: a sentence needs at least one word")
    for word in words:
        if not isinstance(word, str) or not _FORM.fullmatch(word):
            raise ArcwiseError(f"{source}: {word!r} cannot be a word (empty, or a tab, "
                               "line end or control character in it)")
        unicode_checked(word, f"{source}: {word!r}")
    blank = (ROOT,) + ("_",) * len(words)
    return Sentence(form=(ROOT, *words), lemma=blank, upos=blank, xpos=blank, feats=blank,
                    head=np.full(len(words) + 1, -1, dtype=np.int32), deprel=blank,
                    source=source)


ACCEPTED = ("a str, a list or tuple of words (one sentence), or a list or tuple of such "
            "sentences or of Sentences")


def as_sentences(given: Any) -> tuple[list[Sentence], bool]:
    """What a parser's ``parse`` accepts, as (sentences, whether one sentence was given).

    A Sentence; a string (one sentence, its words separated by whitespace); a
    sequence of strings (one pre-tokenized sentence); or a sequence of any of those.
    Anything else is a TypeError saying what is accepted (`ACCEPTED`, `ordered`): None, a
    number, bytes, a dict, and a set, whose order is not the words'.
    """
    if isinstance(given, Sentence):
        return [given], True
    if isinstance(given, str):
        return [from_words(given.split(), "<text>")], True
    items = list(ordered(given, ACCEPTED))
    if items and all(isinstance(item, str) for item in items):
        return [from_words(items)], True
    return [_sentence_of(item) for item in items], False


def ordered(given: Any, accepted: str) -> Iterable[Any]:
    """`given` if it is an ordered collection of items (a list, a tuple, an iterator); else
    TypeError naming what is `accepted`: bytes (decode them first), a set (no order), a str
    or a mapping (no collection of items here), what is not iterable."""
    what = f"expected {accepted}, not {type(given).__name__}"
    if isinstance(given, (bytes, bytearray, memoryview)):
        raise TypeError(f"{what}: decode them first (arcwise reads UTF-8: "
                        "data.decode('utf-8'))")
    if isinstance(given, AbstractSet):
        raise TypeError(f"{what} (a set has no order)")
    if isinstance(given, (str, Mapping)) or not isinstance(given, Iterable):
        raise TypeError(what)
    return given


def _sentence_of(item: Any) -> Sentence:
    """One sentence of a sequence given to `as_sentences`: a Sentence, a string of
    whitespace-separated words or a sequence of words (ArcwiseError if empty)."""
    if isinstance(item, Sentence):
        return item
    if isinstance(item, str):
        return from_words(item.split(), "<text>")
    return from_words(list(ordered(item, "a sentence as a str, a list or tuple of words "
                                          "or a Sentence")))


_FORM = re.compile(r"[^\t\n\r\x00-\x1f\x7f]+")
