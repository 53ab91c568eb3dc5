"""Stacking (2011 paper §5): jackknifed guide trees, guided parsers of both kinds in one
model file, `arcwise.load` and the command line."""

import itertools

import numpy as np
import pytest

import arcwise
from arcwise.combination import stacking
from arcwise.combination.stacking import GuidedParser, folds_of, jackknife, train_guided
from arcwise.core.errors import ArcwiseError
from arcwise.graph.mst_parser import GraphParser, train_graph_parser
from arcwise.io import conllu
from arcwise.transition.parser import Parser
from arcwise.transition.train import train
from tests.ewt import DATA, NO_JIT, train_and_dev
from tests.rounded import rounded

N_TRAIN, N_DEV = (8, 4) if NO_JIT else (60, 30)
SMALL = {"transition_buckets": 2**16, "label_buckets": 2**12}
SMALL_MST = {"buckets": 2**16, "label_buckets": 2**12, "labeler_iterations": 10}


@pytest.fixture(scope="module")
def data():
    return train_and_dev(N_TRAIN, N_DEV)


@pytest.fixture(scope="module")
def arc_eager(data):
    return train("arc-eager", data[0], data[1], oracle="static", epochs=1, seed=3, **SMALL)[0]


@pytest.fixture(scope="module")
def mst(data):
    return train_graph_parser(data[0], order=1, epochs=1, seed=3, **SMALL_MST)[0]


def same_trees(a, b):
    return all(np.array_equal(x[0], y[0]) and x[1] == y[1] for x, y in zip(a, b))


def test_folds_partition_the_sentences_into_contiguous_parts():
    assert folds_of(10, 2) == [range(0, 5), range(5, 10)]
    parts = folds_of(11, 3)
    assert [i for part in parts for i in part] == list(range(11))
    assert max(len(p) for p in parts) - min(len(p) for p in parts) <= 1
    with pytest.raises(ValueError):
        folds_of(10, 1)
    with pytest.raises(ValueError):
        folds_of(1, 2)


def test_each_fold_is_parsed_by_a_guide_trained_on_the_other_folds(arc_eager, data, monkeypatch):
    seen = []
    real = stacking.retrain

    def spy(model, sentences, dev=None):
        seen.append({s.first_line for s in sentences})
        return real(model, sentences, dev)

    monkeypatch.setattr(stacking, "retrain", spy)
    trees = jackknife(arc_eager, data[0], folds=2)
    assert len(trees) == len(data[0])
    assert all(t.form == s.form for t, s in zip(trees, data[0]))
    for fold, trained_on in zip(folds_of(len(data[0]), 2), seen):
        fold_lines = {data[0][i].first_line for i in fold}
        assert not fold_lines & trained_on  # never annotated by a guide that saw it
        assert len(trained_on) == len(data[0]) - len(fold)
    # the retrained guides keep the guide's options: the same call gives the same trees
    monkeypatch.setattr(stacking, "retrain", real)
    again = jackknife(arc_eager, data[0], folds=2)
    assert same_trees([(t.head, t.deprel) for t in trees], [(t.head, t.deprel) for t in again])


@pytest.mark.parametrize("guided_system, guide_name", [("mst", "arc_eager"),
                                                       ("covington-nm", "mst")])
@pytest.mark.end_to_end
def test_guided_parser_round_trips_through_one_model_file(guided_system, guide_name, data,
                                                           request, tmp_path):
    guide = request.getfixturevalue(guide_name)
    options = (dict(order=1, epochs=1, seed=3, **SMALL_MST) if guided_system == "mst" else
               dict(oracle="dynamic", bound="upper", epochs=1, seed=3, **SMALL))
    parser, _ = train_guided(guided_system, data[0], data[1], guide, folds=2, **options)
    assert isinstance(parser, GuidedParser) and parser.system == guided_system
    trees = parser.parse(data[1])
    assert len(trees) == len(data[1])
    path = tmp_path / "guided.model"
    parser.save(path)
    loaded = arcwise.load(path).parser
    assert isinstance(loaded, GuidedParser)
    assert type(loaded.guide) is type(guide)
    assert type(loaded.guided_model) is (GraphParser if guided_system == "mst" else Parser)
    trees = rounded(parser).parse(data[1])  # as the file holds it
    assert same_trees(trees, loaded.parse(data[1]))
    head, deprel = loaded.parse(data[1][0])
    assert np.array_equal(head, trees[0][0]) and deprel == trees[0][1]
    again, _ = train_guided(guided_system, data[0], data[1], guide, folds=2, **options)
    again_path = tmp_path / "again.model"
    again.save(again_path)
    assert again_path.read_bytes() == path.read_bytes()  # deterministic


def test_a_guided_model_cannot_guide_and_plain_files_are_not_guided(arc_eager, data, tmp_path):
    with pytest.raises(ValueError, match="without a guide"):
        GuidedParser(arc_eager, arc_eager)
    path = tmp_path / "plain.model"
    arc_eager.save(path)
    with pytest.raises(ArcwiseError, match="not a guided model"):
        GuidedParser.load(path)
    assert isinstance(arcwise.load(path).parser, Parser)


@pytest.mark.end_to_end
def test_command_line_trains_a_guided_mst_and_parses_with_it(tmp_path):
    from tests.test_cli_train_parse import arcwise as run_arcwise

    train_file, dev_file = tmp_path / "train.conllu", tmp_path / "dev.conllu"
    conllu.write(train_file, itertools.islice(conllu.read(DATA / "train.conllu.gz"), 30))
    conllu.write(dev_file, itertools.islice(conllu.read(DATA / "dev.conllu.gz"), 10))
    guide, guided = tmp_path / "guide.model", tmp_path / "guided.model"
    run = run_arcwise("train", "--system", "arc-eager", "--train", train_file, "-o", guide,
                      "--epochs", "1", "--oracle", "static", "--seed", "3")
    assert run.returncode == 0, run.stderr
    run = run_arcwise("train", "--system", "mst", "--train", train_file, "--dev", dev_file,
                      "-o", guided, "--epochs", "1", "--seed", "3", "--guide", guide,
                      "--guide-folds", "3")
    assert run.returncode == 0, run.stderr
    assert run.stderr.count("annotated by a guide retrained on the other folds") == 3
    loaded = arcwise.load(guided).parser
    assert isinstance(loaded, GuidedParser) and loaded.folds == 3
    run = run_arcwise("parse", "-m", guided, dev_file)
    assert run.returncode == 0, run.stderr
    out = tmp_path / "out.conllu"
    out.write_text(run.stdout)
    expected = loaded.parse(list(conllu.read(dev_file)))
    assert same_trees([(s.head, s.deprel) for s in conllu.read(out)],
                      [(np.asarray(h), tuple(d)) for h, d in expected])
    bad = run_arcwise("train", "--system", "mst", "--train", train_file, "-o",
                      tmp_path / "x.model", "--guide", dev_file)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "x.model").exists()
