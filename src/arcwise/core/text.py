"""Text as arcwise takes it: Unicode strings, decoded from UTF-8 strictly.

A Python str may hold a lone surrogate (half of a UTF-16 pair: a JSON ``"\\ud800"``, or
what a lenient decoder makes of a bad byte), which is no Unicode character and which
UTF-8 cannot encode.  `unicode_checked` refuses one where text enters (raw text, words, a
request's fields); `utf8_decoded` reads bytes so that none is made.  Both raise
`InputError` at the line at fault (no line for text of one line).
"""

from __future__ import annotations

import re

from arcwise.core.errors import InputError

_SURROGATE = re.compile("[\ud800-\udfff]")


def _line(text: str | bytes, at: int) -> int | None:
    """The 1-based line of offset `at`; None when `text` is one line."""
    newline = "\n" if isinstance(text, str) else b"\n"
    return text.count(newline, 0, at) + 1 if newline in text else None


def unicode_checked(text: str, source: str, line: int | None = None) -> str:
    """`text` itself; `InputError` at its first lone surrogate (see the module docstring).
    line: where `text` starts in its source (a reader's line), counted on to the
    surrogate's."""
    if text.isascii() or not (m := _SURROGATE.search(text)):
        return text
    column = m.start() - text.rfind("\n", 0, m.start())
    at = _line(text, m.start()) if line is None else line + text.count("\n", 0, m.start())
    raise InputError(source, at,
                     f"lone surrogate U+{ord(m.group()):04X} at character {column}: half of a "
                     "UTF-16 pair, not a Unicode character")


def utf8_decoded(data: bytes, source: str, line: int | None = None) -> str:
    """`data` decoded from UTF-8; `InputError` at its first invalid byte, as the readers
    of files report one (``invalid UTF-8 (byte 0xff)``).  line: where `data` starts in
    its source (a reader's line), counted on to the bad byte's."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        at = _line(data, error.start) if line is None else \
            line + data.count(b"\n", 0, error.start)
        raise InputError(source, at, f"invalid UTF-8 (byte 0x{data[error.start]:02x})") \
            from None
