"""`arcwise serve` as a user runs it: a real uvicorn on loopback, a handful of requests,
bad ones interleaved with good ones, and SIGTERM while a request is in flight."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import time
import urllib.parse

import pytest

from tests.serve_helpers import reset_peak_rss, rss_mib
from tests.tiny_model import SRC, untagged_tiny_model  # noqa: F401 -- a fixture

pytestmark = pytest.mark.end_to_end

pytest.importorskip("uvicorn", reason="the serve extra is not installed")

STARTUP_SECONDS = 240  # loads the compiled kernels from numba's cache (or compiles them)


def start(*args):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(SRC), *filter(None, [os.environ.get("PYTHONPATH")])]))
    process = subprocess.Popen([sys.executable, "-m", "arcwise", "serve", "--port", "0", *args],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    deadline = time.monotonic() + STARTUP_SECONDS
    seen = []
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if not line:
            break
        seen.append(line)
        if "Uvicorn running on http://127.0.0.1:" in line:
            port = int(line.split("127.0.0.1:")[1].split()[0])
            return process, port, seen
    process.kill()
    pytest.fail("arcwise serve did not start:\n" + "".join(seen))


def request(port, method, path, form=None, files=None):
    """(status, JSON answer) of a request with a urlencoded `form`, or a multipart one
    whose `files` are uploaded as curl's -F NAME=@FILE does."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    body = urllib.parse.urlencode(form) if form is not None else None
    headers = {"Content-Type": "application/x-www-form-urlencoded"} if form is not None else {}
    if files is not None:
        boundary = "arcwise-test-boundary"
        body = b"".join(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; '
                        f'filename="{name}.txt"\r\n\r\n'.encode() + data + b"\r\n"
                        for name, data in files.items()) + f"--{boundary}--\r\n".encode()
        headers = {"Content-Type": f"multipart/form-data; boundary={boundary}"}
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    answer = response.status, json.loads(response.read())
    conn.close()
    return answer


def test_serve_answers_and_shuts_down_gracefully_on_sigterm(untagged_tiny_model):  # noqa: F811
    model, three = untagged_tiny_model
    text = three.read_text()
    process, port, _ = start("-m", f"en={model}", "--max-sentence-words", "40")
    try:
        assert request(port, "GET", "/ready") == (200, {"ready": True, "models": ["en"]})
        good = {"data": text, "parser": ""}
        status, first = request(port, "POST", "/process", good)
        assert status == 200 and first["result"].count("\n\n") == 3
        bad = [({"data": text.replace("\t", " ", 3)}, 400), ({"data": "x", "model": "fr"}, 404),
               ({"data": "w " * 41, "input": "horizontal", "parser": ""}, 422),
               ({"data": "A text.", "tokenizer": ""}, 422)]
        for form, expected in bad:
            status, answer = request(port, "POST", "/process", form)
            assert status == expected and set(answer) == {"error"}, answer
            assert request(port, "POST", "/process", good) == (200, first)

        # a request in flight when SIGTERM comes: half its body sent, then the rest
        body = urllib.parse.urlencode(good).encode()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.putrequest("POST", "/process")
        conn.putheader("Content-Type", "application/x-www-form-urlencoded")
        conn.putheader("Content-Length", str(len(body)))
        conn.endheaders()
        conn.send(body[: len(body) // 2])
        time.sleep(0.3)
        process.send_signal(signal.SIGTERM)
        time.sleep(0.5)
        assert process.poll() is None  # still serving the request in flight
        conn.send(body[len(body) // 2 :])
        response = conn.getresponse()
        assert response.status == 200 and json.loads(response.read()) == first
        conn.close()
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    assert "stopped by SIGTERM" in out and "Traceback" not in err
    with pytest.raises(OSError):
        request(port, "GET", "/health")


# What a request at the default limits may add to the server's peak RSS; docs/guides/
# serve-and-view.md gives the measured figures (JSON output about 140 MiB, CoNLL-U 60).
PEAK_MIB = {"json": 250, "conllu": 100}


def test_a_request_at_the_default_limits_stays_within_its_memory_bound(
        untagged_tiny_model):  # noqa: F811
    """The server's peak RSS over one request at the limits (10,000 sentences, 100,000
    words), over the issue's 2 MB body of a million one-word lines: refused at once,
    where it took 58 s and raised the server from 0.8 to 5.6 GB, and over 4 MiB of
    urlencoded line ends."""
    from arcwise.service.limits import Limits

    limits = Limits()
    line = " ".join(["word"] * (limits.max_request_words // limits.max_request_sentences))
    at_limits = "\n".join([line] * limits.max_request_sentences)
    process, port, _ = start("-m", f"en={untagged_tiny_model[0]}", "--no-access-log")
    try:
        for output, bound in PEAK_MIB.items():
            reset_peak_rss(process.pid)
            before = rss_mib(process.pid)["VmRSS"]
            status, answer = request(port, "POST", "/process", {
                "data": at_limits, "input": "horizontal", "parser": "", "output": output})
            assert status == 200, answer
            assert rss_mib(process.pid)["VmHWM"] - before < bound, output
        reset_peak_rss(process.pid)
        before, start_time = rss_mib(process.pid)["VmRSS"], time.monotonic()
        status, answer = request(port, "POST", "/process?input=horizontal&parser",
                                 files={"data": b"w\n" * 1_000_000})
        assert status == 413 and "--max-request-sentences" in answer["error"]
        assert time.monotonic() - start_time < 10
        assert rss_mib(process.pid)["VmHWM"] - before < 64
        # the hostile urlencoded forms of the guide: ``%XX`` escapes cost 230 bytes each
        # (330 MiB for a 4 MiB body) before /process decoded them a chunk at a time
        escapes = (limits.max_request_bytes - 5) // 3
        for body, expected in ((b"data=" + b"w%0A" * 1_000_000, 413),
                               (b"data=" + b"%0A" * escapes, 200)):
            reset_peak_rss(process.pid)
            before, start_time = rss_mib(process.pid)["VmRSS"], time.monotonic()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            conn.request("POST", "/process?input=horizontal&parser", body=body,
                         headers={"Content-Type": "application/x-www-form-urlencoded"})
            response = conn.getresponse()
            assert response.status == expected, response.read()[:300]
            response.read()
            conn.close()
            assert time.monotonic() - start_time < 10
            assert rss_mib(process.pid)["VmHWM"] - before < 64, body[:10]
    finally:
        process.terminate()
        process.communicate(timeout=60)


def test_serve_refuses_a_bad_model_in_one_line(tmp_path):
    from tests.tiny_model import arcwise, one_line

    bad = tmp_path / "bad.arcwise"
    bad.write_bytes(b"not a model")
    run = arcwise("serve", "-m", bad, "--port", "0", timeout=120)
    assert run.returncode == 2
    assert "bad.arcwise" in one_line(run.stderr)


def bench_serve(model, *options: str) -> dict:
    """bench/serve.py's JSON result: 4 clients, 12 requests (it must exit 0)."""
    run = subprocess.run([sys.executable, str(SRC.parent / "bench" / "serve.py"),
                          "--model", str(model), "--clients", "4", "--seconds", "120",
                          "--requests", "12", *options, "--json"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    return json.loads(run.stdout)


def test_bench_serve_interleaves_bad_requests_and_reports(untagged_tiny_model):  # noqa: F811
    """bench/serve.py, briefly: bad requests get their 4xx, good ones their 200."""
    result = bench_serve(untagged_tiny_model[0], "--bad-every", "2")
    assert result["unexpected"] == 0 and result["server_exit"] == 0
    assert result["statuses"] == {"200": 6, "400": 2, "404": 2, "413": 2}
    assert result["p50_ms"] <= result["p99_ms"] and result["peak_rss_mib"] > 0


def test_bench_serve_open_load_keeps_its_schedule(untagged_tiny_model):  # noqa: F811
    """bench/serve.py --rate: requests fall due on a schedule (here 12 requests of 10
    sentences at 200 sentences/s: 0.6 s), so the run lasts the schedule, not less."""
    result = bench_serve(untagged_tiny_model[0], "--rate", "200")
    assert result["statuses"] == {"200": 12} and result["offered_sentences_per_second"] == 200
    assert result["seconds"] >= 0.55  # the 12th request falls due at 11 × 0.05 s


def test_serve_with_two_worker_processes(untagged_tiny_model):  # noqa: F811
    """--workers 2: two processes, each with its own models and batching thread, share the
    port; concurrent requests are all answered, and SIGTERM stops both and the parent."""
    import queue
    import threading
    from concurrent.futures import ThreadPoolExecutor

    model, three = untagged_tiny_model
    process, port, seen = start("-m", f"en={model}", "--workers", "2")
    lines: queue.SimpleQueue = queue.SimpleQueue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stderr],
                     daemon=True).start()
    try:
        # the parent opens the port, then each worker loads the models: wait for both
        deadline = time.monotonic() + STARTUP_SECONDS
        while sum("arcwise serve: ready with en" in line for line in seen) < 2:
            assert process.poll() is None and time.monotonic() < deadline, "".join(seen)
            try:
                seen.append(lines.get(timeout=1))
            except queue.Empty:
                pass
        workers = {int(line.split("[")[1].split("]")[0])
                   for line in seen if "Started server process [" in line}
        assert len(workers) == 2 and process.pid not in workers, "".join(seen)
        good = {"data": three.read_text(), "parser": ""}
        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(lambda _: request(port, "POST", "/process", good), range(16)))
        assert all(status == 200 for status, _ in answers)
        assert len({json.dumps(answer) for _, answer in answers}) == 1
        assert answers[0][1]["result"].count("\n\n") == 3
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    while not lines.empty():
        seen.append(lines.get())
    assert process.returncode == 0, "".join(seen)
    assert "Traceback" not in "".join(seen)
    deadline = time.monotonic() + 30  # no worker outlives the parent (init reaps them)
    while any(os.path.exists(f"/proc/{pid}") for pid in workers):
        assert time.monotonic() < deadline, f"workers {workers} still running"
        time.sleep(0.1)
