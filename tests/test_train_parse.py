"""Training and parsing on English-EWT: accuracy well above a trivial baseline,
well-formed output trees, deterministic weights, lossless model files,
pseudo-projective arc-eager, single-root output and `Parser.parse_file`.

Without JIT (NUMBA_DISABLE_JIT=1) the same code runs on a few sentences for
one epoch; the accuracy test needs the compiled loops and is skipped."""

import itertools

import numpy as np
import pytest

import arcwise
from arcwise.core.errors import ArcwiseError, InputError
from arcwise.io import conllu
from arcwise.learn import perceptron as pc
from arcwise.models import modelfile
from arcwise.systems import state as st
from arcwise.training.data import score_parser
from arcwise.transition.kernels import final_tree
from arcwise.transition.parser import Parser
from arcwise.transition.train import train
from arcwise.trees.projectivity import is_projective, is_well_formed, nonprojective_arcs
from arcwise.trees.pseudoprojective import LIFTED, deprojectivize
from arcwise.trees.roots import single_rooted
from tests.ewt import DATA, NO_JIT, compiled_only, train_and_dev
from tests.rounded import rounded

N_TRAIN, N_DEV, EPOCHS = (6, 4, 1) if NO_JIT else (300, 200, 2)
SMALL = {"transition_buckets": 2**18, "label_buckets": 2**14}
SETUPS = {
    "covington-nm": {"oracle": "dynamic", "bound": "upper"},
    "arc-eager": {"oracle": "static"},
}


@pytest.fixture(scope="module")
def data():
    return train_and_dev(N_TRAIN, N_DEV)


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


@pytest.mark.parametrize("name", SETUPS)
def test_parse_does_not_depend_on_the_number_of_threads(name, trained, data):
    import numba

    parser, _ = trained[name]
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        alone = parser.parse(data[1])
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        shared = parser.parse(data[1])
    finally:
        numba.set_num_threads(threads)
    for (head_a, deprel_a), (head_b, deprel_b) in zip(alone, shared):
        assert np.array_equal(head_a, head_b) and deprel_a == deprel_b


def test_unbuildable_trees_are_counted_and_skipped_by_static_training(trained, data):
    _, log = trained["arc-eager"]
    nonprojective = sum(not is_projective(s.head) for s in data[0])
    assert log["unbuildable"] == nonprojective
    assert log["skipped"] == nonprojective
    _, dynamic_log = trained["covington-nm"]
    assert dynamic_log["unbuildable"] == dynamic_log["skipped"] == 0


@compiled_only
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
    loaded = arcwise.load(path).parser  # the top-level entry point, same as Parser.load
    assert isinstance(loaded, Parser)
    assert loaded.system == parser.system and loaded.root_label == parser.root_label
    assert loaded.classes == parser.classes
    dev = data[1]
    for (h1, d1), (h2, d2) in zip(rounded(parser).parse(dev), loaded.parse(dev)):
        assert np.array_equal(h1, h2) and d1 == d2
    head, deprel = loaded.parse(dev[0])  # a single sentence
    assert np.array_equal(head, rounded(parser).parse([dev[0]])[0][0])
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


@compiled_only
def test_oracle_priority_is_recorded_and_changes_what_is_learnt(data):
    few = data[0][:6]
    hyper = {"oracle": "dynamic", "epochs": 2, "seed": 1, **SMALL}
    paper, paper_log = train("covington-nm", few, **hyper)
    first, first_log = train("covington-nm", few, oracle_priority="monotonic", **hyper)
    assert paper.hyperparameters["oracle_priority"] == "none"  # the 2017 paper's configuration
    assert first.hyperparameters["oracle_priority"] == "monotonic"
    assert first_log["hyperparameters"]["oracle_priority"] == "monotonic"
    assert not np.array_equal(paper.weights.transition, first.weights.transition)
    eager, _ = train("arc-eager-nm", few, **hyper)
    assert eager.hyperparameters["oracle_priority"] == "monotonic"  # Honnibal et al. 2013, §6
    with pytest.raises(ValueError, match="priority"):
        train("arc-eager", few, oracle_priority="monotonic", **hyper)
    with pytest.raises(ValueError, match="priority"):
        train("covington-nm", few, oracle_priority="eventually", **hyper)


def test_bad_arguments(data):
    with pytest.raises(ValueError, match="oracle"):
        train("covington-nm", data[0][:2], oracle="psychic")
    with pytest.raises(ValueError, match="bound"):
        train("covington-nm", data[0][:2], oracle="dynamic", bound="sideways")


@pytest.mark.parametrize("option, message", [
    ({"transition_buckets": 1000}, "transition_buckets must be a power of two, not 1000"),
    ({"label_buckets": "many"}, "label_buckets must be a power of two, not 'many'"),
    ({"pseudo_projective": "heads"}, "unknown pseudo-projective encoding 'heads'"),
    ({"explore_p": 1.5}, "explore_p must be a probability (0 to 1), not 1.5"),
    ({"explore_from": -1}, "explore_from must be an epoch index (0 or more), not -1"),
    ({"variant_features": "yes"}, "variant_features must be true or false, not 'yes'"),
    ({"oracle_priority": "often"}, "oracle priority must be one of none, monotonic, not 'often'"),
    ({"model": "svm"}, "model must be one of perceptron, bilstm, not 'svm'"),
    ({"model": "bilstm", "neural": {"hiden": 50}}, "unknown neural option"),
    ({"model": "bilstm", "neural": {"dropout": 1.5}}, "dropout 1.5: use a rate in [0, 1)"),
    ({"model": "bilstm", "neural": {"batch_sentences": 0}},
     "neural batch_sentences must be at least 1, not 0"),
    ({"model": "bilstm", "neural": {"aggressive_p": 2}},
     "neural aggressive_p must be a probability (0 to 1), not 2"),
])
def test_every_option_value_is_checked_before_the_data_is_read(option, message):
    """`check_options`, which `train` runs first and a grid runs on each configuration
    (some of these were found only deep in training, after the data was read, or never)."""
    from arcwise.transition.train import check_options

    def unread():
        raise AssertionError("the training data was read")
        yield

    for call in (check_options, lambda system, **kw: train(system, unread(), **kw)):
        with pytest.raises((ValueError, ArcwiseError)) as error:
            call("covington-nm", oracle="dynamic", **option)
        assert message in str(error.value)


def test_model_file_that_does_not_fit_its_system_is_refused(trained, tmp_path):
    parser, _ = trained["arc-eager"]
    meta = parser.meta()
    meta["labels"] = meta["labels"][:-1]  # the weight columns no longer match the classes
    path = tmp_path / "bad.arcwise"
    modelfile.save(path, pc.to_arrays(parser.weights), meta)
    with pytest.raises(ArcwiseError, match="bad.arcwise"):
        Parser.load(path)


# --- pseudo-projective arc-eager ------------------------------------------------


@pytest.fixture(scope="module")
def pseudo_projective(data):
    """arc-eager (static) trained on projectivized trees: (parser, log, training sentences)."""
    train_sentences = data[0]
    if NO_JIT:  # a few sentences, two of them non-projective (EWT train 21 and 53)
        first = list(itertools.islice(conllu.read(DATA / "train.conllu.gz"), 54))
        train_sentences = first[:4] + [first[21], first[53]]
    parser, log = train("arc-eager", train_sentences, data[1], oracle="static", epochs=1,
                        seed=1, pseudo_projective="head", **SMALL)
    return parser, log, train_sentences


def raw_parser(parser):
    """The same model without deprojectivization: the labels it really predicts."""
    return Parser(parser.system, parser.vocabularies, parser.table, parser.classes,
                  parser.weights, parser.root_label)


def test_pseudo_projective_training_lifts_every_nonprojective_tree(pseudo_projective):
    parser, log, train_sentences = pseudo_projective
    nonprojective = [s for s in train_sentences if not is_projective(s.head)]
    assert nonprojective
    assert log["pseudo_projective"]["encoding"] == "head"
    assert log["pseudo_projective"]["trees"] == len(nonprojective)
    assert log["pseudo_projective"]["arcs"] >= sum(nonprojective_arcs(s.head).sum() > 0
                                                   for s in nonprojective)
    assert log["unbuildable"] == log["skipped"] == 0  # arc-eager builds projectivized trees
    assert log["hyperparameters"]["pseudo_projective"] == "head"
    assert parser.pseudo_projective == "head"
    original = {label for s in train_sentences for label in s.deprel[1:]}
    lifted = {label for label in parser.classes.labels if LIFTED in label}
    assert lifted and set(parser.classes.labels) == original | lifted


def test_pseudo_projective_output_is_deprojectivized(pseudo_projective, data):
    parser, _, train_sentences = pseudo_projective
    original = {label for s in train_sentences for label in s.deprel[1:]}
    sentences = train_sentences + data[1]
    raw = raw_parser(parser).parse(sentences)
    parsed = parser.parse(sentences)
    for (raw_head, raw_deprel), (head, deprel) in zip(raw, parsed):
        assert is_projective(raw_head)  # what arc-eager can build
        assert set(deprel[1:]) <= original
        assert is_well_formed(head)
        expected_head, expected_deprel = deprojectivize(raw_head, raw_deprel, "head")
        assert np.array_equal(head, expected_head) and deprel == expected_deprel
    if not NO_JIT:  # a model trained on lifted labels predicts some, and arcs move
        assert any(LIFTED in label for _, deprel in raw for label in deprel)
        assert any(not is_projective(head) for head, _ in parsed)


@pytest.mark.skipif(NO_JIT, reason="needs a model trained on a few hundred sentences")
def test_pseudo_projective_recovers_nonprojective_arcs(pseudo_projective):
    parser, _, train_sentences = pseudo_projective
    nonprojective = [s for s in train_sentences if not is_projective(s.head)]
    recovered = sum(
        int((nonprojective_arcs(s.head) & (head == s.head)).sum())
        for s, (head, _) in zip(nonprojective, parser.parse(nonprojective))
    )
    print(f"recovered {recovered} of "
          f"{sum(int(nonprojective_arcs(s.head).sum()) for s in nonprojective)} arcs")
    assert recovered > 0


def test_dev_scores_are_those_of_the_deprojectivized_output(pseudo_projective, data):
    parser, log, _ = pseudo_projective
    scores = score_parser(parser, data[1])
    assert scores.las == pytest.approx(log["epochs"][0]["dev_las"], abs=0.01)
    assert scores.sentences == len(data[1])  # scored against the original dev trees


def test_pseudo_projective_scheme_round_trips_through_the_model_file(pseudo_projective, data,
                                                                      tmp_path):
    parser, _, _ = pseudo_projective
    path = tmp_path / "pp.arcwise"
    parser.save(path)
    loaded = Parser.load(path)
    assert loaded.pseudo_projective == "head"
    assert modelfile.read_meta(path)["pseudo_projective"] == "head"
    for (h1, d1), (h2, d2) in zip(rounded(parser).parse(data[1]), loaded.parse(data[1])):
        assert np.array_equal(h1, h2) and d1 == d2
    meta = parser.meta()
    del meta["pseudo_projective"]  # a model file written before the option existed
    modelfile.save(tmp_path / "old.arcwise", pc.to_arrays(parser.weights), meta)
    assert Parser.load(tmp_path / "old.arcwise").pseudo_projective is None
    meta["pseudo_projective"] = "sideways"
    modelfile.save(tmp_path / "bad.arcwise", pc.to_arrays(parser.weights), meta)
    with pytest.raises(ArcwiseError, match="bad.arcwise.*sideways"):
        Parser.load(tmp_path / "bad.arcwise")


def test_bad_pseudo_projective_encoding_is_refused(data):
    with pytest.raises(ArcwiseError, match="encoding"):
        train("arc-eager", data[0][:2], oracle="static", pseudo_projective="sideways")


# --- single root ----------------------------------------------------------------


def test_single_rooted_keeps_the_first_root_made_by_a_transition():
    head = np.array([-1, 0, 1, 0, 0, 4], dtype=np.int32)
    deprel = ("<root>", "root", "det", "root", "obj", "case")
    made = np.array([False, False, True, True, True, True])  # 1 was left over by the parser
    new_head, new_deprel = single_rooted(head, deprel, made, "root", "parataxis")
    assert new_head.tolist() == [-1, 3, 1, 0, 3, 4]
    assert new_deprel == ("<root>", "parataxis", "det", "root", "obj", "case")
    assert head.tolist() == [-1, 0, 1, 0, 0, 4]  # the input is not changed
    # no root made by a transition: the leftmost root stays; no reattach label: labels stay
    new_head, new_deprel = single_rooted(head, deprel, np.zeros(6, dtype=bool), "root", None)
    assert new_head.tolist() == [-1, 0, 1, 1, 1, 4] and new_deprel == deprel


@pytest.mark.parametrize("name", SETUPS)
def test_single_root_output_has_one_root_and_changes_only_the_other_roots(name, trained, data):
    parser, _ = trained[name]
    dev = data[1]
    several = 0
    for (head, deprel), (one_head, one_deprel) in zip(parser.parse(dev, single_root=False),
                                                      parser.parse(dev)):  # one root: default
        assert is_well_formed(one_head) and (one_head[1:] == 0).sum() == 1
        roots = np.flatnonzero(head == 0)
        keep = int(np.flatnonzero(one_head == 0)[0])
        assert keep in roots and one_deprel[keep] == parser.root_label
        if len(roots) == 1:
            assert np.array_equal(head, one_head)
            assert one_deprel == (*deprel[:keep], parser.root_label, *deprel[keep + 1:])
            continue
        several += 1
        moved = head != one_head
        assert set(np.flatnonzero(moved)) == set(roots) - {keep}
        assert (one_head[moved] == keep).all()
        for d in np.flatnonzero(moved):
            expected = parser.reattach_label if deprel[d] == parser.root_label else deprel[d]
            assert one_deprel[d] == expected
    if not NO_JIT:
        assert several > 0  # a greedy parser trained on 300 sentences leaves some


def test_single_root_applies_after_deprojectivization(pseudo_projective, data):
    parser, _, _ = pseudo_projective
    for head, deprel in parser.parse(data[1], single_root=True):
        assert is_well_formed(head) and (head[1:] == 0).sum() == 1
        assert not any(LIFTED in label for label in deprel)


# --- parse_file -----------------------------------------------------------------


@pytest.fixture(scope="module")
def dev_file(data, tmp_path_factory):
    path = tmp_path_factory.mktemp("parse_file") / "dev.conllu"
    conllu.write(path, data[1])
    return path


@pytest.mark.parametrize("single_root", [False, True])
def test_parse_file_writes_the_parses_of_parse(trained, data, dev_file, tmp_path, single_root):
    parser, _ = trained["arc-eager"]
    out = tmp_path / "parsed.conllu"
    batches = []
    count = parser.parse_file(dev_file, out, single_root=single_root, progress=batches.append,
                              batch_sentences=3)
    assert count == len(data[1]) and sum(batches) == count and max(batches) == 3
    expected = tmp_path / "expected.conllu"
    conllu.write(expected, data[1], trees=parser.parse(data[1], single_root=single_root))
    assert out.read_bytes() == expected.read_bytes()
    gz = tmp_path / "parsed.conllu.gz"
    parser.parse_file(dev_file, gz, single_root=single_root)
    assert [s.lines for s in conllu.read(gz)] == [s.lines for s in conllu.read(out)]


def test_failed_parse_file_leaves_no_output(trained, data, dev_file, tmp_path):
    parser, _ = trained["arc-eager"]
    lines = dev_file.read_text().split("\n\n")
    assert len(lines) > 4
    bad = tmp_path / "bad.conllu"  # the fourth sentence has a bad HEAD
    words = lines[3].split("\n")
    k = next(i for i, line in enumerate(words) if line and not line.startswith("#"))
    columns = words[k].split("\t")
    columns[6] = "x"
    words[k] = "\t".join(columns)
    bad.write_text("\n\n".join(lines[:3] + ["\n".join(words)] + lines[4:]))
    out = tmp_path / "out.conllu"
    written = []
    with pytest.raises(InputError):
        parser.parse_file(bad, out, batch_sentences=2, progress=written.append)
    assert written == [2]  # the error came after the first batch was written
    assert not out.exists()
    out.write_text("old\n")
    with pytest.raises(InputError):
        parser.parse_file(bad, out, batch_sentences=2)
    assert out.read_text() == "old\n"

    def interrupt(_):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        parser.parse_file(dev_file, out, progress=interrupt, batch_sentences=2)
    assert out.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.conllu", "out.conllu"]


def test_arcs_added_by_a_nonmonotonic_reduce_are_labeled(data):
    # arc-eager-nm's REDUCE attaches a headless top to the word below it; that
    # arc needs a label like any other, not the fallback label of root words
    train_sentences, dev_sentences = data
    parser, _ = train("arc-eager-nm", train_sentences, dev_sentences, oracle="dynamic",
                      epochs=EPOCHS, seed=1, **SMALL)
    inner = [label for head, deprel in parser.parse(dev_sentences)
             for h, label in zip(head[1:], deprel[1:]) if h != 0]
    assert inner
    assert sum(label == parser.root_label for label in inner) / len(inner) < 0.02
