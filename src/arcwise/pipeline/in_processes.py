"""A model's ``parse_file`` run by several processes side by side (`arcwise parse
--workers N`, `bench/pipeline.py --workers N`).

The main process reads the input and writes the output, in the input's order; each
worker holds the model, one thread, and annotates a chunk at a time: the paragraphs of a
raw text (tokenizes, tags and parses them) or a run of sentences.  Given the model file's
path, the main process reads only its metadata and never builds the model (nor imports
torch for it): only the workers hold it.  A model's own threads
(numba's, torch's) share out only some of its work, the compiled loops; processes share
it all, tokenizer and Python included.  The output is the one `parse_file` writes.
"""

from __future__ import annotations

import io
import os
import sys
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import BrokenExecutor, Future
from contextlib import ExitStack, nullcontext, suppress
from functools import partial
from typing import IO, Any

from arcwise.core.corpus import Sentence
from arcwise.core.errors import ArcwiseError
from arcwise.core.local_pool import death, local_pool, submitted
from arcwise.io import conllu, format_of, one_root_by_default, read_treebank
from arcwise.io.sniff import reading_format
from arcwise.models import modelfile
from arcwise.models.kinds import kind_of
from arcwise.pipeline.pipeline import (
    NO_TOKENIZER,
    RAW_TEXT,
    Pipeline,
    components_of,
    raw_paragraphs,
)

CHUNK_CHARACTERS = 16_000  # a chunk of raw text: whole paragraphs, about this many characters
CHUNK_WORDS = 4_000  # a chunk of sentences: about this many words
QUEUED = 2  # chunks waiting per worker, so that none waits for the main process
WARM_UP_TEXT = "A first sentence, parsed while the worker starts. And a second one"

_model: Any = None  # a worker's model, as a pipeline (`_load`)
_failure: ArcwiseError | None = None  # why a worker could not build it


def annotator(model: Any, workers: int) -> Any:
    """A context manager giving what parses files with `model` (a parser, a pipeline, or
    `InProcesses` already made): `InProcesses` for more than one worker, else the model
    itself."""
    if isinstance(model, InProcesses):
        return model
    return InProcesses(model, workers) if workers > 1 else nullcontext(model)


def has_tokenizer(model: Any) -> bool:
    """Does this model (or `InProcesses`) read raw text?"""
    if isinstance(model, InProcesses):
        return model.reads_text
    return getattr(model, "tokenizer", None) is not None


class InProcesses:
    """`model` (a parser or a pipeline, or the path of its model file) loaded in `workers`
    processes; use it as a context manager: ``with InProcesses(nlp, 2) as parallel:
    parallel.parse_file(text, out, format="text")``.  The workers start and build the
    model on entering; a model file's metadata is checked first (`ArcwiseError`)."""

    def __init__(self, model: Any, workers: int):
        if workers < 1:
            raise ArcwiseError(f"--workers {workers}: use 1 or more")
        self.model, self.workers = model, workers
        if isinstance(model, (str, os.PathLike)):
            meta = modelfile.read_meta(model)  # the workers read the arrays, and check them
            components = (components_of(meta, os.fspath(model)) if kind_of(meta) == "pipeline"
                          else ["parser"])
            self.reads_text = "tokenizer" in components
        else:
            self.reads_text = has_tokenizer(model)
        self._exit = ExitStack()
        self._pool: Any = None
        self._warned: set[type[Warning]] = set()  # the workers' warnings shown

    def __enter__(self) -> InProcesses:
        model = (os.fspath(self.model) if isinstance(self.model, (str, os.PathLike))
                 else self.model.saved())
        self._pool = self._exit.enter_context(local_pool(
            self.workers, initializer=_load, initargs=(model,)))
        try:
            # start them all now, signals held back (`submitted`); later submissions start
            # none; a worker that could not build the model says why
            try:
                for ready in submitted(self._pool, _ready, [()] * self.workers):
                    ready.result()
            except BrokenExecutor:
                raise self._died() from None
            except (OSError, ValueError):
                # a worker dying while the others start breaks the pool under them (its
                # manager closes the pipes the next one is being given: "bad value(s) in
                # fds_to_keep"): that death is what the user is told
                if not death(self._pool):
                    raise
                raise self._died() from None
        except BaseException:
            self._exit.__exit__(*sys.exc_info())
            raise
        return self

    def __exit__(self, *exc_info: Any) -> bool | None:
        self._pool = None
        return self._exit.__exit__(*exc_info)

    def parse_file(self, input: str | os.PathLike | IO, output: str | os.PathLike | IO, *,
                   format: str | None = None, single_root: bool | None = None,
                   progress: Callable[[int], Any] | None = None, trace: bool = False) -> int:
        """As the model's ``parse_file`` (formats "text" and "lines" need a pipeline with
        a tokenizer); returns the sentence count."""
        if self._pool is None:
            raise RuntimeError("InProcesses.parse_file outside its with block")
        format = reading_format(input, format, self.reads_text)
        if format in RAW_TEXT and not self.reads_text:
            raise ArcwiseError(NO_TOKENIZER)
        if single_root is None:
            single_root = one_root_by_default(format or format_of(input) or "conllu")
        if format in RAW_TEXT:
            chunks = _chunked(raw_paragraphs(input, format), lambda p: len(p[2]),
                              CHUNK_CHARACTERS)
            work = partial(_annotated_paragraphs, presegmented=format == "lines")
        else:
            chunks = _chunked(read_treebank(input, format), lambda s: s.n, CHUNK_WORDS)
            work = _annotated_sentences

        def annotated() -> Iterator[Sentence]:
            count = 0
            for sentences in self._in_order(work, chunks, single_root, trace):
                if format in RAW_TEXT:  # each chunk numbered its sentences from 1
                    sentences = [conllu.with_sent_id(s, str(count + k))
                                 for k, s in enumerate(sentences, 1)]
                count += len(sentences)
                yield from sentences
                if progress is not None:
                    progress(len(sentences))

        return conllu.write(output, annotated())

    def parsed_texts(self, files: Iterable[tuple[str, str | None]], *,
                     single_root: bool | None = None, trace: bool = False
                     ) -> Iterator[tuple[str, int]]:
        """(the CoNLL-U text, the sentence count) that the model's ``parse_file`` writes for
        each (path, format) of `files`, a whole file per task, in the files' order: many
        small files side by side (`arcwise.pipeline.corpus`).  The text comes back to this
        process, which writes it: a worker killed (or a signal) leaves no file behind."""
        if self._pool is None:
            raise RuntimeError("InProcesses.parsed_texts outside its with block")
        yield from self._in_order(_parsed_file, iter(files), single_root, trace)

    def _in_order(self, work: Callable, chunks: Iterable[list], *arguments: Any
                  ) -> Iterator[list[Sentence]]:
        """work(chunk, *arguments) of each chunk, done by the workers, in the chunks' order."""
        waiting: deque[Future] = deque()
        chunks = iter(chunks)
        try:
            while True:
                while len(waiting) < QUEUED * self.workers and (chunk := next(chunks, None)):
                    waiting.append(self._pool.submit(work, chunk, *arguments))
                if not waiting:
                    return
                sentences, warned = waiting.popleft().result()
                for category, message in warned:  # once here, though each worker warns
                    if category not in self._warned:
                        self._warned.add(category)
                        warnings.warn(category(message), stacklevel=2)
                yield sentences
        except BrokenExecutor:
            raise self._died() from None
        # Futures still waiting are not cancelled here: the pool's shutdown cancels them
        # (`local_pool`).  A future cancelled here and then failed by a killed pool would
        # crash CPython 3.11's pool manager thread (its terminate_broken sets an exception
        # on it: InvalidStateError), which then never stops the pool's queues, and the
        # process hangs at exit.

    def _died(self) -> ArcwiseError:
        """What the user is told when a worker died: starting, or parsing."""
        return ArcwiseError(f"a parsing process died{death(self._pool)}")


def _chunked(items: Iterable, size: Callable[[Any], int], limit: int) -> Iterator[list]:
    """Lists of consecutive items, each ended by the item that brings its size to limit."""
    chunk, total = [], 0
    for item in items:
        chunk.append(item)
        total += size(item)
        if total >= limit:
            yield chunk
            chunk, total = [], 0
    if chunk:
        yield chunk


# --- in the workers -------------------------------------------------------------------

def _load(model: str | tuple[dict, dict]) -> None:
    """The worker's model, from its file's path or (arrays, metadata), with one thread for
    numba and torch (the workers are the threads)."""
    global _model, _failure
    import numba

    from arcwise.models.kinds import from_saved, load

    try:
        model = load(model) if isinstance(model, str) else from_saved(*model, "model")
    except ArcwiseError as error:
        _failure = error
        return
    _model = Pipeline.of(model)
    numba.set_num_threads(1)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)
    with suppress(ArcwiseError):  # warm up: compiled code loaded before the first chunk
        _model(WARM_UP_TEXT if _model.tokenizer is not None else WARM_UP_TEXT.split())


def _ready() -> None:
    """A task that makes the pool start its workers: nothing, or why the worker could not
    build the model."""
    if _failure is not None:
        raise _failure


def _annotated_sentences(sentences: list[Sentence], single_root: bool, trace: bool
                         ) -> tuple[list[Sentence], list[tuple[type[Warning], str]]]:
    """(the sentences annotated, the (category, message) of each warning on the way: the
    main process shows them)."""
    _ready()
    return _warnings_kept(_model.annotate, sentences, single_root=single_root, trace=trace)


def _parsed_file(file: tuple[str, str | None], single_root: bool | None, trace: bool
                 ) -> tuple[tuple[str, int], list[tuple[type[Warning], str]]]:
    """((the CoNLL-U text ``parse_file`` writes for (path, format), its sentence count),
    the warnings on the way)."""
    _ready()
    path, format = file
    out = io.StringIO(newline="")
    count, warned = _warnings_kept(_model.parse_file, path, out, format=format,
                                   single_root=single_root, trace=trace)
    return (out.getvalue(), count), warned


def _warnings_kept(work: Callable, *arguments: Any, **options: Any
                   ) -> tuple[Any, list[tuple[type[Warning], str]]]:
    """(work(*arguments, **options), the (category, message) of each warning on the way:
    the main process shows them)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = work(*arguments, **options)
    return result, [(w.category, str(w.message)) for w in caught]


def _annotated_paragraphs(paragraphs: list[tuple[str, int, str]], single_root: bool,
                          trace: bool, presegmented: bool = False) -> list[Sentence]:
    """The sentences of (file name, first line, text) paragraphs (presegmented: a sentence
    per line), numbered from 1, annotated."""
    return _annotated_sentences(list(_model.sentences_of_paragraphs(paragraphs, presegmented)),
                                single_root, trace)


__all__ = ["InProcesses", "annotator", "has_tokenizer"]
