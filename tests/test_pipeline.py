"""The pipeline from raw text to trees: tokenizer, tagger and parser trained on a slice of
English-EWT into one model file; `arcwise.load(path)` gives a callable that takes text, word
lists and batches; `arcwise parse --input text|tokens|conllu`; the official CoNLL 2018
scorer (udeval, from udtools) reads the output against the gold treebank."""

import io
import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest

import arcwise
from arcwise.io import conllu
from arcwise.pipeline.pipeline import Pipeline
from arcwise.pipeline.stages.tagger import Tagger
from arcwise.pipeline.stages.tokenizer import Tokenizer, training_text
from arcwise.transition.train import train
from tests.cli_run import run
from tests.ewt import DATA, NO_JIT, train_and_dev
from tests.test_untagged_input import blanked

pytestmark = pytest.mark.end_to_end

N_TRAIN, N_TEST = (25, 5) if NO_JIT else (200, 40)
UDEVAL = Path(sys.executable).parent / "udeval"


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    sentences, _ = train_and_dev(N_TRAIN, 0)
    pipeline = Pipeline(Tokenizer.train(sentences, epochs=3, buckets=2**14),
                        Tagger.train(sentences, epochs=2, buckets=2**12),
                        train("arc-eager", sentences, oracle="static", epochs=1,
                              transition_buckets=2**12, label_buckets=2**10)[0])
    path = tmp_path_factory.mktemp("pipeline") / "en.arcwise"
    pipeline.save(path)
    return path


@pytest.fixture(scope="module")
def test_slice(tmp_path_factory) -> tuple[Path, Path]:
    """(gold CoNLL-U, its raw text) of the first test sentences."""
    folder = tmp_path_factory.mktemp("gold")
    gold = list(itertools.islice(conllu.read(DATA / "test.conllu.gz"), N_TEST))
    conllu.write(folder / "gold.conllu", gold)
    (folder / "raw.txt").write_text(training_text(gold)[0] + "\n")
    return folder / "gold.conllu", folder / "raw.txt"


def test_load_and_call(model):
    nlp = arcwise.load(model)
    assert isinstance(nlp, Pipeline) and nlp.components == ("tokenizer", "tagger", "parser")
    doc = nlp("The cat sat on the mat. It didn't move.")
    assert len(doc.sentences) >= 1
    words = doc.words
    assert "".join(w.form for w in words).startswith("Thecatsat")
    for sentence in doc.sentences:
        assert sum(w.head == 0 for w in sentence.words) == 1
        for w in sentence.words:
            assert w.upos != "_" and w.deprel != "_"
            assert (w.head_word is None) == (w.head == 0)
    data = json.loads(json.dumps(doc.to_json()))
    assert data["schema"] == "arcwise-document" and data["version"] == 1
    assert [w["form"] for s in data["sentences"] for w in s["words"]] == [w.form for w in words]
    parsed = list(conllu.read(io.BytesIO(doc.to_conllu().encode())))
    assert [s.form[1:] for s in parsed] == [tuple(w.form for w in s) for s in doc.sentences]
    one = nlp(["Dogs", "bark", "."])
    assert len(one.sentences) == 1 and [w.form for w in one.words] == ["Dogs", "bark", "."]
    texts = ["First text here.", "Second one. With two sentences?", "Third"]
    piped = list(nlp.pipe(texts, batch_size=2))
    assert [d.to_json() for d in piped] == [nlp(t).to_json() for t in texts]


def test_untagged_conllu_is_tagged_and_tagged_kept(model, tmp_path):
    nlp = arcwise.load(model)
    _, dev = train_and_dev(0, 3)
    head, deprel = nlp.parse([blanked(s) for s in dev])[0]  # tagged by the pipeline's tagger
    assert len(head) == dev[0].n + 1
    out = tmp_path / "out.conllu"
    nlp.parse_file(io.BytesIO("".join(map(conllu.format_sentence, dev)).encode()), out)
    assert [s.upos for s in conllu.read(out)] == [s.upos for s in dev]  # gold tags kept
    assert [s.form for s in conllu.read(out)] == [s.form for s in dev]


def test_the_parser_reads_each_columns_best_tag_and_the_seen_combination_is_written(model):
    """A tagger writes a (UPOS, XPOS, FEATS) seen in training; the parser reads the
    tagger's best of each column, the tags it was trained on (`Tagger.tagged`)."""
    nlp = arcwise.load(model)
    _, dev = train_and_dev(0, 20)
    untagged = [blanked(s) for s in dev]
    read, written = nlp.tagged(untagged)
    assert nlp.tagger.combinations.shape[0] and len(read) == len(written) == len(dev)
    annotated = nlp.annotate(untagged)
    assert [(s.upos, s.xpos, s.feats) for s in annotated] == \
        [(s.upos, s.xpos, s.feats) for s in written]
    trees = nlp.parser.parse(read)
    heads = [list(head[1:]) for head, _ in trees]
    assert [list(s.head[1:]) for s in annotated] == heads
    assert [list(head[1:]) for head, _ in nlp.parse(untagged)] == heads
    assert [s.xpos for s in nlp.tag(untagged)] == [s.xpos for s in written]


@pytest.mark.skipif(not UDEVAL.exists(), reason="udtools not installed")
def test_cli_from_raw_text_scored_by_udeval(model, test_slice, tmp_path, capsys, monkeypatch):
    gold, raw = test_slice
    out = tmp_path / "parsed.conllu"
    code, _, err = run(["parse", "-m", model, "--input", "text", raw, "-o", out],
                       capsys, monkeypatch)
    assert code == 0, err
    scores = subprocess.run([UDEVAL, "-v", gold, out], capture_output=True, text=True,
                            timeout=120)
    assert scores.returncode == 0, scores.stderr
    table = {line.split("|")[0].strip(): float(line.split("|")[3])
             for line in scores.stdout.splitlines()[2:] if "|" in line}
    assert table["Tokens"] > (80 if NO_JIT else 95) and table["Words"] > (80 if NO_JIT else 95)
    assert table["UPOS"] > (30 if NO_JIT else 70) and table["UAS"] > (10 if NO_JIT else 40)
    tokens = tmp_path / "tokens.txt"
    tokens.write_text("The dog barks .\nCats sleep\n")
    code, stdout, err = run(["parse", "-m", model, "--input", "tokens", tokens], capsys,
                            monkeypatch)
    assert code == 0, err
    assert [s.form[1:] for s in conllu.read(io.BytesIO(stdout.encode()))] == [
        ("The", "dog", "barks", "."), ("Cats", "sleep")]


def test_cli_train_tagger_and_pipeline_subset(tmp_path, capsys, monkeypatch):
    sentences, dev = train_and_dev(N_TRAIN // 2, 5)
    train_file, dev_file = tmp_path / "train.conllu", tmp_path / "dev.conllu"
    conllu.write(train_file, sentences)
    conllu.write(dev_file, dev)
    tagger = tmp_path / "tagger.arcwise"
    code, _, err = run(["train", "--system", "tagger", "--train", train_file, "--dev", dev_file,
                        "-o", tagger], capsys, monkeypatch)
    assert code == 0, err
    assert arcwise.load(tagger).components == ("tagger",)
    words = tmp_path / "words.txt"
    words.write_text("The dog barks .\n")
    code, out, err = run(["parse", "-m", tagger, "--input", "tokens", words], capsys, monkeypatch)
    assert code == 0, err
    assert [s.upos for s in conllu.read(io.BytesIO(out.encode()))][0][1:] != ("_",) * 4
    subset = tmp_path / "subset.arcwise"
    code, _, err = run(["train", "--pipeline", "--components", "tokenizer,tagger", "--system",
                        "arc-eager", "--train", train_file, "-o", subset], capsys, monkeypatch)
    assert code == 0, err
    assert arcwise.load(subset).components == ("tokenizer", "tagger")
    assert "only splits text at whitespace" not in err
    # a treebank with a space after every token: the tokenizer can only learn whitespace
    spaced = tmp_path / "spaced.conllu"
    conllu.write(spaced, [conllu.from_tokens([(f, (f,), True) for f in s.form[1:]], str(k))
                          for k, s in enumerate(sentences, 1)])
    code, _, err = run(["train", "--pipeline", "--components", "tokenizer", "--system",
                        "arc-eager", "--train", spaced, "-o", tmp_path / "spaced.arcwise"],
                       capsys, monkeypatch)
    assert code == 0 and "note: the training treebank has a space after every token" in err
    code, _, err = run(["train", "--pipeline", "--components", "tokenizer,lemmatizer",
                        "--system", "arc-eager", "--train", train_file, "-o", subset],
                       capsys, monkeypatch)
    assert code == 2 and "--components" in err and err.count("\n") == 1


def test_parse_in_processes_writes_what_one_process_writes(model, test_slice, tmp_path, capsys,
                                                          monkeypatch):
    """`arcwise parse --workers 2`: chunks annotated by two processes, written in order, the
    sentences of raw text numbered across chunks: byte for byte the one-process output."""
    from arcwise.pipeline import in_processes

    gold, raw = test_slice
    monkeypatch.setattr(in_processes, "CHUNK_CHARACTERS", 300)  # several chunks each
    monkeypatch.setattr(in_processes, "CHUNK_WORDS", 40)
    for source, format in ((raw, "text"), (raw, "lines"), (gold, "conllu")):
        outputs = []
        for workers in (1, 2):
            out = tmp_path / f"{format}.{workers}.conllu"
            code, _, err = run(["parse", "-m", model, "--input", format, source, "-o", out,
                                "--workers", workers], capsys, monkeypatch)
            assert code == 0, err
            outputs.append(out.read_text())
        assert outputs[0] == outputs[1]
        assert [s.form for s in conllu.read(io.StringIO(outputs[1]))][-1][1:]  # parsed to the end
        if format == "lines":  # a sentence per line that is not blank
            lines = [line.split() for line in Path(raw).read_text().splitlines()]
            assert [next(line[9:] for line in s.lines if line.startswith("# text = ")).split()
                    for s in conllu.read(io.StringIO(outputs[0]))] == [w for w in lines if w]
    ids = [line for line in outputs[0].splitlines() if line.startswith("# sent_id")]
    assert len(ids) == N_TEST


def test_parse_in_processes_builds_the_model_in_the_workers_only(model, test_slice, tmp_path,
                                                                capsys, monkeypatch):
    """`arcwise parse --workers 2` checks the model file but never builds the model in the
    main process (only the workers hold it: the memory of one model less)."""
    def not_here(*args, **kwargs):
        raise AssertionError("the main process built the model")

    _, raw = test_slice
    expected = tmp_path / "expected.conllu"
    arcwise.load(model).parse_file(raw, expected, format="text")
    monkeypatch.setattr(Pipeline, "from_saved", classmethod(not_here))
    out = tmp_path / "out.conllu"
    code, _, err = run(["parse", "-m", model, "--input", "text", raw, "-o", out, "--workers", 2],
                       capsys, monkeypatch)
    assert code == 0, err
    assert out.read_text() == expected.read_text()


def test_parse_in_processes_reports_a_bad_model_in_one_line(model, test_slice, tmp_path, capsys,
                                                            monkeypatch):
    """With --workers 2, a model file that cannot be read, one without a tokenizer given
    text, and one whose metadata only building the model finds wrong (in the workers) end
    the command as in one process: one line naming the problem, exit 2, no output."""
    from arcwise.models import modelfile

    _, raw = test_slice
    truncated = tmp_path / "truncated.arcwise"
    truncated.write_bytes(model.read_bytes()[:1000])
    no_tokenizer = tmp_path / "no-tokenizer.arcwise"
    nlp = arcwise.load(model)
    Pipeline(None, nlp.tagger, nlp.parser).save(no_tokenizer)
    bad_tagger = tmp_path / "bad-tagger.arcwise"
    arrays, meta = nlp.saved()
    meta["pipeline"]["tagger"]["model"] = 5
    modelfile.save(bad_tagger, arrays, meta)
    for path, problem in ((truncated, "truncated.arcwise"), (no_tokenizer, "no tokenizer"),
                          (bad_tagger, "bad tagger metadata")):
        out = tmp_path / "out.conllu"
        errors = []
        for workers in (1, 2):
            code, _, err = run(["parse", "-m", path, "--input", "text", raw, "-o", out,
                                "--workers", workers], capsys, monkeypatch)
            assert code == 2 and err.count("\n") == 1 and problem in err, err
            assert not out.exists()
            errors.append(err)
        assert errors[0] == errors[1]


def test_parse_in_processes_reports_a_workers_error_in_one_line(tmp_path, capsys, monkeypatch):
    """An error raised in a worker (here: untagged input for a parser trained with tags and
    no tagger) ends `arcwise parse --workers 2` as in one process: one line, exit 2, no
    output file."""
    sentences, dev = train_and_dev(N_TRAIN // 2, 3)
    parser = tmp_path / "parser.arcwise"
    train("arc-eager", sentences, oracle="static", epochs=1, transition_buckets=2**12,
          label_buckets=2**10)[0].save(parser)
    untagged = tmp_path / "untagged.conllu"
    conllu.write(untagged, map(blanked, dev))
    out = tmp_path / "out.conllu"
    code, _, err = run(["parse", "-m", parser, untagged, "-o", out, "--workers", 2], capsys,
                       monkeypatch)
    assert code == 2 and err.count("\n") == 1 and "tags" in err, err
    assert not out.exists()
