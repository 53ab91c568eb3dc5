"""Pre-tokenized plain text: one sentence per line, its tokens separated by whitespace.

`read(source)` yields one untagged, unparsed `Sentence` per non-blank line
(`conllu.from_tokens`: ``# sent_id`` = the sentence's number, ``# text`` =
the tokens joined by single spaces); blank lines are skipped.  Input is
UTF-8, plain or gzip, ``-`` for stdin; errors name the file and line.
"""

from __future__ import annotations

import io
import re
import unicodedata
import zlib
from collections.abc import Iterator

from arcwise.core.corpus import Sentence
from arcwise.core.errors import InputError
from arcwise.core.text import unicode_checked, utf8_decoded
from arcwise.io import conllu

# control characters that are not whitespace (tab, VT, FF and \x1c-\x1f are: a raw text's
# spaces, a line's separators between words)
_CONTROL = re.compile("[\x00-\x08\x0e-\x1b\x7f]")
BOM = "\ufeff"
MAX_LINE = 1_000_000  # characters of a line of text: bounds the memory of reading one
# characters: a paragraph ends at the end of the line that makes it this long (line ends
# counted), so that a text without blank lines streams in bounded memory
MAX_PARAGRAPH = 100_000


def composed(text: str) -> str:
    """The text in Unicode NFC (``e`` and a combining acute accent: ``é``), as UD requires
    of every form (the validator's unicode-normalization check): raw and pre-tokenized
    text are read so."""
    return text if unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)


def text_read(text: str) -> str:
    """A string of raw text as arcwise reads it: `composed`, without a byte-order mark
    starting it (as a file's, see `lines`); a lone surrogate in it is an `InputError`
    (`arcwise.core.text.unicode_checked`), as invalid UTF-8 is in a file."""
    return composed(unicode_checked(text, "<text>")).removeprefix(BOM)


def lines(source: conllu.Source) -> Iterator[tuple[str, int, str]]:
    """(file name, line number, text without its line end, `composed`) of every line of a
    UTF-8 text file (plain or gzip, ``-`` for stdin).  Each line is decoded and checked by
    itself, so an error names its own line: invalid UTF-8, or a control character that is
    not whitespace (`str.isspace`: tab, VT, FF are) in a line that is not blank.  Lines end
    at LF, CRLF or CR, as in Python's universal newlines; a byte-order mark starting the
    file is dropped, as Python's ``utf-8-sig`` does (the CoNLL-U reader refuses one
    instead, as the UD validator does)."""
    stream, name, owned = conllu._open(source)
    buffered = io.BufferedReader(stream) if isinstance(stream, io.RawIOBase) else stream
    limit = 4 * (MAX_LINE + 1)  # bytes: a line that fills them has more than MAX_LINE characters
    number = 0
    try:
        while True:
            try:
                data = buffered.readline(limit)
            except UnicodeDecodeError as error:  # a text stream's own decoding
                raise InputError(name, number + 1, f"invalid UTF-8 ({error.reason})") from None
            except (OSError, EOFError, zlib.error) as error:
                raise InputError(name, number + 1, f"cannot read: {error}") from None
            if not data:
                return
            if isinstance(data, bytes):
                if len(data) == limit and not data.endswith(b"\n"):
                    raise _too_long(name, number + 1)
                data = utf8_decoded(data, name, number + 1)
            else:  # a text stream's str: a lone surrogate is no character (`unicode_checked`)
                unicode_checked(data, name, number + 1)
            for line in data.removesuffix("\n").removesuffix("\r").split("\r"):  # lone CRs too
                number += 1
                if number == 1 and line.startswith(BOM):  # an encoding's mark, not text
                    line = line[len(BOM):]
                if len(line) > MAX_LINE:  # /dev/zero, say
                    raise _too_long(name, number)
                if (bad := _CONTROL.search(line)) and line.strip():
                    raise InputError(name, number,
                                     f"control character U+{ord(bad.group()):04X} in line")
                yield name, number, composed(line)
    finally:
        if buffered is not stream:
            buffered.detach()  # the stream is closed below, or stays open for its owner
        if owned:
            stream.close()


def _too_long(name: str, number: int) -> InputError:
    return InputError(name, number, f"a line longer than {MAX_LINE:,} characters (MAX_LINE): "
                      "break the text into lines")


def read(source: conllu.Source) -> Iterator[Sentence]:
    """One Sentence per non-blank line of `source` (see the module docstring)."""
    count = 0
    for name, number, line in lines(source):
        words = line.split()
        if not words:
            continue
        count += 1
        yield conllu.from_tokens([(w, (w,), True) for w in words], str(count),
                                 path=name, first_line=number)


def paragraphs(source: conllu.Source) -> Iterator[tuple[str, int, str]]:
    """(file name, first line, text) of every paragraph of a plain UTF-8 text: the lines
    between blank lines, joined by LF (for a tokenizer, which ends a sentence at each); a
    paragraph reaching `MAX_PARAGRAPH` characters ends with that line (`cut_paragraph`)."""
    name, first, block, size = "<text>", 0, [], 0
    for name, number, line in lines(source):
        if line.strip():
            if not block:
                first = number
            block.append(line)
            size += len(line) + 1
            if size < MAX_PARAGRAPH:
                continue
        if block:
            yield name, first, "\n".join(block)
            block, size = [], 0
    if block:
        yield name, first, "\n".join(block)


def cut_paragraph(text: str) -> list[str]:
    """A paragraph in pieces as `paragraphs` reads them from a file: each ends with the
    first line that makes it `MAX_PARAGRAPH` characters long (line ends counted)."""
    if len(text) < MAX_PARAGRAPH:
        return [text]
    pieces, start, size = [], 0, 0
    lines = text.split("\n")
    for k, line in enumerate(lines):
        size += len(line) + 1
        if size >= MAX_PARAGRAPH:
            pieces.append("\n".join(lines[start : k + 1]))
            start, size = k + 1, 0
    if start < len(lines):
        pieces.append("\n".join(lines[start:]))
    return pieces
