"""Training a greedy parser: an averaged perceptron over labeled transitions.

Each epoch is ONE compiled call (`train_epoch`) over every training sentence,
in an order shuffled by the seed.  Per configuration:

- static oracle: the class to learn is the static oracle's action, labeled
  (for an arc) with the gold label of the dependent the arc attaches; the
  perceptron is updated if the model's best legal class differs, and the
  oracle's action is followed.  Gold trees the system cannot build are
  skipped.
- dynamic oracle with error exploration (Goldberg & Nivre 2012, Algorithm
  3): the costs of every legal action (`arcwise.dispatch.oracles.costs`)
  make the zero-cost classes -- zero-cost transitions; an arc class only with
  the gold label of its dependent.  If the model's best class is not one of
  them, the perceptron moves toward the best-scoring zero-cost class.  The
  parser then follows its own prediction when exploring (from epoch index
  `explore_from` on, 0-based, with probability `explore_p`, numba's
  np.random seeded per epoch from the seed), else the best zero-cost class.

"Zero-cost" means the least cost among the legal actions: it is 0 for exact
oracles, and the best available for the bounds of covington-nm.

Every configuration is one perceptron example (it advances the averaging
step).  After each epoch the averaged weights parse the dev sentences; the
epoch with the best dev LAS is kept (the last one without dev data).  With
the same data, options and seed, training gives identical weights.
"""

from __future__ import annotations

import dataclasses
import numbers
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from arcwise import systems as registry
from arcwise.core.corpus import Sentence, nothing_to_learn
from arcwise.core.errors import ArcwiseError
from arcwise.core.vocab import Vocabularies
from arcwise.features import FeatureTable, default_table
from arcwise.features.batch import Batch, sub_batch
from arcwise.features.templates import (
    DEFAULT_FEATURE_MODEL,
    DEFAULT_NEURAL_FEATURES,
    check_feature_model,
    default_candidate_table,
    neural_addresses,
)
from arcwise.learn import perceptron as pc
from arcwise.learn.embeddings import (
    DEFAULT_EXTRA,
    Vectors,
    read_header,
    vectors_of,
    with_pretrained,
)
from arcwise.models.kinds import scorer_class
from arcwise.systems.base import flat_gold
from arcwise.training.data import data_sha256, length_batches, projectivized, score_parser
from arcwise.training.epochs import default_epochs, log_header, run_epochs
from arcwise.transition import (  # noqa: F401 (MODELS)
    DEFAULT_ORACLE,
    MODELS,
    ORACLES,
    candidates,
    stepped,
    steps,
)
from arcwise.transition.fused import train_epoch
from arcwise.transition.parser import Parser, ScorerParser, TransitionParser
from arcwise.trees.projectivity import is_well_formed
from arcwise.trees.pseudoprojective import encoding_code


def _root_label(sentences: list[Sentence]) -> str:
    """The most frequent label of arcs from 0 (ties: the first seen)."""
    counts = Counter(
        s.deprel[d] for s in sentences for d in range(1, s.n + 1) if s.head[d] == 0
    )
    if not counts:
        counts = Counter(label for s in sentences for label in s.deprel[1:])
    return counts.most_common(1)[0][0]


def train(
    system: str,
    train_sentences: Iterable[Sentence],
    dev_sentences: Iterable[Sentence] | None = None,
    *,
    oracle: str = DEFAULT_ORACLE,
    bound: str | None = None,
    epochs: int | None = None,
    explore_from: int = 1,
    explore_p: float = 0.9,
    seed: int = 0,
    progress: Callable[[dict[str, Any]], Any] | None = None,
    table: FeatureTable | None = None,
    transition_buckets: int | None = None,
    label_buckets: int | None = None,
    pseudo_projective: str | None = None,
    guide: Sequence[Sentence] | None = None,
    dev_guide: Sequence[Sentence] | None = None,
    oracle_priority: str | None = None,
    variant_features: bool = True,
    feature_model: str = DEFAULT_FEATURE_MODEL,
    model: str = "perceptron",
    neural: dict[str, Any] | None = None,
    embeddings: Any = None,
    embeddings_extra: int = DEFAULT_EXTRA,
    stepped_batch: int | None = None,
    **oracle_options: Any,
) -> tuple[TransitionParser, dict[str, Any]]:
    """Train a parser for `system` (a registry name like "covington-nm" or "arc-eager+lba").

    oracle: "static" or "dynamic"; bound: the oracle's bound ("lower",
    "pc-upper", "upper" for covington-nm; None = its first); epochs: None =
    `arcwise.training.epochs.default_epochs` (15; a bilstm's by its updates); exploration from
    epoch index explore_from (0-based) with probability explore_p; table: the
    feature table (default: the system's bundled one, of feature_model: "default" or a
    name of `arcwise.features.templates.FEATURE_MODELS`, "malt"); bucket counts: powers
    of two (default `perceptron.default_buckets`); oracle_options go to the
    system's oracle (e.g. swap="eager").  progress, if given, is called with
    each epoch's log entry.  pseudo_projective ("head", "path", "head+path"):
    train on trees projectivized with that encoding (Nivre & Nilsson 2005;
    `arcwise.training.data.projectivized`), which makes sense for the projective systems
    (arc-eager, arc-hybrid); the parser deprojectivizes its output, and dev
    scores compare that output with the original dev trees.  guide,
    dev_guide: a guide parser's output on the train and dev sentences (in
    order; only head and deprel are read) to train a guided parser
    (stacking, 2011 paper §5.3) with the system's guide features (Table 5)
    added to the default table; the training trees should come from a guide
    that did not see them (jackknifing: `arcwise.combination.stacking`).
    oracle_priority: "monotonic" or "none", for the non-monotonic oracles
    (arc-eager-nm, covington-nm): prefer, among the zero-cost transitions,
    those that keep the monotonic system's loss (Honnibal et al. 2013, §6;
    `arcwise.oracles.priority`); None = the oracle's default ("monotonic"
    for arc-eager-nm, as in that paper; "none" for covington-nm, as in the
    2017 paper).
    variant_features: whether the default table has the features of the
    variant's extra transitions (arc-eager+lba ...: the buffer words,
    features/templates/arc_eager_buffer.txt); False = the base system's
    table, as before they existed.  Ignored when a table is given.
    model: "perceptron" (the averaged perceptron's fused compiled loops) or
    "bilstm" (`arcwise.learn.neural`, trained step by step through
    `arcwise.transition.stepped`; needs the neural extra); neural: its options
    (`bilstm.Sizes` fields, batch_sentences, aggressive_p, threads).
    embeddings: pretrained word vectors for the bilstm, a vectors file or
    `arcwise.learn.embeddings.Vectors` already read; of the file, the vectors of
    the training vocabulary and of the first embeddings_extra other words are
    kept, in the model (`arcwise.learn.embeddings`).
    stepped_batch: train the perceptron step by step like any `Scorer`
    (`arcwise.transition.scorers.perceptron`), that many sentences advancing together,
    instead of its fused loop (None); the result is the same kind of parser.
    Returns (the parser of the best epoch, the log).  Raises ArcwiseError
    (before any training) when no training sentence is a tree of two or more
    words the system can learn from.
    """
    ts = check_options(system, oracle=oracle, bound=bound, epochs=epochs,
                       explore_from=explore_from, explore_p=explore_p,
                       transition_buckets=transition_buckets, label_buckets=label_buckets,
                       pseudo_projective=pseudo_projective, guided=guide is not None,
                       oracle_priority=oracle_priority, variant_features=variant_features,
                       feature_model=feature_model, model=model, neural=neural,
                       stepped_batch=stepped_batch, embeddings=embeddings,
                       embeddings_extra=embeddings_extra, **oracle_options)
    if oracle_priority is not None:
        oracle_options = {**oracle_options, "priority": oracle_priority}
    kernels, oracle_kernels = ts.kernels, ts.oracle
    bound_index = oracle_kernels.bounds.index(bound) if bound is not None else 0
    dynamic = oracle == "dynamic"

    sentences = list(train_sentences)
    if not sentences:
        raise ArcwiseError(nothing_to_learn(0, 0, 0, 0))
    if epochs is None:
        epochs = default_epochs(model, len(sentences),
                                int((neural or {}).get("batch_sentences", 32)))
    lifted = None
    if pseudo_projective is not None:
        sentences, counts = projectivized(sentences, pseudo_projective)
        lifted = {"encoding": pseudo_projective, **counts}
    dev = list(dev_sentences) if dev_sentences is not None else []
    vocabularies = Vocabularies.build(sentences)
    pretrained = None
    if embeddings is not None:  # their words join the lowercased forms' vocabulary
        vectors = vectors_of(embeddings, vocabularies.lower, embeddings_extra)
        vocabularies, pretrained = with_pretrained(vocabularies, vectors)
    labels = list(vocabularies.deprel)
    root_label = _root_label(sentences)
    classes = pc.ClassSet.for_system(kernels, labels)
    table = table or default_table(system, guided=guide is not None,
                                   variant_features=variant_features,
                                   feature_model=feature_model)
    candidate_table = default_candidate_table(system)  # a parameterised system's, else None
    if table.guided != (guide is not None):
        raise ValueError("guide trees go with a guided feature table, and only with one")
    if guide is not None and dev and dev_guide is None:
        raise ValueError("a guided parser needs the guide's trees of the dev sentences too")

    batch = Batch(sentences, vocabularies, guide)
    gold_label = np.maximum(batch.deprel - 2, -1).astype(np.int32)  # vocabulary id -> label id
    prepared: list[tuple[np.ndarray, ...] | None] = []
    usable, malformed, unbuildable = [], 0, 0
    for k, s in enumerate(sentences):
        well_formed = bool(is_well_formed(np.asarray(s.head, dtype=np.int32)))
        buildable = well_formed and ts.can_build(s.head)
        malformed += not well_formed
        unbuildable += well_formed and not buildable
        if buildable or (dynamic and well_formed):
            usable.append(k)
            prepared.append(oracle_kernels.prepare(np.asarray(s.head, dtype=np.int32)))
        else:
            prepared.append(None)
    if not any(sentences[k].n >= 2 for k in usable):
        one_word = sum(1 for k in usable if sentences[k].n < 2)
        raise ArcwiseError(nothing_to_learn(
            len(sentences), malformed, unbuildable if not dynamic else 0, one_word))

    def training_run(log: dict[str, Any]) -> TrainingRun:
        return TrainingRun(system, ts, sentences, batch, dev, vocabularies, classes, root_label,
                           prepared, usable, bound_index, dynamic, epochs, explore_from,
                           explore_p, seed, pseudo_projective, progress, log,
                           list(dev_guide) if guide is not None and dev else None, pretrained)

    if model != "perceptron":
        hyperparameters = {"model": model, "guided": guide is not None, "oracle": oracle, "bound": bound, "epochs": epochs,
                           "explore_from": explore_from, "explore_p": explore_p, "seed": seed,
                           "oracle_options": oracle_options,
                           "oracle_priority": oracle_kernels.priority,
                           "pseudo_projective": pseudo_projective}
        if pretrained is not None:
            hyperparameters.update(embeddings=pretrained.info["source"],
                                   embeddings_extra=embeddings_extra)
        run = training_run(log_header(system, sentences, malformed, unbuildable, usable,
                                      lifted, hyperparameters))
        options = dict(neural or {})
        batch_sentences = int(options.pop("batch_sentences", 32))
        aggressive_p = float(options.pop("aggressive_p", 0.1))
        scorer = scorer_class(model).for_training(run, options)
        return train_stepped(run, scorer, batch_sentences, aggressive_p)
    perceptron = pc.AveragedPerceptron(classes, transition_buckets, label_buckets)
    hyperparameters = {
        "oracle": oracle,
        "bound": bound,
        "epochs": epochs,
        "explore_from": explore_from,
        "explore_p": explore_p,
        "seed": seed,
        "oracle_options": oracle_options,
        "oracle_priority": oracle_kernels.priority,
        "transition_buckets": perceptron.transition_buckets,
        "label_buckets": perceptron.label_buckets,
        "pseudo_projective": pseudo_projective,
        "guided": guide is not None,
        "variant_features": variant_features,
    }
    if feature_model != DEFAULT_FEATURE_MODEL:  # recorded where it is not the default
        hyperparameters["feature_model"] = feature_model
    if stepped_batch is not None:
        hyperparameters["stepped_batch"] = stepped_batch
    log = log_header(system, sentences, malformed, unbuildable, usable, lifted,
                     hyperparameters)
    if stepped_batch is not None:
        run = training_run(log)
        scorer = scorer_class("perceptron").for_training(
            run, {"table": table, "perceptron": perceptron})
        stepped_parser, log = train_stepped(run, scorer, stepped_batch, aggressive_p=0.0)
        return Parser(system, vocabularies, table, classes, scorer.weights, root_label,
                      hyperparameters=hyperparameters, scores=stepped_parser.scores,
                      training_data_sha256=data_sha256(sentences),
                      pseudo_projective=pseudo_projective), log
    parser = Parser(system, vocabularies, table, classes, perceptron.weights, root_label,
                    hyperparameters=hyperparameters, scores={},
                    training_data_sha256=data_sha256(sentences),
                    pseudo_projective=pseudo_projective, candidate_table=candidate_table)
    dev_batch = Batch(dev, vocabularies, dev_guide if guide is not None else None) if dev else None
    epochs_of = PerceptronEpochs(
        parser, perceptron, kernels, oracle_kernels, bound_index, dynamic, explore_from,
        explore_p, seed, table, classes, np.array(usable, dtype=np.int64), batch, gold_label,
        flat_gold(prepared), trained_words=int(sum(sentences[k].n for k in usable)),
        candidate_table=candidate_table)
    return run_epochs(epochs_of, parser, log, epochs=epochs, trained_sentences=len(usable),
                      score_dev=(lambda: score_parser(parser, dev, dev_batch)) if dev else None,
                      progress=progress)


def check_options(system: str, *, oracle: str = DEFAULT_ORACLE, bound: str | None = None,
                  epochs: int | None = None, explore_from: int = 1, explore_p: float = 0.9,
                  transition_buckets: int | None = None, label_buckets: int | None = None,
                  pseudo_projective: str | None = None, guided: bool = False,
                  oracle_priority: str | None = None, variant_features: bool = True,
                  feature_model: str = DEFAULT_FEATURE_MODEL,
                  model: str = "perceptron", neural: dict[str, Any] | None = None,
                  stepped_batch: int | None = None, embeddings: Any = None,
                  embeddings_extra: int = DEFAULT_EXTRA, **oracle_options: Any) -> Any:
    """The transition system (with its oracle) `train` trains with these options (its
    keywords; guided: guide trees given), before any sentence is read: ValueError or
    ArcwiseError naming the first option whose value it cannot take, TypeError for an
    option neither `train` nor the system's oracle has.  `train` runs it first; an
    experiment grid runs it on each configuration before any cell starts
    (`arcwise.experiments.grid`).  explore_from, explore_p and variant_features: what
    ``arcwise train`` takes."""
    if model not in MODELS:
        raise ValueError(f"model must be one of {', '.join(MODELS)}, not {model!r}")
    if neural and model == "perceptron":
        raise ValueError("neural options go with model='bilstm'")
    check_embeddings(embeddings, embeddings_extra, model)
    if stepped_batch is not None and (model != "perceptron" or stepped_batch < 1):
        raise ValueError("stepped_batch goes with model='perceptron' and is at least 1")
    if stepped_batch is not None and guided:
        raise ValueError("a guided parser trains with the fused loop (stepped_batch=None)")
    if oracle not in ORACLES:
        raise ValueError(f"oracle must be one of {', '.join(ORACLES)}, not {oracle!r}")
    if epochs is not None and epochs < 1:
        raise ValueError("epochs must be at least 1")
    if not (isinstance(explore_from, numbers.Integral) and explore_from >= 0):
        raise ValueError(f"explore_from must be an epoch index (0 or more), not {explore_from!r}")
    if not (isinstance(explore_p, numbers.Real) and 0 <= explore_p <= 1):
        raise ValueError(f"explore_p must be a probability (0 to 1), not {explore_p!r}")
    if not isinstance(variant_features, bool):
        raise ValueError(  # noqa: TRY004 -- a bad value, as the others
            f"variant_features must be true or false, not {variant_features!r}")
    pc.check_buckets(transition_buckets=transition_buckets, label_buckets=label_buckets)
    if feature_model != DEFAULT_FEATURE_MODEL and model != "perceptron":
        raise ValueError("feature_model goes with model='perceptron' (a neural model reads "
                         "its words: neural features)")
    if not isinstance(feature_model, str):
        raise ValueError(f"feature_model must be a name, not {feature_model!r}")
    if pseudo_projective is not None:
        encoding_code(pseudo_projective)
    if oracle_priority is not None:
        with_priority = [n for n in registry.names()
                         if "priority" in registry.REGISTRY.oracle_options(n)]
        if system.split("+")[0] not in with_priority:
            raise ValueError(f"an oracle priority applies to {' and '.join(with_priority)} "
                             f"only, not {system}")
        oracle_options = {**oracle_options, "priority": oracle_priority}
    ts = registry.get(system, **oracle_options)
    if ts.kernels.parameterised is not None and stepped_batch is not None:
        raise ValueError(f"{system} has an action per k (left-arc-k): the perceptron scores "
                         "its candidates in its fused loops (stepped_batch=None)")
    check_feature_model(system, feature_model)
    if neural:
        check_neural(neural, ts.kernels.system_id)
    if ts.oracle is None:
        raise ValueError(f"{system} has no oracle to train with")
    if bound is not None and bound not in ts.oracle.bounds:
        bounds = ", ".join(ts.oracle.bounds) or "(none)"
        raise ValueError(f"{system} takes bound in {bounds}, not {bound!r}")
    return ts


def check_embeddings(embeddings: Any, extra: Any, model: str) -> None:
    """ValueError for pretrained vectors given to a model that reads none (the perceptron)
    or a bad count of extra words; InputError for a file whose first line is no vectors
    file's (`arcwise.learn.embeddings.read_header`: cheap, before any sentence is read)."""
    if not (isinstance(extra, numbers.Integral) and not isinstance(extra, bool) and extra >= 0):
        raise ValueError(f"embeddings_extra must be a count of words (0 or more), not {extra!r}")
    if embeddings is None:
        return
    if model == "perceptron":
        raise ValueError("embeddings (pretrained word vectors) go with a neural model "
                         "(model='bilstm'), not the perceptron")
    if not isinstance(embeddings, Vectors):
        read_header(embeddings)


def check_neural(neural: dict[str, Any], system_id: int) -> None:
    """ValueError for a BiLSTM scorer's options (`train`'s ``neural``) that training would
    refuse: its step options (batch_sentences, aggressive_p), the words it reads
    (features, `arcwise.features.templates.neural_addresses`) and the network's
    (`arcwise.learn.neural.checked_sizes`)."""
    from arcwise.learn.neural import checked_sizes  # torch is imported for neural options only

    options = dict(neural)
    neural_addresses(system_id, options.pop("features", DEFAULT_NEURAL_FEATURES))
    batch = options.pop("batch_sentences", 32)
    if not (isinstance(batch, numbers.Integral) and batch >= 1):
        raise ValueError(f"neural batch_sentences must be at least 1, not {batch!r}")
    aggressive_p = options.pop("aggressive_p", 0.1)
    if not (isinstance(aggressive_p, numbers.Real) and 0 <= aggressive_p <= 1):
        raise ValueError(f"neural aggressive_p must be a probability (0 to 1), "
                         f"not {aggressive_p!r}")
    checked_sizes(options)


def epoch_order(usable: np.ndarray, seed: int, epoch: int) -> np.ndarray:
    """The sentences (indices into `usable`'s treebank) in the order the perceptron trains
    on them in epoch `epoch` (0-based) of a run with this seed."""
    return np.random.default_rng([seed, epoch]).permutation(usable)


def epoch_seed(seed: int, epoch: int) -> int:
    """The seed of the exploration draws of the perceptron's compiled epoch `epoch`
    (`arcwise.transition.fused.train_epoch`) in a run with this seed."""
    return (seed * 1_000_003 + epoch) % 2**32


@dataclasses.dataclass
class PerceptronEpochs:
    """The averaged perceptron's epochs (`arcwise.training.epochs.EpochTrainer`): the fused
    compiled `train_epoch` over the sentences in a new order each epoch; the parser
    gets the averaged weights after each."""

    parser: Parser
    perceptron: Any  # `arcwise.learn.perceptron` model: weights and totals
    kernels: Any
    oracle: Any
    bound: int
    dynamic: bool
    explore_from: int
    explore_p: float
    seed: int
    table: Any
    classes: pc.ClassSet
    usable: np.ndarray
    batch: Batch
    gold_label: np.ndarray
    gold: tuple  # `flat_gold` of the prepared gold trees
    trained_words: int
    candidate_table: FeatureTable | None = None  # a parameterised system's
    step: int = 0

    def train_epoch(self, epoch: int) -> dict[str, Any]:
        order = epoch_order(self.usable, self.seed, epoch)
        explore = self.dynamic and epoch >= self.explore_from
        gold_flat, gold_offsets = self.gold
        classes = self.classes
        if self.candidate_table is not None:
            self.step, configurations, updates, wrong = candidates.train_epoch(
                self.kernels.system_id, self.kernels.options, self.oracle.variant, self.bound,
                self.dynamic, explore, self.explore_p, epoch_seed(self.seed, epoch),
                self.table.program, self.candidate_table.program, self.perceptron.weights,
                self.perceptron.totals, self.step, order, self.batch.offsets,
                self.batch.words, self.gold_label, gold_flat, gold_offsets,
            )
        else:
            self.step, configurations, updates, wrong = train_epoch(
                self.kernels.system_id, self.kernels.options, self.oracle.variant, self.bound,
                self.dynamic, explore, self.explore_p, epoch_seed(self.seed, epoch),
                self.table.program, self.perceptron.weights, self.perceptron.totals,
                self.step, classes.transition, classes.label, classes.first_class,
                classes.takes_label, order, self.batch.offsets, self.batch.words,
                self.gold_label, gold_flat, gold_offsets,
            )
        self.parser.weights = self.perceptron.averaged(max(self.step, 1))
        return {
            "configurations": int(configurations),
            "updates": int(updates),
            "error_rate": round(updates / max(configurations, 1), 6),
            "train_head_errors": round(wrong / max(self.trained_words, 1), 6),
            "exploring": bool(explore),
        }

    def snapshot(self) -> pc.Weights:
        return self.parser.weights  # a new array each epoch

    def restore(self, snapshot: pc.Weights) -> None:
        self.parser.weights = snapshot


@dataclasses.dataclass
class TrainingRun:
    """What `train` prepared for the epochs: the data, the oracle's gold arrays and the
    options of the run (and its log so far)."""

    system: str
    ts: Any  # the `TransitionSystem` with its oracle
    sentences: list[Sentence]
    batch: Batch  # the sentences encoded
    dev: list[Sentence]
    vocabularies: Vocabularies
    classes: pc.ClassSet
    root_label: str
    prepared: list  # per sentence, the oracle's prepared gold arrays (None: not trained on)
    usable: list[int]  # the sentences trained on
    bound: int
    dynamic: bool
    epochs: int
    explore_from: int
    explore_p: float
    seed: int
    pseudo_projective: str | None
    progress: Callable[[dict[str, Any]], Any] | None
    log: dict[str, Any]
    dev_guide: list[Sentence] | None = None  # a guided run's: the guide's trees of dev
    pretrained: Any = None  # its `arcwise.learn.embeddings.Pretrained` vectors, or None


def train_stepped(run: TrainingRun, scorer, batch_sentences: int, aggressive_p: float):
    """`train` for any stepped `Scorer`: batches of sentences through
    `arcwise.transition.stepped.train_batch`, the best epoch on dev kept; returns (parser, log)."""
    run.log["hyperparameters"].update(batch_sentences=batch_sentences,
                                      aggressive_p=aggressive_p)
    parser = ScorerParser(run.system, run.vocabularies, run.classes, scorer,
                                  run.root_label, hyperparameters=run.log["hyperparameters"],
                                  training_data_sha256=data_sha256(run.sentences),
                                  pseudo_projective=run.pseudo_projective)
    dev_batch = Batch(run.dev, run.vocabularies, run.dev_guide) if run.dev else None
    epochs_of = ScorerEpochs(run, scorer, run.batch, batch_sentences, aggressive_p)
    return run_epochs(epochs_of, parser, run.log, epochs=run.epochs,
                      trained_sentences=len(run.usable),
                      score_dev=(lambda: score_parser(parser, run.dev, dev_batch)) if run.dev
                      else None, progress=run.progress)


class ScorerEpochs:
    """A stepped scorer's epochs (`arcwise.training.epochs.EpochTrainer`): batches of sentences of
    similar lengths through `arcwise.transition.stepped.train_batch`, exploring as the oracle step's
    policy says; snapshots are the scorer's (`Scorer.snapshot`)."""

    def __init__(self, run: TrainingRun, scorer, batch: Batch, batch_sentences: int,
                 aggressive_p: float):
        self.run, self.scorer, self.batch = run, scorer, batch
        self.batch_sentences, self.aggressive_p = batch_sentences, aggressive_p
        self.usable = np.array(run.usable, dtype=np.int64)
        self.lengths = np.array([run.sentences[k].n for k in self.usable])

    def train_epoch(self, epoch: int) -> dict[str, Any]:
        run = self.run
        rng = np.random.default_rng([run.seed, epoch])
        explore = run.dynamic and epoch >= run.explore_from
        policy = steps.AGGRESSIVE if explore else steps.FOLLOW_ORACLE
        loss = configurations = wrong = 0
        for indices in length_batches(self.lengths, self.batch_sentences, rng):
            chosen = self.usable[indices]
            part = sub_batch(self.batch, chosen)
            gold = flat_gold([run.prepared[k] for k in chosen])
            batch_loss, c, w = stepped.train_batch(
                self.scorer, run.ts.kernels, run.ts.oracle, run.classes, part, gold, run.bound,
                run.dynamic, policy, run.explore_p, self.aggressive_p, rng)
            loss += batch_loss * len(chosen)
            configurations += c
            wrong += w
        return {
            "configurations": int(configurations),
            "loss": round(loss / max(len(self.usable), 1), 6),
            "train_head_errors": round(wrong / max(int(self.lengths.sum()), 1), 6),
            "exploring": bool(explore),
        }

    def snapshot(self) -> Any:
        return self.scorer.snapshot()

    def restore(self, snapshot: Any) -> None:
        self.scorer.restore(snapshot)


