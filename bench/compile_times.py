"""What a cold start compiles: seconds per compiled kernel, and cold and warm `arcwise parse`
(issue #40, item 4).

    .venv/bin/python bench/compile_times.py [--systems arc-eager,covington-nm] [--pipeline]
        [--epoch] [--sentences 300] [--models DIR] [--repeats 3] [--top 15] [--report]

Per system, a perceptron model is trained (1 epoch on the first `--sentences` sentences of
English-EWT train; kept in `--models`, so that a later run, e.g. after a code change, times
the same model file), and a pipeline (tokenizer, tagger, arc-eager parser) with
`--pipeline`.  Then, per model:

- kernels: a child process with an empty NUMBA_CACHE_DIR runs `arcwise parse -m MODEL` on
  one sentence (and with `--epoch`, first `arcwise train` for one epoch on 20 sentences)
  while a listener on numba's compile events (`numba.core.event`) times every
  compilation.  A kernel's *self* seconds leave out the kernels it compiled on the way
  (numba compiles a callee while typing its caller); *total* seconds include them.  The
  table is sorted by self seconds, the sum of which is the compiling a cold start pays.
- end to end: `arcwise parse -m MODEL` on one sentence (raw text for the pipeline) as a
  child process, cold (an empty NUMBA_CACHE_DIR) and warm (the bench's numba cache, filled
  by the cold run's kernels' first warm run), the median of `--repeats` each.

The machine is shared: the load average is printed beside the figures.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import runpy
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numba_cache
import report
from speed import arcwise_command, checked, run_child

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data" / "en_ewt"
MODELS = ROOT / "runs" / "compile_times"
SEED = 1
EPOCH_SENTENCES = 20  # --epoch: the cold training run's data


# --- child: one cold command, its compilations timed -------------------------


def compile_events(run) -> list[dict]:
    """Call run() while timing every numba compilation: one row per compiled kernel
    (name, signatures compiled, self and total seconds)."""
    from numba.core import event

    rows: dict[str, dict] = defaultdict(lambda: {"compiled": 0, "self": 0.0, "total": 0.0})
    stack: list[list] = []  # [name, started, seconds of the compilations nested in it]

    class Timer(event.Listener):
        def on_start(self, ev):
            function = ev.data["dispatcher"].py_func
            stack.append([f"{function.__module__}.{function.__qualname__}",
                          time.perf_counter(), 0.0])

        def on_end(self, ev):
            name, started, nested = stack.pop()
            seconds = time.perf_counter() - started
            if stack:
                stack[-1][2] += seconds
            row = rows[name]
            row["compiled"] += 1
            row["self"] += seconds - nested
            row["total"] += seconds

    with event.install_listener("numba:compile", Timer()):
        run()
    return sorted(({"kernel": k, **v} for k, v in rows.items()), key=lambda r: -r["self"])


def run_arcwise(argv: list[str]) -> None:
    """`arcwise ARGV` in this process (its exit status checked)."""
    sys.argv = ["arcwise", *argv]
    try:
        runpy.run_module("arcwise", run_name="__main__")
    except SystemExit as exit_:
        if exit_.code:
            raise


def measure_kernels(commands: list[list[str]]) -> dict:
    """Each command (`arcwise` arguments) in turn, compilations timed; JSON-able figures."""
    started = time.perf_counter()
    rows = compile_events(lambda: [run_arcwise(argv) for argv in commands])
    return {"seconds": time.perf_counter() - started, "kernels": rows}


# --- parent ------------------------------------------------------------------


def trained(name: str, args: argparse.Namespace) -> Path:
    """The model file `name` in --models (a system, or "pipeline"), trained if missing."""
    model = args.models / f"{name}.model"
    if model.exists():
        return model
    args.models.mkdir(parents=True, exist_ok=True)
    train = first_sentences(args.train, args.sentences, args.models / "train.conllu")
    system = ["-s", "arc-eager", "--pipeline", "--tag-folds", "2", "--tagger", "epochs=1"] \
        if name == "pipeline" else ["-s", name]
    checked(run_child([*arcwise_command(), "train", *system, "--train", str(train),
                       "-o", str(model), "--epochs", "1", "--seed", str(SEED)],
                      numba_cache.child_environment(args.numba_cache_dir)), f"training {name}")
    return model


def first_sentences(treebank: Path, sentences: int, path: Path) -> Path:
    """The first `sentences` sentences of treebank, written to path if it is missing."""
    if not path.exists():
        from arcwise.io import conllu, read_treebank

        conllu.write(path, itertools.islice(read_treebank(treebank), sentences))
    return path


def inputs(workdir: Path, args: argparse.Namespace) -> tuple[Path, Path]:
    """One test sentence as CoNLL-U and as raw text."""
    from arcwise.experiments.raw_text import raw_text
    from arcwise.io import read_treebank

    one = first_sentences(args.test, 1, workdir / "one.conllu")
    (workdir / "one.txt").write_text(raw_text(read_treebank(one)), encoding="utf-8")
    return one, workdir / "one.txt"


def bench_model(name: str, model: Path, workdir: Path, args: argparse.Namespace) -> dict:
    """Per-kernel compile seconds and cold / warm start of one model (the module docstring)."""
    conll, text = inputs(workdir, args)
    parse = ["parse", "-m", str(model), *(["--input", "text", str(text)] if name == "pipeline"
                                          else [str(conll)]), "-o", os.devnull]
    commands = [parse]
    if args.epoch and name != "pipeline":
        train = first_sentences(args.train, EPOCH_SENTENCES, workdir / "epoch.conllu")
        commands.insert(0, ["train", "-s", name, "--train", str(train), "--epochs", "1",
                            "--seed", str(SEED), "-o", str(workdir / "epoch.model")])
    result = {"model": name, "commands": [" ".join(["arcwise", *c]) for c in commands]}
    with tempfile.TemporaryDirectory() as empty:
        child = checked(run_child([sys.executable, __file__, "--kernels", json.dumps(commands)],
                                  {**os.environ, "NUMBA_CACHE_DIR": empty}),
                        f"kernels of {name}")
    result.update(json.loads(child.stdout))
    cold, warm = [], []
    command = [*arcwise_command(), *parse]
    cached = numba_cache.child_environment(args.numba_cache_dir)
    checked(run_child(command, cached), f"arcwise parse ({name})")  # fills the warm cache
    for _ in range(args.repeats):  # alternating, so that a change of load hits both alike
        with tempfile.TemporaryDirectory() as empty:
            cold.append(checked(run_child(command, {**os.environ, "NUMBA_CACHE_DIR": empty}),
                                f"cold arcwise parse ({name})"))
        warm.append(checked(run_child(command, cached), f"warm arcwise parse ({name})"))
    for what, runs in (("cold", cold), ("warm", warm)):
        result[f"{what}_seconds"] = round(statistics.median(r.seconds for r in runs), 2)
        result[f"{what}_cpu_seconds"] = round(statistics.median(r.cpu_seconds for r in runs), 2)
    result["load_average"] = report.load_average()
    return result


def kernel_table(result: dict, top: int) -> str:
    """The `top` kernels of a cold parse by self seconds, as a markdown table."""
    rows = result["kernels"]
    lines = ["| kernel | signatures | self s | total s |", "|---|--:|--:|--:|"]
    lines += [f"| `{r['kernel'].removeprefix('arcwise.')}` | {r['compiled']} | {r['self']:.2f} "
              f"| {r['total']:.2f} |" for r in rows[:top]]
    rest = rows[top:]
    if rest:
        lines.append(f"| {len(rest)} more | {sum(r['compiled'] for r in rest)} "
                     f"| {sum(r['self'] for r in rest):.2f} | |")
    return "\n".join(lines)


def summary_table(results: list[dict]) -> str:
    lines = [("| model | compilations | compiling s | cold start s (CPU s) "
              "| warm start s (CPU s) | load avg. |"), "|---|--:|--:|--:|--:|--:|"]
    for r in results:
        lines.append(
            f"| {r['model']} | {sum(k['compiled'] for k in r['kernels'])} "
            f"| {sum(k['self'] for k in r['kernels']):.1f} "
            f"| {r['cold_seconds']:.1f} ({r['cold_cpu_seconds']:.1f}) "
            f"| {r['warm_seconds']:.2f} ({r['warm_cpu_seconds']:.2f}) "
            f"| {r['load_average'][0]:.1f} |")
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--systems", default="arc-eager,covington-nm",
                    help="comma-separated transition systems (perceptron models)")
    ap.add_argument("--pipeline", action="store_true",
                    help="also a pipeline model (tokenizer, tagger, arc-eager parser)")
    ap.add_argument("--epoch", action="store_true",
                    help="kernels: a first training epoch before the first parse")
    ap.add_argument("--sentences", type=int, default=300,
                    help="train the models on the first N sentences of --train")
    ap.add_argument("--train", type=Path, default=DATA / "train.conllu.gz")
    ap.add_argument("--test", type=Path, default=DATA / "test.conllu.gz")
    ap.add_argument("--models", type=Path, default=MODELS,
                    help="where the models are kept (trained when missing)")
    ap.add_argument("--repeats", type=int, default=3, help="cold and warm runs (median)")
    ap.add_argument("--top", type=int, default=15, help="kernels shown per model")
    ap.add_argument("--numba-cache-dir", default=str(ROOT / "runs" / "numba-cache"),
                    help="base of the warm runs' NUMBA_CACHE_DIR (as bench/speed.py's)")
    ap.add_argument("--json", action="store_true", help="print JSON instead of the tables")
    ap.add_argument("--report", action="store_true",
                    help="write the tables as the compile-times section of bench/RESULTS.md")
    ap.add_argument("--kernels", help=argparse.SUPPRESS)  # child mode: JSON list of commands
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> list[dict]:
    args = parse_args(argv)
    if args.kernels:
        result = measure_kernels(json.loads(args.kernels))
        print(json.dumps(result))
        return [result]
    names = [s.strip() for s in args.systems.split(",") if s.strip()]
    names += ["pipeline"] if args.pipeline else []
    results = []
    with tempfile.TemporaryDirectory() as workdir:
        for name in names:
            print(f"{name} ...", file=sys.stderr)
            results.append(bench_model(name, trained(name, args), Path(workdir), args))
    if args.json:
        print(json.dumps({"command": sys.argv, "results": results}, indent=1))
        return results
    text = [summary_table(results)]
    for r in results:
        text += ["", f"{r['model']}: `" + "`, then `".join(r["commands"]) + "`", "",
                 kernel_table(r, args.top)]
    print("\n".join(text))
    if args.report:
        report.write_bench_section(
            "compile-times", "## Cold start: what the first parse compiles (issue #40, item 4)",
            (f"Models trained 1 epoch on the first {args.sentences} sentences of "
             f"{args.train.parent.name} train; one test sentence parsed; cold: an empty "
             f"NUMBA_CACHE_DIR, warm: a filled one (medians of {args.repeats}, alternating). "
             "Kernels: compile seconds of each compiled function in a cold child, self "
             "(without the kernels it compiled on the way) and total."),
            text, "bench/compile_times.py", argv)
    return results


if __name__ == "__main__":
    main()
