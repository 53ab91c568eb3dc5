"""Accuracy of the papers' configurations: the grids under experiments/, run by
`arcwise.experiments`; writes the accuracy section of bench/RESULTS.md.

    .venv/bin/python bench/accuracy.py [--data DIR] [--grids GRID.toml,...]
        [--workers 2 | --dask SCHEDULER_ADDRESS] [--rerun] [--allow-dirty]
        [--results bench/results/accuracy] [--output bench/RESULTS.md]

Without --data nothing is trained: the section is rewritten from the finished
cells in --results.  With --data (the folder of the treebank folders, e.g.
../shared/data/ud) each grid's missing cells are trained first, as
`arcwise experiment GRID --data DIR -o RESULTS` would (one process per cell,
finished cells kept as JSON and skipped).  The section holds, per grid, its
tables with the paper's beside them and its contrasts with significance, then
every cell.  A grid's notes (bench/results/GRID-notes.md, what its figures mean, written by
hand) follow its report.  The cells of the grids in `RESULTS_OF` live in their own folders.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numba_cache
import report

BENCH = Path(__file__).resolve().parent
GRIDS = [BENCH.parent / "experiments" / f"{name}.toml"
         for name in ("covington-2017", "two-planar-2018", "buffer-2012", "buffer-2012-malt",
                      "arc-eager-nm", "covington-nl-2018")]
# grids whose cells live in a folder of their own, not in --results (they ran on their own)
RESULTS_OF = {name: BENCH / "results" / name for name in ("buffer-2012-malt", "covington-nl-2018")}
# grids run on other treebanks (--other-treebanks; reported, not trained, here): the grid, the
# folder of its cells, what the treebanks are, the commands that made them
ON_OTHER_TREEBANKS = [
    (BENCH.parent / "experiments" / "buffer-2012.toml",
     BENCH / "results" / "buffer-2012-function-heads",
     "on UD treebanks with adpositions and subordinators as heads (bench/function_heads.py)",
     "`bench/function_heads.py --data ../shared/data/ud --out FH --treebanks Italian-ParTUT,"
     "Swedish-LinES,Czech-CLTT,Portuguese-Bosque,Chinese-GSD`, then `arcwise experiment "
     "experiments/buffer-2012.toml --data FH --other-treebanks all --configurations "
     "'arc-eager:static,arc-eager+lba:static,arc-eager+rba:static' "
     "-o bench/results/buffer-2012-function-heads`"),
]


def section(grids: list, results: dict[str, list[dict]], command: str) -> str:
    """The accuracy section: the setting, each grid's report, every cell once."""
    from arcwise.experiments import report as grid_report

    every = {r["key"]: r for rs in results.values() for r in rs}
    out = [
        "## Accuracy of arcwise's greedy parsers",
        "",
        "Written by `bench/accuracy.py` from the grids under `experiments/` (each also runs alone: "
        "`arcwise experiment experiments/GRID.toml --data DIR`); the papers' figures are quoted "
        "under our tables. Papers and data differ: they used CoNLL-X/XI treebanks (and SVMs in "
        "2012, a BiLSTM in 2018); we use the UD treebanks in `../shared/data/ud` and an averaged "
        "perceptron, so compare patterns (which oracle or transition helps), not numbers.",
        "",
        f"- Command of the last run: `{command}` (a run trains only the cells not yet in "
        "`bench/results/accuracy`)",
        f"- {report.provenance()}",
        f"- {len(every)} distinct cells; cells from before the package took the runner over "
        "have no per-sentence counts, so their contrasts have no p-value (–).",
    ]
    for grid in grids:
        total = len(grid.treebanks) * len(grid.configurations) * len(grid.seeds)
        out += ["", grid_report.markdown(grid, results[grid.name], total, level=3,
                                         cells_table=False).rstrip(), *report.notes(grid.name)]
    for path, results_dir, on, commands in ON_OTHER_TREEBANKS:
        text, _ = report.grid_report(path, results_dir, on=on)
        if text:
            out += ["", text, "", f"- Commands: {commands}",
                    *report.notes(results_dir.name, results_dir.parent.parent / "RESULTS.md")]
    order = [c.name for g in grids for c in g.configurations]
    cells = grid_report.every_cell(list(every.values()), list(dict.fromkeys(order)))
    out += ["", f"### {cells.title}", "", cells.markdown()]
    return "\n".join(out)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, help="folder of the treebank folders; without it "
                    "nothing is trained")
    ap.add_argument("--grids", help="comma-separated grid files (default: the four papers')")
    ap.add_argument("--workers", type=int, default=2, help="local worker processes")
    ap.add_argument("--dask", metavar="SCHEDULER_ADDRESS", help="run the cells on this Dask "
                    "scheduler instead (workers need the treebank paths)")
    ap.add_argument("--rerun", action="store_true", help="train finished cells again")
    ap.add_argument("--allow-dirty", action="store_true",
                    help="train from a source tree with uncommitted changes (cells marked dirty)")
    ap.add_argument("--results", type=Path, default=BENCH / "results" / "accuracy",
                    help="folder of the cell results (JSON)")
    ap.add_argument("--output", type=Path, default=BENCH / "RESULTS.md")
    ap.add_argument("--numba-cache-dir", type=Path, default=BENCH.parent / "runs" / "numba-cache",
                    help="base of NUMBA_CACHE_DIR of the local workers unless already set (one "
                         "subfolder per source version)")
    args = ap.parse_args(argv)
    args.grids = ([Path(g.strip()) for g in args.grids.split(",") if g.strip()]
                  if args.grids else GRIDS)
    if args.workers < 1:
        ap.error("--workers must be at least 1")
    return args


def main(argv: list[str] | None = None) -> dict[str, list[dict]]:
    """Run (with --data) and report the grids; their finished results by grid name."""
    from arcwise.core.errors import ArcwiseError
    from arcwise.experiments import grid as grids_module
    from arcwise.experiments.run import finished, run_grid

    args = parse_args(argv)
    command = " ".join(["bench/accuracy.py", *(sys.argv[1:] if argv is None else argv)])
    try:
        grids = [grids_module.load(g, args.data) for g in args.grids]
        results = {}
        for grid in grids:
            results_dir = RESULTS_OF.get(grid.name, args.results)
            if args.data is None:
                results[grid.name] = finished(grid, results_dir)
                continue
            numba_cache.use_for_children(args.numba_cache_dir)
            outcome = run_grid(
                grid, results_dir, workers=args.workers, dask=args.dask, rerun=args.rerun,
                allow_dirty=args.allow_dirty,
                on_start=lambda todo, done, g=grid: print(
                    f"{g.name}: {len(todo)} cells to train, {done} finished", file=sys.stderr),
                on_result=lambda r: print(
                    f"  {r['key']}: test UAS {r['test']['uas']:.2f} LAS {r['test']['las']:.2f} "
                    f"({r['train_seconds']:.0f} s)", file=sys.stderr))
            for error in outcome.errors:
                print("failed:", error, file=sys.stderr)
            results[grid.name] = outcome.results
    except ArcwiseError as error:
        raise SystemExit(f"bench/accuracy.py: {error}") from None
    report.write_section("accuracy", section(grids, results, command), args.output)
    print(f"wrote {args.output}", file=sys.stderr)
    return results


if __name__ == "__main__":
    main()
