"""`arcwise convert`: copy a treebank losslessly, or between CoNLL-U and CoNLL-X."""

from __future__ import annotations

import os
import sys
from enum import Enum

import typer

from arcwise.core.errors import ArcwiseError


class Format(str, Enum):
    conllu = "conllu"
    conllx = "conllx"


def register(app: typer.Typer) -> None:
    @app.command("convert")
    def convert_command(
        source: str = typer.Argument(
            ..., metavar="IN", help="Treebank (.conllu, .conll, .conllx; .gz allowed), - for stdin."
        ),
        output: str = typer.Option(
            "-",
            "--output",
            "-o",
            help="Output file (written atomically; .gz compresses), - for stdout.",
        ),
        to: Format = typer.Option(
            None,
            "--to",
            help="Output format (default: by the extension of OUT, else the format of IN).",
        ),
        from_: Format = typer.Option(
            None, "--from", help="Input format (default: by the extension of IN, else conllu)."
        ),
        skip_bad: bool = typer.Option(
            False, "--skip-bad", help="Report malformed sentences on stderr and skip them."
        ),
    ) -> None:
        """Copy IN to OUT byte for byte (CoNLL-U or CoNLL-X), or convert between the formats.

        CoNLL-X output drops comments, multiword ranges and empty nodes
        (CPOSTAG = UPOS, POSTAG = XPOS, PHEAD and PDEPREL _); CoNLL-U output of
        CoNLL-X input has DEPS and MISC _.  Malformed input stops with exit
        code 2 and `FILE:LINE: what is wrong`, leaving no output file.
        """
        from arcwise.io import conllu, convert, format_of, read_treebank
        from arcwise.io.atomic import check_output

        check_output(output, [source])

        source_format = from_.value if from_ else format_of(source) or "conllu"
        target_format = to.value if to else format_of(output) or source_format
        sentences = read_treebank(source, source_format, skip_bad=skip_bad)
        try:
            conllu.write(output, convert(sentences, source_format, target_format))
        except BrokenPipeError:  # whoever read our stdout has gone (`| head`): stop quietly
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise typer.Exit(1) from None
        except OSError as error:  # the readers turn their OSErrors into InputError
            raise ArcwiseError(f"{output}: cannot write: {error.strerror or error}") from None
