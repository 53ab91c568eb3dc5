"""`arcwise models`: the model packages installed, with their scores."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    @app.command("models")
    def models_command(
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object, no table."),
    ) -> None:
        """List the installed model packages (arcwise package): name, version, language,
        components, treebank, test scores (CoNLL 2018 scorer), and whether this arcwise
        reads them."""
        import json

        from rich.console import Console
        from rich.table import Table

        from arcwise.models.packages import installed

        models = installed()
        if as_json:
            print(json.dumps({name: {"version": m.version, "model": str(m.model),
                                     "compatible": m.compatible, "card": m.card}
                              for name, m in models.items()}, indent=1))
            return
        console = Console()
        if not models:
            console.print("no model package is installed: build one with arcwise package "
                          "MODEL --name NAME --install")
            return
        table = Table()
        for column in ("name", "version", "lang", "components", "treebank", "test",
                       "Tokens", "UPOS", "LAS", "reads"):
            table.add_column(column, no_wrap=column in ("name", "version"))
        for name, m in models.items():
            test = m.card.get("scores", {}).get("test", {})
            table.add_row(
                name, m.version, str(m.card.get("lang") or "?"),
                ", ".join(m.card.get("components", [])),
                str((m.card.get("treebank") or {}).get("name", "?")),
                str(test.get("input", "-")),
                *(f"{test[k]:.2f}" if k in test else "-" for k in ("Tokens", "UPOS", "LAS")),
                "yes" if m.compatible else f"no: arcwise{m.card.get('requires_arcwise')}")
        console.print(table)
