"""How fast the raw-text pipeline runs, stage by stage, on one treebank's test split (issue #17).

    .venv/bin/python bench/pipeline_speed.py --treebank DIR [--model PATH] [--repeats 3] [--json]

With no model file at PATH (default runs/pipeline_speed/<treebank>.pipeline) a pipeline is
trained on DIR's train split first -- tokenizer, tagger and an arc-eager parser with few
epochs and gold tags, since speed, not accuracy, is measured -- and kept at PATH, so that a
later run (e.g. after a change to the code) times the same model.  Each repeat loads the
model afresh (nothing memoised from an earlier repeat) and, after a warm-up on the first
20 sentences (compiling is not timed), times:

- tagging: the gold tokens of test (tags blanked), Tagger.tag;
- parsing: the tagged sentences, the parser alone;
- pipeline: raw text of test to a CoNLL-U file (`Pipeline.parse_file`, format text).

Reported: sentences/s and words/s of each, the best of the repeats, and sentences per
CPU-second (all threads): on a loaded machine wall-clock rates say little, CPU time less
so; with both cores free the wall-clock rate can approach twice the per-CPU-second one
where the work is shared among threads (tagging, parsing), once it is not (tokenizing,
reading and writing).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import arcwise
from arcwise.experiments.raw_text import raw_text, without_tags
from arcwise.io import read_treebank
from arcwise.pipeline.training import train_pipeline

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
from pipeline import split  # noqa: E402

WARM_UP = 20


def trained(treebank: Path, path: Path) -> Path:
    """The model file at path, trained on the treebank's train split if missing."""
    if path.exists():
        return path
    from arcwise.transition.train import train

    sentences = list(read_treebank(split(treebank, "train")))
    nlp, _ = train_pipeline(
        sentences, tags="gold", tagger_options={"epochs": 3},
        train_parser=lambda s, d: train("arc-eager", s, d, epochs=3),
        progress=lambda line: print(line, file=sys.stderr))
    path.parent.mkdir(parents=True, exist_ok=True)
    nlp.save(path)
    return path


def timed(run, sentences: int, words: int) -> dict[str, float]:
    """Wall-clock and CPU seconds (all threads) of run(), and the rates they give."""
    start, cpu = time.perf_counter(), time.process_time()
    run()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {"seconds": seconds, "cpu_seconds": cpu, "sentences_per_second": sentences / seconds,
            "words_per_second": words / seconds, "sentences_per_cpu_second": sentences / cpu}


def measure(model: Path, test: list, workdir: Path) -> dict[str, dict[str, float]]:
    """One repeat: each stage timed on a freshly loaded model."""
    untagged = [without_tags(s) for s in test]
    sentences, words = len(test), sum(s.n for s in test)
    text, warm = workdir / "test.txt", workdir / "warm.txt"
    text.write_text(raw_text(test))
    warm.write_text(raw_text(test[:WARM_UP]))
    out = {}
    nlp = arcwise.load(model)
    nlp.tagger.tag(untagged[:WARM_UP])
    out["tagging"] = timed(lambda: nlp.tagger.tag(untagged), sentences, words)
    tagged = nlp.tagger.tag(untagged)
    nlp.parser.parse(tagged[:WARM_UP])
    out["parsing"] = timed(lambda: nlp.parser.parse(tagged), sentences, words)
    nlp = arcwise.load(model)
    nlp.parse_file(warm, workdir / "warm.conllu", format="text")
    out["pipeline"] = timed(lambda: nlp.parse_file(text, workdir / "out.conllu", format="text"),
                            sentences, words)
    return out


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--treebank", type=Path, required=True)
    ap.add_argument("--model", type=Path)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if split(args.treebank, "train") is None or split(args.treebank, "test") is None:
        sys.exit(f"{args.treebank}: needs train.conllu(.gz) and test.conllu(.gz)")
    model = trained(args.treebank, args.model or BENCH.parent / "runs" / "pipeline_speed"
                    / f"{args.treebank.name}.pipeline")
    test = list(read_treebank(split(args.treebank, "test")))
    with tempfile.TemporaryDirectory() as workdir:
        runs = [measure(model, test, Path(workdir)) for _ in range(args.repeats)]
    best = {stage: max((r[stage] for r in runs), key=lambda r: r["sentences_per_second"])
            for stage in runs[0]}
    result = {"treebank": args.treebank.name, "model": str(model), "sentences": len(test),
              "words": sum(s.n for s in test), "repeats": args.repeats, "best": best}
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(f"{result['treebank']}: {result['sentences']} sentences, {result['words']} words")
        for stage, r in best.items():
            print(f"  {stage:9} {r['sentences_per_second']:9,.0f} sentences/s "
                  f"{r['words_per_second']:11,.0f} words/s "
                  f"{r['sentences_per_cpu_second']:9,.0f} sentences/CPU-s")
    return result


if __name__ == "__main__":
    main()
