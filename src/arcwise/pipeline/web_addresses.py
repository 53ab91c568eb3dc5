"""URLs and e-mail addresses, which the tokenizer keeps whole (UDPipe 1's ``tokenize_url``).

Character features cannot tell where ``http://www.gulf-news.com/news.asp?ID=97508``
ends: to them its hyphen, slash and question mark are punctuation, which usually
ends a token.  So an address the pattern below finds is one token, unless the
treebank the tokenizer learns from splits most of its own (`kept_whole`).
Punctuation at an address's end (``.`` ``,`` ``)`` ...) is left out of it, a
closing bracket only when the address has no opening one to match.
"""

from __future__ import annotations

import re

import numpy as np

PATTERN = re.compile(
    r"(?:(?:https?|ftp)://|www\.)[^\s<>\"]+"  # a URL
    r"|(?:mailto:)?[\w.+-]+@[\w-]+(?:\.[\w-]+)+",  # an e-mail address
    re.IGNORECASE)
TRAILING = ".,;:!?'\")]}"
OPENING = {")": "(", "]": "[", "}": "{"}


def spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every URL and e-mail address in text, end exclusive."""
    found = []
    for match in PATTERN.finditer(text):
        start, end = match.span()
        while end > start and text[end - 1] in TRAILING:
            closing = text[end - 1]
            if closing in OPENING and \
                    text.count(OPENING[closing], start, end) >= text.count(closing, start, end):
                break  # (the bracket the address opened)
            end -= 1
        if end - start > 4:
            found.append((start, end))
    return found


def kept_whole(text: str, token_ends: np.ndarray) -> bool:
    """Whether a treebank keeps at least half of the addresses in its text whole (True
    when it has none): token_ends[i] says a token ends at character i."""
    whole = split = 0
    for start, end in spans(text):
        starts_token = start == 0 or text[start - 1].isspace() or bool(token_ends[start - 1])
        if starts_token and token_ends[end - 1] and not token_ends[start : end - 1].any():
            whole += 1
        else:
            split += 1
    return whole >= split
