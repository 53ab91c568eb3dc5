"""One record per scored word: gold and predicted arcs, their measures, the parser's trace.

The error analysis of McDonald & Nivre (2011, §4) relates every arc to
properties of the gold tree (recall) or of the predicted tree (precision).
`Records` holds those properties as a struct of arrays, one entry per
syntactic word of every sentence of every treebank analysed (words
concatenated in reading order), so factors and significance tests are
vectorised numpy expressions:

- word properties: sentence (global index), treebank, sentence length (in
  syntactic words), gold UPOS, punctuation flag (the rule of `arcwise
  evaluate`: gold UPOS PUNCT, or an all-punctuation FORM for words without a
  UD tag);
- per tree (`Tree`: the gold one and one per system): HEAD, DEPREL (a code
  into `Records.labels`, the full relation) and the measures of the arc
  HEAD -> word: length ``|h - d|`` (0 for an arc from the root 0, -1 for no
  arc), distance to the root (`arcwise.trees.measures`: a root dependent has
  1; -1 for a word not connected to 0, i.e. on or under a cycle of foreign
  input, or under a missing head), siblings (other dependents of the same
  head), direction (LEFT -1: head after the word, RIGHT +1: head before, 0
  for a root arc) and whether the arc is non-projective;
- the trace of a transition-based parser when the system file carries one
  (see `read_trace`): the transition that built each final arc and the heads
  each word had before.

Gold and system files must align as for `arcwise evaluate` (same sentences,
same FORMs); gold HEADs must all be given.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np

from arcwise.core.corpus import Sentence
from arcwise.core.errors import InputError
from arcwise.eval.metrics import check_aligned, check_gold_heads
from arcwise.eval.punctuation import punctuation_mask
from arcwise.io.conllu import misc
from arcwise.transition.trace import HEAD_HISTORY, TRANSITION, attributes
from arcwise.trees.measures import arc_directions, arc_lengths, root_distances, sibling_counts
from arcwise.trees.projectivity import nonprojective_arcs

_ACTION = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")


@dataclass(frozen=True)
class Trace:
    """What a transition-based parser did, per word (see `read_trace` for the MISC format).

    transition[i] is a code into `names` (the action that built word i's
    final arc, or "none"); the heads word i had before its final one are
    history[history_start[i]:history_start[i + 1]], in order.
    """

    names: tuple[str, ...]
    transition: np.ndarray  # int32 per word
    history_start: np.ndarray  # int64, words + 1
    history: np.ndarray  # int32


@dataclass(frozen=True)
class Tree:
    """One tree over all words (gold or a system's): arcs and their measures, per word."""

    head: np.ndarray  # int32, -1 = no head
    label: np.ndarray  # int32 code into Records.labels
    arc_length: np.ndarray  # int32: |h - d|, 0 for a root arc, -1 for no arc
    root_distance: np.ndarray  # int32: arcs up to 0, -1 when 0 is not reached
    siblings: np.ndarray  # int32
    direction: np.ndarray  # int8: -1 left, +1 right, 0 root arc or no arc
    nonprojective: np.ndarray  # bool
    trace: Trace | None = None

    @property
    def has_arc(self) -> np.ndarray:
        return self.head >= 0


@dataclass(frozen=True)
class Records:
    """The struct of arrays described in the module docstring; index = word."""

    names: tuple[str, ...]  # system names, in the order of `systems`
    labels: tuple[str, ...]  # full DEPREL of each label code
    upos_names: tuple[str, ...]  # UPOS of each upos code
    treebank: np.ndarray  # int32
    sentence: np.ndarray  # int64, global over treebanks
    sentence_length: np.ndarray  # int32, syntactic words
    upos: np.ndarray  # int32 code into upos_names (gold)
    punctuation: np.ndarray  # bool
    gold: Tree
    systems: tuple[Tree, ...]

    def __len__(self) -> int:
        return len(self.sentence)

    def correct(self, system: int, labeled: bool = True) -> np.ndarray:
        """Does the system's arc of each word match gold (HEAD, and full DEPREL when labeled)?"""
        tree = self.systems[system]
        ok = tree.head == self.gold.head
        return ok & (tree.label == self.gold.label) if labeled else ok

    def scored(self, punct: str = "include") -> np.ndarray:
        """The words `arcwise evaluate` scores under the punctuation policy."""
        return ~self.punctuation if punct == "exclude" else np.ones(len(self), dtype=bool)


def build_records(gold: Sequence[Iterable[Sentence]],
                  systems: Sequence[Sequence[Iterable[Sentence]]],
                  names: Sequence[str]) -> Records:
    """Records of several treebanks: gold[t] is treebank t, systems[s][t] system s's parse of it.

    Raises InputError where a system's sentences do not align with gold's
    (message naming both files and the sentence), a gold HEAD is missing, or
    a trace field is malformed.
    """
    if len(systems) != len(names):
        raise ValueError("one name per system")
    gold_banks = [list(g) for g in gold]
    system_banks = [[list(t) for t in s] for s in systems]
    for s, banks in enumerate(system_banks):
        if len(banks) != len(gold_banks):
            raise ValueError(f"system {names[s]} has {len(banks)} treebanks, "
                             f"gold {len(gold_banks)}")
        for g, t in zip(gold_banks, banks):
            check_aligned(g, t, ("gold", names[s]))
    gold_sentences = list(chain.from_iterable(gold_banks))
    lengths = np.fromiter((s.n for s in gold_sentences), dtype=np.int32, count=len(gold_sentences))
    sentence = np.repeat(np.arange(len(gold_sentences), dtype=np.int64), lengths)
    gold_heads = _column_heads(gold_sentences)
    check_gold_heads(gold_sentences, gold_heads, sentence)
    treebank = np.repeat(np.arange(len(gold_banks), dtype=np.int32),
                         [sum(s.n for s in bank) for bank in gold_banks])

    labels: dict[str, int] = {}
    upos_text = _column(gold_sentences, "upos")
    upos_names = tuple(dict.fromkeys(upos_text))
    upos_code = {u: i for i, u in enumerate(upos_names)}
    punctuation, _ = punctuation_mask(upos_text, _column(gold_sentences, "form"))
    trees = [_tree(gold_sentences, labels, traced=False)]
    for banks in system_banks:
        trees.append(_tree(list(chain.from_iterable(banks)), labels, traced=True))
    return Records(
        names=tuple(names), labels=tuple(labels), upos_names=upos_names,
        treebank=treebank, sentence=sentence,
        sentence_length=np.repeat(lengths, lengths),
        upos=np.fromiter(map(upos_code.__getitem__, upos_text), dtype=np.int32,
                         count=len(upos_text)),
        punctuation=punctuation, gold=trees[0], systems=tuple(trees[1:]))


def _tree(sentences: list[Sentence], labels: dict[str, int], traced: bool) -> Tree:
    parts = {k: [] for k in ("arc_length", "root_distance", "siblings", "direction",
                             "nonprojective")}
    for s in sentences:
        head = np.asarray(s.head, dtype=np.int32)
        length = arc_lengths(head)
        length[head == 0] = 0
        length[head < 0] = -1
        direction = arc_directions(head).astype(np.int8)
        direction[head <= 0] = 0
        parts["arc_length"].append(length[1:])
        parts["root_distance"].append(root_distances(head)[1:])
        parts["siblings"].append(sibling_counts(head)[1:])
        parts["direction"].append(direction[1:])
        parts["nonprojective"].append(nonprojective_arcs(head)[1:])
    deprel = _column(sentences, "deprel")
    for label in deprel:
        labels.setdefault(label, len(labels))
    arrays = {k: _concat(v, np.bool_ if k == "nonprojective" else np.int32)
              for k, v in parts.items()}
    arrays["direction"] = arrays["direction"].astype(np.int8)
    return Tree(head=_column_heads(sentences),
                label=np.fromiter(map(labels.__getitem__, deprel), dtype=np.int32,
                                  count=len(deprel)),
                trace=read_trace(sentences) if traced else None, **arrays)


def read_trace(sentences: Sequence[Sentence]) -> Trace | None:
    """The parser's trace from the tenth column of system output, or None if absent.

    The tenth column is MISC in CoNLL-U and PDEPREL in CoNLL-X, where
    ``arcwise parse --trace`` writes the trace too.

    The format (written by ``arcwise parse --trace``), per syntactic word:

    - ``Transition=NAME``: the action, as the transition system's registry
      spells it (``left-arc``, ``right-arc``, ``left-buffer-arc``, ...), that
      built the word's final arc; ``Transition=none`` when no transition did
      (the word was left headless and attached to 0 at the end of the parse,
      or re-attached by single-root post-processing);
    - ``HeadHistory=h1,h2,...``: the heads the word had before its final
      head, in order; only present when there were some (non-monotonic
      systems re-attach words).

    Either every word of the file carries ``Transition=`` or none does (then
    the result is None); anything else is an InputError at the word's line.
    """
    names: dict[str, int] = {}
    transition, history, counts = [], [], []
    traced = None
    for s in sentences:
        column = misc(s)
        for i in range(1, s.n + 1):
            line_index = int(s.word_lines[i]) if len(s.word_lines) > i else -1
            fields = attributes(column[i])
            where = (s.source or "system", s.first_line + line_index if line_index >= 0 else None)
            name = fields.get(TRANSITION)
            if traced is None:
                traced = name is not None
            if not traced:
                if name is not None:
                    raise InputError(*where, "Transition= on this word but not on the first word "
                                             "of the file: a trace must cover every word")
                continue
            if name is None:
                raise InputError(*where, "word without Transition= in a traced file")
            if not _ACTION.fullmatch(name):
                raise InputError(*where, f"bad Transition={name!r}: expected an action name")
            transition.append(names.setdefault(name, len(names)))
            before = fields.get(HEAD_HISTORY)
            heads = _head_history(before, s.n, where) if before is not None else []
            history.extend(heads)
            counts.append(len(heads))
    if not traced:
        return None
    start = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=start[1:])
    return Trace(names=tuple(names), transition=np.asarray(transition, dtype=np.int32),
                 history_start=start, history=np.asarray(history, dtype=np.int32))


def _head_history(text: str, n: int, where) -> list[int]:
    try:
        heads = [int(h) for h in text.split(",")]
    except ValueError:
        raise InputError(*where, f"bad HeadHistory={text!r}: expected heads h1,h2,...") from None
    if not heads or any(not 0 <= h <= n for h in heads):
        raise InputError(*where, f"bad HeadHistory={text!r}: heads must be 0..{n}")
    return heads


def _column(sentences: Sequence[Sentence], column: str) -> list[str]:
    return list(chain.from_iterable(getattr(s, column)[1:] for s in sentences))


def _column_heads(sentences: Sequence[Sentence]) -> np.ndarray:
    return _concat([np.asarray(s.head[1:], dtype=np.int32) for s in sentences], np.int32)


def _concat(parts: list[np.ndarray], dtype) -> np.ndarray:
    return np.concatenate(parts).astype(dtype, copy=False) if parts else np.zeros(0, dtype=dtype)
