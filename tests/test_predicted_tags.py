"""Training the parser on predicted tags (jackknifing) on a slice of English-EWT: every fold
is tagged by a tagger that never saw it, the parser trains on those tags (and selects its
epoch on dev tagged by the pipeline's own tagger), the same seed gives the same tags, and
`arcwise train --tags predicted` writes a tagger + parser model that tags untagged input."""

import io
from functools import partial

import numpy as np
import pytest

import arcwise
from arcwise.combination.stacking import folds_of
from arcwise.io import conllu
from arcwise.models.kinds import train_tagger as train_tagger_of_model
from arcwise.pipeline.predicted_tags import (
    jackknifed,
    tag_accuracy,
    with_errors_corrected,
    with_gold_columns,
)
from arcwise.pipeline.stages.tagger import Tagger
from arcwise.pipeline.training import train_pipeline
from arcwise.transition.train import train
from tests.cli_run import run
from tests.ewt import NO_JIT, train_and_dev
from tests.test_untagged_input import blanked

pytestmark = pytest.mark.end_to_end

N_TRAIN, N_DEV, FOLDS = (24, 4, 3) if NO_JIT else (90, 20, 3)
N_CLI = 8 if NO_JIT else 30
TAGGER = {"epochs": 2, "buckets": 2**12}


@pytest.fixture(scope="module")
def data():
    return train_and_dev(N_TRAIN, N_DEV)


def test_folds_never_see_their_own_sentences(data):
    sentences, _ = data
    seen = []  # (ids trained on, ids tagged) per fold

    class Spy:
        def __init__(self, tagger, trained_on):
            self.tagger, self.trained_on = tagger, trained_on

        def tagged(self, fold):
            seen.append((self.trained_on, {id(s) for s in fold}))
            return self.tagger.tagged(fold)

    def train_tagger(others):
        return Spy(Tagger.train(others, seed=3, **TAGGER), {id(s) for s in others})

    tagged = jackknifed(sentences, FOLDS, train_tagger=train_tagger)
    assert len(seen) == FOLDS
    for (trained_on, fold), part in zip(seen, folds_of(len(sentences), FOLDS)):
        assert fold == {id(s) for s in sentences[part.start : part.stop]}
        assert not trained_on & fold and len(trained_on) + len(fold) == len(sentences)
    assert [s.form for s in tagged] == [s.form for s in sentences]
    assert all(np.array_equal(a.head, b.head) and a.deprel == b.deprel
               for a, b in zip(tagged, sentences))


def test_folds_tagged_in_other_processes_are_the_same(data):
    sentences, _ = data
    train_tagger = partial(train_tagger_of_model, seed=3, **TAGGER)  # picklable
    alone = jackknifed(sentences, FOLDS, train_tagger=train_tagger)
    done = []
    shared = jackknifed(sentences, FOLDS, train_tagger=train_tagger, workers=2,
                        progress=lambda k, total: done.append((k, total)))
    assert [s.upos for s in shared] == [s.upos for s in alone]
    assert [s.feats for s in shared] == [s.feats for s in alone]
    assert done == [(k, FOLDS) for k in range(1, FOLDS + 1)]


@pytest.fixture(scope="module")
def trained(data):
    """The pipeline trained on predicted tags, with the sentences its parser was given."""
    sentences, dev = data
    given = {}
    nlp, log = train_pipeline(sentences, dev, ("tagger", "parser"),
                              train_parser=spied_parser_trainer(given), tag_folds=FOLDS, seed=3,
                              tagger_options=TAGGER)
    return nlp, log, given


def spied_parser_trainer(given: dict):
    """A tiny arc-eager trainer that keeps the train and dev sentences it is given in `given`."""
    def train_parser(train_sentences, dev_sentences):
        given["train"], given["dev"] = list(train_sentences), list(dev_sentences)
        return train("arc-eager", train_sentences, dev_sentences, oracle="static", epochs=1, seed=1,
                     transition_buckets=2**10, label_buckets=2**8)
    return train_parser


def test_the_parser_trains_on_jackknifed_tags(data, trained):
    sentences, dev = data
    nlp, log, given = trained
    assert nlp.components == ("tagger", "parser")
    assert nlp.hyperparameters == {"parser_tags": "predicted", "tag_folds": FOLDS}
    accuracy = tag_accuracy(given["train"], sentences)
    assert accuracy == log["parser_tags"]["train_accuracy"]
    assert 50 < accuracy["upos"] < 100  # predicted: mostly right, never all
    # ... and far below the final tagger's on the sentences it was trained on
    assert accuracy["upos"] < tag_accuracy(nlp.tagger.tag(sentences), sentences)["upos"] - 3
    # fold 2's tags are those of a tagger trained on folds 1 and 3 with the same seed
    part = folds_of(len(sentences), FOLDS)[1]
    others = sentences[: part.start] + sentences[part.stop :]
    alone = Tagger.train(others, dev, seed=3, **TAGGER).tag(sentences[part.start : part.stop])
    assert [s.upos for s in alone] == [s.upos for s in given["train"][part.start : part.stop]]
    assert [s.upos for s in given["dev"]] == [s.upos for s in nlp.tagger.tag(dev)]


def test_the_same_seed_gives_the_same_tags(data, trained):
    sentences, dev = data
    _, _, given = trained
    again = jackknifed(sentences, FOLDS,
                       train_tagger=lambda s: Tagger.train(s, dev, seed=3, **TAGGER))
    assert [(s.upos, s.xpos, s.feats) for s in again] == [
        (s.upos, s.xpos, s.feats) for s in given["train"]]


def test_with_gold_columns_puts_back_only_the_columns_asked(data):
    gold = data[1]
    predicted = [blanked(s) for s in gold]
    upos_only = with_gold_columns(predicted, gold, ["upos"])
    assert tag_accuracy(upos_only, gold)["upos"] == 100.0
    assert [s.xpos for s in upos_only] == [s.xpos for s in predicted]
    assert [s.feats for s in upos_only] == [s.feats for s in predicted]
    assert tag_accuracy(with_gold_columns(predicted, gold, ["upos", "xpos", "feats"]), gold) \
        == {"upos": 100.0, "xpos": 100.0, "feats": 100.0}
    assert with_gold_columns(predicted, gold, []) == predicted


def test_with_errors_corrected_mends_about_that_fraction_of_the_errors(data):
    gold = [s for s in data[0] for _ in range(3)]
    predicted = [blanked(s) for s in gold]  # every tag wrong but the root's
    half = with_errors_corrected(predicted, gold, 0.5, seed=3)
    for column in ("upos", "xpos", "feats"):
        pairs = [(m, h, g) for p, c, r in zip(predicted, half, gold)
                 for m, h, g in zip(getattr(p, column)[1:], getattr(c, column)[1:],
                                    getattr(r, column)[1:]) if m != g]
        assert 0.4 < sum(h == g for _, h, g in pairs) / len(pairs) < 0.6, column
        assert all(h in (m, g) for m, h, g in pairs)
    def tags(sentences):
        return [(s.upos, s.xpos, s.feats) for s in sentences]

    assert tags(half) == tags(with_errors_corrected(predicted, gold, 0.5, seed=3))
    assert [s.form for s in half] == [s.form for s in gold]
    assert tags(with_errors_corrected(predicted, gold, 0.0)) == tags(predicted)
    assert tag_accuracy(with_errors_corrected(predicted, gold, 1.0), gold) == {
        "upos": 100.0, "xpos": 100.0, "feats": 100.0}
    right = with_gold_columns(predicted, gold, ["upos"])  # a right tag stays right
    assert [s.upos for s in with_errors_corrected(right, gold, 0.5)] == [s.upos for s in gold]
    with pytest.raises(ValueError):
        with_errors_corrected(predicted, gold, 1.5)


def test_predicted_tags_need_a_tagger_and_a_parser(data):
    sentences, _ = data
    with pytest.raises(arcwise.core.errors.ArcwiseError, match="predicted tags"):
        train_pipeline(sentences, None, ("tokenizer", "parser"), tags="predicted",
                       train_parser=lambda s, d: None)


def test_cli_train_tags_predicted(data, tmp_path, capsys, monkeypatch):
    sentences, dev = data
    train_file = tmp_path / "train.conllu"
    conllu.write(train_file, sentences[:N_CLI])  # the CLI trains with the default sizes
    model = tmp_path / "predicted.arcwise"
    code, _, err = run(["train", "-s", "arc-eager", "--train", train_file, "-o", model,
                        "--epochs", "1", "--tags", "predicted", "--tag-folds", "2"],
                       capsys, monkeypatch)
    assert code == 0, err
    assert "tagger fold 2/2" in err
    nlp = arcwise.load(model)
    assert nlp.components == ("tagger", "parser")
    assert nlp.hyperparameters == {"parser_tags": "predicted", "tag_folds": 2}
    untagged = tmp_path / "untagged.conllu"
    conllu.write(untagged, [blanked(s) for s in dev])
    code, out, err = run(["parse", "-m", model, untagged], capsys, monkeypatch)
    assert code == 0, err
    parsed = list(conllu.read(io.BytesIO(out.encode())))
    assert [s.form for s in parsed] == [s.form for s in dev]
    assert all("_" not in s.upos[1:] and (s.head[1:] == 0).sum() >= 1 for s in parsed)
    for wrong in (["-s", "tagger", "--tags", "predicted"],
                  ["-s", "arc-eager", "--pipeline", "--components", "tokenizer,parser",
                   "--tags", "predicted"],
                  ["-s", "arc-eager", "--tags", "predicted", "--tag-folds", "500"]):
        code, _, err = run(["train", *wrong, "--train", train_file, "-o", tmp_path / "x"],
                           capsys, monkeypatch)
        assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err


def test_a_parser_trained_without_tags_reads_words_only(data, tmp_path, capsys, monkeypatch):
    """tags="none": the parser trains and selects its epoch on blanked tags, the pipeline's
    tagger (trained on the gold tags) still tags the output, and the parser's trees do not
    depend on the tags it is given; `arcwise train --tags none` trains a parser alone so."""
    sentences, dev = data
    given = {}
    nlp, log = train_pipeline(sentences, dev, ("tagger", "parser"),
                              train_parser=spied_parser_trainer(given), tags="none", seed=3,
                              tagger_options=TAGGER)
    assert nlp.hyperparameters == {"parser_tags": "none"} and "parser_tags" not in log
    assert all(set(s.upos[1:]) | set(s.xpos[1:]) | set(s.feats[1:]) == {"_"}
               for s in given["train"] + given["dev"])
    assert [s.form for s in given["train"]] == [s.form for s in sentences]
    assert tag_accuracy(nlp.tagger.tag(dev), dev)["upos"] > 50
    parsed = nlp.annotate([blanked(s) for s in dev])
    assert all("_" not in s.upos[1:] for s in parsed)  # tagged by the tagger
    trees = [(s.head.tolist(), s.deprel) for s in parsed]
    assert trees == [(h.tolist(), d) for h, d in nlp.parser.parse(dev)]  # gold tags: the same

    train_file = tmp_path / "train.conllu"
    conllu.write(train_file, sentences[:N_CLI])
    model = tmp_path / "no-tags.arcwise"
    code, _, err = run(["train", "-s", "arc-eager", "--train", train_file, "-o", model,
                        "--epochs", "1", "--tags", "none"], capsys, monkeypatch)
    assert code == 0, err
    parser = arcwise.load(model).parser
    assert parser.parse([blanked(s) for s in dev]) is not None  # untagged input: not refused
    assert [(h.tolist(), d) for h, d in parser.parse(dev)] == [
        (h.tolist(), d) for h, d in parser.parse([blanked(s) for s in dev])]


def cpu_seconds(pid: int) -> float:
    """The CPU time a process has used (user + system), 0 once it is gone."""
    import os

    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(NO_JIT, reason="the compiled run covers the signal")
def test_ctrl_c_during_jackknifing_in_processes_stops_cleanly(tmp_path):
    """Ctrl-C (to the whole process group, as a terminal sends it) while the folds' taggers
    train in two worker processes: one line, exit 130, no traceback from the workers, no
    model file, no worker left running."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from tests.signal_dispositions import dispositions
    from tests.tiny_model import SRC

    treebank = tmp_path / "train.conllu"
    conllu.write(treebank, train_and_dev(200, 0)[0])
    process = subprocess.Popen(
        [sys.executable, "-m", "arcwise", "train", "--system", "arc-eager", "--tags",
         "predicted", "--tag-folds", "2", "--tag-workers", "2", "--tagger", "epochs=100000",
         "--train", treebank, "-o", tmp_path / "m.arcwise"],
        env=dict(os.environ, PYTHONPATH=str(SRC)), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, start_new_session=True,
        preexec_fn=dispositions())  # the suite may run as a background job: SIGINT ignored
    try:
        children: set[int] = set()
        deadline = time.monotonic() + 120
        tasks = f"/proc/{process.pid}/task"
        # until two workers have trained a while (imported arcwise, compiled if cold)
        while (time.monotonic() < deadline and process.poll() is None
               and sum(cpu_seconds(pid) >= 3 for pid in children) < 2):
            time.sleep(0.2)
            children |= {int(p) for task in os.listdir(tasks)
                         for p in open(f"{tasks}/{task}/children").read().split()}
        assert sum(cpu_seconds(pid) >= 3 for pid in children) >= 2, \
            process.communicate(timeout=5)[1].decode()[-2000:]
        os.killpg(process.pid, signal.SIGINT)
        _, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    assert process.returncode == 130, stderr.decode()[-2000:]
    assert stderr.decode().strip().splitlines() == ["arcwise: interrupted by SIGINT"]
    assert not (tmp_path / "m.arcwise").exists()
    deadline = time.monotonic() + 10  # the workers (and multiprocessing's helper) end
    while (any(os.path.exists(f"/proc/{pid}") for pid in children)
           and time.monotonic() < deadline):
        time.sleep(0.1)
    assert not [pid for pid in children if os.path.exists(f"/proc/{pid}")]
