"""Output files: a temporary file next to a regular target, renamed over it on success.

A reader of the target sees the old file or the complete new one, never half a
file; when the writer fails, the temporary file is removed and the target is
untouched.  Only regular files (and new paths) are replaced that way: a device
or a FIFO is written to directly, and a symbolic link is followed, so its
target gets the new contents and the link stays.  The path ``-`` means
standard output, which cannot be atomic.  A failing write (a full disk, a
file size limit) is an `ArcwiseError` ``FILE: cannot write: REASON``.

Files that belong together (a model and its training log) are renamed into place
together (`AtomicFiles`), a folder of files (a report) as a whole
(`atomic_directory`); `check_output` refuses an output that is one of the inputs.
"""

from __future__ import annotations

import fcntl
import io
import os
import secrets
import shutil
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import IO, Any, Self

from arcwise.core.errors import ArcwiseError
from arcwise.core.interrupts import blocked, check


@contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w", encoding: str = "utf-8") -> Iterator[IO]:
    """Open `path` for writing ("w": text without newline translation, "wb": bytes).

    A regular file or a new path: the data goes to a temporary file in the
    same directory, which is flushed, synced and renamed over the file
    (`os.replace`) when the block ends without an exception; on any exception
    (or signal, see `arcwise.core.interrupts`) it is removed and the file is left
    as it was.  A replaced file keeps its permission bits; a new one gets
    0o666 minus umask.  A symbolic link is resolved first (its target is
    replaced, the link kept).  A device, FIFO or socket is opened and written
    as a stream.  ``-`` yields standard output (not atomic, not closed).
    Several files that belong together: `AtomicFiles`.
    """
    with AtomicFiles() as files, files.write(path, mode, encoding) as f:
        yield f


class AtomicFiles:
    """Files written together: each as `atomic_write` writes it, but all renamed into
    place when the ``with`` block ends without an exception, or none.

    >>> with AtomicFiles() as files:
    ...     with files.write("m.arcwise", "wb") as f: ...
    ...     check(files.temp("m.arcwise"))     # the written file, not yet in place
    ...     with files.write("m.arcwise.log.json") as f: ...

    The renames run with SIGINT, SIGTERM and SIGHUP held (`arcwise.core.interrupts.blocked`)
    and under a lock on the folders (``flock``), so neither a signal nor another process
    writing the same files leaves the new version of one beside the old version of another;
    on any exception every temporary file is removed and the files are left as they were.
    """

    def __init__(self) -> None:
        self._staged: dict[str, tuple[str, str]] = {}  # target -> (temporary file, resolved)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind, error, traceback) -> None:
        if kind is None:
            self._commit()
        else:
            self._discard()

    def temp(self, path: str | os.PathLike) -> str | None:
        """The temporary file written for `path` (None where `path` was streamed to: a
        device, a FIFO, standard output)."""
        staged = self._staged.get(os.fspath(path))
        return staged[0] if staged else None

    @contextmanager
    def write(self, path: str | os.PathLike, mode: str = "w",
              encoding: str = "utf-8") -> Iterator[IO]:
        """Open `path` for writing as `atomic_write` does; renamed into place with the others."""
        if mode not in ("w", "wb"):
            raise ValueError(f"atomic_write mode must be 'w' or 'wb', not {mode!r}")
        target = os.fspath(path)
        if target == "-":
            stream = sys.stdout if mode == "w" else sys.stdout.buffer
            sys.stdout.flush()
            yield stream
            stream.flush()
            return
        resolved = os.path.realpath(target)  # where a symlink leads (the path itself otherwise)
        kind = _kind(resolved)
        if kind is not None and stat.S_ISDIR(kind):
            raise ArcwiseError(f"{target}: cannot write: Is a directory")
        if kind is not None and not stat.S_ISREG(kind):
            try:
                fd = os.open(resolved, os.O_WRONLY)
            except OSError as error:
                raise cannot_write(target, error) from None
            with _stream(fd, target, mode, encoding) as f:
                yield f
            return
        fd, temp = _create_temp(resolved, target)
        try:
            with _stream(fd, target, mode, encoding) as f:
                yield f
                f.flush()
                try:
                    os.fsync(f.fileno())
                except OSError as error:
                    raise cannot_write(target, error) from None
        except BaseException:
            _remove(temp)
            raise
        _remove(self._staged.pop(target, ("", ""))[0])  # written twice: the last one counts
        self._staged[target] = (temp, resolved)

    def _commit(self) -> None:
        """Rename every temporary file over its target, with signals held."""
        folders = sorted({os.path.dirname(resolved) for _, resolved in self._staged.values()})
        try:
            check()  # a signal whose `Interrupted` was swallowed: nothing is renamed
            with _locked(folders), blocked():
                while self._staged:
                    target, (temp, resolved) = next(iter(self._staged.items()))
                    try:
                        os.replace(temp, resolved)
                    except OSError as error:
                        raise cannot_write(target, error) from None
                    del self._staged[target]
        finally:
            self._discard()

    def _discard(self) -> None:
        """Remove the temporary files not renamed into place."""
        for temp, _ in self._staged.values():
            _remove(temp)
        self._staged.clear()


@contextmanager
def _locked(folders: list[str]) -> Iterator[None]:
    """An exclusive ``flock`` on each folder within the block (where the file system
    offers none, nothing)."""
    with ExitStack() as stack:
        for folder in folders:
            try:
                fd = os.open(folder, os.O_RDONLY)
            except OSError:
                continue
            stack.callback(os.close, fd)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
            except OSError:
                pass
        yield


def _remove(path: str) -> None:
    if path:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


@contextmanager
def atomic_directory(path: str | os.PathLike) -> Iterator[Path]:
    """A new hidden folder beside `path` to fill within the block (a report's files).

    When the block ends without an exception the folder takes the place of `path` (a
    symbolic link resolved): a folder already there is renamed aside, the new one
    renamed into place, both with signals held and under a lock on the parent folder,
    and the old one is removed -- whatever it held, so check it first.  On any
    exception the new folder is removed and `path` is left as it was.  Something at
    `path` that is not a folder is an `ArcwiseError` ``PATH: not a directory``.
    """
    target = os.fspath(path)
    resolved = os.path.realpath(target)
    kind = _kind(resolved)
    if kind is not None and not stat.S_ISDIR(kind):
        raise ArcwiseError(f"{target}: not a directory")
    parent = os.path.dirname(resolved)
    made_folder(parent)
    temp, _ = _hidden(resolved, ".tmp", target, os.mkdir)
    try:
        if kind is not None:
            os.chmod(temp, stat.S_IMODE(kind))
        yield Path(temp)
        with _locked([parent]), blocked():
            old = _hidden(resolved, ".old", target)[0] if os.path.isdir(resolved) else None
            if old is not None:
                os.rename(resolved, old)
            try:
                os.rename(temp, resolved)
            except OSError as error:
                if old is not None:
                    os.rename(old, resolved)
                raise cannot_write(target, error) from None
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def made_folder(path: str | os.PathLike) -> Path:
    """`path` as a folder to write into, created with its parents if need be; an
    `ArcwiseError` (``PATH: not a directory``) where something else is there."""
    try:
        os.makedirs(path, exist_ok=True)
    except FileExistsError:
        raise ArcwiseError(f"{os.fspath(path)}: not a directory") from None
    except OSError as error:
        raise ArcwiseError(f"{os.fspath(path)}: cannot create: {error.strerror or error}") \
            from None
    return Path(path)


def check_output(output: str | os.PathLike, inputs: Iterable[str | os.PathLike | None], *,
                 folder: bool = False) -> None:
    """`ArcwiseError` unless `output` (a command's ``-o``) may be written without
    destroying one of its `inputs`; one guard for every command.

    Refused: an empty path; a file that is an input by any spelling, symbolic link or
    hard link (the same device and inode, or the same resolved path).  folder=True:
    `output` is a folder, replaced as a whole (`atomic_directory`), so something there
    that is not a folder is refused, and so is a folder holding an input.  ``-``
    (standard output or input), None and inputs that are not there are no file.
    """
    out = os.fspath(output)
    if out == "":
        raise ArcwiseError("-o '': an empty path names no file")
    if out == "-" and not folder:
        return
    if folder and os.path.exists(out) and not os.path.isdir(out):
        raise ArcwiseError(f"{out}: not a directory")
    resolved = os.path.realpath(out)
    for path in inputs:
        if path is None or os.fspath(path) in ("", "-") or not os.path.exists(path):
            continue  # nothing there to overwrite
        where = os.path.realpath(path)
        if where == resolved or _same_file(out, path):
            raise ArcwiseError(f"-o {out}: the same file as the input {os.fspath(path)}; "
                               "it would be overwritten")
        if folder and os.path.commonpath([resolved, where]) == resolved:
            raise ArcwiseError(f"-o {out}: the folder holds the input {os.fspath(path)}; "
                               "it would be replaced")


def _same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    try:
        return os.path.samestat(os.stat(a), os.stat(b))
    except OSError:  # either is not there (or not to be seen): not the same file
        return False


class WriteChecked(io.FileIO):
    """A file whose failing writes raise ``ArcwiseError("NAME: cannot write: REASON")``
    (a closed pipe stays a BrokenPipeError: whoever reads has simply gone)."""

    def __init__(self, fd: int, name: str, closefd: bool = True):
        super().__init__(fd, "wb", closefd=closefd)
        self.target = name

    def write(self, data) -> int:
        try:
            return super().write(data)
        except BrokenPipeError:
            raise
        except OSError as error:
            raise cannot_write(self.target, error) from None


def checked_text_stream(fd: int, name: str, like: IO[str]) -> IO[str]:
    """A text stream on `fd` (not closed with it) that writes like `like` (encoding,
    errors, line buffering) and reports failing writes as `WriteChecked` does."""
    return io.TextIOWrapper(
        io.BufferedWriter(WriteChecked(fd, name, closefd=False)),
        encoding=like.encoding,
        errors=like.errors,
        line_buffering=like.line_buffering,
    )


@contextmanager
def _stream(fd: int, target: str, mode: str, encoding: str) -> Iterator[IO]:
    binary = io.BufferedWriter(WriteChecked(fd, target))
    f = binary if mode == "wb" else io.TextIOWrapper(binary, encoding=encoding, newline="")
    with f:
        yield f
        f.flush()


def _kind(path: str) -> int | None:
    """The file type bits of `path` (None if there is nothing there)."""
    try:
        return os.stat(path).st_mode
    except OSError:
        return None


def _create_temp(resolved: str, target: str) -> tuple[int, str]:
    """A new hidden file next to `resolved`, created exclusively: (fd, path)."""
    try:
        mode = stat.S_IMODE(os.stat(resolved).st_mode)
    except OSError:
        mode = None
    temp, fd = _hidden(resolved, ".tmp", target,
                       lambda path: os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    if mode is not None:
        os.chmod(fd, mode)
    return fd, temp


def _hidden(resolved: str, suffix: str, target: str,
            create: Callable[[str], Any] | None = None) -> tuple[str, Any]:
    """(path, create(path)): a new hidden path ``.NAME.RANDOM{suffix}`` next to `resolved`,
    made by `create` (exclusively: FileExistsError if taken), or merely not there."""
    directory, name = os.path.split(resolved)
    while True:
        path = os.path.join(directory, f".{name}.{secrets.token_hex(4)}{suffix}")
        if create is None:
            if not os.path.lexists(path):
                return path, None
            continue
        try:
            return path, create(path)
        except FileExistsError:
            continue
        except OSError as error:
            raise cannot_write(target, error) from None


def cannot_write(target: str, error: OSError) -> ArcwiseError:
    """The one-line error for a write to `target` that failed with `error`."""
    return ArcwiseError(f"{target}: cannot write: {error.strerror or error}")
