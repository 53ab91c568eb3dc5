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

from dataclasses import dataclass, field

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
