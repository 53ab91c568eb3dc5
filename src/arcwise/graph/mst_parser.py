"""The graph-based parser of the 2011 paper (§3.2): MSTParser, first or second order.

Two stages.  (1) An unlabeled parser scores every arc h -> m (order 1) and,
at order 2, every pair of adjacent siblings (h, s, m) (sentences over
`SIBLING_MAX_WORDS` words fall back to order 1), with a linear model
over hashed features (`arc_features`, Table 3a-c); a decoder finds the best
tree: Eisner (projective) or Chu-Liu-Edmonds (non-projective) at order 1, the
second-order Eisner algorithm or its approximate non-projective extension at
order 2 (McDonald & Pereira 2006).  It is trained online for 10 epochs, by
1-best MIRA (McDonald, Crammer & Pereira 2005) or the perceptron, with
averaged weights.  (2) A log-linear labeler picks each arc's label
(`arcwise.graph.arc_labeler`, Table 3d).

Second-order parts of a tree (`tree_buckets`): for every head h and side,
its children m1, m2, ... in order of distance from h give (h, h, m1),
(h, m1, m2), ... -- the first child with no sibling, then adjacent pairs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from arcwise.core.corpus import ROOT, Sentence, as_sentences, nothing_to_learn
from arcwise.core.errors import NOT_TRANSITION_BASED, ArcwiseError
from arcwise.core.jit import njit
from arcwise.core.vocab import Vocabularies, check_tagged
from arcwise.graph import arc_features as af
from arcwise.graph import arc_labeler
from arcwise.graph.chu_liu_edmonds import chu_liu_edmonds
from arcwise.graph.eisner import eisner
from arcwise.graph.second_order import (
    SIBLING_MAX_WORDS,
    second_order_eisner,
    second_order_nonprojective,
)
from arcwise.io import annotate
from arcwise.models import modelfile
from arcwise.trees.projectivity import is_well_formed

ORDERS = (1, 2)
DECODERS = ("projective", "non-projective")
UPDATES = ("mira", "perceptron")
DEFAULT_BUCKETS = 2**23
DEFAULT_EPOCHS = 10
SYSTEM = "mst"
SAVED_ARRAYS = {"arc_weights": ("<f4", (None,)), "label_weights": ("<f4", (None, None))}


class GraphSentence:
    """What the graph parser reads of a sentence: token atoms, in-between PoS counts, gold tree.

    guide: the guide parser's tree of the same sentence (a guided parser's
    input; its head and deprel are read, labels as ids of `labels`, -1 if unknown).
    """

    __slots__ = ("atoms", "counts", "head", "label")

    def __init__(self, sentence: Sentence, vocabularies: Vocabularies, labels: dict[str, int],
                 guide: Sentence | None = None):
        encoded = vocabularies.encode(sentence)
        self.atoms = af.token_atoms(
            encoded.form, encoded.upos, encoded.xpos, sentence.form, sentence.feats
        )
        if guide is not None:
            if guide.n != sentence.n:
                raise ValueError(f"the guide tree has {guide.n} words, the sentence {sentence.n}")
            self.atoms = af.with_guide(self.atoms, guide.head,
                                       [labels.get(r, -1) for r in guide.deprel])
        self.counts = af.between_counts(self.atoms, len(vocabularies.upos))
        self.head = np.asarray(sentence.head, dtype=np.int32)
        self.label = np.array([labels.get(r, 0) for r in sentence.deprel], dtype=np.int32)


@njit(cache=True)
def decode(scores, sib, order, projective, single_root):
    """The best tree under first-order scores (order 1) or first + sibling scores (order 2)."""
    if order == 1:
        if projective:
            return eisner(scores, single_root)
        return chu_liu_edmonds(scores, single_root)
    return second_order_decode(scores, sib, projective, single_root)


@njit(cache=True)
def second_order_decode(scores, sib, projective, single_root):
    if projective:
        return second_order_eisner(scores, sib, single_root)
    return second_order_nonprojective(scores, sib, single_root)


@njit(cache=True)
def tree_buckets(atoms, counts, heads, order, n_buckets, out):
    """The feature buckets of every part of a tree (arcs; at order 2 also sibling pairs)."""
    n1 = atoms.shape[0]
    total = 0
    buffer = np.empty(n1 * out.shape[0] + (n1 * af.SIBLING_FEATURES if order == 2 else 0),
                      dtype=np.int64)
    for m in range(1, n1):
        k = af.arc_features(atoms, counts, heads[m], m, n_buckets, out)
        buffer[total:total + k] = out[:k]
        total += k
    if order == 2 and n1 - 1 <= SIBLING_MAX_WORDS:
        for h in range(n1):
            for side in (1, -1):
                s = h
                m = h + side
                while 0 < m < n1:
                    if heads[m] == h:
                        k = af.sibling_features(atoms, h, s, m, n_buckets, out)
                        buffer[total:total + k] = out[:k]
                        total += k
                        s = m
                    m += side
    return buffer[:total]


@njit(cache=True)
def _difference(gold_buckets, predicted_buckets):
    """The sparse vector f(gold) - f(predicted): (buckets, coefficients)."""
    both = np.concatenate((gold_buckets, predicted_buckets))
    signs = np.concatenate(
        (np.ones(len(gold_buckets)), -np.ones(len(predicted_buckets)))
    )
    order = np.argsort(both, kind="mergesort")
    buckets = np.empty(len(both), dtype=np.int64)
    values = np.empty(len(both))
    k = -1
    for q in order:
        if k >= 0 and buckets[k] == both[q]:
            values[k] += signs[q]
        else:
            k += 1
            buckets[k] = both[q]
            values[k] = signs[q]
    keep = values[: k + 1] != 0
    return buckets[: k + 1][keep], values[: k + 1][keep]


@njit(cache=True)
def update(weights, totals, step, atoms, counts, gold, predicted, order, mira, out):
    """One online update toward the gold tree; returns the Hamming loss of the prediction.

    MIRA (1-best): τ = max(0, (loss - w·Δf) / ||Δf||²); perceptron: τ = 1.  Averaging
    is lazy: totals += step·τ·Δf, so the average after `step` examples is w - totals/step.
    """
    loss = 0
    for m in range(1, len(gold)):
        if gold[m] != predicted[m]:
            loss += 1
    if loss == 0:
        return 0
    n_buckets = weights.shape[0]
    buckets, values = _difference(
        tree_buckets(atoms, counts, gold, order, n_buckets, out),
        tree_buckets(atoms, counts, predicted, order, n_buckets, out),
    )
    if len(buckets) == 0:
        return loss
    if mira:
        margin = 0.0
        norm = 0.0
        for q in range(len(buckets)):
            margin += weights[buckets[q]] * values[q]
            norm += values[q] * values[q]
        tau = max(0.0, (loss - margin) / norm)
    else:
        tau = 1.0
    for q in range(len(buckets)):
        weights[buckets[q]] += tau * values[q]
        totals[buckets[q]] += step * tau * values[q]
    return loss


@njit(cache=True)
def parse_sentence(atoms, counts, weights, order, projective, single_root, out):
    scores = af.arc_scores(atoms, counts, weights, out)
    n1 = atoms.shape[0]
    for k in range(n1):  # cells no decoder reads, kept finite
        scores[k, 0] = 0.0
        scores[k, k] = 0.0
    if order == 2 and n1 - 1 <= SIBLING_MAX_WORDS:
        return decode(scores, af.sibling_scores(atoms, weights, out), 2, projective, single_root)
    return decode(scores, np.zeros((1, 1, 1)), 1, projective, single_root)


@njit(cache=True)
def label_tree(atoms, counts, heads, label_weights, out):
    """Label ids of a tree's arcs by the labeler (entry 0: -1)."""
    n1 = atoms.shape[0]
    labels = np.full(n1, -1, dtype=np.int32)
    for m in range(1, n1):
        k = af.label_features(atoms, counts, heads[m], m, label_weights.shape[0], out)
        labels[m] = arc_labeler.best_label(label_weights, out, k)
    return labels


class GraphParser:
    """A trained graph-based parser (order 1 or 2, projective or non-projective decoding).

    >>> parser = GraphParser.load("en.mst")
    >>> head, deprel = parser.parse(sentence)
    """

    transition_based = False  # no transitions to trace

    def __init__(self, order: int, decoder: str, vocabularies: Vocabularies,
                 labels: Sequence[str], weights: np.ndarray, label_weights: np.ndarray,
                 hyperparameters: dict[str, Any] | None = None,
                 scores: dict[str, Any] | None = None,
                 training_data_sha256: str | None = None, command_line: Sequence[str] = ()):
        if order not in ORDERS:
            raise ValueError(f"order must be 1 or 2, not {order!r}")
        if decoder not in DECODERS:
            raise ValueError(f"decoder must be one of {', '.join(DECODERS)}, not {decoder!r}")
        self.system = SYSTEM
        self.order = order
        self.decoder = decoder
        self.vocabularies = vocabularies
        self.labels = tuple(labels)
        self.weights = weights
        self.label_weights = label_weights
        self.hyperparameters = dict(hyperparameters or {})
        self.scores = dict(scores or {})
        self.training_data_sha256 = training_data_sha256
        self.command_line = list(command_line)
        self._index = {label: k for k, label in enumerate(self.labels)}

    def __repr__(self) -> str:
        return f"GraphParser(order={self.order}, decoder={self.decoder!r})"

    @property
    def guided(self) -> bool:
        """Whether the model reads a guide parser's trees (stacking, 2011 paper §5)."""
        return bool(self.hyperparameters.get("guided", False))

    # jackknifing retrains it without dev: the linear model trains for its fixed epochs
    retrains_with_dev = False

    def training_options(self) -> dict[str, Any]:
        """The options that train a parser like this one (`arcwise.models.kinds.train_system`
        of "mst"): what jackknifing retrains it with."""
        hp = self.hyperparameters
        return dict(model="perceptron", order=self.order, decoder=self.decoder,
                    epochs=hp["epochs"], update_rule=hp["update"], seed=hp["seed"],
                    buckets=hp["buckets"], label_buckets=hp["label_buckets"],
                    labeler_iterations=hp["labeler_iterations"])

    def prepare(self, sentence: Sentence, guide: Sentence | None = None) -> GraphSentence:
        return GraphSentence(sentence, self.vocabularies, self._index, guide)

    def parse(self, sentences, single_root: bool = True, guide=None, trace: bool = False):
        """The (head, deprel) of a sentence, or the list of them for a sequence of sentences.

        single_root: the decoder finds the best tree with exactly one word
        attached to 0 (as UD demands); False: the best tree, several roots allowed.
        guide: a guided model's input, the guide parser's output on the same
        sentence(s) (only head and deprel are read).  trace=True is refused
        (an `ArcwiseError`): there are no transitions to trace.
        """
        if trace:
            raise ArcwiseError(NOT_TRANSITION_BASED)
        sentences, single = as_sentences(sentences)
        if single:
            return self.parse(sentences, single_root, None if guide is None else [guide])[0]
        check_tagged(sentences, self.vocabularies)
        if self.guided != (guide is not None):
            raise ArcwiseError(
                "this model is guided (stacking): it parses with the guide's trees"
                if self.guided else "guide trees given to a model trained without a guide")
        guides = _guides(sentences, guide)
        out = np.zeros(max(af.max_arc_features(len(self.vocabularies.upos)),
                           af.max_label_features(len(self.vocabularies.upos))), dtype=np.int64)
        projective = self.decoder == "projective"
        trees = []
        for sentence, guide_tree in zip(sentences, guides):
            g = self.prepare(sentence, guide_tree)
            heads = parse_sentence(g.atoms, g.counts, self.weights, self.order, projective,
                                   single_root, out)
            label_ids = label_tree(g.atoms, g.counts, heads, self.label_weights, out)
            trees.append((heads, (ROOT, *(self.labels[k] for k in label_ids[1:].tolist()))))
        return trees

    def parse_file(self, input, output, *, format: str | None = None,
                   single_root: bool | None = None,
                   progress: Callable[[int], Any] | None = None,
                   batch_sentences: int = 4096, trace: bool = False) -> int:
        """Parse a treebank into another, streaming; as `arcwise.transition.parser.Parser.parse_file`
        (trace=True is refused, as by `parse`)."""
        if trace:
            raise ArcwiseError(NOT_TRANSITION_BASED)
        return annotate(input, output, self.parse, format=format, single_root=single_root,
                        batch_sentences=batch_sentences, progress=progress)

    def meta(self) -> dict[str, Any]:
        return {
            "system": SYSTEM,
            "options": {"order": self.order, "decoder": self.decoder},
            "labels": list(self.labels),
            "vocabularies": self.vocabularies.to_dict(),
            "training_data_sha256": self.training_data_sha256,
            "scores": self.scores,
            "hyperparameters": self.hyperparameters,
            "command_line": self.command_line,
        }

    def saved(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """What the model file holds: (arrays, metadata)."""
        return {"arc_weights": self.weights, "label_weights": self.label_weights}, self.meta()

    def save(self, path: str | os.PathLike) -> None:
        """Write the model file (averaged weights, labeler weights, metadata), atomically."""
        modelfile.save(path, *self.saved())

    @classmethod
    def load(cls, path: str | os.PathLike, mapped: bool = False) -> GraphParser:
        """A parser from a model file; any problem with the file is an `ArcwiseError`."""
        return cls.from_saved(*modelfile.load(path, mapped=mapped), os.fspath(path))

    @classmethod
    def from_saved(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any],
                   source: str) -> GraphParser:
        """A parser from a model file's (arrays, metadata); `source` names it in errors."""
        modelfile.check_arrays(arrays, SAVED_ARRAYS, source)
        modelfile.check_parser_meta(meta, arrays, source)
        try:
            if meta["system"] != SYSTEM:
                raise ArcwiseError(f"{source}: not a graph-based model ({meta['system']})")
            labels = meta["labels"]
            if arrays["label_weights"].shape[1] != len(labels):
                raise ArcwiseError(f"{source}: label weights do not match the label set")
            return cls(meta["options"]["order"], meta["options"]["decoder"],
                       Vocabularies.from_dict(meta["vocabularies"]), labels,
                       arrays["arc_weights"], arrays["label_weights"],
                       hyperparameters=meta["hyperparameters"], scores=meta["scores"],
                       training_data_sha256=meta["training_data_sha256"],
                       command_line=meta["command_line"])
        except ArcwiseError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise ArcwiseError(f"{source}: bad model metadata ({error})") from None


def _guides(sentences: Sequence[Sentence], guide: Sequence[Sentence] | None) -> list:
    """One guide tree (or None) per sentence; ValueError if the counts differ."""
    if guide is None:
        return [None] * len(sentences)
    guide = list(guide)
    if len(guide) != len(sentences):
        raise ValueError(f"{len(guide)} guide trees for {len(sentences)} sentences")
    return guide


def train_graph_parser(
    train_sentences: Sequence[Sentence],
    dev_sentences: Sequence[Sentence] | None = None,
    *,
    guide: Sequence[Sentence] | None = None,
    dev_guide: Sequence[Sentence] | None = None,
    order: int = 1,
    decoder: str = "non-projective",
    epochs: int = DEFAULT_EPOCHS,
    update_rule: str = "mira",
    seed: int = 0,
    buckets: int = DEFAULT_BUCKETS,
    label_buckets: int = arc_labeler.DEFAULT_BUCKETS,
    labeler_iterations: int = arc_labeler.ITERATIONS,
    progress: Callable[[dict[str, Any]], Any] | None = None,
) -> tuple[GraphParser, dict[str, Any]]:
    """Train the two stages on `train_sentences`; returns (parser, training log:
    `arcwise.training.epochs`).

    Training sentences that are not trees are skipped; ArcwiseError if no
    tree of two or more words is left.
    The unlabeled model of the last epoch is kept (MSTParser has no dev selection);
    dev UAS/LAS are logged when dev sentences are given, and the parser's scores are
    the last epoch's.  guide / dev_guide: the
    guide parser's trees of the train / dev sentences (stacking, §5.1: train the
    guide by jackknifing, `arcwise.combination.stacking`); the model then reads Table 5's
    guide features and needs a guide tree for every sentence it parses.
    """
    import time

    from arcwise.eval.metrics import evaluate
    from arcwise.io.conllu import with_tree
    from arcwise.training.data import data_sha256
    from arcwise.training.epochs import LAST, log_header, run_epochs

    if update_rule not in UPDATES:
        raise ValueError(f"update must be one of {', '.join(UPDATES)}, not {update_rule!r}")
    train_sentences = raw_sentences = list(train_sentences)
    train_guides = _guides(train_sentences, guide)
    trees = [is_well_formed(np.asarray(s.head, dtype=np.int32)) for s in train_sentences]
    if not any(tree and s.n >= 2 for tree, s in zip(trees, train_sentences)):
        raise ArcwiseError(nothing_to_learn(
            len(train_sentences), trees.count(False),
            0, sum(1 for tree, s in zip(trees, train_sentences) if tree and s.n < 2)))
    # sentences that are not trees (HEAD _, cycles) are skipped, as the transition trainer does
    train_guides = [g for g, tree in zip(train_guides, trees) if tree]
    train_sentences = [s for s, tree in zip(train_sentences, trees) if tree]
    if guide is not None and dev_sentences and dev_guide is None:
        raise ValueError("a guided parser's dev sentences need their guide trees (dev_guide)")
    vocabularies = Vocabularies.build(train_sentences)
    labels = sorted({r for s in train_sentences for r in s.deprel[1:]})
    parser = GraphParser(order, decoder, vocabularies, labels,
                         np.zeros(buckets, dtype=np.float32),
                         np.zeros((label_buckets, len(labels)), dtype=np.float32))
    parser.hyperparameters = {"guided": guide is not None}
    data = [parser.prepare(s, g) for s, g in zip(train_sentences, train_guides)]
    n_upos = len(vocabularies.upos)
    out = np.zeros(max(af.max_arc_features(n_upos), af.max_label_features(n_upos)), np.int64)

    # Stage 2 first: the labeler depends only on the gold trees.
    started = time.perf_counter()
    indptr, indices, gold_labels = [0], [], []
    for g in data:
        for m in range(1, len(g.head)):
            k = af.label_features(g.atoms, g.counts, g.head[m], m, label_buckets, out)
            indices.append(out[:k].copy())
            indptr.append(indptr[-1] + k)
            gold_labels.append(g.label[m])
    parser.label_weights = arc_labeler.train_labeler(
        np.array(indptr, dtype=np.int64), np.concatenate(indices),
        np.array(gold_labels, dtype=np.int64), len(labels), label_buckets,
        iterations=labeler_iterations,
    )
    labeler_seconds = time.perf_counter() - started

    hyperparameters = {"guided": guide is not None,
                       "order": order, "decoder": decoder, "epochs": epochs,
                       "update": update_rule, "seed": seed, "buckets": buckets,
                       "label_buckets": label_buckets,
                       "labeler_iterations": labeler_iterations,
                       "labeler_variance": arc_labeler.VARIANCE,
                       "labeler_min_count": arc_labeler.MIN_COUNT}
    parser.hyperparameters = hyperparameters
    parser.training_data_sha256 = data_sha256(train_sentences)
    log = log_header(SYSTEM, raw_sentences, trees.count(False), 0,
                     [k for k, tree in enumerate(trees) if tree], None, hyperparameters)
    log["labeler_seconds"] = round(labeler_seconds, 3)
    epochs_of = GraphEpochs(parser, data, order, decoder == "projective", update_rule == "mira",
                            seed, buckets, out)

    def score_dev():
        parsed = parser.parse(dev_sentences, single_root=False,
                              guide=dev_guide if guide is not None else None)
        return evaluate(dev_sentences, [with_tree(s, *t) for s, t in zip(dev_sentences, parsed)])

    return run_epochs(epochs_of, parser, log, epochs=epochs, trained_sentences=len(data),
                      score_dev=score_dev if dev_sentences else None, progress=progress,
                      keep=LAST)


class GraphEpochs:
    """The graph-based parser's epochs (`arcwise.training.epochs.EpochTrainer`): online MIRA (or
    perceptron) updates of the arc weights, one sentence at a time in a new random order
    each epoch; the parser gets the averaged weights after each."""

    def __init__(self, parser: GraphParser, data: list, order: int, projective: bool,
                 mira: bool, seed: int, buckets: int, out: np.ndarray):
        self.parser, self.data, self.order, self.projective = parser, data, order, projective
        self.mira, self.out = mira, out
        # float32: a line of LINE buckets is one cache line
        self.weights = np.zeros(buckets, dtype=np.float32)
        self.totals = np.zeros(buckets)
        self.rng = np.random.default_rng(seed)
        self.step = 0

    def train_epoch(self, epoch: int) -> dict[str, Any]:
        wrong = 0
        for index in self.rng.permutation(len(self.data)):
            g = self.data[index]
            self.step += 1
            predicted = parse_sentence(g.atoms, g.counts, self.weights, self.order,
                                       self.projective, False, self.out)
            wrong += update(self.weights, self.totals, self.step, g.atoms, g.counts, g.head,
                            predicted, self.order, self.mira, self.out)
        self.parser.weights = (self.weights - self.totals / self.step).astype(np.float32)
        return {"train_wrong_heads": int(wrong)}

    def snapshot(self) -> np.ndarray:
        return self.parser.weights  # a new array each epoch

    def restore(self, snapshot: np.ndarray) -> None:
        self.parser.weights = snapshot
