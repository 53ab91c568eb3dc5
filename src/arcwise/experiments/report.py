"""A grid's report: its overview tables, its contrasts, the papers' tables beside ours.

The layout follows the grid: each ``[[tables]]`` entry (or, without any,
one table of every configuration) is followed by how the choices among its
columns chose, by the contrasts between its columns and by the paper table
it names; choices and contrasts not shown under a table follow, each
contrast with its paper table if not quoted yet; then every cell.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from arcwise.experiments import tables
from arcwise.experiments.grid import Grid, Table


def sections(grid: Grid, results: list[dict[str, Any]]
             ) -> list[tuple[tables.Rendered | None, list[tables.Rendered], list[str]]]:
    """(overview, its choices and contrasts, the papers' tables to quote) in the grid's
    order; the choices and contrasts under no overview come last, one each, with None for
    the overview.  Each paper table is quoted once, after the first overview or contrast
    that names it."""
    layout = grid.tables or (Table(grid.title, tuple((c.name, c.name)
                                                     for c in grid.configurations)),)
    results = list(results) + tables.chosen(grid.choices, results, grid.treebanks)
    placed: set[int] = set()
    shown: set[str] = set()
    quoted: set[str] = set()

    def choices_in(names: set[str]) -> list[tables.Rendered]:
        mine = [c for c in grid.choices if c.name in names and c.name not in shown]
        shown.update(c.name for c in mine)
        return [tables.render_choice(c, results, grid.treebanks) for c in mine]

    def quote(*keys: str | None) -> list[str]:
        new = [k for k in dict.fromkeys(keys) if k and k not in quoted]
        quoted.update(new)
        return [grid.papers[k] for k in new]

    def render(k: int) -> tables.Rendered:
        placed.add(k)
        return tables.render_contrast(tables.contrast(grid.contrasts[k], results,
                                                      grid.treebanks))

    out = []
    for table in layout:
        names = {c for _, c in table.columns}
        mine = [k for k, c in enumerate(grid.contrasts)
                if k not in placed and {c.a, c.b} <= names]
        out.append((tables.render_overview(table.title, table.columns, results, grid.treebanks,
                                           table.statistics, table.arc_shares),
                    choices_in(names) + [render(k) for k in mine],
                    quote(table.paper, *(grid.contrasts[k].paper for k in mine))))
    for choice in choices_in({c.name for c in grid.choices}):
        out.append((None, [choice], []))
    for k, contrast in enumerate(grid.contrasts):
        if k not in placed:
            out.append((None, [render(k)], quote(contrast.paper)))
    return out


def provenance(grid: Grid, results: list[dict[str, Any]], total_cells: int) -> list[str]:
    """Bullet lines: cells finished, when, at which revisions; the training and scoring setting."""
    lines = []
    if results:
        revisions = Counter((r["git"][:12] if r.get("git") else "not recorded")
                            + (" + uncommitted changes" if r.get("dirty") else "")
                            for r in results)
        lines.append(
            f"- {len(results)} of {total_cells} cells finished, between "
            f"{min(r['finished'] for r in results)} and {max(r['finished'] for r in results)}; "
            "git revision of the package source: "
            + ", ".join(f"{rev} ({n} cell{'s' * (n > 1)})"
                        for rev, n in sorted(revisions.items())) + ".")
        devices = Counter(r.get("device", "cpu") for r in results)
        if set(devices) != {"cpu"}:  # neural networks trained on a GPU: say which cells
            hosts = Counter(f"{r.get('device', 'cpu')} on {r.get('host', '?')}"
                            for r in results)
            lines.append("- Devices the networks were trained on: " + ", ".join(
                f"{where} ({n} cell{'s' * (n > 1)})" for where, n in sorted(hosts.items()))
                + ".")
    else:
        lines.append(f"- 0 of {total_cells} cells finished.")
    limits = ", ".join(f"first {n} {split} sentences" for split, n in grid.limits.items())
    lines += [
        "- Training: `arcwise.transition.train.train`, "
        + (f"{grid.epochs} epoch{'s' * (grid.epochs > 1)}, " if grid.epochs else
           "its default epochs (`arcwise.training.epochs.default_epochs`: a neural parser's by its "
           "updates), ")
        + f"the epoch with the best dev LAS kept; seeds {', '.join(map(str, grid.seeds))}; "
        f"{limits or 'all sentences'}.",
        "- Scoring: test split, gold tokenization, gold tags from the files, punctuation "
        "included, UAS and LAS (full DEPREL) by `arcwise.eval.metrics.evaluate`.",
    ]
    return lines


def every_cell(results: list[dict[str, Any]], order: list[str]) -> tables.Rendered:
    """One row per cell, by treebank, configuration (in `order`) and seed."""
    rank = {name: k for k, name in enumerate(order)}
    rows = []
    for r in sorted(results, key=lambda r: (r["cell"]["treebank"],
                                            rank.get(r["cell"]["config"]["name"], len(rank)),
                                            r["cell"]["seed"])):
        c = r["cell"]
        dev_las = r["dev"].get("las")
        transitions = r.get("transitions_per_sentence")  # the oracle's (cells since #43)
        rows.append((c["treebank"], c["config"]["name"], str(c["seed"]),
                     f"{tables.score(r, 'uas'):.2f}", f"{tables.score(r, 'las'):.2f}",
                     "–" if dev_las is None else f"{dev_las:.2f}", str(r["best_epoch"]),
                     f"{r['train_seconds']:.0f}", str(r["unbuildable"]), str(r["skipped"]),
                     f"{r['parse_sentences_per_second']:,.0f}",
                     "–" if transitions is None else f"{transitions:.1f}",
                     (r["git"] or "–")[:7] + (" dirty" if r.get("dirty") else "")))
    header = ("treebank", "configuration", "seed", "test UAS", "test LAS", "dev LAS",
              "best epoch", "train s", "unbuildable", "skipped", "parse sent/s",
              "transitions/sent.", "git")
    return tables.Rendered("Every cell", header, tuple(rows))


def markdown(grid: Grid, results: list[dict[str, Any]], total_cells: int,
             command: str | None = None, level: int = 2, cells_table: bool = True,
             computed: list | None = None) -> str:
    """The report of a grid as Markdown, headings from level `level`; `computed`: its
    `sections` if already computed (the significance tests take a while)."""
    h = "#" * level
    out = [f"{h} {grid.title}", ""]
    if command:
        out.append(f"- Command: `{command}` (a run trains only the cells not yet finished)")
    out += provenance(grid, results, total_cells)
    for overview, contrasts, papers in computed if computed is not None else sections(grid,
                                                                                         results):
        if overview is not None:
            out += ["", f"{h}# {overview.title}", "", overview.markdown()]
        for contrast in contrasts:
            out += ["", f"{h}{'#' if overview is None else '##'} {contrast.title}", "",
                    contrast.markdown()]
        for paper in papers:
            out += ["", paper.rstrip()]
    if cells_table:
        cells = every_cell(results, [c.name for c in grid.configurations])
        out += ["", f"{h}# {cells.title}", "", cells.markdown()]
    return "\n".join(out) + "\n"
