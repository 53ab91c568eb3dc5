"""Property-based fuzzing of `arcwise serve` from its own OpenAPI schema (schemathesis): every
operation, with values generated from the schema, in-process through ASGI (no network), gets
an answer below 500.  Served: a pipeline (tokenizer, tagger, parser) and a plain parser."""

from __future__ import annotations

import pytest

from tests.tiny_model import tiny_pipeline_model, untagged_tiny_model  # noqa: F401 -- fixtures

pytest.importorskip("fastapi", reason="the serve extra is not installed")
schemathesis = pytest.importorskip("schemathesis", reason="schemathesis is not installed")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis.errors import Unsatisfiable  # noqa: E402
from schemathesis import GenerationMode  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402

pytestmark = pytest.mark.end_to_end

EXAMPLES = 8  # per operation and mode: 10 operations x 2 modes, 160 requests at most


@pytest.fixture(scope="module")
def api_schema(tiny_pipeline_model, untagged_tiny_model):  # noqa: F811
    """The app's OpenAPI schema, loaded from the app in-process; its lifespan (the batching
    thread) starts with the first request and stops at the end of the module."""
    from arcwise.service.app import create_app
    from arcwise.service.limits import Limits
    from arcwise.service.models import load_models

    app = create_app(load_models([f"en={tiny_pipeline_model}",
                                  f"words={untagged_tiny_model[0]}"]),
                     Limits(max_request_bytes=20_000, max_sentence_words=40))
    yield schemathesis.openapi.from_asgi("/openapi.json", app)
    from schemathesis.python.asgi import shutdown_lifespans

    shutdown_lifespans()


def check(case) -> None:
    """Below 500; a 4xx in JSON is one line: ``{"error": "..."}``, never a traceback."""
    response = case.call()
    case.validate_response(response, checks=[not_a_server_error])
    if response.status_code >= 400 and "json" in response.headers.get("content-type", ""):
        body = response.json()
        assert set(body) == {"error"} and "\n" not in body["error"], response.text


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_no_operation_answers_5xx(api_schema, mode):
    """Every operation, with values that fit its schema (positive) or do not (negative).
    (schemathesis's own pytest plugin, `from_fixture`, fails under pytest 9: it sets
    `Function._nodeid`, which pytest 9 no longer has; hence a plain `given` per operation.)"""
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert {o.path for o in operations} == {"/health", "/ready", "/v1/models", "/v1/parse",
                                            "/models", "/process", "/v1/systems",
                                            "/v1/explore"}
    nothing_to_break = []  # negative mode: operations without parameters or a body
    for operation in operations:
        fuzz = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                        suppress_health_check=list(HealthCheck))(
            given(case=operation.as_strategy(mode))(check))
        try:
            fuzz()
        except Unsatisfiable:
            assert mode is GenerationMode.NEGATIVE, operation.label
            nothing_to_break.append(operation.path)
    assert not {"/v1/parse", "/process", "/v1/explore"} & set(nothing_to_break)
