"""Median time per sentence of each graph-based decoder, on random scores.

    .venv/bin/python bench/decoder_speed.py [--treebank data/en_ewt/test.conllu.gz] [--repeat 20]

Sentence lengths are those of the treebank (every sentence once), then
fixed lengths 40 and 100 (`--repeat` sentences each).  Arc and sibling
scores are standard normal, drawn outside the timed call; the decoders
are compiled before timing.  Second-order decoders are skipped above
`SIBLING_MAX_WORDS` words.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from arcwise.graph import (
    SIBLING_MAX_WORDS,
    chu_liu_edmonds,
    eisner,
    second_order_eisner,
    second_order_nonprojective,
)
from arcwise.io import read_treebank

DECODERS = {
    "eisner": (eisner, False),
    "eisner single-root": (eisner, True),
    "chu-liu-edmonds": (chu_liu_edmonds, False),
    "chu-liu-edmonds single-root": (chu_liu_edmonds, True),
    "2nd-order eisner": (second_order_eisner, False),
    "2nd-order non-projective": (second_order_nonprojective, False),
}


def time_decoder(decoder, single_root, lengths, rng):
    """Seconds per call, one call per length."""
    second_order = decoder in (second_order_eisner, second_order_nonprojective)
    times = []
    for n in lengths:
        if second_order and n > SIBLING_MAX_WORDS:
            continue
        arc = rng.normal(size=(n + 1, n + 1))
        if second_order:
            sib = rng.normal(size=(n + 1, n + 1, n + 1))
            start = time.perf_counter()
            decoder(arc, sib, single_root)
        else:
            start = time.perf_counter()
            decoder(arc, single_root)
        times.append(time.perf_counter() - start)
    return np.array(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--treebank", default="data/en_ewt/test.conllu.gz")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    lengths = [len(s.head) - 1 for s in read_treebank(args.treebank)]
    rng = np.random.default_rng(args.seed)
    for decoder, single_root in DECODERS.values():  # compile
        time_decoder(decoder, single_root, [3], rng)
    print(
        f"{args.treebank}: {len(lengths)} sentences, mean {np.mean(lengths):.1f} words, "
        f"max {max(lengths)}; random normal scores"
    )
    columns = ("median ms", "mean ms", "sent/s", "n=40 ms", "n=100 ms")
    print(f"{'decoder':30} {columns[0]:>10} " + " ".join(f"{c:>9}" for c in columns[1:]))
    for name, (decoder, single_root) in DECODERS.items():
        treebank = time_decoder(decoder, single_root, lengths, rng)
        at_40 = time_decoder(decoder, single_root, [40] * args.repeat, rng)
        at_100 = time_decoder(decoder, single_root, [100] * args.repeat, rng)
        print(
            f"{name:30} {1e3 * np.median(treebank):10.3f} {1e3 * treebank.mean():9.3f} "
            f"{len(treebank) / treebank.sum():9.0f} "
            f"{1e3 * np.median(at_40):9.3f} {1e3 * np.median(at_100):9.3f}"
        )


if __name__ == "__main__":
    main()
