"""A served tiny model, shared by the service tests: the app (TestClient) and a real
uvicorn on loopback, both bounded in requests and time."""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "artifacts"  # screenshots; git-ignored


def served_app(model_path, **limits):
    """The app serving `model_path` as ``en`` (and ``en-second``), loaded and warmed."""
    pytest.importorskip("fastapi", reason="the serve extra is not installed")
    from arcwise.service.app import create_app
    from arcwise.service.limits import Limits
    from arcwise.service.models import load_models

    return create_app(load_models([f"en={model_path}", f"en-second={model_path}"]),
                      Limits(**limits))


@contextmanager
def uvicorn_server(app, timeout: float = 30, graceful_seconds: float = 10):
    """`app` under a real uvicorn on 127.0.0.1 (a free port), in a thread, with the options
    of `arcwise serve` for the app's limits; yields (server, port, thread).  Setting
    ``server.should_exit`` starts its graceful shutdown, as SIGTERM does."""
    import uvicorn

    from arcwise.service.connection import uvicorn_options

    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning",
                            timeout_graceful_shutdown=graceful_seconds,
                            **uvicorn_options(app.state.service.limits))
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield server, server.servers[0].sockets[0].getsockname()[1], thread
    finally:
        server.should_exit = True
        thread.join(timeout)


@contextmanager
def uvicorn_thread(app, timeout: float = 30):
    """`app` under a real uvicorn (`uvicorn_server`); yields its URL."""
    with uvicorn_server(app, timeout) as (_, port, _):
        yield f"http://127.0.0.1:{port}"


def reset_peak_rss(pid: int | str = "self") -> None:
    """Start a new peak of the resident memory of process `pid` (Linux: VmHWM)."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")


def rss_mib(pid: int | str = "self") -> dict[str, float]:
    """{"VmRSS": now, "VmHWM": the peak since the start or `reset_peak_rss`}, in MiB."""
    fields = dict(line.split(":", 1) for line in
                  Path(f"/proc/{pid}/status").read_text().splitlines())
    return {key: int(fields[key].split()[0]) / 1024 for key in ("VmRSS", "VmHWM")}
