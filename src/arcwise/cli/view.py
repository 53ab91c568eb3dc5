"""`arcwise view`: trees, and where parsers disagree with gold, as one offline HTML file."""

from __future__ import annotations

from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    @app.command("view")
    def view_command(
        files: list[Path] = typer.Argument(..., help="CoNLL-U or CoNLL-X files (.gz allowed) "
                                           "of the same sentences: a treebank, or parsers' "
                                           "outputs."),
        gold: Path = typer.Option(None, "--gold", "-g",
                                  help="The gold trees of the same sentences."),
        output: str = typer.Option(..., "--output", "-o", help="The HTML file to write."),
        names: str = typer.Option(None, "--names", help="Comma-separated names of FILES "
                                  "(default: their file names)."),
    ) -> None:
        """Write one self-contained HTML page showing the trees of FILES against --gold.

        Arcs above the words with their labels, non-projective arcs dashed,
        wrong heads and wrong labels marked against the gold trees; navigate,
        search a word or a sent_id, filter by error, relation or length.  No
        network is needed to open it.  (Until 0.2, FILE GOLD [OTHERS], the old
        order, still works, with a warning, when --gold is not given.)
        """
        import sys

        from arcwise.core.errors import ArcwiseError
        from arcwise.io.atomic import check_output
        from arcwise.service.viewer import view_data, write_view

        check_output(output, [gold, *files])

        systems = list(files)
        if gold is None and len(systems) > 1:  # the order before 0.1.1: FILE GOLD [OTHERS]
            gold = systems.pop(1)
            print(f"arcwise: warning: `arcwise view FILE GOLD` is the old order, read as such "
                  f"until 0.2: give the gold file as --gold (arcwise view --gold {gold} "
                  f"{' '.join(map(str, systems))} -o {output})", file=sys.stderr)
        labels = [p.name.split(".")[0] for p in systems]
        if names is not None:
            labels = [n.strip() for n in names.split(",")]
            if len(labels) != len(systems):
                raise ArcwiseError(f"--names gives {len(labels)} names for {len(systems)} files")
        files = [gold, *systems] if gold is not None else systems
        shown = ["gold", *labels] if gold is not None else labels
        write_view(output, view_data(files, shown, 0 if gold is not None else None))
