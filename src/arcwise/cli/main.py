"""The `arcwise` command: a typer app whose command groups live one per module."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import sys
import warnings

import typer

from arcwise.core import interrupts
from arcwise.core.errors import ArcwiseError, InputError
from arcwise.core.vocab import UnseenTagsWarning

app = typer.Typer(
    name="arcwise",
    help="Data-driven dependency parsing: treebanks, transition systems, oracles, parsers.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)



def _print_version(value: bool) -> None:
    if value:
        from arcwise import __version__

        print(__version__)
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_print_version, is_eager=True,
        help="Print the arcwise version and exit.",
    ),
) -> None:
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
    "package",
    "models",
    "evaluate",
    "compare",
    "analyze",
    "combine",
    "convert",
    "stats",
    "oracle",
    "loss_bounds",
    "experiment",
    "serve",
    "view",
]

for _name in COMMAND_MODULES:
    _module = f"arcwise.cli.{_name}"
    if importlib.util.find_spec(_module) is not None:
        importlib.import_module(_module).register(app)


def main() -> None:
    """Entry point: user errors print one line on stderr and exit 2, never a traceback.

    A failing write (full disk, file size limit) is such an error, naming the
    file (``stdout`` for standard output); a closed stdout (``| head``) stops
    quietly with exit 1; SIGINT, SIGTERM and SIGHUP stop the work where it
    is safe, remove temporary files and exit 128 + the signal number.
    """
    warnings.showwarning = _one_line_warning
    with interrupts.installed(), _checked_stdout():
        try:
            try:
                app()
            finally:
                sys.stdout.flush()  # a full disk may only show here
        except UnseenTagsWarning as refused:  # --unseen-tags refuse
            _fail(f"arcwise: {refused} (refused: --unseen-tags refuse)", 2)
        except InputError as error:  # FILE:LINE: what is wrong
            _fail(str(error), 2)
        except ArcwiseError as error:
            _fail(f"arcwise: {error}", 2)
        except BrokenPipeError:  # whoever read our stdout has gone (`| head`): stop quietly
            _silence_stdout()
            sys.exit(1)
        except interrupts.Interrupted as interrupt:
            _fail(f"arcwise: {interrupt}", interrupt.exit_code)
        except OSError as error:  # raised where arcwise does not name a file (numba's cache)
            where = f"{error.filename}: " if error.filename else ""
            _fail(f"arcwise: {where}{error.strerror or error}", 2)


def _one_line_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """arcwise's own warnings as one line on stderr (``arcwise: warning: ...``); others as
    Python shows them."""
    if issubclass(category, UnseenTagsWarning) or category.__module__.startswith("arcwise"):
        print(f"arcwise: warning: {message}", file=file or sys.stderr)
    else:
        _show_warning(message, category, filename, lineno, file, line)


_show_warning = warnings.showwarning


def _fail(message: str, code: int) -> None:
    """Print one line on stderr and exit with `code`; what stdout still holds is written
    if it can be, else dropped."""
    try:
        sys.stdout.flush()
    except (OSError, ArcwiseError):
        pass
    _silence_stdout()
    print(message, file=sys.stderr)
    sys.exit(code)


def _silence_stdout() -> None:
    """Point fd 1 at /dev/null, so flushing what stdout still holds cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real stdout (captured by a test)
        pass


@contextlib.contextmanager
def _checked_stdout():
    """Within the block, a failing write to the real stdout is ``stdout: cannot write``."""
    from arcwise.io.atomic import checked_text_stream

    original = sys.stdout
    if original is None or original is not sys.__stdout__:  # replaced (a test capturing it)
        yield
        return
    try:
        fd = original.fileno()
    except (OSError, ValueError):
        yield
        return
    original.flush()
    sys.stdout = checked_text_stream(fd, "stdout", original)
    try:
        yield
    finally:
        checked, sys.stdout = sys.stdout, original
        try:
            checked.flush()
        except (OSError, ArcwiseError):
            pass


if __name__ == "__main__":
    main()
