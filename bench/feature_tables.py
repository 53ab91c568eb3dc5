"""Feature tables of one's own (`arcwise train --features`) against a system's default one:
test UAS/LAS after the same training, and parse speed on one thread.

    .venv/bin/python bench/feature_tables.py TABLE [TABLE ...] [--system covington-nm]
        [--epochs 3] [--oracle dynamic] [--train PATH --dev PATH --test PATH] [--seed 1]

Each table (and the system's default table, first) trains a perceptron parser with the same
data, epochs and seed (dev selection), then parses the test split with the model in memory:
test UAS/LAS (CoNLL 2018 rules) and sentences per second on one thread (the compiled
`parse_encoded` on the encoded test set, JIT warm, best of three: wall clock and CPU time).
Defaults: the bundled English-EWT.  For instance the 2017 paper's Table 2 alone:

    sed '/additions to Table 2/,$d' src/arcwise/features/templates/covington.txt > table2.txt
    .venv/bin/python bench/feature_tables.py table2.txt
"""

from __future__ import annotations

import argparse
from pathlib import Path

from timing import best_of

DATA = Path(__file__).resolve().parents[1] / "data" / "en_ewt"


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tables", nargs="+", type=Path)
    ap.add_argument("--system", default="covington-nm")
    ap.add_argument("--oracle", default="dynamic")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    for split in ("train", "dev", "test"):
        ap.add_argument(f"--{split}", type=Path, default=DATA / f"{split}.conllu.gz")
    args = ap.parse_args(argv)

    import numba

    from arcwise.features import table_from_file
    from arcwise.features.batch import Batch
    from arcwise.io import read_treebank
    from arcwise.training.data import score_parser
    from arcwise.transition.train import train

    train_sentences, dev, test = (list(read_treebank(p)) for p in (args.train, args.dev,
                                                                      args.test))
    numba.set_num_threads(1)
    results = []
    for path in [None, *args.tables]:
        table = None if path is None else table_from_file(path, args.system)
        parser, _ = train(args.system, train_sentences, dev, oracle=args.oracle,
                          epochs=args.epochs, seed=args.seed, table=table)
        batch = Batch(test, parser.vocabularies)
        parser.parse_encoded(batch)  # warm
        wall, cpu = best_of(3, lambda: parser.parse_encoded(batch))
        scores = score_parser(parser, test, batch)
        results.append({"table": "default" if path is None else str(path),
                        "templates": parser.table.n_features, "test_uas": round(scores.uas, 2),
                        "test_las": round(scores.las, 2),
                        "sentences_per_second": round(len(test) / wall),
                        "sentences_per_cpu_second": round(len(test) / cpu)})
        r = results[-1]
        print(f"{args.system} {r['table']}: {r['templates']} templates, test UAS "
              f"{r['test_uas']:.2f} LAS {r['test_las']:.2f}, {r['sentences_per_second']:,} "
              f"sentences/s ({r['sentences_per_cpu_second']:,} per CPU second), one thread",
              flush=True)
    return results


if __name__ == "__main__":
    main()
