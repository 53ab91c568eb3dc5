"""An averaged perceptron over labeled transitions: a transition decision, then a label.

A greedy parser chooses among *classes*: every transition of its system, the
arc transitions once per dependency label (shift, no-arc, left-arc(nsubj),
right-arc(obj), ...).  The model makes that choice in two linear decisions
over hashed features (MaltParser's "split" decision; Nivre's "transition,
then label"):

    t* = argmax_t Σ_f W_T[bucket(f), t]                  over the legal transitions
    l* = argmax_l Σ_g W_L[bucket(g), (t*, l)]            if t* is an arc transition

where f runs over the configuration's features and g over its label features
(the templates marked ``@label``).  Each decision is a perceptron of its own
(Collins 2002): W_T learns when the transition is wrong; W_L learns, whenever
the gold class is an arc, the gold label against the label it would give
that arc.  So the labeler is trained and consulted only where an arc is
made -- about one configuration in seven for Covington -- which is why it can
afford every template as a label feature, and why it is not disturbed by
"arc or not" errors, which belong to W_T.  (Session 1 scored the joint
argmax of W_T[., t] + W_L[., (t, l)] with 21 label templates: LA 84.3 on
EWT; more label rows did not help, the joint updates did not learn labels.)
W_T has one column per transition (≤ 8) and W_L one per (arc transition,
label) pair.

Classes are numbered so that the kernels need no lookup tables: first the
unlabeled transitions, one class each, then each arc transition's block of
n_labels classes (`ClassSet`).  Column of W_T: class c itself for c <
n_unlabeled, else n_unlabeled + (c - n_unlabeled) // n_labels; column of W_L:
c - n_unlabeled.

Averaging is lazy (the trick of Daumé III's 2006 thesis): besides the weights
W (int32: every update is ±1, so at most 2^31 updates per weight) we keep
totals U (int64) with U += step × delta, where step is the number of examples
seen before this one; after n examples the average of the n weight vectors
W_1 .. W_n is W - U / n (`average`).  Integer W and U make training exact and
its result independent of anything but the order of the examples.

Memory, with B_T × C weights in W_T and B_L × S in W_L (`memory_bytes`):
a trained parser holds float32 averaged weights, 4 bytes each, a loaded one
int8 (1 byte; see "model-file arrays" below); training holds W (4 bytes), U
(8 bytes) and an averaged copy for dev evaluation (4 bytes), 16 bytes per
weight.  `default_buckets` caps each table at 2^24 weights, so a loaded model
is at most 32 MiB in memory (128 MiB as float32) and its training tables at
most 512 MiB, whatever the number of labels (up to 2^14 (arc, label) pairs).
Covington with 50 labels: W_T 2^22 × 4 + W_L 2^17 × 100 = 29.9M weights,
30 MB to parse with, 479 MB to train.  W_L is written only by label errors
on arcs, so most of its rows stay zero.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np

from arcwise.core import arrays
from arcwise.core.errors import ArcwiseError, MissingArray
from arcwise.core.jit import njit
from arcwise.core.prefetch import prefetch
from arcwise.features.hashing import bucket, is_power_of_two

MAX_WEIGHTS_PER_TABLE = 2**24
MAX_TRANSITION_BUCKETS = 2**22
MAX_LABEL_BUCKETS = 2**20
MIN_BUCKETS = 2**10


class Weights(NamedTuple):
    """The two weight tables of the factored model (also used for the totals U).

    A table's weights are its entries times its scale: 1 for the tables of training
    (integers) and averaging (float32), a loaded model's int8 tables carry theirs
    (`quantized`)."""

    transition: np.ndarray  # [transition buckets, transitions]: W_T
    label: np.ndarray  # [label buckets, arc transitions × labels]: W_L
    n_labels: int
    transition_scale: float = 1.0
    label_scale: float = 1.0


class ClassSet:
    """The classes a parser scores, and their numbering.

    Classes 0 .. n_unlabeled-1 are the unlabeled transitions (in action id
    order); then every arc transition (in action id order) has a block of
    n_labels classes, label 0 first.  `transition[c]` and `label[c]` (-1 for
    unlabeled) give a class's kernel action id and label id; `class_of` goes
    back.  Column k of W_T belongs to `column_action[k]`.
    """

    def __init__(
        self,
        actions: Sequence[str],
        labeled: Sequence[bool],
        enabled: Sequence[int],
        labels: Sequence[str],
    ):
        enabled = sorted({int(a) for a in enabled})
        self.actions = tuple(actions)
        self.labels = tuple(labels)
        self.n_labels = len(self.labels)
        unlabeled = [a for a in enabled if not labeled[a]]
        arcs = [a for a in enabled if labeled[a]]
        if arcs and not self.labels:
            raise ValueError("a system with arc transitions needs at least one label")
        if len(set(self.labels)) != len(self.labels):
            raise ValueError("labels must be distinct")
        self.column_action = np.array(unlabeled + arcs, dtype=np.int32)
        self.n_unlabeled = len(unlabeled)
        self.n_columns = len(self.column_action)
        self.n_slots = len(arcs) * self.n_labels
        self.n_classes = self.n_unlabeled + self.n_slots
        self.transition = np.concatenate(
            [
                np.array(unlabeled, dtype=np.int32),
                np.repeat(np.array(arcs, dtype=np.int32), self.n_labels),
            ]
        )
        self.label = np.concatenate(
            [
                np.full(self.n_unlabeled, -1, dtype=np.int32),
                np.tile(np.arange(self.n_labels, dtype=np.int32), len(arcs)),
            ]
        )
        # first_class[a]: the class of unlabeled action a, or of (a, label 0); -1 if a is disabled
        self.first_class = np.full(len(self.actions), -1, dtype=np.int32)
        self.takes_label = np.zeros(len(self.actions), dtype=np.bool_)
        for c in range(self.n_classes - 1, -1, -1):
            self.first_class[self.transition[c]] = c
        for a in arcs:
            self.takes_label[a] = True

    @classmethod
    def for_system(cls, kernels, labels: Sequence[str]) -> ClassSet:
        """The classes of a `SystemKernels` (its enabled actions) with these labels; those of
        a parameterised system are its kinds (shift, left-arc(l), right-arc(l)), a class
        then standing for every k (`arcwise.transition.candidates`)."""
        return cls(kernels.actions, kernels.labeled, kernels.enabled, labels)

    def class_of(self, action: int, label: int = -1) -> int:
        """Class id of (action id, label id); the label is ignored for unlabeled actions."""
        if not 0 <= action < len(self.actions) or self.first_class[action] < 0:
            raise ValueError(f"action {action} is not one of this class set's transitions")
        if not self.takes_label[action]:
            return int(self.first_class[action])
        if not 0 <= label < self.n_labels:
            raise ValueError(
                f"{self.actions[action]} needs a label id in 0..{self.n_labels - 1}, not {label}"
            )
        return int(self.first_class[action]) + label

    def name(self, c: int) -> str:
        """``shift`` or ``left-arc(nsubj)``."""
        action = self.actions[self.transition[c]]
        return action if self.label[c] < 0 else f"{action}({self.labels[self.label[c]]})"

    def legal_classes(
        self, transition_mask: np.ndarray, out: np.ndarray | None = None
    ) -> np.ndarray:
        """The class mask of a mask over action ids (as the system's `legal` fills it)."""
        if out is None:
            out = np.zeros(self.n_classes, dtype=np.bool_)
        legal_classes(self.transition, transition_mask, out)
        return out

    def to_json(self) -> dict:
        """What a model file records to rebuild and check this class set."""
        return {
            "transitions": [self.actions[a] for a in self.column_action],
            "labels": list(self.labels),
        }

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, ClassSet)
            and (self.actions, self.labels)
            == (
                other.actions,
                other.labels,
            )
            and np.array_equal(self.transition, other.transition)
        )

    def __repr__(self) -> str:
        n, unlabeled, labeled = self.n_classes, self.n_unlabeled, self.n_slots
        return f"ClassSet({n} classes: {unlabeled} unlabeled, {labeled} labeled)"


@njit(cache=True)
def legal_classes(class_transition, transition_mask, out):
    """out[c] = is the transition of class c legal (transition_mask over action ids)."""
    for c in range(class_transition.shape[0]):
        out[c] = transition_mask[class_transition[c]]


@njit(cache=True)
def class_of(first_class, takes_label, action, label):
    """Class id of (action, label) inside compiled code (see `ClassSet`)."""
    if takes_label[action]:
        return first_class[action] + label
    return first_class[action]


# --- scoring and learning ---------------------------------------------------


@njit(cache=True)
def _unlabeled_count(weights):
    """(n_unlabeled, n_arcs), read off the table shapes."""
    n_arcs = weights.label.shape[1] // weights.n_labels if weights.n_labels > 0 else 0
    return weights.transition.shape[1] - n_arcs, n_arcs


@njit(cache=True)
def _transition_column(c, n_unlabeled, n_labels):
    """Column of W_T of class c."""
    return c if c < n_unlabeled else n_unlabeled + (c - n_unlabeled) // n_labels


@njit(cache=True, inline="always")
def prefetch_rows(table, features, first, width):
    """Start loading table[bucket(f), first : first + width] for every f in features
    (`arcwise.core.prefetch`; what `sum_rows` reads): a hint, no result changes."""
    rows = table.shape[0]
    for f in range(features.shape[0]):
        row = bucket(features[f], rows)
        prefetch(table, row, first)
        prefetch(table, row, first + width - 1)


@njit(cache=True)
def sum_rows(table, features, first, out):
    """out[k] = Σ_f table[bucket(f), first + k] for every k < len(out), each sum in float64
    and in the order of the features (so the result does not depend on how it is computed).

    Every row's slice is prefetched first (`arcwise.core.prefetch`: the rows are loaded
    together, not one after the other).  A few columns (W_T's transitions) are then summed
    four at a time in registers; a wide slice (an arc's labels in W_L) row by row into a
    local array, which the compiler vectorizes and which reads each row's slice front to
    back.
    """
    rows = table.shape[0]
    width = out.shape[0]
    prefetch_rows(table, features, first, width)
    if width > 8:
        sums = arrays.zeros(width, dtype=np.float64)
        for f in range(features.shape[0]):
            row = table[bucket(features[f], rows), first : first + width]
            for k in range(width):
                sums[k] += row[k]
        for k in range(width):  # not out[:] = sums: its shape check compiles for seconds
            out[k] = sums[k]
        return
    k = 0
    while k + 4 <= width:
        c = first + k
        s0 = s1 = s2 = s3 = np.float64(0.0)  # not 0.0: numpy adds float32 to a float in float32
        for f in range(features.shape[0]):
            row = table[bucket(features[f], rows)]
            s0 += row[c]
            s1 += row[c + 1]
            s2 += row[c + 2]
            s3 += row[c + 3]
        out[k], out[k + 1], out[k + 2], out[k + 3] = s0, s1, s2, s3
        k += 4
    while k < width:
        c = first + k
        s0 = np.float64(0.0)
        for f in range(features.shape[0]):
            s0 += table[bucket(features[f], rows), c]
        out[k] = s0
        k += 1


@njit(cache=True)
def score(weights, features, label_features, legal, out):
    """out[c] = the transition score of class c, or -inf where legal[c] is False.

    Every label of an arc transition gets the transition's score Σ_f W_T[f, t]:
    the label is the labeler's choice (`label_scores`, `best_class`).
    features, label_features: hashed feature values (int64 or uint64 arrays);
    legal: bool mask over classes; out: float array over classes -- float64
    while training (int32 weights then sum exactly), float32 suffices for
    averaged weights.  Sums are multiplied by the table's scale (`Weights`).
    """
    n_unlabeled, _ = _unlabeled_count(weights)
    n_labels = weights.n_labels
    by_transition = arrays.empty(weights.transition.shape[1], dtype=np.float64)
    sum_rows(weights.transition, features, 0, by_transition)
    scale = weights.transition_scale
    for c in range(legal.shape[0]):
        if legal[c]:
            out[c] = by_transition[_transition_column(c, n_unlabeled, n_labels)] * scale
        else:
            out[c] = -np.inf


@njit(cache=True)
def label_scores(weights, label_features, arc, out):
    """out[l] = Σ_g W_L[bucket(g), (arc, l)]: the labeler's scores for arc transition
    number `arc` (its block among the arc transitions, 0-based)."""
    sum_rows(weights.label, label_features, arc * weights.n_labels, out)
    for k in range(out.shape[0]):
        out[k] *= weights.label_scale


@njit(cache=True)
def best_label(weights, label_features, arc):
    """The labeler's best label of arc transition `arc` (ties: the lowest id)."""
    block = arrays.empty(weights.n_labels, dtype=np.float64)
    label_scores(weights, label_features, arc, block)
    best = 0
    for label in range(1, block.shape[0]):
        if block[label] > block[best]:
            best = label
    return best


@njit(cache=True)
def _best_label(weights, label_features, arc, legal, first_class):
    """The labeler's best legal label of arc transition `arc` (ties: lowest id; -1 if none)."""
    block = arrays.empty(weights.n_labels, dtype=np.float64)
    label_scores(weights, label_features, arc, block)
    best = -1
    for label in range(block.shape[0]):
        if legal[first_class + label] and (best == -1 or block[label] > block[best]):
            best = label
    return best


@njit(cache=True)
def argmax(scores, mask):
    """The highest-scoring class where mask is True; ties go to the lowest id; -1 if none."""
    best = -1
    for c in range(scores.shape[0]):
        if mask[c] and (best == -1 or scores[c] > scores[best]):
            best = c
    return best


@njit(cache=True)
def best_class(weights, features, label_features, legal, scores):
    """The model's class: the best legal transition (`score`, then `argmax`; ties go to
    the lowest id), labeled, for an arc, by the labeler's best legal label.  -1 if
    nothing is legal.  scores gets the transition scores of every class."""
    score(weights, features, label_features, legal, scores)
    c = argmax(scores, legal)
    n_unlabeled, _ = _unlabeled_count(weights)
    if c < n_unlabeled:
        return c
    n_labels = weights.n_labels
    arc = (c - n_unlabeled) // n_labels
    first = n_unlabeled + arc * n_labels
    return first + _best_label(weights, label_features, arc, legal, first)


@njit(cache=True)
def update(weights, totals, features, label_features, gold, predicted, step, learn_label=True):
    """The perceptron updates of the two decisions, toward class gold from class predicted.

    Transition: if the transitions of gold and predicted differ, W_T += φ(gold
    transition) - φ(predicted transition).  Label: if gold is an arc (and
    learn_label: False where gold's transition adds no arc here), the
    labeler learns it -- W_L += φ(gold label) - φ(its own label) for gold's arc
    transition, when they differ.  Its own label is predicted's when predicted
    has gold's transition (as `best_class` returns it), else its best label
    under the current weights.  step: the number of examples seen before this
    one (0 for the first); it weights the totals U used by `average`.
    """
    if gold == predicted:
        return
    n_unlabeled, _ = _unlabeled_count(weights)
    n_labels = weights.n_labels
    gold_t = _transition_column(gold, n_unlabeled, n_labels)
    pred_t = _transition_column(predicted, n_unlabeled, n_labels)
    if gold_t != pred_t:
        update_transitions(weights, totals, features, gold_t, features, pred_t, step)
    if gold < n_unlabeled or not learn_label:
        return
    arc = (gold - n_unlabeled) // n_labels
    first = n_unlabeled + arc * n_labels
    if gold_t == pred_t:
        own = predicted - n_unlabeled
    else:
        every = arrays.full(first + n_labels, True, dtype=np.bool_)
        own = arc * n_labels + _best_label(weights, label_features, arc, every, first)
    update_labels(weights, totals, label_features, gold - n_unlabeled, own, step)


@njit(cache=True)
def update_transitions(weights, totals, gold_features, gold_column, predicted_features,
                       predicted_column, step):
    """W_T[., gold_column] += φ_gold, W_T[., predicted_column] -= φ_predicted (and the
    totals, weighted by step): the transition update, each class with its own features
    (the same vector for both but where candidates have their own, `arcwise.transition.candidates`)."""
    rows = weights.transition.shape[0]
    for f in range(gold_features.shape[0]):
        b = bucket(gold_features[f], rows)
        weights.transition[b, gold_column] += 1
        totals.transition[b, gold_column] += step
    for f in range(predicted_features.shape[0]):
        b = bucket(predicted_features[f], rows)
        weights.transition[b, predicted_column] -= 1
        totals.transition[b, predicted_column] -= step


@njit(cache=True)
def update_labels(weights, totals, label_features, right, own, step):
    """W_L[., right] += φ, W_L[., own] -= φ (and the totals), unless right == own: the
    labeler's update toward slot right (arc × n_labels + label) from its own slot."""
    if own == right:
        return
    rows = weights.label.shape[0]
    for g in range(label_features.shape[0]):
        b = bucket(label_features[g], rows)
        weights.label[b, right] += 1
        weights.label[b, own] -= 1
        totals.label[b, right] += step
        totals.label[b, own] -= step


@njit(cache=True)
def _average_into(weights, totals, n_steps, out):
    w = weights.ravel()
    u = totals.ravel()
    o = out.ravel()
    for k in range(w.shape[0]):
        o[k] = w[k] - u[k] / n_steps


def average(weights: Weights, totals: Weights, n_steps: int, out: Weights | None = None) -> Weights:
    """The float32 weights averaged over the n_steps examples seen (W - U / n_steps)."""
    if n_steps < 1:
        raise ValueError("average needs at least one example")
    if out is None:
        out = Weights(
            np.empty(weights.transition.shape, dtype=np.float32),
            np.empty(weights.label.shape, dtype=np.float32),
            weights.n_labels,
        )
    for w, u, o in zip(weights[:2], totals[:2], out[:2]):
        if not (w.shape == u.shape == o.shape and o.flags.c_contiguous):
            raise ValueError(
                "average: weights, totals and out must have the same shapes, out contiguous"
            )
        _average_into(w, u, n_steps, o)
    return out


def zeros(classes: ClassSet, transition_buckets: int, label_buckets: int, dtype) -> Weights:
    """Zero tables for these classes, of the given sizes and dtype."""
    return Weights(
        np.zeros((transition_buckets, classes.n_columns), dtype=dtype),
        np.zeros((label_buckets, classes.n_slots), dtype=dtype),
        classes.n_labels,
    )


# --- sizes ------------------------------------------------------------------


def _floor_power_of_two(n: int) -> int:
    return 1 << (max(int(n), 1).bit_length() - 1)


def default_buckets(classes: ClassSet) -> tuple[int, int]:
    """(transition buckets, label buckets): as many as fit 2^24 weights per table."""
    transition = _floor_power_of_two(MAX_WEIGHTS_PER_TABLE // max(classes.n_columns, 1))
    label = _floor_power_of_two(MAX_WEIGHTS_PER_TABLE // max(classes.n_slots, 1))
    return (
        max(MIN_BUCKETS, min(MAX_TRANSITION_BUCKETS, transition)),
        max(MIN_BUCKETS, min(MAX_LABEL_BUCKETS, label)),
    )


def memory_bytes(classes: ClassSet, transition_buckets: int, label_buckets: int) -> dict[str, int]:
    """Bytes of the weight tables: {"weights", "parsing", "training"}.

    parsing = a loaded model's int8 weights; training = int32 W + int64 U + the
    float32 averaged copy made for dev evaluation.
    """
    n = transition_buckets * classes.n_columns + label_buckets * classes.n_slots
    return {"weights": n, "parsing": n, "training": (4 + 8 + 4) * n}


def check_buckets(**buckets: int | None) -> None:
    """ValueError unless each table size given (name=rows; None or 0: the default) is a
    power of two."""
    for name, n in buckets.items():
        if n and not (isinstance(n, int) and is_power_of_two(n)):
            raise ValueError(f"{name} must be a power of two, not {n!r}")


class AveragedPerceptron:
    """Training state: integer weights W, lazy-averaging totals U, the class set.

    The kernels (`best_class`, `update`) take ``self.weights`` and
    ``self.totals`` directly, so a compiled training loop can use them.
    """

    def __init__(
        self,
        classes: ClassSet,
        transition_buckets: int | None = None,
        label_buckets: int | None = None,
    ):
        default_t, default_l = default_buckets(classes)
        transition_buckets = transition_buckets or default_t
        label_buckets = label_buckets or default_l
        check_buckets(transition_buckets=transition_buckets, label_buckets=label_buckets)
        self.classes = classes
        self.weights = zeros(classes, transition_buckets, label_buckets, np.int32)
        self.totals = zeros(classes, transition_buckets, label_buckets, np.int64)

    @property
    def transition_buckets(self) -> int:
        return self.weights.transition.shape[0]

    @property
    def label_buckets(self) -> int:
        return self.weights.label.shape[0]

    def memory_bytes(self) -> dict[str, int]:
        return memory_bytes(self.classes, self.transition_buckets, self.label_buckets)

    def averaged(self, n_steps: int, out: Weights | None = None) -> Weights:
        """float32 weights averaged over the n_steps examples seen so far."""
        return average(self.weights, self.totals, n_steps, out)


# --- model-file arrays ------------------------------------------------------

# A model file (format 2) stores each table whole as int8 (`NAME_weights`) with its scale
# (`scales`, one float per table; `quantized`): a quarter of float32 in memory, and much
# less on disk, where the file deflates them (most rows, and most entries of W_L's rows,
# are zero).  Parsing reads the int8 entries and multiplies each sum by the scale
# (`score`, `label_scores`), so it needs no float copy.  Files of format 1 hold float32
# tables, their nonzero rows (`NAME_weights`) with ascending indices (`NAME_rows`) and
# the row counts of both (`buckets`), or, written in session 1, whole (`NAME_weights`
# only); both are still read, and parse with their float32 weights.
TABLES = ("transition", "label")
ARRAY_NAMES = ("label_weights", "scales", "transition_weights")
STEPS = 127  # int8 entries run from -STEPS to STEPS: a table's largest |weight| is STEPS × scale


def quantized(weights: Weights) -> Weights:
    """The weights as int8 tables, each with the scale that makes its largest ``|weight|``
    STEPS: an entry w becomes round(w / scale), at most scale / 2 away.  int8 tables
    come back as they are (so saving a loaded model again writes the same bytes)."""
    tables = []
    for table, scale in zip(weights[:2], weights[3:]):
        if table.dtype == np.int8:
            tables += [table, scale]
            continue
        values = np.asarray(table, dtype=np.float32) * np.float32(scale)
        top = float(np.abs(values).max()) if values.size else 0.0
        step = top / STEPS if top > 0 else 1.0
        tables += [np.rint(values / np.float32(step)).clip(-STEPS, STEPS).astype(np.int8), step]
    return Weights(tables[0], tables[2], weights.n_labels, tables[1], tables[3])


def dequantized(table: np.ndarray, scale: float) -> np.ndarray:
    """A table's float32 weights (entries times scale)."""
    return np.asarray(table, dtype=np.float32) * np.float32(scale)


def array_specs(classes: ClassSet) -> dict[str, tuple[str, tuple[int | None, ...]]]:
    """{array name: (dtype, shape)} of a saved model (format 2); None = any size."""
    return {"scales": ("<f8", (2,)),
            "transition_weights": ("|i1", (None, classes.n_columns)),
            "label_weights": ("|i1", (None, classes.n_slots))}


def to_arrays(weights: Weights) -> dict[str, np.ndarray]:
    """The arrays a model file stores: the `quantized` tables and their scales."""
    compact = quantized(weights)
    return {"transition_weights": compact.transition, "label_weights": compact.label,
            "scales": np.array(compact[3:], dtype="<f8")}


# The largest table a model file may declare (4 GiB of float32); training makes 2^24 by default.
MAX_TABLE_WEIGHTS = 2**30


def from_arrays(arrays: Mapping[str, np.ndarray], classes: ClassSet, source: str) -> Weights:
    """Weights from a model file's arrays (int8 tables with scales, or float32 ones as
    format 1 wrote them: sparse, or dense in session 1), checked against the class set."""
    columns = {"transition": classes.n_columns, "label": classes.n_slots}
    scales = arrays.get("scales")
    if scales is not None and (scales.dtype != np.dtype("<f8") or scales.shape != (2,)
                               or not (np.isfinite(scales).all() and (scales > 0).all())):
        raise ArcwiseError(f"{source}: corrupt model file ('scales' must be two positive "
                           f"finite float64 numbers)")
    dtype = np.dtype("i1" if scales is not None else "<f4")
    tables = []
    for k, table in enumerate(TABLES):
        name = f"{table}_weights"
        array = arrays.get(name)
        if array is None:
            raise MissingArray(source, name)
        if scales is None and array.dtype == np.int8:  # int8 tables come with their scales
            raise MissingArray(source, "scales")
        if array.dtype != dtype or array.ndim != 2 or array.shape[1] != columns[table]:
            raise ArcwiseError(
                f"{source}: array {name!r} is {array.dtype}{list(array.shape)}, "
                f"expected {dtype.name}[rows, {columns[table]}]"
            )
        if f"{table}_rows" in arrays and scales is None:
            tables.append(_dense(arrays, table, k, array, source))
            continue
        n_rows = array.shape[0]
        if not is_power_of_two(n_rows):
            raise ArcwiseError(f"{source}: array {name!r} has {n_rows} rows, not a power of two")
        tables.append(array)
    if scales is None:
        return Weights(tables[0], tables[1], classes.n_labels)
    return Weights(tables[0], tables[1], classes.n_labels, float(scales[0]), float(scales[1]))


def _dense(arrays: Mapping[str, np.ndarray], table: str, k: int, weights: np.ndarray,
           source: str) -> np.ndarray:
    """The whole float32 table `table` (number k) of format 1's nonzero rows `weights`."""
    name, columns = f"{table}_rows", weights.shape[1]
    rows = arrays[name]
    buckets = arrays.get("buckets")
    if buckets is None or buckets.dtype != np.dtype("<i8") or buckets.shape != (2,):
        raise ArcwiseError(f"{source}: model file lacks the int64[2] array 'buckets'")
    n_rows = int(buckets[k])
    if not is_power_of_two(n_rows):
        raise ArcwiseError(f"{source}: {table} table of {n_rows} rows, not a power of two")
    if n_rows * max(columns, 1) > MAX_TABLE_WEIGHTS:  # refused before allocating it
        raise ArcwiseError(
            f"{source}: {table} table of {n_rows} rows x {columns} columns is larger than "
            f"any model arcwise trains (at most {MAX_TABLE_WEIGHTS:,} weights)"
        )
    if rows.dtype != np.dtype("<i4") or rows.shape != (weights.shape[0],):
        raise ArcwiseError(
            f"{source}: array {name!r} is {rows.dtype}{list(rows.shape)}, expected "
            f"int32[{weights.shape[0]}] (one per row of '{table}_weights')"
        )
    if rows.size and (rows[0] < 0 or rows[-1] >= n_rows or (np.diff(rows) <= 0).any()):
        raise ArcwiseError(f"{source}: array {name!r} is not ascending row numbers below {n_rows}")
    dense = np.zeros((n_rows, columns), dtype=np.float32)
    dense[rows] = weights
    return dense
