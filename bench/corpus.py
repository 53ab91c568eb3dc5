"""Parsing a corpus, in local processes and on a Dask cluster (issue #44, item 5).

    .venv/bin/python bench/corpus.py [--model models/en_ewt.model] [--files 200]
        [--sentences-per-file 60] [--tiny-files 1000] [--noop-tasks 2000] [--repeats 2]
        [--memory-minutes 10] [--workdir runs/corpus-bench] [--report]

The corpus is raw text made from the bundled English-EWT training split
(`arcwise.experiments.raw_text.raw_text`): --files files of --sentences-per-file
sentences in 10 folders.  Each run parses it with `arcwise.corpus_parse`
(`arcwise parse IN -o OUTDIR`) into a fresh folder, the model loaded in the timed part as
a user's command loads it:

- throughput with --workers 1, --workers 2, and a Dask LocalCluster of 2 worker processes
  (one thread each; the cluster started before timing): wall time, sentences/s over the
  whole run and between the first and the last output (steady), the best of --repeats;
  the scaling efficiency (rate with 2 / twice the rate with 1); the client's CPU time per
  sentence on Dask (it receives and writes every output): the rate one client can absorb;
- the cost of a task: --noop-tasks empty tasks on the cluster (the scheduler's own cost),
  and --tiny-files files of one sentence each with 1 and 2 local workers and on Dask, with
  the files grouped into tasks (the default) and one file per task;
- memory: each Dask worker's resident memory (RSS), sampled every 10 s while the
  corpus is parsed again and again for --memory-minutes;
- a projection, from these figures, of the sentences per hour of N such machines.

--report keeps the result in bench/results/corpus/ and writes the corpus section of
RESULTS.md.  The model is a pipeline with a tokenizer (`make demo` leaves one at
models/en_ewt.model).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import statistics
import sys
import threading
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = 10
SAMPLE_SECONDS = 10.0
MACHINES = (1, 10, 100)


def make_corpus(folder: Path, files: int, per_file: int, offset: int = 0) -> int:
    """`files` raw-text files of `per_file` EWT training sentences each (cycling through the
    split) in FOLDERS sub-folders of `folder`; the sentences written."""
    from arcwise.experiments.raw_text import raw_text
    from arcwise.io import read_treebank

    sentences = list(read_treebank(ROOT / "data" / "en_ewt" / "train.conllu.gz"))
    shutil.rmtree(folder, ignore_errors=True)
    for k in range(files):
        start = (offset + k * per_file) % len(sentences)
        chosen = [sentences[(start + i) % len(sentences)] for i in range(per_file)]
        path = folder / f"part{k % FOLDERS}" / f"text{k:05}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(raw_text(chosen))
    return files * per_file


class Timed:
    """corpus_parse's on_file callback, keeping the time of each output."""

    def __init__(self):
        self.times: list[float] = []
        self.cpu: list[float] = []  # this process's CPU seconds
        self.sentences: list[int] = []

    def __call__(self, name: str, count: int) -> None:
        self.times.append(time.perf_counter())
        self.cpu.append(time.process_time())
        self.sentences.append(count)

    def steady(self) -> dict:
        """Between the first output and the last: seconds per file, this process's CPU
        seconds per sentence, sentences/s."""
        if len(self.times) < 2:
            return {"rate": float("nan"), "file_seconds": float("nan"),
                    "client_cpu_per_sentence": float("nan")}
        seconds, sentences = self.times[-1] - self.times[0], sum(self.sentences[1:])
        return {"rate": sentences / seconds if seconds else float("nan"),
                "file_seconds": seconds / (len(self.times) - 1),
                "client_cpu_per_sentence": (self.cpu[-1] - self.cpu[0]) / max(sentences, 1)}


def timed_parse(model: str, corpus: Path, out: Path, **options) -> dict:
    """One `corpus_parse` of the corpus into a fresh `out`: wall, sentences, rates, and this
    process's CPU seconds."""
    from arcwise.pipeline.corpus import corpus_parse

    shutil.rmtree(out, ignore_errors=True)
    timed = Timed()
    cpu, start = time.process_time(), time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = corpus_parse(model, [corpus], out, input_format="text", on_file=timed, **options)
    wall = time.perf_counter() - start
    steady = timed.steady()
    return {"seconds": wall, "sentences": run.sentences, "files": len(run.parsed),
            "rate": run.sentences / wall, "steady_rate": steady["rate"],
            "steady_file_seconds": steady["file_seconds"],
            "client_cpu_seconds": time.process_time() - cpu,
            "steady_client_cpu_per_sentence": steady["client_cpu_per_sentence"]}


def best(runs: list[dict]) -> dict:
    return min(runs, key=lambda r: r["seconds"])


def noop(x):
    return x


def task_cost(client, tasks: int) -> float:
    """Seconds per empty task on the cluster, submitted and gathered together."""
    client.gather(client.map(noop, range(50), pure=False))  # warm
    start = time.perf_counter()
    client.gather(client.map(noop, range(tasks), pure=False))
    return (time.perf_counter() - start) / tasks


def worker_memory(client, minutes: float, model: str, corpus: Path, out: Path) -> dict:
    """Each worker's RSS (MiB) every SAMPLE_SECONDS while the corpus is parsed again and
    again for `minutes`; the passes and sentences parsed meanwhile."""
    import psutil

    pids = client.run(os.getpid)
    processes = {address: psutil.Process(pid) for address, pid in pids.items()}
    samples: list[tuple[float, list[float]]] = []
    stop = threading.Event()
    start = time.perf_counter()

    def sample() -> None:
        while not stop.is_set():
            try:
                rss = [p.memory_info().rss / 2**20 for p in processes.values()]
            except psutil.Error:  # a worker restarted: keep sampling the others
                rss = []
            samples.append((time.perf_counter() - start, rss))
            stop.wait(SAMPLE_SECONDS)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    passes = sentences = 0
    while time.perf_counter() - start < minutes * 60:
        sentences += timed_parse(model, corpus, out, dask=client)["sentences"]
        passes += 1
    stop.set()
    sampler.join()
    per_worker = []
    for k in range(len(processes)):
        series = [(t, rss[k]) for t, rss in samples if len(rss) == len(processes)]
        after = [(t, r) for t, r in series if t >= 60]  # after the first minute
        per_worker.append({
            "first": series[0][1], "at_1_min": after[0][1] if after else float("nan"),
            "max": max(r for _, r in series), "last": series[-1][1],
            "slope_mib_per_hour": slope(after) * 3600 if len(after) > 2 else float("nan")})
    return {"minutes": (time.perf_counter() - start) / 60, "passes": passes,
            "sentences": sentences, "samples": len(samples), "workers": per_worker,
            "series": [[round(t, 1), [round(r, 1) for r in rss]] for t, rss in samples]}


def slope(points: list[tuple[float, float]]) -> float:
    """The least-squares slope of (x, y) points."""
    xs, ys = [x for x, _ in points], [y for _, y in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return (sum((x - mx) * (y - my) for x, y in points)
            / sum((x - mx) ** 2 for x in xs))


def measure(args) -> dict:
    from dask.distributed import Client, LocalCluster

    from arcwise.pipeline import on_dask

    model = str(args.model)
    work = args.workdir
    corpus, tiny = work / "corpus", work / "tiny"
    total = make_corpus(corpus, args.files, args.sentences_per_file)
    make_corpus(tiny, args.tiny_files, 1, offset=7)
    os.environ["PYTHONPATH"] = os.pathsep.join(  # the workers import this checkout's arcwise
        [str(ROOT / "src"), *filter(None, [os.environ.get("PYTHONPATH")])])
    result: dict = {"model": model, "files": args.files, "input_sentences": total,
                    "corpus_bytes": sum(p.stat().st_size for p in corpus.rglob("*.txt")),
                    "tiny_files": args.tiny_files}
    start = time.perf_counter()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None, silence_logs=logging.CRITICAL) as cluster, \
            Client(cluster, set_as_default=False) as client:
        result["cluster_start_seconds"] = time.perf_counter() - start
        runs: dict[str, list[dict]] = {"workers 1": [], "workers 2": [], "dask 2": []}
        for _ in range(args.repeats):  # interleaved, so that a busy minute hits all three
            runs["workers 1"].append(timed_parse(model, corpus, work / "out", workers=1))
            runs["workers 2"].append(timed_parse(model, corpus, work / "out", workers=2))
            runs["dask 2"].append(timed_parse(model, corpus, work / "out", dask=client))
            print(json.dumps({k: round(v[-1]["rate"], 1) for k, v in runs.items()}), flush=True)
        result["throughput"] = {k: best(v) for k, v in runs.items()}
        result["noop_task_seconds"] = task_cost(client, args.noop_tasks)
        tiny_runs = {"workers 1": timed_parse(model, tiny, work / "out", workers=1),
                     "workers 2": timed_parse(model, tiny, work / "out", workers=2),
                     "dask 2, grouped": timed_parse(model, tiny, work / "out", dask=client)}
        grouped = on_dask.TASK_BYTES
        on_dask.TASK_BYTES = 1  # one file per task, as before the files were grouped
        try:
            tiny_runs["dask 2, a task per file"] = timed_parse(model, tiny, work / "out",
                                                              dask=client)
        finally:
            on_dask.TASK_BYTES = grouped
        result["tiny"] = tiny_runs
        print(json.dumps({k: round(v["seconds"], 1) for k, v in tiny_runs.items()}), flush=True)
        if args.memory_minutes > 0:
            result["memory"] = worker_memory(client, args.memory_minutes, model, corpus,
                                             work / "out")
    return result


def summary(result: dict) -> list[str]:
    """The result as Markdown lines."""
    t = result["throughput"]
    one, dask = t["workers 1"], t["dask 2"]
    lines = [
        f"Corpus: {result['files']} raw-text files of {result['input_sentences'] // result['files']} "
        f"English-EWT training sentences ({result['corpus_bytes'] / 1e6:.1f} MB), parsed "
        f"with the tokenizer, tagger and parser of `{Path(result['model']).name}` into a "
        "fresh folder; the model loaded within the timed run, as a user's command does; the "
        f"best of {result['repeats']} interleaved runs.", "",
        "| run | wall s | sentences | sentences/s | steady sentences/s | efficiency |",
        "|---|--:|--:|--:|--:|--:|"]
    for name, run in t.items():
        workers = 1 if name == "workers 1" else 2
        efficiency = run["steady_rate"] / (workers * one["steady_rate"])
        lines.append(f"| {name} | {run['seconds']:.1f} | {run['sentences']:,} | "
                     f"{run['rate']:,.0f} | {run['steady_rate']:,.0f} | {efficiency:.2f} |")
    client_rate = 1 / dask["steady_client_cpu_per_sentence"]
    lines += ["", "Steady: sentences/s between the first output and the last (the model "
              "loading left out); efficiency: steady rate / (workers x the steady rate of "
              f"one worker).  The Dask cluster started in {result['cluster_start_seconds']:.1f} s "
              "(not timed).  On Dask the client receives and writes every output: between "
              f"the first output and the last it spent {1e6 / client_rate:.0f} CPU µs per "
              f"sentence ({dask['client_cpu_seconds']:.1f} CPU s in all, start included), so "
              f"one client absorbs at most {client_rate:,.0f} sentences/s.", ""]
    tiny = result["tiny"]
    noop = result["noop_task_seconds"]
    lines += [f"Cost of a task: an empty Dask task costs {noop * 1e3:.2f} ms (scheduler and "
              f"round trip, {result['noop_tasks']:,} tasks on 2 workers).  "
              f"{result['tiny_files']:,} files of one sentence each:", "",
              "| run | wall s | ms per file | steady ms per file |", "|---|--:|--:|--:|"]
    for name, run in tiny.items():
        lines.append(f"| {name} | {run['seconds']:.1f} | "
                     f"{run['seconds'] * 1e3 / run['files']:.1f} | "
                     f"{run['steady_file_seconds'] * 1e3:.1f} |")
    if "memory" in result:
        m = result["memory"]
        lines += ["", f"Memory: each Dask worker's resident memory over {m['minutes']:.1f} "
                  f"minutes ({m['passes']} passes, {m['sentences']:,} sentences, a sample "
                  f"every {SAMPLE_SECONDS:.0f} s):", "",
                  "| worker | first MiB | at 1 min | max | last | slope after 1 min, MiB/h |",
                  "|---|--:|--:|--:|--:|--:|"]
        for k, w in enumerate(m["workers"]):
            lines.append(f"| {k + 1} | {w['first']:.0f} | {w['at_1_min']:.0f} | {w['max']:.0f} "
                         f"| {w['last']:.0f} | {w['slope_mib_per_hour']:+.1f} |")
    machine_rate = dask["steady_rate"]
    lines += ["", f"Projection (not measured): one such 2-core machine parses "
              f"{machine_rate * 3600 / 1e6:.1f} M sentences/hour on Dask (its steady rate).  "
              "N machines parse N times that while the scheduler and the one client keep "
              f"up: a task of about {1 << 20 >> 10} KiB of text parses for several seconds "
              f"against {noop * 1e3:.1f} ms of scheduling, but the client's "
              f"{client_rate:,.0f} sentences/s bound the whole cluster "
              f"(about {client_rate / machine_rate:.0f} machines' worth):", "",
              "| machines | sentences/hour, if linear | bounded by one client |", "|--:|--:|--:|"]
    for n in MACHINES:
        linear = n * machine_rate * 3600
        lines.append(f"| {n} | {linear / 1e6:,.1f} M | {min(linear, client_rate * 3600) / 1e6:,.1f} M |")
    lines += ["", "Past that bound, run one client per share of the corpus (`arcwise parse` "
              "on a part of the folders each, all on the same scheduler) or write Parquet "
              "from the workers' side (the Spark recipe in the scale-out guide)."]
    return lines


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, default=ROOT / "models" / "en_ewt.model")
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--sentences-per-file", type=int, default=60)
    parser.add_argument("--tiny-files", type=int, default=1000)
    parser.add_argument("--noop-tasks", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--memory-minutes", type=float, default=10.0)
    parser.add_argument("--workdir", type=Path, default=ROOT / "runs" / "corpus-bench")
    parser.add_argument("--report", action="store_true",
                        help="Keep the result and write the corpus section of RESULTS.md.")
    args = parser.parse_args(argv)
    if not args.model.exists():
        sys.exit(f"{args.model}: no such model (make demo leaves one there)")
    sys.path.insert(0, str(ROOT / "bench"))
    import report

    result = measure(args)
    result.update(repeats=args.repeats, noop_tasks=args.noop_tasks,
                  load_average=report.load_average(), provenance=report.provenance())
    lines = summary(result)
    print("\n".join(lines))
    if args.report:
        report.keep(result, report.BENCH / "results" / "corpus", "corpus")
        report.write_bench_section(
            "corpus", "## Parsing a corpus: local processes and Dask (issue #44)",
            f"Load averages {result['load_average']} when it ended.", lines,
            "bench/corpus.py", argv)
    return result


if __name__ == "__main__":
    main()
