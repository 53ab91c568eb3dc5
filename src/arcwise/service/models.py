"""The served models: loaded and warmed once at start, fed by one batching thread.

`load_models` reads ``NAME=PATH`` (or ``PATH``, named after the file) specs
with `arcwise.load`: a parser, or a pipeline whose tokenizer reads raw text
and whose tagger tags bare words (`ServedModel`); `warm` runs each stage on
two words so that the compiled kernels are loaded (or compiled) before the
first request.  Tokenizing and tagging run in the request's worker thread
(their kernels are serial); `Batcher` runs every parse on one thread, off
the event loop: the requests that arrive while a batch is parsed are parsed
together in the next, one compiled call per model
(`arcwise.transition.parser.Parser.parse` batches whole lists), so many small requests
cost about what one large one does.  One thread for all models also
keeps numba's parallel loops from being entered from two threads at once.

A round under `PARALLEL_FROM` sentences runs on one numba thread: starting
the parallel loop's threads costs more than it saves on a few sentences, and
much more on a busy machine (10-sentence batches measured 2,300 µs of CPU
per sentence on 2 threads against 170 on one, OpenMP layer, under load).
"""

from __future__ import annotations

import logging
import os
import queue
import threading
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arcwise.core.corpus import Sentence
from arcwise.core.errors import ArcwiseError
from arcwise.service import formats

log = logging.getLogger("arcwise.serve")

PARALLEL_FROM = 512  # sentences in a round from which numba's threads share the parse


@dataclass
class ServedModel:
    """A loaded model under the name clients use: a parser, or a pipeline
    (`arcwise.pipeline.pipeline.Pipeline`: tokenizer, tagger and parser, each optional).

    Each stage is the pipeline's own: raw text is split by `Pipeline.sentences_of_text`,
    words are tagged by `Pipeline.tag`, and the parser is the pipeline's parser.
    """

    name: str
    path: str
    loaded: Any  # what `arcwise.load` gave

    @property
    def pipeline(self) -> Any:
        """The pipeline, or None for a plain parser."""
        from arcwise.pipeline.pipeline import Pipeline

        return self.loaded if isinstance(self.loaded, Pipeline) else None

    @property
    def parser(self) -> Any:
        return self.pipeline.parser if self.pipeline is not None else self.loaded

    @property
    def tokenizer(self) -> Any:
        return self.pipeline.tokenizer if self.pipeline is not None else None

    @property
    def tagger(self) -> Any:
        return self.pipeline.tagger if self.pipeline is not None else None

    @property
    def system(self) -> str | None:
        """The parser's transition system (None: a pipeline without a parser)."""
        return self.parser.system if self.parser is not None else None

    def sentences_of_text(self, text: str, presegmented: bool = False) -> list[Sentence]:
        """The untagged sentences of raw text, split by the pipeline's tokenizer (with
        ``# sent_id``, ``# text`` and ``SpaceAfter=No`` as `arcwise parse --input text`;
        presegmented: a sentence per line, as ``--input lines``)."""
        return self.pipeline.sentences_of_text(text, presegmented=presegmented)

    def tagged(self, sentences: list[Sentence], retag: bool = False
               ) -> tuple[list[Sentence], list[Sentence]]:
        """(read, written): the sentences tagged when they have no tags (retag: always) and
        the model has a tagger, as its parser reads them and as they are written
        (`Pipeline.tagged`); else as they are, twice."""
        return self.pipeline.tagged(sentences, retag=retag) if self.tagger is not None \
            else (sentences, sentences)

    def inputs(self) -> list[str]:
        """The input kinds this model reads (``text`` only with a tokenizer)."""
        return [k.name for k in formats.INPUTS.values() if k.available(self)]

    def components(self) -> list[str]:
        """What the model does, in UDPipe's words (``tokenizer``, ``tagger``, ``parser``)."""
        return [part for part in ("tokenizer", "tagger", "parser")
                if getattr(self, part) is not None]

    def info(self) -> dict[str, Any]:
        return {"name": self.name, "system": self.system, "file": os.path.basename(self.path),
                "components": self.components(), "inputs": self.inputs()}


def parse_spec(spec: str) -> tuple[str, str]:
    """(name, path) of ``NAME=PATH`` or ``PATH`` (named after the file, without extension)."""
    name, sep, path = spec.partition("=")
    if not sep:
        path, name = spec, Path(spec).name.split(".")[0]
    if not name or not path:
        raise ArcwiseError(f"bad model {spec!r}: give PATH or NAME=PATH")
    return name, path


def load_models(specs: list[str]) -> dict[str, ServedModel]:
    """The models of `specs`, loaded and warmed, by name (the first is the default)."""
    import arcwise

    if not specs:
        raise ArcwiseError("no model: give at least one -m MODEL")
    models: dict[str, ServedModel] = {}
    for spec in specs:
        name, path = parse_spec(spec)
        if name in models:
            raise ArcwiseError(f"two models named {name!r}: name them with -m NAME=PATH")
        model = ServedModel(name, path, arcwise.load(path))
        warm(model)
        models[name] = model
    return models


def warm(model: ServedModel) -> None:
    """Run each stage of the model on two words, so the compiled kernels are ready before
    any request (the parser's words tagged X: a parser trained with tags refuses bare words)."""
    if model.tokenizer is not None:
        model.sentences_of_text("arcwise warms.")
    if model.tagger is not None:
        model.tagged(formats.read("horizontal", "arcwise warms"), retag=True)
    if model.parser is not None:
        tagged = "".join(f"{i}\t{w}\t_\tX\tX\t_\t_\t_\t_\t_\n"
                         for i, w in enumerate(("arcwise", "warms"), 1))
        model.parser.parse(formats.read("conllu", tagged + "\n"), single_root=True)


@dataclass
class _Job:
    model: ServedModel
    sentences: list[Sentence]
    future: Future = field(default_factory=Future)


class Batcher:
    """One thread that parses every request; `submit` returns a Future of the trees.

    Each round takes every job waiting (up to `max_sentences` sentences) and
    parses each model's sentences in one call.  If that call fails, each job
    is parsed alone, so only the job at fault gets the exception; the thread
    itself never dies of a parse.
    """

    def __init__(self, max_sentences: int = 2048):
        self.max_sentences = max_sentences
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="arcwise-parse", daemon=True)
        self._thread.start()

    def submit(self, model: ServedModel, sentences: list[Sentence]) -> Future:
        job = _Job(model, sentences)
        self._jobs.put(job)
        return job.future

    def close(self, timeout: float | None = None) -> None:
        """Finish the jobs already submitted, then stop the thread."""
        self._jobs.put(None)
        self._thread.join(timeout)

    def _run(self) -> None:
        stop = False
        while not stop:
            job = self._jobs.get()
            if job is None:
                return
            round_, size = [job], len(job.sentences)
            while size < self.max_sentences:
                try:
                    job = self._jobs.get_nowait()
                except queue.Empty:
                    break
                if job is None:
                    stop = True
                    break
                round_.append(job)
                size += len(job.sentences)
            try:
                self._parse_round(round_)
            except BaseException as error:  # noqa: BLE001 -- the thread must outlive any round
                log.exception("parse round failed")
                for job in round_:
                    if not job.future.done():
                        job.future.set_exception(error)

    def _parse_round(self, jobs: list[_Job]) -> None:
        by_model: dict[str, list[_Job]] = {}
        for job in jobs:
            if job.future.set_running_or_notify_cancel():
                by_model.setdefault(job.model.name, []).append(job)
        for group in by_model.values():
            sentences = [s for job in group for s in job.sentences]
            _use_threads(len(sentences))
            try:
                trees = group[0].model.parser.parse(sentences, single_root=True)
            except BaseException:  # noqa: BLE001 -- retried job by job below
                if len(group) == 1:
                    self._parse_alone(group[0])
                    continue
                for job in group:
                    self._parse_alone(job)
                continue
            start = 0
            for job in group:
                job.future.set_result(trees[start : start + len(job.sentences)])
                start += len(job.sentences)

    @staticmethod
    def _parse_alone(job: _Job) -> None:
        _use_threads(len(job.sentences))
        try:
            job.future.set_result(job.model.parser.parse(job.sentences, single_root=True))
        except Exception as error:  # noqa: BLE001 -- handed to the request that sent it
            log.exception("parse failed")
            job.future.set_exception(error)


def _use_threads(sentences: int) -> None:
    """One numba thread for a round under PARALLEL_FROM sentences, all of them from there
    (for the calling thread only)."""
    import numba

    if numba.config.DISABLE_JIT:
        return
    numba.set_num_threads(1 if sentences < PARALLEL_FROM else numba.config.NUMBA_NUM_THREADS)
