"""Median time to compute the costs of all legal actions in one configuration, per oracle.

    .venv/bin/python bench/oracle_speed.py [--sentences 300] [--treebank data/en_ewt/train.conllu.gz]

Configurations are those met while following each oracle with exploration
(a zero-cost action with probability 0.9, else a random legal one) on the
first sentences of the treebank, and separately on its 40-word sentences.
The compiled `costs` kernel is called directly, JIT warm, `REPEAT` times in a
compiled loop per configuration; oracles not written yet are skipped.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from arcwise import systems
from arcwise.io import read_treebank

EXTRA_VARIANTS = ["arc-eager+lba+rba+lnba+rnba", "arc-hybrid+swap"]
REPEAT = 20


@njit
def _repeat_costs(costs, state, prepared, bound, out, repeat):
    for _ in range(repeat):
        costs(state, prepared, bound, out)


def configurations(ts, trees, bound, rng, explore_p=0.1):
    """(state, prepared) pairs met following the oracle with exploration."""
    k, oracle = ts.kernels, ts.oracle
    out = np.zeros(len(k.actions), dtype=np.int64)
    mask = np.zeros(len(k.actions), dtype=np.bool_)
    found = []
    for gold in trees:
        prepared = oracle.prepare(np.asarray(gold, dtype=np.int32))
        state = k.initial(len(gold) - 1)
        while not k.is_terminal(state):
            mask[:] = False
            k.legal(state, mask)
            legal = [a for a in k.enabled if mask[a]]
            found.append((state.copy(), prepared))
            if rng.random() < explore_p:
                action = legal[rng.integers(len(legal))]
            else:
                oracle.costs(state, prepared, bound, out)
                best = min(out[a] for a in legal)
                action = next(a for a in legal if out[a] == best)
            k.apply(state, action, -1)
    return found


def median_microseconds(ts, found, bound):
    out = np.zeros(len(ts.kernels.actions), dtype=np.int64)
    costs = ts.oracle.costs
    state, prepared = found[0]
    _repeat_costs(costs, state, prepared, bound, out, 1)  # compile
    times = []
    for state, prepared in found:
        start = time.perf_counter()
        _repeat_costs(costs, state, prepared, bound, out, REPEAT)
        times.append((time.perf_counter() - start) / REPEAT * 1e6)
    return float(np.median(times))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--treebank", default="data/en_ewt/train.conllu.gz")
    parser.add_argument("--sentences", type=int, default=300)
    parser.add_argument("--length", type=int, default=40, help="length of the long-sentence sample")
    parser.add_argument("--long-sentences", type=int, default=20)
    args = parser.parse_args()
    trees = [s.head for s in read_treebank(args.treebank) if (s.head[1:] >= 0).all()]
    first = trees[: args.sentences]
    long = [h for h in trees if len(h) - 1 == args.length][: args.long_sentences]
    print(
        f"{args.treebank}: {len(first)} sentences, {len(long)} of {args.length} words; "
        "median µs per configuration for the costs of all legal actions"
    )
    long_header = f"{args.length}-word µs"
    print(f"{'oracle':32} {'bound':9} {'configs':>8} {'median µs':>10} {'configs':>8} {long_header:>12}")
    for name in systems.names() + EXTRA_VARIANTS:
        try:
            ts = systems.get(name)
        except (ImportError, ValueError) as error:
            print(f"{name:32} skipped: {error}")
            continue
        if ts.oracle is None or ts.oracle.costs is None:
            print(f"{name:32} skipped: no compiled costs oracle yet")
            continue
        for b, bound in enumerate(ts.oracle.bounds or ("-",)):
            rng = np.random.default_rng(0)
            sample = configurations(ts, first, b, rng)
            sample_long = configurations(ts, long, b, rng)
            print(
                f"{name:32} {bound:9} {len(sample):8d} {median_microseconds(ts, sample, b):10.2f} "
                f"{len(sample_long):8d} {median_microseconds(ts, sample_long, b):12.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
