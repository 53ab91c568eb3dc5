"""The graph-based parser: features, updates, labeler, training, model files."""

import numpy as np
import pytest

from arcwise.eval.metrics import evaluate
from arcwise.graph import arc_features as af
from arcwise.graph.arc_labeler import best_label, train_labeler
from arcwise.graph.mst_parser import GraphParser, _difference, train_graph_parser, tree_buckets
from arcwise.io import read_treebank
from arcwise.io.conllu import with_tree
from tests.ewt import NO_JIT, compiled_only  # NO_JIT: pure Python, fewer sentences
from tests.reference.trees_bruteforce import is_well_formed

TRAIN = "data/en_ewt/train.conllu.gz"


@pytest.fixture(scope="module")
def sentences():
    return [s for s in read_treebank(TRAIN) if 3 <= s.n <= (10 if NO_JIT else 15)][: 8 if NO_JIT else 60]


def _scores(parser, trees, gold):
    return evaluate(gold, [with_tree(s, *t) for s, t in zip(gold, trees)])


def test_direction_distance_buckets():
    buckets = [af.direction_distance(0, m) % 8 for m in range(1, 14)]
    assert buckets == [0, 1, 2, 3, 4, 5, 5, 5, 5, 5, 6, 6, 6]
    assert af.direction_distance(3, 1) < 8 <= af.direction_distance(1, 3)


def test_difference_cancels_shared_parts():
    buckets, values = _difference(np.array([5, 3, 3, 9]), np.array([3, 9, 7]))
    assert dict(zip(buckets.tolist(), values.tolist())) == {3: 1.0, 5: 1.0, 7: -1.0}


def test_tree_buckets_order_two_adds_sibling_parts(sentences):
    parser = GraphParser(2, "projective", *_empty_model(sentences))
    g = parser.prepare(sentences[0])
    out = np.zeros(af.max_arc_features(64), np.int64)
    first = tree_buckets(g.atoms, g.counts, g.head, 1, 2**20, out)
    second = tree_buckets(g.atoms, g.counts, g.head, 2, 2**20, out)
    # one sibling part per dependent: n parts of SIBLING_FEATURES buckets
    assert len(second) - len(first) == sentences[0].n * af.SIBLING_FEATURES


def _empty_model(sentences):
    from arcwise.core.vocab import Vocabularies

    labels = sorted({r for s in sentences for r in s.deprel[1:]})
    return (Vocabularies.build(sentences), labels, np.zeros(2**16, np.float32),
            np.zeros((2**10, len(labels)), np.float32))


def test_labeler_learns_a_separable_problem():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 3, 300)
    indices = np.stack([labels, 10 + rng.integers(0, 5, 300)], axis=1).ravel()
    indptr = np.arange(0, 601, 2)
    weights = train_labeler(indptr, indices, labels, 3, n_buckets=64, iterations=50)
    predicted = [best_label(weights, indices[2 * k: 2 * k + 2], 2) for k in range(300)]
    assert (np.array(predicted) == labels).all()


@compiled_only
@pytest.mark.parametrize("order,decoder", [(1, "non-projective"), (1, "projective"),
                                           (2, "projective"), (2, "non-projective")])
def test_training_fits_the_training_data(sentences, order, decoder):
    parser, log = train_graph_parser(sentences, order=order, decoder=decoder, epochs=4,
                                     buckets=2**18, label_buckets=2**12, labeler_iterations=30)
    assert log["epochs"][-1]["train_wrong_heads"] < log["epochs"][0]["train_wrong_heads"]
    assert log["hyperparameters"] == parser.hyperparameters and log["best_epoch"] == 4
    trees = parser.parse(sentences)
    for heads, _ in trees:
        assert is_well_formed(list(heads))
    scores = _scores(parser, trees, sentences)
    assert scores.uas > 90 and scores.las > 80


@compiled_only
def test_same_seed_same_model_and_round_trip(sentences, tmp_path):
    a, _ = train_graph_parser(sentences, epochs=2, seed=3, buckets=2**16, label_buckets=2**10,
                              labeler_iterations=10)
    b, _ = train_graph_parser(sentences, epochs=2, seed=3, buckets=2**16, label_buckets=2**10,
                              labeler_iterations=10)
    a.save(tmp_path / "a.model")
    b.save(tmp_path / "b.model")
    assert (tmp_path / "a.model").read_bytes() == (tmp_path / "b.model").read_bytes()
    loaded = GraphParser.load(tmp_path / "a.model")
    for (h1, l1), (h2, l2) in zip(a.parse(sentences), loaded.parse(sentences)):
        assert h1.tolist() == h2.tolist() and l1 == l2


def test_single_root(sentences):
    parser, _ = train_graph_parser(sentences[:20], epochs=1, buckets=2**16,
                                   label_buckets=2**10, labeler_iterations=5)
    for heads, _ in parser.parse(sentences, single_root=True):
        assert (heads[1:] == 0).sum() == 1


def test_labeler_gradient_matches_finite_differences():
    from arcwise.graph.arc_labeler import feature_matrix, negative_log_posterior

    rng = np.random.default_rng(1)
    indptr = np.arange(0, 31, 3)
    indices = rng.integers(0, 8, 30)
    labels = rng.integers(0, 3, 10)
    x, used = feature_matrix(indptr, indices, 8)
    assert x.shape == (10, len(used)) and x.sum() == 30  # repeated buckets counted
    w = rng.standard_normal(len(used) * 3)
    value, gradient = negative_log_posterior(w, x, x.T.tocsr(), labels, 1.0)
    eps = 1e-3
    for j in range(len(w)):
        step = np.zeros_like(w)
        step[j] = eps
        plus, _ = negative_log_posterior(w + step, x, x.T.tocsr(), labels, 1.0)
        minus, _ = negative_log_posterior(w - step, x, x.T.tocsr(), labels, 1.0)
        assert abs((plus - minus) / (2 * eps) - gradient[j]) < 1e-3 * max(1.0, abs(gradient[j]))


def test_labeler_frequency_cutoff_drops_rare_buckets():
    from arcwise.graph.arc_labeler import feature_matrix

    x, used = feature_matrix(np.array([0, 2, 4, 5]), np.array([1, 2, 1, 3, 1]), 8, min_count=2)
    assert used.tolist() == [1] and x.toarray().ravel().tolist() == [1, 1, 1]


def test_direction_distance_versions_share_the_feature_line():
    out = np.zeros(4, np.int64)
    for dd in range(15):
        af._emit(out, 0, np.uint64(12345678901), dd, 2**20)
        assert out[0] // af.LINE == out[1] // af.LINE and out[0] != out[1]


def test_sibling_scores_sum_the_sibling_features(sentences):
    g = GraphParser(2, "projective", *_empty_model(sentences)).prepare(sentences[1])
    weights = np.random.default_rng(2).standard_normal(2**12)
    out = np.zeros(af.max_arc_features(64), np.int64)
    sib = af.sibling_scores(g.atoms, weights, out)
    n1 = len(g.head)
    for h in range(n1):
        for m in range(1, n1):
            step = 1 if m > h else -1
            for s in range(h, m, step) if m != h else ():
                k = af.sibling_features(g.atoms, h, s, m, 2**12, out)
                assert sib[h, s, m] == pytest.approx(weights[out[:k]].sum())


def test_arc_features_from_prefixes_equal_the_direct_conjunctions(sentences):
    g = GraphParser(1, "projective", *_empty_model(sentences)).prepare(sentences[2])
    a, out, direct = g.atoms, np.zeros(af.max_arc_features(64), np.int64), np.zeros(64, np.int64)
    n1 = len(g.head)
    for h, m in [(0, 1), (1, n1 - 1), (n1 - 1, 1), (2, 1)]:
        af.arc_features(a, g.counts, h, m, 2**20, out)
        k = af._conjunctions(direct, 0, af._HEAD_MODIFIER, a[h, af.FORM], a[h, af.UPOS],
                             a[m, af.FORM], a[m, af.UPOS], af.ALL_SUBSETS,
                             af.direction_distance(h, m), 2**20)
        assert out[:k].tolist() == direct[:k].tolist()


def test_cli_train_and_parse_mst(sentences, tmp_path):
    from typer.testing import CliRunner

    from arcwise.cli.main import app
    from arcwise.io import conllu

    train = tmp_path / "train.conllu"
    few = sentences[:20]
    conllu.write(train, few)
    model, out = tmp_path / "mst.arcwise", tmp_path / "out.conllu"
    runner = CliRunner()
    result = runner.invoke(app, ["train", "--system", "mst", "--order", "2", "--decoder",
                                 "projective", "--train", str(train), "-o", str(model),
                                 "--epochs", "1"])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["parse", "-m", str(model), str(train), "-o", str(out),
                                 "--single-root"])
    assert result.exit_code == 0, result.output
    parsed = list(read_treebank(out))
    assert len(parsed) == len(few)
    for s in parsed:
        assert is_well_formed(list(s.head)) and (s.head[1:] == 0).sum() == 1
