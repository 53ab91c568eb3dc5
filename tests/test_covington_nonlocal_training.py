"""covington-nl trained and parsed by the perceptron, each candidate of k scored from
features of its own (`arcwise.transition.candidates`): it learns with either oracle, its
model files round-trip, every parse is a tree, and the compiled scores equal a plain-Python
scoring of Covington's configurations after k - 1 No-Arcs.

Without JIT the same code runs on a few sentences for one epoch (the accuracy test is
skipped)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import arcwise
from arcwise import systems
from arcwise.core.errors import InputError
from arcwise.features.hashing import bucket
from arcwise.features.templates import (
    compile_candidate_table,
    default_candidate_table,
    default_table,
)
from arcwise.features.words import WORD_COLUMNS
from arcwise.learn import perceptron as pc
from arcwise.systems import covington_nonlocal as nl
from arcwise.systems import ids
from arcwise.systems import state as st
from arcwise.systems.base import Configuration
from arcwise.training.data import score_parser
from arcwise.transition import candidates
from arcwise.transition.train import check_options, train
from arcwise.trees.projectivity import is_well_formed
from tests.ewt import NO_JIT, compiled_only, train_and_dev
from tests.reference import features_reference as ref
from tests.reference.random_trees import trees
from tests.rounded import rounded

N_TRAIN, N_DEV, EPOCHS = (6, 4, 1) if NO_JIT else (300, 200, 2)
SMALL = {"transition_buckets": 2**18, "label_buckets": 2**14}
SETUPS = {
    "covington-nl:static": ("covington-nl", "static"),
    "covington-nl:dynamic": ("covington-nl", "dynamic"),
    "covington-nl-nm:dynamic": ("covington-nl-nm", "dynamic"),
}


@pytest.fixture(scope="module")
def data():
    return train_and_dev(N_TRAIN, N_DEV)


@pytest.fixture(scope="module")
def trained(data):
    train_sentences, dev_sentences = data
    return {name: train(system, train_sentences, dev_sentences, oracle=oracle, epochs=EPOCHS,
                        seed=1, **SMALL)
            for name, (system, oracle) in SETUPS.items()}


@compiled_only
@pytest.mark.parametrize("name", SETUPS)
def test_training_learns(name, trained, data):
    parser, log = trained[name]
    scores = score_parser(parser, data[1])
    print(f"{name}: dev UAS {scores.uas:.2f} LAS {scores.las:.2f}")
    # attaching every word to the next one (the better trivial baseline on EWT) scores ~30
    assert scores.uas > 60 and scores.las > 50
    assert log["epochs"][-1]["updates"] < log["epochs"][0]["updates"]
    if name.startswith("covington-nl:"):  # n Shifts and an arc per word at most: <= 2n
        assert log["epochs"][0]["configurations"] <= 2 * sum(s.n for s in data[0])


@pytest.mark.parametrize("name", SETUPS)
def test_every_sentence_parses_to_a_tree(name, trained, data):
    parser, _ = trained[name]
    dev = data[1]
    trees_ = parser.parse(dev, single_root=False)
    assert len(trees_) == len(dev)
    for sentence, (head, deprel) in zip(dev, trees_):
        assert head.shape == (sentence.n + 1,) and is_well_formed(head)
        assert len(deprel) == sentence.n + 1 and set(deprel[1:]) <= set(parser.classes.labels)


def test_model_file_round_trip(trained, data, tmp_path):
    parser, _ = trained["covington-nl:dynamic"]
    path = tmp_path / "model.arcwise"
    parser.save(path)
    loaded = arcwise.load(path).parser
    assert loaded.system == "covington-nl" and loaded.classes == parser.classes
    assert loaded.classes.n_columns == 3  # shift, left-arc, right-arc: k is no class
    assert loaded.candidate_table.text == parser.candidate_table.text
    saved, reloaded = pc.to_arrays(parser.weights), pc.to_arrays(loaded.weights)
    assert all(np.array_equal(saved[name], reloaded[name]) for name in saved)
    dev = data[1]
    assert [(h.tolist(), d) for h, d in rounded(parser).parse(dev)] == \
        [(h.tolist(), d) for h, d in loaded.parse(dev)]
    loaded.save(tmp_path / "again.arcwise")  # deterministic bytes
    assert (tmp_path / "again.arcwise").read_bytes() == path.read_bytes()


def test_trace_names_the_k_of_each_arc(trained, data):
    parser, _ = trained["covington-nl:static"]
    kernels = parser.kernels
    for (head, _), (traced_head, _, trace) in zip(parser.parse(data[1]),
                                                  parser.parse(data[1], trace=True)):
        assert np.array_equal(head, traced_head)
        for d, name in enumerate(trace.transition[1:], start=1):
            if name is not None:  # left-arc-3 built an arc of the word three back, ...
                assert kernels.takes_label(kernels.action_id(name))


def test_same_seed_gives_identical_weights(trained, data):
    parser, _ = trained["covington-nl:dynamic"]
    again, _ = train("covington-nl", data[0], data[1], oracle="dynamic", epochs=EPOCHS, seed=1,
                     **SMALL)
    assert np.array_equal(parser.weights.transition, again.weights.transition)
    assert np.array_equal(parser.weights.label, again.weights.label)


def test_the_stepped_perceptron_is_refused_the_bilstm_taken():
    """The perceptron scores the candidates in its fused loops, the BiLSTM in the stepped
    path (tests/test_covington_nonlocal_bilstm.py)."""
    with pytest.raises(ValueError, match="candidates in its fused loops"):
        check_options("covington-nl-nm", stepped_batch=8)
    check_options("covington-nl", oracle="static")
    check_options("covington-nl", model="bilstm", neural={"features": "paper"})


@pytest.mark.parametrize("line, word", [("L0.l.p", "may not read l"), ("CL.p", "may not read CL"),
                                        ("L0.pv_l", "may not read v_l"),
                                        ("R0.h.r'.w", "may not read r'"),
                                        ("R0.hr", "may not read R0.hr"),
                                        ("L0.p + IL.l", "may not read IL.l"),
                                        ("L0.h.l", "may not read L0.h.l"),
                                        ("L1.h2.p", "may not read L1.h2")])
def test_a_candidate_table_reads_no_scan_and_nothing_j_changes(line, word):
    with pytest.raises(InputError, match=word):
        compile_candidate_table(f"L0.p\n{line}", "covington-nl")
    with pytest.raises(InputError, match="@label"):
        compile_candidate_table("L0.p @label", "covington-nl")
    assert default_candidate_table("covington") is None


def test_update_moves_each_class_by_its_own_features():
    classes = pc.ClassSet.for_system(systems.get("covington-nl").kernels, ["a", "b"])
    model = pc.AveragedPerceptron(classes, 2**10, 2**10)
    gold, predicted = np.array([5, 6], dtype=np.uint64), np.array([7], dtype=np.uint64)
    pc.update_transitions(model.weights, model.totals, gold, nl.LEFT_ARC, predicted, nl.SHIFT, 3)
    w, u = model.weights.transition, model.totals.transition
    for f in (5, 6):
        assert w[bucket(np.uint64(f), 2**10), nl.LEFT_ARC] == 1
        assert u[bucket(np.uint64(f), 2**10), nl.LEFT_ARC] == 3
    assert w[bucket(np.uint64(7), 2**10), nl.SHIFT] == -1
    assert w.sum() == 1 and np.count_nonzero(w) == 3


# --- the compiled candidate scores against plain Python -------------------------------


def reference_scores(ts, state, table, candidate_table, weights, columns):
    """{action id: score} of every legal action, and the labeler's label of each arc: from
    Covington's configuration after k - 1 No-Arcs (FOCUS = i_k), its features computed by
    the plain-Python extractor, summed over weights as the definition says."""
    covington = systems.get("covington+root" if ts.name.endswith("+root") else "covington")
    mask = np.zeros(ts.kernels.action_count(int(state[st.N])), dtype=np.bool_)
    ts.kernels.legal(state, mask)
    rows_t, rows_l = weights.transition.shape[0], weights.label.shape[0]

    def summed(table_, column, hashes, rows):
        return sum(float(table_[bucket(np.uint64(h), rows), column]) for h in hashes)

    scores, labels, views = {}, {}, {}
    for a in np.flatnonzero(mask).tolist():
        focus = int(state[st.FOCUS]) if a == nl.SHIFT else int(nl.attached(state, a))
        if focus not in views:  # Covington's configuration with i_k as its focus
            view = state.copy()
            view[st.FOCUS] = focus
            c = Configuration(view, covington)
            views[focus] = (ref.features(c, table.templates, columns),
                            ref.features(c, candidate_table.templates, columns))
        full, candidate = views[focus]
        kind = nl.kind(a)
        hashes = full if a <= nl.RIGHT_ARC else candidate
        scores[a] = summed(weights.transition, kind, hashes, rows_t) * weights.transition_scale
        if kind != nl.SHIFT:
            arc = kind - nl.LEFT_ARC
            label_hashes = [full[t] for t in table.program.label_templates]
            by_label = [summed(weights.label, arc * weights.n_labels + label, label_hashes,
                               rows_l) for label in range(weights.n_labels)]
            labels[a] = int(np.argmax(by_label))
    return scores, labels


@pytest.mark.parametrize("system", ["covington-nl", "covington-nl+root", "covington-nl-nm"])
@settings(max_examples=8 if NO_JIT else 20, deadline=None)
@given(gold=trees(2, 9), seed=hs.integers(0, 2**32 - 1), learning=hs.booleans())
def test_candidate_scores_equal_plain_python(system, gold, seed, learning):
    """At a configuration reached by random actions, the candidates' features kept since
    their j became the buffer front (learning: not their sums) as if computed afresh."""
    ts = systems.get(system)
    system_id = ids.system_id(system)
    rng = np.random.default_rng(seed)
    n, n_labels = len(gold) - 1, 3
    columns = {name: rng.integers(0, 6, n + 1).astype(np.int32) for name in WORD_COLUMNS}
    columns["guide_head"][:] = -1
    words = np.ascontiguousarray(np.stack([columns[name] for name in WORD_COLUMNS], axis=1))
    table, candidate_table = default_table(system), default_candidate_table(system)
    weights = pc.Weights(rng.normal(size=(2**6, 3)).astype(np.float32),
                         rng.normal(size=(2**6, 2 * n_labels)).astype(np.float32), n_labels)
    programs = candidate_table.program
    work = candidates.work_arrays(system_id, table.program, programs, n)

    def decide(c):
        return candidates.best_decision(system_id, c.state.copy(), table.program, programs,
                                        weights, words, work, learning)

    c = ts.initial(n)
    for _ in range(rng.integers(0, 2 * n)):
        legal = ts.legal(c)
        if not legal:
            break
        decide(c)
        c = ts.apply(c, legal[rng.integers(len(legal))], int(rng.integers(0, n_labels)))
    if ts.is_terminal(c):
        return
    state = c.state.copy()
    action, label = candidates.best_decision(system_id, state, table.program, programs,
                                             weights, words, work, learning)
    assert np.array_equal(state, c.state)  # the views are undone
    expected, labels = reference_scores(ts, state, table, candidate_table, weights, columns)
    legal = np.flatnonzero(work.mask).tolist()
    assert legal == sorted(expected)
    assert work.scores[legal].tolist() == pytest.approx([expected[a] for a in legal],
                                                        rel=1e-9, abs=1e-9)
    assert np.isneginf(np.delete(work.scores, legal)).all()
    assert action == max(expected, key=lambda a: (expected[a], -a))
    assert label == labels.get(action, -1)
