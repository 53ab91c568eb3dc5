"""`arcwise parse`: parse a treebank with a trained model, changing only HEAD and DEPREL."""

from __future__ import annotations

import itertools
import os
import sys

import typer


def register(app: typer.Typer) -> None:
    @app.command("parse")
    def parse_command(
        model: str = typer.Option(..., "--model", "-m", help="Model file from `arcwise train`."),
        source: str = typer.Argument("-", metavar="IN", help="CoNLL-U or CoNLL-X file (.gz allowed), - for stdin."),
        output: str = typer.Option("-", "--output", "-o", help="Output file (written atomically), - for stdout."),
    ) -> None:
        """Parse IN with MODEL; the output keeps every line and column but HEAD and DEPREL."""
        from arcwise.io import conllu, format_of, read_treebank
        from arcwise.io.conllu import with_tree
        from arcwise.parse import BATCH_SENTENCES, Parser

        parser = Parser.load(model)
        sentences = read_treebank(source, format_of(source) or "conllu")

        def parsed():
            while batch := list(itertools.islice(sentences, BATCH_SENTENCES)):
                for sentence, (head, deprel) in zip(batch, parser.parse(batch)):
                    yield with_tree(sentence, head, deprel)

        try:
            conllu.write(output, parsed())
        except BrokenPipeError:  # whoever read our stdout has gone (`| head`): stop quietly
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise typer.Exit(1) from None
