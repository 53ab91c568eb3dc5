"""A pipeline model (tokenizer, tagger, parser) served by `arcwise serve`: raw text in through
the JSON API and UDPipe 1's /process, out byte-identical to calling the pipeline itself;
untagged input tagged by its tagger; each stage only when UDPipe's parameter asks for it."""

from __future__ import annotations

import pytest

from arcwise.io import conllu
from tests.ewt import train_and_dev
from tests.serve_helpers import served_app
from tests.test_untagged_input import blanked
from tests.tiny_model import tiny_pipeline_model  # noqa: F401 -- a fixture

pytest.importorskip("fastapi", reason="the serve extra is not installed")
from fastapi.testclient import TestClient  # noqa: E402

pytestmark = pytest.mark.end_to_end

TEXT = ("The dog didn't bark at the mailman. It slept, as dogs do.\n\n"
        "A new paragraph (with brackets) ends here!")


@pytest.fixture(scope="module")
def nlp(tiny_pipeline_model):  # noqa: F811
    import arcwise

    return arcwise.load(tiny_pipeline_model)


@pytest.fixture(scope="module")
def client(tiny_pipeline_model):  # noqa: F811
    with TestClient(served_app(tiny_pipeline_model), raise_server_exceptions=False) as c:
        yield c


def text_of(sentence) -> str:
    return next(line[9:] for line in sentence.lines if line.startswith("# text = "))


def ok(response) -> dict:
    assert response.status_code == 200, response.text
    return response.json()


def test_listed_with_its_components_and_raw_text_input(client):
    listed = ok(client.get("/v1/models"))["models"][0]
    assert listed["components"] == ["tokenizer", "tagger", "parser"]
    assert listed["inputs"] == ["conllu", "horizontal", "vertical", "text", "lines"]
    assert listed["system"] == "arc-eager"
    assert ok(client.get("/models"))["models"]["en"] == ["tokenizer", "tagger", "parser"]


def test_raw_text_gives_what_the_pipeline_gives(client, nlp):
    doc = nlp(TEXT)
    expected = doc.to_conllu()
    assert "# sent_id = 1\n" in expected and "# text = " in expected
    assert "SpaceAfter=No" in expected
    body = ok(client.post("/v1/parse", json={"data": TEXT, "input": "text"}))
    assert body["result"] == expected and body["sentences"] == len(doc.sentences)
    as_json = ok(client.post("/v1/parse", json={"data": TEXT, "input": "text",
                                                "output": "json"}))["result"]
    assert as_json == doc.to_json()["sentences"]
    udpipe = ok(client.post("/process", data={"data": TEXT, "tokenizer": "", "tagger": "",
                                              "parser": ""}))
    assert udpipe["result"] == expected


def test_presegmented_text_is_a_sentence_per_line(client, nlp):
    lines = "It rained. We stayed in\nno full stop here\n\nThe end."
    sentences = nlp.sentences_of_text(lines, presegmented=True)
    assert [text_of(s) for s in sentences] == ["It rained. We stayed in", "no full stop here",
                                               "The end."]
    udpipe = ok(client.post("/process", data={"data": lines,
                                              "tokenizer": "ranges;presegmented"}))
    assert udpipe["result"] == "".join(map(conllu.format_sentence, sentences))
    body = ok(client.post("/v1/parse", json={"data": lines, "input": "lines"}))
    assert body["sentences"] == 3


def test_udpipe_runs_only_the_stages_asked_for(client, nlp):
    tokenized = ok(client.post("/process", data={"data": TEXT, "tokenizer": ""}))["result"]
    sentences = nlp.sentences_of_text(TEXT)
    assert tokenized == "".join(map(conllu.format_sentence, sentences))
    tagged = ok(client.post("/process", data={"data": TEXT, "tokenizer": "", "tagger": ""}))
    assert tagged["result"] == "".join(map(conllu.format_sentence, nlp.tag(sentences)))
    # the parser learned from tags: without tagger= the bare words are refused, naming it
    refused = client.post("/process", data={"data": TEXT, "tokenizer": "", "parser": ""})
    assert refused.status_code == 422 and "no tags" in refused.json()["error"]
    assert "tagger=" in refused.json()["error"]


def test_untagged_input_is_tagged_and_tagged_input_kept(client, nlp):
    _, dev = train_and_dev(0, 4)
    gold = "".join(map(conllu.format_sentence, dev))
    bare = "".join(conllu.format_sentence(blanked(s)) for s in dev)
    # untagged CoNLL-U: tagged, then parsed, as the pipeline annotates it
    expected = "".join(map(conllu.format_sentence, nlp.annotate([blanked(s) for s in dev])))
    assert ok(client.post("/v1/parse", json={"data": bare}))["result"] == expected
    assert ok(client.post("/process", data={"data": bare, "tagger": "", "parser": ""})
              )["result"] == expected
    # tagged CoNLL-U keeps its tags (tag=true replaces them, as UDPipe's tagger= does)
    kept = ok(client.post("/v1/parse", json={"data": gold}))["result"]
    assert kept == "".join(map(conllu.format_sentence, nlp.annotate(dev)))
    retagged = ok(client.post("/v1/parse", json={"data": gold, "tag": True}))["result"]
    assert retagged == "".join(map(conllu.format_sentence, nlp.annotate(dev, retag=True)))
    # pre-tokenized words
    words = ok(client.post("/v1/parse", json={"data": "The dog barked .\nIt slept",
                                              "input": "horizontal", "output": "json"}))
    assert [[w["form"] for w in s["words"]] for s in words["result"]] == [
        ["The", "dog", "barked", "."], ["It", "slept"]]
    assert all(w["upos"] != "_" and w["deprel"] != "_"
               for s in words["result"] for w in s["words"])


def test_a_pipeline_without_a_parser_tags_and_refuses_parser(tmp_path, nlp):
    from arcwise.pipeline.pipeline import Pipeline

    path = tmp_path / "tagger-only.arcwise"
    Pipeline(nlp.tokenizer, nlp.tagger).save(path)
    with TestClient(served_app(path), raise_server_exceptions=False) as c:
        info = ok(c.get("/v1/models"))["models"][0]
        assert info["components"] == ["tokenizer", "tagger"] and info["system"] is None
        body = ok(c.post("/v1/parse", json={"data": TEXT, "input": "text"}))
        assert body["result"] == "".join(
            map(conllu.format_sentence, nlp.tag(nlp.sentences_of_text(TEXT))))
        refused = c.post("/process", data={"data": TEXT, "tokenizer": "", "parser": ""})
        assert refused.status_code == 422
        assert refused.json() == {"error": "en has no parser: leave out parser="}


def test_raw_text_over_the_sentence_limit_is_refused_before_it_is_tagged(
        tiny_pipeline_model, nlp, monkeypatch):  # noqa: F811
    """Only the tokenizer knows where raw text's sentences end: its sentences are counted
    again once split, before the tagger and the parser see them."""
    sentences = len(nlp(TEXT).sentences)
    app = served_app(tiny_pipeline_model, max_request_sentences=sentences - 1)
    model = app.state.service.models["en"]
    monkeypatch.setattr(model.pipeline, "tagged", lambda *a, **k: pytest.fail("tagged"))
    with TestClient(app, raise_server_exceptions=False) as c:
        for response in (c.post("/v1/parse", json={"data": TEXT, "input": "text"}),
                         c.post("/process", data={"data": TEXT, "tokenizer": "", "parser": ""})):
            assert response.status_code == 413, response.text
            assert "--max-request-sentences" in response.json()["error"]
