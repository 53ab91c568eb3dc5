"""Parse a corpus, not a file: many inputs into a mirrored output folder, resumable
(`arcwise parse -m MODEL IN [IN ...] -o OUTDIR`; `arcwise.corpus_parse`).

>>> run = corpus_parse("en.arcwise", ["texts/"], "parsed/", input_format="text")
>>> run = corpus_parse(nlp, ["a.txt", "b/*.txt"], "parsed/", resume=True, workers=2)

Each input file (`arcwise.io.corpus.inputs`: files, folders walked recursively, glob
patterns) is parsed as ``arcwise parse -m MODEL FILE -o OUT`` would parse it alone, into
``OUTDIR/<its path relative to what was given>`` with the output's extension
(`arcwise.io.corpus.output_name`), each output written atomically: CoNLL-U (CoNLL-X for
CoNLL-X input, gzip for gzip input) or Parquet (`arcwise.io.parquet`).  The manifest
(`arcwise.io.corpus.Manifest`) records each finished output; ``resume`` skips those,
and parses the others (again).  A folder parsed with another model or other settings is
an error unless ``rerun``, which parses every file again.

With one worker the model runs in this process.  With more (`InProcesses`), files
smaller than `LARGE_FILE` are parsed whole, one per worker at a time, and their text comes
back here to be written; a larger file is parsed in chunks by every worker.  Outputs are
written by this process only, so a signal (`arcwise.core.interrupts`) or a killed worker
leaves finished outputs and nothing else: no partial file, no temporary file.  The
manifest is saved at most every `MANIFEST_SECONDS` (a rewrite per output would cost a
corpus of n files n² entries written), at the end, and when a signal or an error stops
the run; an output finished after the last save (the process killed outright, or a
signal between the two renames) is parsed again on resume.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import IO, Any

from arcwise.core import interrupts
from arcwise.core.errors import ArcwiseError
from arcwise.core.extras import required
from arcwise.io import INPUT_FORMATS, conllu, format_of
from arcwise.io.atomic import check_output, made_folder
from arcwise.io.corpus import Input, Manifest, inputs, outputs, sha256_of
from arcwise.models.packages import located
from arcwise.pipeline.in_processes import InProcesses, has_tokenizer
from arcwise.pipeline.pipeline import NO_TOKENIZER, RAW_TEXT, Pipeline, load

OUTPUT_FORMATS = ("conllu", "parquet")
LARGE_FILE = 4 << 20  # bytes: a file this large is shared out in chunks, not given whole
MANIFEST_SECONDS = 1.0  # the manifest is saved at most this often (and at the end)


@dataclass
class CorpusRun:
    """What a `corpus_parse` did: the outputs (paths relative to `outdir`) parsed now and
    those finished before (skipped), and the sentences parsed now."""

    outdir: str
    parsed: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    sentences: int = 0


def corpus_parse(model: Any, sources: Sequence[str | os.PathLike], outdir: str | os.PathLike,
                 *, input_format: str | None = None, output_format: str = "conllu",
                 workers: int = 1, dask: Any = None, resume: bool = False, rerun: bool = False,
                 single_root: bool | None = None, trace: bool = False,
                 progress: Callable[[int], Any] | None = None,
                 on_start: Callable[[int, int], Any] | None = None,
                 on_file: Callable[[str, int], Any] | None = None) -> CorpusRun:
    """Parse every file of `sources` into `outdir` (see the module docstring).

    model: a model file or package name, or a loaded model (a parser or a pipeline).
    input_format: as ``arcwise parse --input`` (None: each file's default); output_format:
    "conllu" (the model's output: CoNLL-U, or CoNLL-X for CoNLL-X input) or "parquet".
    progress(k) after every k sentences written; on_start(files to parse, files finished
    before); on_file(output, sentences) after each output is in place.  Every problem with
    the inputs, the folder or the options is an `ArcwiseError` (one line)."""
    if output_format not in OUTPUT_FORMATS:
        raise ArcwiseError(f"--format {output_format}: use one of {', '.join(OUTPUT_FORMATS)}")
    if output_format == "parquet":
        required("pyarrow", "corpus", "--format parquet")
    if input_format is not None and input_format not in (*INPUT_FORMATS, *RAW_TEXT):
        raise ArcwiseError(f"--input {input_format}: use one of "
                           f"{', '.join((*INPUT_FORMATS, *RAW_TEXT))}")
    if resume and rerun:
        raise ArcwiseError("give --resume or --rerun, not both")
    if workers < 1:
        raise ArcwiseError(f"--workers {workers}: use 1 or more")
    if dask is not None and workers != 1:
        raise ArcwiseError("give --dask or --workers, not both")
    outdir = os.fspath(outdir)
    check_output(outdir, [], folder=True)  # something there that is not a folder: refused
    model_file = located(model) if isinstance(model, (str, os.PathLike)) else None
    pairs = outputs(inputs(sources, outdir), outdir, input_format, output_format)
    for file, name in pairs:  # no output may be an input (or the model) by any spelling
        check_output(os.path.join(outdir, name), [file.path, model_file])
    identity = {"model": _model_sha256(model_file if model_file is not None else model),
                "model_file": os.path.abspath(model_file) if model_file else None,
                "settings": {"input": input_format, "output": output_format,
                             "single_root": single_root, "trace": trace}}
    manifest = Manifest.load(outdir, identity, rerun)
    run = CorpusRun(outdir)
    todo = []
    for file, name in pairs:
        if resume and manifest.finished(file, name):
            run.skipped.append(name)
        else:
            todo.append((file, name))
    if on_start is not None:
        on_start(len(todo), len(run.skipped))
    made_folder(outdir)
    saved = time.monotonic()

    def done(file: Input, name: str, seen: os.stat_result, count: int) -> None:
        nonlocal saved
        manifest.record(file, name, count, seen)
        run.parsed.append(name)
        run.sentences += count
        if on_file is not None:
            on_file(name, count)
        if time.monotonic() - saved > MANIFEST_SECONDS:
            manifest.save()
            saved = time.monotonic()

    def target(name: str) -> str:
        path = os.path.join(outdir, name)
        made_folder(os.path.dirname(path))
        return path

    try:
        if todo:
            _parse(model_file or model, todo, workers, dask, identity["model"], input_format,
                   output_format, single_root, trace, progress, target, done)
    except BaseException as error:  # a bad input, a signal: the finished outputs stay recorded
        if run.parsed:
            interrupts.acknowledge(error)
            with interrupts.blocked():  # a second signal waits for the manifest
                manifest.save()
        raise
    manifest.save()
    return run


def _parse(model: Any, todo: list[tuple[Input, str]], workers: int, dask: Any, model_sha: str,
           input_format: str | None, output_format: str, single_root: bool | None, trace: bool,
           progress: Callable[[int], Any] | None, target: Callable[[str], str],
           done: Callable[[Input, str, os.stat_result, int], Any]) -> None:
    """Parse each (input, output name) of `todo`, calling done(...) after each output."""
    if dask is not None:
        _parse_on_dask(model, todo, dask, model_sha, input_format, output_format, single_root,
                       trace, progress, target, done)
        return
    if workers > 1:
        parser: Any = InProcesses(model, workers)
    else:
        parser = load(model) if isinstance(model, (str, os.PathLike)) else Pipeline.of(model)
    if input_format in RAW_TEXT and not has_tokenizer(parser):
        raise ArcwiseError(f"--input {input_format}: {NO_TOKENIZER}")

    def format_of_file(file: Input) -> str | None:
        return _format_of_file(file, input_format)

    def one_by_one(files: list[tuple[Input, str]], parsing: Any) -> None:
        for file, name in files:
            seen = os.stat(file.path)
            with output_stream(target(name), output_format, file.relative) as out:
                count = parsing.parse_file(file.path, out, format=format_of_file(file),
                                           single_root=single_root, progress=progress,
                                           trace=trace)
            done(file, name, seen, count)

    if not isinstance(parser, InProcesses):
        one_by_one(todo, parser)
        return
    small = [(f, n) for f, n in todo if f.size < LARGE_FILE]
    with parser as parsing:
        seen = {f.path: os.stat(f.path) for f, _ in small}
        texts = parsing.parsed_texts(((f.path, format_of_file(f)) for f, _ in small),
                                     single_root=single_root, trace=trace)
        for (file, name), (text, count) in zip(small, texts):
            with output_stream(target(name), output_format, file.relative) as out:
                out.write(text)
            if progress is not None:
                progress(count)
            done(file, name, seen[file.path], count)
        one_by_one([(f, n) for f, n in todo if f.size >= LARGE_FILE], parsing)


def _parse_on_dask(model: Any, todo: list[tuple[Input, str]], address: Any, model_sha: str,
                   input_format: str | None, output_format: str, single_root: bool | None,
                   trace: bool, progress: Callable[[int], Any] | None,
                   target: Callable[[str], str],
                   done: Callable[[Input, str, os.stat_result, int], Any]) -> None:
    """`_parse` on the Dask scheduler at `address` (or a Client): groups of small files
    tasks, a large file's chunks tasks (`arcwise.pipeline.on_dask`), written here."""
    from arcwise.pipeline import on_dask

    reads_text = (InProcesses(model, 1).reads_text if isinstance(model, (str, os.PathLike))
                  else has_tokenizer(model))
    if input_format in RAW_TEXT and not reads_text:
        raise ArcwiseError(f"--input {input_format}: {NO_TOKENIZER}")
    client, made = on_dask.client_of(address)
    try:
        source = on_dask.model_source(client, model)
        small = [(f, n) for f, n in todo if f.size < LARGE_FILE]
        files = {name: file for file, name in small}
        seen = {file.path: os.stat(file.path) for file, _ in small}
        shown: set[type[Warning]] = set()
        for name, text, count, warned in on_dask.parsed_texts(
                client, source, model_sha,
                ((name, os.path.abspath(file.path), _format_of_file(file, input_format),
                  file.size) for file, name in small), single_root, trace):
            for category, message in warned:  # once here, though each worker warns
                if category not in shown:
                    shown.add(category)
                    warnings.warn(category(message), stacklevel=2)
            file = files[name]
            with output_stream(target(name), output_format, file.relative) as out:
                out.write(text)
            if progress is not None:
                progress(count)
            done(file, name, seen[file.path], count)
        with on_dask.OnDask(client, model, source, model_sha) as parsing:
            for file, name in todo:
                if file.size >= LARGE_FILE:
                    stat = os.stat(file.path)
                    with output_stream(target(name), output_format, file.relative) as out:
                        count = parsing.parse_file(file.path, out,
                                                   format=_format_of_file(file, input_format),
                                                   single_root=single_root, progress=progress,
                                                   trace=trace)
                    done(file, name, stat, count)
    finally:
        if made:
            client.close()


def _format_of_file(file: Input, input_format: str | None) -> str | None:
    """The format `arcwise parse` reads this file in, alone (None: its default)."""
    return (format_of(file.path) or "conllu") if input_format == "conllu" else input_format


@contextmanager
def output_stream(path: str, output_format: str, input_name: str) -> Iterator[IO[str]]:
    """A text stream taking CoNLL-U, written atomically to `path` (``-``: standard output):
    as CoNLL-U (gzip for ``.gz``) or as Parquet rows (`arcwise.io.parquet`; `input_name`
    fills its input column)."""
    if output_format == "parquet":
        from arcwise.io.parquet import parquet_output

        with parquet_output(path, input_name) as out:
            yield out
        return
    with conllu.open_text_output(path) as out:
        yield out


def _model_sha256(model: Any) -> str:
    """The identity of a model: its file's SHA-256, or for a loaded model the SHA-256 of
    what its file would hold (arrays and metadata)."""
    if isinstance(model, (str, os.PathLike)):
        try:
            return sha256_of(model)
        except OSError as error:
            raise ArcwiseError(f"{os.fspath(model)}: cannot read: "
                               f"{error.strerror or error}") from None
    arrays, meta = Pipeline.of(model).saved()
    digest = hashlib.sha256(json.dumps(meta, sort_keys=True, default=str).encode())
    for name in sorted(arrays):
        array = arrays[name]
        digest.update(f"{name} {array.dtype.str} {array.shape}".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


__all__ = ["CorpusRun", "OUTPUT_FORMATS", "corpus_parse", "output_stream"]
