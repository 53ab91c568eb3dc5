"""What `--trace` costs: the compiled batch parse of English-EWT test on one thread,
with and without trace, per model.

    NUMBA_NUM_THREADS=1 .venv/bin/python bench/trace_speed.py MODEL [MODEL ...]
        [--test PATH] [--repeats 5] [--rounds 3]

Models come from `arcwise train` (bench/speed.py trains one per system).  Per
model, `Parser.parse_encoded` runs untraced and traced in turn, `--rounds`
times, each the best of `--repeats` runs; sentences/s in wall-clock time and
in process CPU time (which other load on a shared machine disturbs less).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from timing import best_of

TEST = Path(__file__).resolve().parents[1] / "data" / "en_ewt" / "test.conllu.gz"


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="+")
    ap.add_argument("--test", default=str(TEST))
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)

    import numba

    from arcwise.features.batch import Batch
    from arcwise.io import read_treebank
    from arcwise.transition.parser import Parser

    numba.set_num_threads(1)
    test = list(read_treebank(args.test))
    rows = []
    print("| model | trace | sentences/s (wall) | sentences/s (CPU) |")
    print("|---|---|--:|--:|")
    for path in args.models:
        parser = Parser.load(path)
        batch = Batch(test, parser.vocabularies)
        for trace in (False, True):
            parser.parse_encoded(batch, trace)  # warm
        best = {False: [float("inf")] * 2, True: [float("inf")] * 2}
        for _ in range(args.rounds):
            for trace in (False, True):
                wall, cpu = best_of(args.repeats, lambda: parser.parse_encoded(batch, trace))
                best[trace] = [min(best[trace][0], wall), min(best[trace][1], cpu)]
        for trace, (wall, cpu) in best.items():
            row = {"model": os.path.basename(path), "trace": trace,
                   "sentences_per_second": round(len(test) / wall),
                   "sentences_per_cpu_second": round(len(test) / cpu)}
            rows.append(row)
            print(f"| {row['model']} | {'yes' if trace else 'no'} | "
                  f"{row['sentences_per_second']:,} | {row['sentences_per_cpu_second']:,} |")
    return rows


if __name__ == "__main__":
    main()
