"""The log-linear arc labeler: the second stage of the graph-based parser (2011 paper, §3.2).

Given an arc h -> m of the unlabeled tree, p(l | h, m) ∝ exp(Σ_g W[g, l]) over
the arc's label features g (Table 3d, `arcwise.graph.arc_features.label_features`),
hashed into the rows of W.  Training maximises the log-likelihood of the gold
labels of the gold arcs with a zero-mean Gaussian prior of variance 1.0 on the
weights (penalty ||W||² / 2σ²), by L-BFGS for 100 iterations, as the paper does
(Berger, Della Pietra & Della Pietra 1996).  Only the rows of features seen on
at least MIN_COUNT training arcs are optimised (a frequency cutoff the paper
does not state, which divides the variables of L-BFGS by about N); the others stay 0.
"""

from __future__ import annotations

import numpy as np
import scipy.optimize
import scipy.sparse

from arcwise.core.jit import njit

DEFAULT_BUCKETS = 2**17
VARIANCE = 1.0
ITERATIONS = 100
MIN_COUNT = 2  # a feature-frequency cutoff (not in the paper): see train_labeler


def train_labeler(
    indptr: np.ndarray,
    indices: np.ndarray,
    labels: np.ndarray,
    n_labels: int,
    n_buckets: int = DEFAULT_BUCKETS,
    variance: float = VARIANCE,
    iterations: int = ITERATIONS,
    min_count: int = MIN_COUNT,
) -> np.ndarray:
    """The weights [n_buckets, n_labels] (float32) of the labeler trained on arcs.

    Arc k has the feature buckets indices[indptr[k]:indptr[k + 1]] and the gold label
    labels[k].  Buckets seen on fewer than `min_count` arcs are left out (weight 0).
    """
    x, used = feature_matrix(indptr, indices, n_buckets, min_count)
    xt = x.T.tocsr()
    labels = np.asarray(labels, dtype=np.int64)
    result = scipy.optimize.minimize(
        negative_log_posterior, np.zeros(x.shape[1] * n_labels), args=(x, xt, labels, variance),
        jac=True, method="L-BFGS-B", options={"maxiter": iterations},
    )
    weights = np.zeros((n_buckets, n_labels), dtype=np.float32)
    weights[used] = result.x.reshape(len(used), n_labels)
    return weights


def feature_matrix(indptr: np.ndarray, indices: np.ndarray, n_buckets: int,
                   min_count: int = 1) -> tuple[scipy.sparse.csr_matrix, np.ndarray]:
    """The float32 arc x feature count matrix over the buckets seen on >= min_count arcs,
    and those buckets (column j = bucket used[j])."""
    n_arcs = len(indptr) - 1
    rows = np.repeat(np.arange(n_arcs), np.diff(indptr))
    x = scipy.sparse.csr_matrix((np.ones(len(indices), dtype=np.float32), (rows, indices)),
                                shape=(n_arcs, n_buckets))
    x.sum_duplicates()
    arcs_per_bucket = np.bincount(x.indices, minlength=n_buckets)
    used = np.flatnonzero(arcs_per_bucket >= min_count)
    return x[:, used].tocsr(), used


def negative_log_posterior(flat: np.ndarray, x, xt, labels: np.ndarray,
                           variance: float) -> tuple[float, np.ndarray]:
    """-log p(labels | x; W) + ||W||² / 2σ² and its gradient, W = flat as [features, labels].

    Computed in float32 (the sums in float64); the value and gradient are float64 for L-BFGS-B.
    """
    w = flat.reshape(x.shape[1], -1).astype(np.float32)
    scores = x @ w
    top = scores.max(axis=1, keepdims=True)
    exp = np.exp(scores - top)
    z = exp.sum(axis=1, keepdims=True)
    rows = np.arange(len(labels))
    log_likelihood = (scores[rows, labels] - top[:, 0] - np.log(z[:, 0])).sum(dtype=np.float64)
    p = exp / z
    p[rows, labels] -= 1.0
    gradient = (xt @ p).astype(np.float64) + flat.reshape(w.shape) / variance
    value = -log_likelihood + np.dot(flat, flat) / (2 * variance)
    return float(value), gradient.ravel()


@njit(cache=True)
def best_label(weights, buckets, count):
    """The label with the highest score given an arc's label-feature buckets[:count]."""
    scores = np.zeros(weights.shape[1], dtype=np.float32)
    for q in range(count):
        scores += weights[buckets[q]]
    return np.argmax(scores)
