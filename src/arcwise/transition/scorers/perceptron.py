"""The averaged perceptron as a stepped `arcwise.transition.scorers.scorer.Scorer`.

The same features (`arcwise.features.extract`), scores (`perceptron.best_class`:
the best legal transition, then the labeler's best legal label) and updates
(`perceptron.update`) as the fused compiled loops of `arcwise.transition.train` and
`arcwise.transition.parser`, driven step by step like any other scorer.  With one
sentence per batch, training takes the fused loop's steps in the fused loop's
order and parsing gives its trees; the fused loops stay the fast path
(`bench/stepped_perceptron.py` measures both).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arcwise.core.jit import njit
from arcwise.features import FeatureTable, default_table, extract
from arcwise.learn import perceptron as pc
from arcwise.transition.steps import arc_dependent


@njit(cache=True)
def extract_rows(system_id, program, states, rows, words, word_offsets, features,
                 label_features):
    """Per row, the hashed features of configuration rows[r] (`arcwise.features.extract`)."""
    for r in range(rows.shape[0]):
        b = rows[r]
        sentence = words[word_offsets[b] : word_offsets[b + 1]]
        extract(system_id, states[b], program, sentence, features[r], label_features[r])


@njit(cache=True)
def score_rows(weights, legal, features, label_features, scores, predicted):
    """Per row, the transition score of every class (`perceptron.score`) and the model's
    class (`perceptron.best_class`) in predicted."""
    for r in range(legal.shape[0]):
        predicted[r] = pc.best_class(weights, features[r], label_features[r], legal[r],
                                     scores[r])


@njit(cache=True)
def learn_rows(system_id, weights, totals, step, states, rows, features, label_features,
               predicted, target, class_transition, class_label):
    """The perceptron update of every row toward its target (`arcwise.transition.fused.train_sentence`'s
    update, row after row); returns (step, updates)."""
    updates = 0
    for r in range(rows.shape[0]):
        t, p = target[r], predicted[r]
        if t < 0:
            continue
        if t != p:
            # a labeled transition that adds no arc here has no label to learn
            adds_arc = True
            if class_label[t] >= 0:
                adds_arc = arc_dependent(system_id, states[rows[r]], class_transition[t]) > 0
            pc.update(weights, totals, features[r], label_features[r], t, p, step, adds_arc)
            updates += 1
        step += 1
    return step, updates


class Context:
    """One batch's words and what the last `scores` call saw (for `learn`)."""

    def __init__(self, batch, weights: pc.Weights):
        self.words, self.offsets, self.weights = batch.words, batch.offsets, weights
        self.states = self.rows = self.features = self.label_features = None
        self.predicted = np.zeros(0, dtype=np.int64)
        self.configurations = 0
        self.updates = 0


class PerceptronScorer:
    """The `Scorer` of an averaged perceptron: trainable (`for_training`) or with the
    averaged weights of a trained parser (`of_parser`)."""

    kind = "perceptron"
    addresses = ()  # it reads the whole configuration through its feature table

    def __init__(self, kernels, table: FeatureTable, classes: pc.ClassSet,
                 weights: pc.Weights, perceptron: pc.AveragedPerceptron | None = None):
        self.kernels = kernels
        self.table = table
        self.classes = classes
        self.weights = weights  # the weights it parses with (averaged)
        self.perceptron = perceptron  # the training state, if it trains
        self.step = 0  # examples seen (the averaging's clock)
        self.averaged_at = 0

    @classmethod
    def for_training(cls, run, options: dict[str, Any]) -> PerceptronScorer:
        """A new scorer for a training run (`arcwise.transition.train.TrainingRun`); options: table
        (default: the system's), and perceptron (the `AveragedPerceptron` to train, if
        already made) or transition_buckets, label_buckets (None: the defaults)."""
        table = options.get("table") or default_table(run.system)
        perceptron = options.get("perceptron") or pc.AveragedPerceptron(
            run.classes, options.get("transition_buckets"), options.get("label_buckets"))
        untrained = pc.zeros(run.classes, perceptron.transition_buckets,
                             perceptron.label_buckets, np.float32)
        return cls(run.ts.kernels, table, run.classes, untrained, perceptron)

    @classmethod
    def of_parser(cls, parser) -> PerceptronScorer:
        """The scorer of a trained `arcwise.transition.parser.Parser`'s weights."""
        return cls(parser.kernels, parser.table, parser.classes, parser.weights)

    @property
    def guided(self) -> bool:
        return self.table.guided

    # --- the Scorer protocol -----------------------------------------------

    def encode(self, batch, train: bool) -> Context:
        return Context(batch, self.perceptron.weights if train else self.averaged())

    def scores(self, context: Context, states: np.ndarray, rows: np.ndarray,
               positions: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """Every class's transition score (-inf where illegal); the labeled class the
        model chooses is `best`'s, not the row's argmax."""
        program = self.table.program
        n = len(rows)
        scores = np.empty((n, self.classes.n_classes))
        features = np.empty((n, program.template_values.shape[0]), dtype=np.uint64)
        label_features = np.empty((n, program.label_templates.shape[0]), dtype=np.uint64)
        predicted = np.empty(n, dtype=np.int64)
        extract_rows(self.kernels.system_id, program, states, rows, context.words,
                     context.offsets, features, label_features)
        score_rows(context.weights, legal, features, label_features, scores, predicted)
        context.states, context.rows = states, rows
        context.features, context.label_features = features, label_features
        context.predicted = predicted
        return scores

    def best(self, context: Context, scores: np.ndarray, legal: np.ndarray) -> np.ndarray:
        return context.predicted

    def learn(self, context: Context, target: np.ndarray, zero_cost: np.ndarray,
              legal: np.ndarray) -> None:
        w = self.perceptron
        self.step, updates = learn_rows(
            self.kernels.system_id, w.weights, w.totals, self.step, context.states,
            context.rows, context.features, context.label_features, context.predicted,
            target, self.classes.transition, self.classes.label)
        context.configurations += int((target >= 0).sum())
        context.updates += updates

    def update(self, context: Context) -> float:
        """Nothing left to apply (the perceptron learns online); the batch's error rate."""
        return context.updates / max(context.configurations, 1)

    def averaged(self) -> pc.Weights:
        """The weights to parse with: averaged over the examples seen so far (a new array
        whenever it learnt since the last call)."""
        if self.perceptron is not None and self.averaged_at != self.step:
            self.weights = self.perceptron.averaged(max(self.step, 1))
            self.averaged_at = self.step
        return self.weights

    def snapshot(self) -> pc.Weights:
        return self.averaged()

    def restore(self, snapshot: pc.Weights) -> None:
        self.weights = snapshot
        self.averaged_at = self.step

    def arrays(self) -> dict[str, np.ndarray]:
        return pc.to_arrays(self.weights)

    def meta(self) -> dict[str, Any]:
        return {"features": self.table.to_json()}
