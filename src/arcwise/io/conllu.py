"""CoNLL-U reading and writing: streaming, lossless, with `FILE:LINE` errors.

Reading.  `read(source)` yields one `Sentence` per block of lines between
blank lines.  The source is read in chunks of `CHUNK_BYTES` and cut at blank
lines, so memory stays bounded by a chunk plus the longest sentence, whatever
the size of the file; gzip input is recognised by its magic bytes.  Every
malformed sentence raises `InputError(path, line, message)` with the 1-based
line of the problem, or, with ``skip_bad=True``, is reported and
skipped.  What is checked: gzip integrity (nothing may follow the last
member; a break names the line it cuts), UTF-8, LF line ends (any CR is an
error), no other control character than tab and LF, 10 tab-separated
non-empty columns without a space at either end on every word, range and
empty-node line,
word IDs 1, 2, ... n in order, multiword ranges ``a-b`` (a < b, right before
word a, inside the sentence, not overlapping), empty nodes ``i.k`` (right
after word i, k = 1, 2, ...), HEAD an integer 0..n or ``_`` (-1 in
`Sentence.head`), at most `MAX_WORDS` words per sentence and
`MAX_SENTENCE_BYTES` bytes between blank lines.  Not checked here: the
content of columns (tag sets, features, DEPS), cycles, single root; those
belong to a validator, not to a reader.  Comment lines (``#``) may appear
anywhere in a sentence and are kept.

Writing is lossless: `write` prints each sentence's original lines, followed
by one blank line, changing nothing but HEAD and DEPREL of the words (and
DEPS, which must agree with them: see `with_tree`) when a tree is given.  Byte-for-byte round trips hold for every file in canonical
form, which is what the UD validator demands: LF line ends, each sentence
followed by exactly one blank line (so the file ends with ``"\\n\\n"``).  The
reader also accepts extra blank lines between sentences, at the start or at
the end, and a last sentence without its blank line or final newline; the
writer normalises those to the canonical form.

Both readers and the writer serve CoNLL-X too (see `arcwise.io.conllx`):
HEAD and DEPREL are columns 7 and 8 of both formats.  In the Sentences read,
`word_lines[0]` is -1 (the root has no line).
"""

from __future__ import annotations

import dataclasses
import gc
import gzip
import io
import operator
import os
import re
import sys
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from itertools import repeat
from typing import IO, Any

import numpy as np

from arcwise.core.corpus import ROOT, Sentence
from arcwise.core.errors import InputError
from arcwise.core.text import unicode_checked
from arcwise.io.atomic import atomic_write

MAX_WORDS = 10_000  # words (not lines) per sentence; longer ones are errors
MAX_SENTENCE_BYTES = 16 << 20  # bytes between two blank lines; bounds memory
CHUNK_BYTES = 1 << 20

COLUMNS = ("ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC")
HEAD, DEPREL, DEPS = 6, 7, 8  # column indices, the same in CoNLL-X (9 is PHEAD there)
MISC = 9  # column index of MISC (in CoNLL-X the tenth column is PDEPREL)

Source = str | os.PathLike | IO
Tree = tuple[Sequence[int], Sequence[str] | None]

_ID_LIST = [str(i) for i in range(1, MAX_WORDS + 1)]
_NINES = [9] * MAX_WORDS
_HEAD_VALUE = {str(i): i for i in range(MAX_WORDS + 1)} | {"_": -1}
_HEAD_TEXT = {i: text for text, i in _HEAD_VALUE.items()}
_WORD_ID = re.compile(r"[1-9][0-9]*")
_RANGE_ID = re.compile(r"([1-9][0-9]*)-([1-9][0-9]*)")
_EMPTY_ID = re.compile(r"(0|[1-9][0-9]*)\.([1-9][0-9]*)")
_BAD_BYTE = re.compile("[\udc80-\udcff]")  # what surrogateescape makes of invalid UTF-8
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f]")  # control characters but tab and LF
_GZIP_MAGIC = b"\x1f\x8b"


# ---------------------------------------------------------------- reading


def read(
    source: Source, *, skip_bad: bool = False, on_bad: Callable[[InputError], Any] | None = None
) -> Iterator[Sentence]:
    """Yield the sentences of a CoNLL-U file, plain or gzip.

    `source` is a path, ``-`` for standard input, or an open binary or text
    stream (binary is better: a text stream may already have turned CRLF into
    LF).  A malformed sentence raises `InputError`; with ``skip_bad=True`` it
    is passed to ``on_bad`` (default: print ``FILE:LINE: ... (sentence
    skipped)`` on stderr) and reading goes on.  Problems of the whole file
    (unreadable, corrupt gzip, CRLF line ends, byte-order mark) always raise.
    The file is opened when iteration starts and closed when it ends.
    """
    return read_blocks(source, parse_block, skip_bad=skip_bad, on_bad=on_bad)


def read_blocks(
    source: Source,
    parse: Callable[[str, str, int], Sentence],
    *,
    skip_bad: bool = False,
    on_bad: Callable[[InputError], Any] | None = None,
) -> Iterator[Sentence]:
    """Yield ``parse(block, path, first_line)`` for each sentence block of `source`.

    The streaming and error policy shared by the CoNLL-U and CoNLL-X readers;
    `parse` turns the text of one block (lines joined by LF) into a Sentence.
    """
    stream, name, owned = _open(source)
    report = on_bad or _report_skipped
    try:
        for batch in _batches(stream, name):
            sentences: list[Sentence] = []
            failure = None
            with _collector_paused():
                for block, first_line, error in batch:
                    if error is None:
                        try:
                            sentences.append(parse(block, name, first_line))
                            continue
                        except InputError as bad:
                            error = bad
                    if not skip_bad:
                        failure = error
                        break
                    report(error)
            yield from sentences
            if failure is not None:
                raise failure
    finally:
        if owned:
            stream.close()


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while one chunk is parsed.

    Parsing allocates many short-lived lists; the collector would run every
    few hundred of them and walk the growing list of sentences each time
    (about a fifth of the reading time).  Reference counting frees the
    garbage anyway; the collector resumes, if it was on, before the chunk's
    sentences are yielded.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _report_skipped(error: InputError) -> None:
    print(f"{error} (sentence skipped)", file=sys.stderr)


PLAIN_TEXT_HINT = (" (plain text? --input text reads it with a model that has a tokenizer, "
                   "--input tokens a sentence per line)")


def _open(source: Source) -> tuple[IO, str, bool]:
    """(stream, name for messages, whether we close it); gzip is unwrapped."""
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if path == "-":
            return _gunzipped(sys.stdin.buffer, "<stdin>"), "<stdin>", False
        try:
            f = open(path, "rb")
        except OSError as error:
            raise InputError(path, None, f"cannot read: {error.strerror}") from None
        return _gunzipped(f, path), path, True
    name = getattr(source, "name", None)
    name = name if isinstance(name, str) else "<stream>"
    if isinstance(source, io.TextIOBase):
        return source, name, False
    return _gunzipped(source, name), name, False


def _gunzipped(f: IO[bytes], name: str) -> IO[bytes]:
    if not hasattr(f, "peek"):
        f = io.BufferedReader(f)
    try:
        magic = f.peek(2)[:2]
    except OSError as error:
        raise InputError(name, None, f"cannot read: {error}") from None
    return _Gunzipped(f) if magic == _GZIP_MAGIC else f


class _Gunzipped(io.RawIOBase):
    """The decompressed bytes of a gzip stream, member after member.

    Unlike `gzip.GzipFile`, which skips zero bytes after the last member,
    anything after the last member is an error (`zlib.error`); so are a
    corrupt member (bad data, CRC or length) and a truncated one (EOFError).
    """

    def __init__(self, raw: IO[bytes]):
        self._raw = raw
        self._member = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self._input = b""  # compressed bytes read, not yet given to zlib

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        self._raw.close()
        super().close()

    def read(self, size: int = -1) -> bytes:
        """Up to `size` bytes (at least one unless at the end)."""
        size = CHUNK_BYTES if size is None or size < 0 else size
        while True:
            if self._member.eof:
                self._input = self._member.unused_data + self._input
                while len(self._input) < 2 and (more := self._raw.read(CHUNK_BYTES)):
                    self._input += more
                if not self._input:
                    return b""
                if self._input[:2] != _GZIP_MAGIC:
                    raise zlib.error(f"{len(self._input):,}+ bytes of trailing garbage after "
                                     "the gzip data")
                self._member = zlib.decompressobj(16 + zlib.MAX_WBITS)
            if not self._input:
                self._input = self._raw.read(CHUNK_BYTES)
                if not self._input:
                    raise EOFError("compressed data ends before the end of the gzip stream")
            data = self._member.decompress(self._input, size)
            self._input = self._member.unconsumed_tail
            if data:
                return data

    def readinto(self, buffer) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def _read_chunk(stream: IO, name: str, line: int) -> bytes | str:
    """The next chunk of `stream`; `line` is the line being read, named if the data is corrupt."""
    try:
        return stream.read(CHUNK_BYTES)
    except UnicodeDecodeError as error:  # a text stream's own decoding: no line known
        encoding = "UTF-8" if error.encoding in ("utf-8", "utf8") else error.encoding
        raise InputError(name, line, f"invalid {encoding} at this line or after it "
                         f"({error.reason}); read the file as bytes to have its line") from None
    except (OSError, EOFError, zlib.error) as error:
        raise InputError(name, line, f"corrupt or truncated gzip data in this line ({error})") \
            from None


def _batches(stream: IO, name: str) -> Iterator[list[tuple[str, int, InputError | None]]]:
    """Yield, per chunk, a list of (block text, its first line, error or None), one per sentence.

    Chunks are cut after their last blank line; the rest waits for the next
    chunk.  A block of invalid UTF-8 comes with its error (the sentence can be
    skipped); file-level problems raise.
    """
    first = _read_chunk(stream, name, 1)
    binary = isinstance(first, bytes)
    nl, separator = ("\n", "\n\n") if not binary else (b"\n", b"\n\n")
    if first[:3] == b"\xef\xbb\xbf" or first[:1] == "\ufeff":
        raise InputError(name, 1, "byte-order mark (BOM) at the start of the file; remove it")
    pending = first[:0]
    line = 1  # number of the line that starts `pending`
    skipping = False  # inside a sentence over MAX_SENTENCE_BYTES, skipped
    chunk = first
    while chunk:
        buffer = pending + chunk
        cut = buffer.rfind(separator, max(0, len(pending) - 1))
        if cut < 0:
            crlf = chunk.find(b"\r\n" if binary else "\r\n")
            if crlf >= 0 and not skipping:
                at = line + buffer.count(nl, 0, len(pending) + crlf)
                raise InputError(name, at, "CRLF line end; convert the file to LF line ends")
            if skipping:
                line += buffer.count(nl, 0, len(buffer) - 1)
                pending = buffer[-1:]
            elif len(buffer) > MAX_SENTENCE_BYTES:
                start = line + len(buffer) - len(buffer.lstrip(nl))
                message = f"sentence longer than {MAX_SENTENCE_BYTES} bytes (MAX_SENTENCE_BYTES): no blank line"
                yield [("", start, InputError(name, start, message))]
                skipping = True
                line += buffer.count(nl, 0, len(buffer) - 1)
                pending = buffer[-1:]
            else:
                pending = buffer
        else:
            done, pending = buffer[: cut + 2], buffer[cut + 2 :]
            if skipping:
                end = done.find(separator) + 2
                line += done.count(nl, 0, end)
                done = done[end:]
                skipping = False
            yield _split(done, line, name, binary)
            line += done.count(nl)
        chunk = _read_chunk(stream, name, line + pending.count(nl))
    if pending and not skipping:
        yield _split(pending, line, name, binary)


def _split(
    text: bytes | str, line: int, name: str, binary: bool
) -> list[tuple[str, int, InputError | None]]:
    """The sentence blocks of `text`, which starts at a sentence boundary on `line`."""
    bad_bytes = surrogates = False
    if binary:
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            text = text.decode("utf-8", "surrogateescape")
            bad_bytes = True
    else:  # a text stream's str may hold a lone surrogate, which UTF-8 cannot encode
        try:
            unicode_checked(text, name)
        except InputError:
            surrogates = True
    blocks = []
    for piece in text.split("\n\n"):
        block = piece.strip("\n")
        if block:
            first = line + len(piece) - len(piece.lstrip("\n"))
            error = None
            if bad_bytes and (m := _BAD_BYTE.search(block)):
                at = first + block.count("\n", 0, m.start())
                byte = ord(m.group()) - 0xDC00
                error = InputError(name, at, f"invalid UTF-8 (byte 0x{byte:02x})")
            elif surrogates:
                try:
                    unicode_checked(block, name, first)
                except InputError as found:
                    error = found
            blocks.append((block, first, error))
        line += piece.count("\n") + 2
    return blocks


def parse_block(
    block: str, path: str = "<string>", first_line: int = 1, *, conllx: bool = False
) -> Sentence:
    """The Sentence of one block of CoNLL-U lines (CoNLL-X with ``conllx=True``).

    `first_line` is the line number of the block's first line in `path`,
    for messages.  Raises `InputError` at the problem.
    """
    if "\r" in block:
        at = first_line + block.count("\n", 0, block.index("\r"))
        raise InputError(path, at, "carriage return (CR) in line; lines must end with LF only")
    if m := _CONTROL.search(block):
        at = first_line + block.count("\n", 0, m.start())
        raise InputError(path, at, f"control character U+{ord(m.group()):04X} in line")
    _check_columns(block, path, first_line)
    lines = block.split("\n")
    start = 0
    if not conllx:
        while start < len(lines) and lines[start][:1] == "#":
            start += 1
    n = len(lines) - start
    columns = None
    if 0 < n and list(map(str.count, lines[start:], repeat("\t"))) == _NINES[:n]:
        # Every line after the leading comments has 10 columns: split them all at
        # once; column k of line j (0-based) is fields[10 * j + k].
        body = block if start == 0 else block[sum(map(len, lines[:start])) + start :]
        fields = body.replace("\n", "\t").split("\t")
        ids = fields[0::10]
        if ids == _ID_LIST[:n]:  # words 1..n only: the common case
            columns = [fields[k::10] for k in range(DEPREL + 1)]
            word_lines = np.arange(start - 1, start + n, dtype=np.int32)
        elif not any(id_[:1] == "#" for id_ in ids):  # ranges and empty nodes
            words = _word_indices(ids, range(start, len(lines)), path, first_line, conllx)
            pick = (
                operator.itemgetter(*words)
                if len(words) > 1
                else lambda column: (column[words[0]],)
            )
            columns = [pick(fields[k::10]) for k in range(DEPREL + 1)]
            word_lines = np.array([-1, *words], dtype=np.int32) + start
    if columns is None:  # comments after words, or wrong column counts
        columns, word_lines = _word_columns(lines, start, path, first_line, conllx)
    word_lines[0] = -1
    n = len(columns[0])
    heads = list(map(_HEAD_VALUE.get, columns[HEAD]))
    if None in heads or max(heads) > n:
        i = next(i for i, h in enumerate(heads) if h is None or h > n)
        value = columns[HEAD][i]
        if _WORD_ID.fullmatch(value):
            message = f"HEAD {value!r} out of range: the sentence has {n} words"
        else:
            message = f"HEAD {value!r} is not a word number or _"
        raise InputError(path, first_line + int(word_lines[i + 1]), message)
    return Sentence(
        form=(ROOT, *columns[1]),
        lemma=(ROOT, *columns[2]),
        upos=(ROOT, *columns[3]),
        xpos=(ROOT, *columns[4]),
        feats=(ROOT, *columns[5]),
        head=np.array([-1, *heads], dtype=np.int32),
        deprel=(ROOT, *columns[DEPREL]),
        lines=lines,
        word_lines=word_lines,
        source=path,
        first_line=first_line,
    )


def _word_columns(
    lines: list[str], start: int, path: str, first_line: int, conllx: bool
) -> tuple[list, np.ndarray]:
    """The general case: comments anywhere (CoNLL-U), and column-count errors.

    Returns the word columns and the word_lines array.
    """
    positions = []  # index in `lines` of each non-comment line
    for index in range(start, len(lines)):
        if lines[index][:1] != "#":
            positions.append(index)
        elif conllx:
            raise InputError(
                path,
                first_line + index,
                "comment line in CoNLL-X (is this CoNLL-U? use --from conllu)",
            )
    rows = [lines[index].split("\t") for index in positions]
    ids = [row[0] for row in rows]
    for j, row in enumerate(rows):
        if len(row) != 10:
            # a problem on an earlier line is reported first
            _word_indices(ids[:j], positions, path, first_line, conllx, complete=False)
            fmt = "CoNLL-X" if conllx else "CoNLL-U"
            raise InputError(
                path,
                first_line + positions[j],
                f"{len(row)} columns; {fmt} has 10, separated by tabs"
                + (PLAIN_TEXT_HINT if len(row) == 1 else ""),
            )
    words = _word_indices(ids, positions, path, first_line, conllx)
    columns = list(zip(*(rows[j] for j in words)))
    return columns, np.array([-1, *(positions[j] for j in words)], dtype=np.int32)


def _word_indices(
    ids: list[str],
    positions: Sequence[int],
    path: str,
    first_line: int,
    conllx: bool,
    complete: bool = True,
) -> list[int]:
    """Check the IDs of a sentence's non-comment lines; return the indices of the words.

    `positions[j]` is the index in the sentence's lines of the line of
    ``ids[j]``.  Word IDs must run 1, 2, ... n; a multiword range a-b comes
    right before word a, with a < b <= n, after the end of the previous range;
    empty nodes i.1, i.2, ... come right after word i.  With
    ``complete=False`` (a prefix of the sentence) the checks that need the
    whole sentence are left out.
    """
    words: list[int] = []
    expected = 1  # the next word ID
    range_end, range_id, range_at = 0, "", 0  # the last multiword range
    awaiting_range_word = False  # a range line was read, its first word not yet
    empty_of, empty_k = -1, 0  # the last empty node i.k
    for j, id_ in enumerate(ids):
        if expected <= MAX_WORDS and id_ == _ID_LIST[expected - 1]:
            words.append(j)
            expected += 1
            awaiting_range_word = False
            continue
        at = first_line + positions[j]
        if _WORD_ID.fullmatch(id_):
            i = int(id_)
            if i < expected:
                raise InputError(path, at, f"duplicate word ID {i}")
            if i > MAX_WORDS and i == expected:
                raise InputError(path, at, f"sentence longer than {MAX_WORDS} words (MAX_WORDS)")
            if i > MAX_WORDS:
                raise InputError(
                    path, at, f"word ID {id_} too large: expected {expected} "
                    f"(a sentence has at most {MAX_WORDS} words)"
                )
            raise InputError(path, at, f"word ID {i} out of order: expected {expected}")
        elif conllx:
            raise InputError(
                path, at, f"bad ID {id_!r}: CoNLL-X word IDs are 1, 2, ... (is this CoNLL-U?)"
            )
        elif m := _RANGE_ID.fullmatch(id_):
            a, b = int(m[1]), int(m[2])
            if a >= b:
                raise InputError(
                    path, at, f"bad multiword token range {id_}: start must be below end"
                )
            if a <= range_end:
                raise InputError(
                    path, at, f"multiword token {id_} overlaps {range_id} (line {range_at})"
                )
            if a != expected:
                raise InputError(
                    path,
                    at,
                    f"multiword token {id_} must come right before word {a}, not word {expected}",
                )
            range_end, range_id, range_at = b, id_, at
            awaiting_range_word = True
        elif m := _EMPTY_ID.fullmatch(id_):
            if awaiting_range_word:
                raise InputError(
                    path,
                    at,
                    f"empty node {id_} between multiword token {range_id} and its first word",
                )
            want_i = expected - 1
            want_k = empty_k + 1 if empty_of == want_i else 1
            if (int(m[1]), int(m[2])) != (want_i, want_k):
                raise InputError(
                    path, at, f"empty node {id_} out of order: expected {want_i}.{want_k}"
                )
            empty_of, empty_k = want_i, want_k
        elif "-" in id_ or "." in id_:
            raise InputError(
                path, at, f"bad {'multiword token' if '-' in id_ else 'empty node'} ID {id_!r}"
            )
        else:
            raise InputError(
                path,
                at,
                f"bad ID {id_!r}: expected a word number, a range a-b or an empty node i.k",
            )
    if complete:
        if not words:
            raise InputError(
                path,
                first_line + positions[0] if positions else first_line,
                "sentence without words",
            )
        if range_end > len(words):
            raise InputError(
                path,
                range_at,
                f"multiword token {range_id} extends past the last word {len(words)}",
            )
    return words


def _check_columns(block: str, path: str, first_line: int) -> None:
    """Raise at the first column of a non-comment line that is empty or has a space at an end.

    Spaces inside FORM or LEMMA are allowed (UD), but a column that is only
    spaces, or has a space at either end (a trailing space after MISC), is not.
    """
    suspicious = (
        "\t\t" in block
        or "\t\n" in block
        or "\n\t" in block
        or " \t" in block
        or "\t " in block
        or " \n" in block
        or "\n " in block
        or block[0] in "\t "
        or block[-1] in "\t "
    )
    if not suspicious:  # the usual case, checked at C speed
        return
    for index, line in enumerate(block.split("\n")):
        if line[:1] != "#":
            for k, column in enumerate(line.split("\t")):
                stripped = column.strip(" ")
                if not column:
                    message = f"empty {_column_name(k)}"
                elif stripped != column:
                    what = "a space at its start or end" if stripped else "only spaces"
                    message = f"{_column_name(k)} has {what}"
                else:
                    continue
                raise InputError(path, first_line + index, message)


def _column_name(k: int) -> str:
    return f"{COLUMNS[k]} column" if k < len(COLUMNS) else f"column {k + 1}"


# ---------------------------------------------------------------- from tokens


Token = tuple[str, Sequence[str], bool]  # (surface form, its words, space after it)


def from_tokens(
    tokens: Sequence[Token],
    sent_id: str | None = None,
    *,
    path: str = "<text>",
    first_line: int = 1,
) -> Sentence:
    """A new untagged, unparsed sentence of tokens, as the tokenizer and plain inputs make it.

    Each token is (surface, words, space_after): a token of several words becomes a
    multiword range line followed by its words; ``SpaceAfter=No`` goes on the token
    when space_after is False (on the last token: the next sentence follows without a
    space).  The sentence gets
    ``# sent_id`` (if given) and ``# text`` (the surfaces joined by their spaces).
    Raises `InputError` for a token or word that cannot be written in a FORM column.
    """
    n = sum(len(words) for _, words, _ in tokens)
    if n > MAX_WORDS:
        raise InputError(path, first_line, f"a sentence of {n:,} words; at most {MAX_WORDS:,} "
                         "(MAX_WORDS)")
    text = "".join(surface + (" " if space else "") for surface, _, space in tokens[:-1])
    lines = [] if sent_id is None else [f"# sent_id = {sent_id}"]
    lines.append(f"# text = {text}{tokens[-1][0] if tokens else ''}")
    i = 1
    for surface, words, space_after in tokens:
        misc = "_" if space_after else "SpaceAfter=No"
        if len(words) > 1:
            lines.append(f"{i}-{i + len(words) - 1}\t{surface}\t_\t_\t_\t_\t_\t_\t_\t{misc}")
            for word in words:
                lines.append(f"{i}\t{word}\t_\t_\t_\t_\t_\t_\t_\t_")
                i += 1
        else:
            lines.append(f"{i}\t{surface}\t_\t_\t_\t_\t_\t_\t_\t{misc}")
            i += 1
    for line in lines:
        if "\n" in line or "\r" in line:
            raise InputError(path, first_line, "a line end inside a token")
    return parse_block("\n".join(lines), path, first_line)


# ---------------------------------------------------------------- trees


def with_tree(
    sentence: Sentence, head: Sequence[int], deprel: Sequence[str] | None = None
) -> Sentence:
    """A copy of `sentence` carrying the tree (head, deprel).

    `head` and `deprel` have n + 1 entries like the Sentence's columns (entry 0
    is ignored); -1 is written as ``_``; ``deprel=None`` keeps the old
    relations.  In `lines` only the HEAD, DEPREL and DEPS columns of word
    lines change; comments, ranges, empty nodes and every other column stay
    as they were.  DEPS must not contradict the new tree: it becomes the
    basic tree's ``HEAD:DEPREL`` when the sentence had an enhanced graph (a
    word with a DEPS value containing ``:``), so that tools reading enhanced
    graphs still find one, and ``_`` otherwise.  In CoNLL-X, columns 9 and
    10 are PHEAD and PDEPREL, a projective tree: when a word has a PHEAD,
    both become ``_`` on every word.
    """
    n = sentence.n
    new_head = np.array(head, dtype=np.int32)
    if new_head.shape != (n + 1,):
        raise ValueError(f"head has shape {new_head.shape}; the sentence needs ({n + 1},)")
    new_head[0] = -1
    if n and (new_head[1:].min() < -1 or new_head[1:].max() > n):
        raise ValueError(f"head values must lie in -1..{n}")
    if deprel is None:
        new_deprel = sentence.deprel
    else:
        if len(deprel) != n + 1:
            raise ValueError(f"deprel has {len(deprel)} entries; the sentence needs {n + 1}")
        new_deprel = (ROOT, *deprel[1:])
        _check_relations(new_deprel[1:])
    lines, word_lines = _lines(sentence)
    lines = list(lines)
    word_lines = np.asarray(word_lines, dtype=np.int32)
    heads = [_HEAD_TEXT.get(h) or str(h) for h in new_head.tolist()]
    rows = [lines[k].split("\t", DEPS + 1) for k in word_lines.tolist()[1:]]
    enhanced = any(":" in columns[DEPS] for columns in rows)
    projective = not enhanced and any(_WORD_ID.fullmatch(c[DEPS]) for c in rows)  # PHEAD
    for i, (k, columns) in enumerate(zip(word_lines.tolist()[1:], rows), 1):
        columns[HEAD], columns[DEPREL] = heads[i], new_deprel[i]
        columns[DEPS] = f"{heads[i]}:{new_deprel[i]}" if enhanced and heads[i] != "_" else "_"
        if projective:
            columns[DEPS + 1] = "_"
        lines[k] = "\t".join(columns)
    return dataclasses.replace(
        sentence, head=new_head, deprel=new_deprel, lines=lines, word_lines=word_lines
    )


_TAG_COLUMN_INDEX = {"lemma": 2, "upos": 3, "xpos": 4, "feats": 5}


def with_columns(sentence: Sentence, **columns: Sequence[str]) -> Sentence:
    """A copy of `sentence` with new values in some of LEMMA, UPOS, XPOS and FEATS
    (keywords lemma, upos, xpos, feats; n + 1 entries each, entry 0 ignored): in
    `lines` only those columns of word lines change."""
    unknown = set(columns) - set(_TAG_COLUMN_INDEX)
    if unknown:
        raise ValueError(f"with_columns: no such column {', '.join(sorted(unknown))}")
    n = sentence.n
    for name, values in columns.items():
        if len(values) != n + 1:
            raise ValueError(f"{name} has {len(values)} entries; the sentence needs {n + 1}")
        _check_relations(values[1:])  # the same rule: non-empty, no tab or line end
    lines, word_lines = _lines(sentence)
    lines = list(lines)
    for i, k in enumerate(word_lines.tolist()[1:] if hasattr(word_lines, "tolist")
                          else list(word_lines)[1:], 1):
        fields = lines[k].split("\t")
        for name, values in columns.items():
            fields[_TAG_COLUMN_INDEX[name]] = values[i]
        lines[k] = "\t".join(fields)
    fields = {name: (ROOT, *values[1:]) for name, values in columns.items()}
    return dataclasses.replace(sentence, lines=lines,
                               word_lines=np.asarray(word_lines, dtype=np.int32), **fields)


def without_tags(sentence: Sentence, columns: Sequence[str] = ("upos", "xpos", "feats")
                 ) -> Sentence:
    """A copy of `sentence` with `columns` (UPOS, XPOS and FEATS by default) blanked to _."""
    return with_columns(sentence, **{c: (ROOT,) + ("_",) * sentence.n for c in columns})


def with_sent_id(sentence: Sentence, sent_id: str) -> Sentence:
    """A copy of `sentence` whose ``# sent_id`` comment says sent_id (a new first line
    when it had none)."""
    lines, word_lines = _lines(sentence)
    lines = list(lines)
    for k, line in enumerate(lines):
        if not line.startswith("#"):
            break
        if line.startswith("# sent_id ="):
            lines[k] = f"# sent_id = {sent_id}"
            return dataclasses.replace(sentence, lines=lines,
                                       word_lines=np.asarray(word_lines, dtype=np.int32))
    return dataclasses.replace(sentence, lines=[f"# sent_id = {sent_id}", *lines],
                               word_lines=np.asarray(word_lines, dtype=np.int32) + 1)


def misc(sentence: Sentence) -> tuple[str, ...]:
    """The MISC column of every word (n + 1 entries, entry 0 ``_``); the tenth
    column, PDEPREL, of a CoNLL-X sentence."""
    lines, word_lines = _lines(sentence)
    return ("_", *(lines[k].split("\t")[MISC] for k in word_lines[1:]))


def with_misc(sentence: Sentence, attributes: Sequence[Mapping[str, str | None]]) -> Sentence:
    """A copy of `sentence` with MISC attributes set on its words.

    attributes has n + 1 entries (entry 0 is ignored); attributes[i] maps
    names to values for word i.  Each replaces the attribute of that name in
    the word's MISC (``Name=value``, ``|``-separated), ``None`` deletes it, a
    new one goes at the end; the others stay as they are.  MISC without
    attributes is ``_``.  Only the tenth column of word lines changes.
    """
    if len(attributes) != sentence.n + 1:
        raise ValueError(f"{len(attributes)} MISC entries; the sentence needs {sentence.n + 1}")
    lines, word_lines = _lines(sentence)
    lines = list(lines)
    word_lines = np.asarray(word_lines, dtype=np.int32)
    for i, k in enumerate(word_lines.tolist()[1:], 1):
        columns = lines[k].split("\t")
        columns[MISC] = merged_misc(columns[MISC], attributes[i])
        lines[k] = "\t".join(columns)
    return dataclasses.replace(sentence, lines=lines, word_lines=word_lines)


def merged_misc(text: str, attributes: Mapping[str, str | None]) -> str:
    """A MISC value with `attributes` set (see `with_misc`)."""
    for name, value in attributes.items():
        if value is not None and ("|" in value or "\t" in value or "\n" in value or not value):
            raise ValueError(f"bad MISC value {value!r} for {name}")
    items = [] if text == "_" else text.split("|")
    out, done = [], set()
    for item in items:
        name = item.split("=", 1)[0]
        if name not in attributes:
            out.append(item)
        elif name not in done:  # the first of a name takes the new value, the others go
            done.add(name)
            if attributes[name] is not None:
                out.append(f"{name}={attributes[name]}")
    out += [f"{name}={value}" for name, value in attributes.items()
            if name not in done and value is not None]
    return "|".join(out) or "_"


def _check_relations(relations: Sequence[str]) -> None:
    """Raise ValueError unless every relation is a non-empty string without tab or line end."""
    try:
        joined = "\t".join(relations)
    except TypeError:
        raise ValueError(f"dependency relations must be strings: {relations!r}") from None
    if (
        "" in relations
        or joined.count("\t") != len(relations) - 1
        or "\n" in joined
        or "\r" in joined
    ):
        bad = next(r for r in relations if not r or "\t" in r or "\n" in r or "\r" in r)
        raise ValueError(f"bad dependency relation {bad!r}")


def _lines(sentence: Sentence) -> tuple[list[str], Sequence[int]]:
    """The sentence's lines, made from its columns when it has none (built in code)."""
    if sentence.lines:
        return sentence.lines, sentence.word_lines
    s = sentence
    heads = ["_" if h < 0 else str(h) for h in s.head.tolist()]
    lines = [
        "\t".join(
            (
                str(i),
                s.form[i],
                s.lemma[i],
                s.upos[i],
                s.xpos[i],
                s.feats[i],
                heads[i],
                s.deprel[i],
                "_",
                "_",
            )
        )
        for i in range(1, s.n + 1)
    ]
    return lines, [-1, *range(s.n)]


def common_core(sentence: Sentence) -> Sentence:
    """The sentence with word lines only, columns 9 and 10 set to ``_``.

    What CoNLL-U and CoNLL-X share (ID FORM LEMMA UPOS/CPOSTAG XPOS/POSTAG
    FEATS HEAD DEPREL): the conversion between the two formats, both ways.
    Comments, multiword ranges, empty nodes, DEPS/MISC and PHEAD/PDEPREL go.
    """
    lines, word_lines = _lines(sentence)
    core = [
        "\t".join(lines[word_lines[i]].split("\t", 8)[:8]) + "\t_\t_"
        for i in range(1, sentence.n + 1)
    ]
    word_lines = np.arange(-1, sentence.n, dtype=np.int32)
    return dataclasses.replace(sentence, lines=core, word_lines=word_lines)


def from_conllx(sentence: Sentence) -> Sentence:
    """A CoNLL-X sentence as CoNLL-U: PHEAD/PDEPREL dropped, DEPS and MISC ``_``."""
    return common_core(sentence)


# ---------------------------------------------------------------- writing


def format_sentence(sentence: Sentence, tree: Tree | None = None) -> str:
    """The sentence's lines, each ending with LF, plus the blank line after it."""
    if tree is not None:
        sentence = with_tree(sentence, *tree)
    return "\n".join(_lines(sentence)[0]) + "\n\n"


def write(
    target: str | os.PathLike | IO,
    sentences: Iterable[Sentence],
    *,
    trees: Iterable[Tree | None] | None = None,
) -> int:
    """Write `sentences` to `target`; return how many were written.

    `target` is a path (written atomically, gzip if it ends with ``.gz``),
    ``-`` for standard output, or an open text or binary stream.  `trees`, if
    given, holds one ``(head, deprel)`` per sentence (or None to keep that
    sentence's tree): see `with_tree`; only HEAD, DEPREL and DEPS change.  The same
    function writes CoNLL-X sentences, whose lines are kept the same way.
    """
    pairs = (
        zip(sentences, trees, strict=True) if trees is not None else ((s, None) for s in sentences)
    )
    count = 0
    with open_text_output(target) as out:
        for sentence, tree in pairs:
            out.write(format_sentence(sentence, tree))
            count += 1
    return count


@contextmanager
def open_text_output(target: str | os.PathLike | IO) -> Iterator[IO[str]]:
    """A UTF-8 text stream (LF line ends) to a path, ``-`` or an open stream.

    Paths are written atomically (see `atomic_write`), gzip-compressed when
    they end with ``.gz`` (deterministic: no time stamp, no file name).
    """
    if isinstance(target, io.TextIOBase):
        yield target
        return
    if not isinstance(target, (str, os.PathLike)):
        text = io.TextIOWrapper(target, encoding="utf-8", newline="")
        try:
            yield text
            text.flush()
        finally:
            text.detach()
        return
    path = os.fspath(target)
    if path == "-" and not hasattr(sys.stdout, "buffer"):  # stdout replaced by a text stream
        yield sys.stdout
        return
    with atomic_write(path, "wb") as binary:
        raw = (
            gzip.GzipFile(filename="", fileobj=binary, mode="wb", mtime=0)
            if path.endswith(".gz")
            else binary
        )
        text = io.TextIOWrapper(raw, encoding="utf-8", newline="")
        try:
            yield text
            text.flush()
        finally:
            text.detach()
        if raw is not binary:
            raw.close()
