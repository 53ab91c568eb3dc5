"""`arcwise.training.epochs.run_epochs`, the one epoch loop: the kept epoch, the log, the scores."""

from types import SimpleNamespace

import pytest

from arcwise.training.epochs import BEST_ON_DEV, LAST, log_header, run_epochs


class Counting:
    """An EpochTrainer whose weights are the epoch number."""

    def __init__(self):
        self.weights = None

    def train_epoch(self, epoch):
        self.weights = epoch
        return {"updates": 10 - epoch}

    def snapshot(self):
        return self.weights

    def restore(self, snapshot):
        self.weights = snapshot


def run(dev_las, keep=BEST_ON_DEV, with_dev=True):
    trainer, parser = Counting(), SimpleNamespace(scores={})
    las = iter(dev_las)
    log = log_header("x", [], 0, 0, [], None, {"seed": 1})
    run_epochs(trainer, parser, log, epochs=len(dev_las), trained_sentences=5,
               score_dev=(lambda: SimpleNamespace(uas=90.0, las=next(las))) if with_dev
               else None, keep=keep)
    return trainer, parser, log


def test_the_best_dev_epoch_is_kept_and_logged():
    trainer, parser, log = run([80.0, 83.5, 82.0])
    assert trainer.weights == 1 and log["best_epoch"] == 2
    assert parser.scores == {"dev": {"uas": 90.0, "las": 83.5, "epoch": 2}}
    assert [e["epoch"] for e in log["epochs"]] == [1, 2, 3]
    assert [e["updates"] for e in log["epochs"]] == [10, 9, 8]
    assert all(e["seconds"] >= 0 and "dev_las" in e for e in log["epochs"])
    assert log["hyperparameters"] == {"seed": 1}


def test_last_epoch_without_dev_or_when_asked():
    trainer, parser, log = run([80.0, 83.5, 82.0], keep=LAST)
    assert trainer.weights == 2 and log["best_epoch"] == 3
    assert parser.scores["dev"]["las"] == 82.0
    trainer, parser, log = run([0.0, 0.0], with_dev=False)
    assert trainer.weights == 1 and parser.scores == {} and "dev_las" not in log["epochs"][0]


def test_a_tie_keeps_the_earlier_epoch_and_bad_options_fail():
    trainer, _, log = run([83.0, 83.0])
    assert trainer.weights == 0 and log["best_epoch"] == 1
    with pytest.raises(ValueError):
        run([1.0], keep="best")


def test_default_epochs_are_fixed_for_linear_models_and_by_updates_for_neural_ones():
    from arcwise.training.epochs import (
        LINEAR_EPOCHS,
        NEURAL_MAX_EPOCHS,
        NEURAL_MIN_EPOCHS,
        NEURAL_UPDATES,
        default_epochs,
    )

    assert default_epochs("perceptron", 2738) == default_epochs("mst", 10) == LINEAR_EPOCHS
    assert default_epochs("bilstm", 12544) == NEURAL_MIN_EPOCHS  # English-EWT: 392 an epoch
    assert default_epochs("bilstm", 2738) == -(-NEURAL_UPDATES // 86)  # Swedish-LinES: 86
    assert default_epochs("biaffine", 2738, batch_sentences=16) == -(-NEURAL_UPDATES // 172)
    assert default_epochs("bilstm", 467) == NEURAL_MAX_EPOCHS  # Czech-CLTT: 15 an epoch


def test_a_neural_parser_trained_without_epochs_gets_the_default(monkeypatch):
    pytest.importorskip("torch")
    import arcwise.training.epochs
    from arcwise.graph.biaffine_parser import train_biaffine
    from arcwise.transition.train import train
    from tests.ewt import train_and_dev

    sentences, dev = train_and_dev(8, 4)
    monkeypatch.setattr(arcwise.training.epochs, "NEURAL_MAX_EPOCHS", 2)  # instead of 100 here
    tiny = {"word": 8, "suffix": 4, "shape": 4, "tag": 4, "lstm": 8, "hidden": 8, "threads": 1}
    _, log = train("arc-eager", sentences, dev, oracle="dynamic", model="bilstm", neural=tiny)
    assert log["hyperparameters"]["epochs"] == 2 and len(log["epochs"]) == 2
    _, log = train_biaffine(sentences, dev, neural={"word": 8, "suffix": 4, "shape": 4, "tag": 4,
                                                    "lstm": 8, "arc": 8, "label": 8,
                                                    "threads": 1})
    assert log["hyperparameters"]["epochs"] == 2 and len(log["epochs"]) == 2
