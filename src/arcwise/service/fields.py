"""A request's text fields, read as the command line reads a file: UTF-8, strictly.

Starlette decodes leniently: an invalid byte of a query string or a urlencoded form
becomes U+FFFD, a multipart field that is not UTF-8 is read as Latin-1.  `udpipe_parameters`
decodes /process's parameters itself, and `json_checked` refuses a lone surrogate (a JSON
``"\\ud800"``) in a JSON body's fields, so that such text is a 400 naming the field
(``data: line 3: invalid UTF-8 (byte 0xff)``), never parsed altered or a 500.
"""

from __future__ import annotations

import re
from urllib.parse import unquote_to_bytes

from pydantic import BaseModel
from starlette.datastructures import Headers, UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request

from arcwise.core.errors import InputError
from arcwise.core.text import unicode_checked, utf8_decoded
from arcwise.service.errors import RequestError, TooLarge
from arcwise.service.formats import located

MAX_FIELDS = 1000  # of a query string, or of a urlencoded form (Starlette's form default)
CHUNK = 1 << 16  # bytes of a urlencoded value unquoted at a time
_FIELD = re.compile(rb"[^&]+")


def text_field(name: str, value: str | bytes) -> str:
    """A field's text: bytes decoded from UTF-8, a str without a lone surrogate
    (`arcwise.core.text`); else `RequestError` ``NAME: line N: what is wrong`` (a name
    that is not printable as its repr, so that the message stays one line)."""
    try:
        return unicode_checked(value, name) if isinstance(value, str) else \
            utf8_decoded(value, name)
    except InputError as error:
        shown = name if name.isprintable() else repr(name)
        raise RequestError(f"{shown}: {located(error)}") from None


def json_checked(body: BaseModel) -> None:
    """Every text of a JSON request's fields checked (`text_field`; a list's item named
    ``field.k``, as pydantic names it)."""
    for name, value in body:
        items = enumerate(value) if isinstance(value, list) else [(None, value)]
        for k, item in items:
            if isinstance(item, str):
                text_field(name if k is None else f"{name}.{k}", item)


async def udpipe_parameters(request: Request, max_part_size: int) -> dict[str, str]:
    """/process's parameters: the query string's, then a urlencoded or multipart form
    body's (a later value of a name replaces an earlier), each decoded by `text_field`."""
    pairs = _urlencoded(request.scope.get("query_string", b""))
    if request.method == "POST":
        media = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if media == "application/x-www-form-urlencoded":
            pairs += _urlencoded(await request.body())
        elif media == "multipart/form-data":
            pairs += await _multipart(request, max_part_size)
    parameters = {}
    for name, value in pairs:
        name = text_field("a parameter's name", name)
        parameters[name] = text_field(name, value)
    return parameters


def _urlencoded(encoded: bytes) -> list[tuple[bytes, bytes]]:
    """(name, value) bytes of a query string or urlencoded form (``+``: a space, ``%XX``:
    a byte), as `urllib.parse.parse_qsl` reads them (empty fields skipped, a field without
    ``=`` an empty value), in memory bounded by the body's size: `TooLarge` beyond
    `MAX_FIELDS` fields, each value unquoted `CHUNK` bytes at a time (unquoted whole, a
    value cost the server about 230 bytes per ``%XX``: a 4 MiB body of them, 323 MiB)."""
    pairs = []
    for field in _FIELD.finditer(encoded):
        if len(pairs) == MAX_FIELDS:
            raise TooLarge(f"more than {MAX_FIELDS:,} fields in the query string or form")
        name, _, value = field.group().partition(b"=")
        pairs.append((_unquoted(name), _unquoted(value)))
    return pairs


def _unquoted(data: bytes) -> bytes:
    """`data` with ``+`` a space and each ``%XX`` its byte, `CHUNK` bytes at a time (each
    chunk ends before an escape it would cut: a ``%`` in its last two bytes)."""
    data = data.replace(b"+", b" ")
    if b"%" not in data:
        return data
    pieces, start = [], 0
    while start < len(data):
        end = start + CHUNK
        if end < len(data) and (cut := data.rfind(b"%", end - 2, end)) >= 0:
            end = cut
        pieces.append(unquote_to_bytes(data[start:end]))
        start = end
    return b"".join(pieces)


async def _multipart(request: Request, max_part_size: int) -> list[tuple[bytes, bytes]]:
    """(name, value) bytes of a multipart form's fields and files: Starlette's parser,
    told that the form is Latin-1 (the last charset given wins), reads each byte as one
    character."""
    headers = Headers({"content-type": request.headers["content-type"] + "; charset=latin-1"})
    try:
        form = await MultiPartParser(headers, request.stream(),
                                     max_part_size=max_part_size).parse()
    except MultiPartException as error:
        raise RequestError(error.message) from None
    try:
        return [(name.encode("latin-1"),
                 await value.read() if isinstance(value, UploadFile) else value.encode("latin-1"))
                for name, value in form.multi_items()]
    finally:
        await form.close()
