"""BiLSTM transition parsers (issue #16): accuracy, training time and parse speed.

    .venv/bin/python bench/neural.py [--systems arc-eager:dynamic,two-planar:static]
        [--epochs 15] [--train PATH --dev PATH --test PATH] [--threads 2] [--parse-threads N]
        [--neural KEY=VALUE ...] [--max-train N] [--seed 1] [--device cpu] [--json] [--report]
    .venv/bin/python bench/neural.py --section

Per configuration (SYSTEM:ORACLE[:BOUND] for a BiLSTM transition parser,
`arcwise.transition.train.train(..., model="bilstm")`; biaffine[:projective] for the
biaffine graph-based parser, `train_biaffine`): trains on the training
split with dev selection, then parses the
test split with the best epoch's model and prints test UAS/LAS (CoNLL 2018
rules, punctuation included), the seconds to the best epoch and in all, and
parse speed (sentences/s, encoding and stepping, the network on `--parse-threads`
threads, by default `--threads`), on `--device` (cpu by default; cuda, cuda:N or auto
for a GPU).  Defaults: the bundled English-EWT, gold tags.
--report keeps each result in bench/results/neural/ and rewrites the neural section of RESULTS.md
from every kept one, with the git revision and machine it was measured on, then the reports
of the neural `arcwise experiment` grids (`GRIDS`) from their finished cells, each followed
by its notes (bench/results/FOLDER-notes.md, written by hand).  --section only rewrites it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import NamedTuple

DATA = Path(__file__).resolve().parents[1] / "data" / "en_ewt"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", default="arc-eager:dynamic")
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--train", type=Path, default=DATA / "train.conllu.gz")
    parser.add_argument("--dev", type=Path, default=DATA / "dev.conllu.gz")
    parser.add_argument("--test", type=Path, default=DATA / "test.conllu.gz")
    parser.add_argument("--threads", type=int, default=2, help="torch threads for training")
    parser.add_argument("--parse-threads", type=int, default=None,
                        help="torch threads for the timed parse of test (default: --threads)")
    parser.add_argument("--neural", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--max-train", type=int, default=None)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--device", default="cpu", help="cpu, cuda, cuda:N or auto")
    parser.add_argument("--save", type=Path, default=None, help="folder to save the models in")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--report", action="store_true",
                        help="keep the results and rewrite the neural section of RESULTS.md")
    parser.add_argument("--section", action="store_true",
                        help="train nothing: rewrite the neural section from the kept results "
                             "and the grids' finished cells")
    args = parser.parse_args(argv)
    if args.section:
        write_section()
        return 0

    import torch

    from arcwise.cli.train import parse_neural
    from arcwise.core.device import use_device
    from arcwise.core.errors import ArcwiseError
    from arcwise.graph.biaffine_parser import train_biaffine
    from arcwise.io import read_treebank
    from arcwise.training.data import score_parser
    from arcwise.transition.train import train

    try:
        device = use_device(args.device)
        neural = {"threads": args.threads, **parse_neural(args.neural, "biaffine"
                  if args.systems.startswith("biaffine") else "bilstm")}
        train_sentences = list(read_treebank(args.train))[: args.max_train]
        dev = list(read_treebank(args.dev))
        test = list(read_treebank(args.test))
    except ArcwiseError as error:
        print(f"bench/neural.py: {error}", file=sys.stderr)
        return 2
    if args.save:  # before the hours of training, not after
        try:
            args.save.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            print(f"bench/neural.py: cannot make {args.save}: {error.strerror}", file=sys.stderr)
            return 2
    rows = []
    for spec in args.systems.split(","):
        system, *rest = spec.split(":")
        started = time.perf_counter()
        say = lambda e: print(json.dumps(e), file=sys.stderr, flush=True)  # noqa: E731
        if system == "biaffine":
            model, log = train_biaffine(train_sentences, dev, epochs=args.epochs,
                                        decoder="projective" if rest else "non-projective",
                                        seed=args.seed, neural=neural, progress=say)
        else:
            model, log = train(system, train_sentences, dev, oracle=rest[0],
                               bound=rest[1] if len(rest) > 1 else None, epochs=args.epochs,
                               seed=args.seed, model="bilstm", neural=neural, progress=say)
        total = time.perf_counter() - started
        to_best = sum(e["seconds"] for e in log["epochs"][: log["best_epoch"]])
        parse_threads = args.parse_threads or args.threads
        torch.set_num_threads(parse_threads)
        parse_started = time.perf_counter()
        scores = score_parser(model, test)
        parse_seconds = time.perf_counter() - parse_started
        rows.append({
            "configuration": " ".join([spec, *args.neural]), "test_uas": round(scores.uas, 2),
            "test_las": round(scores.las, 2), "best_epoch": log["best_epoch"],
            "train_seconds_to_best": round(to_best, 1), "train_seconds": round(total, 1),
            "parse_sentences_per_second": round(len(test) / parse_seconds, 1),
            "threads": args.threads, "parse_threads": parse_threads, "device": device,
            "epochs": args.epochs,
            "train": Path(args.train).parent.name, "train_sentences": len(train_sentences),
            "hyperparameters": log["hyperparameters"],
            "dev_las_by_epoch": [e.get("dev_las") for e in log["epochs"]],
            "command": " ".join(["bench/neural.py", *sys.argv[1:]]),
        })
        print(json.dumps(rows[-1]) if args.json else
              f"{spec}: test UAS {scores.uas:.2f} LAS {scores.las:.2f}, best epoch "
              f"{log['best_epoch']} after {to_best:.0f} s of training ({total:.0f} s in all), "
              f"parse {len(test) / parse_seconds:.0f} sentences/s on {parse_threads} threads"
              + ("" if device == "cpu" else f" and {device}"),
              flush=True)
        if args.report:
            import report

            rows[-1]["provenance"] = report.provenance()
            rows[-1]["load_average"] = report.load_average()
            keep(rows[-1])
        if args.save:  # after the figures are out: a full disk loses the model, not them
            try:
                model.save(args.save / f"{spec.replace(':', '_')}.arcwise")
            except ArcwiseError as error:
                print(f"bench/neural.py: {error}", file=sys.stderr)
                return 2
    return 0


RESULTS = Path(__file__).resolve().parent / "results" / "neural"
EXPERIMENTS = Path(__file__).resolve().parents[1] / "experiments"


class GridReport(NamedTuple):
    """An `arcwise experiment` grid with neural cells, reported after the runs above."""

    grid: Path  # its file
    results: Path  # the folder of its cells; its notes: RESULTS_FOLDER-notes.md beside it
    data: str  # the data root its command names
    other: bool = False  # run on other treebanks (--other-treebanks all): those of its cells


GRIDS = [
    GridReport(EXPERIMENTS / "neural-2018.toml", RESULTS.parent / "neural-2018",
               "../shared/data/ud"),  # the 2018 Table 1, 15 epochs
    GridReport(EXPERIMENTS / "neural-2018-paper.toml", RESULTS.parent / "neural-2018-paper",
               "../shared/data/ud"),  # ... with the paper's features
    GridReport(EXPERIMENTS / "neural-defaults.toml", RESULTS.parent / "neural-defaults",
               "../shared/data/ud"),  # #42 item 6
    GridReport(EXPERIMENTS / "neural-defaults.toml", RESULTS.parent / "neural-defaults-heldout",
               "HELDOUT", other=True),  # ... on treebanks nobody tuned for
]


def keep(row: dict) -> None:
    """Store one configuration's result and rewrite the neural section from every stored one."""
    from arcwise.io.atomic import atomic_write

    RESULTS.mkdir(parents=True, exist_ok=True)
    configuration = row["configuration"].replace(":", "_").replace(" ", "_").replace("=", "")
    name = f"{row['train']}_{configuration}_e{row['epochs']}"
    with atomic_write(RESULTS / f"{name}.json") as f:
        f.write(json.dumps(row, indent=1) + "\n")
    write_section()


def write_section() -> None:
    """The neural section of RESULTS.md, from every result kept in bench/results/neural/."""
    import report

    rows = [json.loads(p.read_text()) for p in sorted(RESULTS.glob("*.json"))]
    lines = ["## Neural parsers: BiLSTM transition parsers and the biaffine graph parser",
             "", "Issue #16: gold tags, punctuation included, test split, the epoch with the "
             "best dev LAS; training and parsing on the CPU with the torch threads given.", "",
             "| train | configuration | test UAS | test LAS | best epoch of | s to best | s in all "
             "| parse sent/s | threads: train, parse |", "|---|---|--:|--:|--:|--:|--:|--:|--:|"]
    lines += [f"| {r['train']} | {r['configuration']} | {r['test_uas']:.2f} | {r['test_las']:.2f} "
              f"| {r['best_epoch']} of {len(r['dev_las_by_epoch'])} "
              f"| {r['train_seconds_to_best']:,.0f} | {r['train_seconds']:,.0f} "
              f"| {r['parse_sentences_per_second']:,.0f} | {r['threads']}, "
              f"{r.get('parse_threads', r['threads'])} |" for r in rows]
    lines += ["", "Commands and provenance:", ""]
    lines += [f"- `{r['command']}` — {r['provenance']} Load average at the end (1, 5, 15 min): "
              + (", ".join(map(str, r["load_average"])) if "load_average" in r else
                 "not recorded (these runs shared the 2 cores with other benchmarks, load "
                 "about 8: their seconds and speeds are upper bounds)") for r in rows]
    lines += grid_section()
    report.write_section("neural", "\n".join(lines))


def grid_section() -> list[str]:
    """The lines of the grids' reports (`GRIDS`), from their finished cells, each followed by
    its notes, if any; a grid without cells: nothing."""
    import report

    lines = []
    for path, results_dir, data, other in GRIDS:
        text, _ = report.grid_report(path, results_dir,
                                     on="on treebanks nobody tuned for" if other else None)
        if not text:
            continue
        command = (f"arcwise experiment experiments/{path.name} --data {data} -o "
                   f"bench/results/{results_dir.name}"
                   + (" --other-treebanks all" if other else ""))
        lines += ["", text, "",
                  f"- Command: `{command}` (it resumes: a run may span sessions); each cell "
                  "trains on one torch thread.",
                  *report.notes(results_dir.name, results_dir.parent.parent / "RESULTS.md")]
    return lines


if __name__ == "__main__":
    raise SystemExit(main())
