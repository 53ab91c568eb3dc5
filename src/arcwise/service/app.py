"""The ASGI application of ``arcwise serve`` (FastAPI; run by uvicorn).

Endpoints (the OpenAPI schema is at ``/openapi.json``, browsable at ``/docs``):

- ``GET /health``: the process answers; ``GET /ready``: models loaded and
  warmed, not shutting down (503 otherwise);
- ``GET /v1/models``; ``POST /v1/parse``: parse CoNLL-U, pre-tokenized text
  (``horizontal``, ``vertical``) or raw text (models with a tokenizer), answer
  CoNLL-U or JSON; a pipeline model does what ``arcwise.load(PIPELINE)(text)``
  does: its tokenizer splits raw text, its tagger tags words without tags;
- ``GET|POST /models`` and ``/process``: UDPipe 1's REST API (parameters
  ``model``, ``data``, ``input``, ``tokenizer``, ``tagger``, ``parser``,
  ``output``; the answer ``{"model", "acknowledgements", "result"}``), so
  UDPipe clients work unchanged.  As in UDPipe, a stage runs when its
  parameter is present: ``tokenizer`` (the input is raw text; with the option
  ``presegmented``, a sentence per line; other options are ignored),
  ``tagger`` (tag, replacing the input's tags; a model without a tagger keeps
  them), ``parser``; a ``model`` names a model or a prefix of one;
- ``GET /``: the viewer; ``GET /v1/systems``, ``POST /v1/explore``: the oracle
  explorer (`arcwise.service.explorer`).

Errors are ``{"error": "one line"}``: 400 malformed input (``line N: ...``;
a field that is not UTF-8 or holds a lone surrogate: ``FIELD: line N: ...``,
`fields`), 404 unknown model, 408 a body that stalls, 413 a body, or its
sentences or words, over the limit, 422 a field of the wrong type or out of its
bounds, a sentence over the word limit, raw text without a tokenizer, bare words
to a parser trained with tags (untagged), 503 a request not answered within the
time limit or cut off by shutdown, 500 (logged, never a traceback).  Each limit
(`arcwise.service.limits.Limits`) is checked before the work it bounds, and its
error names the option that raises it.
Parsing runs on `models.Batcher`'s thread, reading and writing in the thread
pool, so the event loop keeps answering while a batch is parsed.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException

from arcwise import __version__
from arcwise.core.errors import ArcwiseError
from arcwise.core.vocab import check_tagged
from arcwise.service import explorer, formats
from arcwise.service.errors import RequestError, Unavailable, UnknownModel, Unprocessable
from arcwise.service.fields import json_checked, udpipe_parameters
from arcwise.service.guard import RequestGuard
from arcwise.service.limits import Limits, raise_with
from arcwise.service.models import Batcher, ServedModel

log = logging.getLogger("arcwise.serve")

ACKNOWLEDGEMENTS = ["arcwise " + __version__ + ": data-driven dependency parsing"]


# ---------------------------------------------------------------- schema


class ParseRequest(BaseModel):
    data: str = Field(description="The text to parse, in the `input` format.")
    model: str | None = Field(None, description="A model name (or a prefix of one); "
                              "default: the server's first model.")
    input: str | None = Field(None, description="conllu, horizontal (a sentence per line), "
                              "vertical (a word per line) or text (raw; models with a "
                              "tokenizer).  Default: text for a model with a tokenizer "
                              "unless `data` begins as CoNLL-U does, else conllu.")
    output: Literal["conllu", "json", "horizontal", "vertical"] = "conllu"
    tag: bool | None = Field(None, description="Tag with the model's tagger: true always "
                             "(replacing the input's tags), false never; default: when the "
                             "input has no tags.  Models without a tagger keep the input's.")


class ParseResponse(BaseModel):
    model: str
    sentences: int = Field(description="How many sentences were parsed.")
    result: str | list[dict[str, Any]] = Field(
        description="The parse: text for conllu/horizontal/vertical, for json a list of "
                    "{id, words: [{id, form, lemma, upos, xpos, feats, head, deprel}]}.")


class ModelInfo(BaseModel):
    name: str
    system: str | None = Field(description="The parser's transition system (null: no parser).")
    file: str
    components: list[str]
    inputs: list[str]


class ModelList(BaseModel):
    default: str
    models: list[ModelInfo]


class ExploreRequest(BaseModel):
    system: str = Field(description="A transition system name, e.g. arc-eager or covington-nm.")
    heads: list[Annotated[int, Field(ge=0, le=explorer.MAX_WORDS)]] = Field(
        description="Gold head of each word 1..n (0: the root).")
    history: list[str] = Field([], description="The transitions applied so far, in order.")


class ErrorResponse(BaseModel):
    error: str


ERRORS = {code: {"model": ErrorResponse} for code in (400, 404, 408, 413, 422, 500, 503)}


# ---------------------------------------------------------------- the app


class Service:
    """What the endpoints share: the models, the limits, the batching thread."""

    def __init__(self, models: dict[str, ServedModel], limits: Limits):
        if not models:
            raise ValueError("no models to serve")
        self.models = models
        self.default = next(iter(models))
        self.limits = limits
        self.batcher: Batcher | None = None
        self.ready = False

    def model(self, name: str | None) -> ServedModel:
        """The model called `name` (or the first whose name starts with it), else 404."""
        if not name:
            return self.models[self.default]
        if name in self.models:
            return self.models[name]
        for candidate, model in self.models.items():
            if candidate.startswith(name):
                return model
        raise UnknownModel(f"unknown model {name!r}; this server has: {', '.join(self.models)}")

    def read(self, kind: str | None, data: str, model: ServedModel, tag: bool | None = None,
             parse: bool = True) -> tuple[list, list]:
        """(read, written): the sentences of `data`, checked against the limits (counted
        before they are read, and again as read: raw text is only split by the tokenizer),
        tagged (see `run`), as the parser reads them and as they are written
        (`ServedModel.tagged`)."""
        kind = formats.kind_of(kind, data, model)
        self.limits.check_size(formats.count(kind, data))
        sentences = formats.read(kind, data, model)
        self.limits.check_size((1, s.n) for s in sentences)
        limit = self.limits.max_sentence_words
        for k, s in enumerate(sentences, 1):
            if s.n > limit:
                where = f"line {s.first_line}: " if kind == "conllu" else ""
                raise Unprocessable(f"{where}sentence {k} has {s.n} words; this server "
                                    f"parses at most {limit}{raise_with('max_sentence_words')}")
        read = sentences
        if tag is not False:
            read, sentences = model.tagged(sentences, retag=bool(tag))
        vocabularies = getattr(model.parser, "vocabularies", None)
        if parse and vocabularies is not None:  # trained with tags: refuses untagged words
            try:
                check_tagged(read, vocabularies)
            except ArcwiseError as error:
                hint = (f"; {model.name} has a tagger: ask for it (tagger= in /process)"
                        if model.tagger is not None else "")
                raise Unprocessable(str(error) + hint) from None
        return read, sentences

    async def run(self, model: ServedModel, kind: str | None, data: str, output: str,
                  parse: bool = True, tag: bool | None = None) -> tuple[int, Any]:
        """(sentence count, output) of `data`: tagged (tag True: always, False: never, None:
        when it has no tags; only by a model with a tagger), then parsed (parse=False:
        not; only by a model with a parser, else 422); 503 when that takes over
        max_request_seconds (a parse still waiting for the batching thread is dropped)."""
        if output != "json" and output not in formats.OUTPUTS:
            raise RequestError(f"unknown output format {output!r}; "
                               f"known: {', '.join([*formats.OUTPUTS, 'json'])}")
        if parse and model.parser is None:
            raise Unprocessable(f"{model.name} has no parser: leave out parser=")
        seconds = self.limits.max_request_seconds
        try:
            async with asyncio.timeout(seconds):
                return await self._run(model, kind, data, output, parse, tag)
        except TimeoutError:
            raise Unavailable(f"request not answered within the limit of {seconds:g} s"
                              f"{raise_with('max_request_seconds')}") from None

    async def _run(self, model: ServedModel, kind: str | None, data: str, output: str,
                   parse: bool, tag: bool | None) -> tuple[int, Any]:
        small = len(data) <= INLINE_CHARACTERS
        read, sentences = (self.read(kind, data, model, tag, parse) if small else
                           await run_in_threadpool(self.read, kind, data, model, tag, parse))
        trees = None
        if parse and sentences:
            trees = await asyncio.wrap_future(self.batcher.submit(model, read))
        result = (formats.write(output, sentences, trees) if small else
                  await run_in_threadpool(formats.write, output, sentences, trees))
        return len(sentences), result


# A request this small (some 25 sentences) is read and written on the event loop, in a few
# milliseconds (10 CoNLL-U sentences: ~0.7 ms): the hop to a worker thread and back, two
# waits for the GIL, costs more than that under load.
INLINE_CHARACTERS = 32_768


def create_app(models: dict[str, ServedModel], limits: Limits = Limits()) -> FastAPI:
    """The ASGI app serving `models` (loaded and warmed: `models.load_models`)."""
    service = Service(models, limits)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        service.batcher = Batcher()
        # The models, numba and the web stack leave ~150,000 long-lived objects that every
        # full collection would walk (~100 ms, stalling every request in flight: that was
        # the p99): moved out of the collector's reach, a collection walks only new ones.
        gc.collect()
        gc.freeze()
        service.ready = True
        log.info("arcwise serve: ready with %s", ", ".join(models))
        try:
            yield
        finally:
            service.ready = False
            await run_in_threadpool(service.batcher.close, 60)

    app = FastAPI(title="arcwise", version=__version__, lifespan=lifespan,
                  docs_url=None, redoc_url=None,  # Swagger UI and ReDoc load from CDNs
                  description="Dependency parsing with arcwise: a JSON API, UDPipe 1's "
                              "/process, and the viewer with the oracle explorer at /.")
    app.state.service = service
    _error_handlers(app)

    @app.get("/health", tags=["service"])
    async def health() -> dict[str, str]:
        """The process is up and its event loop answers."""
        return {"status": "ok"}

    @app.get("/ready", tags=["service"], responses={503: {"model": ErrorResponse}})
    async def ready():
        """Models loaded and warmed, and not shutting down."""
        if not service.ready:
            return JSONResponse({"error": "not ready"}, status_code=503)
        return {"ready": True, "models": list(service.models)}

    @app.get("/v1/models", tags=["parse"], response_model=ModelList)
    async def list_models() -> ModelList:
        return ModelList(default=service.default,
                         models=[ModelInfo(**m.info()) for m in service.models.values()])

    @app.post("/v1/parse", tags=["parse"], response_model=ParseResponse, responses=ERRORS)
    async def parse(request: ParseRequest) -> JSONResponse:
        """Parse `data` with a model (raw text is tokenized and words without tags tagged
        when the model has a tokenizer and a tagger); the output keeps the input's lines
        but the new columns (CoNLL-U), or gives each word's columns (JSON)."""
        json_checked(request)
        model = service.model(request.model)
        count, result = await service.run(model, request.input, request.data, request.output,
                                          parse=model.parser is not None, tag=request.tag)
        # answered as it is: validating it against ParseResponse (the schema) would copy
        # every word's dict twice, more than doubling the memory a large request takes
        return JSONResponse({"model": model.name, "sentences": count, "result": result})

    async def udpipe_models() -> dict[str, Any]:
        """UDPipe 1's ``models``: each model's components and the default model."""
        return {"models": {m.name: m.components() for m in service.models.values()},
                "default_model": service.default}

    async def udpipe_process(request: Request) -> dict[str, Any]:
        """UDPipe 1's ``process`` (query string, urlencoded or multipart form)."""
        params = await udpipe_parameters(request, service.limits.max_request_bytes)
        if "data" not in params:
            raise RequestError("required argument 'data' is missing")
        model = service.model(params.get("model"))
        kind = params.get("input")  # None: raw text for a model with a tokenizer, unless
        # the data is CoNLL-U (formats.kind_of); UDPipe 1 reads CoNLL-U by default
        if "tokenizer" in params:
            kind = "lines" if "presegmented" in params["tokenizer"].split(";") else "text"
        _, result = await service.run(model, kind, params["data"],
                                      params.get("output") or "conllu",
                                      parse="parser" in params, tag="tagger" in params)
        return {"model": model.name, "acknowledgements": ACKNOWLEDGEMENTS, "result": result}

    for method in ("GET", "POST"):  # UDPipe answers both
        app.add_api_route("/models", udpipe_models, methods=[method], tags=["UDPipe 1"],
                          operation_id=f"udpipe_models_{method.lower()}")
        app.add_api_route("/process", udpipe_process, methods=[method], tags=["UDPipe 1"],
                          operation_id=f"udpipe_process_{method.lower()}", responses=ERRORS,
                          openapi_extra=UDPIPE_PROCESS_SCHEMA[method])

    @app.get("/v1/systems", tags=["oracle explorer"])
    async def list_systems() -> dict[str, Any]:
        """Every transition system name the explorer steps."""
        return {"systems": explorer.system_names(), "max_words": explorer.MAX_WORDS}

    @app.post("/v1/explore", tags=["oracle explorer"], responses=ERRORS)
    async def explore(request: ExploreRequest) -> dict[str, Any]:
        """The configuration after `history`, with every legal transition's cost under
        each oracle (and bound), each oracle's loss and choice, the loss after each step."""
        json_checked(request)
        return await run_in_threadpool(explorer.explore, request.system, request.heads,
                                       request.history)

    @app.get("/docs", include_in_schema=False)
    async def api_reference() -> HTMLResponse:
        """The API reference, made from the OpenAPI schema, offline (`api_page`)."""
        from arcwise.service.api_page import api_page

        return HTMLResponse(api_page(app.openapi()))

    @app.get("/", include_in_schema=False)
    async def viewer() -> HTMLResponse:
        from arcwise.service.viewer import page

        return HTMLResponse(page(None, served=True))

    app.add_middleware(RequestGuard, limits=limits)
    return app


_UDPIPE_PARAMETERS = [
    {"name": name, "in": "query", "required": False, "schema": {"type": "string"},
     "description": text}
    for name, text in [
        ("data", "The input text (required, here or in the form body)."),
        ("model", "A model name or a prefix of one (default: the first model)."),
        ("input", "conllu, horizontal or vertical; default: raw text for a model with a "
                  "tokenizer unless the data is CoNLL-U, else conllu."),
        ("tokenizer", "Present: the data is raw text (models with a tokenizer only); "
                      "presegmented: a sentence per line."),
        ("tagger", "Present: tag, replacing the input's tags (models without a tagger keep "
                   "them)."),
        ("parser", "Present: parse (absent: the input is only converted)."),
        ("output", "conllu (default), horizontal, vertical or json."),
    ]
]
UDPIPE_PROCESS_SCHEMA = {
    "GET": {"parameters": _UDPIPE_PARAMETERS},
    "POST": {"parameters": _UDPIPE_PARAMETERS, "requestBody": {"required": False, "content": {
        media: {"schema": {"type": "object", "properties": {
            p["name"]: {"type": "string", "description": p["description"]}
            for p in _UDPIPE_PARAMETERS}}}
        for media in ("application/x-www-form-urlencoded", "multipart/form-data")}}},
}


def _error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestError)
    async def request_error(request: Request, error: RequestError) -> JSONResponse:
        return JSONResponse({"error": str(error)}, status_code=error.status)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> JSONResponse:
        return JSONResponse({"error": str(error.detail)}, status_code=error.status_code,
                            headers=getattr(error, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        problems = ["{}: {}".format(".".join(map(str, e.get("loc", ()))), e.get("msg", ""))
                    for e in error.errors()]
        return JSONResponse({"error": "; ".join(problems) or "invalid request"},
                            status_code=422)

    @app.exception_handler(Exception)
    async def internal(request: Request, error: Exception) -> JSONResponse:
        log.error("internal error on %s %s", request.method, request.url.path,
                  exc_info=(type(error), error, error.__traceback__))
        return JSONResponse({"error": "internal error (the server logged it)"},
                            status_code=500)
