"""Training and parsing speed per transition system on English-EWT (issue #4, item 6).

    .venv/bin/python bench/speed.py [--systems covington-nm,arc-eager] [--epochs 1]
        [--sentences N] [--train PATH] [--test PATH] [--no-cold] [--json] [--report]

Per system, one child process (its peak RSS is the "train" column) reads the
treebank, warms the compiled loops up by training one epoch on a few
sentences, then trains `--epochs` epochs (dynamic oracle with exploration
from the first epoch; covington-nm with the `upper` bound), and parses the
test split with the model in memory and the JIT warm:

- batch: the compiled `parse_batch` alone on the encoded test set, on one
  thread, then on numba's default thread count (every core);
- end to end (every core): reading the file, encoding, parsing and writing
  CoNLL-U;
- the transitions per test sentence of the static oracle's derivations (what
  a parse of the gold tree takes: covington-nl's non-local arcs against
  Covington's No-Arcs).

Each is the best of three in wall-clock time; the batch parse also in the
process's CPU time, which other load on a shared machine disturbs less.

The saved model is then run through the command line, `arcwise parse -m
MODEL`: cold start (a one-sentence input with NUMBA_CACHE_DIR pointed at an
empty directory, so every kernel compiles; the package's own caches are
untouched), warm start (the same with a warm cache, median of three:
seconds to the first output sentence and to exit), and the whole test file
(its peak RSS is the "parse" column).  Peak RSS is `ru_maxrss` of each child
(os.wait4).  Test UAS/LAS are printed as a sanity check of the model.  All
children but the cold start use the bench's own numba cache (--numba-cache-dir),
so that other processes clearing the package's caches cannot make them cold
(`--numba-cache-dir inherit`: this process's cache, as the test suite runs it).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numba_cache
import report

DATA = Path(__file__).resolve().parents[1] / "data" / "en_ewt"
RUNS = Path(__file__).resolve().parents[1] / "runs"

# system -> (oracle, bound) used for the training epochs
SYSTEMS = {
    "arc-eager": ("dynamic", None),
    "arc-eager+lba+rba": ("dynamic", None),
    "arc-eager-nm": ("dynamic", None),
    "arc-hybrid": ("dynamic", None),
    "arc-hybrid+swap": ("dynamic", None),  # the static-dynamic oracle of de Lhoneux et al. 2017
    "covington": ("dynamic", None),
    "covington-nm": ("dynamic", "upper"),
    "two-planar": ("dynamic", None),
    "covington-nl": ("dynamic", None),  # each candidate k scored (arcwise.transition.candidates)
}
WARM_UP_SENTENCES = 20
REPEATS = 3


# --- child: train and parse in one process ---------------------------------


def measure_system(system: str, train_path: str, test_path: str, epochs: int,
                   limit: int | None, model_path: str, seed: int) -> dict:
    """Train `system` and time its parsing; the figures as a JSON-able dict."""
    import numba

    from arcwise.eval.metrics import evaluate
    from arcwise.features.batch import Batch
    from arcwise.io import conllu, read_treebank
    from arcwise.transition.train import train

    oracle, bound = SYSTEMS[system]
    train_sentences = list(itertools.islice(read_treebank(train_path), limit))
    test_sentences = list(itertools.islice(read_treebank(test_path), limit))
    test_words = sum(s.n for s in test_sentences)

    started = time.perf_counter()
    train(system, train_sentences[:WARM_UP_SENTENCES], oracle=oracle, bound=bound, epochs=1,
          seed=seed)
    warm_up = time.perf_counter() - started

    parser, log = train(system, train_sentences, oracle=oracle, bound=bound, epochs=epochs,
                        explore_from=0, seed=seed)
    parser.save(model_path)
    epoch_seconds = [entry["seconds"] for entry in log["epochs"]]

    batch = Batch(test_sentences, parser.vocabularies)
    parser.parse_encoded(batch)  # warm
    threads = numba.config.NUMBA_NUM_THREADS
    numba.set_num_threads(1)
    batch_seconds = min(_timed(parser.parse_encoded, batch) for _ in range(REPEATS))
    batch_cpu_seconds = min(_timed(parser.parse_encoded, batch, clock=time.process_time)
                            for _ in range(REPEATS))
    numba.set_num_threads(threads)  # the default: every core
    threaded_seconds = min(_timed(parser.parse_encoded, batch) for _ in range(REPEATS))

    def end_to_end(output: str) -> None:
        sentences = list(itertools.islice(read_treebank(test_path), limit))
        conllu.write(output, sentences, trees=parser.parse(sentences))

    with tempfile.TemporaryDirectory() as scratch:
        output = os.path.join(scratch, "parsed.conllu")
        end_to_end(output)  # warm
        e2e_seconds = min(_timed(end_to_end, output) for _ in range(REPEATS))
        parsed = list(conllu.read(output))
    scores = evaluate(test_sentences, parsed)
    return {
        "transitions_per_sentence": round(static_transitions(system, test_sentences), 2),
        "system": system,
        "oracle": oracle if bound is None else f"{oracle} ({bound})",
        "train_sentences": len(train_sentences),
        "train_words": log["words"],
        "skipped": log["skipped"],
        "warm_up_seconds": round(warm_up, 2),
        "epoch_seconds": epoch_seconds,
        "seconds_per_epoch": round(statistics.mean(epoch_seconds), 2),
        "train_sentences_per_second": round(
            (len(train_sentences) - log["skipped"]) / statistics.mean(epoch_seconds), 1),
        "test_sentences": len(test_sentences),
        "test_words": test_words,
        "batch_sentences_per_second": round(len(test_sentences) / batch_seconds, 1),
        "batch_words_per_second": round(test_words / batch_seconds, 1),
        "batch_sentences_per_cpu_second": round(len(test_sentences) / batch_cpu_seconds, 1),
        "threads": threads,
        "threaded_sentences_per_second": round(len(test_sentences) / threaded_seconds, 1),
        "e2e_sentences_per_second": round(len(test_sentences) / e2e_seconds, 1),
        "e2e_words_per_second": round(test_words / e2e_seconds, 1),
        "test_uas": round(scores.uas, 2),
        "test_las": round(scores.las, 2),
    }


def static_transitions(system: str, sentences: list) -> float:
    """Transitions per sentence of the static oracle's derivations of the sentences' trees
    (those the system can build)."""
    import numpy as np

    from arcwise import systems
    from arcwise.dispatch.walk import follow_static_oracle

    ts = systems.get(system)
    k, oracle = ts.kernels, ts.oracle
    counts = []
    for s in sentences:
        gold = np.asarray(s.head, dtype=np.int32)
        if ts.can_build(gold):
            state = k.initial(s.n)
            counts.append(follow_static_oracle(k.system_id, oracle.variant, state,
                                               oracle.prepare(gold), 4 * (s.n + 1) ** 2 + 16))
    return statistics.mean(counts) if counts else 0.0


def _timed(function, *args, clock=time.perf_counter) -> float:
    started = clock()
    function(*args)
    return clock() - started


# --- parent: child processes, timed and measured ----------------------------


@dataclass
class Run:
    """A finished child process: output, wall seconds, seconds to the first
    output sentence (None if there was none) and peak RSS in MB."""

    stdout: bytes
    stderr: str
    returncode: int
    seconds: float
    first_sentence_seconds: float | None
    peak_rss_mb: float
    cpu_seconds: float  # user + system


def run_child(command: list[str], env: dict[str, str] | None = None) -> Run:
    """Run command, reading its stdout as it comes (to time the first sentence,
    the first blank line) and its resource usage from os.wait4."""
    with tempfile.TemporaryFile() as stderr:
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, env=env)
        chunks, first = [], None
        while chunk := os.read(process.stdout.fileno(), 1 << 16):
            chunks.append(chunk)
            if first is None and b"\n\n" in b"".join(chunks[-2:]):
                first = time.perf_counter() - started
        process.stdout.close()
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        stderr.seek(0)
        message = stderr.read().decode("utf-8", "replace")
    # ru_maxrss is in KB on Linux, bytes on macOS
    scale = 1 if sys.platform == "darwin" else 1024
    return Run(b"".join(chunks), message, process.returncode, seconds, first,
               usage.ru_maxrss * scale / 2**20, usage.ru_utime + usage.ru_stime)


def arcwise_command() -> list[str]:
    """The installed `arcwise` console script beside this interpreter, else `python -m arcwise`."""
    script = Path(sys.executable).with_name("arcwise")
    return [str(script)] if script.exists() else [sys.executable, "-m", "arcwise"]


def checked(run: Run, what: str) -> Run:
    if run.returncode != 0:
        raise SystemExit(f"{what} failed (exit {run.returncode}):\n{run.stderr}")
    return run


def bench_system(system: str, args: argparse.Namespace, workdir: Path) -> dict:
    """All figures of one system (see the module docstring)."""
    model = workdir / f"{system}.model"
    cached = numba_cache.child_environment(args.numba_cache_dir)
    child = checked(run_child([
        sys.executable, __file__, "--measure", system, "--train", str(args.train),
        "--test", str(args.test), "--epochs", str(args.epochs), "--model", str(model),
        "--seed", str(args.seed), *(["--sentences", str(args.sentences)] if args.sentences else []),
    ], cached), f"training {system}")
    result = json.loads(child.stdout)
    result["load_average"] = round(os.getloadavg()[0], 1)  # after training: how shared the CPUs were
    result["train_peak_rss_mb"] = round(child.peak_rss_mb)
    result["model_mb"] = round(model.stat().st_size / 2**20, 1)

    one_sentence, test = workdir / "one.conllu", workdir / "test-input.conllu"
    if not one_sentence.exists():
        from arcwise.io import conllu, read_treebank

        conllu.write(one_sentence, itertools.islice(read_treebank(args.test), 1))
        conllu.write(test, itertools.islice(read_treebank(args.test), args.sentences))
    parse = [*arcwise_command(), "parse", "-m", str(model)]
    if args.cold:
        with tempfile.TemporaryDirectory() as empty_cache:
            cold = checked(run_child([*parse, str(one_sentence)],
                                     {**os.environ, "NUMBA_CACHE_DIR": empty_cache}),
                           f"cold arcwise parse ({system})")
        result["cold_start_seconds"] = round(cold.seconds, 2)
        result["cold_start_cpu_seconds"] = round(cold.cpu_seconds, 2)
    warm = [checked(run_child([*parse, str(one_sentence)], cached), f"arcwise parse ({system})")
            for _ in range(REPEATS)]
    result["warm_start_seconds"] = round(statistics.median(r.seconds for r in warm), 2)
    result["warm_start_cpu_seconds"] = round(statistics.median(r.cpu_seconds for r in warm), 2)
    result["warm_first_sentence_seconds"] = round(
        statistics.median(r.first_sentence_seconds for r in warm), 2)
    whole = checked(run_child([*parse, str(test), "-o", str(workdir / "parsed.conllu")], cached),
                    f"arcwise parse of the test file ({system})")
    result["cli_test_seconds"] = round(whole.seconds, 2)
    result["parse_peak_rss_mb"] = round(whole.peak_rss_mb)
    return result


COLUMNS = [  # (header, key, format)
    ("system", "system", "{}"),
    ("oracle", "oracle", "{}"),
    ("s/epoch", "seconds_per_epoch", "{:.1f}"),
    ("train sent/s", "train_sentences_per_second", "{:,.0f}"),
    ("parse sent/s (1 thread)", "batch_sentences_per_second", "{:,.0f}"),
    ("parse words/s (1 thread)", "batch_words_per_second", "{:,.0f}"),
    ("transitions/sent. (static oracle)", "transitions_per_sentence", "{:.1f}"),
    ("parse sent/CPU-s", "batch_sentences_per_cpu_second", "{:,.0f}"),
    ("parse sent/s (all threads)", "threaded_sentences_per_second", "{:,.0f}"),
    ("e2e sent/s", "e2e_sentences_per_second", "{:,.0f}"),
    ("e2e words/s", "e2e_words_per_second", "{:,.0f}"),
    ("cold start s (CPU s)", "cold_start_seconds", "{:.1f}"),
    ("warm start s (1st sent.; CPU s)", "warm_start_seconds", "{:.2f}"),
    ("CLI test file s", "cli_test_seconds", "{:.2f}"),
    ("RSS train MB", "train_peak_rss_mb", "{:,}"),
    ("RSS parse MB", "parse_peak_rss_mb", "{:,}"),
    ("model MB", "model_mb", "{:.1f}"),
    ("test UAS", "test_uas", "{:.2f}"),
    ("test LAS", "test_las", "{:.2f}"),
    ("load avg.", "load_average", "{:.1f}"),
]


def _or_dash(value, form: str) -> str:
    return "–" if value is None else form.format(value)


def markdown_table(results: list[dict]) -> str:
    """The results as a markdown table (COLUMNS; missing figures are '–')."""
    def cell(result: dict, key: str, form: str) -> str:
        if key not in result:
            return "–"
        text = form.format(result[key])
        if key == "warm_start_seconds":
            cpu = result.get("warm_start_cpu_seconds")
            text += f" ({result['warm_first_sentence_seconds']:.2f}; {_or_dash(cpu, '{:.2f}')})"
        if key == "cold_start_seconds":
            text += f" ({_or_dash(result.get('cold_start_cpu_seconds'), '{:.1f}')})"
        return text

    lines = ["| " + " | ".join(h for h, _, _ in COLUMNS) + " |",
             "|" + "|".join("---" if k in ("system", "oracle") else "--:" for _, k, _ in COLUMNS) + "|"]
    lines += ["| " + " | ".join(cell(r, k, f) for _, k, f in COLUMNS) + " |" for r in results]
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--systems", default=",".join(SYSTEMS),
                    help=f"comma-separated, from: {', '.join(SYSTEMS)}")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--sentences", type=int, default=None,
                    help="use only the first N train and test sentences (quick runs)")
    ap.add_argument("--train", type=Path, default=DATA / "train.conllu.gz")
    ap.add_argument("--test", type=Path, default=DATA / "test.conllu.gz")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--report", action="store_true",
                    help="write the table as the speed section of bench/RESULTS.md")
    ap.add_argument("--numba-cache-dir", default=str(RUNS / "numba-cache"),
                    help="base of NUMBA_CACHE_DIR of every child but the cold start (the "
                         "benches' own cache, shared with accuracy.py, one subfolder per source "
                         "version: other processes clearing the package's caches do not turn "
                         "warm runs cold); 'inherit': this process's own cache")
    ap.add_argument("--no-cold", dest="cold", action="store_false",
                    help="skip the cold start (it compiles every kernel: about a minute)")
    ap.add_argument("--json", action="store_true", help="print JSON instead of the table")
    ap.add_argument("--measure", metavar="SYSTEM", help=argparse.SUPPRESS)  # child mode
    ap.add_argument("--model", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    args.systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    unknown = [s for s in args.systems if s not in SYSTEMS]
    if unknown:
        ap.error(f"unknown system(s) {', '.join(unknown)}; known: {', '.join(SYSTEMS)}")
    if args.epochs < 1:
        ap.error("--epochs must be at least 1")
    return args


def main(argv: list[str] | None = None) -> list[dict]:
    args = parse_args(argv)
    if args.measure:
        result = measure_system(args.measure, str(args.train), str(args.test), args.epochs,
                                args.sentences, args.model, args.seed)
        print(json.dumps(result))
        return [result]
    from rich.console import Console

    console = Console(stderr=True)
    results = []
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    with tempfile.TemporaryDirectory() as workdir:
        for system in args.systems:
            with console.status(f"{system}: training {args.epochs} epoch(s), parsing, "
                                f"cold and warm start ..."):
                results.append(bench_system(system, args, Path(workdir)))
            r = results[-1]
            console.print(f"{system}: {r['seconds_per_epoch']:.1f} s/epoch, "
                          f"{r['batch_sentences_per_second']:,.0f} sentences/s, "
                          f"warm start {r['warm_start_seconds']:.2f} s")
    if args.json:
        print(json.dumps({"date": started, "command": sys.argv, "cpus": os.cpu_count(),
                          "load_average": os.getloadavg(), "results": results}, indent=2))
    else:
        train_name = f"{args.train}" + (f" (first {args.sentences})" if args.sentences else "")
        print(f"Train {train_name}, test {args.test}; {args.epochs} epoch(s), seed {args.seed}; "
              f"{started}, {os.cpu_count()} CPUs, load average after the run "
              f"{os.getloadavg()[0]:.1f}.\n")
        print(markdown_table(results))
    if args.report:
        command = " ".join(["bench/speed.py", *(sys.argv[1:] if argv is None else argv)])
        report.write_section("speed", "\n".join([
            "## Speed of the transition-based parsers (issue #4, item 6)", "",
            f"Train {args.train.parent.name}"
            + (f" (first {args.sentences} sentences)" if args.sentences else "")
            + f", test {args.test.parent.name}; {args.epochs} epoch(s) of dynamic-oracle "
            f"training with exploration, seed {args.seed}; one process, model loaded, JIT warm "
            f"for the parse rates; load average after the run {os.getloadavg()[0]:.1f}.", "",
            markdown_table(results), "",
            f"- Command: `{command}`", f"- {report.provenance()}"]))
    return results


if __name__ == "__main__":
    main()
