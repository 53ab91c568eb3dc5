"""Pretrained word vectors: read from a file, kept in the model (needs no torch).

`read_vectors` streams a vectors file and keeps only the rows a model can use: the
training vocabulary's lowercased forms and the first `DEFAULT_EXTRA` (an option) other
words in file order (such files are sorted by frequency), so memory is bounded by
what is kept, never by the file (a 2 GB file is read a line at a time).  It reads

- word2vec's text format and fastText's ``.vec`` (a header line "COUNT DIMENSION",
  then "WORD X1 ... XD" per line),
- GloVe's ``.txt`` (the same lines without the header: a first line of more than
  two fields has none),
- word2vec's binary format (the header line, then per word "WORD " and D
  little-endian float32; told from text by its first vector's bytes, or `binary`),

gzipped or not (told by the gzip magic bytes, whatever the file's name).

arcwise's word column is the lowercased form (`arcwise.core.vocab.form_signature`),
so each file word is kept under its lowercased form: an exact lowercase entry wins,
else the first cased variant in file order ("Paris" serves "paris" when the file has
no "paris").  A malformed line (a wrong number of values, a value that is not a
finite number) stops the reading with an `InputError` naming file and line; only the
kept lines' values are parsed (every line's field count is checked).

A model holds its vectors as `Pretrained`: the kept words extend its lowercased-form
vocabulary (`Vocabularies.with_lower`), so a test word never seen in training still
finds its vector, and row k of a float16 table is the vector of word id k (zeros
where the file has none), scaled to unit standard deviation.  The table is copied
into the model file: the model never needs the vectors file again.  How the network
reads it (a fixed table whose vector is concatenated to the trained embedding) is
`arcwise.learn.neural.Encoder`'s.
"""

from __future__ import annotations

import gzip
import math
import os
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, Any

import numpy as np

from arcwise.core.errors import ArcwiseError, InputError
from arcwise.core.vocab import RESERVED, Vocabularies, Vocabulary

DEFAULT_EXTRA = 50_000  # words kept beyond the training vocabulary (`read_vectors`)
GZIP_MAGIC = b"\x1f\x8b"
UTF8_BOM = b"\xef\xbb\xbf"
FASTTEXT_BIN_MAGIC = (793712314).to_bytes(4, "little")  # a fastText model, not vectors
MAX_LINE = 2**20  # a longer line is no vectors file's
CHUNK = 2**20  # bytes read at a time from a binary file
TEXT_BYTES = frozenset(b"0123456789+-.eE \t\r\nnaifNAIF")  # what a text vector is made of
DIGITS = frozenset(b"0123456789")
FORMATS = ("word2vec text", "glove", "word2vec binary")
FIRST_WORD = len(RESERVED)  # the first id of a word (0: unknown, 1: the root)


@dataclass(frozen=True)
class Vectors:
    """The vectors kept from a file: distinct lowercased words in file order and their
    float32 matrix [words, dimension], with where they came from (`describe`)."""

    words: tuple[str, ...]
    matrix: np.ndarray
    source: str  # the file's name
    format: str = "word2vec text"
    read: int = 0  # vectors in the file

    @property
    def dimension(self) -> int:
        return int(self.matrix.shape[1])

    def describe(self) -> dict[str, Any]:
        """What a model's metadata records of them."""
        return {"source": self.source, "format": self.format, "dimension": self.dimension,
                "file_vectors": self.read, "kept": len(self.words)}


@dataclass(frozen=True)
class Header:
    """What the start of a vectors file says: its format, dimension, announced count
    (None: GloVe's, no header) and whether it is gzipped."""

    format: str
    dimension: int
    count: int | None
    gzipped: bool


@contextmanager
def _opened(path: str | os.PathLike) -> Iterator[tuple[IO[bytes], bool]]:
    """(the file's bytes, uncompressed if gzipped; gzipped?), or ArcwiseError."""
    try:
        raw = open(path, "rb")  # noqa: SIM115 -- closed below
    except FileNotFoundError:
        raise ArcwiseError(f"{path}: no such vectors file") from None
    except IsADirectoryError:
        raise ArcwiseError(f"{path}: is a directory, not a vectors file") from None
    except OSError as error:
        raise ArcwiseError(f"{path}: cannot read: {error.strerror or error}") from None
    with raw:
        gzipped = raw.peek(2)[:2] == GZIP_MAGIC  # not read: a pipe cannot seek back
        if not gzipped:
            yield raw, False
            return
        with gzip.GzipFile(fileobj=raw, mode="rb") as stream:
            yield stream, True


class _Reader:
    """A file's bytes through one buffer: lines (bounded) and exact byte counts, with the
    failures of a damaged gzip stream as an InputError at the current line."""

    def __init__(self, path: str | os.PathLike, stream: IO[bytes], gzipped: bool = False):
        self.path, self.stream, self.gzipped = str(path), stream, gzipped
        self.buffer, self.start = b"", 0
        self.line = 0  # lines read so far (the last one's number)
        self.eof = False
        self.pushed: bytes | None = None  # a line given back (`unread`)

    def _fill(self) -> bool:
        """Read one more chunk; False at the end of the file."""
        if self.eof:
            return False
        try:
            chunk = self.stream.read(CHUNK)
        except (EOFError, gzip.BadGzipFile, zlib.error) as error:
            raise InputError(self.path, self.line + 1,
                             f"corrupt or cut short gzip data ({error})") from None
        except OSError as error:
            raise InputError(self.path, self.line + 1, "cannot read"
                             + (" the gzip data" if self.gzipped else "")
                             + f": {error.strerror or error}") from None
        if not chunk:
            self.eof = True
            return False
        self.buffer = self.buffer[self.start:] + chunk
        self.start = 0
        return True

    def unread(self, line: bytes) -> None:
        """Give back the line just read: the next `readline` returns it again."""
        self.pushed = line
        self.line -= 1

    def readline(self) -> bytes | None:
        """The next line (with its newline), None at the end."""
        if self.pushed is not None:
            line, self.pushed = self.pushed, None
            self.line += 1
            return line
        while True:
            end = self.buffer.find(b"\n", self.start)
            if end >= 0:
                line = self.buffer[self.start : end + 1]
                self.start = end + 1
                break
            if len(self.buffer) - self.start > MAX_LINE:
                raise InputError(self.path, self.line + 1,
                                 f"a line longer than {MAX_LINE:,} bytes: not a vectors file?")
            if not self._fill():
                line = self.buffer[self.start:]
                self.start = len(self.buffer)
                if not line:
                    return None
                break
        self.line += 1
        return line

    def peek(self, size: int) -> bytes:
        """Up to `size` next bytes, not consumed."""
        while len(self.buffer) - self.start < size and self._fill():
            pass
        return self.buffer[self.start : self.start + size]

    def until_space(self) -> bytes | None:
        """The bytes up to the next space (consumed with it), newlines before them skipped;
        None at the end of the file."""
        while True:
            while self.start < len(self.buffer) and self.buffer[self.start] in b"\n\r":
                self.start += 1
            end = self.buffer.find(b" ", self.start)
            if end >= 0:
                word = self.buffer[self.start : end]
                self.start = end + 1
                return word
            if len(self.buffer) - self.start > MAX_LINE:
                return self.buffer[self.start : self.start + MAX_LINE]  # the caller refuses it
            if not self._fill():
                rest = self.buffer[self.start:]
                self.start = len(self.buffer)
                return rest if rest.strip() else None

    def exactly(self, size: int) -> bytes:
        """The next `size` bytes (fewer only at the end of the file)."""
        while len(self.buffer) - self.start < size and self._fill():
            pass
        data = self.buffer[self.start : self.start + size]
        self.start += len(data)
        return data


def _is_int(field: bytes) -> bool:
    return field.isdigit()


def _header(reader: _Reader, path: str, gzipped: bool, binary: bool | None) -> Header:
    """Read (and consume) a word2vec header line, or learn GloVe's dimension from its first
    line (left unconsumed: it is the first vector)."""
    if reader.peek(4) == FASTTEXT_BIN_MAGIC:
        raise InputError(path, None, "a fastText model (.bin), not a vectors file: give its "
                         ".vec file (word vectors as text)")
    if reader.peek(3) == UTF8_BOM:
        reader.exactly(3)
    first = reader.readline()
    while first is not None and not first.strip():
        first = reader.readline()
    if first is None:
        raise InputError(path, None, "empty: no vectors")
    fields = first.split()
    if len(fields) == 2 and _is_int(fields[0]) and _is_int(fields[1]):
        count, dimension = int(fields[0]), int(fields[1])
        if dimension < 1:
            raise InputError(path, reader.line, f"the header says dimension {dimension}")
        if binary is None:
            binary = _looks_binary(reader, dimension)
        return Header("word2vec binary" if binary else "word2vec text", dimension, count,
                      gzipped)
    if binary:
        raise InputError(path, reader.line, "a word2vec binary file starts with a header line "
                         "'COUNT DIMENSION'")
    if len(fields) < 2:
        raise InputError(path, reader.line, "neither a header 'COUNT DIMENSION' nor a word "
                         "with its vector")
    reader.unread(first)  # GloVe: the line is the first vector
    return Header("glove", len(fields) - 1, None, gzipped)


def _looks_binary(reader: _Reader, dimension: int) -> bool:
    """Whether the first vector after a header is binary: its bytes after the word are not
    all those of numbers written as text."""
    sample = reader.peek(4 * dimension + 1024).lstrip(b"\r\n")
    space = sample.find(b" ")
    if space < 0:
        return False
    vector = sample[space + 1 : space + 1 + 4 * dimension].split(b"\n")[0]  # text: its line
    return not (set(vector) <= TEXT_BYTES and any(b in DIGITS for b in vector))


def read_header(path: str | os.PathLike, binary: bool | None = None) -> Header:
    """The format and dimension of a vectors file, from its first lines (cheap: what
    `arcwise train` checks before reading the treebank); InputError if it has none."""
    with _opened(path) as (stream, gzipped):
        return _header(_Reader(path, stream, gzipped), os.fspath(path), gzipped, binary)


def _text_entries(reader: _Reader, path: str, dimension: int
                  ) -> Iterator[tuple[bytes, list[bytes], int]]:
    """(word, its value fields, line number) of each text line; InputError for a wrong
    number of values (a word may hold spaces: GloVe's 840B vectors have such words)."""
    while (line := reader.readline()) is not None:
        fields = line.split()
        if not fields:
            continue  # a blank line (the last one, say)
        if len(fields) != dimension + 1:
            if len(fields) > dimension + 1 and not _number(fields[-dimension - 1]):
                word = b" ".join(fields[:-dimension])
            else:
                raise InputError(path, reader.line, f"{len(fields) - 1} values, expected "
                                 f"{dimension} (the file's dimension)")
        else:
            word = fields[0]
        yield word, fields[-dimension:], reader.line


def _number(field: bytes) -> bool:
    try:
        float(field)
    except ValueError:
        return False
    return True


def _parsed(fields: list[bytes], path: str, line: int) -> np.ndarray:
    """The float32 vector of a text line's value fields; InputError naming the bad one."""
    try:
        vector = np.array(fields, dtype=np.float32)
    except ValueError:
        bad = next(f for f in fields if not _number(f))
        raise InputError(path, line, f"{bad.decode('utf-8', 'replace')!r} is not a "
                         "number") from None
    if not np.isfinite(vector).all():
        raise InputError(path, line, "a value is not a finite number (nan, inf, or beyond "
                         "float32)")
    return vector


def _binary_entries(reader: _Reader, path: str, header: Header
                    ) -> Iterator[tuple[bytes, bytes, int]]:
    """(word, its 4 * dimension bytes, entry number + 1) of each binary entry (the header
    being line 1); InputError for an entry cut short, or data after the announced count."""
    size = 4 * header.dimension
    for k in range(header.count):
        word = reader.until_space()
        if word is None:
            raise InputError(path, k + 2, f"the file ends after {k:,} of the {header.count:,} "
                             "vectors its header announces: cut short?")
        if len(word) > MAX_LINE // 2:
            raise InputError(path, k + 2, "no word ends here: not a word2vec binary file?")
        data = reader.exactly(size)
        if len(data) != size:
            raise InputError(path, k + 2, f"vector {k + 1:,} is cut short ({len(data)} of "
                             f"{size} bytes)")
        yield word, data, k + 2
    if reader.until_space() is not None:
        raise InputError(path, header.count + 2, f"more data after the {header.count:,} "
                         "vectors the header announces")


def read_vectors(path: str | os.PathLike, wanted: Iterable[str] = (),
                 extra: int = DEFAULT_EXTRA, binary: bool | None = None) -> Vectors:
    """The vectors of a file (see the module docstring) for the lowercased words `wanted`
    (a model's training vocabulary) and for the first `extra` other lowercased words in
    file order.  binary: None tells word2vec's binary format from text by itself.
    Errors: ArcwiseError for a file that cannot be read, InputError (file:line) for a
    malformed one."""
    if extra < 0:
        raise ValueError(f"extra must be 0 or more, not {extra}")
    source = os.fspath(path)
    wanted = frozenset(wanted)
    kept: dict[str, np.ndarray] = {}  # lowercased word -> vector
    exact: set[str] = set()  # kept words whose vector is their exact lowercase entry's
    added = 0
    with _opened(path) as (stream, gzipped):
        reader = _Reader(source, stream, gzipped)
        header = _header(reader, source, gzipped, binary)
        binary_format = header.format == "word2vec binary"
        entries = (_binary_entries(reader, source, header) if binary_format
                   else _text_entries(reader, source, header.dimension))
        read = 0
        for word_bytes, values, line in entries:
            read += 1
            try:
                word = word_bytes.decode("utf-8")
            except UnicodeDecodeError:
                continue  # no form can match it
            key = word.lower()
            if key in kept:
                if word != key or key in exact:
                    continue  # a later cased variant, or the exact entry is kept
            elif key not in wanted:
                if added >= extra:
                    continue
                added += 1
            if binary_format:
                vector = np.frombuffer(values, dtype="<f4").astype(np.float32)
                if not np.isfinite(vector).all():
                    raise InputError(source, line, "a value is not a finite number")
            else:
                vector = _parsed(values, source, line)
            kept[key] = vector
            if word == key:
                exact.add(key)
    if header.count is not None and not binary_format and read != header.count:
        raise InputError(source, reader.line, f"the header announces {header.count:,} vectors, "
                         f"the file has {read:,}" + (": cut short?" if read < header.count
                                                     else ""))
    if read == 0:
        raise InputError(source, None, "no vectors")
    matrix = (np.stack(list(kept.values())) if kept
              else np.zeros((0, header.dimension), dtype=np.float32))
    return Vectors(tuple(kept), matrix, os.path.basename(source), header.format, read)


def write_vectors(path: str | os.PathLike, words: Iterable[str], matrix: np.ndarray) -> None:
    """Write vectors in word2vec's text format (fastText's .vec: a header line "COUNT
    DIMENSION", then "WORD X1 ... XD"), gzipped if the name ends in .gz, atomically;
    `read_vectors` reads them back to float32 precision."""
    from arcwise.io.atomic import atomic_write

    words = list(words)
    matrix = np.asarray(matrix, dtype=np.float32)
    if matrix.ndim != 2 or len(words) != len(matrix):
        raise ValueError(f"{len(words)} words for a matrix of shape {matrix.shape}")
    if bad := next((w for w in words if not w or any(c.isspace() for c in w)), None):
        raise ValueError(f"word {bad!r} is empty or holds whitespace: it cannot be written")
    gzipped = os.fspath(path).endswith(".gz")
    with atomic_write(path, "wb") as raw:
        out = gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) if gzipped else raw
        out.write(f"{len(words)} {matrix.shape[1]}\n".encode())
        for word, vector in zip(words, matrix):  # 9 digits: float32 exactly
            numbers = " ".join(f"{x:.9g}" for x in vector.tolist())
            out.write(f"{word} {numbers}\n".encode())
        if gzipped:
            out.close()


def vectors_of(embeddings: str | os.PathLike | Vectors, wanted: Iterable[str],
               extra: int = DEFAULT_EXTRA) -> Vectors:
    """`embeddings` itself if already read (`Vectors`), else `read_vectors` of that file."""
    if isinstance(embeddings, Vectors):
        return embeddings
    return read_vectors(embeddings, wanted, extra)


@dataclass(frozen=True)
class Pretrained:
    """A model's pretrained vectors: row k of `vectors` (float16 [rows, dimension]) is the
    vector of id k of its extended lowercased-form vocabulary (zeros: the file has none);
    ids below `trained_words` are the training vocabulary's (they also have a trained
    embedding), the others the words the vectors added.  `info`: what the model's
    metadata records (`Vectors.describe`, and the counts and scale of the table)."""

    vectors: np.ndarray
    trained_words: int
    info: dict[str, Any]

    ARRAY = "pretrained_vectors"  # its array in a model file (after the model's prefix)

    @property
    def dimension(self) -> int:
        return int(self.vectors.shape[1])

    def meta(self) -> dict[str, Any]:
        return {**self.info, "trained_words": self.trained_words,
                "rows": int(self.vectors.shape[0]), "dimension": self.dimension}

    def as_vectors(self, lower: Vocabulary) -> Vectors:
        """The words with a vector in this table, as `Vectors` a new model can be trained
        with (retraining a guide on folds: `arcwise.combination.stacking.retrain`)."""
        has = np.flatnonzero(np.any(self.vectors != 0, axis=1))
        return Vectors(tuple(lower.string(int(k)) for k in has),
                       self.vectors[has].astype(np.float32), str(self.info.get("source", "")),
                       str(self.info.get("format", "")), int(self.info.get("file_vectors", 0)))

    @classmethod
    def from_saved(cls, arrays: dict[str, np.ndarray], meta: Any, source: str,
                   prefix: str = "", rows: int | None = None) -> Pretrained:
        """The table a model file holds under `prefix` (`meta`: what `meta` wrote), for
        a lowercased-form vocabulary of `rows` ids if given; ArcwiseError unless the
        array, its metadata and the vocabulary agree."""
        def bad(what: str) -> ArcwiseError:
            return ArcwiseError(f"{source}: corrupt model file (pretrained vectors: {what})")

        name = prefix + cls.ARRAY
        array = arrays.get(name)
        if array is None:
            raise bad(f"no array {name!r}")
        if not isinstance(meta, dict):
            raise bad("bad metadata")
        trained, recorded, dimension = (meta.get(k) for k in ("trained_words", "rows",
                                                               "dimension"))
        if not all(isinstance(v, int) and not isinstance(v, bool)
                   for v in (trained, recorded, dimension)) \
                or not (FIRST_WORD <= trained <= recorded and dimension >= 1):
            raise bad(f"trained_words {trained!r}, rows {recorded!r} and dimension "
                      f"{dimension!r} do not fit together")
        if rows is not None and rows != recorded:
            raise bad(f"{recorded} rows for a vocabulary of {rows} words")
        if array.dtype != np.float16 or tuple(array.shape) != (recorded, dimension):
            raise bad(f"array {name!r} is {array.dtype}{list(array.shape)}, not "
                      f"float16{[recorded, dimension]}")
        if not np.isfinite(array).all():
            raise bad(f"array {name!r} holds NaN or infinite values")
        info = {k: v for k, v in meta.items() if k not in ("trained_words", "rows",
                                                            "dimension")}
        return cls(np.asarray(array), trained, info)


def coverage(lower: Vocabulary, pretrained: Pretrained | None,
             words: Iterable[str]) -> dict[str, int]:
    """What a model (its lowercased-form vocabulary, its table or None) has for the
    lowercased tokens `words` (say, a test set's): how many there are, how many its
    training vocabulary has, how many have a vector, and how many of those outside
    the training vocabulary have one (what the vectors add)."""
    counts = {"words": 0, "trained": 0, "with_vector": 0, "unseen_with_vector": 0}
    for word in words:
        k = lower.id(word)
        trained = FIRST_WORD <= k < (pretrained.trained_words if pretrained else len(lower))
        vector = pretrained is not None and k >= FIRST_WORD and bool(
            pretrained.vectors[k].any())
        counts["words"] += 1
        counts["trained"] += trained
        counts["with_vector"] += vector
        counts["unseen_with_vector"] += vector and not trained
    return counts


def with_pretrained(vocabularies: Vocabularies, vectors: Vectors
                    ) -> tuple[Vocabularies, Pretrained]:
    """The vocabularies with the lowercased-form vocabulary extended by the words of
    `vectors` it lacks (in their order), and the `Pretrained` table of that vocabulary:
    row k the vector of id k, zeros for the training words without one, everything
    divided by the standard deviation of the vectors found (so that they weigh at the
    start as much as the trained embeddings, initialized N(0, 1)), stored as float16."""
    lower = vocabularies.lower
    trained = len(lower)
    new = [w for w in vectors.words if w not in lower]
    extended = vocabularies.with_lower(new)
    table = np.zeros((len(extended.lower), vectors.dimension), dtype=np.float32)
    rows = np.array([extended.lower.id(w) for w in vectors.words], dtype=np.int64)
    usable = rows >= FIRST_WORD  # not the unknown word's or the root's: those stay zeros
    table[rows[usable]] = vectors.matrix[usable]
    found = int(np.count_nonzero(usable & (rows < trained)))
    std = float(vectors.matrix.std()) if vectors.matrix.size else 0.0
    scale = 1.0 / std if std > 0 and math.isfinite(std) else 1.0
    table = (table * scale).astype(np.float16)
    if not np.isfinite(table).all():  # a value beyond float16 after scaling
        raise ArcwiseError(f"{vectors.source}: a vector value is too far from the others to "
                           "be stored (beyond float16 after scaling to unit deviation)")
    info = {**vectors.describe(), "training_words_found": found,
            "training_words": trained - FIRST_WORD, "added_words": len(new), "scale": scale}
    return extended, Pretrained(table, trained, info)
