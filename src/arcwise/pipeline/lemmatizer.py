"""Lemmas from a word's form and UPOS: the training data's own lemma for a known
(form, UPOS), else an edit rule learnt for the longest known ending of the form.

An edit rule says how a form becomes its lemma: lowercase it or not, strip
some characters from its end, append a string ("studies" -> "study": strip 3,
append "y").  Training counts, for every word of a treebank, its (form, UPOS)
-> lemma and, for each ending of the lowercased form of 0 to `MAX_ENDING`
characters, (UPOS, ending) -> rule; a rule is kept for an ending seen at
least `MIN_RULE_COUNT` times (the empty ending always), and a word takes the
most frequent rule of its longest kept ending.  The classic dictionary and
suffix-rule lemmatizer, data-driven like the rest of the pipeline: it learns
from any UD treebank with lemmas, in seconds, and is stored as JSON.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from arcwise.corpus import Sentence
from arcwise.errors import ArcwiseError

MAX_ENDING = 6  # characters of a form's ending that select a rule
MIN_RULE_COUNT = 3  # words an ending's rule needs (longer endings overfit otherwise)
VERSION = 1

Rule = tuple[bool, int, str]  # (lowercase first, characters to strip, string to append)
IDENTITY: Rule = (False, 0, "")


def edit_rule(form: str, lemma: str) -> Rule:
    """The rule that turns `form` into `lemma`."""
    lower = lemma == lemma.lower()
    base = form.lower() if lower else form
    common = 0
    for a, b in zip(base, lemma):
        if a != b:
            break
        common += 1
    return lower, len(base) - common, lemma[common:]


def apply_rule(form: str, rule: Rule) -> str:
    """The lemma `rule` makes of `form` (the form itself when the rule strips more than the
    whole form, or leaves nothing)."""
    lower, strip, append = rule
    base = form.lower() if lower else form
    if strip > len(base) or (strip == len(base) and not append):
        return form
    return base[:len(base) - strip] + append


def endings(form: str) -> list[str]:
    """The endings of a form's lowercase that select rules, longest first ("" last)."""
    lower = form.lower()
    return [lower[-k:] for k in range(min(MAX_ENDING, len(lower)), 0, -1)] + [""]


class Lemmatizer:
    """Lemmas of (form, UPOS) pairs (see the module docstring).

    >>> lemmatizer = Lemmatizer.train(sentences)
    >>> lemmatizer.lemma("studies", "NOUN")
    'study'
    """

    def __init__(self, words: dict[tuple[str, str], str], rules: dict[tuple[str, str], Rule]):
        self.words = words
        self.rules = rules

    def __repr__(self) -> str:
        return f"Lemmatizer({len(self.words)} words, {len(self.rules)} rules)"

    @classmethod
    def train(cls, sentences: Iterable[Sentence]) -> Lemmatizer | None:
        """Learn from the sentences' lemmas; None when they have none (all ``_``)."""
        word_lemmas: dict[tuple[str, str], Counter] = defaultdict(Counter)
        ending_rules: dict[tuple[str, str], Counter] = defaultdict(Counter)
        for s in sentences:
            for form, upos, lemma in zip(s.form[1:], s.upos[1:], s.lemma[1:]):
                if lemma == "_" and form != "_":
                    continue
                word_lemmas[form, upos][lemma] += 1
                rule = edit_rule(form, lemma)
                for ending in endings(form):
                    ending_rules[upos, ending][rule] += 1
        if not word_lemmas:
            return None
        words = {key: _most_frequent(counts) for key, counts in word_lemmas.items()}
        rules = {key: _most_frequent(counts) for key, counts in ending_rules.items()
                 if key[1] == "" or sum(counts.values()) >= MIN_RULE_COUNT}
        return cls(words, rules)

    def lemma(self, form: str, upos: str) -> str:
        """The lemma of a word: its training lemma, else the rule of its longest ending."""
        known = self.words.get((form, upos))
        if known is not None:
            return known
        for ending in endings(form):
            rule = self.rules.get((upos, ending))
            if rule is not None:
                return apply_rule(form, rule)
        return form

    def lemmas(self, forms: Sequence[str], upos: Sequence[str]) -> list[str]:
        return [self.lemma(f, u) for f, u in zip(forms, upos)]

    def accuracy(self, sentences: Iterable[Sentence]) -> float:
        """The share of words (with a gold lemma) given their gold lemma, from gold UPOS (%)."""
        right = total = 0
        for s in sentences:
            for form, upos, lemma in zip(s.form[1:], s.upos[1:], s.lemma[1:]):
                if lemma != "_" or form == "_":
                    total += 1
                    right += self.lemma(form, upos) == lemma
        return 100.0 * right / max(total, 1)

    # --- model files ---------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The lemmatizer as JSON-able data (a model file's metadata)."""
        return {"version": VERSION,
                "words": [[f, u, lemma] for (f, u), lemma in sorted(self.words.items())],
                "rules": [[u, e, lower, strip, append]
                          for (u, e), (lower, strip, append) in sorted(self.rules.items())]}

    @classmethod
    def from_json(cls, data: Any, source: str) -> Lemmatizer:
        try:
            if data["version"] != VERSION:
                raise ValueError(f"version {data['version']!r}")
            words = {(str(f), str(u)): str(lemma) for f, u, lemma in data["words"]}
            rules = {(str(u), str(e)): (bool(lower), int(strip), str(append))
                     for u, e, lower, strip, append in data["rules"]}
        except (KeyError, TypeError, ValueError) as error:
            raise ArcwiseError(f"{source}: corrupt model file (bad lemmatizer: {error})") \
                from None
        return cls(words, rules)


def _most_frequent(counts: Counter):
    """The most frequent key (ties: the smallest, so that training is deterministic)."""
    best = max(counts.values())
    return min(k for k, n in counts.items() if n == best)
