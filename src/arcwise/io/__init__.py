"""Reading and writing treebanks (CoNLL-U, CoNLL-X), atomically.

`conllu.read` / `conllx.read` stream Sentences from a file; `conllu.write`
writes them back losslessly (optionally with new trees); `read_treebank`
picks the reader from the file name.  Malformed input raises
`arcwise.core.errors.InputError` with file and line.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any

from arcwise.core.corpus import Sentence
from arcwise.core.errors import ArcwiseError, InputError
from arcwise.io import conllu, conllx

FORMATS = ("conllu", "conllx")  # treebank formats, read and written
INPUT_FORMATS = (*FORMATS, "tokens")  # what a parser reads: tokens = one sentence per line
_EXTENSIONS = {".conllu": "conllu", ".conll": "conllx", ".conllx": "conllx"}


def format_of(path: str | os.PathLike | IO) -> str | None:
    """The format named by a file's extension (``.conllu``, ``.conll``, ``.conllx``,
    each optionally followed by ``.gz``), or None."""
    if not isinstance(path, (str, os.PathLike)):
        return None
    name = os.fspath(path).lower()
    name = name.removesuffix(".gz")
    return _EXTENSIONS.get(os.path.splitext(name)[1])


def read_treebank(
    source: str | os.PathLike | IO,
    format: str | None = None,
    *,
    skip_bad: bool = False,
    on_bad: Callable[[InputError], Any] | None = None,
) -> Iterator[Sentence]:
    """Yield the sentences of a treebank file, plain or gzip (``-`` = stdin).

    `format` is ``"conllu"`` or ``"conllx"``; by default it comes from the
    extension (`format_of`), and otherwise the CoNLL-U reader is used: it
    reads CoNLL-X files too (same ten columns, and the comments, ranges and
    empty nodes it also accepts cannot occur in them).  ``"tokens"`` reads
    pre-tokenized text, one sentence per line (`arcwise.io.tokens`).
    """
    format = format or format_of(source) or "conllu"
    if format == "tokens":
        from arcwise.io import tokens

        return tokens.read(source)
    if format not in FORMATS:
        raise ArcwiseError(f"unknown treebank format {format!r}; known: {', '.join(FORMATS)}")
    reader = conllu.read if format == "conllu" else conllx.read
    return reader(source, skip_bad=skip_bad, on_bad=on_bad)


def convert(
    sentences: Iterable[Sentence], source_format: str, target_format: str
) -> Iterator[Sentence]:
    """The sentences as `target_format` (identity when the formats agree)."""
    for format in (source_format, target_format):
        if format not in FORMATS:
            raise ArcwiseError(f"unknown treebank format {format!r}; known: {', '.join(FORMATS)}")
    if source_format == target_format:
        return iter(sentences)
    return map(conllu.common_core, sentences)


__all__ = [
    "FORMATS", "INPUT_FORMATS", "conllu", "conllx", "convert", "format_of", "one_root_by_default", "read_treebank",
]


def one_root_by_default(format: str) -> bool:
    """Whether trees written in `format` get exactly one root unless asked otherwise.

    CoNLL-U (and what is written as CoNLL-U: tokens in, CoNLL-U out): yes, a UD tree has one word attached to 0 (the UD validator and
    the CoNLL 2018 scorer reject several); CoNLL-X: no, the trees go out as
    the parser built them, several roots allowed (as the CoNLL-X shared
    task's data and parsers had them).
    """
    return format != "conllx"


def annotate(
    input: str | os.PathLike | IO,
    output: str | os.PathLike | IO,
    trees_of: Callable[..., list[tuple[Any, Any]]],
    *,
    format: str | None = None,
    single_root: bool | None = None,
    batch_sentences: int = 4096,
    progress: Callable[[int], Any] | None = None,
) -> int:
    """Write `input` to `output` with the trees trees_of(batch, single_root=...) gives,
    streaming; returns the sentence count.

    Any parser's ``parse_file``: input as in `read_treebank` (``-`` = stdin);
    output a path, written atomically (gzip if it ends in ``.gz``), ``-`` for
    stdout, or an open stream; it has the input's format.  trees_of maps a
    batch of sentences to their (head, deprel) pairs, with one root each if
    single_root (None: `one_root_by_default` of the format); only HEAD,
    DEPREL and DEPS change in the output.  A (head, deprel, misc) triple also
    sets MISC attributes (`conllu.with_misc`).  progress(k) is called after
    each batch of k sentences is written.  If anything fails on the way (bad
    input, an interrupt), no output file is left and an existing one is
    untouched.
    """
    import itertools

    format = format or format_of(input) or "conllu"
    if single_root is None:
        single_root = one_root_by_default(format)
    sentences = read_treebank(input, format)

    def annotated() -> Iterator[Sentence]:
        while batch := list(itertools.islice(sentences, batch_sentences)):
            for sentence, (head, deprel, *misc) in zip(batch,
                                                      trees_of(batch, single_root=single_root)):
                sentence = conllu.with_tree(sentence, head, deprel)
                yield conllu.with_misc(sentence, misc[0]) if misc else sentence
            if progress is not None:
                progress(len(batch))

    return conllu.write(output, annotated())
