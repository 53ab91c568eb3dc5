"""Errors a user can cause, reported as one line (the CLI exits with code 2)."""

from __future__ import annotations

# what a parser that is not transition-based says to --trace (`arcwise.transition.trace`)
NOT_TRANSITION_BASED = (
    "tracing records transitions, and a graph-based (MST) parser makes none: "
    "--trace needs a transition-based model"
)


class ArcwiseError(Exception):
    """An error in the user's input or options; `str()` is the whole message."""


class InputError(ArcwiseError):
    """Malformed input at a known place: prints as ``FILE:LINE: what is wrong``."""

    def __init__(self, path: str, line: int | None, message: str):
        self.path = str(path)
        self.line = line
        self.message = message
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {message}")

    def __reduce__(self):
        """Pickled with its three parts, so that it crosses process boundaries (an
        experiment's worker reports a cell's bad treebank as itself)."""
        return type(self), (self.path, self.line, self.message)


class MissingArray(ArcwiseError):
    """A model file without an array its model reads: prints as ``SOURCE: model file has
    no array 'NAME'``; a pipeline names the component whose array it is."""

    def __init__(self, source: str, name: str):
        self.source, self.name = str(source), name
        super().__init__(f"{self.source}: model file has no array {name!r}")

    def under(self, prefix: str) -> MissingArray:
        """The same array as a file that holds the model's arrays under `prefix` names it."""
        return MissingArray(self.source, prefix + self.name)

    def __reduce__(self):
        return type(self), (self.source, self.name)
