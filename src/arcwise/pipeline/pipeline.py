"""Tokenizer -> tagger -> parser, any subset, in one model file.

>>> nlp = arcwise.load("en.pipeline")
>>> doc = nlp("Raw text here. Two sentences.")           # a `Document`
>>> doc = nlp(["pre", "tokenized", "words"])             # one sentence of these words
>>> for doc in nlp.pipe(texts, batch_size=64): ...
>>> nlp.parse_file("in.txt", "out.conllu", format="text")
>>> nlp.parse_file("in.txt", "out.conllu", format="lines")  # a sentence per line

Input without tags is tagged when the pipeline has a tagger; input with tags
(CoNLL-U with UPOS, XPOS or FEATS) keeps them.  Without a tokenizer a text
is one sentence per line, tokens separated by whitespace, and text that needs a
tokenizer is refused (`whitespace_words`).  A plain parser model is a pipeline of
itself alone (`Pipeline.of`).

The model file (`arcwise.models.modelfile`) holds each component's arrays
under its prefix (``tokenizer_``, ``tagger_``, ``parser_``) and its metadata
under ``pipeline`` in meta.json; the top level says ``"system": "pipeline"``.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import IO, Any

import numpy as np

from arcwise.core.corpus import Sentence, as_sentences, ordered
from arcwise.core.errors import ArcwiseError, MissingArray
from arcwise.core.registry import named
from arcwise.core.vocab import TAG_COLUMNS, untagged
from arcwise.io import conllu, one_root_by_default, read_treebank
from arcwise.io.annotations import tree_annotations
from arcwise.io.tokens import text_read
from arcwise.models import kinds, modelfile, packages
from arcwise.pipeline.document import Document
from arcwise.pipeline.stages import BUILT_IN, STAGES, prefix, unmet_needs
from arcwise.pipeline.stages.tokenizer import Tokenizer

SYSTEM = "pipeline"
COMPONENTS = tuple(STAGES)  # the stages a pipeline may hold, in the order it runs them
BATCH_SENTENCES = 4096
RAW_TEXT = ("text", "lines")  # the input formats a tokenizer reads
NO_TOKENIZER = ("this model has no tokenizer: give tokens (one sentence per line) or train a "
                "pipeline with a tokenizer")


ATTACHED = ",;!?"  # punctuation never part of a word when it ends one, in any UD treebank


def whitespace_words(text: str) -> list[list[str]]:
    """The words of each non-blank line of a text, split at whitespace: what a model without
    a tokenizer reads.  Raw text that needs a tokenizer is refused (`ArcwiseError`) rather
    than parsed into garbage: a word ending in one of `ATTACHED`, or a line's last word
    ending in a full stop after a letter or digit with no other full stop (``mat.``, not
    ``U.S.``) -- punctuation a tokenizer would have split off."""
    lines = [line.split() for line in text_read(text).splitlines()]
    lines = [words for words in lines if words]
    for words in lines:
        for k, w in enumerate(words):
            last = k == len(words) - 1
            if len(w) > 1 and w[-2].isalnum() and (
                    w[-1] in ATTACHED or last and w[-1] == "." and w.count(".") == 1):
                raise ArcwiseError(
                    f"{w!r}: punctuation attached to a word, but this model has no "
                    "tokenizer; separate the words with spaces (a sentence per line), give a "
                    "list of words, or use a pipeline with a tokenizer (arcwise train "
                    "--pipeline)")
    return lines


def in_order(stages: dict[str, Any]) -> dict[str, Any]:
    """The stages that are not None, in registry order (`COMPONENTS`)."""
    return {name: stages[name] for name in COMPONENTS if stages.get(name) is not None}


class Pipeline:
    """The stages of `arcwise.pipeline.stages.STAGES` -- a tokenizer, a tagger (of any model
    in `arcwise.models.kinds.TAGGERS`), a parser, and any stage registered after them --
    each optional (see the module docstring)."""

    def __init__(self, tokenizer: Tokenizer | None = None, tagger: Any = None,
                 parser=None, command_line: Sequence[str] = (),
                 hyperparameters: dict[str, Any] | None = None, **stages: Any):
        unknown = set(stages) - set(COMPONENTS)
        if unknown:
            raise ValueError(f"unknown stage {', '.join(sorted(unknown))} (known: "
                             f"{', '.join(COMPONENTS)})")
        self.stages = in_order({"tokenizer": tokenizer, "tagger": tagger, "parser": parser,
                                **stages})
        if not self.stages:
            raise ValueError("a pipeline needs at least one component")
        for name, missing in unmet_needs(tuple(self.stages)).items():
            raise ValueError(f"the {name} stage needs {', '.join(missing)}, which no stage "
                             "before it provides")
        self.command_line = list(command_line)
        self.hyperparameters = dict(hyperparameters or {})  # how the parts were trained together
        self.card: dict[str, Any] | None = None  # a model package's (`arcwise.models.packages`)
        self.lang: str | None = None  # its language code, which `Document.to_spacy` uses

    def replaced(self, name: str, stage: Any) -> None:
        """Put `stage` in the place of stage `name` (None: take it out), in registry order."""
        self.stages = in_order({**self.stages, name: stage})

    tokenizer = property(lambda self: self.stages.get("tokenizer"),
                         lambda self, stage: self.replaced("tokenizer", stage),
                         doc="The tokenizer stage, or None.")
    tagger = property(lambda self: self.stages.get("tagger"),
                      lambda self, stage: self.replaced("tagger", stage),
                      doc="The tagger stage (a model of `arcwise.models.kinds.TAGGERS`), "
                          "or None.")
    parser = property(lambda self: self.stages.get("parser"),
                      lambda self, stage: self.replaced("parser", stage),
                      doc="The parser stage (any parser `arcwise.models.kinds` loads), or None.")

    @classmethod
    def of(cls, model: Any) -> Pipeline:
        """The pipeline of a loaded model: itself if it is one, else a pipeline of that
        parser alone (`load`)."""
        return model if isinstance(model, Pipeline) else cls(parser=model)

    @property
    def components(self) -> tuple[str, ...]:
        """The names of the stages it holds, in the order it runs them."""
        return tuple(self.stages)

    def __repr__(self) -> str:
        return f"Pipeline({', '.join(self.components)})"

    # --- from input to sentences ---------------------------------------------------

    def sentences_of_text(self, text: str, first_id: int = 1, source: str = "<text>",
                          first_line: int = 1, presegmented: bool = False) -> list[Sentence]:
        """The untagged, unparsed sentences of a raw text: the tokenizer's (presegmented:
        a sentence per line, `Tokenizer.tokenize`), or without one, a sentence per line of
        whitespace-separated tokens (`whitespace_words`)."""
        if self.tokenizer is None:
            chunks = [[(w, (w,), True) for w in words] for words in whitespace_words(text)]
        else:
            chunks = self.tokenizer.tokenize(text, presegmented)
        return [conllu.from_tokens(tokens, str(first_id + k), path=source, first_line=first_line)
                for k, tokens in enumerate(chunks)]

    def _sentences(self, given: Any) -> list[Sentence]:
        if isinstance(given, str):
            return self.sentences_of_text(given)
        sentences, _ = as_sentences(given)
        return sentences

    # --- annotation -------------------------------------------------------------------

    def tag(self, sentences: Sequence[Sentence], *, retag: bool = False) -> list[Sentence]:
        """The sentences tagged by the pipeline's tagger, each that has no tags (`untagged`;
        retag: every one); as they are without a tagger."""
        return self.tagged(sentences, retag=retag)[1]

    def tagged(self, sentences: Sequence[Sentence], *, retag: bool = False
               ) -> tuple[list[Sentence], list[Sentence]]:
        """(read, written): the sentences as the parser reads them and as they are written,
        tagged as `tag` tags them (the tagger's `tagged`: a parser reads the tags it was
        trained on, each column's best; the written ones are a combination seen in
        training)."""
        sentences = list(sentences)
        if self.tagger is None or not sentences:
            return sentences, sentences
        bare = [k for k, s in enumerate(sentences) if retag or untagged([s], TAG_COLUMNS)]
        if len(bare) == len(sentences):
            return self.tagger.tagged(sentences)
        read, written = list(sentences), list(sentences)
        if bare:  # input that mixes tagged and untagged sentences: only the latter tagged
            for k, r, w in zip(bare, *self.tagger.tagged([sentences[k] for k in bare])):
                read[k], written[k] = r, w
        return read, written

    def annotate(self, sentences: Sequence[Sentence], *, single_root: bool = True,
                 trace: bool = False, retag: bool = False) -> list[Sentence]:
        """Tag (when the pipeline has a tagger and the sentences no tags; retag: even when
        they have) and parse (when it has a parser): the sentences with their new columns.
        The parser reads the tags of `tagged`'s first list."""
        read, written = self.tagged(sentences, retag=retag)
        if not written:
            return written
        for name, stage in self.stages.items():  # tokenizer and tagger: done above
            if name == "parser":
                written = self.parsed(read, written, single_root, trace)
            elif name not in BUILT_IN:  # a stage registered after the built-in three
                read, written = (stage.annotate(read), stage.annotate(written)) \
                    if read is not written else (stage.annotate(read),) * 2
        return written

    def parsed(self, read: list[Sentence], written: list[Sentence], single_root: bool,
               trace: bool) -> list[Sentence]:
        """The written sentences with the trees the parser gives the read ones."""
        trees = tree_annotations(
            self.parser.parse(read, single_root=single_root, trace=trace)) \
            if trace else self.parser.parse(read, single_root=single_root)
        out = []
        for sentence, (head, deprel, *misc) in zip(written, trees):
            sentence = conllu.with_tree(sentence, head, deprel)
            out.append(conllu.with_misc(sentence, misc[0]) if misc else sentence)
        return out

    def __call__(self, given: Any) -> Document:
        """The `Document` of a raw text (a str), a list or tuple of words (one sentence), a
        list of word lists or Sentences; anything else (None, bytes, a set of words) is a
        TypeError (`arcwise.core.corpus.as_sentences`)."""
        return Document(self.annotate(self._sentences(given)),
                        text=given if isinstance(given, str) else None, lang=self.lang)

    def pipe(self, inputs: Iterable[Any], batch_size: int = 64) -> Iterator[Document]:
        """A Document per input (as `__call__` takes them), tagged and parsed in batches of
        `batch_size` inputs."""
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        inputs = iter(ordered(inputs, "an iterable of inputs (texts, word lists)"))
        while batch := list(itertools.islice(inputs, batch_size)):
            per_input = [self._sentences(given) for given in batch]
            done = iter(self.annotate([s for group in per_input for s in group]))
            for given, group in zip(batch, per_input):
                yield Document(list(itertools.islice(done, len(group))),
                               text=given if isinstance(given, str) else None, lang=self.lang)

    def parse(self, sentences: Any, *, single_root: bool = True, trace: bool = False) -> Any:
        """As a parser's ``parse``: the (head, deprel) of a sentence or of each sentence,
        the words tagged first when they have no tags and the pipeline a tagger."""
        if self.parser is None:
            raise ArcwiseError("this pipeline has no parser")
        if self.tagger is None:  # a parser alone: its own parse
            return self.parser.parse(sentences, single_root=single_root, trace=trace)
        sentences, single = as_sentences(sentences)
        read, _ = self.tagged(sentences)
        trees = self.parser.parse(read, single_root=single_root, trace=trace)
        return trees[0] if single else trees

    # --- files -------------------------------------------------------------------------

    def read(self, input: str | os.PathLike | IO, format: str | None = None
             ) -> Iterator[Sentence]:
        """The sentences of a file: format "text" (raw text, paragraphs between blank
        lines), "lines" (raw text, a sentence per line), "tokens" (a sentence per line,
        tokens between spaces) or a treebank format (`read_treebank`)."""
        if format not in RAW_TEXT:
            yield from read_treebank(input, format)
            return
        yield from self.sentences_of_paragraphs(raw_paragraphs(input, format),
                                                presegmented=format == "lines")

    def sentences_of_paragraphs(self, paragraphs: Iterable[tuple[str, int, str]],
                                presegmented: bool = False) -> Iterator[Sentence]:
        """The sentences of (file name, first line, text) paragraphs (`sentences_of_text`),
        numbered from 1 across them."""
        count = 0
        for name, first_line, text in paragraphs:
            sentences = self.sentences_of_text(text, count + 1, name, first_line, presegmented)
            count += len(sentences)
            yield from sentences

    def parse_file(self, input: str | os.PathLike | IO, output: str | os.PathLike | IO, *,
                   format: str | None = None, single_root: bool | None = None,
                   progress: Callable[[int], Any] | None = None,
                   batch_sentences: int = BATCH_SENTENCES, trace: bool = False) -> int:
        """Annotate a file into CoNLL-U (CoNLL-X for CoNLL-X input), streaming in batches;
        returns the sentence count.  format: "text", "lines", "tokens", "conllu", "conllx"
        (None: from the extension, else CoNLL-U; with a tokenizer, raw text unless the
        input's first lines are CoNLL-U: `arcwise.io.sniff`); the other arguments as
        `Parser.parse_file`."""
        from arcwise.io import format_of
        from arcwise.io.sniff import reading_format

        format = reading_format(input, format, self.tokenizer is not None)
        if format in RAW_TEXT and self.tokenizer is None:
            raise ArcwiseError(NO_TOKENIZER)
        if self.components == ("parser",):  # a parser alone: its own streaming of the input
            return self.parser.parse_file(input, output, format=format,
                                          single_root=single_root, progress=progress,
                                          batch_sentences=batch_sentences, trace=trace)
        if single_root is None:
            single_root = one_root_by_default(format or format_of(input) or "conllu")
        sentences = self.read(input, format)

        def annotated() -> Iterator[Sentence]:
            while batch := list(itertools.islice(sentences, batch_sentences)):
                yield from self.annotate(batch, single_root=single_root, trace=trace)
                if progress is not None:
                    progress(len(batch))

        return conllu.write(output, annotated())

    # --- model files ---------------------------------------------------------------------

    def saved(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """(arrays, metadata) of the model file (see the module docstring)."""
        arrays: dict[str, np.ndarray] = {}
        parts: dict[str, Any] = {"components": list(self.components)}
        for name, stage in self.stages.items():
            saver = STAGES[name].saver
            a, parts[name] = named(saver)(stage, prefix(name)) if saver else \
                stage.saved(prefix(name))
            arrays.update(a)
        meta = {"system": SYSTEM, "options": {}, "labels": [], "vocabularies": {},
                "training_data_sha256": None, "scores": {},
                "hyperparameters": self.hyperparameters,
                "command_line": self.command_line, "pipeline": parts}
        return arrays, meta

    def save(self, path: str | os.PathLike) -> None:
        """Write the model file, atomically."""
        modelfile.save(path, *self.saved())

    @classmethod
    def load(cls, path: str | os.PathLike, mapped: bool = False) -> Pipeline:
        """A pipeline from its model file; any problem with the file is an `ArcwiseError`."""
        arrays, meta = modelfile.load(path, mapped=mapped)
        return cls.from_saved(arrays, meta, os.fspath(path))

    @classmethod
    def from_saved(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any], source: str
                   ) -> Pipeline:
        """A pipeline from a model file's (arrays, metadata) (`saved`); source names the
        file in messages."""
        parts, stages = meta["pipeline"], {}
        for name in components_of(meta, source):
            try:
                stages[name] = named(STAGES[name].loader)(arrays, parts[name], source,
                                                          prefix(name))
            except MissingArray as missing:
                held = any(array.startswith(prefix(name)) for array in arrays)
                raise ArcwiseError(f"{source}: the {name}'s arrays are missing (" + (
                    f"no array {missing.name!r})" if held else
                    f"no {prefix(name)}* array in the file)")) from None
        return cls(command_line=meta.get("command_line", []),
                   hyperparameters=meta.get("hyperparameters"), **stages)


def load(model: str | os.PathLike) -> Pipeline:
    """The model of a model file or an installed model package (by its name:
    `arcwise.models.packages`) as a pipeline (`arcwise.load`): a pipeline file's, or a
    pipeline of the parser a parser file holds (`Pipeline.of`).  A package's pipeline
    carries its card and language."""
    nlp = Pipeline.of(kinds.load(packages.located(model)))  # a package's name resolved once
    nlp.card = packages.card_of(model)
    if nlp.card is not None:
        nlp.lang = nlp.card.get("lang")
    return nlp


def raw_paragraphs(input: str | os.PathLike | IO, format: str
                   ) -> Iterator[tuple[str, int, str]]:
    """(file name, first line, text) of each paragraph of raw text (format "text": the lines
    between blank lines) or of each line that is not blank (format "lines")."""
    from arcwise.io.tokens import lines, paragraphs

    if format == "lines":
        return ((name, number, line) for name, number, line in lines(input) if line.strip())
    return paragraphs(input)


def components_of(meta: dict[str, Any], source: str) -> list[str]:
    """The components a pipeline model file's metadata says it holds; ArcwiseError if it is
    not a pipeline's."""
    parts = meta.get("pipeline")
    components = parts.get("components") if isinstance(parts, dict) else None
    if meta.get("system") != SYSTEM or not isinstance(components, list) or not components \
            or not set(components) <= set(COMPONENTS) \
            or not all(isinstance(parts.get(c), dict) for c in components):
        raise ArcwiseError(f"{source}: not a pipeline model file (bad pipeline metadata)")
    return components
