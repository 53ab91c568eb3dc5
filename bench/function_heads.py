"""Treebanks with adpositions and subordinators as heads (issue #42, item 4), for running the
2012 buffer-transition grid on both annotations.

    .venv/bin/python bench/function_heads.py --data ../shared/data/ud --out DIR \
        [--treebanks Italian-ParTUT,Swedish-LinES]

Each treebank's train, dev and test files are written to DIR/NAME-fh/ with
`arcwise.trees.function_heads.to_function_heads` applied (only HEAD and DEPREL change);
a table of the arc statistics of the 2012 paper's Table 2 (leftward, rightward, length 1;
`arcwise stats`) and of the non-projective sentences, before and after, is printed.  Then:

    arcwise experiment experiments/buffer-2012.toml --data DIR --other-treebanks all \
        --configurations 'arc-eager:static,arc-eager+lba:static,arc-eager+rba:static' \
        -o bench/results/buffer-2012-function-heads
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="folder of treebank folders")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--treebanks", default="Italian-ParTUT,Swedish-LinES,Czech-CLTT,"
                        "Portuguese-Bosque")
    args = parser.parse_args(argv)

    from arcwise.analysis.treebank_stats import treebank_stats
    from arcwise.core.errors import ArcwiseError
    from arcwise.io import annotate, read_treebank
    from arcwise.trees.function_heads import to_function_heads

    def converted(batch, single_root=None):
        return [to_function_heads(s.head, s.deprel) for s in batch]

    columns = ("left_arcs_pct", "right_arcs_pct", "left_length1_pct", "right_length1_pct",
               "nonprojective_sentences_pct")
    print("| treebank | annotation | L % | R % | L1 % | R1 % | non-proj. sentences % |")
    print("|---|---|--:|--:|--:|--:|--:|")
    try:
        for name in args.treebanks.split(","):
            folder = args.out / f"{name}-fh"
            folder.mkdir(parents=True, exist_ok=True)
            for split in ("train", "dev", "test"):
                source = args.data / name / f"{split}.conllu.gz"
                annotate(source, folder / f"{split}.conllu.gz", converted)
            for annotation, path in (("UD", args.data / name), ("function heads", folder)):
                stats = treebank_stats(read_treebank(path / "train.conllu.gz"))
                print(f"| {name} | {annotation} | "
                      + " | ".join(f"{stats[c]:.2f}" for c in columns) + " |")
    except (ArcwiseError, OSError) as error:
        print(f"bench/function_heads.py: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
