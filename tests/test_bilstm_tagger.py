"""The BiLSTM tagger (`arcwise.pipeline.stages.bilstm_tagger`) on a slice of English-EWT: it
learns, changes only the tag columns (and blank lemmas), is deterministic, travels in a
pipeline model file (a bad array refused), jackknifes a parser's tags, and the command line
trains it (`--tagger model=bilstm`) and refuses options it does not take."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import arcwise  # noqa: E402
from arcwise.core.errors import ArcwiseError  # noqa: E402
from arcwise.io import conllu  # noqa: E402
from arcwise.models.kinds import tagger_from_saved, train_tagger  # noqa: E402
from arcwise.pipeline.pipeline import Pipeline  # noqa: E402
from arcwise.pipeline.stages.bilstm_tagger import BiLSTMTagger  # noqa: E402
from arcwise.pipeline.training import train_pipeline  # noqa: E402
from tests.cli_run import run  # noqa: E402
from tests.ewt import NO_JIT, compiled_only, train_and_dev  # noqa: E402

SMALL = {"word": 16, "suffix": 8, "shape": 4, "lstm": 16, "chars": 8, "char_embedding": 8,
         "threads": 1, "batch_sentences": 8}


@pytest.fixture(scope="module")
def data():
    return train_and_dev(200, 50)


@pytest.fixture(scope="module")
def tagger(data):
    train, dev = data
    return train_tagger(train, dev, model="bilstm", epochs=4, seed=2,
                        neural={**SMALL, "learning_rate": 0.02, "dropout": 0.0,
                                "word_dropout": 0.0})


def test_learns_and_keeps_the_best_dev_epoch(tagger, data):
    train, dev = data
    assert isinstance(tagger, BiLSTMTagger)
    log = tagger.scores["epochs"]
    assert [e["epoch"] for e in log] == [1, 2, 3, 4]
    assert log[-1]["loss"] < log[0]["loss"]
    assert tagger.accuracy(train)["dev_upos"] > 70
    dev_scores = tagger.accuracy(dev)
    best = max(log, key=lambda e: np.mean([e["dev_upos"], e["dev_xpos"], e["dev_feats"]]))
    assert dev_scores["dev_upos"] == pytest.approx(best["dev_upos"])
    assert dev_scores["dev_upos"] > 50  # a majority tag (NOUN) gets about 17 %


def test_tag_changes_only_the_tag_columns_and_blank_lemmas(tagger, data):
    _, dev = data
    sentence = conllu.without_tags(dev[0], ("lemma", "upos", "xpos", "feats"))
    tagged = tagger.tag(sentence)
    assert tagged.form == dev[0].form and tagged.deprel == dev[0].deprel
    assert np.array_equal(tagged.head, dev[0].head)
    assert all(t in tagger.tagsets[0] for t in tagged.upos[1:])
    assert "_" not in tagged.lemma[1:]
    kept = tagger.tag(dev[0])  # a sentence with lemmas keeps them
    assert kept.lemma == dev[0].lemma
    assert tagger.tag([]) == []
    assert [s.upos for s in tagger.tag(dev[:5])] == [tagger.tag(s).upos for s in dev[:5]]


def test_same_seed_same_tagger(data):
    train, dev = data
    a, b = (train_tagger(train[:40], dev[:10], model="bilstm", epochs=1, seed=5, neural=SMALL)
            for _ in range(2))
    arrays_a, arrays_b = a.saved()[0], b.saved()[0]
    assert all(np.array_equal(arrays_a[k], arrays_b[k]) for k in arrays_a)


def test_travels_in_a_pipeline_model_file_and_a_bad_array_is_refused(tagger, data, tmp_path):
    _, dev = data
    path = tmp_path / "tagger.pipeline"
    Pipeline(tagger=tagger).save(path)
    loaded = arcwise.load(path).tagger
    assert isinstance(loaded, BiLSTMTagger) and loaded.tagsets == tagger.tagsets
    assert [s.upos for s in loaded.tag(dev)] == [s.upos for s in tagger.tag(dev)]
    arrays, meta = tagger.saved("tagger_")
    name = next(k for k in arrays if k.startswith("tagger_net__"))
    with pytest.raises(ArcwiseError, match="corrupt model file"):
        tagger_from_saved({**arrays, name: arrays[name][:1]}, meta, "m", "tagger_")
    with pytest.raises(ArcwiseError, match="unknown kind of tagger"):
        tagger_from_saved(arrays, {**meta, "model": "crf"}, "m", "tagger_")


@compiled_only
def test_jackknifes_the_parsers_tags(data):
    from arcwise.transition.train import train

    train_sentences, dev = data
    nlp, log = train_pipeline(
        train_sentences[:60], dev[:20], ("tagger", "parser"), tags="predicted", tag_folds=2,
        tagger_options={"model": "bilstm", "epochs": 1, "neural": SMALL},
        train_parser=lambda s, d: train("arc-eager", s, d, oracle="static", epochs=1))
    assert isinstance(nlp.tagger, BiLSTMTagger)
    assert log["parser_tags"]["folds"] == 2
    assert set(log["parser_tags"]["train_accuracy"]) == {"upos", "xpos", "feats"}


@pytest.mark.end_to_end
@pytest.mark.skipif(NO_JIT, reason="the compiled run covers the command line")
def test_cli_trains_a_bilstm_tagger_and_refuses_what_it_does_not_take(tmp_path, capsys,
                                                                      monkeypatch):
    treebank = tmp_path / "small.conllu"
    sentences = train_and_dev(12, 0)[0]
    treebank.write_text("".join("\n".join(s.lines) + "\n\n" for s in sentences))
    out = tmp_path / "t.pipeline"
    code, _, err = run(["train", "--system", "tagger", "--train", treebank, "-o", out,
                        "--tagger", "model=bilstm", "--tagger", "epochs=2", "--tagger", "lstm=8",
                        "--tagger", "chars=4", "--tagger", "threads=1"], capsys, monkeypatch)
    assert code == 0, err
    assert "tagger epoch 2: loss" in err
    tagger = arcwise.load(out).tagger
    assert isinstance(tagger, BiLSTMTagger) and tagger.sizes.lstm == 8
    assert tagger.hyperparameters["epochs"] == 2
    for args, message in [
        (("--system", "tagger", "--tagger", "chars=4"), "unknown option for a perceptron"),
        (("--system", "tagger", "--tagger", "model=crf"), "model=perceptron, model=bilstm"),
        (("--system", "tagger", "--tagger", "model=bilstm", "--tagger", "lstm=x"),
         "is not a number"),
        (("--system", "tagger", "--tagger", "model=bilstm", "--tagger", "features=2"),
         "perceptron tagger's option"),
        (("--system", "tagger", "--tagger", "model=bilstm", "--tagger", "combinations=any"),
         "perceptron tagger's option"),
        (("--system", "tagger", "--tagger", "combinations=some"), "use combinations=seen"),
        (("--system", "tagger", "--tagger", "features=3"), "use features=1, 2, auto"),
        (("--system", "arc-eager", "--tagger", "model=bilstm"), "this model has no tagger"),
    ]:
        code, _, err = run(["train", "--train", treebank, "-o", tmp_path / "x.pipeline", *args],
                           capsys, monkeypatch)
        assert code == 2 and message in err and err.count("\n") == 1, (args, err)


def test_a_small_treebank_gets_more_epochs():
    from arcwise.pipeline.stages.bilstm_tagger import MAX_EPOCHS, MIN_EPOCHS, UPDATES, auto_epochs

    assert auto_epochs(12544, 32) == 11  # English-EWT: 392 updates an epoch
    assert auto_epochs(2738, 32) == -(-UPDATES // 86)  # Swedish-LinES: 86 updates an epoch
    assert auto_epochs(467, 32) == MAX_EPOCHS  # Czech-CLTT: 15 updates an epoch
    assert auto_epochs(40, 32) == MAX_EPOCHS and auto_epochs(10**6, 32) == MIN_EPOCHS
    assert auto_epochs(0, 32) == MAX_EPOCHS
