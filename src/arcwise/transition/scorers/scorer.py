"""The Scorer protocol: what a transition parser's model must do, whatever it is.

The trainer and the parser drive every model through the batched steps of
`arcwise.transition.steps` (legal classes, base positions, oracle step, apply); a scorer
only turns configurations into class scores and learns from the oracle:

    context = scorer.encode(batch, train)            # once per batch of sentences
    scores  = scorer.scores(context, states, rows, positions, legal)  # per step
    chosen  = scorer.best(context, scores, legal)    # the model's class per row
    scorer.learn(context, target, zero_cost, legal)  # after `scores`, while training
    scorer.update(context)                           # once per batch: apply what it learned

`states` is the state matrix (`arcwise.transition.steps`), `rows` its rows being scored,
`positions[r, k]` the batch word (a row of the batch's flat word arrays) at
address `scorer.addresses[k]` (a base position, then tree moves: ``S0``, ``S0.l``) of
configuration rows[r] (-1 where there is none), `legal[r, c]` whether class c is legal there.
For a parameterised system (covington-nl) the classes of a step are its decisions (action
id, label) and `positions` is a `arcwise.transition.candidates.CandidateRows`: a row per
candidate k, whose classes' scores `CandidateRows.spread` makes decision scores; only a
scorer that reads addresses takes it (the BiLSTM).  Implementations: the
BiLSTM (`arcwise.learn.neural`) and the averaged perceptron
(`arcwise.transition.scorers.perceptron`), which also keeps its own fused compiled
loops (`arcwise.transition.train`, `arcwise.transition.parser`), the faster path for it.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np


class Scorer(Protocol):
    kind: str  # the model-kind name a model file records (`arcwise.models.kinds`)
    # the words it reads (`arcwise.features.templates.compile_addresses`; none: it reads
    # the whole configuration, as the perceptron does through its feature table)
    addresses: tuple[str, ...]

    @classmethod
    def for_training(cls, run: Any, options: dict[str, Any]) -> Scorer:
        """A new scorer for a training run (`arcwise.transition.train.TrainingRun`) with the model's
        options; records what it set in the run's log."""

    def encode(self, batch: Any, train: bool) -> Any:
        """Whatever the scorer computes once per batch of sentences (a BiLSTM's vectors)."""

    def scores(self, context: Any, states: np.ndarray, rows: np.ndarray,
               positions: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """Class scores float [len(rows), classes] of the configurations rows."""

    def best(self, context: Any, scores: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """The class the model chooses per row (-1: none legal): the best-scoring legal
        one, unless the model ranks otherwise (the perceptron: transition, then label)."""

    def learn(self, context: Any, target: np.ndarray, zero_cost: np.ndarray,
              legal: np.ndarray) -> None:
        """Learn from the last `scores` call: target[r] is the oracle's class to learn
        (-1: none), and the classes zero_cost[r] are as good."""

    def update(self, context: Any) -> float:
        """Apply what was learnt over the batch; returns the batch's loss."""

    def snapshot(self) -> Any:
        """The weights to keep if this epoch is the best (a copy)."""

    def restore(self, snapshot: Any) -> None:
        """Put back a `snapshot`'s weights."""

    def arrays(self) -> dict[str, np.ndarray]:
        """The model file's arrays."""

    def meta(self) -> dict[str, Any]:
        """The model file's metadata of the scorer (its sizes and options)."""
