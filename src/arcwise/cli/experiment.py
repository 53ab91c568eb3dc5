"""`arcwise experiment`: run a grid of training runs and report its contrasts."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import typer

from arcwise.core.errors import ArcwiseError


def register(app: typer.Typer) -> None:
    @app.command("experiment")
    def experiment_command(
        grid_path: Path = typer.Argument(..., metavar="GRID.toml",
                                         help="The grid: treebanks, configurations, seeds, "
                                              "contrasts (see experiments/*.toml)."),
        data: Path | None = typer.Option(None, "--data", metavar="DIR",
                                         help="Data root holding the grid's treebank folders "
                                              "(overrides the grid's `data`)."),
        workers: int | None = typer.Option(None, "--workers", "-j", min=1,
                                           help="Local worker processes, one cell each "
                                                "[default: 2]."),
        dask: str | None = typer.Option(None, "--dask", metavar="ADDRESS",
                                        help="Run the cells on this Dask scheduler "
                                             "(tcp://host:8786) instead of locally."),
        resume: bool = typer.Option(True, "--resume/--rerun",
                                    help="Skip the cells already finished in RESULTS_DIR, or "
                                         "train them again."),
        allow_dirty: bool = typer.Option(False, "--allow-dirty",
                                         help="Train even when the arcwise source has "
                                              "uncommitted changes (cells are marked dirty)."),
        treebanks: str | None = typer.Option(None, "--treebanks", metavar="A,B",
                                             help="Train only these treebanks of the grid."),
        other_treebanks: str | None = typer.Option(
            None, "--other-treebanks", metavar="A,B|all",
            help="Run the grid unchanged on these treebank folders of the data root instead "
                 "of its own (all: every folder with train, dev and test files)."),
        configurations: str | None = typer.Option(
            None, "--configurations", metavar="PATTERN,...",
            help="Train only these configurations (names or patterns like 'covington*')."),
        seeds: str | None = typer.Option(None, "--seeds", metavar="1,2",
                                         help="Train only these seeds of the grid."),
        device: str = typer.Option(
            "cpu", "--device", metavar="cpu|cuda|cuda:N|auto",
            help="Where the cells' neural networks train (the local workers and Dask "
                 "workers alike); the perceptron and graph-based models run on the CPU."),
        output: str | None = typer.Option(None, "--output", "-o", metavar="RESULTS_DIR",
                                           help="Folder of the cell results (KEY.json) and the "
                                                "report GRID.md [default: results/GRID]."),
    ) -> None:
        """Train, parse and score every treebank x configuration x seed of a grid (each cell
        in its own process; finished cells are kept and skipped on the next run), then print
        one table per contrast with significance and write them as Markdown.  --treebanks,
        --configurations and --seeds train a part of the grid; the report covers all of it.
        --other-treebanks runs the same grid on treebanks it does not name (held-out
        languages): `--data DIR --other-treebanks all`.  Each cell records the device its
        networks trained on (--device)."""
        from rich.console import Console

        from arcwise.core.device import use_device
        from arcwise.experiments import grid as grids
        from arcwise.experiments import report
        from arcwise.experiments.cells import selection
        from arcwise.experiments.run import run_grid
        from arcwise.experiments.runners import WorkerDied
        from arcwise.io.atomic import atomic_write, check_output, made_folder

        if output is not None:  # cells are written into the folder, which holds no input
            check_output(output, [], folder=True)
        if workers is not None and dask is not None:
            raise ArcwiseError("give --workers or --dask, not both")
        use_device(device)  # before any worker starts: they inherit it
        grid = grids.load(grid_path, data)

        def split(text: str | None) -> list[str] | None:
            return [x.strip() for x in text.split(",") if x.strip()] if text else None

        if other_treebanks is not None:
            grid = grids.on_treebanks(grid, split(other_treebanks) or [])

        try:
            seed_list = [int(s) for s in split(seeds)] if seeds else None
        except ValueError:
            raise ArcwiseError(f"--seeds takes integers, not {seeds!r}") from None
        select = selection(grid, split(treebanks), split(configurations), seed_list) \
            if treebanks or configurations or seeds else None
        results_dir = Path(output) if output is not None else Path("results") / grid.name
        err = Console(stderr=True, highlight=False, soft_wrap=True)
        command = shlex.join(["arcwise", "experiment", *sys.argv[2:]]) \
            if len(sys.argv) > 1 and sys.argv[1] == "experiment" else None
        total = len(grid.treebanks) * len(grid.configurations) * len(grid.seeds)

        def on_start(todo, cached: int) -> None:
            where = f"Dask at {dask}" if dask else f"{min(workers or 2, max(len(todo), 1))} " \
                                                    "local processes"
            err.print(f"{grid.name}: {len(todo)} cells to train on {where}, {cached} finished "
                      f"in {results_dir}")

        def on_result(result: dict) -> None:
            cell = result["cell"]
            err.print(f"  {cell['treebank']} {cell['config']['name']} seed {cell['seed']}: "
                      f"test UAS {result['test']['uas']:.2f} LAS {result['test']['las']:.2f} "
                      f"({result['train_seconds']:.0f} s)")

        try:
            outcome = run_grid(grid, results_dir, workers=workers or 2, dask=dask,
                               rerun=not resume, allow_dirty=allow_dirty, select=select,
                               on_start=on_start, on_result=on_result)
        except (KeyboardInterrupt, WorkerDied) as error:
            from arcwise.experiments.cells import load_results

            done = load_results(results_dir) if results_dir.is_dir() else {}
            what = "interrupted" if isinstance(error, KeyboardInterrupt) else str(error)
            raise ArcwiseError(f"{what}; {len(done)} finished cells are kept in "
                               f"{results_dir}: run the same command to resume") from None
        except OSError as error:  # e.g. no Dask scheduler at the address
            raise ArcwiseError(f"cannot run the cells: {error}") from None
        try:
            sections = report.sections(grid, outcome.results)
        except KeyboardInterrupt:
            raise ArcwiseError(f"interrupted; every finished cell is kept in {results_dir}") \
                from None
        console = Console(highlight=False, width=None if sys.stdout.isatty() else 160)
        for overview, contrasts, _ in sections:
            if overview is not None:
                console.print(overview.rich())
            for contrast in contrasts:
                console.print(contrast.rich())
        path = made_folder(results_dir) / f"{grid.name}.md"
        with atomic_write(path) as out:
            out.write(report.markdown(grid, outcome.results, total, command, computed=sections))
        err.print(f"wrote {path} ({len(outcome.results)} of {total} cells, "
                  f"{len(outcome.trained)} trained now)")
        for error in outcome.errors:
            err.print(f"failed: {error}")
        if outcome.errors:  # 2: the data or options are at fault, 1: something crashed
            raise typer.Exit(2 if all(e.user for e in outcome.errors) else 1)
