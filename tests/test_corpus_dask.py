"""`arcwise parse IN... -o OUTDIR --dask ADDRESS` (#44 item 3): a tree of 40 files parsed on
a loopback Dask cluster of two worker processes, byte-identical to `--workers 1`, also with a
worker killed mid-run; and the one-line errors."""

from __future__ import annotations

import os
import signal
import socket
import warnings
from pathlib import Path

import pytest

from arcwise.io import conllu
from arcwise.io.corpus import MANIFEST
from arcwise.pipeline.corpus import corpus_parse
from tests.cli_run import hide_module, run
from tests.ewt import train_and_dev
from tests.tiny_model import SRC, tiny_pipeline_model  # noqa: F401

pytest.importorskip("distributed")
pytestmark = pytest.mark.end_to_end

FILES = 40


@pytest.fixture
def bounded():
    """A test that takes more than 240 s fails (TimeoutError) instead of hanging."""
    def timed_out(*_):
        raise TimeoutError("the test took more than 240 s")

    previous = signal.signal(signal.SIGALRM, timed_out)
    signal.alarm(240)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def outputs_of(outdir: Path) -> dict[str, bytes]:
    return {p.relative_to(outdir).as_posix(): p.read_bytes()
            for p in sorted(outdir.rglob("*")) if p.is_file() and p.name != MANIFEST}


@pytest.fixture(scope="module")
def forty(tmp_path_factory, tiny_pipeline_model):  # noqa: F811
    """(model, in/ with 40 files in 4 folders, CoNLL-U and one raw text, the outputs of
    `--workers 1`)."""
    tmp = tmp_path_factory.mktemp("dask-corpus")
    _, dev = train_and_dev(0, 4 * FILES)
    for k in range(FILES):
        folder = tmp / "in" / f"part{k % 4}"
        folder.mkdir(parents=True, exist_ok=True)
        conllu.write(folder / f"f{k:02}.conllu", dev[4 * k:4 * k + 4])
    (tmp / "in" / "part0" / "f00.conllu").unlink()  # raw text: paragraphs of two sentences
    (tmp / "in" / "part0" / "f00.txt").write_text("\n\n".join(
        " ".join(a.form + b.form) for a, b in zip(dev[0:16:2], dev[1:16:2])) + "\n")
    with warnings.catch_warnings():  # the tiny model has not seen EWT's X tags
        warnings.simplefilter("ignore")
        corpus_parse(tiny_pipeline_model, [tmp / "in"], tmp / "alone", workers=1)
    alone = outputs_of(tmp / "alone")
    assert len(alone) == FILES
    return tiny_pipeline_model, tmp / "in", alone


@pytest.fixture(scope="module")
def cluster():
    """A scheduler and two worker processes (one thread each) on loopback."""
    from dask.distributed import LocalCluster

    os.environ["PYTHONPATH"] = os.pathsep.join(  # the worker processes import arcwise
        [str(SRC), *filter(None, [os.environ.get("PYTHONPATH")])])
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None, death_timeout=60) as local:
        yield local


def test_forty_files_on_a_dask_cluster_are_those_of_one_worker(forty, cluster, tmp_path,
                                                               capsys, monkeypatch, bounded):
    model, inputs, alone = forty
    out = tmp_path / "out"
    code, _, err = run(["parse", "-m", model, inputs, "-o", out, "--dask",
                        cluster.scheduler_address], capsys, monkeypatch)
    assert code == 0, err
    assert outputs_of(out) == alone
    assert f"parsed {FILES} files" in err
    assert not [p for p in out.rglob(".*") if p.is_file()]  # no temporary file


def test_a_worker_that_parsed_stops_its_statistical_profiler(forty, cluster, tmp_path, bounded):
    """The profiler's history grew a parsing worker's memory by 900 MiB an hour."""
    from dask.distributed import Client

    model, inputs, _ = forty
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        corpus_parse(model, [inputs], tmp_path / "out", dask=cluster.scheduler_address)
    with Client(cluster.scheduler_address, set_as_default=False) as client:
        running = client.run(lambda dask_worker: dask_worker.periodic_callbacks["profile"]
                             .is_running())
    assert running and not any(running.values())


def test_large_files_are_shared_in_chunks_with_the_same_output(forty, cluster, tmp_path,
                                                                monkeypatch, bounded):
    """Every file "large" and chunks of a few words: each file's chunks are tasks."""
    from arcwise.pipeline import corpus, in_processes

    monkeypatch.setattr(corpus, "LARGE_FILE", 0)
    monkeypatch.setattr(in_processes, "CHUNK_WORDS", 30)
    monkeypatch.setattr(in_processes, "CHUNK_CHARACTERS", 150)
    model, inputs, alone = forty
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = corpus_parse(model, [inputs], tmp_path / "out", dask=cluster.scheduler_address)
    assert len(run.parsed) == FILES
    assert outputs_of(tmp_path / "out") == alone


def test_a_worker_killed_mid_run_loses_and_repeats_nothing(forty, cluster, tmp_path, bounded):
    """The first output written, a worker that is parsing a file is killed (SIGKILL): its
    files are parsed again elsewhere; every output once, identical, nothing partial."""
    from dask.distributed import Client

    model, inputs, alone = forty
    killed: list[int] = []
    written: list[str] = []
    with Client(cluster.scheduler_address, set_as_default=False) as client:
        pids = client.run(os.getpid)

        def on_file(name: str, count: int) -> None:
            written.append(name)
            if killed:
                return
            busy = [w for w, keys in client.processing().items() if keys]
            assert busy, "every file parsed before the first was written: nothing to kill"
            killed.append(pids[busy[0]])
            os.kill(pids[busy[0]], signal.SIGKILL)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run = corpus_parse(model, [inputs], tmp_path / "out",
                               dask=cluster.scheduler_address, on_file=on_file)
    assert killed
    assert sorted(written) == sorted(run.parsed) == sorted(alone)  # each once
    assert outputs_of(tmp_path / "out") == alone
    assert not [p for p in (tmp_path / "out").rglob(".*") if p.is_file()]


def test_an_interrupted_dask_run_resumes_with_what_is_missing(forty, cluster, tmp_path, bounded):
    """Stopped (as by Ctrl-C) after 10 outputs, then resumed on the cluster: the 10 are
    skipped, the rest parsed, the folder as a run of one worker."""
    model, inputs, alone = forty
    written: list[str] = []

    def stop_after_ten(name: str, count: int) -> None:
        written.append(name)
        if len(written) == 10:
            raise KeyboardInterrupt

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(KeyboardInterrupt):
            corpus_parse(model, [inputs], tmp_path / "out", dask=cluster.scheduler_address,
                         on_file=stop_after_ten)
        run = corpus_parse(model, [inputs], tmp_path / "out", dask=cluster.scheduler_address,
                           resume=True)
    assert sorted(run.skipped) == sorted(written)
    assert sorted(run.parsed) == sorted(set(alone) - set(written))
    assert outputs_of(tmp_path / "out") == alone


def test_small_files_travel_in_groups_of_about_the_task_size():
    from arcwise.pipeline.on_dask import task_groups

    files = [(f"f{k}", f"/in/f{k}", None, size) for k, size in enumerate([40, 30, 50, 200, 10])]
    groups = [[name for name, *_ in group] for group in task_groups(files, 100)]
    assert groups == [["f0", "f1"], ["f2"], ["f3"], ["f4"]]  # f3 alone: larger than a task
    assert [[n for n, *_ in g] for g in task_groups(files, 10**6)] == [[f[0] for f in files]]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_scheduler_is_one_line_naming_it(forty, tmp_path, capsys, monkeypatch,
                                                        bounded):
    from arcwise.pipeline import on_dask

    monkeypatch.setattr(on_dask, "CONNECT_SECONDS", 1)
    model, inputs, _ = forty
    address = f"tcp://127.0.0.1:{free_port()}"
    code, _, err = run(["parse", "-m", model, inputs, "-o", tmp_path / "out", "--dask",
                        address], capsys, monkeypatch)
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert f"--dask {address}: no Dask scheduler answers there" in err


def test_dask_with_workers_is_one_line(forty, tmp_path, capsys, monkeypatch):
    model, inputs, _ = forty
    code, _, err = run(["parse", "-m", model, inputs, "-o", tmp_path / "out", "--dask",
                        "tcp://127.0.0.1:1", "--workers", "2"], capsys, monkeypatch)
    assert code == 2 and err.count("\n") == 1, err
    assert "give --dask or --workers, not both" in err and not (tmp_path / "out").exists()


def test_dask_missing_is_the_extras_line(forty, tmp_path, capsys, monkeypatch):
    hide_module(monkeypatch, "distributed")
    model, inputs, _ = forty
    code, _, err = run(["parse", "-m", model, inputs, "-o", tmp_path / "out", "--dask",
                        "tcp://127.0.0.1:1"], capsys, monkeypatch)
    assert code == 2 and err.count("\n") == 1, err
    assert "pip install 'arcwise[experiments]'" in err

