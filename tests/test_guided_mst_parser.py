"""A guided (stacked) graph-based parser, 2011 paper §5.3: MST guided by another
parser's trees through Table 5's guide features -- guided by the gold trees it learns
to copy them; a guided model needs guide trees and an unguided one refuses them; model
files keep the guidance; unguided features are those of the plain parser."""

import numpy as np
import pytest

from arcwise.core.errors import ArcwiseError
from arcwise.eval.metrics import evaluate
from arcwise.graph import arc_features as af
from arcwise.graph.mst_parser import GraphParser, train_graph_parser
from arcwise.io import conllu
from arcwise.io.conllu import with_tree
from tests.ewt import NO_JIT, train_and_dev
from tests.test_guided_transition_parser import shifted

N_TRAIN, N_DEV, EPOCHS = (6, 4, 1) if NO_JIT else (200, 100, 3)
SMALL = {"buckets": 2**18, "label_buckets": 2**14, "labeler_iterations": 30}
# Features of the first dev arc as the parser computed them before guide features existed
# (arc_features with 2**18 buckets, label_features with 2**14): counts and bucket sums.
ARC_AND_LABEL_COUNTS, ARC_AND_LABEL_SUMS = (168, 48), (21902002, 415315)


@pytest.fixture(scope="module")
def data():
    return train_and_dev(N_TRAIN, N_DEV)


@pytest.fixture(scope="module")
def guided(data):
    train_sentences, dev_sentences = data
    return train_graph_parser(train_sentences, dev_sentences, guide=train_sentences,
                              dev_guide=dev_sentences, order=1, epochs=EPOCHS, seed=1, **SMALL)


def uas_las(parser, gold, guide=None):
    trees = parser.parse(gold, guide=guide)
    return evaluate(gold, [with_tree(s, *t) for s, t in zip(gold, trees)])


def test_guide_features_are_added_only_to_guided_sentences(data):
    parser = GraphParser(1, "projective", *_empty_model(data[0]))
    sentence = data[1][0]
    plain, guided = parser.prepare(sentence), parser.prepare(sentence, sentence)
    assert not af.is_guided(plain.atoms) and af.is_guided(guided.atoms)
    out = np.zeros(af.max_arc_features(len(parser.vocabularies.upos)), dtype=np.int64)
    h, m = sentence.head[1], 1
    k_plain = af.arc_features(plain.atoms, plain.counts, h, m, 2**18, out)
    first = out[:k_plain].copy()
    k_guided = af.arc_features(guided.atoms, guided.counts, h, m, 2**18, out)
    assert k_guided == k_plain + af.GUIDE_FEATURES and np.array_equal(out[:k_plain], first)
    k_label = af.label_features(guided.atoms, guided.counts, h, m, 2**14, out)
    assert k_label > af.label_features(plain.atoms, plain.counts, h, m, 2**14, out)


def _empty_model(sentences):
    from arcwise.core.vocab import Vocabularies

    labels = sorted({r for s in sentences for r in s.deprel[1:]})
    return (Vocabularies.build(sentences), labels, np.zeros(2**18, np.float32),
            np.zeros((2**14, len(labels)), np.float32))


def test_a_parser_guided_by_gold_trees_learns_to_follow_its_guide(guided, data, tmp_path):
    parser, log = guided
    dev_sentences = data[1]
    assert parser.guided and parser.hyperparameters["guided"]
    with pytest.raises(ArcwiseError, match="guided"):
        parser.parse(dev_sentences)
    path = tmp_path / "guided.model"
    parser.save(path)
    loaded = GraphParser.load(path)
    assert loaded.guided
    a = parser.parse(dev_sentences[:10], guide=dev_sentences[:10])
    b = loaded.parse(dev_sentences[:10], guide=dev_sentences[:10])
    assert all(np.array_equal(x[0], y[0]) and x[1] == y[1] for x, y in zip(a, b))
    if NO_JIT:
        return
    followed = uas_las(parser, dev_sentences, guide=dev_sentences)
    misled = uas_las(parser, dev_sentences, guide=shifted(dev_sentences))
    assert followed.uas > 95 and followed.las > 85
    assert misled.uas < followed.uas - 20  # it reads the guide, not only the words
    assert log["epochs"][-1]["dev_uas"] == pytest.approx(followed.uas, abs=0.01)


def test_guide_trees_are_checked(data):
    train_sentences, dev_sentences = data
    parser, _ = train_graph_parser(train_sentences[:5], epochs=1, seed=1, **SMALL)
    assert not parser.guided
    with pytest.raises(ArcwiseError, match="without a guide"):
        parser.parse(dev_sentences[:2], guide=dev_sentences[:2])
    with pytest.raises(ValueError, match="dev_guide"):
        train_graph_parser(train_sentences[:5], dev_sentences[:2], epochs=1,
                           guide=train_sentences[:5], **SMALL)
    with pytest.raises(ValueError, match="words"):
        train_graph_parser(train_sentences[:5], epochs=1, guide=train_sentences[1:6], **SMALL)
    with pytest.raises(ValueError, match="guide trees for"):
        train_graph_parser(train_sentences[:5], epochs=1, guide=train_sentences[:4], **SMALL)


def test_one_sentence_parses_with_one_guide_tree_as_in_a_batch(guided, data):
    parser, _ = guided
    dev_sentences = data[1]
    head, deprel = parser.parse(dev_sentences[0], guide=dev_sentences[0])
    batch = parser.parse(dev_sentences[:3], guide=dev_sentences[:3])
    assert np.array_equal(head, batch[0][0]) and deprel == batch[0][1]
    with pytest.raises(ArcwiseError, match="guided"):
        parser.parse(dev_sentences[0])
    with pytest.raises(ValueError, match="words"):
        parser.parse(dev_sentences[:2], guide=dev_sentences[1:3])
    with pytest.raises(ValueError, match="guide trees for"):
        parser.parse(dev_sentences[:2], guide=dev_sentences[:1])


@pytest.mark.end_to_end
def test_a_model_file_without_the_guided_key_loads_unguided(data, tmp_path):
    train_sentences, dev_sentences = data
    parser, _ = train_graph_parser(train_sentences[:5], epochs=1, seed=1, **SMALL)
    assert parser.hyperparameters["guided"] is False
    del parser.hyperparameters["guided"]  # as written before guided parsers existed
    parser.save(tmp_path / "old.model")
    loaded = GraphParser.load(tmp_path / "old.model")
    assert not loaded.guided
    a, b = parser.parse(dev_sentences[:3]), loaded.parse(dev_sentences[:3])
    assert all(np.array_equal(x[0], y[0]) and x[1] == y[1] for x, y in zip(a, b))


def test_unguided_features_do_not_change(data):
    """The plain parser's features of an arc are those of the parser before guide
    features existed: fixed buckets of the first dev sentence's first arc."""
    parser = GraphParser(1, "projective", *_empty_model(data[0]))
    sentence = data[1][0]
    g = parser.prepare(sentence)
    out = np.zeros(max(af.max_arc_features(len(parser.vocabularies.upos)),
                       af.max_label_features(len(parser.vocabularies.upos))), dtype=np.int64)
    k = af.arc_features(g.atoms, g.counts, sentence.head[1], 1, 2**18, out)
    arc = out[:k].copy()
    k_label = af.label_features(g.atoms, g.counts, sentence.head[1], 1, 2**14, out)
    assert (k, k_label) == ARC_AND_LABEL_COUNTS
    assert (int(arc.sum()), int(out[:k_label].sum())) == ARC_AND_LABEL_SUMS
