"""The errors a request can cause, each with its HTTP status; `str()` is the whole message."""

from __future__ import annotations

from arcwise.core.errors import ArcwiseError


class RequestError(ArcwiseError):
    """A bad request: answered with `status` and ``{"error": message}``, never a traceback."""

    status = 400


class UnknownModel(RequestError):
    status = 404


class Unprocessable(RequestError):
    """Well-formed, but this server or model cannot do it (a sentence over the word limit,
    raw text for a model without a tokenizer)."""

    status = 422


class TooLarge(RequestError):
    status = 413


class Stalled(RequestError):
    """The client stopped sending its body."""

    status = 408


class Unavailable(RequestError):
    """The server cannot answer now: shutting down, or the request took too long."""

    status = 503
