"""Hypothesis strategies for small random dependency trees and configurations."""

from __future__ import annotations

import os

import numpy as np
from hypothesis import strategies as hs

PURE_PYTHON = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")


def examples(n: int) -> int:
    """Hypothesis examples for a test: n compiled, a third of them in the pure-Python run."""
    return max(10, n // 3) if PURE_PYTHON else n


def is_projective(heads) -> bool:
    """Brute force: every word strictly between a head and its dependent descends from the head."""
    n = len(heads) - 1
    for d in range(1, n + 1):
        h = heads[d]
        for k in range(min(h, d) + 1, max(h, d)):
            a = k
            while a not in (-1, h):
                a = heads[a]
            if a != h:
                return False
    return True


@hs.composite
def trees(draw, min_words=1, max_words=7, projective=False, single_root=False):
    """A gold head list [-1, h1, ..., hn] forming a tree rooted at 0."""
    n = draw(hs.integers(min_words, max_words))
    while True:
        order = draw(hs.permutations(list(range(1, n + 1))))
        heads = [-1] * (n + 1)
        placed = [0]
        for k, w in enumerate(order):
            if single_root and k > 0:
                choices = placed[1:]
            else:
                choices = placed
            heads[w] = draw(hs.sampled_from(choices))
            placed.append(w)
        if not projective or is_projective(heads):
            return heads


def random_walk(ts, n, rng: np.random.Generator, steps: int):
    """A configuration reached by up to `steps` random legal actions from the start."""
    c = ts.initial(n)
    for _ in range(steps):
        if ts.is_terminal(c):
            break
        c = ts.apply(c, ts.legal(c)[rng.integers(len(ts.legal(c)))])
    return c


@hs.composite
def reachable_configurations(draw, ts, gold, max_steps=None):
    """A configuration reached from the start by up to `max_steps` (default 4 (n + 1))
    random legal actions."""
    seed = draw(hs.integers(0, 2**32 - 1))
    steps = draw(hs.integers(0, 4 * len(gold) if max_steps is None else max_steps))
    return random_walk(ts, len(gold) - 1, np.random.default_rng(seed), steps)


def is_forest(heads) -> bool:
    """Brute force: following heads from every word ends at -1 without revisiting a word."""
    for d in range(1, len(heads)):
        seen, w = set(), d
        while w != -1:
            if w in seen:
                return False
            seen.add(w)
            w = heads[w]
    return True


def static_oracle_path(ts, gold, limit=10_000):
    """The terminal configuration and the action names the static oracle takes from the start."""
    c, taken = ts.initial(len(gold) - 1), []
    while not ts.is_terminal(c):
        taken.append(ts.static_oracle(c, gold))
        c = ts.apply(c, taken[-1])
        assert len(taken) < limit, "the static oracle does not terminate"
    return c, taken


def headless_to_root(heads):
    """The final tree's heads, words left without a head attached to 0."""
    return [heads[0]] + [h if h != -1 else 0 for h in heads[1:]]
