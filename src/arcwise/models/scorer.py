"""The Scorer protocol: what a transition parser's model must do, whatever it is.

The trainer and the parser drive every model through the batched steps of
`arcwise.steps` (legal classes, base positions, oracle step, apply); a scorer
only turns configurations into class scores and learns from the oracle:

    context = scorer.encode(batch, sentences, train)   # once per batch of sentences
    scores  = scorer.scores(context, rows, positions)  # float [rows, classes], per step
    scorer.learn(context, rows, zero_cost, legal)      # after `scores`, while training
    scorer.update(context)                             # once per batch: apply what it learned

`positions[r, k]` is the batch word (a row of the batch's flat word arrays) at
base position `scorer.bases[k]` of configuration rows[r], -1 where there is
none.  The averaged perceptron keeps its own fused compiled loops
(`arcwise.train`, `arcwise.parse`), which are faster than any per-step call.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np


class Scorer(Protocol):
    kind: str  # the model-kind name a model file records (`arcwise.models.kinds`)
    bases: tuple[str, ...]  # the base positions it reads (`arcwise.features.addresses`)

    def encode(self, batch: Any, train: bool) -> Any:
        """Whatever the scorer computes once per batch of sentences (a BiLSTM's vectors)."""

    def scores(self, context: Any, rows: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """Class scores float [len(rows), classes] of the configurations rows."""

    def learn(self, context: Any, zero_cost: np.ndarray, legal: np.ndarray) -> None:
        """Learn from the last `scores` call: the classes zero_cost[r] are right."""

    def update(self, context: Any) -> None:
        """Apply what was learnt over the batch."""

    def arrays(self) -> dict[str, np.ndarray]:
        """The model file's arrays."""

    def meta(self) -> dict[str, Any]:
        """The model file's metadata of the scorer (its sizes and options)."""
