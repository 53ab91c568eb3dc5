"""Atomic file output: write a temporary file next to the target, rename on success.

A reader of the target sees the old file or the complete new one, never half a
file; when the writer fails, the temporary file is removed and the target is
untouched.  The path ``-`` means standard output, which cannot be atomic.
"""

from __future__ import annotations

import os
import secrets
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

from arcwise.errors import ArcwiseError


@contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w", encoding: str = "utf-8") -> Iterator[IO]:
    """Open `path` for writing ("w": text without newline translation, "wb": bytes).

    The data goes to a temporary file in the same directory, which is flushed,
    synced and renamed over `path` (`os.replace`) when the block ends without
    an exception; on any exception it is removed and `path` is left as it was.
    A replaced file keeps its permission bits; a new one gets 0o666 minus umask.
    ``-`` yields standard output (not atomic, not closed).
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write mode must be 'w' or 'wb', not {mode!r}")
    target = os.fspath(path)
    if target == "-":
        stream = sys.stdout if mode == "w" else sys.stdout.buffer
        sys.stdout.flush()
        yield stream
        stream.flush()
        return
    fd, temp = _create_temp(target)
    try:
        if mode == "w":
            f = open(fd, "w", encoding=encoding, newline="")
        else:
            f = open(fd, "wb")
        with f:
            yield f
            try:
                f.flush()
                os.fsync(f.fileno())
            except OSError as error:
                raise _cannot_write(target, error) from None
        try:
            os.replace(temp, target)
        except OSError as error:
            raise _cannot_write(target, error) from None
    except BaseException:
        try:
            os.unlink(temp)
        except FileNotFoundError:
            pass
        raise


def _create_temp(target: str) -> tuple[int, str]:
    """A new hidden file next to `target`, created exclusively: (fd, path)."""
    directory, name = os.path.split(os.path.abspath(target))
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        mode = None
    while True:
        temp = os.path.join(directory, f".{name}.{secrets.token_hex(4)}.tmp")
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        except OSError as error:
            raise _cannot_write(target, error) from None
        if mode is not None:
            os.chmod(fd, mode)
        return fd, temp


def _cannot_write(target: str, error: OSError) -> ArcwiseError:
    return ArcwiseError(f"{target}: cannot write: {error.strerror or error}")
