"""Reading speed: a treebank into Sentences, and into Sentences plus id arrays.

    python bench/read_speed.py [TREEBANK] [--repeat N]

Prints the best of N runs (wall clock and CPU time) for: reading only,
reading + encoding with growing vocabularies, and the words per second.
Default treebank: data/en_ewt/train.conllu.gz.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from arcwise.core.vocab import Vocabularies
from arcwise.io import read_treebank

DEFAULT = Path(__file__).resolve().parent.parent / "data" / "en_ewt" / "train.conllu.gz"


def read_only(path):
    return [sentence for sentence in read_treebank(path)]


def read_and_encode(path):
    vocabularies = Vocabularies()
    return [(sentence, vocabularies.encode(sentence)) for sentence in read_treebank(path)]


def best_of(repeat, task, path):
    best_wall = best_cpu = float("inf")
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        result = task(path)
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
        del result
    return best_wall, best_cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("treebank", nargs="?", default=str(DEFAULT))
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    sentences = read_only(args.treebank)
    words = sum(s.n for s in sentences)
    del sentences
    print(f"{args.treebank}: {words} words, best of {args.repeat} runs")
    for name, task in [("read", read_only), ("read + encode", read_and_encode)]:
        wall, cpu = best_of(args.repeat, task, args.treebank)
        print(f"{name:14s} {wall:6.3f} s wall  {cpu:6.3f} s CPU  {words / wall:10,.0f} words/s")


if __name__ == "__main__":
    main()
