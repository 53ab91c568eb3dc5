"""bench/RESULTS.md, assembled from one section per bench script.

Each script that reports results writes its section to ``results/NAME.md``
beside RESULTS.md (``bench/results/NAME.md``) with `write_section`, which then
rebuilds RESULTS.md from every section present, in the order of `SECTIONS`:
rerunning one benchmark never loses another's figures.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
RESULTS_MD = BENCH / "RESULTS.md"
SECTIONS = {  # name: the script that writes it
    "accuracy": "bench/accuracy.py",
    "loss-bounds": "bench/loss_bounds.py",  # beside the 2017 paper's Table 3 in accuracy
    "speed": "bench/speed.py",
    "compile-times": "bench/compile_times.py",
    "mst": "bench/mst_train.py",
    "combination": "bench/combination.py",
    "stacking": "bench/stacking.py",
    "stacking-neural": "bench/stacking.py --model neural",
    "analysis": "bench/analysis.py",
    "neural": "bench/neural.py",
    "gpu-check": "bench/gpu_check.py --report-from LOG",
    "pipeline": "bench/pipeline.py",
    "corpus": "bench/corpus.py",
    "taggers": "bench/taggers.py",
    "embeddings": "bench/embeddings.py",
    "serve": "bench/serve.py",
    "viewer": "bench/viewer.py",
    "model-size": "bench/model_size.py",
    "clean-install": "bench/clean_install.py",
}
TITLE = "# arcwise: benchmark results"


def sections_dir(results_md: Path) -> Path:
    """Where the sections of a RESULTS.md file live."""
    return Path(results_md).parent / "results"


def keep(result: dict, results_dir: Path, name: str) -> list[dict]:
    """Write one kept result to results_dir/NAME.json (atomically); every kept result there,
    in file-name order."""
    import json

    from arcwise.io.atomic import atomic_write

    results_dir.mkdir(parents=True, exist_ok=True)
    with atomic_write(results_dir / f"{name}.json") as f:
        f.write(json.dumps(result, indent=1) + "\n")
    return [json.loads(path.read_text()) for path in sorted(results_dir.glob("*.json"))]


def write_section(name: str, text: str, results_md: Path = RESULTS_MD) -> None:
    """Replace section `name` (Markdown starting with a ``##`` heading) and rebuild RESULTS.md."""
    from arcwise.io.atomic import atomic_write

    if name not in SECTIONS:
        raise ValueError(f"unknown section {name!r}: one of {', '.join(SECTIONS)}")
    sections = sections_dir(results_md)
    sections.mkdir(parents=True, exist_ok=True)
    with atomic_write(sections / f"{name}.md") as f:
        f.write(text.rstrip() + "\n")
    rebuild(results_md)


def write_bench_section(name: str, heading: str, setting: str, body: list[str], script: str,
                        argv: list[str] | None) -> None:
    """Write section `name`: its heading, the setting in a paragraph, the body's lines, the
    command that ran (`script` and its arguments: argv, else the process's) and
    `provenance`."""
    command = " ".join([script, *(sys.argv[1:] if argv is None else argv)])
    write_section(name, "\n".join([heading, "", setting, "", *body, "",
                                    f"- Command: `{command}`", f"- {provenance()}"]))


def notes(name: str, results_md: Path = RESULTS_MD) -> list[str]:
    """The lines of results/NAME-notes.md beside RESULTS.md (what a grid's figures mean,
    written by hand after the run), after a blank line; none if there is no such file."""
    path = sections_dir(results_md) / f"{name}-notes.md"
    return ["", path.read_text().strip()] if path.exists() else []


def grid_report(grid_path: Path, results_dir: Path, *, on: str | None = None, level: int = 3,
                cells_table: bool = True) -> tuple[str, list[dict]]:
    """The Markdown report of an `arcwise experiment` grid from its finished cells in
    results_dir, and those cells ("" and [] if none).  on: the grid ran on other treebanks
    (--other-treebanks), those of its cells, described by `on` in the title."""
    import dataclasses

    from arcwise.experiments import grid as grids
    from arcwise.experiments import report as grid_report_of
    from arcwise.experiments.cells import load_results
    from arcwise.experiments.run import finished

    grid = grids.load(grid_path, None)
    if on is not None:  # its treebanks and configurations: those of its cells
        cells = load_results(results_dir) if results_dir.is_dir() else {}
        ran = {r["cell"]["config"]["name"] for r in cells.values()}
        choices = tuple(c for c in grid.choices if ran.issuperset(c.candidates))
        named = ran | {c.name for c in choices}
        tables = tuple(dataclasses.replace(
            t, columns=tuple(c for c in t.columns if c[1] in named),
            arc_shares=tuple(a for a in t.arc_shares if a[1] in ran)) for t in grid.tables)
        grid = dataclasses.replace(
            grid, treebanks=tuple(sorted({r["cell"]["treebank"] for r in cells.values()})),
            title=f"{grid.title}, {on}",
            configurations=tuple(c for c in grid.configurations if c.name in ran),
            choices=choices, tables=tuple(t for t in tables if t.columns),
            contrasts=tuple(c for c in grid.contrasts if {c.a, c.b} <= named))
    results = finished(grid, results_dir) if results_dir.exists() else []
    if not results:
        return "", []
    total = len(grid.treebanks) * len(grid.configurations) * len(grid.seeds)
    text = grid_report_of.markdown(grid, results, total, level=level, cells_table=cells_table)
    return text.rstrip(), results


SECTIONS_START = "<!-- the sections -->"


def rebuild(results_md: Path = RESULTS_MD) -> None:
    """Write RESULTS.md from the sections in results/ beside it."""
    from arcwise.io.atomic import atomic_write

    sections = sections_dir(results_md)
    present = [n for n in SECTIONS if (sections / f"{n}.md").exists()]
    out = [TITLE, "",
           "Every figure below was measured by the script named in its section, with the "
           "command given there; each section is kept in `bench/results/NAME.md` and this "
           "file is rebuilt whenever one of them is rewritten.", ""]
    out += [f"- [{n}](#{n}): `{SECTIONS[n]}`" for n in present]
    out += ["", SECTIONS_START]  # where the documentation's Results page starts including
    for n in present:
        out += ["", f'<a id="{n}"></a>', "", (sections / f"{n}.md").read_text().rstrip()]
    with atomic_write(results_md) as f:
        f.write("\n".join(out) + "\n")


def machine() -> str:
    """Host name, CPU model and count, OS."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{platform.node()}: {model}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}"


def git_revision() -> str:
    """The checked-out commit, marked when the code that makes the figures (the package
    source, `pyproject.toml` or the bench scripts) differs from it; results, notes and
    RESULTS.md itself may change without marking a figure."""
    code = ["src", "pyproject.toml", "bench", ":(exclude)bench/results", ":(exclude)bench/*.md"]
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=BENCH, text=True,
                              capture_output=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", *code], cwd=BENCH.parent,
                               text=True, capture_output=True).stdout.strip()
        return head + (" + uncommitted changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def load_average() -> list[float]:
    """The load averages over 1, 5 and 15 minutes, to a tenth: how shared the cores were."""
    return [round(x, 1) for x in os.getloadavg()]


def provenance() -> str:
    """One line: date, machine, versions of arcwise (git), numba and Python."""
    import numba

    import arcwise

    return (f"Date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; machine: {machine()}; "
            f"arcwise {arcwise.__version__} (git {git_revision()}), numba {numba.__version__}, "
            f"Python {platform.python_version()}.")
