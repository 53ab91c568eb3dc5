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
`RequestError` with ``line N: what is wrong`` for malformed input.
Output formats (`OUTPUTS`): ``conllu`` (the input's lines with HEAD, DEPREL
and DEPS replaced), ``horizontal``, ``vertical`` and ``json`` (each sentence
as in the pipeline's `Document.to_json`).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from arcwise.core.corpus import Sentence
from arcwise.core.errors import InputError
from arcwise.io import conllu
from arcwise.io.sniff import HEAD_BYTES, looks_like_conllu
from arcwise.service.errors import RequestError, Unprocessable


@dataclass(frozen=True)
class InputKind:
    """How to read one kind of input: read(text, model) -> sentences."""

    name: str
    description: str
    read: Callable[[str, Any], list[Sentence]]
    needs_tokenizer: bool = False

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
              _conllu),
    InputKind("horizontal", "one sentence per line, words separated by spaces", _horizontal),
    InputKind("vertical", "one word per line, a blank line after each sentence", _vertical),
    InputKind("text", "raw text (only models with a tokenizer)", _text, needs_tokenizer=True),
    InputKind("lines", "raw text, a sentence per line (only models with a tokenizer)", _lines,
              needs_tokenizer=True),
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
