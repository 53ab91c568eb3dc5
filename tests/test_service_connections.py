"""What a connection may cost `arcwise serve` (issue #41), on a real uvicorn on loopback:
a header that never ends, a body that stalls or is too large, and shutdown while a
request is under way.  Each test opens a few connections and waits seconds at most."""

from __future__ import annotations

import http.client
import json
import select
import socket
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.serve_helpers import served_app, uvicorn_server
from tests.tiny_model import untagged_tiny_model  # noqa: F401 -- a fixture

pytest.importorskip("uvicorn", reason="the serve extra is not installed")
from arcwise.service.guard import SHUTDOWN_STALL_SECONDS  # noqa: E402

pytestmark = pytest.mark.end_to_end

KEEP_ALIVE = BODY = 0.5  # the limits of the `quick` server, in seconds
SLACK = 3.0  # a loaded machine's delay, on top of a bound, before a test fails
MAX_BYTES = 20_000
HEADER = (b"POST /v1/parse HTTP/1.1\r\nHost: 127.0.0.1\r\n"
          b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n")


@pytest.fixture(scope="module")
def quick(untagged_tiny_model):  # noqa: F811
    """A server that closes late headers and answers stalled bodies within half a second."""
    app = served_app(untagged_tiny_model[0], max_request_bytes=MAX_BYTES,
                     keep_alive_seconds=KEEP_ALIVE, body_seconds=BODY)
    with uvicorn_server(app) as (_, port, _):
        yield port


@pytest.fixture(scope="module")
def patient_app(untagged_tiny_model):  # noqa: F811
    """An app whose limits wait longer than any test (each test starts its own server)."""
    return served_app(untagged_tiny_model[0], body_seconds=60)


def connect(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=30)


def seconds_until_closed(sock: socket.socket, limit: float, trickle: bytes = b"") -> float:
    """Seconds until the server closes `sock`, sending `trickle` a byte every 0.1 s
    meanwhile; fails after `limit` seconds."""
    start = time.monotonic()
    for k in range(int(limit * 10)):
        if trickle:
            try:
                sock.send(trickle[k % len(trickle) : k % len(trickle) + 1])
            except OSError:  # closed while sending
                return time.monotonic() - start
        if select.select([sock], [], [], 0.1)[0]:
            try:
                assert sock.recv(1024) == b"", "the server answered instead of closing"
            except ConnectionResetError:
                pass
            return time.monotonic() - start
    pytest.fail(f"the connection is still open after {limit} s")


def answer(sock: socket.socket) -> tuple[int, dict, dict]:
    """(status, headers, JSON body) of the response read from `sock`."""
    response = http.client.HTTPResponse(sock)
    response.begin()
    return response.status, dict(response.getheaders()), json.loads(response.read())


def post(port: int, data: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("POST", "/v1/parse", body=json.dumps({"data": data, "input": "horizontal"}),
                 headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    result = response.status, response.read()
    conn.close()
    return result


def test_a_connection_that_sends_no_whole_header_is_closed_within_the_bound(quick):
    """Nothing, half a header, or a header trickled a byte every 0.1 s: each connection is
    closed within --keep-alive-seconds (uvicorn alone kept all three open for ever)."""
    for sent, trickle in [(b"", b""), (HEADER[:40], b""), (HEADER[:40], b"X-Pad: 1\r\n")]:
        sock = connect(quick)
        sock.sendall(sent)
        seconds = seconds_until_closed(sock, KEEP_ALIVE + SLACK, trickle)
        assert KEEP_ALIVE * 0.8 <= seconds, (sent, trickle, seconds)
        sock.close()
    assert post(quick, "a b")[0] == 200


def test_a_stalled_body_gets_408_and_the_connection_is_closed(quick):
    sock = connect(quick)
    sock.sendall(HEADER + b'{"data": ')
    start = time.monotonic()
    status, headers, body = answer(sock)
    assert status == 408 and time.monotonic() - start < BODY + SLACK
    assert "--body-seconds" in body["error"] and headers["connection"] == "close"
    assert seconds_until_closed(sock, SLACK) < SLACK
    sock.close()


@pytest.mark.parametrize("chunked", [False, True])
def test_urllib_reads_the_413_of_an_oversized_body(quick, chunked):
    """The body (16 MiB, more than loopback buffers) is read to its end before the 413:
    urllib, which sends it all before it reads, saw a reset when the 413 came first."""
    chunk = b"x" * 65536
    body = iter([chunk] * 256) if chunked else chunk * 256
    request = urllib.request.Request(f"http://127.0.0.1:{quick}/v1/parse", data=body,
                                     headers={"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=60)
    assert refused.value.code == 413
    error = json.loads(refused.value.read())["error"]
    assert f"{MAX_BYTES:,} bytes" in error and "--max-request-bytes" in error
    assert post(quick, "a b")[0] == 200


def test_a_client_that_waits_for_100_continue_gets_413_at_once(quick):
    sock = connect(quick)
    sock.sendall(HEADER.replace(b"100\r\n", b"9000000\r\nExpect: 100-continue\r\n"))
    status, headers, _ = answer(sock)
    assert status == 413 and headers["connection"] == "close"
    sock.close()


def test_shutdown_answers_a_stalled_body_503_and_does_not_wait_for_it(patient_app):
    """SIGTERM with a client stalled mid-body (uvicorn alone: a 30 s wait, then a 500)."""
    with uvicorn_server(patient_app, graceful_seconds=60) as (server, port, thread):
        sock = connect(port)
        sock.sendall(HEADER + b'{"data": ')
        assert post(port, "a b")[0] == 200  # the stalled request is under way by now
        start = time.monotonic()
        server.should_exit = True
        status, _, body = answer(sock)
        assert status == 503 and "shutting down" in body["error"]
        thread.join(SHUTDOWN_STALL_SECONDS + SLACK)
        assert not thread.is_alive()
        assert time.monotonic() - start < SHUTDOWN_STALL_SECONDS + SLACK
        sock.close()


def test_a_request_cut_off_by_graceful_shutdown_gets_503_not_500(patient_app, monkeypatch):
    parser = patient_app.state.service.models["en"].parser
    parse, started, release = parser.parse, threading.Event(), threading.Event()

    def blocked(sentences, **options):
        started.set()
        release.wait(60)
        return parse(sentences, **options)

    monkeypatch.setattr(parser, "parse", blocked)
    with ThreadPoolExecutor(1) as pool, \
            uvicorn_server(patient_app, graceful_seconds=0.5) as (server, port, _):
        try:
            answered = pool.submit(post, port, "a b")
            assert started.wait(60)
            server.should_exit = True
            status, body = answered.result(timeout=SLACK + 0.5)
            assert status == 503 and "shut down before answering" in json.loads(body)["error"]
        finally:
            release.set()


def test_a_request_over_the_concurrent_limit_gets_503_and_python_clients_read_it(
        untagged_tiny_model):  # noqa: F811
    """With --max-concurrent-requests 2 and two requests in flight (their bodies held), a
    third gets 503 naming the option, in JSON like every error; its body (16 MiB, more than
    loopback buffers) is read first, so urllib reads the 503 (uvicorn's own limit answered
    before reading: a reset from 4 MiB on).  Once they end, requests are served again."""
    app = served_app(untagged_tiny_model[0], max_concurrent_requests=2, body_seconds=60,
                     max_request_bytes=32 << 20)
    with uvicorn_server(app) as (_, port, _):
        held = [connect(port) for _ in range(2)]
        for sock in held:
            sock.sendall(HEADER + b'{"data": ')
        deadline = time.monotonic() + 10 + SLACK
        while True:  # until both are in flight
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("GET", "/health")
            response = conn.getresponse()
            status, body = response.status, json.loads(response.read())
            conn.close()
            if status == 503 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert status == 503, body
        assert body == {"error": "the server is overloaded: 2 requests in flight, its limit "
                                 "(arcwise serve --max-concurrent-requests raises it); send "
                                 "it again later"}
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/v1/parse", data=b"x" * (16 << 20),
            headers={"Content-Type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=60)
        assert refused.value.code == 503
        assert "--max-concurrent-requests" in json.loads(refused.value.read())["error"]
        for sock in held:
            sock.close()
        while (status := post(port, "a b")[0]) == 503 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert status == 200
