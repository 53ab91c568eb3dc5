"""The averaged perceptron as a stepped Scorer (`arcwise.transition.scorers.perceptron`).

- Parsing step by step (`arcwise.transition.stepped.parse`, any number of sentences advancing
  together) gives the fused compiled parser's trees and traces, for every system.
- Training step by step, one sentence per batch, gives the fused epoch's weights
  (static oracle, and dynamic before exploration); with several sentences per batch
  it still learns; it never needs torch.
"""

import subprocess
import sys

import numpy as np
import pytest

from arcwise.features.batch import Batch, sub_batch
from arcwise.training.data import score_parser
from arcwise.transition import stepped
from arcwise.transition.parser import Parser
from arcwise.transition.scorers.perceptron import PerceptronScorer
from arcwise.transition.train import train
from arcwise.trees.projectivity import is_well_formed
from tests.ewt import NO_JIT, compiled_only, train_and_dev

SMALL = {"transition_buckets": 2**16, "label_buckets": 2**12}
SYSTEMS = ["arc-eager", "arc-eager+lba", "arc-eager-nm", "arc-hybrid", "arc-hybrid+swap",
           "covington", "covington-nm", "two-planar"]


@pytest.fixture(scope="module")
def data():
    return train_and_dev(10 if NO_JIT else 150, 6 if NO_JIT else 60)


def stepped_parse(parser: Parser, batch: Batch, sentences_per_step: int, trace: bool = False):
    """The stepped perceptron's flat parse of a batch, `sentences_per_step` at a time."""
    scorer = PerceptronScorer.of_parser(parser)
    root = parser.classes.labels.index(parser.root_label)
    parts = []
    for start in range(0, len(batch), sentences_per_step):
        part = sub_batch(batch, range(start, min(start + sentences_per_step,
                                                         len(batch))))
        parts.append(stepped.parse(scorer, parser.kernels, parser.classes, part, root, trace))
    return [np.concatenate([p[k] for p in parts]) for k in range(3)], parts


# uncompiled, one system of each test checks the stepped path (the others take minutes)
@pytest.mark.parametrize("name", [n if n == "arc-hybrid" else pytest.param(n, marks=compiled_only)
                                  for n in SYSTEMS])
def test_stepped_parses_are_the_fused_parses(name, data):
    parser, _ = train(name, data[0], oracle="dynamic" if name != "arc-hybrid+swap" else "static",
                      epochs=2, seed=1, **SMALL)
    batch = Batch(data[1], parser.vocabularies)
    fused = parser.parse_encoded(batch)
    for per_step in (1, 7, len(batch)):
        flat, _ = stepped_parse(parser, batch, per_step)
        for a, b in zip(fused, flat):
            assert np.array_equal(a, b)
    # traces too: the arcs' builders and every re-heading, sentence by sentence
    heads, labels, made, built_by, reheadings, offsets = parser.parse_encoded(batch, trace=True)
    _, parts = stepped_parse(parser, batch, 1, trace=True)
    assert np.array_equal(np.concatenate([p[3] for p in parts]), built_by)
    for k, part in enumerate(parts):
        assert np.array_equal(part[4], reheadings[offsets[k] : offsets[k + 1]])


@pytest.mark.parametrize("name,oracle,explore_from", [
    ("arc-eager", "static", 0),
    pytest.param("covington-nm", "dynamic", 9, marks=compiled_only),
    pytest.param("two-planar", "dynamic", 9, marks=compiled_only),
    pytest.param("arc-hybrid+swap", "static", 0, marks=compiled_only),
])
def test_stepped_training_one_sentence_at_a_time_is_the_fused_training(
        name, oracle, explore_from, data):
    options = dict(oracle=oracle, epochs=2, seed=3, explore_from=explore_from, **SMALL)
    fused, fused_log = train(name, data[0], data[1], **options)
    one, one_log = train(name, data[0], data[1], stepped_batch=1, **options)
    assert isinstance(one, Parser)
    for table in ("transition", "label"):
        assert np.array_equal(getattr(fused.weights, table), getattr(one.weights, table))
    assert [e["dev_las"] for e in fused_log["epochs"]] == [e["dev_las"] for e in one_log["epochs"]]
    assert [e["configurations"] for e in fused_log["epochs"]] == \
        [e["configurations"] for e in one_log["epochs"]]
    assert one.hyperparameters["stepped_batch"] == 1


def test_stepped_training_in_batches_learns(data):
    parser, log = train("arc-eager", data[0], data[1], oracle="dynamic", epochs=3, seed=2,
                        stepped_batch=16, **SMALL)
    trees = parser.parse(data[1])
    assert all(is_well_formed(np.asarray(h, np.int32)) for h, _ in trees)
    assert [e["exploring"] for e in log["epochs"]] == [False, True, True]
    if not NO_JIT:  # 150 sentences, 3 epochs: well above the ~10 % of attaching all to one word
        assert score_parser(parser, data[1]).uas > 60


def test_stepped_perceptron_parses_without_torch(tmp_path):
    """The stepped path imports no neural library for the perceptron."""
    code = f"""
import sys
sys.modules["torch"] = None  # any import of torch fails
sys.path.insert(0, {str(tmp_path)!r})
from tests.ewt import train_and_dev
from arcwise.transition.train import train
tr, dev = train_and_dev(8, 3)
parser, _ = train("arc-hybrid", tr, oracle="static", epochs=1, stepped_batch=4,
                  transition_buckets=2**12, label_buckets=2**10)
assert len(parser.parse(dev)) == 3
print("ok")
"""
    root = str(__import__("pathlib").Path(__file__).resolve().parents[1])
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=root, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
