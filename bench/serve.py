"""Load on `arcwise serve`: concurrent clients against UDPipe's /process on loopback (issue #18).

    .venv/bin/python bench/serve.py [--model PATH] [--clients 50] [--sentences 10]
        [--seconds 30] [--workers 1] [--bad-every 0] [--requests N]
        [--rate SENTENCES_PER_SECOND] [--json] [--report]

Starts `arcwise serve` on 127.0.0.1 (a free port) with the model (without
--model: an arc-eager perceptron trained for one epoch on the first
--train-sentences sentences of the bundled English-EWT train split, kept in
runs/serve/), then runs --clients concurrent clients for --seconds: each
posts --sentences consecutive sentences of EWT dev as CoNLL-U to /process
(parser on) and waits for the answer before the next.  That closed loop
measures the most the server can do, but its latency is set by Little's
law (clients / requests per second), not by the server.  With --rate the
load is open: requests fall due on a fixed schedule of --rate sentences/s,
each taken by a client that is free, and latency runs from the time a
request fell due, as wrk2 measures it, so a server falling behind is
charged for the wait (no coordinated omission).  The good requests go
over one keep-alive connection per client, written and read with asyncio
streams (bodies encoded beforehand): a full HTTP client library in the same
process would take more CPU than the server it measures.  With
--bad-every K, every K-th request is bad (malformed CoNLL-U, a body over the
limit, an unknown model, in turn), sent with httpx2, and must get its 4xx
while the others still get 200.  Reports sentences/s,
requests/s, p50/p99 latency of good requests, the server's peak RSS (all its
processes, sampled every 0.2 s from /proc) and its CPU seconds (so
sentences per CPU second, which other load on a shared machine disturbs
less than throughput), and the machine's load average.  The server is
stopped with SIGTERM and must exit 0, and its peak RSS must stay under
--max-rss-mib (default 1 GiB).  Loopback only; bounded in time.
--report keeps the result in bench/results/serve/ (one file per setting)
and rewrites the service section of RESULTS.md.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import json
import math
import os
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data" / "en_ewt"
RUNS = ROOT / "runs" / "serve"
sys.path.insert(0, str(ROOT / "src"))


def trained_model(sentences: int) -> Path:
    """An arc-eager model of one epoch on the first `sentences` EWT training sentences."""
    path = RUNS / f"arc-eager-{sentences}.arcwise"
    if not path.exists():
        from arcwise.io import conllu
        from arcwise.transition.train import train

        RUNS.mkdir(parents=True, exist_ok=True)
        train_set = list(itertools.islice(conllu.read(DATA / "train.conllu.gz"), sentences))
        parser, _ = train("arc-eager", train_set, epochs=1, seed=1)
        parser.save(path)
    return path


def request_bodies(per_request: int) -> list[str]:
    from arcwise.io import conllu

    sentences = list(conllu.read(DATA / "dev.conllu.gz"))
    return ["".join(map(conllu.format_sentence, sentences[k : k + per_request]))
            for k in range(0, len(sentences) - per_request + 1, per_request)]


def start_server(model: Path, workers: int, max_request_bytes: int, *,
                 models: list[str] | None = None, env: dict[str, str] | None = None,
                 concurrent: int | None = None):
    """`arcwise serve` of `model` as "en" (or of the NAME=PATH specs `models`), with this
    checkout's source (or `env`, the child's whole environment), serving `concurrent`
    requests at once per worker if given (its default otherwise); (process, port) once
    every worker has started."""
    env = env or dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    specs = [arg for spec in (models or [f"en={model}"]) for arg in ("-m", spec)]
    more = ["--max-concurrent-requests", str(concurrent)] if concurrent else []
    process = subprocess.Popen(
        [sys.executable, "-m", "arcwise", "serve", *specs, "--port", "0",
         "--workers", str(workers), "--max-request-bytes", str(max_request_bytes), *more],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    ready = workers  # each worker logs "Application startup complete."
    port = None
    lines = []
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and (port is None or ready):
        line = process.stderr.readline()
        if not line:
            break
        lines.append(line)
        if m := re.search(r"running on http://127\.0\.0\.1:(\d+)", line):
            port = int(m.group(1))
        if "Application startup complete" in line:
            ready -= 1
    if port is None or ready:
        process.kill()
        sys.exit("arcwise serve did not start:\n" + "".join(lines))
    # keep reading its log: a full pipe would stop the server at its next line
    threading.Thread(target=lambda: [None for _ in process.stderr], daemon=True).start()
    return process, port


def process_tree(pid: int) -> list[int]:
    children = Path(f"/proc/{pid}/task/{pid}/children")
    kids = children.read_text().split() if children.exists() else []
    return [pid, *(p for kid in kids for p in process_tree(int(kid)))]


def rss_bytes(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        total += int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) * 1024
    return total


def cpu_seconds(pids: list[int]) -> float:
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / ticks  # utime + stime
    return total


class Connection:
    """One keep-alive HTTP/1.1 connection posting urlencoded forms (good requests only).

    A connection idle for IDLE_SECONDS is replaced before the next request, as HTTP
    clients expire idle connections: uvicorn closes one idle for 5 s (its
    timeout_keep_alive), and a request sent as it closes gets no answer.
    """

    IDLE_SECONDS = 4.0

    def __init__(self, port: int):
        self.port = port
        self.reader = self.writer = None
        self.last_used = 0.0

    async def post(self, path: str, body: bytes) -> tuple[int, bytes]:
        if self.writer is not None and time.monotonic() - self.last_used > self.IDLE_SECONDS:
            self.close()
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        self.writer.write(b"POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                          b"Content-Type: application/x-www-form-urlencoded\r\n"
                          b"Content-Length: %d\r\n\r\n%s" % (path.encode(), len(body), body))
        await self.writer.drain()
        head = await self.reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
        length = int(next(v for k, v in headers.items() if k.lower() == "content-length"))
        answer = await self.reader.readexactly(length)
        self.last_used = time.monotonic()
        if any(k.lower() == "connection" and v.lower() == "close" for k, v in headers.items()):
            self.close()
        return status, answer

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


async def load(port: int, bodies: list[str], clients: int, seconds: float, bad_every: int,
               max_request_bytes: int, requests: int | None = None, rate: float | None = None):
    """Run the clients; with `rate` (sentences/s) requests fall due on a fixed schedule."""
    import httpx2 as httpx

    bad_bodies = [
        ({"data": bodies[0].replace("\t", " ", 5), "parser": ""}, 400),
        ({"data": "x" * (max_request_bytes + 1), "parser": ""}, 413),
        ({"data": bodies[0], "model": "no-such-model", "parser": ""}, 404),
    ]
    encoded = [urllib.parse.urlencode({"data": b, "parser": ""}).encode() for b in bodies]
    counts = [b.count("\n\n") for b in bodies]
    latencies, statuses, unexpected = [], {}, []
    sentences = 0
    counter = itertools.count()
    stop_at = float("inf")  # set once the clients are ready
    url = f"http://127.0.0.1:{port}/process"

    async def client(k: int, http) -> None:
        nonlocal sentences
        connection = Connection(port)
        while time.monotonic() < stop_at:
            i = next(counter)
            if requests is not None and i >= requests:
                break
            if rate:
                start = started + i * interval  # when it fell due, not when it was sent
                if start >= stop_at:
                    break
                await asyncio.sleep(start - time.monotonic())
            else:
                start = time.monotonic()
            if bad_every and i % bad_every == bad_every - 1:
                form, expected = bad_bodies[(i // bad_every) % len(bad_bodies)]
                try:
                    status = (await http.post(url, data=form)).status_code
                except httpx.HTTPError as error:
                    status = type(error).__name__
            else:
                expected = 200
                try:
                    status, _ = await connection.post("/process", encoded[i % len(encoded)])
                except (OSError, asyncio.IncompleteReadError, ValueError) as error:
                    status = type(error).__name__
                    connection.close()
            statuses[status] = statuses.get(status, 0) + 1
            if status != expected:
                unexpected.append((expected, status))
            elif expected == 200:
                latencies.append(time.monotonic() - start)
                sentences += counts[i % len(encoded)]
        connection.close()

    interval = statistics.mean(counts) / rate if rate else 0.0  # seconds between requests
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(limits=limits, timeout=60) as http:
        started = time.monotonic()
        stop_at = started + seconds
        await asyncio.gather(*(client(k, http) for k in range(clients)))
        elapsed = time.monotonic() - started
    return latencies, statuses, unexpected, sentences, elapsed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path)
    parser.add_argument("--train-sentences", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--sentences", type=int, default=10, help="sentences per request")
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--bad-every", type=int, default=0)
    parser.add_argument("--requests", type=int, help="stop after this many requests")
    parser.add_argument("--max-request-bytes", type=int, default=1 << 20)
    parser.add_argument("--max-rss-mib", type=float, default=1024,
                        help="fail (exit 1) if the server's peak RSS goes over this")
    parser.add_argument("--rate", type=float,
                        help="open load: requests fall due at this many sentences/s in all")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--report", action="store_true",
                        help="keep the result in bench/results/serve/ and rewrite RESULTS.md")
    args = parser.parse_args(argv)

    model = args.model or trained_model(args.train_sentences)
    bodies = request_bodies(args.sentences)
    # every client may have a request in flight on one worker: none is refused as overload
    process, port = start_server(model, args.workers, args.max_request_bytes,
                                 concurrent=args.clients)
    gc.collect()
    gc.freeze()  # the clients' own collections are no part of the server's latency
    peak = [0]
    sampling = threading.Event()

    def sample() -> None:
        while not sampling.wait(0.2):
            peak[0] = max(peak[0], rss_bytes(process_tree(process.pid)))

    threading.Thread(target=sample, daemon=True).start()
    load_before = os.getloadavg()
    cpu_before = cpu_seconds(process_tree(process.pid))
    try:
        latencies, statuses, unexpected, sentences, elapsed = asyncio.run(load(
            port, bodies, args.clients, args.seconds, args.bad_every, args.max_request_bytes,
            args.requests, args.rate))
        cpu = cpu_seconds(process_tree(process.pid)) - cpu_before
    finally:
        sampling.set()
        process.send_signal(signal.SIGTERM)
        try:
            exit_code = process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            exit_code = "killed after 60 s"
    latencies.sort()
    result = {
        "clients": args.clients, "sentences_per_request": args.sentences,
        "workers": args.workers, "offered_sentences_per_second": args.rate,
        "bad_every": args.bad_every,
        "seconds": round(elapsed, 2),
        "sentences_per_second": round(sentences / elapsed, 1),
        "requests_per_second": round(len(latencies) / elapsed, 1),
        "p50_ms": round(1000 * statistics.median(latencies), 1) if latencies else None,
        "p99_ms": round(1000 * latencies[math.ceil(0.99 * len(latencies)) - 1], 1)
        if latencies else None,  # nearest rank
        "server_cpu_seconds": round(cpu, 1),
        "sentences_per_server_cpu_second": round(sentences / cpu, 1) if cpu else None,
        "peak_rss_mib": round(peak[0] / 2**20, 1),
        "statuses": {str(k): v for k, v in sorted(statuses.items(), key=str)},
        "unexpected": len(unexpected),
        "unexpected_first": [f"expected {e}, got {g}" for e, g in unexpected[:5]],
        "server_exit": exit_code,
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "model": str(model),
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for key, value in result.items():
            print(f"{key:32} {value}")
    within = peak[0] <= args.max_rss_mib * 2**20
    if not within:
        print(f"peak RSS over the stated limit of {args.max_rss_mib} MiB", file=sys.stderr)
    passed = not unexpected and exit_code == 0 and within
    if args.report and passed:
        import report

        result.update(command=" ".join(["bench/serve.py", *(sys.argv[1:] if argv is None
                                                             else argv)]),
                      max_rss_mib=args.max_rss_mib, provenance=report.provenance())
        keep(result)
    return 0 if passed else 1


RESULTS = ROOT / "bench" / "results" / "serve"


def keep(result: dict) -> None:
    """Store this setting's result and rewrite the service section from every stored one."""
    import report

    from arcwise.io.atomic import atomic_write

    RESULTS.mkdir(parents=True, exist_ok=True)
    offered = result["offered_sentences_per_second"]
    name = (f"c{result['clients']}_s{result['sentences_per_request']}_w{result['workers']}_"
            + (f"rate{offered:g}" if offered else "closed")
            + (f"_bad{result['bad_every']}" if result.get("bad_every") else ""))
    with atomic_write(RESULTS / f"{name}.json") as f:
        f.write(json.dumps(result, indent=1) + "\n")
    rows = [json.loads(p.read_text()) for p in sorted(RESULTS.glob("*.json"))]
    lines = ["## Service: `arcwise serve` under concurrent clients (issue #18)", "",
             "`bench/serve.py`: an arc-eager perceptron, EWT dev sentences posted as CoNLL-U to "
             "UDPipe's `/process` over loopback keep-alive connections; the clients run on the "
             "same 2 cores as the server.  *Closed*: each client sends its next request when "
             "its answer comes (the most the server can do; latency is clients / throughput). "
             "*Open*: requests fall due at the offered rate and latency counts from then.  "
             "*Bad*: malformed CoNLL-U, bodies over the limit and unknown models in turn, "
             "each of which must get its 4xx (latencies and throughput count good ones).  "
             "`--model runs/serve/arc-eager-ewt.arcwise` is `arcwise train --system arc-eager "
             "--train data/en_ewt/train.conllu.gz --dev data/en_ewt/dev.conllu.gz -o "
             "runs/serve/arc-eager-ewt.arcwise` (dev LAS 87.27).", "",
             "| load | clients | sentences / request | workers | sentences/s | requests/s "
             "| p50 ms | p99 ms | server sentences / CPU s | peak RSS MiB (limit) | errors |",
             "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for r in rows:
        load = (f"open, {r['offered_sentences_per_second']:,.0f} sent/s"
                if r["offered_sentences_per_second"] else "closed")
        if r.get("bad_every"):
            load += (f"; every {r['bad_every']}th request bad: "
                     + ", ".join(f"{n} × {k}" for k, n in r["statuses"].items() if k != "200"))
        lines.append(
            f"| {load} | {r['clients']} | {r['sentences_per_request']} | {r['workers']} "
            f"| {r['sentences_per_second']:,.0f} | {r['requests_per_second']:,.0f} "
            f"| {r['p50_ms']} | {r['p99_ms']} | {r['sentences_per_server_cpu_second']:,.0f} "
            f"| {r['peak_rss_mib']:,.0f} ({r['max_rss_mib']:,.0f}) | {r['unexpected']} |")
    lines += ["", "Commands and provenance (load average before → after):", ""]
    lines += [f"- `{r['command']}` — {r['provenance']} Load {r['load_average_before'][0]} → "
              f"{r['load_average_after'][0]}." for r in rows]
    report.write_section("serve", "\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
