"""Attachment scores of a parsed treebank against its gold standard.

Both sides must have the same sentences with the same syntactic words (FORM)
in the same order: gold tokenization.  Multiword-token ranges and empty
nodes are never scored (a `Sentence` holds syntactic words only).

arcwise's figures, which follow the punctuation policy (`punct="include"`
scores every word; `"exclude"` drops the gold punctuation words, see
arcwise.eval.punctuation, from gold and system alike):

- UAS: right HEAD; LAS: right HEAD and full DEPREL (subtypes included);
  LA: right full DEPREL; all over the scored words.
- CLAS: labelled attachment of content words, counted like the CoNLL 2018
  script (below) but comparing the full DEPREL: recall over gold words with a
  content relation, precision over system words with one, `clas` is F1.
- exact match: sentences whose scored words all have the right HEAD
  (unlabeled) or HEAD and DEPREL (labeled), over all sentences.
- per relation, the CoNLL-X eval.pl table "DEPREL + ATTACHMENT": gold and
  system counts of the relation, correct = right HEAD and DEPREL, precision,
  recall, F1; plus the attachment score (right HEAD) of the gold words that
  bear the relation.  Per gold UPOS: UAS, LAS, LA of the words with that tag.

`Conll18Scores`: UAS, LAS and CLAS exactly as conll18_ud_eval.py, the CoNLL
2018 shared task script (github.com/ufal/conll2018, evaluation_script/),
computes them on gold tokenization: DEPREL cut to its universal part (before
':'), every word scored (the script has no punctuation option), CLAS over
the relations of its CONTENT_DEPRELS set (gold side for recall, system side
for precision; the official figure is F1).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np

from arcwise.core.corpus import Sentence
from arcwise.core.errors import ArcwiseError, InputError
from arcwise.eval.punctuation import punctuation_mask

# conll18_ud_eval.py, CONTENT_DEPRELS: the relations CLAS scores.  The other
# UD relations are its FUNCTIONAL_DEPRELS (aux cop mark det clf case cc) and punct.
CONLL18_CONTENT_DEPRELS = frozenset(
    """nsubj obj iobj csubj ccomp xcomp obl vocative expl dislocated advcl advmod
    discourse nmod appos nummod acl amod conj fixed flat compound list parataxis
    orphan goeswith reparandum root dep""".split()
)
CONLL18_FUNCTIONAL_DEPRELS = frozenset("aux cop mark det clf case cc".split())

PUNCT_POLICIES = ("include", "exclude")


def universal_relation(deprel: str) -> str:
    """The universal part of a DEPREL: `nmod:poss` -> `nmod`."""
    return deprel.split(":", 1)[0]


def percent(part: int, whole: int) -> float:
    """100 * part / whole, and 0.0 when there is nothing to count."""
    return 100.0 * part / whole if whole else 0.0


@dataclass(frozen=True)
class Counts:
    """A precision/recall metric: `correct` of `gold` expected and `system` proposed."""

    correct: int
    gold: int
    system: int

    @property
    def precision(self) -> float:
        return percent(self.correct, self.system)

    @property
    def recall(self) -> float:
        return percent(self.correct, self.gold)

    @property
    def f1(self) -> float:
        return percent(2 * self.correct, self.gold + self.system)

    def to_dict(self) -> dict:
        return {"correct": self.correct, "gold": self.gold, "system": self.system,
                "precision": self.precision, "recall": self.recall, "f1": self.f1}


@dataclass(frozen=True)
class RelationRow:
    """One DEPREL: labelled attachment as precision/recall, and the UAS of its gold words."""

    labeled: Counts
    head_correct: int  # gold words with this relation and the right HEAD

    @property
    def attachment(self) -> float:
        return percent(self.head_correct, self.labeled.gold)

    def to_dict(self) -> dict:
        return {**self.labeled.to_dict(), "head_correct": self.head_correct,
                "attachment": self.attachment}


@dataclass(frozen=True)
class TagRow:
    """UAS, LAS, LA over the gold words with one UPOS."""

    words: int
    head_correct: int
    labeled_correct: int
    label_correct: int

    def to_dict(self) -> dict:
        return {"words": self.words, "uas": percent(self.head_correct, self.words),
                "las": percent(self.labeled_correct, self.words),
                "la": percent(self.label_correct, self.words)}


@dataclass(frozen=True)
class Conll18Scores:
    """UAS, LAS, CLAS of conll18_ud_eval.py on gold tokenization."""

    words: int
    head_correct: int
    labeled_correct: int  # HEAD and universal DEPREL
    clas_counts: Counts

    @property
    def uas(self) -> float:
        return percent(self.head_correct, self.words)

    @property
    def las(self) -> float:
        return percent(self.labeled_correct, self.words)

    @property
    def clas(self) -> float:
        return self.clas_counts.f1

    def to_dict(self) -> dict:
        return {"uas": self.uas, "las": self.las, "clas": self.clas,
                "clas_precision": self.clas_counts.precision,
                "clas_recall": self.clas_counts.recall,
                "counts": {"words": self.words, "head_correct": self.head_correct,
                           "labeled_correct": self.labeled_correct,
                           "clas": self.clas_counts.to_dict()}}


@dataclass(frozen=True)
class Scores:
    """Everything `evaluate` measures; percentages are properties over the counts."""

    punct: str  # "include" or "exclude"
    punctuation_rules: tuple[str, ...]  # how punctuation was recognised (when excluded)
    sentences: int
    words: int  # syntactic words
    scored_words: int  # words minus excluded punctuation
    head_correct: int
    labeled_correct: int  # HEAD and full DEPREL
    label_correct: int
    clas_counts: Counts
    exact_unlabeled_sentences: int
    exact_labeled_sentences: int
    conll18: Conll18Scores
    by_deprel: dict[str, RelationRow]
    by_upos: dict[str, TagRow]

    @property
    def uas(self) -> float:
        return percent(self.head_correct, self.scored_words)

    @property
    def las(self) -> float:
        return percent(self.labeled_correct, self.scored_words)

    @property
    def la(self) -> float:
        return percent(self.label_correct, self.scored_words)

    @property
    def clas(self) -> float:
        return self.clas_counts.f1

    @property
    def exact_unlabeled(self) -> float:
        return percent(self.exact_unlabeled_sentences, self.sentences)

    @property
    def exact_labeled(self) -> float:
        return percent(self.exact_labeled_sentences, self.sentences)

    def to_dict(self) -> dict:
        """JSON-able: top-level percentages, then counts, CoNLL 2018 figures and tables."""
        return {
            "uas": self.uas, "las": self.las, "la": self.la, "clas": self.clas,
            "clas_precision": self.clas_counts.precision, "clas_recall": self.clas_counts.recall,
            "exact_unlabeled": self.exact_unlabeled, "exact_labeled": self.exact_labeled,
            "punct": self.punct, "punctuation_rules": list(self.punctuation_rules),
            "counts": {
                "sentences": self.sentences, "words": self.words,
                "scored_words": self.scored_words, "head_correct": self.head_correct,
                "labeled_correct": self.labeled_correct, "label_correct": self.label_correct,
                "clas": self.clas_counts.to_dict(),
                "exact_unlabeled_sentences": self.exact_unlabeled_sentences,
                "exact_labeled_sentences": self.exact_labeled_sentences,
            },
            "conll18": self.conll18.to_dict(),
            "by_deprel": {label: row.to_dict() for label, row in self.by_deprel.items()},
            "by_upos": {tag: row.to_dict() for tag, row in self.by_upos.items()},
        }


def evaluate(gold_sentences: Iterable[Sentence], system_sentences: Iterable[Sentence],
             punct: str = "include") -> Scores:
    """Score `system_sentences` against `gold_sentences` (see the module docstring).

    Raises InputError naming the first sentence where the two do not align,
    or a gold word without HEAD; ArcwiseError for an unknown `punct` policy.
    """
    gold, system, gold_heads, system_heads, sentence_of = _aligned(
        gold_sentences, system_sentences, punct)
    gold_deprel = _words(gold, "deprel")
    system_deprel = _words(system, "deprel")
    gold_upos = _words(gold, "upos")

    # Relations as integer codes, one vocabulary for both sides.
    labels = list(dict.fromkeys(chain(gold_deprel, system_deprel)))
    code = {label: i for i, label in enumerate(labels)}
    gold_label = _encode(gold_deprel, code)
    system_label = _encode(system_deprel, code)
    bases = [universal_relation(label) for label in labels]
    base_code = {base: i for i, base in enumerate(dict.fromkeys(bases))}
    base_of = np.array([base_code[b] for b in bases], dtype=np.int32)
    content_of = np.array([b in CONLL18_CONTENT_DEPRELS for b in bases], dtype=bool)
    gold_content = content_of[gold_label]
    system_content = content_of[system_label]

    head_ok = gold_heads == system_heads
    label_ok = gold_label == system_label
    base_ok = base_of[gold_label] == base_of[system_label]

    scored, rules = _scored_words(gold, punct)

    attached = scored & head_ok
    labeled = attached & label_ok
    n_sentences = len(gold)

    def exact(correct: np.ndarray) -> int:
        wrong = np.bincount(sentence_of[scored & ~correct], minlength=n_sentences)
        return int(np.count_nonzero(wrong == 0))

    conll18 = Conll18Scores(
        words=len(gold_heads),
        head_correct=int(head_ok.sum()),
        labeled_correct=int((head_ok & base_ok).sum()),
        clas_counts=Counts(correct=int((head_ok & base_ok & gold_content).sum()),
                           gold=int(gold_content.sum()), system=int(system_content.sum())),
    )
    return Scores(
        punct=punct,
        punctuation_rules=tuple(rules),
        sentences=n_sentences,
        words=len(gold_heads),
        scored_words=int(scored.sum()),
        head_correct=int(attached.sum()),
        labeled_correct=int(labeled.sum()),
        label_correct=int((scored & label_ok).sum()),
        clas_counts=Counts(correct=int((labeled & gold_content).sum()),
                           gold=int((scored & gold_content).sum()),
                           system=int((scored & system_content).sum())),
        exact_unlabeled_sentences=exact(head_ok),
        exact_labeled_sentences=exact(head_ok & label_ok),
        conll18=conll18,
        by_deprel=_relation_rows(labels, gold_label, system_label, scored, attached, labeled),
        by_upos=_tag_rows(gold_upos, scored, attached, labeled, scored & label_ok),
    )


@dataclass(frozen=True)
class SentenceCounts:
    """Per-sentence counts under one punctuation policy: int64 arrays, one entry per sentence."""

    scored_words: np.ndarray
    head_correct: np.ndarray
    labeled_correct: np.ndarray  # HEAD and full DEPREL


def sentence_counts(gold_sentences: Iterable[Sentence], system_sentences: Iterable[Sentence],
                    punct: str = "include") -> SentenceCounts:
    """The UAS and LAS counts of `evaluate`, sentence by sentence (for significance tests).

    Summed over sentences they give `evaluate`'s scored_words, head_correct
    and labeled_correct; same alignment checks and errors.
    """
    gold, system, gold_heads, system_heads, sentence_of = _aligned(
        gold_sentences, system_sentences, punct)
    label_ok = np.fromiter(map(str.__eq__, _words(gold, "deprel"), _words(system, "deprel")),
                           dtype=bool, count=len(gold_heads))
    scored, _ = _scored_words(gold, punct)
    attached = scored & (gold_heads == system_heads)

    def per_sentence(words: np.ndarray) -> np.ndarray:
        return np.bincount(sentence_of[words], minlength=len(gold)).astype(np.int64)

    return SentenceCounts(per_sentence(scored), per_sentence(attached),
                          per_sentence(attached & label_ok))


def check_aligned(gold: Sequence[Sentence], system: Sequence[Sentence],
                  names: tuple[str, str] = ("gold", "system")) -> None:
    """Raise InputError at the first sentence whose words (FORMs) differ between the sides.

    names: what to call the two sides in the message (e.g. two system outputs).
    """
    first, second = names
    for k, (g, s) in enumerate(zip(gold, system), start=1):
        if g.form != s.form:
            if g.n != s.n:
                what = f"{g.n} words in {first}, {s.n} in {second}"
            else:
                i = next(i for i in range(1, g.n + 1) if g.form[i] != s.form[i])
                what = f"word {i} is {g.form[i]!r} in {first}, {s.form[i]!r} in {second}"
            raise InputError(g.source or first, g.first_line or None,
                             f"sentence {k} does not match {_where(s, k, second)}: {what}")
    if len(gold) > len(system):
        g = gold[len(system)]
        raise InputError(g.source or first, g.first_line or None,
                         f"sentence {len(system) + 1} has no counterpart: the {second} side "
                         f"has {len(system)} sentences, {first} {len(gold)}")
    if len(system) > len(gold):
        s = system[len(gold)]
        raise InputError(s.source or second, s.first_line or None,
                         f"sentence {len(gold) + 1} has no counterpart: the {first} side "
                         f"has {len(gold)} sentences, {second} {len(system)}")


def _aligned(gold_sentences: Iterable[Sentence], system_sentences: Iterable[Sentence],
             punct: str) -> tuple[list[Sentence], list[Sentence], np.ndarray, np.ndarray,
                                  np.ndarray]:
    """Both sides as lists, checked (known policy, aligned sentences, every gold HEAD
    given), with the gold and system HEAD of every word and the index of its sentence."""
    if punct not in PUNCT_POLICIES:
        raise ArcwiseError(f"unknown punctuation policy {punct!r}: use include or exclude")
    gold, system = list(gold_sentences), list(system_sentences)
    check_aligned(gold, system)
    gold_heads, sentence_of = _heads(gold)
    check_gold_heads(gold, gold_heads, sentence_of)
    system_heads, _ = _heads(system)
    return gold, system, gold_heads, system_heads, sentence_of


def _scored_words(gold: Sequence[Sentence], punct: str) -> tuple[np.ndarray, list[str]]:
    """Mask of the gold words the policy scores, and the punctuation rules that applied."""
    if punct == "exclude":
        punctuation, rules = punctuation_mask(_words(gold, "upos"), _words(gold, "form"))
        return ~punctuation, rules
    return np.ones(sum(s.n for s in gold), dtype=bool), []


def _where(sentence: Sentence, k: int, side: str = "system") -> str:
    if not sentence.source:
        return f"{side} sentence {k}"
    return f"{sentence.source}:{sentence.first_line}" if sentence.first_line else sentence.source


def _heads(sentences: Sequence[Sentence]) -> tuple[np.ndarray, np.ndarray]:
    """HEAD of every word, concatenated, and the index of each word's sentence."""
    if not sentences:
        return np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int64)
    heads = np.concatenate([s.head[1:] for s in sentences])
    lengths = np.fromiter((s.n for s in sentences), dtype=np.int64, count=len(sentences))
    return heads, np.repeat(np.arange(len(sentences)), lengths)


def _words(sentences: Sequence[Sentence], column: str) -> list[str]:
    """A string column over all words of all sentences (the root entry dropped)."""
    return list(chain.from_iterable(getattr(s, column)[1:] for s in sentences))


def _encode(values: list[str], code: dict[str, int]) -> np.ndarray:
    return np.fromiter(map(code.__getitem__, values), dtype=np.int32, count=len(values))


def check_gold_heads(gold: Sequence[Sentence], heads: np.ndarray, sentence_of: np.ndarray):
    """Raise InputError at the first gold word without HEAD (heads: all words, concatenated)."""
    missing = np.flatnonzero(heads < 0)
    if missing.size:
        k = int(sentence_of[missing[0]])
        s = gold[k]
        first_word = int(missing[0]) - int(np.searchsorted(sentence_of, k))
        word = first_word + 1
        line = s.first_line + int(s.word_lines[word]) if len(s.word_lines) > word else None
        raise InputError(s.source or "gold", line or None,
                         f"gold word {word} of sentence {k + 1} has no HEAD; cannot score")


def _relation_rows(labels, gold_label, system_label, scored, attached, labeled):
    size = len(labels)
    gold = np.bincount(gold_label[scored], minlength=size)
    system = np.bincount(system_label[scored], minlength=size)
    correct = np.bincount(gold_label[labeled], minlength=size)
    head_correct = np.bincount(gold_label[attached], minlength=size)
    rows = {}
    for i in sorted(range(size), key=lambda i: (-gold[i], labels[i])):
        if gold[i] or system[i]:
            rows[labels[i]] = RelationRow(
                Counts(int(correct[i]), int(gold[i]), int(system[i])), int(head_correct[i]))
    return rows


def _tag_rows(upos, scored, attached, labeled, label_correct):
    tags = list(dict.fromkeys(upos))
    tag = _encode(upos, {t: i for i, t in enumerate(tags)})
    size = len(tags)
    words = np.bincount(tag[scored], minlength=size)
    head = np.bincount(tag[attached], minlength=size)
    both = np.bincount(tag[labeled], minlength=size)
    label = np.bincount(tag[label_correct], minlength=size)
    return {tags[i]: TagRow(int(words[i]), int(head[i]), int(both[i]), int(label[i]))
            for i in sorted(range(size), key=lambda i: (-words[i], tags[i])) if words[i]}
