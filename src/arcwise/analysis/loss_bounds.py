"""How tight are the loss bounds of non-monotonic Covington?  (2017 paper §5, Table 1)

For the configurations met while parsing a treebank with exploration, the
lower bound |U|, the exact loss ℓ(c) (exhaustive search, `exact_loss`), the
pc-upper bound |U| + n_pc and the upper bound |U| + n_c are averaged (and,
beyond the paper, the loss of the witness sequence of §4, `witness_loss`), with
the mean relative difference of each bound to the loss, per configuration
|bound - ℓ(c)| / max(ℓ(c), 1) (the paper does not give its normalisation).

Which action is taken at each step is up to a `Policy`; until a trained model
exists, `explore_with_oracle` simulates training with exploration: a zero-cost
action of the oracle with probability 1 - p, else a random legal action.
A model-driven policy can be plugged in later with the same signature.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from arcwise.oracles import covington_nonmonotonic as oracle
from arcwise.oracles.exact_loss import LossMemo, SearchLimitExceeded, exact_loss, witness_loss
from arcwise.systems import covington_nonmonotonic as system

# policy(state, prepared, legal mask, rng) -> action id
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

    def add(self, values: dict[str, int]) -> None:
        self.configurations += 1
        loss = values["loss"]
        for name in self.sums:
            self.sums[name] += values[name]
            self.relative[name] += abs(values[name] - loss) / max(loss, 1)
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

    `trees` are gold head arrays (sentences are taken in order; those with
    missing heads are skipped); `progress(k)` is told of every k transitions;
    options: the variant's option bits, e.g.
    ``systems.get("covington-nm+root").kernels.options``.
    """
    rng = np.random.default_rng(seed)
    table = LossBoundsTable()
    mask = np.zeros(len(system.ACTIONS), dtype=np.bool_)
    done = 0
    for gold in trees:
        gold = np.asarray(gold, dtype=np.int32)
        if len(gold) < 2 or (gold[1:] < 0).any():
            table.skipped_sentences += 1
            continue
        table.sentences += 1
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
