"""Request bodies in, parses out: one reader per input kind, one writer per output format.

Input kinds (`INPUTS`, extensible with `register_input`):

- ``conllu``: CoNLL-U, read by `arcwise.io.conllu` (its checks, its messages);
- ``horizontal``: one sentence per line, words separated by spaces;
- ``vertical``: one word per line, a blank line after each sentence;
- ``text``: raw text, which only a model with a tokenizer reads (a served
  model's ``sentences_of_text(text) -> list[Sentence]``, the pipeline's own:
  `arcwise.service.models.ServedModel`); for any other model it is
  `Unprocessable` ("NAME has no tokenizer");
- ``lines``: raw text, a sentence per line (UDPipe 1's ``tokenizer=presegmented``), for
  models with a tokenizer as ``text``.

UDPipe 1 names the first three the same way.  Every reader raises
`RequestError` with ``line N: what is wrong`` for malformed input.  Each kind
also counts its sentences and words from the text alone (`InputKind.count`, lazily, a
line at a time), so that a request over the limits is refused before it is read
(`arcwise.service.limits.Limits.check_size`).
Output formats (`OUTPUTS`): ``conllu`` (the input's lines with HEAD, DEPREL
and DEPS replaced), ``horizontal``, ``vertical`` and ``json`` (each sentence
as in the pipeline's `Document.to_json`).
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from arcwise.core.corpus import Sentence
from arcwise.core.errors import InputError
from arcwise.io import conllu
from arcwise.io.sniff import HEAD_BYTES, looks_like_conllu
from arcwise.service.errors import RequestError, Unprocessable

Counts = Iterator[tuple[int, int]]


@dataclass(frozen=True)
class InputKind:
    """How to read one kind of input: read(text, model) -> sentences; count(text) ->
    (sentences, words) pairs whose running sums never exceed what `read` gives (None: no
    count before reading)."""

    name: str
    description: str
    read: Callable[[str, Any], list[Sentence]]
    needs_tokenizer: bool = False
    count: Callable[[str], Counts] | None = None

    def available(self, model: Any) -> bool:
        """Whether `model` can read this kind of input."""
        return not self.needs_tokenizer or getattr(model, "tokenizer", None) is not None


INPUTS: dict[str, InputKind] = {}


def register_input(kind: InputKind) -> None:
    """Add (or replace) an input kind, e.g. a tokenizer's own raw-text reader."""
    INPUTS[kind.name] = kind


def kind_of(kind: str | None, text: str, model: Any = None) -> str:
    """The input kind of a request body: `kind` when given, else ``text`` for a model with
    a tokenizer unless the body's first lines are CoNLL-U (`arcwise.io.sniff`), else
    ``conllu``."""
    if kind:
        return kind
    reads_text = getattr(model, "tokenizer", None) is not None
    return "text" if reads_text and not looks_like_conllu(text[:HEAD_BYTES]) else "conllu"


def read(kind: str | None, text: str, model: Any = None) -> list[Sentence]:
    """The sentences of a request body of input kind `kind` (None: `kind_of`; see the
    module docstring)."""
    kind = kind_of(kind, text, model)
    if kind not in INPUTS:
        raise RequestError(f"unknown input format {kind!r}; known: {', '.join(INPUTS)}")
    return INPUTS[kind].read(text, model)


def count(kind: str, text: str) -> Counts:
    """(sentences, words) pairs of a request body of input kind `kind`, counted without
    reading it (nothing for a kind without a count)."""
    counter = INPUTS[kind].count if kind in INPUTS else None
    return counter(text) if counter is not None else iter(())


def _lines_of(text: str) -> Iterator[str]:
    """The lines of `text`, one at a time (a body of a million lines is not split at once)."""
    start, end = 0, len(text)
    while start < end:
        stop = text.find("\n", start)
        stop = end if stop < 0 else stop
        yield text[start:stop]
        start = stop + 1


_WORD = re.compile(r"\S+")


def _words_in(line: str) -> int:
    """How many whitespace-separated words `line` has (the words are not made)."""
    return sum(1 for _ in _WORD.finditer(line))


def _count_blocks(text: str, is_word: Callable[[str], bool]) -> Counts:
    """(1, words) of each block of lines between blank lines (CoNLL-U, vertical)."""
    words = 0
    for line in _lines_of(text):
        if line.strip():
            words += is_word(line)
        elif words:
            yield 1, words
            words = 0
    if words:
        yield 1, words


def _count_conllu(text: str) -> Counts:
    """Words are the lines whose ID is an integer (not ``1-2`` nor ``1.1``)."""
    return _count_blocks(text, lambda line: line.partition("\t")[0].isdigit())


def _count_vertical(text: str) -> Counts:
    return _count_blocks(text, bool)


def _count_horizontal(text: str) -> Counts:
    """(1, words) of each non-blank line; raw text a sentence per line, as ``lines``."""
    for line in _lines_of(text):
        words = _words_in(line)
        if words:
            yield 1, words


def _count_text(text: str) -> Counts:
    """(0, words) of each line: a tokenizer ends a token at every space, so it makes at
    least the whitespace-separated words; where sentences end it alone knows."""
    for line in _lines_of(text):
        yield 0, _words_in(line)


def located(error: InputError) -> str:
    """An input error as a client sees it: ``line N: what is wrong`` (no file name)."""
    return f"line {error.line}: {error.message}" if error.line is not None else error.message


def _conllu(text: str, model: Any = None) -> list[Sentence]:
    try:
        return list(conllu.read(io.BytesIO(text.encode("utf-8", "surrogateescape"))))
    except InputError as error:
        raise RequestError(located(error).replace("--input ", "input=")) from None


def _words_block(words: Sequence[str]) -> str:
    return "\n".join(f"{i}\t{w}\t_\t_\t_\t_\t_\t_\t_\t_" for i, w in enumerate(words, 1))


def _block(words: Sequence[str], line: int, word_lines: Sequence[int]) -> Sentence:
    """A Sentence of bare words; an error names the input line of the word at fault."""
    try:
        return conllu.parse_block(_words_block(words), "<request>", 1)
    except InputError as error:
        at = word_lines[error.line - 1] if error.line is not None else line
        raise RequestError(f"line {at}: {error.message}") from None


def _horizontal(text: str, model: Any = None) -> list[Sentence]:
    sentences = []
    for number, line in enumerate(text.split("\n"), 1):
        words = line.split()
        if words:
            sentences.append(_block(words, number, [number] * len(words)))
    return sentences


def _vertical(text: str, model: Any = None) -> list[Sentence]:
    sentences, words, lines = [], [], []
    for number, line in enumerate([*text.split("\n"), ""], 1):
        word = line.strip()
        if word:
            if len(word.split()) > 1:
                raise RequestError(f"line {number}: one word per line in vertical input, "
                                   f"got {word!r}")
            words.append(word)
            lines.append(number)
        elif words:
            sentences.append(_block(words, lines[0], lines))
            words, lines = [], []
    return sentences


def _text(text: str, model: Any = None, presegmented: bool = False) -> list[Sentence]:
    if getattr(model, "tokenizer", None) is None:
        name = getattr(model, "name", None) or "this model"
        raise Unprocessable(f"{name} has no tokenizer: send pre-tokenized text "
                            f"(input conllu, horizontal or vertical)")
    try:
        return model.sentences_of_text(text, presegmented=presegmented)
    except InputError as error:
        raise RequestError(located(error)) from None


def _lines(text: str, model: Any = None) -> list[Sentence]:
    return _text(text, model, presegmented=True)


for _kind in (
    InputKind("conllu", "CoNLL-U (10 tab-separated columns, a blank line after each sentence)",
              _conllu, count=_count_conllu),
    InputKind("horizontal", "one sentence per line, words separated by spaces", _horizontal,
              count=_count_horizontal),
    InputKind("vertical", "one word per line, a blank line after each sentence", _vertical,
              count=_count_vertical),
    InputKind("text", "raw text (only models with a tokenizer)", _text, needs_tokenizer=True,
              count=_count_text),
    InputKind("lines", "raw text, a sentence per line (only models with a tokenizer)", _lines,
              needs_tokenizer=True, count=_count_horizontal),
):
    register_input(_kind)


# ---------------------------------------------------------------- output

Tree = tuple[Sequence[int], Sequence[str]]


def _with_trees(sentences: Sequence[Sentence], trees: Sequence[Tree] | None) -> list[Sentence]:
    if trees is None:
        return list(sentences)
    return [conllu.with_tree(s, head, deprel) for s, (head, deprel, *_) in zip(sentences, trees)]


def sentence_id(sentence: Sentence, index: int) -> str:
    """The ``# sent_id`` of a sentence, else its 1-based position in the request."""
    for line in sentence.lines:
        if line.startswith("# sent_id") and "=" in line:
            return line.split("=", 1)[1].strip()
        if line[:1] != "#":
            break
    return str(index + 1)


def as_json(sentences: Sequence[Sentence], trees: Sequence[Tree] | None) -> list[dict]:
    """Each sentence as ``{"id", "text", "tokens", "words": [{"id", "form", ..., "head",
    "deprel", "misc"}]}``, the sentences of `arcwise.pipeline.document.Document.to_json`
    (the id: its ``# sent_id``, else its 1-based position in the request)."""
    from arcwise.pipeline.document import DocumentSentence

    out = []
    for k, s in enumerate(_with_trees(sentences, trees)):
        out.append({**DocumentSentence(s).to_json(), "id": sentence_id(s, k)})
    return out


def _conllu_text(sentences: Sequence[Sentence]) -> str:
    return "".join(map(conllu.format_sentence, sentences))


OUTPUTS: dict[str, Callable[[Sequence[Sentence]], Any]] = {
    "conllu": _conllu_text,
    "horizontal": lambda ss: "".join(" ".join(s.form[1:]) + "\n" for s in ss),
    "vertical": lambda ss: "".join("".join(w + "\n" for w in s.form[1:]) + "\n" for s in ss),
}


def write(output: str, sentences: Sequence[Sentence], trees: Sequence[Tree] | None) -> Any:
    """The sentences with their trees (None: as read) in an output format: text, or for
    ``json`` the list of `as_json`."""
    if output == "json":
        return as_json(sentences, trees)
    if output not in OUTPUTS:
        raise RequestError(f"unknown output format {output!r}; "
                           f"known: {', '.join([*OUTPUTS, 'json'])}")
    return OUTPUTS[output](_with_trees(sentences, trees))
