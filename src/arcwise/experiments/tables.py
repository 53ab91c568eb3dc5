"""Tables of a grid's results: overviews (mean over seeds) and contrasts with significance.

A contrast asks whether configuration A beats configuration B.  Per
treebank it pairs the seeds both have, and gives A's and B's mean test score
over those seeds, the difference, and the p-value of a paired stratified
shuffling test (`arcwise.eval.significance.stratified_shuffle`, two-sided)
over the (seed, sentence) pairs: each shuffle swaps A's and B's output of a
sentence under one seed with probability 1/2, so the statistic is the summed
difference of correct words over the seeds, i.e. the mean difference.  Over
the treebanks it counts A's wins and averages the differences.  Cells
without per-sentence counts (format 1, from before the package took the
runner over) get no p-value.

A choice (`grid.Choice`) stands, on each treebank, for the candidate
configuration with the best mean dev (or test) score over the seeds every
candidate has: `chosen` gives its cells under the choice's name, so that
contrasts and overviews treat it like any configuration.

A `Rendered` table (title, header, rows, notes) is printed with rich or
written as Markdown.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from arcwise.eval.significance import stratified_shuffle
from arcwise.experiments.grid import Choice, Contrast

METRICS = ("uas", "las")
COUNT_FIELDS = {"uas": "head", "las": "labeled"}
SAMPLES = 10_000
MARKS = ((0.01, "**"), (0.05, "*"))  # p below: mark
_NUMBER = re.compile(r"^(|–|[-+]?[\d,]*\.?\d+( \(\d+\))?\**)$")  # 1,234 -0.50 84.20 (3) 0.01**


def score(result: dict[str, Any], metric: str) -> float:
    """A cell's test UAS or LAS, exact from its counts where it has them."""
    counts = result.get("counts")
    if counts:
        return 100.0 * sum(counts[COUNT_FIELDS[metric]]) / max(sum(counts["scored"]), 1)
    return float(result["test"][metric])


def by_cell(results: Iterable[dict[str, Any]]) -> dict[tuple[str, str], dict[int, dict]]:
    """(treebank, configuration name) -> seed -> result."""
    cells: dict[tuple[str, str], dict[int, dict]] = {}
    for r in results:
        cell = r["cell"]
        cells.setdefault((cell["treebank"], cell["config"]["name"]), {})[cell["seed"]] = r
    return cells


def split_score(result: dict[str, Any], split: str, metric: str) -> float | None:
    """A cell's dev or test UAS or LAS (None: the cell has no dev score)."""
    if split == "test":
        return score(result, metric)
    value = result.get("dev", {}).get(metric)
    return None if value is None else float(value)


@dataclass(frozen=True)
class Chosen:
    """A choice on one treebank: the candidates' mean scores on the choice's split over the
    common seeds, and the candidate chosen (the best; the first of equals)."""

    treebank: str
    seeds: tuple[int, ...]
    scores: dict[str, float]  # candidate -> mean score on the choice's split
    candidate: str


def choose(choice: Choice, results: Iterable[dict[str, Any]], treebanks: Sequence[str]
           ) -> list[Chosen]:
    """The choice on each treebank where every candidate has a seed in common and a score
    on the choice's split, in the order of `treebanks`."""
    cells = by_cell(results)
    out = []
    for t in treebanks:
        runs = [cells.get((t, c), {}) for c in choice.candidates]
        seeds = tuple(sorted(set.intersection(*(set(r) for r in runs))))
        values = {c: [split_score(r[s], choice.by, choice.metric) for s in seeds]
                  for c, r in zip(choice.candidates, runs)}
        if not seeds or any(v is None for vs in values.values() for v in vs):
            continue
        means = {c: statistics.mean(vs) for c, vs in values.items()}
        best = max(choice.candidates, key=lambda c: means[c])  # the first of equals
        out.append(Chosen(t, seeds, means, best))
    return out


def chosen(choices: Iterable[Choice], results: Sequence[dict[str, Any]],
           treebanks: Sequence[str]) -> list[dict[str, Any]]:
    """The cells each choice stands for: the chosen candidate's cells (common seeds) under
    the choice's name, with `chosen` naming the candidate."""
    cells = by_cell(results)
    out = []
    for choice in choices:
        for pick in choose(choice, results, treebanks):
            for seed in pick.seeds:
                r = cells[(pick.treebank, pick.candidate)][seed]
                cell = {**r["cell"], "config": {**r["cell"]["config"], "name": choice.name}}
                out.append({**r, "cell": cell, "chosen": pick.candidate})
    return out


def mark(p: float | None) -> str:
    """The significance mark of a p-value: ** below 0.01, * below 0.05."""
    return next((m for limit, m in MARKS if p is not None and p < limit), "")


@dataclass(frozen=True)
class ContrastRow:
    """A vs B on one treebank: means over the seeds both have, their difference, p-values."""

    treebank: str
    seeds: tuple[int, ...]
    a: dict[str, float]
    b: dict[str, float]
    p: dict[str, float | None]

    def difference(self, metric: str) -> float:
        return self.a[metric] - self.b[metric]


@dataclass(frozen=True)
class ContrastResult:
    """A contrast over the treebanks where both configurations have a common seed."""

    contrast: Contrast
    rows: tuple[ContrastRow, ...]

    def wins(self, metric: str) -> int:
        """On how many treebanks A's mean beats B's."""
        return sum(r.difference(metric) > 0 for r in self.rows)

    def significant_wins(self, metric: str, level: float = 0.05) -> int:
        return sum(r.difference(metric) > 0 and r.p[metric] is not None and r.p[metric] < level
                   for r in self.rows)

    def mean_difference(self, metric: str) -> float:
        return statistics.mean(r.difference(metric) for r in self.rows)

    def mean(self, side: str, metric: str) -> float:
        return statistics.mean(getattr(r, side)[metric] for r in self.rows)


def contrast(contrast: Contrast, results: Iterable[dict[str, Any]], treebanks: Sequence[str],
             samples: int = SAMPLES) -> ContrastResult:
    """The rows of a contrast, in the order of `treebanks`."""
    cells = by_cell(results)
    rows = []
    for t in treebanks:
        a, b = cells.get((t, contrast.a), {}), cells.get((t, contrast.b), {})
        seeds = tuple(sorted(a.keys() & b.keys()))
        if not seeds:
            continue
        means = {side: {m: statistics.mean(score(runs[s], m) for s in seeds) for m in METRICS}
                 for side, runs in (("a", a), ("b", b))}
        p = {m: _p_value([a[s] for s in seeds], [b[s] for s in seeds], m, samples)
             for m in METRICS}
        rows.append(ContrastRow(t, seeds, means["a"], means["b"], p))
    return ContrastResult(contrast, tuple(rows))


def _p_value(a: list[dict], b: list[dict], metric: str, samples: int) -> float | None:
    """Stratified shuffling over the (seed, sentence) pairs; None without counts."""
    if not all(r.get("counts") for r in (*a, *b)):
        return None
    field = COUNT_FIELDS[metric]
    for ra, rb in zip(a, b):
        if ra["counts"]["scored"] != rb["counts"]["scored"]:
            return None  # not the same test sentences
    correct_a = np.concatenate([np.asarray(r["counts"][field], dtype=np.int64) for r in a])
    correct_b = np.concatenate([np.asarray(r["counts"][field], dtype=np.int64) for r in b])
    return stratified_shuffle(correct_a, correct_b, samples=samples, seed=0)


# --- rendering ---------------------------------------------------------------


@dataclass(frozen=True)
class Rendered:
    """A table ready to print: title, header, rows of cells (strings), notes below."""

    title: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    notes: tuple[str, ...] = field(default=())

    def numeric(self, column: int) -> bool:
        """Does the column hold figures (right-aligned)?"""
        return column > 0 and all(_NUMBER.match(row[column]) for row in self.rows)

    def markdown(self) -> str:
        align = ["--:" if self.numeric(k) else "---" for k in range(len(self.header))]
        lines = ["| " + " | ".join(self.header) + " |", "|" + "|".join(align) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in self.rows]
        if self.notes:
            lines += ["", *self.notes]
        return "\n".join(lines)

    def rich(self):
        from rich.table import Table

        table = Table(title=self.title, caption="\n".join(self.notes) or None,
                      caption_justify="left")
        for k, h in enumerate(self.header):
            table.add_column(h, justify="right" if self.numeric(k) else "left",
                             no_wrap=k == 0)
        for row in self.rows:
            table.add_row(*(cell.strip("*") if cell.startswith("**") else cell for cell in row))
        return table


def _fmt(value: float | None, sign: bool = False) -> str:
    if value is None:
        return "–"
    return f"{value:+.2f}" if sign else f"{value:.2f}"


def _fmt_p(p: float | None) -> str:
    return "–" if p is None else f"{p:.4f}{mark(p)}"


def render_contrast(result: ContrastResult) -> Rendered:
    """One row per treebank (means over common seeds), the mean row, the pattern below."""
    a, b = result.contrast.a, result.contrast.b
    header = ["treebank", "seeds"]
    for m in METRICS:
        header += [f"A {m.upper()}", f"B {m.upper()}", f"Δ {m.upper()}", "p"]
    rows = []
    for r in result.rows:
        row = [r.treebank, str(len(r.seeds))]
        for m in METRICS:
            row += [_fmt(r.a[m]), _fmt(r.b[m]), _fmt(r.difference(m), sign=True), _fmt_p(r.p[m])]
        rows.append(tuple(row))
    notes = [f"A = `{a}`, B = `{b}`; mean test scores over the seeds both have; p: paired "
             "stratified shuffling over (seed, sentence) pairs, two-sided, "
             f"{SAMPLES:,} shuffles (* p < 0.05, ** p < 0.01; – no per-sentence counts)."]
    if result.rows:
        row = ["**mean**", ""]
        for m in METRICS:
            row += [_fmt(result.mean("a", m)), _fmt(result.mean("b", m)),
                    _fmt(result.mean_difference(m), sign=True), ""]
        rows.append(tuple(row))
        n = len(result.rows)
        def significant(m: str) -> str:
            if all(r.p[m] is None for r in result.rows):
                return "no p-values"
            return f"{result.significant_wins(m)} significant"

        notes.append(f"`{a}` beats `{b}`: " + "; ".join(
            f"{m.upper()} on {result.wins(m)} of {n} ({significant(m)}), "
            f"mean {result.mean_difference(m):+.2f}" for m in METRICS))
    else:
        notes.append("No treebank has results of both yet.")
    return Rendered(f"{a} vs {b}", tuple(header), tuple(rows), tuple(notes))


def render_choice(choice: Choice, results: Iterable[dict[str, Any]],
                  treebanks: Sequence[str]) -> Rendered:
    """Per treebank: each candidate's mean score on the choice's split, the one chosen, and
    its mean test UAS and LAS (over the seeds every candidate has)."""
    results = list(results)
    picks = choose(choice, results, treebanks)
    cells = by_cell(results)
    split = f"{choice.by} {choice.metric.upper()}"
    header = ["treebank", "seeds", *(f"{c} {split}" for c in choice.candidates), "chosen",
              "test UAS", "test LAS"]
    rows = []
    for pick in picks:
        runs = cells[(pick.treebank, pick.candidate)]
        test = [_fmt(statistics.mean(score(runs[s], m) for s in pick.seeds)) for m in METRICS]
        rows.append((pick.treebank, str(len(pick.seeds)),
                     *(_fmt(pick.scores[c]) for c in choice.candidates), f"`{pick.candidate}`",
                     *test))
    counts = {c: sum(p.candidate == c for p in picks) for c in choice.candidates}
    notes = [f"`{choice.name}`: per treebank, the candidate with the best mean {split} over "
             "the seeds every candidate has (the first of equals)"
             + ("" if choice.by == "dev" else ": chosen on test, an upper bound, not a result")
             + "."]
    if picks:
        notes.append("Chosen: " + ", ".join(f"`{c}` on {n}" for c, n in counts.items())
                     + f" of {len(picks)} treebanks.")
    else:
        notes.append("No treebank has results of every candidate yet.")
    return Rendered(f"{choice.name}: the best of {', '.join(choice.candidates)} per treebank, "
                    f"chosen on {split}", tuple(header), tuple(rows), tuple(notes))


def treebank_statistic(results: Iterable[dict[str, Any]], treebank: str, key: str
                       ) -> float | None:
    """A statistic of a treebank's training data, from the first of its cells that has them."""
    for r in results:
        if r["cell"]["treebank"] == treebank and r.get("train_statistics"):
            return float(r["train_statistics"][key])
    return None


def arc_share(runs: dict[int, dict[str, Any]], transition: str) -> float | None:
    """The percentage of arcs `transition` builds in the static oracle's derivations of the
    training trees (from the first of a configuration's cells on a treebank that has them)."""
    for r in runs.values():
        arcs = r.get("static_arcs")
        if arcs:
            return 100.0 * arcs.get(transition, 0) / max(sum(arcs.values()), 1)
    return None


def render_overview(title: str, columns: Sequence[tuple[str, str]],
                    results: Iterable[dict[str, Any]], treebanks: Sequence[str],
                    statistics_columns: Sequence[tuple[str, str]] = (),
                    arc_shares: Sequence[tuple[str, str, str]] = ()) -> Rendered:
    """Mean test UAS and LAS over the seeds of each (treebank, column) and their averages;
    a count in parentheses: the column has fewer treebanks (or seeds) than the others.
    Then the treebank statistics of the training data ((header, key)) and the arc shares
    ((header, configuration, transition)) asked for, when the cells have them."""
    results = list(results)
    cells = by_cell(results)
    columns = [(h, c) for h, c in columns if any((t, c) in cells for t in treebanks)]
    shown = [t for t in treebanks if any((t, c) in cells for _, c in columns)]
    header = ["treebank"] + [x for h, _ in columns for x in (f"{h} UAS", "LAS")]
    header += [h for h, _ in statistics_columns] + [h for h, _, _ in arc_shares]
    means = {(t, c): {m: statistics.mean(score(r, m) for r in cells[(t, c)].values())
                      for m in METRICS}
             for t in shown for _, c in columns if (t, c) in cells}
    described = {t: [treebank_statistic(results, t, key) for _, key in statistics_columns]
                 + [arc_share(cells.get((t, c), {}), transition) for _, c, transition in arc_shares]
                 for t in shown}
    rows = [tuple([t] + [_fmt(means.get((t, c), {}).get(m)) for _, c in columns for m in METRICS]
                  + [_fmt(v) for v in described[t]])
            for t in shown]
    if shown:
        average = ["**average**"]
        for _, c in columns:
            have = [means[(t, c)] for t in shown if (t, c) in means]
            note = "" if len(have) == len(shown) else f" ({len(have)})"
            average += [_fmt(statistics.mean(s[m] for s in have)) + note for m in METRICS]
        for k in range(len(statistics_columns) + len(arc_shares)):
            have = [described[t][k] for t in shown if described[t][k] is not None]
            note = "" if len(have) in (0, len(shown)) else f" ({len(have)})"
            average.append(_fmt(statistics.mean(have) if have else None) + note)
        rows.append(tuple(average))
    seeds = {h: sorted({s for t in shown for s in cells.get((t, c), {})}) for h, c in columns}
    if not shown:
        notes = ("No results yet.",)
    elif len({tuple(s) for s in seeds.values()}) == 1:
        common = next(iter(seeds.values()))
        notes = (f"Mean test UAS / LAS over seeds {', '.join(map(str, common))}.",)
    else:
        notes = ("Mean test UAS / LAS over the seeds of each column: " + "; ".join(
            f"{h} {', '.join(map(str, s))}" for h, s in seeds.items()) + ".",)
    if shown and statistics_columns:
        notes += ("Training data: " + ", ".join(f"{h} = `{key}`" for h, key in statistics_columns)
                  + " (`arcwise stats`: % of the arcs between two words; L/R leftward/rightward,"
                  " 1 of length 1; 2012 paper, Table 2).",)
    if shown and arc_shares:
        notes += ("Arc shares: % of the arcs the static oracle builds with a transition in its "
                  "derivations of the training trees the system can build: " + ", ".join(
                      f"{h} = `{t}` in `{c}`" for h, c, t in arc_shares) + ".",)
    return Rendered(title, tuple(header), tuple(rows), notes)
