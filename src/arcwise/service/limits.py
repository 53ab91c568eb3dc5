"""What one request may ask of the server (``arcwise serve --max-...``)."""

from __future__ import annotations

from dataclasses import dataclass

MAX_REQUEST_BYTES = 4 << 20
MAX_SENTENCE_WORDS = 500


@dataclass(frozen=True)
class Limits:
    """Bodies over max_request_bytes get 413; a sentence over max_sentence_words, 422."""

    max_request_bytes: int = MAX_REQUEST_BYTES
    max_sentence_words: int = MAX_SENTENCE_WORDS
