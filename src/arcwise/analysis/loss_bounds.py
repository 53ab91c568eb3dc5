"""How tight are the loss bounds of non-monotonic Covington?  (2017 paper §5, Table 1)

For the configurations met while training the parser with exploration, the
lower bound ``|U|``, the exact loss ℓ(c) (exhaustive search, `exact_loss`), the
pc-upper bound ``|U| + n_pc`` and the upper bound ``|U| + n_c`` are averaged (and,
beyond the paper, the loss of the witness sequence of §4, `witness_loss`),
with the paper's "relative differences from each bound to the loss":
the mean over configurations of ``|bound - ℓ(c)| / ℓ(c)``.  Where ℓ(c) = 0 the
ratio is 0 when the bound is 0 too (always for the lower bound); an upper
bound above a zero loss, which the paper leaves undefined, is divided by 1
and counted (`LossBoundsTable.above_zero_loss`).

Which action is taken at each step is up to a `Policy`:

- `explore_with_model` (the paper's setting): the configurations a
  perceptron meets while training with the dynamic oracle and error
  exploration (Goldberg & Nivre 2012, as `arcwise.transition.train`): it follows its own
  prediction when that is zero-cost, otherwise with probability p, and else
  the best-scoring zero-cost action.  The model is one `arcwise.transition.train.train`
  has trained for some epochs on the same sentences, its weights then fixed
  (the trainer's compiled epochs expose no configurations; an epoch of
  online updates changes few of the model's choices);
- `explore_with_oracle`: a random zero-cost action with probability 1 - p,
  else a random legal action (no model).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from arcwise.oracles import covington_nonmonotonic as oracle
from arcwise.oracles.exact_loss import LossMemo, SearchLimitExceeded, exact_loss, witness_loss
from arcwise.systems import covington_nonmonotonic as system

# policy(state, prepared, legal mask, rng) -> action id; a policy may also have a
# begin(sentence) method, called before each sentence's first configuration
Policy = Callable[[np.ndarray, tuple, np.ndarray, np.random.Generator], int]


def explore_with_oracle(p: float, bound: str = "upper") -> Policy:
    """With probability 1 - p a random minimum-cost action under `bound`, else any legal one."""
    which = oracle.BOUNDS.index(bound)
    costs = np.zeros(len(system.ACTIONS), dtype=np.int64)

    def policy(state, prepared, mask, rng):
        legal = np.flatnonzero(mask)
        if rng.random() < p:
            return int(rng.choice(legal))
        oracle.costs(state, prepared, which, costs)
        best = legal[costs[legal] == costs[legal].min()]
        return int(rng.choice(best))

    return policy


class explore_with_model:  # noqa: N801 -- a policy, named like explore_with_oracle
    """The trainer's exploration policy with a trained parser's weights (module docstring).

    parser: an `arcwise.transition.parser.Parser` of covington-nm (e.g. from
    `arcwise.transition.train.train`); p: the exploration probability; bound: the
    oracle bound whose least-cost actions are zero-cost.
    """

    def __init__(self, parser, p: float, bound: str = "upper"):
        self.parser, self.p = parser, p
        self.which = oracle.BOUNDS.index(bound)
        classes = parser.classes
        self.class_transition = classes.transition
        n = classes.n_classes
        self.legal = np.zeros(n, dtype=np.bool_)
        self.scores = np.zeros(n, dtype=np.float64)
        self.zero_cost = np.zeros(n, dtype=np.bool_)
        program = parser.table.program
        self.features = np.zeros(program.template_values.shape[0], dtype=np.uint64)
        self.label_features = np.zeros(program.label_templates.shape[0], dtype=np.uint64)
        self.costs = np.zeros(len(system.ACTIONS), dtype=np.int64)
        self.words = None

    def begin(self, sentence) -> None:
        from arcwise.features.batch import Batch

        self.words = Batch([sentence], self.parser.vocabularies).words

    def __call__(self, state, prepared, mask, rng) -> int:
        from arcwise.transition.kernels import best_legal_class

        parser = self.parser
        mask = mask.copy()
        predicted = best_legal_class(
            parser.kernels.system_id, state, parser.table.program, parser.weights,
            self.class_transition, self.words, mask, self.legal, self.features,
            self.label_features, self.scores,
        )
        action = int(self.class_transition[predicted])
        oracle.costs(state, prepared, self.which, self.costs)
        legal = np.flatnonzero(mask)
        least = self.costs[legal].min()
        if self.costs[action] == least or rng.random() < self.p:
            return action
        self.zero_cost[:] = self.legal & (self.costs[self.class_transition] == least)
        return int(self.class_transition[np.argmax(np.where(self.zero_cost, self.scores, -np.inf))])


def trained_policy(sentences, epochs: int, p: float, bound: str, seed: int, system_name: str):
    """`explore_with_model` with a covington-nm parser trained by `arcwise.transition.train.train`
    (dynamic oracle, `bound`, exploring from the second epoch with probability p)."""
    from arcwise.transition.train import train

    parser, _ = train(system_name, sentences, oracle="dynamic", bound=bound, epochs=epochs,
                      explore_p=p, seed=seed)
    return explore_with_model(parser, p, bound)


POLICIES = ("trained", "random")  # `arcwise loss-bounds --policy`
COLUMNS = ("lower", "loss", "pc-upper", "upper")  # the paper's Table 1
WITNESS = "witness"  # the loss of §4's witness sequence: between the loss and pc-upper
MEASURED = COLUMNS + (WITNESS,)


@dataclass
class LossBoundsTable:
    """Sums over the configurations measured; `row()` gives the paper's Table 1 columns."""

    transitions: int = 0  # taken; one configuration measured before each
    configurations: int = 0
    unresolved: int = 0  # exact search hit its state limit; left out of every column
    sentences: int = 0
    skipped_sentences: int = 0  # not a tree (missing heads)
    sums: dict[str, float] = field(default_factory=lambda: dict.fromkeys(MEASURED, 0.0))
    relative: dict[str, float] = field(default_factory=lambda: dict.fromkeys(MEASURED, 0.0))
    violations: int = 0  # configurations where lower <= loss <= witness <= pc-upper <= upper fails
    above_zero_loss: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MEASURED, 0))

    def add(self, values: dict[str, int]) -> None:
        self.configurations += 1
        loss = values["loss"]
        for name in self.sums:
            self.sums[name] += values[name]
            self.relative[name] += abs(values[name] - loss) / max(loss, 1)
            self.above_zero_loss[name] += loss == 0 and values[name] > 0
        if not values["lower"] <= loss <= values[WITNESS] <= values["pc-upper"] <= values["upper"]:
            self.violations += 1

    def average(self, name: str) -> float:
        return self.sums[name] / max(self.configurations, 1)

    def relative_difference(self, name: str) -> float:
        return self.relative[name] / max(self.configurations, 1)


def measure_loss_bounds(
    trees: Iterable[np.ndarray],
    transitions: int,
    policy: Policy,
    seed: int = 0,
    max_states: int = 20_000,
    progress: Callable[[int], None] | None = None,
    options: int = 0,
) -> LossBoundsTable:
    """Table 1 over the configurations before each of the first `transitions` transitions.

    `trees` are gold head arrays or sentences (with a ``head``; taken in
    order, those with missing heads skipped; a policy with ``begin`` gets
    each sentence first); `progress(k)` is told of every k transitions;
    options: the variant's option bits, e.g.
    ``systems.get("covington-nm+root").kernels.options``.
    """
    rng = np.random.default_rng(seed)
    table = LossBoundsTable()
    mask = np.zeros(len(system.ACTIONS), dtype=np.bool_)
    done = 0
    begin = getattr(policy, "begin", None)
    for tree in trees:
        gold = np.asarray(getattr(tree, "head", tree), dtype=np.int32)
        if len(gold) < 2 or (gold[1:] < 0).any():
            table.skipped_sentences += 1
            continue
        table.sentences += 1
        if begin is not None:
            begin(tree)
        memo = LossMemo(gold)
        state = system.initial(len(gold) - 1, options)
        while not system.is_terminal(state) and done < transitions:
            values = {name: int(oracle.loss(state, memo.prepared, oracle.BOUNDS.index(name)))
                      for name in ("lower", "pc-upper", "upper")}
            values[WITNESS] = int(witness_loss(state, gold))
            try:
                values["loss"] = exact_loss(state, gold, memo, max_states=max_states)
                table.add(values)
            except SearchLimitExceeded:
                table.unresolved += 1
            mask[:] = False
            system.legal(state, mask)
            system.apply(state, policy(state, memo.prepared, mask, rng), -1)
            done += 1
            table.transitions = done
            if progress is not None:
                progress(1)
        if done >= transitions:
            break
    return table
