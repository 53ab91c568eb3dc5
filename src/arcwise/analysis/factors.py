"""The factors of the 2011 error analysis: words and arcs in bins, scored per system.

McDonald & Nivre (2011), §4 and §6.2, with the bins of issue 13:

- accuracy factors (a gold property of the word; LAS or UAS of its words):
  `sentence_length` (1-10, 11-20, ..., 51-60, >60; Figures 4 and 8), `upos`
  (the dependent's gold UPOS, Tables 4a and 7) and `upos_class` (the
  paper's broad classes: verb = VERB+AUX, noun = NOUN+PROPN, pronoun = PRON
  (+DET with pronoun_det), adjective = ADJ, adverb = ADV, adposition = ADP,
  conjunction = CCONJ+SCONJ; other tags are in no class);
- arc factors (a property of the arc in its tree): precision = correct
  predicted arcs in the bin (binned by the *predicted* tree) / predicted
  arcs in the bin, recall = correct gold arcs in the bin (binned by the
  *gold* tree) / gold arcs in the bin.  `arc_length` (root, 1..14, >14;
  Figures 5 and 9), `root_distance` (1..6, >6, and `cycle` for words not
  connected to 0 in foreign input; Figures 6 and 10), `siblings` (0..9,
  >9; Figure 7), `deprel` (universal part of DEPREL; Table 4b), `deprel_group`
  (root; subject = nsubj, csubj and their subtypes; object = obj, iobj,
  ccomp, xcomp and their subtypes), `direction` (left: head after the word,
  right: head before it, root), `projectivity` (2012 Table 8, 2017 §6.3) and
  `long_arcs` (root, 1-7, >7: the 2017 paper's precision on arcs longer
  than 7).

"Correct" means the right HEAD, and the right full DEPREL when labeled (as
LAS in `arcwise evaluate`); only the words the punctuation policy scores take
part, on both sides.  Summed over the bins of any arc factor, the precision
numerators are the correct words of `evaluate` and the denominators the
scored words with a predicted head.

Significance (`significance`): for every pair of systems and every bin, a
two-sided randomised stratified shuffling test (Yeh 2000; the paper's
footnote 8) with the *word* as the instance: every word whose two outcomes
differ has them swapped with probability 1/2.  For recall and accuracy a
word's outcome is "correct or not", the denominator being the same for both
systems.  For precision the two systems' arcs of a word may fall in
different bins, so a word's outcome in a bin is the pair (correct and in
the bin, in the bin) of each system; a shuffle swaps the pairs of the word
in every bin at once, and the statistic is the difference of the ratios
sum(correct) / sum(in bin).  One swap decision per word serves all bins
and factors of a pair.  A bin where either system has no word or arc gets
no test (p-value NaN, null in JSON): a ratio over nothing is undefined.  With unit="sentence" the instance is the sentence
instead (all its words swapped together: errors within a sentence are
correlated, so this is the more conservative test).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from arcwise.analysis.records import Records, Tree
from arcwise.core.errors import ArcwiseError
from arcwise.eval.metrics import percent, universal_relation
from arcwise.eval.significance import stratified_shuffle_ratios

UPOS_CLASSES = {
    "verb": ("VERB", "AUX"), "noun": ("NOUN", "PROPN"), "pronoun": ("PRON",),
    "adjective": ("ADJ",), "adverb": ("ADV",), "adposition": ("ADP",),
    "conjunction": ("CCONJ", "SCONJ"),
}
DEPREL_GROUPS = {"root": ("root",), "subject": ("nsubj", "csubj"),
                 "object": ("obj", "iobj", "ccomp", "xcomp")}
LONG_ARC = 7  # the 2017 paper: precision on arcs longer than 7
UNITS = ("word", "sentence")  # what a shuffle swaps between two systems


@dataclass(frozen=True)
class Factor:
    """A way of putting words (accuracy) or arcs (precision/recall) into named bins."""

    name: str  # the JSON key
    title: str
    kind: str  # "accuracy" or "arcs"
    bins: Callable[[Records], tuple[str, ...]]
    # accuracy: bin_of(records) -> per-word bin index (-1: in no bin)
    # arcs: bin_of(records, tree) -> per-word bin index of the arc HEAD -> word in `tree`
    bin_of: Callable
    optional_bins: tuple[str, ...] = ()  # dropped from the result when empty everywhere
    ordinal: bool = True  # bins in a meaningful order (a figure draws lines between them)


@dataclass
class FactorResult:
    """Counts per system and bin, percentages, and p-values per pair of systems and bin."""

    factor: Factor
    bins: tuple[str, ...]
    names: tuple[str, ...]
    # accuracy: correct, words; arcs: predicted_correct, predicted, gold_correct, gold.
    # Each an int64 array (systems, bins).
    counts: dict[str, np.ndarray]
    # (a, b) -> {"accuracy" or "precision"/"recall": p per bin}
    p_values: dict[tuple[int, int], dict[str, np.ndarray]] = field(default_factory=dict)
    kept: list[int] | None = None  # indices of the factor's bins kept (optional empty ones dropped)

    @property
    def metrics(self) -> tuple[str, ...]:
        return ("accuracy",) if self.factor.kind == "accuracy" else ("precision", "recall")

    def value(self, metric: str) -> np.ndarray:
        """Percentages (systems, bins) of `metric`."""
        correct, total = (self.counts[key] for key in METRIC_COUNTS[metric])
        return np.where(total > 0, 100.0 * correct / np.maximum(total, 1), 0.0)

    def to_dict(self) -> dict:
        """bin -> system -> {metric: %, counts..., "p_values": {other: {metric: p}}}."""
        out = {}
        for j, bin_name in enumerate(self.bins):
            row = {}
            for s, name in enumerate(self.names):
                entry = {}
                for metric in self.metrics:
                    c, t = METRIC_COUNTS[metric]
                    entry[metric] = percent(int(self.counts[c][s, j]), int(self.counts[t][s, j]))
                for key, array in self.counts.items():
                    entry[key] = int(array[s, j])
                entry["p_values"] = {
                    self.names[b if a == s else a]: {m: _json_p(p[m][j]) for m in self.metrics}
                    for (a, b), p in self.p_values.items() if s in (a, b)}
                row[name] = entry
            out[bin_name] = row
        return out


def _json_p(p: float) -> float | None:
    """None for an untested bin (NaN: a system has nothing there)."""
    return None if np.isnan(p) else float(p)


# the count arrays behind each metric: (numerator, denominator)
METRIC_COUNTS = {"accuracy": ("correct", "words"),
                 "precision": ("predicted_correct", "predicted"),
                 "recall": ("gold_correct", "gold")}


def _fixed(*names: str) -> Callable[[Records], tuple[str, ...]]:
    return lambda records: names


def _capped(values: np.ndarray, low: int, cap: int) -> np.ndarray:
    """Bin index of integer values low..cap-1 (one bin each) and >= cap (last bin); -1 below low."""
    return np.where(values < low, -1, np.minimum(values, cap) - low).astype(np.int32)


def _sentence_length_bin(records: Records) -> np.ndarray:
    return np.minimum((records.sentence_length - 1) // 10, 6).astype(np.int32)


def _upos_tags(records: Records) -> tuple[str, ...]:
    """Gold UPOS tags, most frequent first."""
    words = np.bincount(records.upos, minlength=len(records.upos_names))
    return tuple(sorted(records.upos_names, key=lambda t: (-words[records.upos_names.index(t)], t)))


def _upos_bin(records: Records) -> np.ndarray:
    position = {tag: k for k, tag in enumerate(_upos_tags(records))}
    lookup = np.array([position[t] for t in records.upos_names] or [-1], dtype=np.int32)
    return lookup[records.upos]


def _upos_class_bin(pronoun_det: bool) -> Callable:
    def bin_of(records: Records) -> np.ndarray:
        index = {tag: k for k, tags in enumerate(UPOS_CLASSES.values()) for tag in tags}
        if pronoun_det:
            index["DET"] = list(UPOS_CLASSES).index("pronoun")
        lookup = np.array([index.get(tag, -1) for tag in records.upos_names] or [-1],
                          dtype=np.int32)
        return lookup[records.upos]
    return bin_of


def _arc_length_bin(records: Records, tree: Tree) -> np.ndarray:
    # root arcs have length 0: bin 0 "root", then 1..14, >14
    return np.where(tree.has_arc, np.minimum(tree.arc_length, 15), -1).astype(np.int32)


def _root_distance_bin(records: Records, tree: Tree) -> np.ndarray:
    distance = np.where(tree.root_distance < 0, 8, np.minimum(tree.root_distance, 7))
    return np.where(tree.has_arc, distance - 1, -1).astype(np.int32)


def _siblings_bin(records: Records, tree: Tree) -> np.ndarray:
    return np.where(tree.has_arc, np.minimum(tree.siblings, 10), -1).astype(np.int32)


def _relations(records: Records) -> tuple[str, ...]:
    """Universal relations, most frequent in gold first, then those only systems use."""
    bases = [universal_relation(label) for label in records.labels]
    gold = np.bincount(records.gold.label, minlength=len(bases)) if len(records) else []
    frequency: dict[str, int] = {}
    for base, count in zip(bases, gold):
        frequency[base] = frequency.get(base, 0) + int(count)
    return tuple(sorted(frequency, key=lambda b: (-frequency[b], b)))


def _deprel_bin(records: Records, tree: Tree) -> np.ndarray:
    relations = {r: k for k, r in enumerate(_relations(records))}
    lookup = np.array([relations[universal_relation(label)] for label in records.labels] or [-1],
                      dtype=np.int32)
    return np.where(tree.has_arc, lookup[tree.label], -1).astype(np.int32)


def _deprel_group_bin(records: Records, tree: Tree) -> np.ndarray:
    group = {base: k for k, bases in enumerate(DEPREL_GROUPS.values()) for base in bases}
    lookup = np.array([group.get(universal_relation(label), -1) for label in records.labels]
                      or [-1], dtype=np.int32)
    return np.where(tree.has_arc, lookup[tree.label], -1).astype(np.int32)


def _direction_bin(records: Records, tree: Tree) -> np.ndarray:
    # bins: left (direction -1), right (+1), root (0 with an arc)
    index = np.where(tree.direction < 0, 0, np.where(tree.direction > 0, 1, 2))
    return np.where(tree.has_arc, index, -1).astype(np.int32)


def _projectivity_bin(records: Records, tree: Tree) -> np.ndarray:
    return np.where(tree.has_arc, tree.nonprojective.astype(np.int32), -1).astype(np.int32)


def _long_arcs_bin(records: Records, tree: Tree) -> np.ndarray:
    index = np.where(tree.arc_length == 0, 0, np.where(tree.arc_length <= LONG_ARC, 1, 2))
    return np.where(tree.has_arc, index, -1).astype(np.int32)


def factors(pronoun_det: bool = False) -> tuple[Factor, ...]:
    """Every factor, in the order of the report."""
    return (
        Factor("sentence_length", "Accuracy relative to sentence length", "accuracy",
               _fixed("1-10", "11-20", "21-30", "31-40", "41-50", "51-60", ">60"),
               _sentence_length_bin),
        Factor("arc_length", "Precision/recall relative to predicted/gold arc length", "arcs",
               _fixed("root", *map(str, range(1, 15)), ">14"), _arc_length_bin),
        Factor("root_distance", "Precision/recall relative to predicted/gold distance to root",
               "arcs", _fixed(*map(str, range(1, 7)), ">6", "cycle"), _root_distance_bin,
               optional_bins=("cycle",)),
        Factor("siblings", "Precision/recall relative to the number of predicted/gold siblings",
               "arcs", _fixed(*map(str, range(10)), ">9"), _siblings_bin),
        Factor("upos", "Accuracy relative to the dependent's UPOS", "accuracy",
               _upos_tags, _upos_bin, ordinal=False),
        Factor("upos_class", "Accuracy relative to the dependent's part-of-speech class"
               + (" (pronoun includes DET)" if pronoun_det else ""), "accuracy",
               _fixed(*UPOS_CLASSES), _upos_class_bin(pronoun_det), ordinal=False),
        Factor("deprel", "Precision/recall per dependency relation (universal part)", "arcs",
               _relations, _deprel_bin, ordinal=False),
        Factor("deprel_group", "Precision/recall for root, subject and object relations", "arcs",
               _fixed(*DEPREL_GROUPS), _deprel_group_bin, ordinal=False),
        Factor("direction", "Precision/recall of leftward and rightward arcs", "arcs",
               _fixed("left", "right", "root"), _direction_bin, ordinal=False),
        Factor("projectivity", "Precision/recall of projective and non-projective arcs", "arcs",
               _fixed("projective", "non-projective"), _projectivity_bin, ordinal=False),
        Factor("long_arcs", f"Precision/recall of arcs longer than {LONG_ARC}", "arcs",
               _fixed("root", f"1-{LONG_ARC}", f">{LONG_ARC}"), _long_arcs_bin),
    )


@dataclass(frozen=True)
class BinnedFactor:
    """A factor's bins and the bin of every word, before counting."""

    factor: Factor
    bins: tuple[str, ...]
    gold: np.ndarray  # accuracy: the word's bin; arcs: bin of the gold arc
    systems: tuple[np.ndarray, ...]  # arcs: bin of each system's arc (empty for accuracy)


def bin_words(factor: Factor, records: Records) -> BinnedFactor:
    """Put every word (or its gold and predicted arcs) into the factor's bins."""
    bins = tuple(factor.bins(records))
    if factor.kind == "accuracy":
        return BinnedFactor(factor, bins, factor.bin_of(records), ())
    return BinnedFactor(factor, bins, factor.bin_of(records, records.gold),
                        tuple(factor.bin_of(records, tree) for tree in records.systems))


def count(binned: BinnedFactor, correct: list[np.ndarray], scored: np.ndarray,
          names: tuple[str, ...]) -> FactorResult:
    """Per-system counts of every bin (no significance yet)."""
    size = len(binned.bins)

    def tally(bins: np.ndarray, mask: np.ndarray) -> np.ndarray:
        keep = mask & (bins >= 0)
        return np.bincount(bins[keep], minlength=size)[:size].astype(np.int64)

    if binned.factor.kind == "accuracy":
        counts = {"correct": np.array([tally(binned.gold, scored & c) for c in correct]),
                  "words": np.array([tally(binned.gold, scored)] * len(correct))}
    else:
        counts = {
            "predicted_correct": np.array([tally(b, scored & c)
                                           for b, c in zip(binned.systems, correct)]),
            "predicted": np.array([tally(b, scored) for b in binned.systems]),
            "gold_correct": np.array([tally(binned.gold, scored & c) for c in correct]),
            "gold": np.array([tally(binned.gold, scored)] * len(correct)),
        }
    for array in counts.values():
        array.shape = (len(correct), size)
    result = FactorResult(binned.factor, binned.bins, names, counts)
    return _drop_empty_optional(result)


def _drop_empty_optional(result: FactorResult) -> FactorResult:
    keep = [j for j, b in enumerate(result.bins)
            if b not in result.factor.optional_bins
            or any(a[:, j].any() for a in result.counts.values())]
    if len(keep) == len(result.bins):
        return result
    result.bins = tuple(result.bins[j] for j in keep)
    result.counts = {k: a[:, keep] for k, a in result.counts.items()}
    result.kept = keep
    return result


def factor_results(records: Records, labeled: bool = True, punct: str = "include",
                   samples: int = 10_000, seed: int = 0, pronoun_det: bool = False,
                   which: tuple[str, ...] | None = None, unit: str = "word"
                   ) -> list[FactorResult]:
    """Every factor (or those named in `which`) counted and tested for every pair of systems;
    unit: what the shuffles swap, "word" (default) or "sentence"."""
    if unit not in UNITS:
        raise ArcwiseError(f"unknown shuffling unit {unit!r}: use {' or '.join(UNITS)}")
    scored = records.scored(punct)
    correct = [records.correct(s, labeled) for s in range(len(records.systems))]
    chosen = [f for f in factors(pronoun_det) if which is None or f.name in which]
    binned = [bin_words(f, records) for f in chosen]
    results = [count(b, correct, scored, records.names) for b in binned]
    if samples > 0:
        instance = records.sentence if unit == "sentence" else np.arange(len(records))
        significance(binned, results, correct, scored, samples, seed, instance)
    return results


def significance(binned: list[BinnedFactor], results: list[FactorResult],
                 correct: list[np.ndarray], scored: np.ndarray, samples: int, seed: int,
                 instance: np.ndarray) -> None:
    """Fill every result's p_values: one shuffling run per pair of systems over all bins
    of all factors (see the module docstring for what a word's outcome is); instance[w]
    is the unit word w is swapped with."""
    systems = len(correct)
    for a, b in combinations(range(systems), 2):
        columns = [[] for _ in range(6)]  # instance, group, ca, na, cb, nb
        layout = []  # (result, metric, first group, bins)
        groups = 0
        words = np.flatnonzero(scored)
        for binned_factor, result in zip(binned, results):
            sides = _sides(binned_factor, a, b, correct)
            for metric, (bins_a, bins_b, ok_a, ok_b, size) in sides.items():
                for column, values in zip(columns, _rows(instance[words], bins_a[words],
                                                         bins_b[words], ok_a[words],
                                                         ok_b[words])):
                    column.append(values + groups if column is columns[1] else values)
                layout.append((result, metric, groups, size))
                groups += size
        arrays = [np.concatenate(c) if c else np.zeros(0, dtype=np.int64) for c in columns]
        p = stratified_shuffle_ratios(*arrays, groups=groups, samples=samples, seed=seed)
        for result, metric, first, size in layout:
            values = p[first:first + size]
            values = values[result.kept] if result.kept is not None else values.copy()
            # a ratio over nothing is undefined, not 0: no test where a system has no arc
            total = result.counts[METRIC_COUNTS[metric][1]]
            values[(total[a] == 0) | (total[b] == 0)] = np.nan
            result.p_values.setdefault((a, b), {})[metric] = values


def _sides(binned: BinnedFactor, a: int, b: int, correct: list[np.ndarray]) -> dict:
    """metric -> (A's bins, B's bins, A correct, B correct, number of bins) per word."""
    size = len(binned.bins)
    if binned.factor.kind == "accuracy":
        return {"accuracy": (binned.gold, binned.gold, correct[a], correct[b], size)}
    return {"precision": (binned.systems[a], binned.systems[b], correct[a], correct[b], size),
            "recall": (binned.gold, binned.gold, correct[a], correct[b], size)}


def _rows(words, bins_a, bins_b, ok_a, ok_b):
    """Test rows (instance, group, ca, na, cb, nb) of one factor side: one per word whose
    two arcs share a bin, one per arc otherwise (no row for an arc in no bin)."""
    ok_a = ok_a.astype(np.int64)
    ok_b = ok_b.astype(np.int64)
    same = bins_a == bins_b
    both = same & (bins_a >= 0)
    only_a = ~same & (bins_a >= 0)
    only_b = ~same & (bins_b >= 0)
    zeros_a = np.zeros(int(only_a.sum()), dtype=np.int64)
    zeros_b = np.zeros(int(only_b.sum()), dtype=np.int64)
    ones = np.ones(int(both.sum()), dtype=np.int64)
    return (np.concatenate([words[both], words[only_a], words[only_b]]),
            np.concatenate([bins_a[both], bins_a[only_a], bins_b[only_b]]).astype(np.int64),
            np.concatenate([ok_a[both], ok_a[only_a], zeros_b]),
            np.concatenate([ones, zeros_a + 1, zeros_b]),
            np.concatenate([ok_b[both], zeros_a, ok_b[only_b]]),
            np.concatenate([ones, zeros_a, zeros_b + 1]))


def label_confusions(records: Records, punct: str = "include", top: int = 20) -> dict:
    """Per system, the most frequent (gold DEPREL, predicted DEPREL) pairs that differ, as
    MaltEval's confusion matrix: count, and how many of those words had the right HEAD."""
    scored = records.scored(punct)
    size = len(records.labels)
    out = {}
    for s, name in enumerate(records.names):
        tree = records.systems[s]
        wrong = scored & tree.has_arc & (tree.label != records.gold.label)
        pair = records.gold.label[wrong].astype(np.int64) * size + tree.label[wrong]
        head_ok = (tree.head == records.gold.head)[wrong]
        codes, counts = np.unique(pair, return_counts=True)
        with_head = np.bincount(np.searchsorted(codes, pair), weights=head_ok,
                                minlength=len(codes))
        order = np.lexsort((codes, -counts))[:top]
        out[name] = [{"gold": records.labels[codes[k] // size],
                      "predicted": records.labels[codes[k] % size],
                      "count": int(counts[k]), "head_correct": int(with_head[k])}
                     for k in order]
    return out
