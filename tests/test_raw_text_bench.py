"""The raw-text benchmark's logic (`arcwise.experiments.raw_text`, behind bench/pipeline.py)
on a few English-EWT sentences: every figure is there and within range, the CoNLL 2018
scorer gives a gold file 100 against itself, and the bench prints its table."""

import importlib
import sys
from pathlib import Path

import numpy as np
import pytest

from arcwise.eval.conll18 import conll18_scores
from arcwise.experiments.raw_text import run_arcwise, without_tags
from arcwise.io import conllu
from tests.ewt import NO_JIT, train_and_dev

pytestmark = pytest.mark.end_to_end

ROOT = Path(__file__).resolve().parents[1]
N_TRAIN, N_TEST = (16, 3) if NO_JIT else (40, 10)
TINY = {"tokenizer": {"epochs": 1, "buckets": 2**12}, "tagger": {"epochs": 1, "buckets": 2**10},
        "parser": {"transition_buckets": 2**10, "label_buckets": 2**8}}


def test_scores_from_raw_text(tmp_path, monkeypatch):
    train, test = train_and_dev(N_TRAIN, N_TEST)
    conllu.write(tmp_path / "train.conllu", train)
    conllu.write(tmp_path / "test.conllu", test)
    assert set(conll18_scores(tmp_path / "test.conllu", tmp_path / "test.conllu").values()) \
        == {100.0}
    assert without_tags(test[0]).upos[1:] == ("_",) * test[0].n
    lines = []
    result = run_arcwise(tmp_path / "train.conllu", None, tmp_path / "test.conllu",
                         tmp_path / "work", epochs=1, tag_folds=2, say=lines.append,
                         options=TINY)
    assert any("tagger fold 2/2" in line for line in lines)
    for key in ("raw_text", "gold_tokens_predicted_tags", "gold_tokens_gold_tags"):
        scores = result[key]
        assert all(0 <= scores[m] <= 100 for m in ("Tokens", "UPOS", "UFeats", "LAS", "CLAS"))
    assert result["raw_text"]["Tokens"] > 50
    assert result["gold_tokens_gold_tags"]["Words"] == 100.0
    assert result["gold_tokens_gold_tags"]["UPOS"] == 100.0
    assert result["speed"]["sentences"] >= 1 and result["speed"]["sentences_per_second"] > 0
    assert result["parser_tags"]["folds"] == 2
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    import pipeline as bench

    try:
        table = bench.table({"arcwise": result})
    finally:
        sys.modules.pop("pipeline", None)
    assert table.count("\n") == 4 and "| arcwise, raw text |" in table


def test_predicted_tags_bench_measures_the_gap(tmp_path, monkeypatch, capsys):
    """bench/predicted_tags.py on a tiny treebank: tag accuracies, both LAS and their gap."""
    train, dev = train_and_dev(N_TRAIN, N_TEST)
    conllu.write(tmp_path / "train.conllu", train)
    conllu.write(tmp_path / "dev.conllu", dev)
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    import predicted_tags

    try:
        result = predicted_tags.main(["--treebank", str(tmp_path), "--tag-folds", "2",
                                      "--epochs", "1", "--corrected", "1", "--json"])
    finally:
        sys.modules.pop("predicted_tags", None)
        sys.modules.pop("pipeline", None)
    assert "parser arc-eager epoch 1" in capsys.readouterr().err
    assert set(result["dev_tag_accuracy"]) == {"upos", "xpos", "feats"}
    assert all(0 < a <= 100 for a in result["dev_tag_accuracy"].values())
    assert 0 <= result["las_predicted_tags"] <= 100 and 0 <= result["las_gold_tags"] <= 100
    assert result["gap"] == pytest.approx(result["las_gold_tags"] - result["las_predicted_tags"])
    for key in ("gold_upos", "gold_xpos_feats", "gold_tags"):
        assert 0 <= result[f"las_predicted_tag_parser_{key}"] <= 100
    assert 0 <= result["las_gold_tag_parser_predicted_tags"] <= 100
    # every error mended: the tags are gold, and so is the parser's training
    mended = result["corrected"]["1.0"]
    assert mended["dev_tag_accuracy"] == {"upos": 100.0, "xpos": 100.0, "feats": 100.0}
    assert mended["las"] == pytest.approx(result["las_gold_tags"])


def test_the_bench_finds_udpipe_models_whole_or_staged(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    import pipeline as bench

    try:
        assert bench.udpipe_models(tmp_path) is None
        staged = [tmp_path / name for name in bench.STAGED_UDPIPE]
        for path in staged[:2]:
            path.touch()
        assert bench.udpipe_models(tmp_path) is None  # no parser yet: still training
        staged[2].touch()
        assert bench.udpipe_models(tmp_path) == staged
        (tmp_path / "udpipe.model").touch()
        assert bench.udpipe_models(tmp_path) == [tmp_path / "udpipe.model"]
    finally:
        sys.modules.pop("pipeline", None)


@pytest.fixture
def bench_script(tmp_path, monkeypatch):
    """A tiny treebank in tmp_path, and a function that imports a bench script (`name`)
    with its kept results and its RESULTS.md section caught: (the module, {section: text})."""
    pytest.importorskip("torch")
    train, test = train_and_dev(16, 4)
    for name, sentences in (("train", train), ("test", test)):
        conllu.write(tmp_path / f"{name}.conllu", sentences)
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    import report

    sections = {}
    monkeypatch.setattr(report, "write_section", lambda name, text: sections.update({name: text}))
    imported = []

    def script(name: str):
        module = importlib.import_module(name)
        imported.append(name)
        monkeypatch.setattr(module, "RESULTS", tmp_path / "kept")
        return module, sections

    yield script
    for name in (*imported, "pipeline"):
        sys.modules.pop(name, None)


@pytest.fixture
def kept_bench(bench_script):
    """bench/pipeline.py as `bench_script` imports it."""
    return bench_script("pipeline")


@pytest.mark.neural
def test_the_bench_runs_a_bilstm_parser_without_tags_and_keeps_it_apart(tmp_path, kept_bench):
    """bench/pipeline.py --model bilstm --tags none: the pipeline's parser is a BiLSTM with
    the --neural options, trained without tags (so its gold-tag row is the same parser's:
    the same trees); the result is kept under its own name beside the perceptron's."""
    import arcwise

    bench, sections = kept_bench
    with pytest.raises(SystemExit, match="unknown option"):
        bench.main(["--treebank", str(tmp_path), "--model", "bilstm", "--neural", "nope=1"])
    result = bench.main([
        "--treebank", str(tmp_path), "--workdir", str(tmp_path / "work"), "--no-udpipe",
        "--tags", "none", "--epochs", "1", "--model", "bilstm",
        "--neural", "word=8", "--neural", "lstm=8", "--neural", "hidden=8",
        "--neural", "chars=4", "--neural", "threads=1", "--report"])
    name = f"{tmp_path.name}.bilstm.tags-none"
    assert result["name"] == name and result["arcwise"]["parser_tags"] == "none"
    assert result["arcwise"]["parser_options"]["neural"]["chars"] == 4
    gold_tags, predicted = (result["arcwise"][k] for k in ("gold_tokens_gold_tags",
                                                           "gold_tokens_predicted_tags"))
    assert (gold_tags["UAS"], gold_tags["LAS"]) == (predicted["UAS"], predicted["LAS"])
    parser = arcwise.load(tmp_path / "work" / "arcwise.pipeline").parser
    assert parser.scorer.kind == "bilstm" and parser.scorer.sizes.chars == 4
    assert (tmp_path / "kept" / f"{name}.json").exists()
    assert ("bilstm (word=8, lstm=8, hidden=8, chars=4, threads=1) parser, tags: none"
            in sections["pipeline"])
    assert "the parser without tags" in sections["pipeline"]


@pytest.mark.neural
def test_the_bench_runs_a_biaffine_parser_on_gold_tags_without_retraining(tmp_path, kept_bench):
    """bench/pipeline.py --system mst --model biaffine --tags gold: the pipeline's parser is
    the biaffine graph-based parser, trained on gold tags, and its gold-tag row is that same
    parser's (nothing retrained: its training log has one parser); --model biaffine needs
    --system mst."""
    import arcwise

    bench, sections = kept_bench
    with pytest.raises(SystemExit, match="does not train --system arc-eager"):
        bench.main(["--treebank", str(tmp_path), "--model", "biaffine"])
    result = bench.main([
        "--treebank", str(tmp_path), "--workdir", str(tmp_path / "work"), "--no-udpipe",
        "--tags", "gold", "--epochs", "1", "--system", "mst", "--model", "biaffine",
        "--neural", "word=8", "--neural", "lstm=8", "--neural", "arc=8",
        "--neural", "label=8", "--neural", "threads=1", "--report"])
    name = f"{tmp_path.name}.biaffine.tags-gold"
    assert result["name"] == name and result["arcwise"]["parser_tags"] == "gold"
    assert "gold_tag_parser_train_seconds" not in result["arcwise"]
    parser = arcwise.load(tmp_path / "work" / "arcwise.pipeline").parser
    assert type(parser).__name__ == "BiaffineParser"
    gold_tags = result["arcwise"]["gold_tokens_gold_tags"]
    out = tmp_path / "again.conllu"
    parser.parse_file(tmp_path / "work" / "gold.conllu", out)
    from arcwise.eval.conll18 import conll18_scores

    assert conll18_scores(tmp_path / "work" / "gold.conllu", out)["LAS"] == gold_tags["LAS"]
    assert "biaffine (word=8, lstm=8, arc=8, label=8, threads=1) parser, tags: gold" in (
        sections["pipeline"])


def test_a_rerun_can_train_the_tokenizer_again_and_keep_the_rest(tmp_path, kept_bench):
    """bench/pipeline.py --rerun --retrain tokenizer: the kept run's pipeline gets a tokenizer
    trained with the current code (here: two passes where the run's had one), its tagger and
    parser stay byte for byte, the raw-text and gold-token rows are run again, and the
    report says so."""
    import arcwise
    from arcwise.io import read_treebank
    from arcwise.pipeline.stages.tokenizer import Tokenizer

    bench, sections = kept_bench
    args = ["--treebank", str(tmp_path), "--workdir", str(tmp_path / "work"), "--no-udpipe",
            "--epochs", "1", "--tag-folds", "2", "--no-gold-tag-parser"]
    bench.main([*args, "--report"])
    model = tmp_path / "work" / "arcwise.pipeline"
    nlp = arcwise.load(model)
    nlp.tokenizer = Tokenizer.train(read_treebank(tmp_path / "train.conllu"), stacked=False)
    nlp.save(model)
    before = nlp.saved()[0]
    with pytest.raises(SystemExit, match="no kept run"):
        bench.main([*args, "--rerun", "--retrain", "tokenizer", "--workdir", str(tmp_path / "x")])
    with pytest.raises(SystemExit, match="use tokenizer, tagger or both"):
        bench.main([*args, "--rerun", "--retrain", "parser"])
    (tmp_path / "work" / "arcwise.gold-tokens.conllu").unlink()
    kept = bench.main([*args, "--rerun", "--retrain", "tokenizer", "--report", "--repeats", "2"])
    speed = kept["arcwise"]["speed"]
    assert len(speed["runs"]) == 2 and speed["seconds"] == min(speed["runs"])
    # the gold-token row is run again too, with the new pipeline
    assert (tmp_path / "work" / "arcwise.gold-tokens.conllu").exists()
    assert kept["arcwise"]["gold_tokens_predicted_tags"]["Words"] == 100.0
    after = arcwise.load(model)
    assert after.tokenizer.second is not None
    arrays = after.saved()[0]
    assert all(np.array_equal(arrays[k], a) for k, a in before.items()
               if not k.startswith("tokenizer_"))
    assert "The tokenizer trained again" in sections["pipeline"]
    assert "the tagger and parser kept" in sections["pipeline"]
    assert "- Timed runs (s), the fastest kept: arcwise " in sections["pipeline"]


@pytest.mark.neural
def test_the_bench_jackknifes_with_a_bilstm_tagger_in_two_processes(tmp_path, kept_bench):
    """bench/pipeline.py --tagger model=bilstm --tag-workers 2: the pipeline's tagger is a
    BiLSTM with those options, the folds' taggers train in two processes, and the result is
    kept under its own name, its tagger named in the section."""
    import arcwise
    from arcwise.pipeline.stages.bilstm_tagger import BiLSTMTagger

    bench, sections = kept_bench
    with pytest.raises(SystemExit, match="unknown option for a perceptron tagger"):
        bench.main(["--treebank", str(tmp_path), "--tagger", "lstm=8"])
    result = bench.main([
        "--treebank", str(tmp_path), "--workdir", str(tmp_path / "work"), "--no-udpipe",
        "--epochs", "1", "--tag-folds", "2", "--tag-workers", "2", "--no-gold-tag-parser",
        "--tagger", "model=bilstm", "--tagger", "epochs=1", "--tagger", "lstm=8",
        "--tagger", "chars=4", "--tagger", "threads=1", "--report"])
    name = f"{tmp_path.name}.tagger-bilstm"
    assert result["name"] == name and result["arcwise"]["parser_tags"]["folds"] == 2
    tagger = arcwise.load(tmp_path / "work" / "arcwise.pipeline").tagger
    assert isinstance(tagger, BiLSTMTagger) and tagger.sizes.chars == 4
    assert (tmp_path / "kept" / f"{name}.json").exists()
    assert "perceptron parser, bilstm (lstm=8, chars=4, threads=1) tagger" in sections["pipeline"]
    assert "bilstm (lstm=8, chars=4, threads=1) tagger (1 epochs), 2-fold" in sections["pipeline"]


@pytest.mark.neural
def test_the_taggers_bench_compares_both_taggers_and_keeps_them(tmp_path, bench_script, capsys):
    """bench/taggers.py: every accuracy and speed of each tagger asked for, a table row each,
    the result kept and its section written."""
    taggers, sections = bench_script("taggers")
    with pytest.raises(SystemExit, match="unknown option for a perceptron tagger"):
        taggers.main(["--treebank", str(tmp_path), "--tagger", "lstm=8"])
    result = taggers.main(["--treebank", str(tmp_path), "--tagger", "epochs=1",
                           "--tagger", "model=bilstm,epochs=1,lstm=8,chars=4,threads=1",
                           "--report"])[tmp_path.name]
    assert list(result["taggers"]) == ["perceptron (epochs=1)",
                                       "bilstm (epochs=1, lstm=8, chars=4, threads=1)"]
    for row in result["taggers"].values():
        assert all(0 <= a <= 100 for a in row["accuracy"].values())
        assert row["words_per_second"] > 0 and row["train_seconds"] > 0
    assert (tmp_path / "kept" / f"{tmp_path.name}.json").exists()
    assert "| bilstm (epochs=1, lstm=8, chars=4, threads=1) |" in sections["taggers"]
    assert "| bilstm (epochs=1" in capsys.readouterr().out
