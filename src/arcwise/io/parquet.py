"""Parsed sentences as Parquet: one row per CoNLL-U line of a word, multiword token or
empty node (``arcwise parse --format parquet``; pyarrow, the ``corpus`` extra).

The rows are read from the CoNLL-U text a parser writes (`parquet_output` is a text
stream that `arcwise.io.conllu.write` writes into), so a Parquet file says exactly what
the CoNLL-U file would.  Columns, in order:

- ``input`` (string): the input file's path relative to what was given (``a/b.txt``)
- ``sentence`` (int32): the sentence's position in its file, from 1
- ``sent_id``, ``text`` (string): its ``# sent_id`` and ``# text`` comments (null without)
- ``id`` (string): the ID column as written: ``3``, ``3-4`` (a multiword token), ``3.1``
  (an empty node)
- ``kind`` (string): ``word``, ``multiword`` (the surface token of a range: its words
  follow as rows of their own) or ``empty`` (an empty node of the enhanced graph)
- ``word`` (int32): the word's index (a range's first word; an empty node's integer
  part: the word it follows)
- ``word_end`` (int32): a range's last word (null for the others)
- ``empty`` (int32): an empty node's decimal part (null for the others)
- ``form``, ``lemma``, ``upos``, ``xpos``, ``feats`` (string): as written (``_`` stays
  ``_``)
- ``head`` (int32): HEAD, an integer (null where it is ``_``: multiword tokens, empty
  nodes)
- ``deprel``, ``deps``, ``misc`` (string): as written

So ``WHERE kind = 'word'`` gives one row per word.  CoNLL-X output (from CoNLL-X input)
fills the same columns: CPOSTAG as upos, POSTAG as xpos, PHEAD as deps, PDEPREL as misc.
The rows of a file are in its order, so ``ORDER BY input, sentence`` with the rows' order
rebuilds each sentence.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

from arcwise.core.errors import ArcwiseError
from arcwise.core.extras import required
from arcwise.io.atomic import atomic_write

COLUMNS = ("form", "lemma", "upos", "xpos", "feats", "head", "deprel", "deps", "misc")
BATCH_ROWS = 65_536  # rows gathered before they go to the file as a record batch


def schema() -> Any:
    """The pyarrow schema of the rows (see the module docstring)."""
    import pyarrow as pa

    text, number = pa.string(), pa.int32()
    return pa.schema([
        ("input", text), ("sentence", number), ("sent_id", text), ("text", text),
        ("id", text), ("kind", text), ("word", number), ("word_end", number),
        ("empty", number),
        *((name, number if name == "head" else text) for name in COLUMNS)])


@contextmanager
def parquet_output(path: str | os.PathLike, input_name: str) -> Iterator[IO[str]]:
    """A text stream taking CoNLL-U (whole sentences, as `arcwise.io.conllu.write` writes
    them) and writing its rows to the Parquet file `path`, atomically: on any exception
    (an interrupt included) no file is left and an existing one is untouched.
    `input_name` fills the ``input`` column."""
    required("pyarrow", "corpus", "--format parquet")
    import pyarrow.parquet as pq

    with atomic_write(path, "wb") as binary:
        writer = pq.ParquetWriter(binary, schema())
        rows = _Rows(writer, input_name, os.fspath(path))
        try:
            yield rows
            rows.finish()
        finally:
            writer.close()


class _Rows(io.TextIOBase):
    """CoNLL-U text in, record batches out (`parquet_output`)."""

    def __init__(self, writer: Any, input_name: str, name: str):
        self.writer, self.input_name, self.name = writer, input_name, name
        self.pending = ""  # text after the last complete sentence
        self.sentence = 0
        self.schema = schema()
        self.columns: dict[str, list] = {field: [] for field in self.schema.names}

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        blocks = (self.pending + text).split("\n\n")
        self.pending = blocks.pop()
        for block in blocks:
            self._sentence(block)
        if len(self.columns["id"]) >= BATCH_ROWS:
            self._flush_rows()
        return len(text)

    def finish(self) -> None:
        if self.pending.strip():
            self._sentence(self.pending)
        self.pending = ""
        self._flush_rows()

    def _sentence(self, block: str) -> None:
        lines = [line for line in block.split("\n") if line]
        if not lines:
            return
        self.sentence += 1
        comments = {}
        for line in lines:
            if line.startswith("#") and " = " in line:
                key, _, value = line[1:].partition(" = ")
                comments.setdefault(key.strip(), value)
        columns = self.columns
        for line in lines:
            if line.startswith("#"):
                continue
            fields = line.split("\t")
            if len(fields) != 10:
                raise ArcwiseError(f"{self.name}: a line of {len(fields)} columns, not 10: "
                                   f"{line[:60]!r}")
            ident = fields[0]
            start, dash, end = ident.partition("-")
            whole, dot, decimal = ident.partition(".")
            kind = "multiword" if dash else "empty" if dot else "word"
            columns["input"].append(self.input_name)
            columns["sentence"].append(self.sentence)
            columns["sent_id"].append(comments.get("sent_id"))
            columns["text"].append(comments.get("text"))
            columns["id"].append(ident)
            columns["kind"].append(kind)
            columns["word"].append(int(start if dash else whole))
            columns["word_end"].append(int(end) if dash else None)
            columns["empty"].append(int(decimal) if dot else None)
            for name, value in zip(COLUMNS, fields[1:]):
                columns[name].append((None if value == "_" else int(value)) if name == "head"
                                     else value)

    def _flush_rows(self) -> None:
        import pyarrow as pa

        if not self.columns["id"]:
            return
        self.writer.write_batch(pa.record_batch(self.columns, schema=self.schema))
        self.columns = {field: [] for field in self.columns}


__all__ = ["COLUMNS", "parquet_output", "schema"]
