"""`arcwise view`: trees, and where parsers disagree with gold, as one offline HTML file."""

from __future__ import annotations

from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    @app.command("view")
    def view_command(
        file: Path = typer.Argument(..., help="A CoNLL-U or CoNLL-X file (.gz allowed): a "
                                    "treebank, or a parser's output."),
        gold: Path = typer.Argument(None, help="The gold trees of the same sentences."),
        others: list[Path] = typer.Argument(None, help="More outputs of the same sentences."),
        output: Path = typer.Option(..., "--output", "-o", help="The HTML file to write."),
        names: str = typer.Option(None, "--names", help="Comma-separated names of FILE and "
                                  "OTHERS (default: their file names)."),
    ) -> None:
        """Write one self-contained HTML page showing the trees of FILE (and OTHERS) against GOLD.

        Arcs above the words with their labels, non-projective arcs dashed,
        wrong heads and wrong labels marked against GOLD; navigate, search a
        word or a sent_id, filter by error, relation or length.  No network
        is needed to open it.
        """
        from arcwise.core.errors import ArcwiseError
        from arcwise.service.viewer import view_data, write_view

        systems = [file, *(others or [])]
        labels = [p.name.split(".")[0] for p in systems]
        if names is not None:
            labels = [n.strip() for n in names.split(",")]
            if len(labels) != len(systems):
                raise ArcwiseError(f"--names gives {len(labels)} names for {len(systems)} files")
        files = [gold, *systems] if gold is not None else systems
        shown = ["gold", *labels] if gold is not None else labels
        write_view(output, view_data(files, shown, 0 if gold is not None else None))
