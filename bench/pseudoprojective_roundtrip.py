"""How much of each treebank survives pseudo-projective parsing's round trip.

For every file: its non-projective arcs, the arcs PROJECTIVIZE lifts and
its single LIFT steps (Nivre & Nilsson 2005, §2), and for each label
encoding the share of lifted arcs that projectivize -> deprojectivize puts
back (same head and label; the other arcs never move) and how the label set
grows.  Gold trees in, so this is the encoding's upper bound for a parser.

    .venv/bin/python bench/pseudoprojective_roundtrip.py '../shared/data/ud/*/*.conllu.gz'
    .venv/bin/python bench/pseudoprojective_roundtrip.py --random 20000

Prints markdown tables.  Default: the bundled data/en_ewt.
"""

from __future__ import annotations

import argparse
import glob
import time
from collections import Counter
from pathlib import Path

import numpy as np

from arcwise.io.conllu import read
from arcwise.trees.projectivity import is_well_formed, nonprojective_arcs
from arcwise.trees.pseudoprojective import ENCODINGS, deprojectivize, projectivize

REPO = Path(__file__).resolve().parent.parent
DEFAULT = str(REPO / "data" / "en_ewt" / "*.conllu.gz")


def round_trip_file(path: str) -> Counter:
    """Counts for one treebank file; labels[...] are label sets."""
    counts: Counter = Counter()
    labels = {encoding: set() for encoding in ("original", *ENCODINGS)}
    for sentence in read(path):
        heads, deprels = sentence.head, sentence.deprel
        counts["sentences"] += 1
        if not is_well_formed(heads):
            counts["not trees"] += 1
            continue
        counts["arcs"] += sentence.n
        labels["original"].update(deprels[1:])
        nonprojective = int(nonprojective_arcs(heads).sum())
        if nonprojective == 0:
            for encoding in ENCODINGS:
                labels[encoding].update(deprels[1:])
            continue
        counts["non-projective arcs"] += nonprojective
        counts["non-projective sentences"] += 1
        for encoding in ENCODINGS:
            p = projectivize(heads, deprels, encoding)
            labels[encoding].update(p.deprels[1:])
            restored_heads, restored_labels = deprojectivize(p.heads, p.deprels, encoding)
            wrong = sum(
                1
                for d in range(1, len(heads))
                if restored_heads[d] != heads[d] or restored_labels[d] != deprels[d]
            )
            counts[f"{encoding} lost"] += wrong
            counts[f"{encoding} sentences exact"] += wrong == 0
        counts["lifted arcs"] += p.lifted  # the same lifts under every encoding
        counts["lifts"] += p.lifts
    for encoding, found in labels.items():
        counts[f"labels {encoding}"] = len(found)
    return counts


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}" if whole else "–"


HEADER = (
    "| file | sentences | arcs | non-proj. arcs (%) | non-proj. sentences (%) "
    "| lifted arcs | lifts | restored %: head | path | head+path "
    "| labels: original | head | path | head+path |"
)


def table_row(name: str, c: Counter, with_labels: bool = True) -> str:
    lifted, sentences = c["lifted arcs"], c["sentences"]
    cells = [
        name,
        f"{sentences}" + (f" ({c['not trees']} not trees)" if c["not trees"] else ""),
        f"{c['arcs']}",
        f"{c['non-projective arcs']} ({percent(c['non-projective arcs'], c['arcs'])})",
        f"{c['non-projective sentences']} ({percent(c['non-projective sentences'], sentences)})",
        f"{lifted}",
        f"{c['lifts']}",
        *(percent(lifted - c[f"{e} lost"], lifted) for e in ENCODINGS),
        *(str(c[f"labels {e}"]) if with_labels else "" for e in ("original", *ENCODINGS)),
    ]
    return "| " + " | ".join(cells) + " |"


def print_treebank_table(paths: list[str]) -> None:
    print(HEADER)
    print("|" + "---|" * HEADER.count(" | ") + "---|")
    total: Counter = Counter()
    for path in paths:
        counts = round_trip_file(path)
        print(table_row(f"{Path(path).parent.name}/{Path(path).name.split('.')[0]}", counts))
        total.update({k: v for k, v in counts.items() if not k.startswith("labels")})
    print(table_row("**all**", total, with_labels=False))
    print()
    print("restored = % of lifted arcs back at their original head with their original label.")


def random_tree(rng: np.random.Generator, n: int) -> list[int]:
    """Words attached in random order, each to a random word already attached."""
    heads, placed = [-1] * (n + 1), [0]
    for w in rng.permutation(np.arange(1, n + 1)):
        heads[w] = int(placed[rng.integers(len(placed))])
        placed.append(int(w))
    return heads


def print_random_table(samples: int, max_words: int, seed: int) -> None:
    """Share of non-projective random trees restored exactly, per encoding and label alphabet."""
    rng = np.random.default_rng(seed)
    alphabets = {"distinct labels": None, "3 labels": 3, "1 label": 1}
    exact = Counter()
    nonprojective = 0
    for _ in range(samples):
        n = int(rng.integers(3, max_words + 1))
        heads = random_tree(rng, n)
        if not nonprojective_arcs(np.array(heads, dtype=np.int32)).any():
            continue
        nonprojective += 1
        for name, size in alphabets.items():
            if size is None:
                deprels = ("<root>",) + tuple(f"w{d}" for d in range(1, n + 1))
            else:
                deprels = ("<root>",) + tuple(f"l{rng.integers(size)}" for _ in range(n))
            for encoding in ENCODINGS:
                p = projectivize(heads, deprels, encoding)
                restored, _ = deprojectivize(p.heads, p.deprels, encoding)
                exact[name, encoding] += restored.tolist() == heads
    print(f"Random trees of 3..{max_words} words (seed {seed}): ", end="")
    print(f"{nonprojective} of {samples} non-projective.")
    print("Share restored exactly by projectivize -> deprojectivize:")
    print()
    print("| labels | " + " | ".join(ENCODINGS) + " |")
    print("|" + "---|" * (len(ENCODINGS) + 1))
    for name in alphabets:
        print(
            f"| {name} | "
            + " | ".join(percent(exact[name, e], nonprojective) for e in ENCODINGS)
            + " |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "patterns", nargs="*", default=[DEFAULT], help="glob(s) of .conllu / .conllu.gz files"
    )
    parser.add_argument(
        "--random", type=int, default=0, metavar="N", help="instead: N random trees"
    )
    parser.add_argument("--max-words", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    started = time.perf_counter()
    if args.random:
        print_random_table(args.random, args.max_words, args.seed)
    else:
        paths = sorted(p for pattern in args.patterns for p in glob.glob(pattern))
        if not paths:
            parser.error(f"no files match {' '.join(args.patterns)}")
        print_treebank_table(paths)
    print(f"\n({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
