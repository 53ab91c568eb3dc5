"""CoNLL-X (CoNLL 2006/2007 shared tasks): the CoNLL-U reader and writer, restricted.

Columns: ID FORM LEMMA CPOSTAG POSTAG FEATS HEAD DEPREL PHEAD PDEPREL.  In a
`Sentence`, CPOSTAG is `upos` and POSTAG is `xpos`; PHEAD and PDEPREL stay in
`lines` only.  No comments, multiword ranges or empty nodes: such lines are
errors (the file is probably CoNLL-U).  Streaming, limits, error reports and
the lossless writer are those of `arcwise.io.conllu`; HEAD and DEPREL are
columns 7 and 8 in both formats, so `conllu.write` and `with_tree` serve
CoNLL-X sentences unchanged (`write` here is the same function).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from arcwise.core.corpus import Sentence
from arcwise.core.errors import InputError
from arcwise.io import conllu
from arcwise.io.conllu import Source, write  # noqa: F401  (the writer is shared)


def read(
    source: Source, *, skip_bad: bool = False, on_bad: Callable[[InputError], Any] | None = None
) -> Iterator[Sentence]:
    """Yield the sentences of a CoNLL-X file, plain or gzip; see `conllu.read`."""
    return conllu.read_blocks(source, parse_block, skip_bad=skip_bad, on_bad=on_bad)


def parse_block(block: str, path: str = "<string>", first_line: int = 1) -> Sentence:
    """The Sentence of one block of CoNLL-X lines; raises `InputError`."""
    return conllu.parse_block(block, path, first_line, conllx=True)


def from_conllu(sentence: Sentence) -> Sentence:
    """A CoNLL-U sentence as CoNLL-X: comments, ranges and empty nodes dropped,
    CPOSTAG = UPOS, POSTAG = XPOS, PHEAD and PDEPREL ``_``."""
    return conllu.common_core(sentence)
