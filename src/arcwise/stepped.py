"""Parsing and training with any `arcwise.models.scorer.Scorer`, step by step.

Many sentences advance together, one transition each per step, through the
compiled batched steps of `arcwise.steps`; the scorer is called once per
step for every configuration still running.  `ScorerParser` is the parser of
such a model; `train_epoch` one pass of training over a treebank.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np

from arcwise import steps
from arcwise.errors import ArcwiseError
from arcwise.features.addresses import BASE_NAMES
from arcwise.models import modelfile
from arcwise.models import perceptron as pc
from arcwise.parse import Batch, TransitionParser
from arcwise.vocab import Vocabularies

STOPPED = np.iinfo(np.int64).max // 2  # a step count that takes a row out of `running_rows`


def sub_batch(batch: Batch, indices: Sequence[int]) -> SimpleNamespace:
    """The sentences `indices` of an encoded batch, as a batch of their own (words, offsets,
    deprel, forms)."""
    offsets = batch.offsets
    sizes = np.array([offsets[k + 1] - offsets[k] for k in indices], dtype=np.int64)
    new_offsets = np.zeros(len(indices) + 1, dtype=np.int64)
    np.cumsum(sizes, out=new_offsets[1:])
    rows = np.concatenate([np.arange(offsets[k], offsets[k + 1]) for k in indices]) \
        if len(indices) else np.zeros(0, dtype=np.int64)
    return SimpleNamespace(words=batch.words[rows], offsets=new_offsets,
                           deprel=batch.deprel[rows], guided=batch.guided,
                           forms=batch.forms[rows])


class Stepper:
    """The compiled steps of one system over a batch of sentences (see `arcwise.steps`)."""

    def __init__(self, kernels, classes: pc.ClassSet, scorer, batch) -> None:
        self.kernels = kernels
        self.classes = classes
        self.scorer = scorer
        self.batch = batch
        self.sizes = (np.diff(batch.offsets) - 1).astype(np.int64)
        self.states = steps.initial_states(kernels.system_id, kernels.options, self.sizes)
        self.counts = np.zeros(len(self.sizes), dtype=np.int64)
        self.bases = np.array([BASE_NAMES.index(b) for b in scorer.bases], dtype=np.int64)

    def running(self) -> np.ndarray:
        return steps.running_rows(self.kernels.system_id, self.states, self.counts)

    def legal(self, rows: np.ndarray) -> np.ndarray:
        legal = np.zeros((len(rows), self.classes.n_classes), dtype=np.bool_)
        steps.legal_classes(self.kernels.system_id, self.states, rows,
                            self.classes.transition, legal)
        return legal

    def positions(self, rows: np.ndarray) -> np.ndarray:
        out = np.empty((len(rows), len(self.bases)), dtype=np.int64)
        if not len(self.bases):  # a scorer that reads the whole configuration
            return out
        steps.positions(self.kernels.system_id, self.states, rows, self.bases,
                        self.batch.offsets, out)
        return out

    def apply(self, rows: np.ndarray, classes: np.ndarray) -> None:
        steps.apply(self.kernels.system_id, self.states, rows, classes,
                    self.classes.transition, self.classes.label, self.counts)
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
                                    classes.transition, classes.label, stepper.counts,
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
    configurations = 0
    while len(rows := stepper.running()):
        legal = stepper.legal(rows)
        scores = scorer.scores(context, stepper.states, rows, stepper.positions(rows), legal)
        predicted = scorer.best(context, scores, legal)
        zero_cost = np.zeros_like(legal)
        target, follow = steps.oracle_step(
            kernels.system_id, oracle.variant, bound, dynamic, stepper.states, rows, legal,
            scores, predicted, gold_flat, gold_offsets, gold_label, batch.offsets,
            classes.transition, classes.label, classes.first_class, classes.takes_label,
            policy, explore_p, aggressive_p, rng.random((len(rows), 2)), zero_cost,
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


class ScorerParser(TransitionParser):
    """A greedy transition-based parser whose transitions a stepped `Scorer` scores
    (the BiLSTM of `arcwise.models.bilstm`; a perceptron trained step by step becomes
    an `arcwise.parse.Parser` with its fused loops)."""

    def __init__(self, system: str, vocabularies: Vocabularies, classes: pc.ClassSet,
                 scorer, root_label: str, **common: Any):
        super().__init__(system, vocabularies, classes, root_label, **common)
        self.scorer = scorer

    @property
    def guided(self) -> bool:
        """Whether the model reads a guide parser's trees (stacking, 2011 paper §5.3)."""
        return getattr(self.scorer, "guided", False)

    def parse_encoded(self, batch: Batch, trace: bool = False) -> tuple[np.ndarray, ...]:
        if batch.guided != self.guided:
            raise ArcwiseError("guide trees given to a model trained without a guide"
                               if batch.guided else "this model parses with a guide's trees")
        return parse(self.scorer, self.kernels, self.classes, batch,
                     self.classes.labels.index(self.root_label), trace)

    def meta(self) -> dict[str, Any]:
        return {**super().meta(), "model": self.scorer.kind, "scorer": self.scorer.meta()}

    def retrained(self, sentences: Sequence[Any], dev: Sequence[Any] | None = None):
        """A new parser trained on `sentences` with this one's options (jackknifing)."""
        from arcwise.train import train

        hp = self.hyperparameters
        neural = {**hp["sizes"], "batch_sentences": hp["batch_sentences"],
                  "aggressive_p": hp["aggressive_p"], "threads": hp["threads"]}
        parser, _ = train(
            self.system, sentences, dev, oracle=hp["oracle"], bound=hp["bound"],
            epochs=hp["epochs"], explore_from=hp["explore_from"], explore_p=hp["explore_p"],
            seed=hp["seed"], pseudo_projective=hp["pseudo_projective"], model=hp["model"],
            neural=neural, **hp.get("oracle_options", {}))
        return parser

    def saved(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        return self.scorer.arrays(), self.meta()

    @classmethod
    def from_saved(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any],
                   source: str) -> ScorerParser:
        """A parser from a model file's (arrays, metadata); `source` names it in errors."""
        from arcwise import systems as registry
        from arcwise.models.kinds import scorer_class

        modelfile.check_parser_meta(meta, arrays, source)
        try:
            system = meta["system"]
            kernels = registry.get(system).kernels
            classes = pc.ClassSet.for_system(kernels, meta["labels"])
            if classes.to_json() != meta["classes"]:
                raise ArcwiseError(f"{source}: the model's classes differ from {system}'s")
            vocabularies = Vocabularies.from_dict(meta["vocabularies"])
            scorer_meta = meta["scorer"]
            make_scorer = scorer_class(meta["model"], source)
        except ArcwiseError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise ArcwiseError(f"{source}: bad model metadata ({error})") from None
        scorer = make_scorer.from_saved(arrays, scorer_meta, classes, source)
        return cls(system, vocabularies, classes, scorer, meta["root_label"],
                   hyperparameters=meta["hyperparameters"], scores=meta["scores"],
                   training_data_sha256=meta["training_data_sha256"],
                   command_line=meta["command_line"],
                   pseudo_projective=meta.get("pseudo_projective"))
