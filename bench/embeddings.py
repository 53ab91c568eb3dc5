"""Pretrained word vectors (issue #42 item 2): vectors trained here against random ones.

    .venv/bin/python bench/embeddings.py DATA --treebank Italian-ParTUT
        [--system two-planar:static] [--epochs 10] [--seeds 1,2] [--dimension 100]
        [--method word2vec|fasttext] [--vectors FILE] [--extra 50000] [--threads 1]
        [--parser-sentences N]
        [--neural KEY=VALUE ...] [--out DIR] [--json] [--report]

DATA: a folder of treebank folders, each with its train, dev and test split
(``train.conllu[.gz]`` or UD's ``*-ud-train.conllu[.gz]``).  No public vectors can be
downloaded where arcwise is measured, so the vectors are trained here with gensim (a
bench dependency, not arcwise's: ``pip install gensim``) on the lowercased forms of
the TRAINING split only, never dev or test, and written as a .vec file; the control is
a .vec file of random vectors, N(0, 1), for the same words in the same dimension.
--vectors FILE takes a vectors file instead of training one (no gensim needed).
--parser-sentences N trains the parsers on N training sentences only (spread evenly over
the split: every len/N-th), the vectors on the whole training split: the rest of it is raw text to them, and test words
it has that the parsers' sentences lack find a vector (what --embeddings-extra is for).

Three conditions, each with the same seeds and options: no vectors, the random ones,
the trained ones (`arcwise train ... --embeddings FILE`; `arcwise.learn.embeddings`).
Reported per condition and seed: the dev LAS of the kept epoch, test UAS and LAS
(punctuation included), and how many test words outside the training vocabulary
found a vector (`arcwise.learn.embeddings.coverage`).  --report keeps the result in bench/results/embeddings/ and rewrites the embeddings
section of RESULTS.md from every kept one.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

CONDITIONS = ("none", "random", "trained")


def split_files(folder: Path) -> dict[str, Path]:
    """split -> its file in a treebank folder (as `arcwise experiment` finds them)."""
    files = {}
    for split in ("train", "dev", "test"):
        found = sorted({p for pattern in (f"{split}.conllu", f"{split}.conllu.gz",
                                          f"*-ud-{split}.conllu", f"*-ud-{split}.conllu.gz")
                        for p in folder.glob(pattern)})
        if len(found) != 1:
            raise SystemExit(f"bench/embeddings.py: {folder}: expected one {split} file, "
                             f"found {len(found)}")
        files[split] = found[0]
    return files


def trained_vectors(sentences, path: Path, method: str, dimension: int, seed: int,
                    epochs: int) -> None:
    """Train word2vec (skip-gram) or fastText with gensim on the sentences' lowercased
    forms (one thread: the same seed, the same vectors) and write them to `path`."""
    from gensim.models import FastText, Word2Vec

    from arcwise.core.vocab import form_signature
    from arcwise.learn.embeddings import write_vectors

    text = [[form_signature(f)[0] for f in s.form[1:]] for s in sentences]
    make = Word2Vec if method == "word2vec" else FastText
    model = make(text, vector_size=dimension, window=5, min_count=1, sg=1, epochs=epochs,
                 seed=seed, workers=1)
    words = list(model.wv.index_to_key)  # by frequency, as published files are
    write_vectors(path, words, model.wv[words])


def random_vectors(source: Path, path: Path, seed: int) -> None:
    """The control: N(0, 1) vectors for the words of `source`, in its dimension."""
    import numpy as np

    from arcwise.learn.embeddings import read_vectors, write_vectors

    vectors = read_vectors(source, extra=10**9)
    write_vectors(path, vectors.words, np.random.default_rng(seed).standard_normal(
        vectors.matrix.shape).astype(np.float32))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="a folder of treebank folders")
    parser.add_argument("--treebank", required=True)
    parser.add_argument("--system", default="two-planar:static", help="SYSTEM:ORACLE")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--seeds", default="1")
    parser.add_argument("--dimension", type=int, default=100)
    parser.add_argument("--method", choices=("word2vec", "fasttext"), default="word2vec")
    parser.add_argument("--vector-epochs", type=int, default=20,
                        help="gensim's passes over the training text")
    parser.add_argument("--vectors", type=Path, default=None,
                        help="a vectors file to use instead of training one")
    parser.add_argument("--extra", type=int, default=50_000, help="--embeddings-extra")
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    parser.add_argument("--parser-sentences", type=int, default=None,
                        help="train the parsers on N training sentences, spread evenly "
                        "(the vectors on all of them)")
    parser.add_argument("--neural", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--out", type=Path, default=None,
                        help="folder for the vectors files (default: a temporary one)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--report", action="store_true",
                        help="rewrite the embeddings section of RESULTS.md")
    args = parser.parse_args(argv)

    from arcwise.cli.train import parse_neural
    from arcwise.core.errors import ArcwiseError
    from arcwise.core.vocab import form_signature
    from arcwise.io import read_treebank
    from arcwise.learn.embeddings import coverage, read_vectors
    from arcwise.models.modelfile import file_sha256
    from arcwise.training.data import score_parser
    from arcwise.transition.train import train

    system, oracle = args.system.split(":")
    seeds = [int(s) for s in args.seeds.split(",")]
    files = split_files(args.data / args.treebank)
    try:
        neural = {"threads": args.threads, **parse_neural(args.neural, "bilstm")}
        train_sentences, dev, test = (list(read_treebank(files[s]))
                                      for s in ("train", "dev", "test"))
    except ArcwiseError as error:
        print(f"bench/embeddings.py: {error}", file=sys.stderr)
        return 2
    out = args.out or Path(tempfile.mkdtemp(prefix="arcwise-embeddings-"))
    out.mkdir(parents=True, exist_ok=True)
    vectors = {"none": None, "trained": args.vectors or out / f"{args.treebank}.{args.method}.vec",
               "random": out / f"{args.treebank}.random.vec"}
    if args.vectors is None:
        started = time.perf_counter()
        trained_vectors(train_sentences, vectors["trained"], args.method, args.dimension,
                        seeds[0], args.vector_epochs)
        print(f"{args.method} on the training split's forms: {vectors['trained']} "
              f"({time.perf_counter() - started:.0f} s)", file=sys.stderr, flush=True)
    random_vectors(vectors["trained"], vectors["random"], seeds[0])
    test_words = [form_signature(f)[0] for s in test for f in s.form[1:]]
    step = len(train_sentences) / (args.parser_sentences or len(train_sentences))
    parser_sentences = [train_sentences[int(k * step)]
                        for k in range(min(args.parser_sentences or len(train_sentences),
                                           len(train_sentences)))]
    rows = []
    for condition in CONDITIONS:
        for seed in seeds:
            started = time.perf_counter()
            model, log = train(system, parser_sentences, dev, oracle=oracle,
                               epochs=args.epochs, seed=seed, model="bilstm", neural=neural,
                               embeddings=vectors[condition], embeddings_extra=args.extra)
            scores = score_parser(model, test)
            best = log["epochs"][log["best_epoch"] - 1]
            pretrained = model.scorer.pretrained
            rows.append({
                "condition": condition, "seed": seed, "dev_las": best["dev_las"],
                "test_uas": round(scores.uas, 2), "test_las": round(scores.las, 2),
                "best_epoch": log["best_epoch"],
                "seconds": round(time.perf_counter() - started, 1),
                "coverage": coverage(model.vocabularies.lower, pretrained, test_words),
                "vectors": None if pretrained is None else pretrained.meta(),
            })
            print(json.dumps(rows[-1]) if args.json else
                  f"{condition} seed {seed}: dev LAS {best['dev_las']:.2f}, test UAS "
                  f"{scores.uas:.2f} LAS {scores.las:.2f} (best epoch {log['best_epoch']} "
                  f"of {args.epochs}, {rows[-1]['seconds']:.0f} s)", flush=True)
    if args.report:
        import report

        trained = read_vectors(vectors["trained"], extra=10**9)
        result = {"treebank": args.treebank, "system": args.system, "epochs": args.epochs,
                  "seeds": seeds, "neural": neural, "extra": args.extra,
                  "train_sentences": len(train_sentences),
                  "parser_sentences": len(parser_sentences),
                  "vectors": {"method": "given" if args.vectors else args.method,
                              "dimension": trained.dimension, "words": len(trained.words),
                              "sha256": file_sha256(vectors["trained"])},
                  "rows": rows,
                  "command": " ".join(["bench/embeddings.py",
                                       *(sys.argv[1:] if argv is None else argv)]),
                  "provenance": report.provenance(), "load_average": report.load_average()}
        name = (f"{args.treebank}_{args.system.replace(':', '_')}_e{args.epochs}"
                + (f"_n{args.parser_sentences}" if args.parser_sentences else ""))
        write_section(report.keep(result, RESULTS, name))
    return 0


RESULTS = Path(__file__).resolve().parent / "results" / "embeddings"


def write_section(results: list[dict]) -> None:
    """The embeddings section of RESULTS.md: per kept run, a row per condition and seed
    and the mean over the seeds."""
    import report

    lines = ["## Pretrained word vectors (issue #42 item 2)", "",
             ("No public vectors can be downloaded here: the vectors are trained with gensim on "
             "the lowercased forms of the treebank's training split only (never dev or test); "
             "the control is N(0, 1) vectors for the same words in the same dimension.  Gold "
             "tags, punctuation included, the epoch with the best dev LAS kept; "
             "`arcwise train --embeddings` (`arcwise.learn.embeddings`).")]
    for result in results:
        v = result["vectors"]
        parsers = result.get("parser_sentences", result["train_sentences"])
        part = ("" if parsers == result["train_sentences"] else
                f", the parsers on {parsers:,} of the training sentences")
        lines += ["", (f"### {result['treebank']}, BiLSTM {result['system']}, "
                  f"{result['epochs']} epochs{part}"), "",
                  (f"{result['train_sentences']:,} training sentences (the vectors' text"
                   + (f"; the parsers': {parsers:,} of them, every "
                      f"{result['train_sentences'] / parsers:.1f}th" if part else "")
                   + f"); neural options "
                  f"{result['neural']}; vectors: {v['method']}, {v['dimension']} dimensions, "
                  f"{v['words']:,} words (sha256 {v['sha256'][:12]})."), "",
                  ("| vectors | seed | dev LAS | test UAS | test LAS | best epoch | test words "
                  "outside training | of them with a vector |"),
                  "|---|--:|--:|--:|--:|--:|--:|--:|"]
        for r in result["rows"]:
            c = r["coverage"]
            lines.append(f"| {r['condition']} | {r['seed']} | {r['dev_las']:.2f} | "
                         f"{r['test_uas']:.2f} | {r['test_las']:.2f} | {r['best_epoch']} | "
                         f"{c['words'] - c['trained']:,} of {c['words']:,} | "
                         f"{c['unseen_with_vector']:,} |")
        if len(result["seeds"]) > 1:
            lines += ["", "| vectors | mean dev LAS | mean test UAS | mean test LAS |",
                      "|---|--:|--:|--:|"]
            for condition in CONDITIONS:
                mine = [r for r in result["rows"] if r["condition"] == condition]
                mean = {k: sum(r[k] for r in mine) / len(mine)
                        for k in ("dev_las", "test_uas", "test_las")}
                lines.append(f"| {condition} | {mean['dev_las']:.2f} | "
                             f"{mean['test_uas']:.2f} | {mean['test_las']:.2f} |")
        lines += ["", f"- Command: `{result['command']}`",
                  f"- {result['provenance']} Load average at the end (1, 5, 15 min): "
                  + ", ".join(map(str, result["load_average"]))]
        if result.get("notes"):
            lines += ["", result["notes"]]
    report.write_section("embeddings", "\n".join(lines))


if __name__ == "__main__":
    raise SystemExit(main())
