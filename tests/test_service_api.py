"""`arcwise serve`'s application through Starlette's TestClient: the JSON API, UDPipe 1's
/process, the limits and their error codes, the batching thread, the oracle explorer."""

from __future__ import annotations

import dataclasses
import itertools
import json
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from arcwise.io import conllu
from tests.ewt import DATA
from tests.serve_helpers import served_app
from tests.tiny_model import tiny_model, untagged_tiny_model  # noqa: F401 -- fixtures

pytest.importorskip("fastapi", reason="the serve extra is not installed")
from fastapi.testclient import TestClient  # noqa: E402

from arcwise.core.errors import ArcwiseError  # noqa: E402
from arcwise.service import explorer, formats  # noqa: E402
from arcwise.service.errors import RequestError  # noqa: E402

pytestmark = pytest.mark.end_to_end


@pytest.fixture(scope="module")
def client(untagged_tiny_model):  # noqa: F811
    model, _ = untagged_tiny_model
    app = served_app(model, max_request_bytes=20_000, max_sentence_words=40)
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


@pytest.fixture(scope="module")
def small(untagged_tiny_model):  # noqa: F811
    """A client of a server that parses at most 20 sentences and 100 words a request."""
    app = served_app(untagged_tiny_model[0], max_request_sentences=20, max_request_words=100)
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


@pytest.fixture(scope="module")
def dev_text():
    sentences = list(itertools.islice(conllu.read(DATA / "dev.conllu.gz"), 8))
    return "".join(map(conllu.format_sentence, sentences))


def parser_of(client):
    return client.app.state.service.models["en"].parser


def assert_error(response, status, *fragments):
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and "\n" not in body["error"], body
    assert "Traceback" not in response.text
    for fragment in fragments:
        assert fragment in body["error"], body


def test_health_ready_and_models(client):
    assert client.get("/health").json() == {"status": "ok"}
    assert client.get("/ready").json() == {"ready": True, "models": ["en", "en-second"]}
    listed = client.get("/v1/models").json()
    assert listed["default"] == "en"
    assert listed["models"][0] == {"name": "en", "system": "arc-eager", "file": "tiny.arcwise",
                                   "components": ["parser"],
                                   "inputs": ["conllu", "horizontal", "vertical"]}


def test_openapi_schema_documents_every_endpoint(client):
    schema = client.get("/openapi.json").json()
    assert {"/health", "/ready", "/v1/models", "/v1/parse", "/models", "/process",
            "/v1/systems", "/v1/explore"} <= set(schema["paths"])
    assert set(schema["paths"]["/process"]) == {"get", "post"}
    names = {p["name"] for p in schema["paths"]["/process"]["get"]["parameters"]}
    assert names == {"model", "data", "input", "tokenizer", "tagger", "parser", "output"}


def test_parse_conllu_equals_the_python_api(client, dev_text, tmp_path):
    response = client.post("/v1/parse", json={"data": dev_text})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["model"] == "en" and body["sentences"] == 8
    source, expected = tmp_path / "in.conllu", tmp_path / "out.conllu"
    source.write_text(dev_text)
    parser_of(client).parse_file(source, expected)
    assert body["result"] == expected.read_text()


def test_pretokenized_input_and_json_output(client):
    words = [["The", "dog", "barked", "."], ["It", "rained"]]
    horizontal = "\n".join(" ".join(w) for w in words) + "\n"
    vertical = "\n\n".join("\n".join(w) for w in words) + "\n"
    answers = [client.post("/v1/parse", json={"data": data, "input": kind, "output": "json"})
               for kind, data in (("horizontal", horizontal), ("vertical", vertical))]
    assert answers[0].status_code == 200, answers[0].text
    assert answers[0].json() == answers[1].json()
    result = answers[0].json()["result"]
    assert [[w["form"] for w in s["words"]] for s in result] == words
    trees = parser_of(client).parse(formats.read("horizontal", horizontal))
    for s, (head, deprel) in zip(result, trees):
        assert [w["head"] for w in s["words"]] == head[1:].tolist()
        assert [w["deprel"] for w in s["words"]] == list(deprel[1:])


def test_udpipe_process_is_compatible(client, dev_text):
    expected = client.post("/v1/parse", json={"data": dev_text}).json()["result"]
    form = client.post("/process", data={"data": dev_text, "tagger": "", "parser": ""})
    assert form.status_code == 200, form.text
    assert form.json() == {"model": "en", "acknowledgements": form.json()["acknowledgements"],
                           "result": expected}
    files = client.post("/process", data={"model": "en-sec", "parser": ""},
                        files={"data": ("in.conllu", dev_text.encode())})
    assert files.json()["model"] == "en-second" and files.json()["result"] == expected
    query = client.get("/process", params={"data": "The dog barked .", "input": "horizontal",
                                           "parser": "", "output": "conllu"})
    assert query.status_code == 200 and query.json()["result"].count("\n") == 5
    unparsed = client.post("/process", data={"data": dev_text})  # no `parser`: only read
    assert unparsed.json()["result"] == dev_text
    assert client.get("/models").json() == {
        "models": {"en": ["parser"], "en-second": ["parser"]}, "default_model": "en"}


def test_errors_are_one_line_json_with_the_right_status(client, dev_text):
    bad = dev_text.replace("\t", " ", 1)
    assert_error(client.post("/v1/parse", json={"data": bad}), 400, "line 5:", "columns")
    assert_error(client.post("/process", data={"data": bad, "parser": ""}), 400, "line 5:")
    assert_error(client.post("/process", data={"parser": ""}), 400, "'data' is missing")
    assert_error(client.post("/v1/parse", json={"data": "x", "model": "fr"}), 404, "'fr'")
    assert_error(client.post("/process", data={"data": "x", "model": "de"}), 404)
    long = " ".join(["w"] * 41)
    assert_error(client.post("/v1/parse", json={"data": long, "input": "horizontal"}), 422,
                 "41 words", "at most 40", "--max-sentence-words")
    assert_error(client.post("/process", data={"data": "A text.", "tokenizer": ""}), 422,
                 "en has no tokenizer")
    assert_error(client.post("/v1/parse", json={"data": "x", "input": "text"}), 422,
                 "no tokenizer")
    assert_error(client.post("/process", data={"data": "x", "tokenizer": "presegmented"}),
                 422, "no tokenizer")
    assert_error(client.post("/v1/parse", json={"data": "x", "input": "xml"}), 400, "'xml'")
    assert_error(client.post("/process", data={"data": "x", "output": "matxin"}), 400)
    assert_error(client.post("/v1/parse", json={"text": "x"}), 422, "data")
    assert_error(client.post("/v1/parse", content=b"{not json",
                             headers={"content-type": "application/json"}), 422)
    assert_error(client.get("/no/such/page"), 404)
    big = "x " * 12_000
    assert_error(client.post("/v1/parse", json={"data": big}), 413, "20,000 bytes",
                 "--max-request-bytes")
    streamed = client.post("/process", content=iter([b"data=", big.encode()]),
                           headers={"content-type": "application/x-www-form-urlencoded"})
    assert_error(streamed, 413)
    endless = client.post("/v1/parse", content=b'{"data": "x"}',  # int() refuses its digits
                          headers={"content-type": "application/json",
                                   "content-length": "9" * 5000})
    assert_error(endless, 413)
    assert client.get("/health").status_code == 200


def test_sentences_and_words_over_the_limits_are_refused_before_they_are_read(small,
                                                                             monkeypatch):
    """Counted from the text up to the limit: a million one-word lines (2 MB, under the byte
    limit) are refused after a scan of 21 lines, where they were read and parsed for a
    minute and took gigabytes (issue #41)."""
    reads = []
    read = formats.read
    monkeypatch.setattr(formats, "read", lambda *args: reads.append(args[0]) or read(*args))
    at_the_limits = small.post("/v1/parse", json={"data": "w w w w w\n" * 20,
                                                  "input": "horizontal"})
    assert at_the_limits.status_code == 200 and at_the_limits.json()["sentences"] == 20
    one_word = "1\tw\t_\t_\t_\t_\t0\troot\t_\t_\n\n"
    over = [("w\n" * 1_000_000, "horizontal", "sentences"), ("w\n\n" * 21, "vertical", "sentences"),
            (one_word * 21, "conllu", "sentences"), ("w " * 101, "horizontal", "words"),
            ("w\n" * 101, "vertical", "words")]
    for data, kind, unit in over:
        limit = 20 if unit == "sentences" else 100
        for response in (small.post("/v1/parse", json={"data": data, "input": kind}),
                         small.post("/process", data={"data": data, "input": kind})):
            assert_error(response, 413, f"limit of {limit} {unit}", f"--max-request-{unit}")
    assert reads == ["horizontal"]


def test_a_request_not_answered_in_time_gets_503_and_its_waiting_parse_is_dropped(
        client, monkeypatch):
    """--max-request-seconds: one request holds the batching thread past the limit, one
    waits behind it; both get 503 at the limit, and the waiting one is never parsed."""
    service = client.app.state.service
    monkeypatch.setattr(service, "limits",
                        dataclasses.replace(service.limits, max_request_seconds=0.5))
    parser = parser_of(client)
    parse, parsed, release = parser.parse, [], threading.Event()

    def held(sentences, **options):
        parsed.append([s.form[1] for s in sentences])
        release.wait(30)
        return parse(sentences, **options)

    monkeypatch.setattr(parser, "parse", held)
    try:
        with ThreadPoolExecutor(2) as pool:
            first = pool.submit(client.post, "/v1/parse", json={"data": "first",
                                                                "input": "horizontal"})
            while not parsed:
                release.wait(0.01)
            second = pool.submit(client.post, "/v1/parse", json={"data": "second",
                                                                 "input": "horizontal"})
            for response in (first.result(timeout=30), second.result(timeout=30)):
                assert_error(response, 503, "0.5 s", "--max-request-seconds")
    finally:
        release.set()
    assert client.post("/v1/parse", json={"data": "third", "input": "horizontal"}
                       ).status_code == 200
    assert parsed == [["first"], ["third"]]


def test_a_failing_parse_is_a_500_and_the_service_goes_on(client, monkeypatch):
    parser = parser_of(client)
    calls = []

    def broken(sentences, **options):
        calls.append(len(sentences))
        raise RuntimeError("a bug in the parser")

    monkeypatch.setattr(parser, "parse", broken)
    assert_error(client.post("/v1/parse", json={"data": "a b", "input": "horizontal"}), 500,
                 "internal error")
    assert calls
    monkeypatch.undo()
    ok = client.post("/v1/parse", json={"data": "a b", "input": "horizontal"})
    assert ok.status_code == 200, ok.text


def test_batcher_parses_waiting_jobs_together_and_isolates_failures(client):
    import threading

    from arcwise.service.models import Batcher, ServedModel

    parser = parser_of(client)
    sentences = list(itertools.islice(conllu.read(DATA / "dev.conllu.gz"), 12))
    alone = parser.parse(sentences)
    release, calls = threading.Event(), []

    class Recording:  # the parser, recording its calls; "poison" fails, "wait" blocks
        system = parser.system

        def parse(self, batch, **options):
            calls.append(len(batch))
            if any(s.form[1] == "wait" for s in batch):
                release.wait(30)
            if any(s.form[1] == "poison" for s in batch):
                raise RuntimeError("poisoned")
            return parser.parse(batch, **options)

    model = ServedModel("rec", "rec.arcwise", Recording())
    batcher = Batcher(max_sentences=64)
    try:
        blocker = batcher.submit(model, formats.read("horizontal", "wait here"))
        while not calls:  # the blocker is being parsed: the jobs below wait together
            release.wait(0.01)
        futures = [batcher.submit(model, sentences[k : k + 3]) for k in range(0, 12, 3)]
        poisoned = batcher.submit(model, formats.read("horizontal", "poison pill"))
        release.set()
        blocker.result(timeout=60)
        got = [tree for f in futures for tree in f.result(timeout=60)]
        with pytest.raises(RuntimeError, match="poisoned"):
            poisoned.result(timeout=60)
    finally:
        batcher.close(60)
    # the blocker alone, then the five waiting jobs in one call, then each job alone
    assert calls == [1, 13, 3, 3, 3, 3, 1]
    for (h1, d1), (h2, d2) in zip(got, alone):
        assert np.array_equal(h1, h2) and d1 == d2


def post_json(client, path, body):
    """POST `body` as JSON written by json.dumps, which escapes a lone surrogate as
    ``\\ud800``: what a client that sends one sends."""
    return client.post(path, content=json.dumps(body),
                       headers={"content-type": "application/json"})


def test_a_lone_surrogate_in_a_json_field_is_a_400_naming_it(client, dev_text):
    """A JSON "\\ud800" is half of a UTF-16 pair, which UTF-8 cannot encode: refused naming
    the field (and the line), in every input kind, never a 500."""
    lines = dev_text.split("\n")
    lines[4] = lines[4].replace("\t", "\t\ud800", 1)  # the first word of the first sentence
    assert_error(post_json(client, "/v1/parse", {"data": "\n".join(lines)}), 400,
                 "data: line 5: lone surrogate U+D800 at character 3")
    for kind in ("horizontal", "vertical", "text"):
        assert_error(post_json(client, "/v1/parse", {"data": "The \udc80 barked",
                                                     "input": kind}), 400,
                     "data: lone surrogate U+DC80 at character 5")
    assert_error(post_json(client, "/v1/explore", {"system": "arc-eager+\ud800", "heads": GOLD}),
                 400, "system: lone surrogate U+D800")
    assert_error(post_json(client, "/v1/explore", {"system": "arc-eager", "heads": GOLD,
                                                   "history": ["shift", "\udfff"]}),
                 400, "history.1: lone surrogate U+DFFF")


def test_bytes_that_are_not_utf8_are_a_400_naming_the_field_and_line(client):
    """UDPipe's /process reads its parameters from the query string and a urlencoded or
    multipart form: a byte that is not UTF-8 is refused as the command line refuses it, never
    turned into U+FFFD or read as Latin-1; UTF-8 text comes through as it was sent."""
    expected = "data: line 2: invalid UTF-8 (byte 0xff)"
    for response in (
            client.get("/process?data=The+dog%0Ad%FFg&input=horizontal"),
            client.post("/process", content=b"data=The+dog%0Ad%FFg&input=horizontal",
                        headers={"content-type": "application/x-www-form-urlencoded"}),
            client.post("/process", files={"data": (None, b"The dog\nd\xffg"),
                                           "input": (None, b"horizontal")}),
            client.post("/process", data={"input": "horizontal"},
                        files={"data": ("in.txt", b"The dog\nd\xffg")})):
        assert_error(response, 400, expected)
    assert_error(client.get("/process?data=x&model=en%E9"), 400,
                 "model: invalid UTF-8 (byte 0xe9)")
    assert_error(client.get("/process?data=x&a%0Ab=%FF"), 400,  # a name of two lines
                 "'a\\nb': invalid UTF-8 (byte 0xff)")
    for response in (
            client.get("/process?data=The+d%C3%B6g&input=horizontal"),
            client.post("/process", files={"data": (None, "The dög".encode()),
                                           "input": (None, b"horizontal")})):
        assert response.status_code == 200, response.text
        assert response.json()["result"] == "1\tThe\t_\t_\t_\t_\t_\t_\t_\t_\n" \
                                            "2\td\u00f6g\t_\t_\t_\t_\t_\t_\t_\t_\n\n"


def test_a_urlencoded_form_is_decoded_as_parse_qsl_decodes_it_in_bounded_memory(
        client, monkeypatch):
    """/process's own urlencoded decoder (`fields._urlencoded`: a chunk of each value at a
    time, so that 4 MiB of ``%0A`` no longer costs 300 MiB) reads what urllib's parse_qsl
    reads, however an escape falls across its chunks; more than MAX_FIELDS fields are a
    413 before any is decoded."""
    from urllib.parse import parse_qsl

    from arcwise.service import fields

    monkeypatch.setattr(fields, "CHUNK", 5)  # every escape falls across a chunk somewhere
    pieces = [b"%", b"&", b"=", b"+", b"a", b"F", b"0", b"9", b"g", b"\xff", b"%4", b"%41",
              b"%%", b"%0A"]
    for body in map(b"".join, itertools.product(pieces, repeat=4)):
        assert fields._urlencoded(body) == [
            (name.encode("latin-1"), value.encode("latin-1")) for name, value in
            parse_qsl(body.decode("latin-1"), keep_blank_values=True, encoding="latin-1")]
    lines = client.post("/process?input=horizontal&parser",
                        content=b"data=" + b"The+dog%0A" * 200 + b"&model=en",
                        headers={"content-type": "application/x-www-form-urlencoded"})
    assert lines.status_code == 200 and lines.json()["result"].count("\n\n") == 200
    many = b"&".join([b"input=horizontal"] * fields.MAX_FIELDS + [b"data=x"])
    for response in (client.post("/process", content=many,
                                 headers={"content-type": "application/x-www-form-urlencoded"}),
                     client.get("/process?" + many.decode())):
        assert_error(response, 413, "more than 1,000 fields in the query string or form")
    enough = "&".join(["input=horizontal"] * (fields.MAX_FIELDS - 2) + ["data=x", "parser"])
    assert client.get("/process?" + enough).status_code == 200


# ---------------------------------------------------------------- the oracle explorer

GOLD = [2, 0, 2, 5, 3]  # 1 <- 2 -> 3 -> 5 -> 4, projective


def follow(system, heads, oracle=None, wrong_first=None):
    history = [] if wrong_first is None else [wrong_first]
    while True:
        state = explorer.explore(system, heads, history)
        if state["terminal"]:
            return state
        history.append(state["choice"][oracle or state["oracles"][0]])


@pytest.mark.parametrize("system", explorer.system_names())
def test_following_the_oracle_reaches_a_terminal_configuration(system):
    state = follow(system, GOLD)
    assert state["legal"] == [] and len(state["trajectory"]) == len(state["history"]) + 1
    if state["can_build"] and all(state["exact"].values()):
        assert state["tree"] == GOLD and state["trajectory"][-1] == 0


def test_a_wrong_transition_raises_the_loss_by_its_cost():
    state = explorer.explore("arc-eager", GOLD, ["shift"])
    costly = [m for m in state["legal"] if m["costs"]["oracle"] > 0]
    assert costly
    for move in costly:
        after = explorer.explore("arc-eager", GOLD, ["shift", move["action"]])
        assert after["trajectory"][-1] - after["trajectory"][-2] == move["costs"]["oracle"]
    final = follow("arc-eager", GOLD, wrong_first="right-arc")
    assert final["trajectory"][-1] == 1 and sum(
        h != g for h, g in zip(final["tree"], GOLD)) == 1


def test_covington_nm_shows_every_bound_of_each_oracle():
    state = explorer.explore("covington-nm", [3, 3, 0], ["shift"])
    assert state["oracles"] == [f"priority={p}, {b}" for p in ("none", "monotonic")
                                for b in ("upper", "pc-upper", "lower")]
    for move in state["legal"]:
        assert set(move["costs"]) == set(state["oracles"])


@pytest.mark.parametrize("system, heads, history, message", [
    # heads too large for the kernels' int32 (an OverflowError), however large
    ("arc-eager", [2, 0, 2**40], [], "the head of word 3 is 1099511627776, outside 0..3"),
    ("arc-eager", [2, 0, 2**70], [], "the head of word 3 is an integer of 71 bits, outside"),
    ("arc-eager", [2, 0, 10**5000], [], "the head of word 3 is an integer of 16610 bits"),
    ("arc-eager", [-10**5000], [], "the head of word 1 is a negative integer of 16610 bits"),
    ("arc-eager", [2, 0, -1], [], "the head of word 3 is -1, outside 0..3"),
    # what JSON cannot send, Python can: no head taken for another
    ("arc-eager", [1.5], [], "the head of word 1 is 1.5, not an integer"),
    ("arc-eager", [True], [], "the head of word 1 is True, not an integer"),
    ("arc-eager", ["1" * 100], [], "the head of word 1 is '111111111111...1111111111111', not"),
    ("arc-eager", [0] * 10**6, [], "1 to 60 words, not 1000000"),
    ("arc-eager", "21", [], "heads must be a list, not str"),
    ("arc-eager", None, [], "heads must be a list, not NoneType"),
    ("arc-eager", [0], None, "history must be a list, not NoneType"),
    ("arc-eager", [0], ["shift"] * 10**6, "at most 14884 steps"),
    ("arc-eager", [0], ["x" * 10**6], "step 1: 'xxxxxxxxxxxx...xxxxxxxxxxxxx' is not legal"),
    (None, [0], [], "system must be a name, not None"),
])
def test_the_explorer_called_from_python_refuses_what_it_cannot_step_in_one_line(
        system, heads, history, message):
    """`explorer.explore` called directly (no request model in front of it): a bad argument,
    however large, is a `RequestError` (an ArcwiseError) of one short line, before any
    array is made, never an OverflowError, a TypeError or a message holding the argument."""
    with pytest.raises(RequestError) as error:
        explorer.explore(system, heads, history)
    assert message in str(error.value) and len(str(error.value)) < 200
    assert isinstance(error.value, ArcwiseError)


def test_explorer_requests_and_their_errors(client):
    systems = client.get("/v1/systems").json()["systems"]
    assert "covington-nm" in systems and "arc-hybrid+swap" in systems
    ok = client.post("/v1/explore", json={"system": "arc-eager", "heads": GOLD,
                                          "history": ["shift"]})
    assert ok.status_code == 200 and ok.json()["history"] == ["shift"]
    assert_error(client.post("/v1/explore", json={"system": "arc-eagle", "heads": GOLD}), 400,
                 "unknown transition system")
    assert_error(client.post("/v1/explore", json={"system": "arc-eager", "heads": [2, 1]}), 400,
                 "not a tree")
    assert_error(client.post("/v1/explore", json={"system": "arc-eager", "heads": GOLD,
                                                  "history": ["reduce"]}), 400,
                 "step 1: 'reduce' is not legal")
    assert_error(client.post("/v1/explore", json={"system": "arc-eager", "heads": [0] * 61}),
                 400, "1 to 60 words")
    for head in (2**40, 2**70, 61, -1):  # an int too large for C is no 500
        assert_error(client.post("/v1/explore", json={"system": "arc-eager",
                                                      "heads": [2, 0, head]}), 422, "heads.2")
    assert json.loads(ok.text)["configuration"] == {"σ": [0, 1], "β": [2, 3, 4, 5]}


# ---------------------------------------------------------------- fuzzing

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

FIELDS = st.one_of(st.none(), st.sampled_from(["conllu", "horizontal", "vertical", "text",
                                               "json", "en", "en-s", ""]), st.text(max_size=8))
CONLLU_LIKE = st.lists(st.one_of(
    st.text(max_size=12),
    st.lists(st.sampled_from(["1", "2", "0", "_", "x", "-", "1-2", "1.1", " ", ""]),
             min_size=1, max_size=11).map("\t".join),
), max_size=6).map("\n".join)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.one_of(st.text(max_size=40), CONLLU_LIKE), model=FIELDS, kind=FIELDS,
       output=FIELDS, parse=st.booleans(), tokenizer=st.booleans())
def test_no_request_gets_a_5xx(client, data, model, kind, output, parse, tokenizer):
    """Arbitrary values of every parameter: an answer below 500, JSON with `error` if 4xx."""
    form = {k: v for k, v in {"data": data, "model": model, "input": kind,
                              "output": output}.items() if v is not None}
    form.update({"parser": ""} if parse else {})
    form.update({"tokenizer": ""} if tokenizer else {})
    for response in (client.post("/process", data=form),
                     client.post("/v1/parse", json=form)):
        assert response.status_code < 500, (form, response.text)
        if response.status_code >= 400:
            assert set(response.json()) == {"error"}, response.text


def test_a_model_trained_with_tags_refuses_untagged_words(tiny_model):  # noqa: F811
    """Bare words to a parser that learned from tags (and has no tagger): 422 naming the
    problem, never garbage trees."""
    model, _ = tiny_model
    with TestClient(served_app(model), raise_server_exceptions=False) as c:
        answer = c.post("/v1/parse", json={"data": "The dog barked .\n", "input": "horizontal"})
    assert answer.status_code == 422, answer.text
    assert "no tags" in answer.json()["error"]


def test_the_api_reference_is_a_page_that_needs_no_network(client):
    page = client.get("/docs")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    for endpoint in ("/v1/parse", "/process", "/v1/models", "/openapi.json"):
        assert endpoint in page.text
    assert "<script" not in page.text and "cdn" not in page.text.lower()
    assert client.get("/redoc").status_code == 404
