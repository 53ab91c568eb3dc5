"""Which gold words count as punctuation when a score excludes it.

Two rules, chosen per word:

- a word with a Universal POS tag is punctuation iff its UPOS is PUNCT;
- a word without one (CoNLL-X input, whose CPOSTAG is "_" or a treebank's own
  tag set) is punctuation iff every character of its FORM is in a Unicode
  category starting with "P", the rule of the CoNLL-X shared task's eval.pl
  (`is_uni_punct`: FORM matches /^\\p{Punctuation}+$/).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import numpy as np

UNIVERSAL_POS_TAGS = frozenset(
    "ADJ ADP ADV AUX CCONJ DET INTJ NOUN NUM PART PRON PROPN PUNCT SCONJ SYM VERB X".split()
)

UPOS_RULE = "gold UPOS is PUNCT"
FORM_RULE = "FORM is all Unicode punctuation (CoNLL-X eval.pl rule, for words without UD UPOS)"


def is_unicode_punctuation(form: str) -> bool:
    """Does every character of `form` belong to a Unicode punctuation category (P*)?"""
    return bool(form) and all(unicodedata.category(c).startswith("P") for c in form)


def punctuation_mask(upos: Sequence[str], form: Sequence[str]) -> tuple[np.ndarray, list[str]]:
    """Boolean mask of punctuation words, and the rules that were needed.

    `upos` and `form` are parallel per-word sequences (gold side).  The second
    result lists UPOS_RULE and/or FORM_RULE, whichever applied to some word.
    """
    n = len(upos)
    by_upos = np.fromiter((tag == "PUNCT" for tag in upos), dtype=bool, count=n)
    untagged = np.fromiter((tag not in UNIVERSAL_POS_TAGS for tag in upos), dtype=bool, count=n)
    rules = []
    if not untagged.all():
        rules.append(UPOS_RULE)
    mask = by_upos
    if untagged.any():
        rules.append(FORM_RULE)
        punctuation_forms = {f for f in {form[i] for i in np.flatnonzero(untagged)}
                             if is_unicode_punctuation(f)}
        by_form = np.fromiter((f in punctuation_forms for f in form), dtype=bool, count=n)
        mask = np.where(untagged, by_form, by_upos)
    return mask, rules
