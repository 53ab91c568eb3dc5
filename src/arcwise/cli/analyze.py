"""`arcwise analyze GOLD SYS [SYS ...]`: the 2011 paper's error analysis, significance per bin."""

from __future__ import annotations

import json
import shlex
import sys
from enum import Enum
from itertools import combinations

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from arcwise.cli.evaluate import Punct
from arcwise.core.errors import ArcwiseError


class Unit(str, Enum):
    word = "word"
    sentence = "sentence"


def register(app: typer.Typer) -> None:
    @app.command("analyze")
    def analyze_command(
        files: list[str] = typer.Argument(
            None, metavar="GOLD SYS [SYS ...]",
            help="Gold treebank, then one output per system (CoNLL-U or CoNLL-X, maybe .gz)."),
        gold: str = typer.Option(
            None, "--gold", help="Several treebanks at once: gold files G1,G2,... (instead of "
                                 "GOLD SYS ...); each system then comes with one --sys."),
        sys_files: list[str] = typer.Option(
            None, "--sys", help="With --gold: one system's outputs A1,A2,... in the order of the "
                                "gold files; repeat for each system."),
        names: str = typer.Option(None, "--names",
                                  help="System names A,B,... (default: the file names as given)."),
        punct: Punct = typer.Option(
            Punct.include, "--punct",
            help="include: score every word; exclude: skip gold punctuation (as in evaluate)."),
        labeled: bool = typer.Option(True, "--labeled/--unlabeled",
                                     help="Correct: right HEAD and DEPREL (default) or HEAD only."),
        samples: int = typer.Option(10_000, "--samples", min=0,
                                    help="Shuffles per significance test (0: no tests)."),
        seed: int = typer.Option(0, "--seed", help="Seed of the shuffles."),
        unit: Unit = typer.Option(
            Unit.word, "--unit", help="What a shuffle swaps between two systems: each word "
                                      "(the paper's instance level) or each sentence."),
        pronoun_det: bool = typer.Option(False, "--pronoun-det",
                                         help="Count DET among pronouns in the PoS classes."),
        output: str = typer.Option(None, "-o", "--output", help="Report directory: index.html, "
                                   "figures (SVG, PNG) and analysis.json; an earlier report "
                                   "there is replaced once the new one is complete."),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object, no tables."),
    ) -> None:
        """Accuracy, precision and recall of each system by sentence length, arc length, distance
        to root, siblings, PoS, relation, direction and projectivity (McDonald & Nivre 2011,
        §4), with a stratified-shuffling p-value for every bin and pair of systems; transition
        analyses for outputs of `arcwise parse --trace`."""
        from arcwise.analysis.analyze import analyze
        from arcwise.analysis.report import check_replaceable, write_report
        from arcwise.io.atomic import check_output

        gold_files, system_files, default_names = _inputs(files or [], gold, sys_files or [])
        if output is not None:
            check_output(output, [*gold_files, *(f for fs in system_files for f in fs)],
                         folder=True)
            check_replaceable(output)
        system_names = names.split(",") if names else default_names
        if len(system_names) != len(system_files):
            raise ArcwiseError(f"--names gives {len(system_names)} name(s) for "
                               f"{len(system_files)} system(s)")
        result = analyze(gold_files, system_files, system_names, labeled=labeled,
                         punct=punct.value, samples=samples, seed=seed, pronoun_det=pronoun_det,
                         unit=unit.value,
                         command=shlex.join(["arcwise", *sys.argv[1:]]))
        if output is not None:
            page = write_report(result, output)
        if as_json:
            print(json.dumps(result.to_dict(), indent=1))
        else:
            console = Console()
            if not console.is_terminal:
                console = Console(width=200)  # a file or a pipe: wide tables, not wrapped cells
            print_analysis(console, result)
            if output is not None:
                Console(stderr=True).print(f"report: {escape(str(page))}", highlight=False)


def _inputs(files: list[str], gold: str | None, sys_files: list[str]):
    """Gold files, each system's files and default names from either calling form."""
    if gold is not None:
        if files:
            raise ArcwiseError("give either GOLD SYS ... or --gold/--sys, not both")
        if not sys_files:
            raise ArcwiseError("--gold needs at least one --sys")
        return gold.split(","), [s.split(",") for s in sys_files], list(sys_files)
    if sys_files:
        raise ArcwiseError("--sys goes with --gold")
    if len(files) < 2:
        raise ArcwiseError("give a gold file and at least one system output")
    return [files[0]], [[f] for f in files[1:]], files[1:]


def print_analysis(console: Console, analysis) -> None:
    meta = analysis.meta
    metric = "LAS" if meta["labeled"] else "UAS"
    console.print(f"{meta['sentences']} sentences, {meta['words']} words; "
                  f"{'labeled' if meta['labeled'] else 'unlabeled'}, punctuation {meta['punct']}d; "
                  f"p-values: {meta['significance']}, {meta['samples']} shuffles", highlight=False)
    totals = Table(title=f"{metric}", title_justify="left")
    for column in ("system", metric, "correct / words"):
        totals.add_column(column, justify="left" if column == "system" else "right")
    for name, t in analysis.totals().items():
        totals.add_row(escape(name), f"{t['score']:.2f}", f"{t['correct']} / {t['words']}")
    console.print(totals)
    names = analysis.records.names
    pairs = list(combinations(range(len(names)), 2))
    for result in analysis.factors:
        table = Table(title=f"{result.factor.name}: {result.factor.title}", title_justify="left")
        table.add_column("bin")
        table.add_column("gold" if result.factor.kind == "arcs" else "words", justify="right")
        for name in names:
            table.add_column(escape(name) + (" P / R" if result.factor.kind == "arcs" else ""),
                             justify="right")
        for a, b in pairs:
            table.add_column(f"p {escape(names[a])}-{escape(names[b])}", justify="right")
        values = [result.value(m) for m in result.metrics]
        total = result.counts["gold" if result.factor.kind == "arcs" else "words"][0]
        for j, bin_name in enumerate(result.bins):
            row = [escape(bin_name), str(total[j])]
            row += [" / ".join(f"{v[s, j]:.1f}" for v in values) for s in range(len(names))]
            for pair in pairs:
                p = result.p_values.get(pair)
                row.append(" / ".join(_p(p[m][j]) for m in result.metrics) if p else "-")
            table.add_row(*row)
        console.print(table)
    for name, rows in analysis.confusions.items():
        table = Table(title=f"{name}: most frequent label confusions", title_justify="left")
        for column in ("gold", "predicted", "words", "right head"):
            table.add_column(column, justify="left" if column in ("gold", "predicted") else "right")
        for r in rows[:10]:
            table.add_row(escape(r["gold"]), escape(r["predicted"]), str(r["count"]),
                          str(r["head_correct"]))
        console.print(table)
    for name, rows in analysis.transitions.items():
        table = Table(title=f"{name}: labeled precision of the arcs built by each transition",
                      title_justify="left")
        for column in ("transition", "precision", "correct / arcs"):
            table.add_column(column, justify="left" if column == "transition" else "right")
        for t, r in rows.items():
            table.add_row(escape(t), f"{r['precision']:.2f}", f"{r['correct']} / {r['arcs']}")
        console.print(table)
    for name, r in analysis.nonmonotonicity.items():
        console.print(f"{escape(name)}: {r['nonmonotonic_share']:.2f}% of {r['arc_transitions']} "
                      f"arc transitions non-monotonic; of those {r['created_gold_share']:.2f}% "
                      f"created a gold arc, {r['harmful_share']:.2f}% were harmful",
                      highlight=False)


def _p(p: float) -> str:
    if p != p:  # NaN: not tested, a system has nothing in the bin
        return "-"
    text = "<0.001" if p < 0.001 else f"{p:.3f}"
    return f"[bold]{text}*[/bold]" if p < 0.05 else text
