"""Lemmas from a word's form, UPOS and FEATS: the training data's own lemma for a known
(form, UPOS, FEATS) or (form, UPOS), else an edit rule learnt for the longest known ending
of the form.

An edit rule says how a form becomes its lemma: lowercase it or not, strip
some characters from its end, append a string ("studies" -> "study": strip 3,
append "y").  Training counts, for every word of a treebank, its (form, UPOS)
-> lemma and, for each ending of the lowercased form of 0 to `MAX_ENDING`
characters, (UPOS, ending) -> rule; a rule is kept for an ending seen at
least `MIN_RULE_COUNT` times (the empty ending always), and a word takes the
most frequent rule of its longest kept ending.  Words and rules are also learnt per
(UPOS, FEATS), kept where they differ from those of the UPOS alone, and come first: at
each ending length, a (UPOS, FEATS) rule before the UPOS's (Czech ``-ou`` endings lemmatize
by case).  Dev lemma accuracy from predicted tags (English-EWT, Swedish-LinES, Czech-CLTT,
Portuguese-Bosque, Italian-ParTUT): +0.06 to +0.36 against the UPOS alone.  The classic
dictionary and suffix-rule lemmatizer, data-driven like the rest of the pipeline: it
learns from any UD treebank with lemmas, in seconds, and is stored as JSON.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from arcwise.core.corpus import Sentence
from arcwise.core.errors import ArcwiseError

MAX_ENDING = 6  # characters of a form's ending that select a rule
MIN_RULE_COUNT = 3  # words an ending's rule needs (longer endings overfit otherwise)
VERSION = 2  # 1: without the (UPOS, FEATS) words and rules

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
    """Lemmas of words given their UPOS and FEATS (see the module docstring).

    >>> lemmatizer = Lemmatizer.train(sentences)
    >>> lemmatizer.lemma("studies", "NOUN", "Number=Plur")
    'study'
    """

    def __init__(self, words: dict[tuple[str, str], str], rules: dict[tuple[str, str], Rule],
                 tagged_words: dict[tuple[str, str, str], str] | None = None,
                 tagged_rules: dict[tuple[str, str, str], Rule] | None = None):
        self.words = words  # (form, UPOS) -> lemma
        self.rules = rules  # (UPOS, ending) -> rule
        self.tagged_words = dict(tagged_words or {})  # (form, UPOS, FEATS) -> lemma
        self.tagged_rules = dict(tagged_rules or {})  # (UPOS, FEATS, ending) -> rule

    def __repr__(self) -> str:
        return (f"Lemmatizer({len(self.words) + len(self.tagged_words)} words, "
                f"{len(self.rules) + len(self.tagged_rules)} rules)")

    @classmethod
    def train(cls, sentences: Iterable[Sentence]) -> Lemmatizer | None:
        """Learn from the sentences' lemmas; None when they have none (all ``_``)."""
        word_lemmas: dict[tuple[str, ...], Counter] = defaultdict(Counter)
        ending_rules: dict[tuple[str, ...], Counter] = defaultdict(Counter)
        for s in sentences:
            for form, upos, feats, lemma in zip(s.form[1:], s.upos[1:], s.feats[1:],
                                                s.lemma[1:]):
                if lemma == "_" and form != "_":
                    continue
                word_lemmas[form, upos][lemma] += 1
                word_lemmas[form, upos, feats][lemma] += 1
                rule = edit_rule(form, lemma)
                for ending in endings(form):
                    ending_rules[upos, ending][rule] += 1
                    ending_rules[upos, feats, ending][rule] += 1
        if not word_lemmas:
            return None
        words = {key: _most_frequent(counts) for key, counts in word_lemmas.items()
                 if len(key) == 2}
        rules = {key: _most_frequent(counts) for key, counts in ending_rules.items()
                 if len(key) == 2 and (key[1] == "" or sum(counts.values()) >= MIN_RULE_COUNT)}
        # a tagged word or rule is kept where it differs from its UPOS's (which always
        # exists: it counts the same words and more)
        tagged_words = {key: lemma for key, counts in word_lemmas.items() if len(key) == 3
                        and (lemma := _most_frequent(counts)) != words[key[:2]]}
        tagged_rules = {key: rule for key, counts in ending_rules.items() if len(key) == 3
                        and sum(counts.values()) >= MIN_RULE_COUNT
                        and (rule := _most_frequent(counts)) != rules[key[0], key[2]]}
        return cls(words, rules, tagged_words, tagged_rules)

    def lemma(self, form: str, upos: str, feats: str | None = None) -> str:
        """The lemma of a word: its training lemma, else the rule of its longest ending;
        for each, with its FEATS (when given) before without."""
        if feats is not None:
            known = self.tagged_words.get((form, upos, feats))
            if known is not None:
                return known
        known = self.words.get((form, upos))
        if known is not None:
            return known
        for ending in endings(form):
            rule = self.tagged_rules.get((upos, feats, ending)) if feats is not None else None
            if rule is None:
                rule = self.rules.get((upos, ending))
            if rule is not None:
                return apply_rule(form, rule)
        return form

    def accuracy(self, sentences: Iterable[Sentence]) -> float:
        """The share of words (with a gold lemma) given their gold lemma, from gold UPOS and
        FEATS (%)."""
        right = total = 0
        for s in sentences:
            for form, upos, feats, lemma in zip(s.form[1:], s.upos[1:], s.feats[1:],
                                                s.lemma[1:]):
                if lemma != "_" or form == "_":
                    total += 1
                    right += self.lemma(form, upos, feats) == lemma
        return 100.0 * right / max(total, 1)

    # --- model files ---------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The lemmatizer as JSON-able data (a model file's metadata)."""
        return {"version": VERSION,
                "words": [[f, u, lemma] for (f, u), lemma in sorted(self.words.items())],
                "rules": [[u, e, lower, strip, append]
                          for (u, e), (lower, strip, append) in sorted(self.rules.items())],
                "tagged_words": [[f, u, x, lemma] for (f, u, x), lemma
                                 in sorted(self.tagged_words.items())],
                "tagged_rules": [[u, x, e, lower, strip, append]
                                 for (u, x, e), (lower, strip, append)
                                 in sorted(self.tagged_rules.items())]}

    @classmethod
    def from_json(cls, data: Any, source: str) -> Lemmatizer:
        try:
            if data["version"] not in (1, VERSION):
                raise ValueError(f"version {data['version']!r}")
            words = {(str(f), str(u)): str(lemma) for f, u, lemma in data["words"]}
            rules = {(str(u), str(e)): (bool(lower), int(strip), str(append))
                     for u, e, lower, strip, append in data["rules"]}
            tagged_words = {(str(f), str(u), str(x)): str(lemma)
                            for f, u, x, lemma in data.get("tagged_words", ())}
            tagged_rules = {(str(u), str(x), str(e)): (bool(lower), int(strip), str(append))
                            for u, x, e, lower, strip, append in data.get("tagged_rules", ())}
        except (KeyError, TypeError, ValueError) as error:
            raise ArcwiseError(f"{source}: corrupt model file (bad lemmatizer: {error})") \
                from None
        return cls(words, rules, tagged_words, tagged_rules)


def _most_frequent(counts: Counter):
    """The most frequent key (ties: the smallest, so that training is deterministic)."""
    best = max(counts.values())
    return min(k for k, n in counts.items() if n == best)
