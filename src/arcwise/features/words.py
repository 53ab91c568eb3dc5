"""The words matrix: per word, the int32 values the feature extractor reads.

A sentence of n words is an int32 array [n + 1, len(WORD_COLUMNS)] (row 0:
the root), C-contiguous so that a batch's sentences are row slices of one
matrix.  The columns are the vocabulary ids of the input columns and of the
form's derived strings (`arcwise.core.vocab.form_signature`), and, for a guided
parser (stacking, 2011 paper §5.3), the guide parser's tree: each word's
guide head (-1: no guide) and the id of its guide label in the deprel
vocabulary.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from arcwise.core.corpus import Sentence
from arcwise.core.vocab import EncodedSentence, Vocabularies

WORD_COLUMNS = (
    "form", "upos", "xpos", "feats", "lower", "suffix", "shape", "guide_head", "guide_label",
)
FORM, UPOS, XPOS, FEATS, LOWER, SUFFIX, SHAPE, GUIDE_HEAD, GUIDE_LABEL = range(len(WORD_COLUMNS))
_ENCODED = WORD_COLUMNS[: GUIDE_HEAD]  # the columns that come from `Vocabularies.encode`


def word_matrix(
    encoded: EncodedSentence, vocabularies: Vocabularies, guide: Sentence | None = None
) -> np.ndarray:
    """The words matrix of an encoded sentence, with the guide's tree if given."""
    return batch_matrix([encoded], vocabularies, None if guide is None else [guide])


def batch_matrix(
    encoded: Sequence[EncodedSentence],
    vocabularies: Vocabularies,
    guide: Sequence[Sentence] | None = None,
) -> np.ndarray:
    """The words matrices of sentences stacked into one (sentence k after sentence k - 1).

    guide: the guide parser's output on the same sentences (only its head and
    deprel are read).
    """
    total = sum(len(e.form) for e in encoded)
    out = np.empty((total, len(WORD_COLUMNS)), dtype=np.int32)
    if not encoded:
        return out
    for k, column in enumerate(_ENCODED):
        out[:, k] = np.concatenate([getattr(e, column) for e in encoded])
    if guide is None:
        out[:, GUIDE_HEAD] = -1
        out[:, GUIDE_LABEL] = 0
        return out
    if len(guide) != len(encoded):
        raise ValueError(f"{len(guide)} guide trees for {len(encoded)} sentences")
    for k, (e, g) in enumerate(zip(encoded, guide)):
        if len(g.head) != len(e.form):
            raise ValueError(
                f"guide tree {k + 1} has {len(g.head) - 1} words, its sentence {len(e.form) - 1}"
            )
    out[:, GUIDE_HEAD] = np.concatenate([g.head for g in guide])
    out[:, GUIDE_LABEL] = np.concatenate([vocabularies.deprel.encode(g.deprel) for g in guide])
    roots = np.cumsum([0] + [len(e.form) for e in encoded[:-1]])
    out[roots, GUIDE_HEAD] = -1
    return out
