"""The `arcwise` command: a typer app whose command groups live one per module."""

from __future__ import annotations

import importlib
import importlib.util
import sys

import typer

from arcwise.errors import ArcwiseError, InputError

app = typer.Typer(
    name="arcwise",
    help="Data-driven dependency parsing: treebanks, transition systems, oracles, parsers.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)



@app.callback()
def _root() -> None:
    """Data-driven dependency parsing: treebanks, transition systems, oracles, parsers."""


@app.command()
def version() -> None:
    """Print the arcwise version."""
    from arcwise import __version__

    print(__version__)


# Each module defines `register(app)`; listed in the order of `arcwise --help`.
COMMAND_MODULES = [
    "train",
    "parse",
    "evaluate",
    "compare",
    "analyze",
    "combine",
    "convert",
    "stats",
    "oracle",
    "loss_bounds",
    "experiment",
]

for _name in COMMAND_MODULES:
    _module = f"arcwise.cli.{_name}"
    if importlib.util.find_spec(_module) is not None:
        importlib.import_module(_module).register(app)


def main() -> None:
    """Entry point: user errors print one line on stderr and exit 2, never a traceback."""
    try:
        app()
    except InputError as error:  # FILE:LINE: what is wrong
        print(error, file=sys.stderr)
        sys.exit(2)
    except ArcwiseError as error:
        print(f"arcwise: {error}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
