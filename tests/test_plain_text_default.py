"""Plain text by default: a model with a tokenizer reads what is not CoNLL-U as raw text
(the command line, the library, /v1/parse, /process); a model without one, given text,
names --input text in its one-line error."""

from __future__ import annotations

import pytest

from tests.serve_helpers import served_app
from tests.tiny_model import arcwise, one_line
from tests.tiny_model import tiny_model, tiny_pipeline_model  # noqa: F401 -- fixtures

pytestmark = pytest.mark.end_to_end

TEXT = "The dog barked at the mailman. It slept.\n"


def forms(conllu: bytes) -> list[list[bytes]]:
    """The comments and the first two columns of each line."""
    return [line.split(b"\t")[:2] for line in conllu.splitlines()]


def test_the_command_line_reads_text_unless_it_is_conllu(tiny_pipeline_model, tmp_path):  # noqa: F811
    raw = tmp_path / "raw"  # no extension: the content decides
    raw.write_text(TEXT)
    default = arcwise("parse", "-m", tiny_pipeline_model, raw)
    explicit = arcwise("parse", "-m", tiny_pipeline_model, "--input", "text", raw)
    assert default.returncode == 0 and default.stdout == explicit.stdout
    assert b"# text = The dog barked at the mailman." in default.stdout
    piped = arcwise("parse", "-m", tiny_pipeline_model, input=TEXT.encode())
    assert piped.returncode == 0 and piped.stdout == default.stdout
    parsed = tmp_path / "parsed"
    parsed.write_bytes(default.stdout)  # CoNLL-U in, read as CoNLL-U: its words kept
    again = arcwise("parse", "-m", tiny_pipeline_model, parsed)
    assert again.returncode == 0 and forms(again.stdout) == forms(default.stdout)
    forced = arcwise("parse", "-m", tiny_pipeline_model, "--input", "conllu", raw)
    assert forced.returncode == 2 and "--input text" in one_line(forced.stderr)


def test_a_model_without_tokenizer_names_input_text(tiny_model, tmp_path):  # noqa: F811
    model, _ = tiny_model
    raw = tmp_path / "raw.conllu"
    raw.write_text(TEXT)
    run = arcwise("parse", "-m", model, raw)
    line = one_line(run.stderr)
    assert run.returncode == 2 and line.startswith(f"{raw}:1:") and "--input text" in line


def test_the_library_reads_text_by_default(tiny_pipeline_model, tmp_path):  # noqa: F811
    import arcwise as library

    raw, by_default, as_text = tmp_path / "raw", tmp_path / "a", tmp_path / "b"
    raw.write_text(TEXT)
    nlp = library.load(tiny_pipeline_model)
    nlp.parse_file(raw, by_default)
    nlp.parse_file(raw, as_text, format="text")
    assert by_default.read_bytes() == as_text.read_bytes()


def test_the_service_reads_text_by_default(tiny_pipeline_model):  # noqa: F811
    pytest.importorskip("fastapi", reason="the serve extra is not installed")
    from fastapi.testclient import TestClient

    with TestClient(served_app(tiny_pipeline_model), raise_server_exceptions=False) as client:
        default = client.post("/v1/parse", json={"data": TEXT})
        explicit = client.post("/v1/parse", json={"data": TEXT, "input": "text"})
        assert default.status_code == 200 and default.json() == explicit.json()
        conllu_text = default.json()["result"]
        again = client.post("/v1/parse", json={"data": conllu_text})
        assert again.status_code == 200
        assert forms(again.json()["result"].encode()) == forms(conllu_text.encode())
        process = client.post("/process", data={"data": TEXT, "tagger": "", "parser": ""})
        assert process.status_code == 200 and process.json()["result"] == conllu_text
