"""A corpus parsed on a Dask distributed cluster.

``arcwise parse IN... -o OUTDIR --dask ADDRESS`` and ``corpus_parse(..., dask=ADDRESS)``
(`arcwise.pipeline.corpus`) come here.

Each task parses a group of whole files (`parsed_files`: consecutive small files, about
`TASK_BYTES` of input together, so that a task takes seconds and the scheduler's cost
per task stays small beside it; a small corpus in `TASKS_PER_WORKER` groups per worker) and returns each file's text and sentence count; this
process writes every output, as results come (`as_completed`).  A large file is read
here and its chunks (paragraphs or sentences) are the tasks (`OnDask`), as with local
workers.  Each worker loads the model once and keeps it (`_worker_model`, keyed by the
model's SHA-256), on this process's device (`arcwise.core.device`): from the model
file's absolute path (the workers must see it at the same path, as they see the
inputs), or from a loaded model's arrays, scattered to every worker once.  A worker that
dies mid-task has its task run again by the scheduler on another worker; since only this
process writes, no output is lost or written twice.
"""

from __future__ import annotations

import hashlib
import io
import os
import threading
from collections.abc import Iterable, Iterator
from typing import Any

from arcwise.core.device import current_device, use_device
from arcwise.core.errors import ArcwiseError
from arcwise.core.extras import required
from arcwise.pipeline.in_processes import InProcesses

CONNECT_SECONDS = 10  # an unreachable scheduler is an error after this long
# small files are grouped into tasks of about this much input: a second or more of parsing
# raw text (about 150 kB/s per worker), and far more than a task's cost to the scheduler
TASK_BYTES = 1 << 20
TASKS_PER_WORKER = 4  # a small corpus in smaller groups: at least this many per worker

_models: dict[str, Any] = {}  # a worker's models, as pipelines, by SHA-256
_lock = threading.Lock()  # a worker's threads load a model once, and parse one at a time


def client_of(address: Any) -> tuple[Any, bool]:
    """(a `dask.distributed.Client` of the scheduler at `address` (or `address` itself, a
    Client), whether this function made it: the caller closes it then).  Dask missing: the
    extras line; a scheduler that does not answer: one line naming its address."""
    required("distributed", "experiments", "arcwise parse --dask")
    from dask.distributed import Client

    if isinstance(address, Client):
        return address, False
    try:
        return Client(address, timeout=CONNECT_SECONDS, set_as_default=False), True
    except (OSError, TimeoutError, ValueError) as error:
        why = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise ArcwiseError(f"--dask {address}: no Dask scheduler answers there ({why})"
                           ) from None


def model_source(client: Any, model: Any) -> Any:
    """What the workers load `model` from: a model file's absolute path, or a loaded
    model's (arrays, metadata) scattered to every worker (a Dask future)."""
    from arcwise.pipeline.pipeline import Pipeline

    if isinstance(model, (str, os.PathLike)):
        return os.path.abspath(model)
    [source] = client.scatter([Pipeline.of(model).saved()], broadcast=True, hash=False)
    return source


class OnDask(InProcesses):
    """`InProcesses` whose chunks are tasks on a Dask cluster: a large file's paragraphs or
    sentences shared by every worker, the output written here in the input's order.  Use
    it as a context manager, as `InProcesses`."""

    def __init__(self, client: Any, model: Any, source: Any, identity: str):
        super().__init__(model, max(1, len(client.scheduler_info()["workers"])))
        self._client, self._source, self._identity = client, source, identity

    def __enter__(self) -> OnDask:
        self._pool = self
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self._pool = None

    def parse_file(self, input: Any, output: Any, **options: Any) -> int:
        """As `InProcesses.parse_file`; workers that kept dying: one line."""
        from dask.distributed import KilledWorker

        try:
            return super().parse_file(input, output, **options)
        except KilledWorker:
            raise ArcwiseError(f"the Dask workers parsing a chunk of {os.fspath(input)} died, "
                               "each time it was tried") from None

    def submit(self, work: Any, chunk: list, *arguments: Any) -> Any:
        """``work(chunk, *arguments)`` on a worker, with its model (as the pool's workers)."""
        return self._client.submit(_with_model, self._identity, self._source,
                                   current_device(), work, chunk, *arguments, pure=False)


def parsed_texts(client: Any, source: Any, identity: str,
                 files: Iterable[tuple[str, str, str | None, int]], single_root: bool | None,
                 trace: bool) -> Iterator[tuple[str, str, int, list[tuple[type[Warning], str]]]]:
    """(name, the text ``parse_file`` writes for the file, its sentence count, the warnings
    on the way) for each (name, absolute path, format, size in bytes) of `files`, as their
    tasks finish (`task_groups`), parsed with the model of `model_source`."""
    from dask.distributed import KilledWorker, as_completed

    files = list(files)
    workers = max(1, len(client.scheduler_info()["workers"]))
    per_task = min(TASK_BYTES, max(1, sum(size for *_, size in files) // (TASKS_PER_WORKER
                                                                          * workers)))
    futures = {}
    for group in task_groups(files, per_task):
        names = [name for name, *_ in group]
        key = hashlib.sha256("\0".join([identity, *(f"{path}\0{name}" for name, path, *_
                                                     in group)]).encode()).hexdigest()[:20]
        futures[client.submit(parsed_files, identity, source, current_device(),
                              [(path, format) for _, path, format, _ in group], single_root,
                              trace, pure=False, key=f"arcwise-parse-{key}")] = names
    try:
        for future in as_completed(futures, loop=client.loop):
            names = futures[future]
            try:
                parsed = future.result()
            except KilledWorker:  # the workers given these files died, each time
                others = f" (and {len(names) - 1} other files)" if len(names) > 1 else ""
                raise ArcwiseError(f"the Dask workers parsing {names[0]}{others} died, "
                                   "each time it was tried") from None
            for name, (text, count, warned) in zip(names, parsed):
                yield name, text, count, warned
            future.release()
    finally:
        client.cancel(list(futures))


def task_groups(files: Iterable[tuple[str, str, str | None, int]], per_task: int
                ) -> Iterator[list[tuple[str, str, str | None, int]]]:
    """`files` (name, path, format, size) in consecutive groups of about `per_task` bytes
    (a file at least that large alone)."""
    group: list[tuple[str, str, str | None, int]] = []
    size = 0
    for file in files:
        if group and size + file[3] > per_task:
            yield group
            group, size = [], 0
        group.append(file)
        size += file[3]
    if group:
        yield group


# --- on the workers --------------------------------------------------------------------

def parsed_files(identity: str, source: Any, device: str,
                 files: list[tuple[str, str | None]], single_root: bool | None, trace: bool
                 ) -> list[tuple[str, int, list[tuple[type[Warning], str]]]]:
    """For each (path, format) of `files`: (the text ``parse_file`` writes for it, its
    sentence count, the warnings on the way), with the worker's model `identity` (loaded
    from `source` onto `device` the first time)."""
    from arcwise.pipeline.in_processes import _warnings_kept

    parsed = []
    with _lock:
        model = _worker_model(identity, source, device)
        for path, format in files:
            out = io.StringIO(newline="")
            count, warned = _warnings_kept(model.parse_file, path, out, format=format,
                                           single_root=single_root, trace=trace)
            parsed.append((out.getvalue(), count, warned))
    return parsed


def _with_model(identity: str, source: Any, device: str, work: Any, chunk: list,
                *arguments: Any) -> Any:
    """work(chunk, *arguments), a function of `arcwise.pipeline.in_processes`'s workers,
    with the worker's model `identity` on `device`."""
    from arcwise.pipeline import in_processes

    with _lock:
        in_processes._model = _worker_model(identity, source, device)
        return work(chunk, *arguments)


def _worker_model(identity: str, source: Any, device: str) -> Any:
    """The worker's model `identity`, loaded once from `source` (a model file's path, or a
    model's (arrays, metadata)) onto `device` and kept."""
    key = f"{identity} on {device}"
    model = _models.get(key)
    if model is None:
        from arcwise.models.kinds import from_saved, load
        from arcwise.pipeline.pipeline import Pipeline

        use_device(device)
        _stop_statistical_profiler()
        model = Pipeline.of(load(source) if isinstance(source, str)
                            else from_saved(*source, "model"))
        _models.clear()  # another model's run is over: one model kept at a time
        _models[key] = model
    return model


def _stop_statistical_profiler() -> None:
    """Stop this Dask worker's statistical profiler: the call stacks it samples every 10 ms
    are kept for an hour, and on a parsing worker they grew its memory by about 900 MiB an
    hour (bench/corpus.py; flat without them).  The dashboard's profile page stays empty."""
    from dask.distributed import get_worker

    try:
        worker = get_worker()
    except ValueError:  # not on a worker
        return
    for name in ("profile", "profile-cycle"):
        callback = worker.periodic_callbacks.get(name)
        if callback is not None:
            worker.loop.add_callback(callback.stop)  # on the worker's event loop


__all__ = ["CONNECT_SECONDS", "OnDask", "TASK_BYTES", "client_of", "model_source",
           "parsed_files", "parsed_texts", "task_groups"]
