"""Static-oracle coverage per system and treebank, as a markdown table.

    python bench/oracle_coverage.py '../shared/data/ud/*/train.conllu.gz'

Prints, per treebank, the share of sentences each system's static oracle
rebuilds exactly (buildable share in brackets where it differs).  With no
argument it runs on the bundled data/en_ewt/train.conllu.gz.
"""

from __future__ import annotations

import glob
import sys
import time
from pathlib import Path

from arcwise import systems
from arcwise.analysis.oracle_coverage import oracle_coverage
from arcwise.io import read_treebank

SYSTEMS = [
    "arc-eager",
    "arc-eager+lba+rba",
    "arc-eager+lnba+rnba",
    "arc-eager+lba+rba+lnba+rnba",
    "arc-hybrid",
    "arc-hybrid+swap",
    "covington",
    "covington-nm",
    "two-planar",
]


def main(patterns: list[str]) -> None:
    paths = sorted(p for pattern in patterns for p in glob.glob(pattern)) or [
        str(Path(__file__).resolve().parents[1] / "data/en_ewt/train.conllu.gz")
    ]
    print("| treebank | sentences | " + " | ".join(SYSTEMS) + " |")
    print("|---|--:|" + "--:|" * len(SYSTEMS))
    start = time.perf_counter()
    for path in paths:
        trees = [s.head for s in read_treebank(path)]
        cells = []
        for name in SYSTEMS:
            cov = oracle_coverage(systems.get(name), trees)
            d = cov.as_dict()
            cell = f"{d['rebuilt_pct']:.2f}"
            if cov.oracle_failures:
                cell += f" ({cov.oracle_failures} missed)"
            cells.append(cell)
        name = "/".join(Path(path).parts[-2:])
        print(f"| {name} | {cov.sentences} | " + " | ".join(cells) + " |", flush=True)
    print(f"\n{time.perf_counter() - start:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
