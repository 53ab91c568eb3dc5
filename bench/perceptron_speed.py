"""Speed and memory of the factored averaged perceptron (arcwise.learn.perceptron).

    .venv/bin/python bench/perceptron_speed.py [--features 50] [--label-features 50]
                                                [--labels 49] [--configurations 200000]

Prints µs per score+argmax (float32 averaged weights, as parsing), per update,
and per training step (score+argmax+update on int32 weights), measured as CPU
time inside a compiled loop as the parser and trainer call them, for two
feature streams: uniform random hashes (every row a cache miss: the worst
case) and Zipf-distributed ones (real feature values repeat).  Then the memory of the default table sizes, and,
for comparison, the same score+argmax with one dense table W[buckets,
classes] of the same memory as the factored model.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from arcwise.features.hashing import bucket, combine
from arcwise.learn import perceptron as pc

COVINGTON = (("shift", "no-arc", "left-arc", "right-arc"), (False, False, True, True))
ARC_EAGER_BUFFER = (
    ("shift", "reduce", "left-arc", "right-arc", "left-buffer-arc", "right-buffer-arc"),
    (False, False, True, True, True, True),
)


@njit(cache=True)
def parse_loop(weights, features, label_features, legal, scores):
    checksum = 0
    for i in range(features.shape[0]):
        checksum += pc.best_class(weights, features[i], label_features[i], legal[i], scores)
    return checksum


@njit(cache=True)
def train_loop(weights, totals, features, label_features, legal, scores, gold):
    errors = 0
    for i in range(features.shape[0]):
        predicted = pc.best_class(weights, features[i], label_features[i], legal[i], scores)
        if predicted != gold[i]:
            errors += 1
        pc.update(weights, totals, features[i], label_features[i], gold[i], predicted, i)
    return errors


@njit(cache=True)
def update_loop(weights, totals, features, label_features, gold, predicted):
    for i in range(features.shape[0]):
        pc.update(weights, totals, features[i], label_features[i], gold[i], predicted[i], i)


@njit(cache=True)
def dense_loop(table, features, legal, scores):
    """The naive alternative: score[c] = Σ_f W[bucket(f), c]."""
    checksum = 0
    rows = table.shape[0]
    for i in range(features.shape[0]):
        scores[:] = 0.0
        for f in range(features.shape[1]):
            row = table[bucket(features[i, f], rows)]
            for c in range(row.shape[0]):
                scores[c] += row[c]
        for c in range(scores.shape[0]):
            if not legal[i, c]:
                scores[c] = -np.inf
        checksum += pc.argmax(scores, legal[i])
    return checksum


@njit(cache=True)
def hashed_pairs(templates, values):
    out = np.empty(templates.shape, dtype=np.uint64)
    for i in range(templates.shape[0]):
        for j in range(templates.shape[1]):
            out[i, j] = combine(combine(0, templates[i, j]), values[i, j])
    return out


def feature_stream(rng, n, k, zipf: bool) -> np.ndarray:
    if not zipf:
        return rng.integers(0, 2**63, size=(n, k), dtype=np.int64).astype(np.uint64)
    # each template draws from its own Zipf(1.2) vocabulary of 10^6 values
    ranks = np.minimum(rng.zipf(1.2, size=(n, k)), 10**6)
    return hashed_pairs(np.arange(k)[None, :].repeat(n, 0), ranks)


def legal_masks(rng, classes: pc.ClassSet, n: int) -> np.ndarray:
    """Random masks in which each transition is legal with probability 0.75."""
    transitions = rng.random((n, len(classes.actions))) < 0.75
    transitions[:, 0] = True
    return transitions[:, classes.transition]


def timed(fn, *args, repeat=3) -> float:
    """Best CPU seconds of `repeat` runs after a warm-up (other processes do not count)."""
    fn(*args)
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn(*args)
        best = min(best, time.process_time() - start)
    return best


def mib(n: int) -> str:
    return f"{n / 2**20:,.0f} MiB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--features", type=int, default=50)
    parser.add_argument("--label-features", type=int, default=None, help="default: = --features")
    parser.add_argument(
        "--labels", type=int, default=49, help="49 labels: 2 + 2×49 = 100 Covington classes"
    )
    parser.add_argument("--configurations", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    n, k = args.configurations, args.features
    k_label = args.label_features or k
    labels = [f"l{i}" for i in range(args.labels)]

    for system, (actions, labeled) in (
        ("covington", COVINGTON),
        ("arc-eager+buffer", ARC_EAGER_BUFFER),
    ):
        classes = pc.ClassSet(actions, labeled, range(len(actions)), labels)
        tb, lb = pc.default_buckets(classes)
        memory = pc.memory_bytes(classes, tb, lb)
        print(
            f"{system}: {classes.n_classes} classes, {k} features, {k_label} label features; "
            f"W_T {tb:,} × {classes.n_columns}, W_L {lb:,} × {classes.n_slots}"
        )
        print(
            f"  memory: parsing {mib(memory['parsing'])}, training {mib(memory['training'])} "
            f"(W int32 + U int64 + averaged float32)"
        )
        model = pc.AveragedPerceptron(classes, tb, lb)
        # random weights: nearly every training step predicts wrong and updates (the worst case)
        model.weights.transition[:] = rng.integers(
            -50, 50, model.weights.transition.shape, dtype=np.int32
        )
        model.weights.label[:] = rng.integers(-50, 50, model.weights.label.shape, dtype=np.int32)
        averaged = model.averaged(1)
        legal = legal_masks(rng, classes, n)
        scores = np.empty(classes.n_classes)  # float64 while training: exact integer sums
        parse_scores = np.empty(classes.n_classes, dtype=np.float32)
        gold = np.array([rng.choice(np.flatnonzero(m)) for m in legal[:50_000]], dtype=np.int64)
        for stream in ("uniform", "zipf"):
            features = feature_stream(rng, n, k, stream == "zipf")
            label_features = features[:, :k_label].copy()
            seconds = timed(parse_loop, averaged, features, label_features, legal, parse_scores)
            m = len(gold)
            predicted = (gold + 1) % classes.n_classes
            up = timed(
                update_loop,
                model.weights,
                model.totals,
                features[:m],
                label_features[:m],
                gold,
                predicted,
            )
            both = timed(
                train_loop,
                model.weights,
                model.totals,
                features[:m],
                label_features[:m],
                legal[:m],
                scores,
                gold,
            )
            print(
                f"  {stream:7s}: score+argmax {seconds / n * 1e6:5.2f} µs, "
                f"update {up / m * 1e6:5.2f} µs, training step {both / m * 1e6:5.2f} µs"
            )
        if system == "covington":
            dense_rows = 1 << ((memory["weights"] // classes.n_classes).bit_length() - 1)
            table = rng.standard_normal((dense_rows, classes.n_classes)).astype(np.float32)
            for stream in ("uniform", "zipf"):
                features = feature_stream(rng, n, k, stream == "zipf")
                seconds = timed(dense_loop, table, features, legal, parse_scores)
                print(
                    f"  dense W[{dense_rows:,} × {classes.n_classes}] ({mib(table.nbytes)}), "
                    f"{stream}: "
                    f"score+argmax {seconds / n * 1e6:5.2f} µs"
                )
            del table


if __name__ == "__main__":
    main()
