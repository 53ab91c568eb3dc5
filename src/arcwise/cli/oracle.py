"""`arcwise oracle`: static-oracle coverage of a treebank."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from arcwise.core.errors import ArcwiseError


def register(app: typer.Typer) -> None:
    @app.command("oracle")
    def oracle_command(
        treebank: Path = typer.Argument(..., help="CoNLL-U or CoNLL-X file (.gz allowed)."),
        system: str = typer.Option(..., "--system", "-s", help="Transition system, e.g. two-planar."),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
    ) -> None:
        """Report how many gold trees the static oracle of SYSTEM rebuilds."""
        from rich.console import Console
        from rich.progress import Progress
        from rich.table import Table

        from arcwise import systems
        from arcwise.analysis.oracle_coverage import oracle_coverage
        from arcwise.io import read_treebank

        try:
            ts = systems.get(system)
        except ValueError as error:  # an unknown system or variant
            raise ArcwiseError(str(error)) from None
        if ts.oracle is None:
            raise ArcwiseError(f"{system} has no oracle")
        trees = (s.head for s in read_treebank(treebank))
        with Progress(transient=True, disable=as_json) as progress:
            task = progress.add_task(f"{system} static oracle", total=None)
            cov = oracle_coverage(ts, trees, progress=lambda: progress.advance(task))
        result = cov.as_dict()
        result["treebank"] = str(treebank)
        if as_json:
            print(json.dumps(result, indent=2))
            return
        table = Table(title=f"static oracle of {system} on {treebank}")
        table.add_column("measure")
        table.add_column("value", justify="right")
        table.add_row("sentences", str(cov.sentences))
        table.add_row("buildable by the system", f"{cov.buildable} ({result['buildable_pct']:.2f} %)")
        table.add_row("rebuilt exactly", f"{cov.rebuilt} ({result['rebuilt_pct']:.2f} %)")
        table.add_row("arcs recovered", f"{cov.arcs_recovered}/{cov.words} ({result['arcs_recovered_pct']:.2f} %)")
        table.add_row("cannot build", str(cov.unbuildable))
        table.add_row("buildable but not rebuilt", str(cov.oracle_failures))
        Console().print(table)
