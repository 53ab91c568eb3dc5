"""The analysis as figures (matplotlib) and one self-contained HTML page.

`write_report(analysis, directory)` writes `index.html` (every figure as
inline SVG, every table, the command, the input files' SHA-256 and the
arcwise version), each figure as `<factor>.svg` and `<factor>.png`, and
`analysis.json` (the same object as `arcwise analyze --json`).  The folder is
written as a whole (`arcwise.io.atomic.atomic_directory`): an earlier report
there is replaced once the new one is complete, and stays as it was if
writing fails.

A figure looks like the 2011 paper's: one line per system, the bins on x,
accuracy (or precision, and recall beside it) on y.  A marker is filled
where the system differs significantly (p < 0.05) from at least one other
system in that bin; the strip under each panel has one row per pair of
systems with a dot at every significant bin; grey bars (right axis) count
the gold words or arcs of each bin.
"""

from __future__ import annotations

import html
import io
import json
import os
import re
from itertools import combinations
from pathlib import Path

import numpy as np

from arcwise.analysis.analyze import Analysis
from arcwise.analysis.factors import METRIC_COUNTS, FactorResult
from arcwise.core.errors import ArcwiseError
from arcwise.core.extras import required
from arcwise.io.atomic import atomic_directory, cannot_write

SIGNIFICANT = 0.05
_MARKERS = "osD^vP*Xh<>p"


def figure(result: FactorResult):
    """The matplotlib Figure of one factor; made without pyplot, so no backend is switched
    or needed (PNG renders with Agg, SVG with the SVG backend)."""
    from matplotlib.figure import Figure

    metrics = result.metrics
    pairs = list(combinations(range(len(result.names)), 2))
    bins = len(result.bins)
    width = min(16.0, max(5.5, 0.34 * bins + 2.5)) * len(metrics)
    fig = Figure(figsize=(width, 4.4 + 0.18 * len(pairs)), layout="constrained")
    grid = fig.add_gridspec(2, len(metrics), height_ratios=[6, 0.6 + 0.35 * max(len(pairs), 1)])
    x = np.arange(bins)
    for column, metric in enumerate(metrics):
        ax = fig.add_subplot(grid[0, column])
        strip = fig.add_subplot(grid[1, column], sharex=ax)
        # an empty bin has no value: a gap in the line, not a 0
        values = np.where(result.counts[METRIC_COUNTS[metric][1]] > 0, result.value(metric),
                          np.nan)
        total = result.counts["words" if metric == "accuracy" else "gold"][0]
        bars = ax.twinx()
        bars.bar(x, total, color="0.88", width=0.7, zorder=0)
        bars.set_ylabel("gold arcs" if metric != "accuracy" else "words", color="0.5")
        bars.tick_params(axis="y", colors="0.5")
        ax.set_zorder(bars.get_zorder() + 1)
        ax.patch.set_visible(False)
        for s, name in enumerate(result.names):
            significant = _significant_for(result, s, metric)
            style = "-" if result.factor.ordinal else "none"
            # categorical bins: systems side by side, so equal values stay visible
            at = x if result.factor.ordinal else x + 0.12 * (s - (len(result.names) - 1) / 2)
            line, = ax.plot(at, values[s], linestyle=style, marker=_MARKERS[s % len(_MARKERS)],
                            markerfacecolor="white", label=name)
            ax.plot(at[significant], values[s][significant], linestyle="none",
                    marker=_MARKERS[s % len(_MARKERS)], color=line.get_color())
        ax.set_ylabel(f"{metric} (%)")
        ax.set_title(metric.capitalize() if len(metrics) > 1 else result.factor.title,
                     fontsize="medium")
        ax.grid(axis="y", color="0.9")
        ax.legend(fontsize="small", loc="best")
        for row, (a, b) in enumerate(pairs):
            p = result.p_values.get((a, b), {}).get(metric)
            if p is not None:
                hits = np.flatnonzero(p < SIGNIFICANT)
                strip.plot(hits, np.full(len(hits), row), "k.", markersize=7)
        strip.set_ylim(-0.7, max(len(pairs), 1) - 0.3)
        strip.set_yticks(range(len(pairs)),
                         [f"{result.names[a]} vs {result.names[b]}" for a, b in pairs]
                         if pairs else [])
        strip.tick_params(axis="y", labelsize="x-small")
        strip.invert_yaxis()
        strip.set_xticks(x, result.bins, rotation=90 if bins > 12 or not result.factor.ordinal
                         else 0, fontsize="small")
        strip.set_xlabel(f"dots, filled markers: p < {SIGNIFICANT} (stratified shuffling)",
                         fontsize="x-small")
        ax.tick_params(axis="x", labelbottom=False)
        ax.set_xlim(-0.6, bins - 0.4)
    if len(metrics) > 1:
        fig.suptitle(result.factor.title)
    return fig


def _significant_for(result: FactorResult, system: int, metric: str) -> np.ndarray:
    hit = np.zeros(len(result.bins), dtype=bool)
    for (a, b), p in result.p_values.items():
        if system in (a, b):
            hit |= p[metric] < SIGNIFICANT
    return hit


def figure_files(result: FactorResult) -> tuple[str, bytes]:
    """SVG text and PNG bytes of a factor's figure."""
    fig = figure(result)
    svg, png = io.StringIO(), io.BytesIO()
    import matplotlib

    with matplotlib.rc_context({"svg.hashsalt": "arcwise"}):  # the same ids on every run
        fig.savefig(svg, format="svg", metadata={"Date": None})
    fig.savefig(png, format="png", dpi=110)
    return svg.getvalue(), png.getvalue()


# what a report folder holds: an existing folder holding anything else is not replaced
REPORT_FILE = re.compile(r"index\.html|analysis\.json|[a-z0-9_]+\.(svg|png)")


def check_replaceable(directory: str | os.PathLike) -> None:
    """ArcwiseError unless `directory` is new, empty or an earlier report: writing a report
    replaces the folder as a whole."""
    try:
        names = sorted(os.listdir(directory))
    except (FileNotFoundError, NotADirectoryError):  # new, or refused when it is written
        return
    except OSError as error:
        raise ArcwiseError(f"{directory}: cannot read: {error.strerror or error}") from None
    other = [name for name in names if not REPORT_FILE.fullmatch(name)]
    if other:
        raise ArcwiseError(f"{directory}: not an earlier report (it holds {other[0]}); a "
                           "report replaces its folder: give a new one")


def write_report(analysis: Analysis, directory: str | os.PathLike) -> Path:
    """Write index.html, <factor>.svg/.png and analysis.json as the folder `directory`
    (`check_replaceable`, then all at once: see the module docstring); return the page."""
    required("matplotlib", "report", "the report's figures")
    check_replaceable(directory)
    directory = Path(directory)
    data = analysis.to_dict()
    with atomic_directory(directory) as folder:

        def write(name: str, content: str | bytes) -> None:
            try:
                with open(folder / name, "wb") as f:
                    f.write(content.encode("utf-8") if isinstance(content, str) else content)
                    f.flush()
                    os.fsync(f.fileno())
            except OSError as error:  # named as the report's file
                raise cannot_write(str(directory / name), error) from None

        sections = []
        for result in analysis.factors:
            svg, png = figure_files(result)
            name = result.factor.name
            write(f"{name}.svg", svg)
            write(f"{name}.png", png)
            inline = svg[svg.index("<svg"):]
            sections.append(f'<section id="{name}"><h2>{html.escape(result.factor.title)}</h2>\n'
                            f'<div class="figure" data-factor="{name}">{inline}</div>\n'
                            f'{_factor_table(result)}</section>')
        sections.append(_confusions_section(analysis.confusions))
        if analysis.transitions:
            sections.append(_transitions_section(analysis.transitions, analysis.nonmonotonicity))
        write("analysis.json", json.dumps(data, indent=1) + "\n")
        write("index.html", _page(analysis, data, "\n".join(sections)))
    return directory / "index.html"


_STYLE = """
body{font-family:sans-serif;margin:1.5em;max-width:1300px;color:#222}
table{border-collapse:collapse;margin:.6em 0 1.6em;font-size:13px}
td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}
th{background:#f2f2f2} td:first-child,th:first-child{text-align:left}
.sig{font-weight:bold;color:#a00} .figure svg{max-width:100%;height:auto}
code{background:#f5f5f5;padding:1px 3px} .meta td{text-align:left}
"""


def _page(analysis: Analysis, data: dict, body: str) -> str:
    meta = data["meta"]
    rows = [("command", f"<code>{html.escape(meta['command'])}</code>"),
            ("arcwise version", html.escape(meta["arcwise_version"])),
            ("metric", ("labeled" if meta["labeled"] else "unlabeled") + " attachment; "
             f"punctuation {meta['punct']}d"),
            ("significance", html.escape(f"{meta['significance']}; {meta['samples']} shuffles, "
                                         f"seed {meta['seed']}")),
            ("data", f"{meta['sentences']} sentences, {meta['words']} words")]
    rows += [(f"sha256 {html.escape(path)}", f"<code>{digest}</code>")
             for path, digest in meta["sha256"].items()]
    totals = "".join(f"<tr><td>{html.escape(n)}</td><td>{t['score']:.2f}</td>"
                     f"<td>{t['correct']} / {t['words']}</td></tr>"
                     for n, t in data["totals"].items())
    metric = "LAS" if meta["labeled"] else "UAS"
    contents = " · ".join(f'<a href="#{f.factor.name}">{f.factor.name}</a>'
                          for f in analysis.factors)
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>arcwise error analysis</title><style>{_STYLE}</style></head><body>\n"
            f"<h1>Error analysis</h1>\n<table class=\"meta\">"
            + "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
            + f"</table>\n<table><tr><th>system</th><th>{metric}</th><th>correct / words</th>"
            f"</tr>{totals}</table>\n<p>{contents}</p>\n{body}\n</body></html>\n")


def _p_cell(p: float) -> str:
    if np.isnan(p):
        return "<td>-</td>"
    text = f"{p:.4f}"
    return f'<td class="sig">{text}</td>' if p < SIGNIFICANT else f"<td>{text}</td>"


def _factor_table(result: FactorResult) -> str:
    names = [html.escape(n) for n in result.names]
    pairs = list(combinations(range(len(names)), 2))
    short = {"accuracy": "acc.", "precision": "P", "recall": "R"}
    head = ["bin"]
    for metric in result.metrics:
        head += [f"{short[metric]} {n}" for n in names]
    head += [f"p {short[metric]} {names[a]} vs {names[b]}"
             for a, b in pairs for metric in result.metrics]
    out = ["<table><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for j, bin_name in enumerate(result.bins):
        cells = [f"<td>{html.escape(bin_name)}</td>"]
        for metric in result.metrics:
            values = result.value(metric)
            correct, total = METRIC_COUNTS[metric]
            cells += [f"<td>{values[s, j]:.2f} <small>({result.counts[correct][s, j]}/"
                      f"{result.counts[total][s, j]})</small></td>" for s in range(len(names))]
        for a, b in pairs:
            for metric in result.metrics:
                p = result.p_values.get((a, b), {}).get(metric)
                cells.append(_p_cell(float(p[j])) if p is not None else "<td>-</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def _confusions_section(confusions: dict) -> str:
    parts = ['<section id="label_confusions"><h2>Label confusions (most frequent)</h2>']
    for name, rows in confusions.items():
        parts.append(f"<h3>{html.escape(name)}</h3><table><tr><th>gold</th><th>predicted</th>"
                     "<th>words</th><th>of which right head</th></tr>")
        parts += [f"<tr><td>{html.escape(r['gold'])}</td><td>{html.escape(r['predicted'])}</td>"
                  f"<td>{r['count']}</td><td>{r['head_correct']}</td></tr>" for r in rows]
        parts.append("</table>")
    parts.append("</section>")
    return "\n".join(parts)


def _transitions_section(transitions: dict, nonmonotonic: dict) -> str:
    parts = ['<section id="transitions"><h2>Precision of the arcs built by each transition</h2>']
    for name, rows in transitions.items():
        parts.append(f"<h3>{html.escape(name)}</h3><table><tr><th>transition</th>"
                     "<th>precision</th><th>correct / arcs</th></tr>")
        parts += [f"<tr><td>{html.escape(t)}</td><td>{r['precision']:.2f}</td>"
                  f"<td>{r['correct']} / {r['arcs']}</td></tr>" for t, r in rows.items()]
        parts.append("</table>")
    if nonmonotonic:
        parts.append("<h2>Non-monotonic arc transitions (2017 §6.3)</h2><table><tr><th>system</th>"
                     "<th>arc transitions</th><th>non-monotonic</th><th>of which created a gold "
                     "arc</th><th>of which harmful</th></tr>")
        parts += [f"<tr><td>{html.escape(n)}</td><td>{r['arc_transitions']}</td>"
                  f"<td>{r['nonmonotonic_share']:.2f}% ({r['nonmonotonic']})</td>"
                  f"<td>{r['created_gold_share']:.2f}% ({r['created_gold']})</td>"
                  f"<td>{r['harmful_share']:.2f}% ({r['harmful']})</td></tr>"
                  for n, r in nonmonotonic.items()]
        parts.append("</table>")
    parts.append("</section>")
    return "\n".join(parts)
