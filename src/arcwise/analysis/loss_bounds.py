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

- `explore_while_training` (the paper's "first 100,000 transitions", taken
  literally): the training run itself.  A perceptron starts from zero weights
  and is trained online exactly as `arcwise.transition.train` trains it (the
  dynamic oracle under a bound, an update toward the best-scoring zero-cost
  class wherever the prediction is not zero-cost, the trainer's sentence order
  of each epoch); its first epochs may be trained unmeasured (the trainer's
  own compiled epochs), then every measured configuration is one step of
  training: it follows its own prediction with probability p when exploring
  (epoch >= explore_from), else the target;
- `explore_with_model`: the configurations a perceptron meets while
  training with the dynamic oracle and error exploration (Goldberg & Nivre
  2012, as `arcwise.transition.train`), its weights fixed: the averaged weights
  `arcwise.transition.train.train` reached after some epochs.  It follows its own
  prediction when that is zero-cost, otherwise with probability p, and else
  the best-scoring zero-cost action;
- `explore_with_oracle`: a random zero-cost action with probability 1 - p,
  else a random legal action (no model).

A policy returns an action id, or (action id, label id) for a labeled
transition (the perceptrons' label features read the labels of built arcs).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from arcwise.oracles import covington_nonmonotonic as oracle
from arcwise.oracles.exact_loss import LossMemo, SearchLimitExceeded, exact_loss, witness_loss
from arcwise.systems import covington_nonmonotonic as system

# policy(state, prepared, legal mask, rng) -> action id or (action id, label id); a policy
# may also have a begin(sentence) method, called before each sentence's first configuration
Policy = Callable[[np.ndarray, tuple, np.ndarray, np.random.Generator], int | tuple[int, int]]


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
        self.class_transition, self.class_label = classes.transition, classes.label
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

    def __call__(self, state, prepared, mask, rng) -> tuple[int, int]:
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
        if not (self.costs[action] == least or rng.random() < self.p):
            self.zero_cost[:] = self.legal & (self.costs[self.class_transition] == least)
            predicted = int(np.argmax(np.where(self.zero_cost, self.scores, -np.inf)))
        return int(self.class_transition[predicted]), int(self.class_label[predicted])


class explore_while_training:  # noqa: N801 -- a policy, named like explore_with_oracle
    """The training run itself, step by step (module docstring): the configurations of
    §5's "first 100,000 transitions" of training, with the trainer's own updates.

    Set up as `arcwise.transition.train.train` sets up a perceptron run on `sentences`
    (vocabularies, classes, default feature table and bucket sizes, the sentences it
    can learn from), from zero weights.  `train_epochs(k)` runs the trainer's next k
    epochs unmeasured (its compiled epochs: the weights are then those of
    ``train(system, sentences, oracle="dynamic", bound=bound, explore_from=explore_from,
    explore_p=p, seed=seed, epochs=k)`` before averaging); `epoch_sentences()` gives
    the sentences of the next epoch in the trainer's order, and each call is then one
    configuration of that epoch: the prediction of the current (not averaged)
    weights, the perceptron update toward the oracle's target when the prediction
    is not zero-cost (`arcwise.transition.steps.oracle_target`), and the class
    followed -- the prediction with probability p when the epoch explores, else the
    target.  The draws come from the measurement's rng, not the trainer's.
    """

    def __init__(self, sentences, system_name: str = "covington-nm", bound: str = "upper",
                 p: float = 0.9, explore_from: int = 0, seed: int = 0):
        from arcwise import systems
        from arcwise.core.vocab import Vocabularies
        from arcwise.features import default_table
        from arcwise.features.batch import Batch
        from arcwise.learn import perceptron as pc
        from arcwise.systems.base import flat_gold

        ts = systems.get(system_name)
        self.kernels, self.oracle = ts.kernels, ts.oracle
        self.bound = self.oracle.bounds.index(bound)
        self.p, self.explore_from, self.seed = p, explore_from, seed
        self.sentences = list(sentences)
        self.vocabularies = Vocabularies.build(self.sentences)
        self.classes = pc.ClassSet.for_system(self.kernels, list(self.vocabularies.deprel))
        self.table = default_table(system_name)
        self.perceptron = pc.AveragedPerceptron(self.classes)
        self.batch = Batch(self.sentences, self.vocabularies)
        self.gold_label = np.maximum(self.batch.deprel - 2, -1).astype(np.int32)
        self.usable = learnable(self.sentences)
        prepared: list = [None] * len(self.sentences)
        for k in self.usable:
            prepared[k] = self.oracle.prepare(np.asarray(self.sentences[k].head, dtype=np.int32))
        self.gold = flat_gold(prepared)
        self.epoch = 0  # the next epoch, 0-based
        self.step = 0  # perceptron examples seen
        self.index = {id(s): k for k, s in enumerate(self.sentences)}
        n = self.classes.n_classes
        self.legal = np.zeros(n, dtype=np.bool_)
        self.scores = np.zeros(n, dtype=np.float64)
        self.zero_cost = np.zeros(n, dtype=np.bool_)
        self.mask = np.zeros(len(system.ACTIONS), dtype=np.bool_)
        self.costs = np.zeros(len(system.ACTIONS), dtype=np.int64)
        program = self.table.program
        self.features = np.zeros(program.template_values.shape[0], dtype=np.uint64)
        self.label_features = np.zeros(program.label_templates.shape[0], dtype=np.uint64)
        self.words = self.sentence_gold_label = None
        self.exploring = False

    def train_epochs(self, k: int) -> None:
        """The trainer's next k epochs, unmeasured (`arcwise.transition.fused.train_epoch`,
        called as `arcwise.transition.train.PerceptronEpochs` calls it)."""
        from arcwise.transition.fused import train_epoch
        from arcwise.transition.train import epoch_order, epoch_seed

        classes, weights, totals = self.classes, self.perceptron.weights, self.perceptron.totals
        gold_flat, gold_offsets = self.gold
        for _ in range(k):
            self.step, _, _, _ = train_epoch(
                self.kernels.system_id, self.kernels.options, self.oracle.variant, self.bound,
                True, self.epoch >= self.explore_from, self.p, epoch_seed(self.seed, self.epoch),
                self.table.program, weights, totals, self.step, classes.transition,
                classes.label, classes.first_class, classes.takes_label,
                epoch_order(self.usable, self.seed, self.epoch),
                self.batch.offsets, self.batch.words, self.gold_label, gold_flat, gold_offsets,
            )
            self.epoch += 1

    def epoch_sentences(self) -> list:
        """The sentences of the next epoch, in the trainer's order; measuring them (with
        this policy) trains that epoch step by step."""
        sentences = trainer_order(self.sentences, self.seed, self.epoch, self.usable)
        self.exploring = self.epoch >= self.explore_from
        self.epoch += 1
        return sentences

    def begin(self, sentence) -> None:
        k = self.index[id(sentence)]
        a, b = self.batch.offsets[k], self.batch.offsets[k + 1]
        self.words, self.sentence_gold_label = self.batch.words[a:b], self.gold_label[a:b]

    def __call__(self, state, prepared, mask, rng) -> tuple[int, int]:
        from arcwise.learn import perceptron as pc
        from arcwise.transition.kernels import best_legal_class
        from arcwise.transition.steps import arc_dependent, oracle_target

        classes, system_id = self.classes, self.kernels.system_id
        weights = self.perceptron.weights
        predicted = best_legal_class(
            system_id, state, self.table.program, weights, classes.transition, self.words,
            self.mask, self.legal, self.features, self.label_features, self.scores,
        )
        target = oracle_target(
            system_id, self.oracle.variant, self.bound, True, state, prepared,
            self.sentence_gold_label, self.legal, self.scores, predicted, self.costs,
            classes.transition, classes.label, classes.first_class, classes.takes_label,
            self.zero_cost,
        )
        if target != predicted:  # as `arcwise.transition.fused.train_sentence`
            adds_arc = classes.label[target] < 0 or arc_dependent(
                system_id, state, classes.transition[target]) > 0
            pc.update(weights, self.perceptron.totals, self.features, self.label_features,
                      target, predicted, self.step, adds_arc)
        self.step += 1
        follow = predicted if self.exploring and rng.random() < self.p else target
        return int(classes.transition[follow]), int(classes.label[follow])


def trained_policy(sentences, epochs: int, p: float, bound: str, seed: int, system_name: str):
    """`explore_with_model` with a covington-nm parser trained by `arcwise.transition.train.train`
    (dynamic oracle, `bound`, exploring from the second epoch with probability p)."""
    from arcwise.transition.train import train

    parser, _ = train(system_name, sentences, oracle="dynamic", bound=bound, epochs=epochs,
                      explore_p=p, seed=seed)
    return explore_with_model(parser, p, bound)


def learnable(sentences) -> np.ndarray:
    """The indices of the sentences a dynamic-oracle trainer learns from: those whose
    heads make a tree (`arcwise.transition.train.train`'s usable sentences)."""
    from arcwise.trees.projectivity import is_well_formed

    return np.array([k for k, s in enumerate(sentences)
                     if is_well_formed(np.asarray(s.head, dtype=np.int32))], dtype=np.int64)


def trainer_order(sentences, seed: int, epoch: int, usable: np.ndarray | None = None) -> list:
    """The sentences the trainer learns from (`learnable`, unless given), in its order of
    epoch `epoch` (`arcwise.transition.train.epoch_order`)."""
    from arcwise.transition.train import epoch_order

    usable = learnable(sentences) if usable is None else usable
    return [sentences[k] for k in epoch_order(usable, seed, epoch)]


def prepare_policy(sentences, policy: str, *, system_name: str = "covington-nm",
                   epochs: int | None = None, p: float | None = None, explore_from: int = 0,
                   bound: str = "upper", seed: int = 0) -> tuple[Policy, list]:
    """The policy of ``arcwise loss-bounds --policy`` on a treebank's sentences, and the
    sentences it measures, in order: (policy, sentences).

    "training": `explore_while_training` with `epochs` (default 0) trained unmeasured
    first, then the next epoch's sentences; by default (epochs 0, explore_from 0, p 0.1)
    the configurations of the training run's first transitions, exploring from the
    start: the regime whose average loss comes nearest §5's (bench/RESULTS.md,
    loss-bounds).  "trained": `trained_policy` after `epochs` (default 1) and the trainer's
    order of the epoch that would come next, p default 0.9 (`arcwise train`'s).
    "random": `explore_with_oracle` over the sentences as given, p default 0.1.
    """
    if policy == "training":
        chosen = explore_while_training(sentences, system_name, bound,
                                        0.1 if p is None else p, explore_from, seed)
        chosen.train_epochs(0 if epochs is None else epochs)
        return chosen, chosen.epoch_sentences()
    if policy == "trained":
        epochs = 1 if epochs is None else epochs
        chosen = trained_policy(sentences, epochs, 0.9 if p is None else p, bound, seed,
                                system_name)
        return chosen, trainer_order(sentences, seed, epochs)
    if policy == "random":
        return explore_with_oracle(0.1 if p is None else p, bound), list(sentences)
    raise ValueError(f"policy is one of {', '.join(POLICIES)}, not {policy!r}")


POLICIES = ("training", "trained", "random")  # `arcwise loss-bounds --policy`
COLUMNS = ("lower", "loss", "pc-upper", "upper")  # the paper's Table 1
WITNESS = "witness"  # the loss of §4's witness sequence: between the loss and pc-upper
MEASURED = COLUMNS + (WITNESS,)


@dataclass
class LossBoundsTable:
    """Sums over the configurations measured; `average` and `relative_difference` give
    the paper's Table 1 columns, `closest` its boldface."""

    transitions: int = 0  # taken; one configuration measured before each
    configurations: int = 0
    unresolved: int = 0  # exact search hit its state limit; left out of every column
    # the bounds' sums over the unresolved configurations: their loss is between lower and
    # witness, so `bracket` gives the average loss over every configuration measured
    unresolved_sums: dict[str, float] = field(
        default_factory=lambda: dict.fromkeys(MEASURED[:1] + MEASURED[2:], 0.0))
    sentences: int = 0
    skipped_sentences: int = 0  # not a tree (missing heads)
    sums: dict[str, float] = field(default_factory=lambda: dict.fromkeys(MEASURED, 0.0))
    relative: dict[str, float] = field(default_factory=lambda: dict.fromkeys(MEASURED, 0.0))
    violations: int = 0  # configurations where lower <= loss <= witness <= pc-upper <= upper fails
    # gold root words with a head in A that the upper bounds count lost and the lower bound
    # does not (it holds them detachable, `root_detachable`): summed over the resolved
    # configurations, the part of (pc-)upper - lower that root arcs make
    detachable_roots: int = 0
    # the same sums over the resolved configurations without such a word, where the
    # bounds differ by cycles only (§4's reasons): `measure_loss_bounds` keeps them
    rootless: LossBoundsTable | None = None
    above_zero_loss: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MEASURED, 0))

    def add(self, values: dict[str, int], detachable_roots: int = 0) -> None:
        self.configurations += 1
        self.detachable_roots += detachable_roots
        if self.rootless is not None and detachable_roots == 0:
            self.rootless.add(values)
        loss = values["loss"]
        for name in self.sums:
            self.sums[name] += values[name]
            self.relative[name] += abs(values[name] - loss) / max(loss, 1)
            self.above_zero_loss[name] += loss == 0 and values[name] > 0
        if not values["lower"] <= loss <= values[WITNESS] <= values["pc-upper"] <= values["upper"]:
            self.violations += 1

    def add_unresolved(self, values: dict[str, int]) -> None:
        self.unresolved += 1
        for name in self.unresolved_sums:
            self.unresolved_sums[name] += values[name]

    def bracket(self) -> tuple[float, float]:
        """The average loss over every configuration, resolved or not: between these."""
        total = max(self.configurations + self.unresolved, 1)
        low = self.sums["loss"] + self.unresolved_sums["lower"]
        return low / total, (self.sums["loss"] + self.unresolved_sums[WITNESS]) / total

    def average(self, name: str) -> float:
        return self.sums[name] / max(self.configurations, 1)

    def relative_difference(self, name: str) -> float:
        return self.relative[name] / max(self.configurations, 1)

    def as_dict(self) -> dict:
        """The figures, JSON-ready (`arcwise loss-bounds --json`)."""
        bounds = [c for c in MEASURED if c != "loss"]
        result = {
            "transitions": self.transitions,
            "configurations": self.configurations,
            "unresolved": self.unresolved,
            "loss_with_unresolved": list(self.bracket()),
            "sentences": self.sentences,
            "skipped_sentences": self.skipped_sentences,
            "bound_violations": self.violations,
            "average": {c: self.average(c) for c in MEASURED},
            "relative_difference": {c: self.relative_difference(c) for c in bounds},
            "above_zero_loss": {c: self.above_zero_loss[c] for c in bounds},
            "closest": self.closest(),
            "detachable_roots": self.detachable_roots / max(self.configurations, 1),
        }
        if self.rootless is not None:
            r = self.rootless
            result["rootless"] = {
                "configurations": r.configurations,
                "average": {c: r.average(c) for c in MEASURED},
                "relative_difference": {c: r.relative_difference(c) for c in bounds},
                "closest": r.closest(),
            }
        return result

    def closest(self) -> str:
        """The bound closer to the loss, "lower" or "pc-upper", by relative difference (as
        §5 counts them; the upper bound is never closer than pc-upper), or "tie"."""
        lower, pc_upper = (self.relative_difference(c) for c in ("lower", "pc-upper"))
        return "tie" if lower == pc_upper else "lower" if lower < pc_upper else "pc-upper"


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
    table = LossBoundsTable(rootless=LossBoundsTable())
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
        succ = np.empty((len(gold), 2), dtype=np.int32)
        state = system.initial(len(gold) - 1, options)
        while not system.is_terminal(state) and done < transitions:
            values = {name: int(oracle.loss(state, memo.prepared, oracle.BOUNDS.index(name)))
                      for name in ("lower", "pc-upper", "upper")}
            values[WITNESS] = int(witness_loss(state, gold))
            roots = (oracle.unreachable(state, gold, oracle.UPPER, succ)
                     - oracle.unreachable(state, gold, oracle.LOWER, succ))
            try:
                values["loss"] = exact_loss(state, gold, memo, max_states=max_states)
                table.add(values, int(roots))
            except SearchLimitExceeded:
                table.add_unresolved(values)
            mask[:] = False
            system.legal(state, mask)
            choice = policy(state, memo.prepared, mask, rng)
            action, label = choice if isinstance(choice, tuple) else (choice, -1)
            system.apply(state, action, label)
            done += 1
            table.transitions = done
            if progress is not None:
                progress(1)
        if done >= transitions:
            break
    return table
