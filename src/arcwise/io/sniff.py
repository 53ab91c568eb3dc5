"""Is an input CoNLL-U (or CoNLL-X), or plain text?  Decided from its first lines, for a
model that reads both: one with a tokenizer parses what is not CoNLL-U as raw text."""

from __future__ import annotations

import io
import os
import re
import sys
import zlib
from typing import IO

HEAD_BYTES = 1 << 16
_WORD_ID = re.compile(r"\d+(-\d+|\.\d+)?")
_GZIP_MAGIC = b"\x1f\x8b"


def looks_like_conllu(head: str) -> bool:
    """Whether the first lines of an input are CoNLL-U or CoNLL-X: the first line that is
    neither blank nor a comment has ten tab-separated columns and a word id; with only
    comments (``# text = ...``), yes."""
    lines = head.splitlines()
    if len(head.encode("utf-8", "surrogateescape")) >= HEAD_BYTES and len(lines) > 1:
        lines = lines[:-1]  # the last line may be cut short
    comments = False
    for line in lines:
        if not line.strip():
            continue
        if line.startswith("#"):
            comments = True
            continue
        columns = line.split("\t")
        return len(columns) >= 8 and bool(_WORD_ID.fullmatch(columns[0]))
    return comments


def input_format(source: str | os.PathLike | IO) -> str:
    """"conllu" or "text" for a path (a .txt file is text; otherwise its first lines
    decide, plain or gzip; ``-`` is standard input, peeked at, not consumed) or a stream (seekable, or with ``peek``); "conllu" when its first
    bytes cannot be seen (the CoNLL-U reader then says what is wrong)."""
    if isinstance(source, (str, os.PathLike)) and \
            os.fspath(source).lower().removesuffix(".gz").endswith(".txt"):
        return "text"
    head = _head(source)
    if head is None:
        return "conllu"
    return "conllu" if looks_like_conllu(head) else "text"


def _head(source: str | os.PathLike | IO) -> str | None:
    data: bytes | str | None = None
    try:
        if isinstance(source, (str, os.PathLike)):
            if os.fspath(source) == "-":
                stream = sys.stdin.buffer
                data = stream.peek(HEAD_BYTES) if hasattr(stream, "peek") else None
            else:
                with open(source, "rb") as f:
                    data = f.read(HEAD_BYTES)
        elif hasattr(source, "seekable") and source.seekable():
            at = source.tell()
            data = source.read(HEAD_BYTES)
            source.seek(at)
        elif hasattr(source, "peek"):
            data = source.peek(HEAD_BYTES)
    except (OSError, ValueError, io.UnsupportedOperation):
        return None
    if data is None or isinstance(data, str):
        return data
    if data[:2] == _GZIP_MAGIC:
        try:
            data = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data, HEAD_BYTES)
        except zlib.error:
            return None
    return data.decode("utf-8", "surrogateescape")


def reading_format(source: str | os.PathLike | IO, format: str | None, reads_text: bool
                   ) -> str | None:
    """The input format a model reads `source` in: `format` when given; else, for a model
    that reads raw text, "text" unless the input is CoNLL-U (`input_format`); else None
    (CoNLL-U, or CoNLL-X by the extension)."""
    if format is not None or not reads_text:
        return format
    return "text" if input_format(source) == "text" else None
