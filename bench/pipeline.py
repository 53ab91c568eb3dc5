"""From raw text to trees on one treebank: arcwise's pipeline beside UDPipe 1 (issue #17, item 6).

    .venv/bin/python bench/pipeline.py --treebank DIR [--system arc-eager] [--epochs N]
        [--model perceptron|bilstm|biaffine] [--neural KEY=VALUE ...] [--tagger KEY=VALUE ...]
        [--tags predicted|gold|none] [--tag-folds 10] [--tag-workers 1] [--workers 1]
        [--repeats 3] [--label TEXT] [--workdir DIR] [--udpipe-python PATH | --no-udpipe] [--json]
        [--report] [--rerun]

DIR holds train.conllu(.gz), dev.conllu(.gz) and test.conllu(.gz).  arcwise trains its
tokenizer, tagger and parser (the parser on jackknifed predicted tags) on train, selects
epochs on dev, and runs on the plain text of test (`arcwise.experiments.raw_text`); UDPipe 1
(default settings) is trained on the same train split (dev as heldout) and run on the same
text.  Both outputs are scored by the CoNLL 2018 scorer (udeval from udtools): Tokens,
Sentences, Words, UPOS, XPOS, UFeats, AllTags, Lemmas, UAS, LAS, CLAS, MLAS, BLEX;
end-to-end sentences/s from text to CoNLL-U with the model loaded and warm (after parsing
dev's text), in --workers processes (`arcwise parse --workers`; UDPipe as that many
processes, each on its share of the paragraphs), the fastest of --repeats timed runs of
each.  arcwise is also scored from the gold tokens of
test, with its predicted tags and with a parser trained and run on gold tags.
--model bilstm makes the parser a BiLSTM transition parser, --system mst --model biaffine
the biaffine graph-based parser (`--neural`: its options, as `arcwise train --neural`); its
result is kept apart from the perceptron's, and so is one
with another tagger (`--tagger model=bilstm ...`, as `arcwise train --tagger`), and one
whose parser trains on gold tags or none (`--tags`, as `arcwise train --tags`; with none the
parser reads words only; with either, its gold-tag row is that same parser on gold-tagged
input).  --report
keeps the result in bench/results/pipeline/ and rewrites the pipeline section of RESULTS.md
from every kept one, with the git revision, machine and load it was measured at.
--rerun runs the models in the work folder again from raw text (arcwise's, and UDPipe's
when its model is there, e.g. trained meanwhile by bench/udpipe1.py), and arcwise's from
gold tokens with its predicted tags, scores and times them,
and keeps those figures with their own provenance: speeds measured on a quiet machine.
With --retrain tokenizer (or tokenizer,tagger) it first trains the pipeline's tokenizer
(and tagger, with the run's tagger options) again with the current code, keeping the rest,
and says so in the report: the tagger and parser are trained on gold tokens, so they do not
depend on the tokenizer, but a parser trained on predicted tags keeps those of the tagger
it was trained with.
UDPipe's model is udpipe.model, or the three models of its training in stages
(udpipe.tokenizer.model, udpipe.tagger.model, udpipe.parser.model: bench/udpipe1.py says
how), for a treebank whose UDPipe training outlasts a session.

UDPipe 1 runs in its own environment, never arcwise's (bench/udpipe1.py):

    python3.11 -m venv /tmp/udpipe-venv && /tmp/udpipe-venv/bin/pip install ufal.udpipe
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from arcwise.eval.conll18 import METRICS, conll18_scores
from arcwise.experiments.raw_text import run_arcwise

BENCH = Path(__file__).resolve().parent
COLUMNS = METRICS  # every CoNLL 2018 metric


def split(treebank: Path, name: str) -> Path | None:
    for candidate in (treebank / f"{name}.conllu", treebank / f"{name}.conllu.gz"):
        if candidate.exists():
            return candidate
    return None


def plain(path: Path, target: Path) -> Path:
    """The treebank file uncompressed (UDPipe reads plain CoNLL-U)."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as f, open(target, "wb") as out:
        shutil.copyfileobj(f, out)
    return target


STAGED_UDPIPE = ("udpipe.tokenizer.model", "udpipe.tagger.model", "udpipe.parser.model")


def udpipe_models(workdir: Path) -> list[Path] | None:
    """The UDPipe model in workdir (udpipe.model), or its three staged models
    (bench/udpipe1.py train-stage, train-parser), or None."""
    if (workdir / "udpipe.model").exists():
        return [workdir / "udpipe.model"]
    staged = [workdir / name for name in STAGED_UDPIPE]
    return staged if all(path.exists() for path in staged) else None


def run_udpipe(python: str, train: Path, dev: Path, workdir: Path, workers: int = 1,
               repeats: int = 1) -> dict:
    """UDPipe 1 trained on train (dev as heldout) unless workdir has its models, and run
    on workdir/test.txt; with workers > 1 timed again as that many processes side by side,
    each on its share of the paragraphs (`udpipe_in_processes`); timed `repeats` times,
    the fastest run kept (as arcwise's: `timed_text_run`)."""
    runner = [python, str(BENCH / "udpipe1.py")]
    start = time.perf_counter()
    models = udpipe_models(workdir)
    trained = models is None
    if trained:
        models = [workdir / "udpipe.model"]
        subprocess.run([*runner, "train", plain(train, workdir / "train.conllu"),
                        plain(dev, workdir / "dev.conllu"), *models], check=True)
    train_seconds = time.perf_counter() - start
    out = workdir / "udpipe.raw.conllu"

    def one_run() -> dict:  # in one process, it also writes the output scored
        done = subprocess.run([*runner, "run", *models, workdir / "test.txt", out], check=True,
                              capture_output=True, text=True)
        return json.loads(done.stdout)

    if workers > 1:
        one_run()
    runs = [one_run() if workers == 1 else udpipe_in_processes(runner, models, workdir, workers)
            for _ in range(max(repeats, 1))]
    speed = min(runs, key=lambda run: run["seconds"])
    speed["runs"] = [run["seconds"] for run in runs]
    speed["sentences_per_second"] = speed["sentences"] / max(speed["seconds"], 1e-9)
    speed["workers"] = workers
    gold = workdir / "gold.conllu"
    outs = [workdir / "udpipe.gold-tokens.conllu", workdir / "udpipe.gold-tags.conllu"]
    subprocess.run([*runner, "gold-tokens", *models, workdir / "gold.untagged.conllu", gold,
                    *outs], check=True)
    return {"train_seconds": train_seconds if trained else None, "speed": speed,
            "raw_text": conll18_scores(gold, out),
            "gold_tokens_predicted_tags": conll18_scores(gold, outs[0]),
            "gold_tokens_gold_tags": conll18_scores(gold, outs[1])}


def udpipe_in_processes(runner: list, models: list[Path], workdir: Path, workers: int) -> dict:
    """UDPipe 1 run as `workers` processes at once, each on a share of test.txt's paragraphs
    (about equal in characters): its sentences and the slowest process's seconds."""
    paragraphs = (workdir / "test.txt").read_text().split("\n\n")
    share = sum(map(len, paragraphs)) / workers
    parts: list[list[str]] = [[] for _ in range(workers)]
    done = 0
    for paragraph in paragraphs:
        parts[min(int(done / share), workers - 1)].append(paragraph)
        done += len(paragraph) + 2
    processes = []
    for k, part in enumerate(parts):
        text = workdir / f"test.part{k}.txt"
        text.write_text("\n\n".join(part).strip("\n") + "\n")
        processes.append(subprocess.Popen(
            [*runner, "run", *models, text, workdir / f"udpipe.part{k}.conllu"],
            stdout=subprocess.PIPE, text=True))
    speeds = [json.loads(p.communicate()[0]) for p in processes]
    if any(p.returncode for p in processes):
        raise subprocess.CalledProcessError(1, "udpipe1.py run")
    return {"seconds": max(s["seconds"] for s in speeds),
            "sentences": sum(s["sentences"] for s in speeds)}


def table(result: dict) -> str:
    def processes(speed: dict) -> str:
        return f" ({speed['workers']} processes)" if speed.get("workers", 1) > 1 else ""

    speed = result["arcwise"]["speed"]
    rows = [(f"arcwise, raw text{processes(speed)}", result["arcwise"]["raw_text"],
             speed["sentences_per_second"])]
    if "udpipe" in result:
        speed = result["udpipe"]["speed"]
        rows.append((f"UDPipe 1, raw text{processes(speed)}", result["udpipe"]["raw_text"],
                     speed["sentences_per_second"]))
    for system in ("arcwise", "udpipe"):
        name = "arcwise" if system == "arcwise" else "UDPipe 1"
        for key, what in (("gold_tokens_predicted_tags", "predicted tags"),
                          ("gold_tokens_gold_tags", "gold tags")):
            if key in result.get(system, {}):
                rows.append((f"{name}, gold tokens, {what}", result[system][key], None))
    lines = ["| | " + " | ".join(COLUMNS) + " | sentences/s |",
             "|---|" + "---:|" * (len(COLUMNS) + 1)]
    for name, scores, speed in rows:
        cells = " | ".join(f"{scores[c]:.2f}" for c in COLUMNS)
        lines.append(f"| {name} | {cells} | " + (f"{speed:.0f} |" if speed else "|"))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--treebank", type=Path, required=True)
    ap.add_argument("--system", default="arc-eager")
    ap.add_argument("--epochs", type=int, default=None,
                    help="the parser's (default: arcwise train's, by the model)")
    ap.add_argument("--tag-folds", type=int, default=10)
    ap.add_argument("--tags", choices=("predicted", "gold", "none"), default="predicted",
                    help="what the parser trains on (arcwise train --tags); kept apart "
                    "unless predicted")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--model", choices=("perceptron", "bilstm", "biaffine"),
                    default="perceptron",
                    help="the parser's model (biaffine: with --system mst)")
    ap.add_argument("--neural", action="append", default=[], metavar="KEY=VALUE",
                    help="options of a neural parser (as arcwise train --neural)")
    ap.add_argument("--tagger", action="append", default=[], metavar="KEY=VALUE",
                    help="the tagger's options (as arcwise train --tagger)")
    ap.add_argument("--tag-workers", type=int, default=1,
                    help="processes that train the jackknifing folds' taggers")
    ap.add_argument("--workers", type=int, default=1,
                    help="processes of the timed raw-text runs, arcwise's and UDPipe's "
                    "(arcwise parse --workers)")
    ap.add_argument("--repeats", type=int, default=3,
                    help="timed raw-text runs of each system; the fastest is kept")
    ap.add_argument("--label", default="",
                    help="appended to the result's name, to keep it apart from another "
                    "run's of the same model, tagger and tags (other --neural options, say)")
    ap.add_argument("--workdir", type=Path, help="default: runs/pipeline/<treebank name>")
    ap.add_argument("--udpipe-python", default="/tmp/udpipe-venv/bin/python")
    ap.add_argument("--no-udpipe", action="store_true")
    ap.add_argument("--no-gold-tag-parser", action="store_true")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--report", action="store_true",
                    help="keep the result and rewrite the pipeline section of RESULTS.md")
    ap.add_argument("--rerun", action="store_true",
                    help="run, score and time the work folder's models again (see above)")
    ap.add_argument("--retrain", type=lambda v: v.split(","), default=[],
                    metavar="tokenizer[,tagger]",
                    help="with --rerun: first train these components of the pipeline again "
                    "with this revision's code, keeping its parser (see above)")
    args = ap.parse_args(argv)
    from arcwise.cli.train import checked_model, parse_tagger
    from arcwise.core.errors import ArcwiseError

    try:
        neural = checked_model(args.system, args.model, args.neural)
        tagger_options = parse_tagger(args.tagger)
    except ArcwiseError as error:
        sys.exit(f"bench/pipeline.py: {error}")
    parser_options = {} if args.model == "perceptron" else {"model": args.model,
                                                            "neural": neural}
    tagger_model = tagger_options.get("model", "perceptron")
    name = (args.treebank.name
            + ("" if args.system == "arc-eager" or args.model == "biaffine" else f".{args.system}")
            + ("" if args.model == "perceptron" else f".{args.model}")
            + ("" if tagger_model == "perceptron" else f".tagger-{tagger_model}")
            + ("" if args.tags == "predicted" else f".tags-{args.tags}")
            + (f".{args.label}" if args.label else ""))
    train, dev, test = (split(args.treebank, s) for s in ("train", "dev", "test"))
    if train is None or test is None:
        sys.exit(f"{args.treebank}: needs train.conllu(.gz) and test.conllu(.gz)")
    workdir = args.workdir or BENCH.parent / "runs" / "pipeline" / name

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    command = ["bench/pipeline.py", *(argv if argv is not None else sys.argv[1:])]
    if args.rerun:
        return rerun(args, name, workdir, command)
    result = {"treebank": args.treebank.name, "name": name, "arcwise": run_arcwise(
        train, dev, test, workdir, system=args.system, epochs=args.epochs,
        tag_folds=args.tag_folds, tag_workers=args.tag_workers, seed=args.seed, tags=args.tags,
        workers=args.workers, repeats=args.repeats,
        gold_tag_parser=not args.no_gold_tag_parser, say=say,
        options={"parser": parser_options, "tagger": tagger_options})}
    result["arcwise"]["parser_options"] = parser_options
    result["arcwise"]["tagger_options"] = tagger_options
    (workdir / "arcwise.json").write_text(json.dumps(result, indent=1))
    say(table(result))
    if not args.no_udpipe:
        if not Path(args.udpipe_python).exists():
            say(f"no {args.udpipe_python}: UDPipe 1 skipped (see the docstring to set it up)")
        else:
            say("UDPipe 1: training (its default settings) and running")
            try:
                result["udpipe"] = run_udpipe(args.udpipe_python, train, dev or train, workdir,
                                              args.workers, args.repeats)
            except subprocess.CalledProcessError as error:
                say(f"UDPipe 1 failed ({error}); arcwise's figures only")
    print(json.dumps(result, indent=1) if args.json else table(result))
    if args.report:
        store({**result, **stamp(command)})
    return result


RESULTS = BENCH / "results" / "pipeline"


def rerun(args, name: str, workdir: Path, command: list[str]) -> dict:
    """A kept run's raw-text figures (and its gold-token, predicted-tag ones) measured again
    with the models in its work folder."""
    import arcwise
    from arcwise.experiments.raw_text import gold_tokens_scores, raw_text, timed_text_run
    from arcwise.io import read_treebank

    kept_path = RESULTS / f"{name}.json"
    if not kept_path.exists() or not (workdir / "arcwise.pipeline").exists():
        sys.exit(f"{name}: no kept run with its models in {workdir} to rerun")
    kept = json.loads(kept_path.read_text())
    out, warm_up = workdir / "arcwise.raw.conllu", workdir / "dev.txt"
    dev = split(args.treebank, "dev")
    if args.retrain:
        kept["retrained"] = retrain(workdir / "arcwise.pipeline", args.retrain, args.treebank,
                                    args.seed, kept["arcwise"].get("tagger_options", {}), command)
    if dev is not None and not warm_up.exists():
        warm_up.write_text(raw_text(read_treebank(dev)))
    nlp = arcwise.load(workdir / "arcwise.pipeline")
    kept["arcwise"]["speed"] = timed_text_run(nlp, workdir / "test.txt", out,
                                              warm_up if dev is not None else None, args.workers,
                                              args.repeats)
    kept["arcwise"]["raw_text"] = conll18_scores(workdir / "gold.conllu", out)
    if (workdir / "gold.untagged.conllu").exists():
        kept["arcwise"]["gold_tokens_predicted_tags"] = gold_tokens_scores(nlp, workdir)
    if udpipe_models(workdir) is not None and Path(args.udpipe_python).exists():
        trained = kept.get("udpipe", {}).get("train_seconds")
        kept["udpipe"] = {**run_udpipe(args.udpipe_python, workdir / "train.conllu",
                                       workdir / "dev.conllu", workdir, args.workers,
                                       args.repeats),
                          "train_seconds": trained}
    kept["rerun"] = {**stamp(command),
                     "gold_tokens": (workdir / "gold.untagged.conllu").exists()}
    print(table(kept))
    if args.report:
        store(kept)
    return kept


def retrain(model: Path, components: list[str], treebank: Path, seed: int,
            tagger_options: dict, command: list[str]) -> dict:
    """Train these components (tokenizer, tagger) of the pipeline in `model` again on the
    treebank's train split (dev for their epochs), keep the rest, and save it; what was
    retrained, in how many seconds, and the stamp."""
    import arcwise
    from arcwise.io import read_treebank
    from arcwise.pipeline.training import train_pipeline

    if not components or not set(components) <= {"tokenizer", "tagger"}:
        sys.exit(f"--retrain {','.join(components)}: use tokenizer, tagger or both")
    dev = split(treebank, "dev")
    start = time.perf_counter()
    again, _ = train_pipeline(list(read_treebank(split(treebank, "train"))),
                              list(read_treebank(dev)) if dev is not None else None,
                              components, seed=seed, tagger_options=tagger_options,
                              progress=lambda line: print(line, file=sys.stderr))
    seconds = time.perf_counter() - start
    nlp = arcwise.load(model)
    for component in components:
        setattr(nlp, component, getattr(again, component))
    nlp.save(model)
    return {"components": components, "seconds": seconds, **stamp(command)}


def stamp(command: list[str]) -> dict:
    """The command, provenance and load average of figures measured now."""
    import report

    return {"command": " ".join(map(str, command)), "provenance": report.provenance(),
            "load_average": report.load_average()}


def store(result: dict) -> None:
    """Write one treebank's kept result and the pipeline section from every kept one."""
    import report

    kept_results = report.keep(result, RESULTS, result.get("name", result["treebank"]))
    lines = ["## From raw text to trees: arcwise's pipeline beside UDPipe 1", "",
             "Issue #17: each system trained on the treebank's train split (dev for its epochs "
             "or heldout data) and run on the plain text of its test split; scores by the "
             "CoNLL 2018 scorer (udeval); sentences/s from text to CoNLL-U, model loaded and "
             "warmed up (on dev's text since aa38113, before on the test text's first 20 "
             "sentences), the fastest of `--repeats` runs (3) where a run lists its timed "
             "runs (before: one run), in one process unless the row says how many (`--workers`: "
             "`arcwise parse --workers`; UDPipe 1 as that many processes on shares of the "
             "paragraphs).  From gold tokens, UDPipe 1's gold-tag row is its own parser on "
             "gold tags; UDPipe trains that parser on its tagger's tags of the train split, "
             "not on gold tags."]
    for kept in kept_results:
        arcwise_seconds = kept["arcwise"]["train_seconds"]
        udpipe = kept.get("udpipe", {})
        model = kept["arcwise"].get("parser_options", {})
        options = ", ".join(f"{k}={v}" for k, v in model.get("neural", {}).items())
        model_name = f"{model['model']} ({options})" if model else "perceptron"
        tags = kept["arcwise"].get("parser_tags") or "predicted"
        tags = tags.get("tags", "predicted") if isinstance(tags, dict) else tags
        trained_on = {"predicted": f"{kept['arcwise']['tag_folds']}-fold jackknifed tags",
                      "gold": "the parser on gold tags",
                      "none": "the parser without tags"}[tags]
        tagger = kept["arcwise"].get("tagger_options", {})
        tagger_name = tagger.get("model", "perceptron")
        if tagger.get("neural"):
            tagger_name += " (" + ", ".join(f"{k}={v}" for k, v in tagger["neural"].items()) + ")"
        heading = (f"{model_name} parser"
                   + ("" if tagger_name == "perceptron" else f", {tagger_name} tagger")
                   + ("" if tags == "predicted" else f", tags: {tags}"))
        lines += ["", f"### {kept['treebank']}, {heading}", "", table(kept), "",
                  f"- Training: arcwise {arcwise_seconds:,.0f} s (tokenizer, "
                  f"{tagger_name} tagger"
                  + (f" ({tagger['epochs']} epochs), " if "epochs" in tagger else ", ") +
                  f"{trained_on}, "
                  f"{kept['arcwise']['system']} {model_name} parser, "
                  f"{kept['arcwise']['epochs']} epochs)"
                  + ("." if not udpipe else f"; UDPipe 1 {udpipe['train_seconds']:,.0f} s."
                     if udpipe["train_seconds"] is not None else "; UDPipe 1: its model was "
                     "in the work folder already, trained beforehand by bench/udpipe1.py."),
                  f"- `{kept['command']}` — {kept['provenance']} Load average at the end "
                  f"(1, 5, 15 min): {', '.join(map(str, kept['load_average']))}."]
        runs = [(who, kept[key]["speed"]["runs"]) for who, key in (("arcwise", "arcwise"),
                                                                    ("UDPipe 1", "udpipe"))
                if "runs" in kept.get(key, {}).get("speed", {})]
        if runs:
            lines += ["- Timed runs (s), the fastest kept: " + "; ".join(
                f"{who} {', '.join(f'{t:.2f}' for t in times)}" for who, times in runs) + "."]
        if "retrained" in kept:
            again = kept["retrained"]
            kept_parts = [c for c in ("tokenizer", "tagger", "parser")
                          if c not in again["components"]]
            lines += [f"- The {' and '.join(again['components'])} trained again "
                      f"({again['seconds']:,.0f} s), the {' and '.join(kept_parts)} kept"
                      + (" (the parser trained on the earlier tagger's jackknifed tags)"
                         if "tagger" in again["components"] and tags == "predicted" else "")
                      + f": `{again['command']}` — {again['provenance']}"]
        if "rerun" in kept:
            timing = kept["rerun"]
            rows = "raw-text rows" + (" and arcwise's gold-token row" if timing.get("gold_tokens")
                                      else "")
            lines += [f"- The {rows} run, scored and timed again: `{timing['command']}` — "
                      f"{timing['provenance']} Load average at the end (1, 5, 15 min): "
                      f"{', '.join(map(str, timing['load_average']))}."]
    report.write_section("pipeline", "\n".join(lines))


if __name__ == "__main__":
    main()
