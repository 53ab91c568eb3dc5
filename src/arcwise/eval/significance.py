"""Is system A's attachment score really different from system B's?  Paired tests over sentences.

Both tests resample whole sentences, the unit the errors of a parser are
correlated within, and work on per-sentence counts (`sentence_counts`): the
score of a sample is sum(correct) / sum(scored words) over its sentences,
the corpus-level UAS or LAS that `evaluate` reports.  Samples are drawn with
a seeded numpy Generator, vectorised over thousands of samples at a time:
the same inputs, samples and seed give the same p-value.

- `paired_bootstrap` (Koehn 2004; Berg-Kirkpatrick, Burkett & Klein 2012):
  draw the test set's sentences with replacement, and look at the
  difference delta(x*) = score_A(x*) - score_B(x*) of each bootstrap sample
  x*.  Koehn counts the samples where A does not win, delta(x*) <= 0.  The
  bootstrap distribution is centred on the observed delta(x), not on the
  null hypothesis' 0, so Berg-Kirkpatrick et al. (§2) shift
  it: p = share of samples with delta(x*) - delta(x) >= delta(x), i.e.
  delta(x*) >= 2 delta(x).  That is the p-value used here; it is one-sided,
  for "A is better than B", the test one runs after seeing A ahead (for a
  symmetric bootstrap distribution both counts agree).  Ties count against
  A (>=, where their pseudo-code has >), so identical systems get p = 1.
  The value is the plain share, so it can be 0 (meaning p < 1/samples).
- `stratified_shuffle` (Yeh 2000; Bikel's comparator, used by the CoNLL-X
  organisers): approximate randomisation in which each sentence (the
  stratum) has the two systems' outputs swapped with probability 1/2;
  p = (r + 1) / (R + 1), where r of the R shuffles have a difference at
  least as large in absolute value as the observed one: two-sided, "A and B
  differ".  Both systems are scored on the same gold words, so the
  denominator is fixed and the comparison is exact in integers.
- `stratified_shuffle_ratios`: the same test for many ratios at once (the
  per-bin precision, recall and accuracy of the error analysis, McDonald &
  Nivre 2011, footnote 8), with any instance as the stratum (a word there);
  compiled, and exact up to ties closer than 1e-12 (see its docstring).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from arcwise.core.corpus import Sentence
from arcwise.core.errors import ArcwiseError
from arcwise.core.jit import njit
from arcwise.eval.metrics import percent, sentence_counts

METRICS = ("las", "uas")
TESTS = ("bootstrap", "shuffle")
CELLS_PER_BATCH = 2_000_000  # samples x sentences drawn at once: bounds memory (~16 MB)


def paired_bootstrap(correct_a: np.ndarray, correct_b: np.ndarray, words: np.ndarray,
                     samples: int = 10_000, seed: int = 0) -> float:
    """One-sided p-value of "A scores higher than B" by the paired bootstrap over sentences.

    `correct_a`, `correct_b` and `words` hold, per sentence, each system's
    correct words and the scored words.  p = share of bootstrap samples x*
    with delta(x*) >= 2 delta(x) (Berg-Kirkpatrick et al. 2012; see the
    module docstring).
    """
    diff, words = _paired(correct_a, correct_b, words, samples)
    observed, total = int(diff.sum()), int(words.sum())
    rng = np.random.default_rng(seed)
    n = len(diff)
    at_least = 0
    for batch in _batches(samples, n):
        drawn = rng.integers(0, n, size=(batch, n))
        sample_diff, sample_words = diff[drawn].sum(axis=1), words[drawn].sum(axis=1)
        # delta* >= 2 delta  <=>  D*/W* >= 2 D/W  <=>  D* W >= 2 D W*  (W, W* > 0; exact);
        # a sample without scored words has delta* = 0
        hits = np.where(sample_words > 0, sample_diff * total >= 2 * observed * sample_words,
                        observed <= 0)
        at_least += int(np.count_nonzero(hits))
    return at_least / samples


def stratified_shuffle(correct_a: np.ndarray, correct_b: np.ndarray,
                       samples: int = 10_000, seed: int = 0) -> float:
    """Two-sided p-value of "A and B differ" by randomised stratified shuffling (Yeh 2000).

    Each shuffle swaps the two systems' outputs of every sentence with
    probability 1/2; p = (r + 1) / (R + 1), r = shuffles whose ``|difference|``
    is at least the observed one.
    """
    diff, _ = _paired(correct_a, correct_b, None, samples)
    observed = int(diff.sum())
    diff = diff[diff != 0]  # swapping a sentence both systems score alike changes nothing
    if len(diff) == 0:
        return 1.0  # every shuffle has the observed difference, 0
    rng = np.random.default_rng(seed)
    at_least = 0
    for batch in _batches(samples, len(diff)):
        swapped = rng.random((batch, len(diff))) < 0.5
        # exact: integers well below 2**53 in float64
        shuffled = observed - 2 * (swapped.astype(np.float64) @ diff.astype(np.float64))
        at_least += int(np.count_nonzero(np.abs(shuffled) >= abs(observed)))
    return (at_least + 1) / (samples + 1)


@dataclass(frozen=True)
class Comparison:
    """Two systems' scores on the same gold words, and the p-value of a paired test."""

    metric: str  # "las" or "uas"
    test: str  # "bootstrap" or "shuffle"
    punct: str
    samples: int
    seed: int
    sentences: int
    words: int  # scored gold words
    correct_a: int
    correct_b: int
    p_value: float

    @property
    def score_a(self) -> float:
        return percent(self.correct_a, self.words)

    @property
    def score_b(self) -> float:
        return percent(self.correct_b, self.words)

    @property
    def difference(self) -> float:
        """score_a - score_b, in points."""
        return self.score_a - self.score_b

    @property
    def hypothesis(self) -> str:
        """What the p-value is for: the bootstrap tests the observed winner's lead."""
        if self.test == "shuffle":
            return "A and B differ (two-sided)"
        if self.correct_b > self.correct_a:
            return "B is better than A (one-sided)"
        return "A is better than B (one-sided)"

    def to_dict(self) -> dict:
        return {"metric": self.metric, "test": self.test, "punct": self.punct,
                "samples": self.samples, "seed": self.seed, "sentences": self.sentences,
                "words": self.words, "correct_a": self.correct_a, "correct_b": self.correct_b,
                "score_a": self.score_a, "score_b": self.score_b, "difference": self.difference,
                "hypothesis": self.hypothesis, "p_value": self.p_value}


def compare(gold: Iterable[Sentence], system_a: Iterable[Sentence], system_b: Iterable[Sentence],
            metric: str = "las", test: str = "bootstrap", samples: int = 10_000, seed: int = 0,
            punct: str = "include") -> Comparison:
    """Score A and B against `gold` (as `evaluate` does) and test the difference.

    The bootstrap p-value is for the lead of whichever system scored higher
    (A on a tie); the shuffle p-value is two-sided.  Raises InputError when
    a system's sentences or words do not match gold's.
    """
    if metric not in METRICS:
        raise ArcwiseError(f"unknown metric {metric!r}: use {' or '.join(METRICS)}")
    if test not in TESTS:
        raise ArcwiseError(f"unknown test {test!r}: use {' or '.join(TESTS)}")
    gold = list(gold)
    a = sentence_counts(gold, system_a, punct)
    b = sentence_counts(gold, system_b, punct)
    field = "labeled_correct" if metric == "las" else "head_correct"
    correct_a, correct_b = getattr(a, field), getattr(b, field)
    if test == "shuffle":
        p = stratified_shuffle(correct_a, correct_b, samples, seed)
    elif correct_b.sum() > correct_a.sum():
        p = paired_bootstrap(correct_b, correct_a, a.scored_words, samples, seed)
    else:
        p = paired_bootstrap(correct_a, correct_b, a.scored_words, samples, seed)
    return Comparison(metric=metric, test=test, punct=punct, samples=samples, seed=seed,
                      sentences=len(gold), words=int(a.scored_words.sum()),
                      correct_a=int(correct_a.sum()), correct_b=int(correct_b.sum()), p_value=p)


def stratified_shuffle_ratios(instance, group, correct_a, total_a, correct_b, total_b,
                              groups: int, samples: int = 10_000, seed: int = 0) -> np.ndarray:
    """Two-sided p-value, per group, of "A's ratio and B's ratio differ", by stratified shuffling.

    Each row k is one contribution: instance `instance[k]` adds
    correct_a[k] / total_a[k] to system A's counts of group `group[k]` and
    correct_b[k] / total_b[k] to B's.  A group's score is sum(correct) /
    sum(total) (0 when the total is 0), its statistic ``|score_A - score_B|``.
    Each shuffle swaps A's and B's contributions of every instance with
    probability 1/2 -- all of an instance's rows together, whatever their
    group -- and p = (r + 1) / (R + 1) with r the shuffles whose statistic
    is at least the observed one (minus 1e-12, so that float rounding never
    breaks a tie against the null hypothesis).  An instance may contribute
    to A and B in different groups (row with total_b = 0 in one, total_a =
    0 in the other); rows alike for A and B change nothing and are skipped,
    so identical systems get p = 1.  Returns float64 p-values of length
    `groups`.  Swap decisions are bits of a seeded numpy PCG64 stream: the
    same inputs and seed give the same p-values, compiled or not.
    """
    arrays = [np.asarray(a, dtype=np.int64) for a in
              (instance, group, correct_a, total_a, correct_b, total_b)]
    instance, group, correct_a, total_a, correct_b, total_b = arrays
    if samples < 1:
        raise ArcwiseError(f"the number of samples must be positive, not {samples}")
    base = [np.bincount(group, weights=w, minlength=groups).astype(np.int64)
            for w in (correct_a, total_a, correct_b, total_b)]
    differ = (correct_a != correct_b) | (total_a != total_b)
    if not differ.any():
        return np.ones(groups)
    used, compact = np.unique(instance[differ], return_inverse=True)
    order = np.lexsort((compact, group[differ]))  # by group, then instance
    row_group = group[differ][order]
    row_instance = compact[order].astype(np.int64)
    delta_correct = (correct_b - correct_a)[differ][order]  # what a swap adds to A's counts
    delta_total = (total_b - total_a)[differ][order]
    group_start = np.searchsorted(row_group, np.arange(groups + 1)).astype(np.int64)
    rng = np.random.default_rng(seed)
    at_least = np.zeros(groups, dtype=np.int64)
    for batch in _batches(samples, max(1, len(used) // 8)):  # ~16 MB of swap bytes
        # swapped[i, r] = 1 when shuffle r swaps instance i: bits of a seeded stream
        raw = np.frombuffer(rng.bytes(len(used) * ((batch + 7) // 8)), dtype=np.uint8)
        swapped = np.unpackbits(raw.reshape(len(used), -1), axis=1)[:, :batch]
        at_least += _shuffled_ratio_counts(np.ascontiguousarray(swapped), row_instance,
                                           group_start, delta_correct, delta_total, *base)
    return (at_least + 1) / (samples + 1)


@njit(cache=True)
def _ratio_difference(ca, na, cb, nb):
    a = ca / na if na > 0 else 0.0
    b = cb / nb if nb > 0 else 0.0
    return abs(a - b)


@njit(cache=True)
def _shuffled_ratio_counts(swapped, instance, group_start, delta_correct, delta_total,
                           base_ca, base_na, base_cb, base_nb):
    """Per group, how many shuffles (columns of `swapped`) reach the observed |difference|.

    Rows are sorted by group; a swapped row moves delta_correct / delta_total
    from B's counts to A's.  The inner loops run over shuffles, contiguous.
    """
    groups = len(base_ca)
    shuffles = swapped.shape[1]
    at_least = np.zeros(groups, dtype=np.int64)
    moved_correct = np.empty(shuffles, dtype=np.int64)
    moved_total = np.empty(shuffles, dtype=np.int64)
    for g in range(groups):
        first, last = group_start[g], group_start[g + 1]
        if first == last:
            at_least[g] = shuffles  # nothing can move: every shuffle ties the observed value
            continue
        moved_correct[:] = 0
        moved_total[:] = 0
        for k in range(first, last):
            row = swapped[instance[k]]
            dc = delta_correct[k]
            dn = delta_total[k]
            for r in range(shuffles):
                moved_correct[r] += row[r] * dc
                moved_total[r] += row[r] * dn
        observed = _ratio_difference(base_ca[g], base_na[g], base_cb[g], base_nb[g]) - 1e-12
        for r in range(shuffles):
            if _ratio_difference(base_ca[g] + moved_correct[r], base_na[g] + moved_total[r],
                                 base_cb[g] - moved_correct[r],
                                 base_nb[g] - moved_total[r]) >= observed:
                at_least[g] += 1
    return at_least


def _paired(correct_a, correct_b, words, samples: int):
    """Per-sentence differences (int64) and scored words, checked."""
    if samples < 1:
        raise ArcwiseError(f"the number of samples must be positive, not {samples}")
    correct_a = np.asarray(correct_a, dtype=np.int64)
    correct_b = np.asarray(correct_b, dtype=np.int64)
    if correct_a.shape != correct_b.shape or correct_a.ndim != 1:
        raise ValueError("per-sentence counts of A and B must be 1-d arrays of equal length")
    if words is not None:
        words = np.asarray(words, dtype=np.int64)
        if words.shape != correct_a.shape:
            raise ValueError("per-sentence word counts must match the correct counts")
        if words.sum() == 0:
            raise ArcwiseError("no scored words: nothing to compare")
    return correct_a - correct_b, words


def _batches(samples: int, sentences: int):
    """Batch sizes that add up to `samples`, each batch about CELLS_PER_BATCH cells."""
    size = max(1, CELLS_PER_BATCH // max(sentences, 1))
    for start in range(0, samples, size):
        yield min(size, samples - start)
