"""A guided (stacked) transition-based parser, 2011 paper §5.3: the guide's trees are
features (Table 5) -- a parser guided by the gold trees learns to copy them; a guided
model needs guide trees and an unguided one refuses them; model files keep the guide
features."""

import dataclasses

import numpy as np
import pytest

from arcwise.core.errors import ArcwiseError
from arcwise.eval.metrics import evaluate
from arcwise.features import default_table
from arcwise.io import conllu
from arcwise.io.conllu import with_tree
from arcwise.transition.parser import Parser
from arcwise.transition.train import train
from tests.ewt import NO_JIT, train_and_dev
from tests.rounded import rounded

N_TRAIN, N_DEV, EPOCHS = (6, 4, 1) if NO_JIT else (300, 200, 2)
SMALL = {"transition_buckets": 2**18, "label_buckets": 2**14}


@pytest.fixture(scope="module")
def data():
    return train_and_dev(N_TRAIN, N_DEV)


def uas_las(parser, gold, guide=None):
    trees = parser.parse(gold, guide=guide)
    return evaluate(gold, [with_tree(s, *t) for s, t in zip(gold, trees)])


def shifted(sentences):
    """A poor guide: every word attached to its right neighbour (the last one to 0)."""
    out = []
    for s in sentences:
        head = np.array([-1, *range(2, s.n + 1), 0], dtype=np.int32)
        out.append(dataclasses.replace(s, head=head, deprel=s.deprel))
    return out


def test_guided_tables_add_the_guide_features_of_table_5():
    for system in ("covington-nm", "arc-eager", "arc-hybrid", "two-planar"):
        plain, guided = default_table(system), default_table(system, guided=True)
        assert not plain.guided and guided.guided
        assert guided.n_features > plain.n_features
        added = {t.text for t in guided.templates} - {t.text for t in plain.templates}
        assert any(".ga" in t for t in added) and any(".gl" in t for t in added)


@pytest.mark.parametrize("system,setup", [
    ("covington-nm", {"oracle": "dynamic", "bound": "upper"}),
    ("arc-eager", {"oracle": "static"}),
])
def test_a_parser_guided_by_gold_trees_learns_to_follow_its_guide(system, setup, data, tmp_path):
    train_sentences, dev_sentences = data
    parser, log = train(system, train_sentences, dev_sentences, epochs=EPOCHS, seed=1,
                        guide=train_sentences, dev_guide=dev_sentences, **setup, **SMALL)
    assert parser.guided and log["hyperparameters"]["guided"]
    with pytest.raises(ArcwiseError, match="guided"):
        parser.parse(dev_sentences)
    if NO_JIT:
        return
    followed = uas_las(parser, dev_sentences, guide=dev_sentences)
    misled = uas_las(parser, dev_sentences, guide=shifted(dev_sentences))
    assert followed.uas > 95 and followed.las > 90
    assert misled.uas < followed.uas - 20  # it reads the guide, not only the words
    path = tmp_path / "guided.model"
    parser.save(path)
    loaded = Parser.load(path)
    assert loaded.guided
    a = rounded(parser).parse(dev_sentences[:20], guide=dev_sentences[:20])
    b = loaded.parse(dev_sentences[:20], guide=dev_sentences[:20])
    assert all(np.array_equal(x[0], y[0]) and x[1] == y[1] for x, y in zip(a, b))


def test_guide_trees_are_checked(data):
    train_sentences, dev_sentences = data
    parser, _ = train("arc-eager", train_sentences[:5], oracle="static", epochs=1, seed=1, **SMALL)
    with pytest.raises(ArcwiseError, match="without a guide"):
        parser.parse(dev_sentences[:2], guide=dev_sentences[:2])
    with pytest.raises(ValueError, match="dev sentences"):
        train("arc-eager", train_sentences[:5], dev_sentences[:2], oracle="static", epochs=1,
              guide=train_sentences[:5], **SMALL)
    with pytest.raises(ValueError, match="words"):
        train("arc-eager", train_sentences[:5], oracle="static", epochs=1,
              guide=train_sentences[1:6], **SMALL)
