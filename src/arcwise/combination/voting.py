"""Parser combination: arc voting with reparsing, and the two oracle combinations of the 2011 paper.

Every method sees, per sentence, the trees k systems gave it (same words,
same order) and returns one tree, head and deprel with n + 1 entries:

- `vote` (Sagae & Lavie 2006): arc h -> m scores the summed weights of the
  systems that propose it; the output is the maximum spanning tree over
  those scores (Chu-Liu-Edmonds), so it is always a tree, made of proposed
  arcs only whenever one system gave a tree.  A system's weight is one
  number (default 1), or depends on the dependent's UPOS (as the first
  system's file gives it): the system's UAS on gold words with that tag on
  held-out data (`estimate_upos_weights`;
  Sagae & Lavie weigh by "the accuracy of each parser for the part of speech
  of the dependent", 2011 paper §4.4).  The label of a chosen arc is the
  weighted majority among the systems that propose it (ties: the first of
  them in the order the systems were given).  Equal-scoring trees are
  resolved by the decoder.
- `oracle_graph` (§4.4, first experiment): the whole tree of the system with
  the most correct attachments in this sentence (LAS: HEAD and DEPREL; UAS:
  HEAD), the first such system on ties.
- `oracle_arc` (§4.4, second experiment): the best tree made only of arcs
  some system proposes.  An arc scores, lexicographically, (1) whether it is
  correct under the chosen metric, (2) whether it is correct under the
  other one, (3) the share of systems proposing it, as a tie-break; the
  maximum spanning tree then has the most correct attachments any tree of
  proposed arcs can have, so it is at least as good as every system whose
  output is a tree.  Its label is the gold one when a proposing system has
  it, else the weighted majority as in `vote`.  (The paper scores correct
  arcs 1 and unproposed ones minus infinity; with 0 for wrong arcs, the
  paper's maximum is the same.)

Unproposed arcs get a finite score below any tree of proposed arcs, so the
decoder still returns a tree when the systems' outputs are not trees.  The
oracles score every word (no punctuation policy).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from arcwise.core.corpus import Sentence
from arcwise.core.errors import ArcwiseError
from arcwise.eval.metrics import check_aligned, evaluate
from arcwise.graph.chu_liu_edmonds import chu_liu_edmonds
from arcwise.trees.roots import single_rooted

METHODS = ("vote", "oracle-graph", "oracle-arc")
ORACLE_METRICS = ("las", "uas")
Tree = tuple[np.ndarray, tuple[str, ...]]  # head (int32, n + 1, head[0] = -1), deprel (n + 1)


@dataclass(frozen=True)
class UposWeights:
    """Per-system weights that depend on the UPOS of the dependent."""

    by_upos: dict[str, np.ndarray]  # tag -> float64 [k], one weight per system
    overall: np.ndarray  # float64 [k], for tags the estimate never saw

    def of(self, upos: Sequence[str]) -> np.ndarray:
        """Weights [k, n + 1] of each system's arc into each word (column 0 unused)."""
        return np.stack([self.overall, *(self.by_upos.get(t, self.overall) for t in upos[1:])],
                        axis=1)


def estimate_upos_weights(gold: Sequence[Sentence],
                          outputs: Sequence[Sequence[Sentence]]) -> UposWeights:
    """Each system's UAS (a fraction) per gold UPOS of the dependent, from held-out data.

    `outputs[j]` is system j's output for the `gold` sentences; every word
    is scored (punctuation included).  Tags the data lacks get the system's
    overall UAS.
    """
    scores = [evaluate(gold, output) for output in outputs]
    tags = dict.fromkeys(tag for s in scores for tag in s.by_upos)
    by_upos = {tag: np.array([s.by_upos[tag].head_correct / s.by_upos[tag].words
                              for s in scores]) for tag in tags}
    return UposWeights(by_upos, np.array([s.uas / 100 for s in scores]))


def vote(trees: Sequence[Sentence], weights: np.ndarray, single_root: bool = True) -> Tree:
    """Weighted arc voting with reparsing by maximum spanning tree (Sagae & Lavie 2006).

    `trees` are k systems' analyses of one sentence; `weights[j, m]` is the
    vote of system j's arc into word m (shape [k, n + 1]; or [k] for one
    weight per system), non-negative.
    """
    heads = _heads(trees)
    weights = np.broadcast_to(np.asarray(weights, dtype=np.float64).reshape(len(trees), -1),
                              heads.shape)
    scores, proposed = _proposals(heads, weights)
    head = _decode(scores, proposed, single_root)
    return head, _labels(trees, heads, weights, head)


def oracle_graph(trees: Sequence[Sentence], gold: Sentence, metric: str = "las",
                 single_root: bool = True) -> Tree:
    """The tree of the system with the most correct attachments (first on ties);
    with single_root, its roots after the first are attached to the first
    (`arcwise.trees.roots.single_rooted`)."""
    _check_metric(metric)
    correct = [np.count_nonzero(_correct(t, gold, metric)) for t in trees]
    best = trees[int(np.argmax(correct))]
    if single_root:
        return single_rooted(best.head.copy(), best.deprel)
    return best.head.copy(), best.deprel


def oracle_arc(trees: Sequence[Sentence], gold: Sentence, metric: str = "las",
               single_root: bool = True) -> Tree:
    """The best tree made of arcs some system proposes (see the module docstring)."""
    _check_metric(metric)
    heads = _heads(trees)
    k, n = len(trees), gold.n
    agreement, proposed = _proposals(heads, np.full(heads.shape, 1.0 / (k + 1)))
    words = np.arange(1, n + 1)
    gold_head = gold.head[1:]
    head_found = (gold_head >= 0) & proposed[np.maximum(gold_head, 0), words]
    label_found = np.zeros(n, dtype=bool)
    for tree in trees:
        label_found |= _correct(tree, gold, "las")
    uas_found, las_found = head_found, head_found & label_found
    first, second = (las_found, uas_found) if metric == "las" else (uas_found, las_found)
    # lexicographic in one float: sums of the lower terms over n words never reach the next unit
    unit = float(n + 1)
    scores = agreement  # (3), below 1 per word
    scores[gold_head[head_found], words[head_found]] += (
        first[head_found] * unit * unit + second[head_found] * unit)  # (1) and (2)
    head = _decode(scores, proposed, single_root)
    deprel = list(_labels(trees, heads, np.ones(heads.shape), head))
    for m in words[las_found & (head[1:] == gold_head)]:
        deprel[m] = gold.deprel[m]
    return head, tuple(deprel)


def combine(outputs: Sequence[Sequence[Sentence]], method: str, *,
            gold: Sequence[Sentence] | None = None,
            weights: Sequence[float] | UposWeights | None = None,
            metric: str = "las", single_root: bool = True) -> Iterator[Tree]:
    """One combined tree per sentence of k systems' `outputs` (lists of Sentences).

    `method` is "vote" (weights: one number per system, a UposWeights, or
    None for 1 each), "oracle-graph" or "oracle-arc" (both need `gold`;
    `metric` is what they maximise).  single_root: every tree has exactly one
    word attached to 0 (as UD demands); False allows several.  Raises
    InputError when the outputs (or
    gold) do not have the same sentences and words.
    """
    if method not in METHODS:
        raise ArcwiseError(f"unknown combination method {method!r}: use {', '.join(METHODS)}")
    if not outputs:
        raise ArcwiseError("nothing to combine: give at least one system output")
    for k, output in enumerate(outputs[1:], start=2):
        check_aligned(outputs[0], output, names=("system 1", f"system {k}"))
    if method != "vote":
        if gold is None:
            raise ArcwiseError(f"--method {method} needs the gold standard (--gold)")
        for k, output in enumerate(outputs, start=1):
            check_aligned(gold, output, names=("gold", f"system {k}"))
    per_system = _system_weights(weights, len(outputs)) if method == "vote" else None
    for k, trees in enumerate(zip(*outputs)):
        if method == "vote":
            w = weights.of(trees[0].upos) if isinstance(weights, UposWeights) else per_system
            yield vote(trees, w, single_root)
        elif method == "oracle-graph":
            yield oracle_graph(trees, gold[k], metric, single_root)
        else:
            yield oracle_arc(trees, gold[k], metric, single_root)


def _system_weights(weights, k: int) -> np.ndarray | None:
    if weights is None:
        return np.ones(k)
    if isinstance(weights, UposWeights):
        if len(weights.overall) != k:
            raise ArcwiseError(f"{len(weights.overall)} per-UPOS weights for {k} systems")
        return None
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (k,):
        raise ArcwiseError(f"{len(w)} weights for {k} systems: give one per system")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ArcwiseError(f"weights must be finite and non-negative, not {list(weights)}")
    return w


def _check_metric(metric: str) -> None:
    if metric not in ORACLE_METRICS:
        raise ArcwiseError(f"unknown metric {metric!r}: use {' or '.join(ORACLE_METRICS)}")


def _heads(trees: Sequence[Sentence]) -> np.ndarray:
    """The systems' heads as one int32 array [k, n + 1]."""
    return np.stack([t.head for t in trees]).astype(np.int32, copy=False)


def _correct(tree: Sentence, gold: Sentence, metric: str) -> np.ndarray:
    """Mask over words 1..n of the tree's correct attachments."""
    ok = (tree.head[1:] == gold.head[1:]) & (gold.head[1:] >= 0)
    if metric == "las":
        ok &= np.fromiter(map(str.__eq__, tree.deprel[1:], gold.deprel[1:]),
                          dtype=bool, count=gold.n)
    return ok


def _proposals(heads: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Score matrix [h, m] summing values[j, m] over the systems j proposing h -> m, and
    the mask of proposed arcs.  Missing heads (-1) and self-loops propose nothing."""
    size = heads.shape[1]
    scores = np.zeros((size, size))
    proposed = np.zeros((size, size), dtype=bool)
    words = np.arange(size)
    for head, value in zip(heads, values):
        real = (head >= 0) & (head != words)
        real[0] = False
        np.add.at(scores, (head[real], words[real]), value[real])
        proposed[head[real], words[real]] = True
    return scores, proposed


def _decode(scores: np.ndarray, proposed: np.ndarray, single_root: bool) -> np.ndarray:
    """Maximum spanning tree, never using an unproposed arc when proposed ones make a tree.
    Overwrites the unproposed entries of `scores`."""
    n = scores.shape[0] - 1
    # any arc below this loses to every tree of proposed arcs (scores are >= 0)
    scores[~proposed] = -(1.0 + n * max(float(scores.max()), 0.0))
    return chu_liu_edmonds(scores, single_root)


def _labels(trees: Sequence[Sentence], heads: np.ndarray, weights: np.ndarray,
            head: np.ndarray) -> tuple[str, ...]:
    """Per word, the weighted majority label of the systems proposing head[m] -> m
    (of all systems if none does); ties go to the earliest system."""
    deprel = [trees[0].deprel[0]]
    words = zip(head.tolist(), heads.T.tolist(), weights.T.tolist(),
                zip(*(t.deprel for t in trees)))
    next(words)  # the root
    for chosen, proposed, votes, labels in words:
        voters = [j for j, h in enumerate(proposed) if h == chosen] or range(len(trees))
        tally: dict[str, float] = {}
        for j in voters:
            tally[labels[j]] = tally.get(labels[j], 0.0) + votes[j]
        deprel.append(max(tally, key=tally.__getitem__))
    return tuple(deprel)
