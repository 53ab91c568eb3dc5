"""A corpus of input files mirrored into an output folder, and the manifest that makes a
run resumable (`arcwise parse IN [IN ...] -o OUTDIR`, `arcwise.pipeline.corpus`).

Inputs (`inputs`): each IN is a file, a folder (walked recursively, in sorted order,
hidden files and folders skipped) or a glob pattern (``**`` crosses folders).  Each file
found keeps its path relative to what was given -- a folder, the folder a pattern starts
in, or for a file its own name -- and the output mirrors it (`output_name`):
``in/a/b.txt`` given as ``in`` is written to ``OUTDIR/a/b.conllu``.  Anything wrong
with the inputs is one `ArcwiseError` line naming the file or pattern.

The manifest (`Manifest`, ``OUTDIR/_arcwise_manifest.json``, written atomically) records
each finished output: the input's path, size and modification time, the output's SHA-256
and sentence count, and once for the folder the model's identity and the settings that
change an output.  A file is finished when its entry still matches the input and the
output on disk; everything else is parsed (again).  Its name starts with ``_``, which
pyarrow's and Spark's dataset readers skip.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from arcwise.core.errors import ArcwiseError
from arcwise.io import format_of
from arcwise.io.atomic import atomic_write

MANIFEST = "_arcwise_manifest.json"
MANIFEST_FORMAT = 1
OUTPUT_EXTENSIONS = {"conllu": ".conllu", "parquet": ".parquet"}  # conllx: the input's own


@dataclass(frozen=True)
class Input:
    """A file of the corpus: its path (absolute) and its path relative to what was given
    (POSIX separators), which the output mirrors."""

    path: str
    relative: str

    @property
    def size(self) -> int:
        return os.stat(self.path).st_size


def names_a_corpus(sources: Sequence[str], output: str) -> bool:
    """Whether a command's inputs and ``-o`` name a corpus (several inputs, a folder or a
    pattern in, or ``-o`` ending in ``/``), rather than one file parsed into one file (or
    ``-``; a folder there stays an error: "cannot write: Is a directory")."""
    return len(sources) > 1 or output.endswith(("/", os.sep)) or any(
        os.path.isdir(s) or (not os.path.lexists(s) and glob.has_magic(s)) for s in sources)


def inputs(sources: Iterable[str | os.PathLike], outdir: str | os.PathLike | None = None
           ) -> list[Input]:
    """The files of `sources` (files, folders, glob patterns) in the order given, each
    folder's and pattern's files sorted.  ArcwiseError for a path that is not there or
    cannot be read, a folder without files, a pattern matching none, or a folder that
    holds `outdir` (its outputs would become inputs)."""
    found: list[Input] = []
    for source in map(os.fspath, sources):
        if source == "-":
            raise ArcwiseError("-: standard input cannot be one of a corpus's inputs; give "
                               "files, folders or patterns")
        if os.path.isdir(source):
            files = list(_walk(source))
            if not files:
                raise ArcwiseError(f"{source}: no input files in the folder")
            if outdir is not None and _inside(outdir, source):
                raise ArcwiseError(f"-o {os.fspath(outdir)}: inside the input folder {source}; "
                                   "its outputs would be read as inputs")
            found += [_input(path, os.path.relpath(path, source)) for path in files]
        elif os.path.lexists(source) or not glob.has_magic(source):
            found.append(_input(source, os.path.basename(source)))
        else:
            root = _pattern_root(source)
            files = []
            for match in sorted(glob.glob(source, recursive=True)):
                files += _walk(match) if os.path.isdir(match) else [match]
            if not files:
                raise ArcwiseError(f"{source}: no file matches")
            found += [_input(path, os.path.relpath(path, root)) for path in files]
    return found


def _input(path: str, relative: str) -> Input:
    """An Input, once the file is known to be a file this process can read."""
    try:
        if stat.S_ISDIR(os.stat(path).st_mode):
            raise IsADirectoryError(21, "Is a directory")
        if not os.access(path, os.R_OK):  # not opened: a FIFO given by name is read later
            raise PermissionError(13, "Permission denied")
    except OSError as error:
        raise ArcwiseError(f"{path}: cannot read: {error.strerror or error}") from None
    return Input(os.path.abspath(path), PurePosixPath(*relative.split(os.sep)).as_posix())


def _walk(folder: str) -> Iterator[str]:
    """The regular files under `folder` (symbolic links to them included), sorted; hidden
    ones and hidden folders left out, and FIFOs, sockets and devices."""
    for directory, folders, files in os.walk(folder):
        folders[:] = sorted(f for f in folders if not f.startswith("."))
        for name in sorted(files):
            path = os.path.join(directory, name)
            if not name.startswith(".") and os.path.isfile(path):
                yield path


def _pattern_root(pattern: str) -> str:
    """The folder a glob pattern starts in: its leading parts without wildcards."""
    parts = []
    for part in pattern.split(os.sep):
        if glob.has_magic(part):
            break
        parts.append(part)
    return os.sep.join(parts) or "."


def _inside(path: str | os.PathLike, folder: str) -> bool:
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return os.path.commonpath([path, folder]) == folder


def output_name(relative: str, input_format: str | None, output_format: str = "conllu") -> str:
    """The output's path relative to OUTDIR for an input's relative path: its last
    extension (after any ``.gz``) replaced by the output's -- ``.conllu``, ``.parquet``, or
    for CoNLL-X input (written as CoNLL-X) its own ``.conll``/``.conllx`` -- and ``.gz`` kept
    for CoNLL-U and CoNLL-X (a gzip input gives a gzip output)."""
    gz = relative.lower().endswith(".gz")
    stem = relative[:-3] if gz else relative
    path = PurePosixPath(stem)
    if output_format == "parquet":
        return str(path.with_suffix(".parquet")) if path.suffix else f"{stem}.parquet"
    conllx = input_format in (None, "conllx") and format_of(relative) == "conllx"
    name = stem if conllx else (str(path.with_suffix(".conllu")) if path.suffix
                                else f"{stem}.conllu")
    return name + (".gz" if gz else "")


def outputs(files: list[Input], outdir: str | os.PathLike, input_format: str | None,
            output_format: str) -> list[tuple[Input, str]]:
    """(input, output's path relative to outdir) of each file; ArcwiseError when two inputs
    would write the same output, or an output would overwrite the manifest or an input."""
    taken: dict[str, Input] = {}
    pairs = []
    for file in files:
        name = output_name(file.relative, input_format, output_format)
        if name == MANIFEST:
            raise ArcwiseError(f"{file.path}: its output would be the manifest {MANIFEST}")
        if name in taken:
            if taken[name].path == file.path:
                continue  # the same file given twice
            raise ArcwiseError(f"{taken[name].path} and {file.path} would both be written to "
                               f"{os.path.join(os.fspath(outdir), name)}")
        taken[name] = file
        pairs.append((file, name))
    return pairs


def sha256_of(path: str | os.PathLike) -> str:
    """The SHA-256 of a file's bytes, in hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


class Manifest:
    """The finished outputs of a folder (see the module docstring): `load` it, `check` it
    against this run's model and settings, ask `finished`, `record` each output, `save`."""

    def __init__(self, outdir: str | os.PathLike, identity: dict[str, Any],
                 files: dict[str, dict[str, Any]] | None = None):
        self.outdir = os.fspath(outdir)
        # {"model": its SHA-256, "settings": {...}} (compared), "model_file": where it was
        self.identity = identity
        self.files: dict[str, dict[str, Any]] = files or {}

    @property
    def path(self) -> str:
        return os.path.join(self.outdir, MANIFEST)

    @classmethod
    def load(cls, outdir: str | os.PathLike, identity: dict[str, Any], rerun: bool = False
             ) -> Manifest:
        """This run's manifest of `outdir`: the one there, if it was made with the same model
        and settings; an empty one when there is none or `rerun`.  ArcwiseError when the one
        there names another model or other settings (unless `rerun`) or cannot be read."""
        manifest = cls(outdir, identity)
        try:
            with open(manifest.path, encoding="utf-8") as f:
                stored = json.load(f)
        except FileNotFoundError:
            return manifest
        except (OSError, ValueError) as error:
            if rerun:
                return manifest
            reason = getattr(error, "strerror", None) or error
            raise ArcwiseError(f"{manifest.path}: cannot read the manifest: {reason} "
                               "(--rerun parses every file again)") from None
        if rerun:
            return manifest
        if not isinstance(stored, dict) or stored.get("format") != MANIFEST_FORMAT \
                or not isinstance(stored.get("files"), dict):
            raise ArcwiseError(f"{manifest.path}: not an arcwise manifest (format "
                               f"{MANIFEST_FORMAT}); --rerun parses every file again")
        for part, what in (("model", "model"), ("settings", "settings")):
            if stored.get(part) != identity[part]:
                raise ArcwiseError(f"{manifest.outdir}: parsed with another {what} "
                                   f"({_differs(stored.get(part), identity[part])}); "
                                   "--rerun parses every file again with this one")
        manifest.files = stored["files"]
        return manifest

    def finished(self, file: Input, output: str) -> bool:
        """Whether `output` (relative to the folder) is recorded for this input, unchanged
        since (size and modification time), and still on disk as written (SHA-256)."""
        entry = self.files.get(output)
        if entry is None:
            return False
        try:
            seen = os.stat(file.path)
            target = os.path.join(self.outdir, output)
            return (entry.get("input") == file.path and entry.get("size") == seen.st_size
                    and entry.get("mtime_ns") == seen.st_mtime_ns
                    and os.path.isfile(target) and entry.get("sha256") == sha256_of(target))
        except OSError:
            return False

    def record(self, file: Input, output: str, sentences: int, input_stat: os.stat_result
               ) -> None:
        """Record `output` as finished, from `file` as it was when it was read."""
        self.files[output] = {
            "input": file.path, "size": input_stat.st_size,
            "mtime_ns": input_stat.st_mtime_ns,
            "sha256": sha256_of(os.path.join(self.outdir, output)), "sentences": sentences}

    def save(self) -> None:
        """Write the manifest atomically."""
        with atomic_write(self.path) as f:
            json.dump({"format": MANIFEST_FORMAT, **self.identity,
                       "files": dict(sorted(self.files.items()))}, f, indent=1)
            f.write("\n")


def _differs(stored: Any, wanted: Any) -> str:
    """A short note of what changed between two identities (a model's SHA-256 cut short)."""
    def short(value: Any) -> str:
        return repr(value[:12] if isinstance(value, str) and len(value) == 64 else value)

    if isinstance(stored, dict) and isinstance(wanted, dict):
        keys = sorted(k for k in stored.keys() | wanted.keys() if stored.get(k) != wanted.get(k))
        return ", ".join(f"{k} {short(stored.get(k))} then, {short(wanted.get(k))} now"
                         for k in keys[:2])
    return f"SHA-256 {short(stored)} then, {short(wanted)} now"


__all__ = ["MANIFEST", "Input", "Manifest", "inputs", "names_a_corpus", "output_name", "outputs", "sha256_of"]
