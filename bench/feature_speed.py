"""Feature extraction speed: µs per configuration, per system.

Walks the static oracle over every sentence of a treebank (default: the
bundled English-EWT dev set), records every configuration met, then times
`arcwise.features.extract.extract` over all of them inside one compiled loop
(JIT warmed up first): the best of --repeat runs, in wall-clock and in CPU
time (the CPU figure is the steadier one on a shared machine).  Usage:

    .venv/bin/python bench/feature_speed.py [TREEBANK] [--systems covington-nm,arc-eager,...]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from numba import njit

from arcwise import systems
from arcwise.core.vocab import Vocabularies
from arcwise.features.extract import extract
from arcwise.features.templates import default_table
from arcwise.features.words import batch_matrix
from arcwise.io import read_treebank
from arcwise.systems import ids

DEFAULT = Path(__file__).resolve().parent.parent / "data" / "en_ewt" / "dev.conllu.gz"
SYSTEMS = ",".join(
    ("covington", "covington-nm", "arc-eager", "arc-eager+lba+rba+lnba+rnba", "arc-eager-nm")
    + ("arc-hybrid", "arc-hybrid+swap", "two-planar")
)


@njit  # takes kernels as arguments: not cacheable
def record_static_walk(state, prepared, is_terminal, legal, apply, static, n_actions, out):
    """Copy each configuration met following the static oracle into out; return how many."""
    mask = np.zeros(n_actions, dtype=np.bool_)
    count = 0
    while not is_terminal(state) and count < out.shape[0]:
        out[count, :] = state
        count += 1
        mask[:] = False
        legal(state, mask)
        action = static(state, prepared)
        if action < 0 or not mask[action]:
            break
        apply(state, action, -1)
    return count


@njit(cache=True)
def extract_all(system_id, states, state_start, state_size, column_start, columns, program,
                out_t, out_l):
    """Extract the features of every recorded configuration; returns an XOR of all hashes."""
    check = np.uint64(0)
    for c in range(state_start.shape[0]):
        state = states[state_start[c] : state_start[c] + state_size[c]]
        lo = column_start[c]
        hi = lo + state[0] + 1
        extract(system_id, state, program, columns[lo:hi], out_t, out_l)
        for k in range(out_t.shape[0]):
            check ^= out_t[k]
    return check


def record(name: str, sentences, encoded, vocabularies):
    """(flat states, starts, sizes, column starts, columns) of every oracle configuration."""
    ts = systems.get(name)
    k, oracle = ts.kernels, ts.oracle
    chunks, starts, sizes, column_starts = [], [], [], []
    offset = column_offset = 0
    columns = batch_matrix(encoded, vocabularies)
    for sentence, e in zip(sentences, encoded):
        n = len(e.form) - 1
        gold = np.asarray(sentence.head, dtype=np.int32)
        if n > 0 and np.all(gold[1:] >= 0):
            state = k.initial(n)
            out = np.empty((4 * (n + 1) * (n + 1) + 16, len(state)), dtype=np.int32)
            count = record_static_walk(
                state, oracle.prepare(gold), k.is_terminal, k.legal, k.apply, oracle.static,
                len(k.actions), out,
            )
            chunks.append(out[:count].ravel())
            starts.extend(offset + i * len(state) for i in range(count))
            sizes.extend([len(state)] * count)
            column_starts.extend([column_offset] * count)
            offset += count * len(state)
        column_offset += n + 1
    return (
        np.concatenate(chunks),
        np.array(starts, dtype=np.int64),
        np.array(sizes, dtype=np.int64),
        np.array(column_starts, dtype=np.int64),
        np.ascontiguousarray(columns),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("treebank", nargs="?", default=str(DEFAULT))
    parser.add_argument("--systems", default=SYSTEMS)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    sentences = list(read_treebank(args.treebank))
    vocabularies = Vocabularies.build(sentences)
    encoded = [vocabularies.encode(s) for s in sentences]
    words = sum(len(e.form) - 1 for e in encoded)
    print(f"{args.treebank}: {len(sentences)} sentences, {words} words")
    header = ("templates", "label", "configs", "µs (wall)", "µs (cpu)")
    print(f"{'system':32} " + " ".join(f"{h:>9}" for h in header))
    for name in args.systems.split(","):
        table = default_table(name)
        recorded = record(name, sentences, encoded, vocabularies)
        out_t = np.zeros(table.n_features, dtype=np.uint64)
        out_l = np.zeros(table.n_label_features, dtype=np.uint64)
        system_id = ids.system_id(name)
        extract_all(system_id, *recorded, table.program, out_t, out_l)  # warm up
        wall = cpu = float("inf")
        for _ in range(args.repeat):
            start, start_cpu = time.perf_counter(), time.process_time()
            extract_all(system_id, *recorded, table.program, out_t, out_l)
            wall = min(wall, time.perf_counter() - start)
            cpu = min(cpu, time.process_time() - start_cpu)
        n_configs = len(recorded[1])
        print(
            f"{name:32} {table.n_features:9d} {table.n_label_features:9d} {n_configs:9d} "
            f"{1e6 * wall / n_configs:9.3f} {1e6 * cpu / n_configs:9.3f}"
        )


if __name__ == "__main__":
    main()
