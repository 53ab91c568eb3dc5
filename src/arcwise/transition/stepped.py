"""Parsing and training with any `arcwise.transition.scorers.scorer.Scorer`, step by step.

Many sentences advance together, one transition each per step, through the
compiled batched steps of `arcwise.transition.steps`; the scorer is called once per
step for every configuration still running.  `ScorerParser` is the parser of
such a model; `train_epoch` one pass of training over a treebank.

The steps choose among the *decisions* of a configuration: the model's classes for a
fixed system; for a parameterised system (covington-nl) its (action id, label) pairs,
which the scorer scores from a row per candidate k (`arcwise.transition.candidates.Decisions`).
"""

from __future__ import annotations

import numpy as np

from arcwise.features.templates import compile_addresses
from arcwise.learn import perceptron as pc
from arcwise.transition import candidates, steps

STOPPED = np.iinfo(np.int64).max // 2  # a step count that takes a row out of `running_rows`


class Stepper:
    """The compiled steps of one system over a batch of sentences (see `arcwise.transition.steps`)."""

    def __init__(self, kernels, classes: pc.ClassSet, scorer, batch) -> None:
        self.kernels = kernels
        self.classes = classes
        self.scorer = scorer
        self.batch = batch
        self.sizes = (np.diff(batch.offsets) - 1).astype(np.int64)
        self.states = steps.initial_states(kernels.system_id, kernels.options, self.sizes)
        self.counts = np.zeros(len(self.sizes), dtype=np.int64)
        self.addresses = (compile_addresses(scorer.addresses, kernels.system_id)
                          if scorer.addresses else None)
        # what the steps choose among: the classes, or a parameterised system's decisions
        self.candidates = None
        self.decisions = classes
        if kernels.parameterised is not None:
            if self.addresses is None:
                raise ValueError(f"{kernels.name}'s candidates are scored from the words a "
                                 "scorer reads (addresses)")
            self.candidates = candidates.Decisions(kernels, classes,
                                                   int(self.sizes.max(initial=0)))
            self.decisions = self.candidates.classes

    def running(self) -> np.ndarray:
        return steps.running_rows(self.kernels.system_id, self.states, self.counts)

    def legal(self, rows: np.ndarray) -> np.ndarray:
        legal = np.zeros((len(rows), self.decisions.n_classes), dtype=np.bool_)
        steps.legal_classes(self.kernels.system_id, self.states, rows,
                            self.decisions.transition, legal)
        return legal

    def positions(self, rows: np.ndarray) -> np.ndarray | candidates.CandidateRows:
        """The words the scorer reads: [rows, addresses], or a parameterised system's
        `CandidateRows` (a row per candidate k)."""
        if self.candidates is not None:
            return self.candidates.rows(self.kernels.system_id, self.states, rows,
                                        self.addresses, self.batch.offsets)
        if self.addresses is None:  # a scorer that reads the whole configuration
            return np.empty((len(rows), 0), dtype=np.int64)
        program, wanted = self.addresses
        out = np.empty((len(rows), len(wanted)), dtype=np.int64)
        steps.positions(self.kernels.system_id, self.states, rows, program, wanted,
                        self.batch.offsets, out)
        return out

    def apply(self, rows: np.ndarray, classes: np.ndarray) -> None:
        steps.apply(self.kernels.system_id, self.states, rows, classes,
                    self.decisions.transition, self.decisions.label, self.counts)
        self.counts[rows[classes < 0]] = STOPPED

    def trees(self, root_label: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        size = len(self.batch.words)
        heads = np.empty(size, dtype=np.int32)
        labels = np.empty(size, dtype=np.int32)
        made = np.empty(size, dtype=np.bool_)
        steps.final_trees(self.states, root_label, self.batch.offsets, heads, labels, made)
        return heads, labels, made


def parse(scorer, kernels, classes: pc.ClassSet, batch, root_label: int, trace: bool = False):
    """Greedy parses of an encoded batch: flat (heads, label ids, made) as `parse_batch`,
    and with trace also (built_by, reheadings, reheading_offsets)."""
    context = scorer.encode(batch, train=False)
    stepper = Stepper(kernels, classes, scorer, batch)
    decisions = stepper.decisions
    if trace:
        built_by = np.full(len(batch.words), -1, dtype=np.int32)
        room = steps.reheading_room(batch.offsets)
        reheadings = np.zeros((room[-1], 2), dtype=np.int32)
        counts = np.zeros(len(stepper.sizes), dtype=np.int64)
    while len(rows := stepper.running()):
        legal = stepper.legal(rows)
        scores = scorer.scores(context, stepper.states, rows, stepper.positions(rows), legal)
        best = scorer.best(context, scores, legal)
        if trace:
            steps.traced_apply_rows(kernels.system_id, stepper.states, rows, best,
                                    decisions.transition, decisions.label, stepper.counts,
                                    batch.offsets, built_by, room, reheadings, counts)
            stepper.counts[rows[best < 0]] = STOPPED
        else:
            stepper.apply(rows, best)
    trees = stepper.trees(root_label)
    if not trace:
        return trees
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    packed = np.concatenate([reheadings[room[b] : room[b] + counts[b]] for b in range(len(counts))]
                            + [np.zeros((0, 2), dtype=np.int32)])
    return (*trees, built_by, packed, offsets)


def train_batch(scorer, kernels, oracle, classes: pc.ClassSet, batch, gold: tuple,
                bound: int, dynamic: bool, policy: int, explore_p: float,
                aggressive_p: float, rng: np.random.Generator) -> tuple[float, int, int]:
    """Train on one batch of sentences; returns (loss, configurations, words with a wrong
    head).  gold: (gold_flat, gold_offsets) of the batch's prepared gold trees."""
    gold_flat, gold_offsets = gold
    gold_label = np.maximum(batch.deprel - 2, -1).astype(np.int32)  # vocabulary -> label id
    context = scorer.encode(batch, train=True)
    stepper = Stepper(kernels, classes, scorer, batch)
    decisions = stepper.decisions
    configurations = 0
    while len(rows := stepper.running()):
        legal = stepper.legal(rows)
        scores = scorer.scores(context, stepper.states, rows, stepper.positions(rows), legal)
        predicted = scorer.best(context, scores, legal)
        zero_cost = np.zeros_like(legal)
        target, follow = steps.oracle_step(
            kernels.system_id, oracle.variant, bound, dynamic, stepper.states, rows, legal,
            scores, predicted, gold_flat, gold_offsets, gold_label, batch.offsets,
            decisions.transition, decisions.label, decisions.first_class,
            decisions.takes_label, policy, explore_p, aggressive_p,
            rng.random((len(rows), 2)), zero_cost,
        )
        scorer.learn(context, target, zero_cost, legal)  # rows without a target learn nothing
        configurations += int((target >= 0).sum())
        stepper.apply(rows, follow)
    loss = scorer.update(context)
    heads, _, _ = stepper.trees(0)
    gold_heads = gold_flat[0][np.concatenate(
        [np.arange(gold_offsets[k, 0], gold_offsets[k + 1, 0]) for k in range(len(stepper.sizes))]
    )] if len(stepper.sizes) else np.zeros(0, dtype=np.int32)
    wrong = int(((heads != gold_heads) & (gold_heads >= 0)).sum())
    return loss, configurations, wrong


