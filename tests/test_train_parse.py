"""Training and parsing on English-EWT: accuracy well above a trivial baseline,
well-formed output trees, deterministic weights, and lossless model files.

Without JIT (NUMBA_DISABLE_JIT=1) the same code runs on a few sentences for
one epoch; the accuracy test needs the compiled loops and is skipped."""

import itertools
import os
from pathlib import Path

import numpy as np
import pytest

import arcwise
from arcwise.errors import ArcwiseError
from arcwise.io import conllu
from arcwise.models import modelfile
from arcwise.models import perceptron as pc
from arcwise.parse import Parser, final_tree
from arcwise.systems import state as st
from arcwise.train import score_parser, train
from arcwise.trees.projectivity import is_projective, is_well_formed

DATA = Path(__file__).resolve().parents[1] / "data" / "en_ewt"
NO_JIT = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")
N_TRAIN, N_DEV, EPOCHS = (6, 4, 1) if NO_JIT else (300, 200, 2)
SMALL = {"transition_buckets": 2**18, "label_buckets": 2**14}
SETUPS = {
    "covington-nm": {"oracle": "dynamic", "bound": "upper"},
    "arc-eager": {"oracle": "static"},
}


@pytest.fixture(scope="module")
def data():
    train_sentences = list(itertools.islice(conllu.read(DATA / "train.conllu.gz"), N_TRAIN))
    dev_sentences = list(itertools.islice(conllu.read(DATA / "dev.conllu.gz"), N_DEV))
    return train_sentences, dev_sentences


@pytest.fixture(scope="module")
def trained(data):
    train_sentences, dev_sentences = data
    return {
        name: train(name, train_sentences, dev_sentences, epochs=EPOCHS, seed=1, **setup, **SMALL)
        for name, setup in SETUPS.items()
    }


@pytest.mark.skipif(NO_JIT, reason="training to a useful accuracy needs the compiled loops")
@pytest.mark.parametrize("name", SETUPS)
def test_accuracy_above_baseline(name, trained, data):
    parser, log = trained[name]
    scores = score_parser(parser, data[1])
    print(f"{name}: dev UAS {scores.uas:.2f} LAS {scores.las:.2f}")
    # attaching every word to the next one (the better trivial baseline on EWT) scores ~30
    assert scores.uas > 60
    assert scores.las > 50
    assert log["epochs"][-1]["updates"] < log["epochs"][0]["updates"]
    assert scores.las == pytest.approx(log["epochs"][log["best_epoch"] - 1]["dev_las"], abs=0.01)


@pytest.mark.parametrize("name", SETUPS)
def test_output_trees_are_well_formed(name, trained, data):
    parser, _ = trained[name]
    dev = data[1]
    trees = parser.parse(dev)
    assert len(trees) == len(dev)
    for sentence, (head, deprel) in zip(dev, trees):
        assert head.shape == (sentence.n + 1,) and head[0] == -1
        assert is_well_formed(head)
        assert len(deprel) == sentence.n + 1
        assert set(deprel[1:]) <= set(parser.classes.labels)


def test_unbuildable_trees_are_counted_and_skipped_by_static_training(trained, data):
    _, log = trained["arc-eager"]
    nonprojective = sum(not is_projective(s.head) for s in data[0])
    assert log["unbuildable"] == nonprojective
    assert log["skipped"] == nonprojective
    _, dynamic_log = trained["covington-nm"]
    assert dynamic_log["unbuildable"] == dynamic_log["skipped"] == 0


def test_same_seed_gives_identical_weights(trained, data):
    first, _ = trained["covington-nm"]
    again, _ = train("covington-nm", data[0], data[1], epochs=EPOCHS, seed=1,
                     **SETUPS["covington-nm"], **SMALL)
    for a, b in zip(first.weights[:2], again.weights[:2]):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
    other, _ = train("covington-nm", data[0], None, epochs=EPOCHS, seed=2, explore_from=0,
                     **SETUPS["covington-nm"], **SMALL)
    assert not np.array_equal(first.weights.transition, other.weights.transition)


def test_save_load_round_trip(trained, data, tmp_path):
    parser, _ = trained["covington-nm"]
    path = tmp_path / "model.arcwise"
    parser.save(path)
    loaded = arcwise.load(path)  # the top-level entry point, same as Parser.load
    assert isinstance(loaded, Parser)
    assert loaded.system == parser.system and loaded.root_label == parser.root_label
    assert loaded.classes == parser.classes
    dev = data[1]
    for (h1, d1), (h2, d2) in zip(parser.parse(dev), loaded.parse(dev)):
        assert np.array_equal(h1, h2) and d1 == d2
    head, deprel = loaded.parse(dev[0])  # a single sentence
    assert np.array_equal(head, parser.parse([dev[0]])[0][0])
    parser.save(tmp_path / "again.arcwise")  # deterministic bytes
    assert (tmp_path / "again.arcwise").read_bytes() == path.read_bytes()


def test_final_tree_attaches_headless_words_and_breaks_cycles():
    state = st.new_state(5, 0)
    heads = st.region(state, st.HEADS)
    labels = st.region(state, st.LABELS)
    heads[1:] = [2, 3, 1, -1, 4]  # 1 -> 2 -> 3 -> 1 is a cycle, 4 is headless, 5 hangs on 4
    labels[1:] = [7, 7, 7, -1, 3]
    out_heads = np.zeros(6, dtype=np.int32)
    out_labels = np.zeros(6, dtype=np.int32)
    final_tree(state, 9, out_heads, out_labels)
    assert is_well_formed(out_heads)
    assert out_heads[4] == 0 and out_labels[4] == 9
    assert out_heads[5] == 4 and out_labels[5] == 3
    assert sum(out_heads[d] == 0 for d in (1, 2, 3)) == 1  # one arc of the cycle cut


def test_bad_arguments(data):
    with pytest.raises(ValueError, match="oracle"):
        train("covington-nm", data[0][:2], oracle="psychic")
    with pytest.raises(ValueError, match="bound"):
        train("covington-nm", data[0][:2], oracle="dynamic", bound="sideways")


def test_model_file_that_does_not_fit_its_system_is_refused(trained, tmp_path):
    parser, _ = trained["arc-eager"]
    meta = parser.meta()
    meta["labels"] = meta["labels"][:-1]  # the weight columns no longer match the classes
    path = tmp_path / "bad.arcwise"
    modelfile.save(path, pc.to_arrays(parser.weights), meta)
    with pytest.raises(ArcwiseError, match="bad.arcwise"):
        Parser.load(path)
