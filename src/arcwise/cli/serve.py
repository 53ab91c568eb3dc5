"""`arcwise serve`: the parsing service (`arcwise.service.app`) under uvicorn."""

from __future__ import annotations

import dataclasses
import json
import os

import typer

CONFIG_VARIABLE = "ARCWISE_SERVE_CONFIG"  # how `--workers` hands the options to each worker
WORKER_PING_SECONDS = 60  # uvicorn restarts a worker that does not answer its ping in time
#                          (5 s by default: short for a worker loading models on a busy machine)
LOG_FORMAT = "%(levelname)s: %(message)s"


def register(app: typer.Typer) -> None:
    from arcwise.service.limits import Limits

    default = Limits()

    @app.command("serve")
    def serve_command(
        model: list[str] = typer.Option(
            ..., "--model", "-m",
            help="A model file, or NAME=FILE; repeat for several (the first is the default)."),
        host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on."),
        port: int = typer.Option(8000, "--port", help="Port to listen on (0: any free one)."),
        workers: int = typer.Option(
            1, "--workers", min=1,
            help="Server processes (each loads the models); 1 keeps one process."),
        max_request_bytes: int = typer.Option(
            default.max_request_bytes, "--max-request-bytes", min=1,
            help="Larger request bodies are refused (413)."),
        max_request_sentences: int = typer.Option(
            default.max_request_sentences, "--max-request-sentences", min=1,
            help="Requests with more sentences are refused (413), counted before parsing."),
        max_request_words: int = typer.Option(
            default.max_request_words, "--max-request-words", min=1,
            help="Requests with more words are refused (413), counted before parsing."),
        max_sentence_words: int = typer.Option(
            default.max_sentence_words, "--max-sentence-words", min=1,
            help="Requests with a longer sentence are refused (422)."),
        max_request_seconds: float = typer.Option(
            default.max_request_seconds, "--max-request-seconds", min=0.001,
            help="A request not answered this long after its body came gets 503 (a parse "
            "still waiting for its turn is dropped)."),
        body_seconds: float = typer.Option(
            default.body_seconds, "--body-seconds", min=0.001,
            help="A request body that stalls this long gets 408."),
        keep_alive_seconds: float = typer.Option(
            default.keep_alive_seconds, "--keep-alive-seconds", min=0.001,
            help="A connection that has not sent a whole request header this long after "
            "opening or after its last answer is closed."),
        max_concurrent_requests: int = typer.Option(
            default.max_concurrent_requests, "--max-concurrent-requests", min=1,
            help="Requests each server process works on at once; one more gets 503 "
            "(overloaded: send it again later).  With the size limits, it bounds the "
            "memory of the requests in flight."),
        access_log: bool = typer.Option(
            True, "--access-log/--no-access-log", help="Log each request on stdout."),
        graceful_seconds: float = typer.Option(
            30.0, "--graceful-seconds", min=0,
            help="On SIGTERM/SIGINT, how long requests in flight may take to finish (then "
            "503); a request body that stalls meanwhile gets 503 within seconds."),
        device: str = typer.Option(
            "cpu", "--device",
            help="Where neural models' networks run: cpu, cuda or cuda:N (a GPU; an error "
            "where torch sees none) or auto (cuda when torch sees a GPU, else cpu); no "
            "effect on perceptron models."),
    ) -> None:
        """Serve MODEL(s) over HTTP: a JSON API (/docs), UDPipe 1's /process, the viewer at /.

        Models are loaded and warmed before the port opens; SIGTERM stops
        accepting connections, lets the requests in flight finish and exits 0.
        """
        import logging

        from arcwise.core import interrupts
        from arcwise.core.device import use_device
        from arcwise.service.limits import Limits
        from arcwise.service.models import load_models

        uvicorn, create_app, uvicorn_options = _service_stack()
        use_device(device)  # before the models are loaded

        logging.basicConfig(level=logging.INFO, format=LOG_FORMAT)
        limits = Limits(max_request_bytes=max_request_bytes,
                        max_sentence_words=max_sentence_words,
                        max_request_sentences=max_request_sentences,
                        max_request_words=max_request_words,
                        max_request_seconds=max_request_seconds, body_seconds=body_seconds,
                        keep_alive_seconds=keep_alive_seconds,
                        max_concurrent_requests=max_concurrent_requests)
        common = dict(host=host, port=port, log_level="info", access_log=access_log,
                      **uvicorn_options(limits), timeout_graceful_shutdown=graceful_seconds)
        try:
            if workers > 1:
                load_models(model)  # fail here, in one line, before any worker starts
                os.environ[CONFIG_VARIABLE] = json.dumps(
                    {"models": model, "limits": dataclasses.asdict(limits), "device": device})
                uvicorn.run("arcwise.cli.serve:app_from_environment", factory=True,
                            workers=workers, timeout_worker_healthcheck=WORKER_PING_SECONDS,
                            **common)
            else:
                app_ = create_app(load_models(model), limits)
                uvicorn.Server(uvicorn.Config(app_, **common)).run()
        except interrupts.Interrupted as interrupt:
            # uvicorn handles SIGTERM/SIGINT while it serves (a graceful shutdown) and
            # raises the signal again when done; that is a clean stop, not an error
            if interrupt.name not in ("SIGTERM", "SIGINT"):
                raise
            print(f"arcwise serve: stopped by {interrupt.name}", flush=True)


def _service_stack():
    """(uvicorn, create_app, uvicorn_options), or the one-line error naming the missing
    extra."""
    try:
        import uvicorn

        from arcwise.service.app import create_app
        from arcwise.service.connection import uvicorn_options
    except ImportError as error:
        from arcwise.core.errors import ArcwiseError

        raise ArcwiseError(f"arcwise serve needs {error.name}: pip install 'arcwise[serve]'"
                           ) from None
    return uvicorn, create_app, uvicorn_options


def app_from_environment():
    """The app of one `--workers` process, configured by the parent's options (uvicorn
    spawns each worker, which calls this to build its own app: models, batching thread)."""
    import logging

    from arcwise.core.device import use_device
    from arcwise.service.app import create_app
    from arcwise.service.limits import Limits
    from arcwise.service.models import load_models

    logging.basicConfig(level=logging.INFO, format=LOG_FORMAT)
    config = json.loads(os.environ[CONFIG_VARIABLE])
    use_device(config.get("device", "cpu"))
    return create_app(load_models(config["models"]), Limits(**config["limits"]))
