"""A plain multiclass averaged perceptron over hashed features, for the tokenizer and the
tagger: the parser's `arcwise.learn.perceptron` with unlabeled classes only (its label
table has no columns), so training, averaging and the model-file arrays are the same code.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from arcwise.core.errors import ArcwiseError, MissingArray
from arcwise.learn import perceptron as pc

LABEL_BUCKETS = pc.MIN_BUCKETS  # the label table is unused: no columns


def class_set(names: Sequence[str]) -> pc.ClassSet:
    """The classes `names` (distinct strings), each an unlabeled "transition"."""
    if len(set(names)) != len(names) or not names:
        raise ValueError("classes must be distinct and at least one")
    return pc.ClassSet(tuple(names), [False] * len(names), range(len(names)), ())


def new_perceptron(names: Sequence[str], buckets: int) -> pc.AveragedPerceptron:
    """Untrained weights for these classes, `buckets` feature rows (a power of two)."""
    return pc.AveragedPerceptron(class_set(names), buckets, LABEL_BUCKETS)


def weights_from(arrays: Mapping[str, np.ndarray], names: Sequence[str], source: str,
                 prefix: str = "") -> pc.Weights:
    """Averaged weights from a model file's arrays (named `prefix` + the perceptron's names)."""
    own = {name[len(prefix):]: a for name, a in arrays.items() if name.startswith(prefix)}
    try:
        classes = class_set(list(names))
    except (ValueError, TypeError) as error:
        raise ArcwiseError(f"{source}: corrupt model file (classes: {error})") from None
    try:
        weights = pc.from_arrays(own, classes, source)
    except MissingArray as missing:
        raise missing.under(prefix) from None
    if not np.isfinite(weights.transition).all():
        raise ArcwiseError(f"{source}: corrupt model file (NaN or infinite weights)")
    return weights


def arrays_of(weights: pc.Weights, prefix: str = "") -> dict[str, np.ndarray]:
    """The model-file arrays of averaged weights, names prefixed."""
    return {prefix + name: a for name, a in pc.to_arrays(weights).items()}


def table_rows(cap: int, examples: int, features_per_example: int) -> int:
    """Rows of a hashed weight table: `cap` (a power of two), or fewer for little training
    data -- the power of two at least twice the features training can see, since more
    rows would stay empty."""
    seen = max(2 * examples * features_per_example, 1)
    return max(pc.MIN_BUCKETS, min(cap, 1 << (seen - 1).bit_length()))
