"""What one request may ask of the server, and how long a connection may take
(``arcwise serve --max-...`` and ``--...-seconds``, each named after its field).

Sizes are checked before any work: the body's bytes as it arrives
(`arcwise.service.guard`), then its sentences and words, counted from the text
without building a sentence (`check_size` of `arcwise.service.formats`' counts),
so a request over a limit costs a scan of the text up to the limit, never a parse.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from arcwise.service.errors import TooLarge


@dataclass(frozen=True)
class Limits:
    """Per-request bounds; each error names the limit and the option that raises it.

    Sizes: a body over max_request_bytes gets 413, as does a request over
    max_request_sentences or max_request_words; a sentence over
    max_sentence_words gets 422.  Time: a request not answered within
    max_request_seconds of its body's arrival gets 503; a body that stalls for
    body_seconds gets 408.  A connection that has not sent a whole request
    header within keep_alive_seconds of opening or of its last answer is closed.
    Load: a request that comes while max_concurrent_requests are in flight in this
    server process gets 503 (`arcwise.service.guard`), so that the requests in flight,
    each within its size limits, bound the process's memory.
    """

    max_request_bytes: int = 4 << 20
    max_sentence_words: int = 500
    max_request_sentences: int = 10_000
    max_request_words: int = 100_000
    max_request_seconds: float = 60.0
    body_seconds: float = 20.0
    keep_alive_seconds: float = 5.0
    max_concurrent_requests: int = 32

    def check_size(self, counts: Iterable[tuple[int, int]]) -> None:
        """Raise `TooLarge` as soon as the running sum of `counts`, (sentences, words)
        pairs, passes max_request_sentences or max_request_words (the rest is not read)."""
        sentences = words = 0
        for more_sentences, more_words in counts:
            sentences += more_sentences
            words += more_words
            if sentences > self.max_request_sentences:
                raise TooLarge(self.refusal("max_request_sentences", "sentences"))
            if words > self.max_request_words:
                raise TooLarge(self.refusal("max_request_words", "words"))

    def refusal(self, limit: str, unit: str) -> str:
        """The one-line reason of a request over `limit` (a field), counted in `unit`."""
        return f"request over the limit of {getattr(self, limit):,} {unit}{raise_with(limit)}"


def option(limit: str) -> str:
    """The ``arcwise serve`` option that sets a `Limits` field."""
    return "--" + limit.replace("_", "-")


def raise_with(limit: str) -> str:
    """The end of a refusal: how to raise `limit`."""
    return f" (arcwise serve {option(limit)} raises it)"
