"""Model files of format 1 against format 2 (issue #40, item 3): size, LAS, memory, load time.

    .venv/bin/python bench/model_size.py --data UD_DIR [--epochs 2] [--old-rev REV]
        [--workdir DIR] [--json] [--report]

Each model is trained once, by `arcwise train` with the package source of --old-rev
(default `OLD_REV`, the last commit writing format 1: float32 nonzero rows, stored
members), and that file is converted by this checkout (loaded and saved: format 2, int8
tables with a scale each, deflated) -- the same trained weights, rounded.  The models:
English-EWT arc-eager and covington-nm; a pipeline (`arcwise train --pipeline`: tokenizer,
tagger, arc-eager parser) on EWT's first PIPELINE_SENTENCES (1,000) training sentences; Basque-BDT arc-eager
(a treebank nothing was tuned on).  --epochs epochs each (dev keeps the best), seed 0.
Models already in the work folder (default runs/model_size) are reused.

Each file is then run by the code that wrote it, in child processes (`speed.run_child`,
peak RSS from wait4; each numba cache warmed by a first run):
- load: seconds to load the model (`arcwise.models.kinds.load`), median of three children,
  and the peak RSS of such a child (the interpreter and imports included);
- parse: `arcwise parse` of the test split (the pipeline: of its raw text), its peak RSS,
  and the LAS of its output by the CoNLL 2018 scorer (`arcwise.eval.conll18`).

With --serve, `arcwise serve` of two models at once (`SERVED`, each format run by its
code; `serve.start_server`): the RSS of its processes once they have loaded and warmed
both, format 1 against format 2.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numba_cache
import report
from pipeline import plain
from serve import process_tree, rss_bytes, start_server
from speed import checked, run_child

ROOT = Path(__file__).resolve().parents[1]
OLD_REV = "43688f4"  # the last commit of model-file format 1
PIPELINE_SENTENCES = 1000
# name: (treebank, arcwise train options); "pipeline" trains on the first sentences only
MODELS = {
    "English-EWT arc-eager": ("English-EWT", ["-s", "arc-eager"]),
    "English-EWT covington-nm": ("English-EWT", ["-s", "covington-nm"]),
    "English-EWT pipeline": (
        "English-EWT", ["--pipeline", "-s", "arc-eager", "--tag-folds", "2", "--tagger",
                        "epochs=2"]),
    "Basque-BDT arc-eager": ("Basque-BDT", ["-s", "arc-eager"]),
}
SERVED = ("English-EWT arc-eager", "English-EWT pipeline")
LOAD_REPEATS = 3
LOAD_PROGRAM = """
import sys, time
from arcwise.models.kinds import load
started = time.perf_counter()
load(sys.argv[1])
print(time.perf_counter() - started)
"""
CONVERT_PROGRAM = "import sys; from arcwise.models.kinds import load; load(sys.argv[1]).save(sys.argv[2])"


class Code:
    """A version of the package: its source folder and numba cache, run in child processes."""

    def __init__(self, src: Path, cache: Path):
        self.src, self.cache = src, cache

    def env(self) -> dict[str, str]:
        return {**os.environ, "PYTHONPATH": str(self.src), "NUMBA_CACHE_DIR": str(self.cache)}

    def run(self, arguments: list, what: str):
        return checked(run_child([sys.executable, *map(str, arguments)], self.env()), what)


def old_code(workdir: Path, rev: str) -> Code:
    """The package source of `rev`, exported once into the work folder."""
    src = workdir / f"old-{rev}"
    if not (src / "src" / "arcwise").exists():
        src.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", ROOT, "archive", rev, "src"], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", src], input=archive, check=True)
    return Code(src / "src", workdir / f"numba-{rev}")


def test_files(ud: Path, treebank: str, workdir: Path) -> tuple[Path, Path]:
    """(the plain gold test file, its raw text) of a treebank."""
    gold = workdir / f"{treebank}-test.conllu"
    text = workdir / f"{treebank}-test.txt"
    if not text.exists():
        plain(ud / treebank / "test.conllu.gz", gold)
        from arcwise.experiments.raw_text import raw_text
        from arcwise.io import read_treebank

        text.write_text(raw_text(read_treebank(gold)))
    return gold, text


def train_file(ud: Path, treebank: str, name: str, workdir: Path) -> Path:
    """The training file of a model: the treebank's train split, or for the pipeline
    its first PIPELINE_SENTENCES sentences."""
    path = ud / treebank / "train.conllu.gz"
    if "pipeline" not in name:
        return path
    first = workdir / f"{treebank}-train-{PIPELINE_SENTENCES}.conllu"
    if not first.exists():
        import itertools

        from arcwise.io import conllu, read_treebank

        conllu.write(first, list(itertools.islice(read_treebank(path), PIPELINE_SENTENCES)))
    return first


def measure(code: Code, model: Path, gold: Path, text: Path, pipeline: bool,
            out: Path) -> dict:
    """Size, load seconds and RSS, parse RSS and LAS of one model file run by `code`."""
    from arcwise.eval.conll18 import conll18_scores

    load = ["-c", LOAD_PROGRAM, model]
    code.run(load, f"loading {model}")  # warms imports and caches
    loads = [code.run(load, f"loading {model}") for _ in range(LOAD_REPEATS)]
    source = ["--input", "text", text] if pipeline else [gold]
    parse = ["-m", "arcwise", "parse", "-m", model, *source, "-o", out]
    code.run(parse, f"parsing with {model}")  # the JIT compiles into the cache
    parsed = code.run(parse, f"parsing with {model}")
    return {
        "megabytes": round(model.stat().st_size / 1e6, 2),
        "load_seconds": round(statistics.median(float(r.stdout) for r in loads), 3),
        "load_rss_mb": round(max(r.peak_rss_mb for r in loads), 1),
        "parse_rss_mb": round(parsed.peak_rss_mb, 1),
        "parse_seconds": round(parsed.seconds, 2),
        "las": conll18_scores(gold, out)["LAS"],
    }


def bench_model(ud: Path, name: str, old: Code, new: Code, epochs: int, workdir: Path) -> dict:
    treebank, options = MODELS[name]
    gold, text = test_files(ud, treebank, workdir)
    old_model, new_model = model_path(workdir, name, 1), model_path(workdir, name, 2)
    if not old_model.exists():
        old.run(["-m", "arcwise", "train", *options,
                 "--train", train_file(ud, treebank, name, workdir),
                 "--dev", ud / treebank / "dev.conllu.gz", "--epochs", epochs, "--seed", 0,
                 "-o", old_model], f"training {name}")
    started = time.perf_counter()
    new.run(["-c", CONVERT_PROGRAM, old_model, new_model], f"converting {name}")
    convert_seconds = time.perf_counter() - started
    pipeline = "pipeline" in name
    return {"model": name, "epochs": epochs, "convert_seconds": round(convert_seconds, 2),
            "format1": measure(old, old_model, gold, text, pipeline, workdir / "old.conllu"),
            "format2": measure(new, new_model, gold, text, pipeline, workdir / "new.conllu")}


def serve_rss_mb(code: Code, models: list[Path]) -> float:
    """MB of RSS of `arcwise serve` (one worker) holding `models`, warm and idle."""
    process, _ = start_server(None, 1, 2**20, models=[f"m{k}={m}" for k, m in enumerate(models)],
                              env=code.env())
    try:
        time.sleep(2)
        return round(rss_bytes(process_tree(process.pid)) / 2**20, 1)
    finally:
        process.terminate()
        process.wait(60)


def model_path(workdir: Path, name: str, fmt: int) -> Path:
    return workdir / f"{name.replace(' ', '-')}.format{fmt}.model"


NOTES = """\
Training: `arcwise train -s SYSTEM --train TRAIN --dev DEV --epochs 2 --seed 0 -o MODEL`
(the pipeline: `--pipeline -s arc-eager --tag-folds 2 --tagger epochs=2` on the first 1,000
sentences of EWT train), with PYTHONPATH at the old source; conversion:
`arcwise.load(format1).save(format2)` with this checkout.  Two epochs, not the default 15,
to fit the time on a shared 2-core machine; the files' size depends on the features
training saw more than on the epochs (default EWT arc-eager, 15 epochs: 61.3 MB in
format 1).  A model's int8 tables are a quarter of its float32 ones in memory (EWT
arc-eager: 32 MiB against 128 MiB), the RSS drop above; the rest of the RSS is the
interpreter, numba and the compiled kernels.  Load seconds include importing the
parser's modules in a fresh process; parse seconds are one run, on a machine shared
with other work: neither is a speed comparison."""


def markdown_table(results: list[dict]) -> str:
    rows = ["| model | MB | LAS | load s | load RSS MB | parse RSS MB | parse s |",
            "|---|--:|--:|--:|--:|--:|--:|"]
    for r in results:
        for fmt in ("format1", "format2"):
            m = r[fmt]
            rows.append(f"| {r['model']}, {fmt.replace('format', 'format ')} | "
                        f"{m['megabytes']:.1f} | {m['las']:.2f} | {m['load_seconds']:.2f} | "
                        f"{m['load_rss_mb']:.0f} | {m['parse_rss_mb']:.0f} | "
                        f"{m['parse_seconds']:.1f} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True,
                        help="a folder of UD treebank folders (English-EWT, Basque-BDT)")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--old-rev", default=OLD_REV)
    parser.add_argument("--workdir", type=Path, default=ROOT / "runs" / "model_size")
    parser.add_argument("--models", default=",".join(MODELS),
                        help="comma-separated names from MODELS")
    parser.add_argument("--serve", action="store_true",
                        help="also the RSS of arcwise serve holding the two SERVED models")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--report", action="store_true",
                        help="rewrite the model-size section of bench/RESULTS.md")
    args = parser.parse_args(argv)
    args.workdir.mkdir(parents=True, exist_ok=True)
    old = old_code(args.workdir, args.old_rev)
    new = Code(ROOT / "src", numba_cache.cache_dir(args.workdir / "numba"))
    results = []
    for name in args.models.split(","):
        results.append(bench_model(args.data, name, old, new, args.epochs, args.workdir))
        print(json.dumps(results[-1]), file=sys.stderr)
    serve = {}
    if args.serve:
        serve = {f"format{k}": serve_rss_mb(code, [model_path(args.workdir, n, k) for n in SERVED])
                 for k, code in ((1, old), (2, new))}
    table = markdown_table(results)
    if serve:
        table += (f"\n\n`arcwise serve` holding {' and '.join(SERVED)}, warm and idle: RSS "
                  f"{serve['format1']:.0f} MB with format 1, {serve['format2']:.0f} MB with "
                  "format 2.")
    print(json.dumps({"models": results, "serve": serve}, indent=1) if args.json else table)
    if args.report:
        report.write_bench_section(
            "model-size", "## Model files: format 1 against format 2 (issue #40, item 3)",
            (f"Each model trained once ({args.epochs} epochs, seed 0, dev keeping the best) by "
             f"the code of {args.old_rev} (format 1: float32 nonzero rows), converted by this "
             "checkout (format 2: int8 tables, a scale each, deflated); each file run by the "
             "code that wrote it.  LAS: CoNLL 2018 scorer on the test split (the pipeline from "
             "its raw text); load: median of three children; RSS: peak of the child."),
            [table, "", NOTES], "bench/model_size.py", argv)
    return results


if __name__ == "__main__":
    main()
