"""covington-nl and covington-nl-nm trained and parsed by the BiLSTM scorer, each candidate k
scored from its own row of positions (`arcwise.transition.candidates.CandidateRows`).

- The batched steps' decisions are the kernel's legal actions, each legal one gets a score
  (from the row of its k: the configuration with FOCUS = i_k), and following the oracle
  step rebuilds every gold tree.
- The batch loss is the hinge of the best right and best wrong decisions.
- It learns, its model files round-trip (with their candidate layout, refused when it
  differs), the same seed gives the same file, and `arcwise parse` output is valid UD.

Without JIT the same code runs on a few sentences for one epoch (the accuracy test is
skipped).
"""

import itertools
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

torch = pytest.importorskip("torch")

import arcwise
from arcwise import systems
from arcwise.core.errors import ArcwiseError
from arcwise.features.batch import Batch
from arcwise.learn import perceptron as pc
from arcwise.models import modelfile
from arcwise.systems import state as st
from arcwise.systems.base import Configuration, flat_gold
from arcwise.training.data import score_parser
from arcwise.transition import steps
from arcwise.transition.candidates import CandidateRows
from arcwise.transition.parser import ScorerParser
from arcwise.transition.stepped import Stepper
from arcwise.transition.train import train
from arcwise.trees.projectivity import is_well_formed
from tests.ewt import NO_JIT, compiled_only, train_and_dev
from tests.reference.random_trees import examples, trees
from tests.test_neural import address_word

SYSTEMS = ["covington-nl", "covington-nl-nm", "covington-nl+root"]
SETUPS = {"covington-nl:static": ("covington-nl", "static"),
          "covington-nl:dynamic": ("covington-nl", "dynamic"),
          "covington-nl-nm:dynamic": ("covington-nl-nm", "dynamic")}
TINY = {"word": 8, "suffix": 4, "shape": 4, "tag": 4, "lstm": 8, "hidden": 8, "threads": 1,
        "batch_sentences": 4, "features": "paper"}


@pytest.fixture(scope="module")
def data():
    return train_and_dev(8 if NO_JIT else 40, 4 if NO_JIT else 20)


def tiny_train(name, data, oracle="dynamic", seed=1, epochs=1, **options):
    return train(name, data[0], data[1], oracle=oracle, epochs=epochs, seed=seed,
                 model="bilstm", neural={**TINY, **options})


@pytest.fixture(scope="module")
def trained(data):
    return {name: tiny_train(system, data, oracle) for name, (system, oracle) in SETUPS.items()}


def gold_batch(golds):
    """A batch of random trees' words (all unknown) with label 1 on every arc."""
    offsets = np.cumsum([0] + [len(g) for g in golds])
    deprel = np.concatenate([[1] + [2] * (len(g) - 1) for g in golds]).astype(np.int32)
    return type("B", (), {"offsets": offsets, "words": np.zeros((offsets[-1], 9), np.int32),
                          "deprel": deprel, "guided": False, "forms": None})()


@settings(max_examples=examples(40), deadline=None)
@given(hs.lists(trees(max_words=7), min_size=1, max_size=4), hs.sampled_from(SYSTEMS),
       hs.booleans(), hs.integers(0, 2**16))
def test_every_legal_decision_is_scored_and_the_oracle_rebuilds_the_gold_trees(
        golds, name, dynamic, seed):
    """The steps' decisions are (action id, label); each legal one is scored from its
    candidate's row, whose words are those of the configuration with FOCUS = i_k; the
    oracle step's targets (static: forced) rebuild every gold tree: the scorer path
    derives every tree the system does."""
    ts = systems.get(name)
    labels = ["dep", "root"]
    classes = pc.ClassSet.for_system(ts.kernels, labels)
    batch = gold_batch(golds)
    scorer = type("S", (), {"addresses": ("L0", "L1", "R0", "L0.l", "CL")})()
    rng = np.random.default_rng(seed)
    stepper = Stepper(ts.kernels, classes, scorer, batch)
    decisions = stepper.decisions
    gold_flat, gold_offsets = flat_gold([ts.oracle.prepare(np.array(g, np.int32))
                                         for g in golds])
    gold_label = np.maximum(batch.deprel - 2, -1).astype(np.int32)
    while len(rows := stepper.running()):
        legal = stepper.legal(rows)
        candidates = stepper.positions(rows)
        assert isinstance(candidates, CandidateRows)
        kind_scores = rng.random((len(candidates.positions), classes.n_classes))
        scores = candidates.spread(kind_scores)
        for r, b in enumerate(rows):
            state = stepper.states[b][: st.state_size(stepper.sizes[b])]
            allowed = {ts.kernels.action_name(decisions.transition[d])
                       for d in np.flatnonzero(legal[r])}
            assert allowed == set(ts.legal(Configuration(state, ts)))
            assert np.isfinite(scores[r][legal[r]]).all()  # every legal decision is scored
            for p in range(candidates.first[r], candidates.first[r + 1]):
                view = state.copy()
                view[st.FOCUS] = state[st.FOCUS] - candidates.parameter[p] + 1
                expected = [address_word(ts.kernels.system_id, view, a)
                            for a in scorer.addresses]
                assert list(candidates.positions[p]) == [
                    batch.offsets[b] + w if w >= 0 else -1 for w in expected]
                k = candidates.parameter[p]
                made = set()
                for c in np.flatnonzero(candidates.column[p] >= 0):
                    d = candidates.column[p, c]
                    kind = classes.actions[classes.transition[c]]
                    action = ts.kernels.action_name(decisions.transition[d])
                    assert action == (kind if kind == "shift" else f"{kind}-{k}")
                    made.add(action)
                    assert decisions.label[d] == classes.label[c]
                    assert scores[r, d] == kind_scores[p, c]
                assert k == 1 or made & allowed  # a row per legal candidate only
        zero_cost = np.zeros_like(legal)
        predicted = steps.best_legal(scores, legal)
        target, follow = steps.oracle_step(
            ts.kernels.system_id, ts.oracle.variant, 0, dynamic, stepper.states, rows, legal,
            scores, predicted, gold_flat, gold_offsets, gold_label, batch.offsets,
            decisions.transition, decisions.label, decisions.first_class,
            decisions.takes_label, steps.FOLLOW_ORACLE, 0.0, 0.0, np.zeros((len(rows), 2)),
            zero_cost)
        assert (target >= 0).all() and (follow == target).all()
        stepper.apply(rows, follow)
    heads, _, _ = stepper.trees(0)
    for k, gold in enumerate(golds):
        built = heads[batch.offsets[k] : batch.offsets[k + 1]]
        assert list(built[1:]) == list(gold[1:])


def test_the_batch_loss_is_the_hinge_of_the_best_right_and_wrong_decisions(trained, data):
    """`learn` keeps, per configuration, the rows of its best right and best wrong
    decisions; `update`'s loss is the sum of max(0, 1 - best right + best wrong) over
    the decisions, divided by every scored configuration."""
    parser, _ = trained["covington-nl:dynamic"]
    scorer, ts = parser.scorer, systems.get("covington-nl")
    batch = Batch(data[1][:3], parser.vocabularies)
    context = scorer.encode(batch, train=False)  # no dropout: scores are repeatable
    context.train = True
    stepper = Stepper(ts.kernels, parser.classes, scorer, batch)
    rng = np.random.default_rng(0)
    expected, configurations = 0.0, 0
    for _ in range(4):
        rows = stepper.running()
        legal = stepper.legal(rows)
        scores = scorer.scores(context, stepper.states, rows, stepper.positions(rows), legal)
        zero_cost = legal & (rng.random(legal.shape) < 0.3)
        zero_cost[0] = False  # a configuration without a right decision learns nothing
        for r in range(1, len(rows)):
            right, wrong = zero_cost[r], legal[r] & ~zero_cost[r]
            if right.any() and wrong.any():
                expected += max(0.0, 1 - scores[r][right].max() + scores[r][wrong].max())
        scorer.learn(context, None, zero_cost, legal)
        configurations += len(rows)
        stepper.apply(rows, steps.best_legal(scores, legal))
    assert scorer.update(context) == pytest.approx(expected / configurations, rel=1e-5)


@compiled_only
@pytest.mark.parametrize("name", SETUPS)
def test_training_learns(name, data):
    system, oracle = SETUPS[name]
    parser, log = train(system, data[0], oracle=oracle, epochs=8, seed=1, model="bilstm",
                        neural={"word": 32, "lstm": 32, "hidden": 32, "threads": 1,
                                "batch_sentences": 4, "dropout": 0.0})  # 80 updates: fast
    scores = score_parser(parser, data[0])
    print(f"{name}: train UAS {scores.uas:.2f} LAS {scores.las:.2f}")
    # an untrained model scores ~5 (every word on the next)
    assert scores.uas > 20 and scores.las > 12
    assert log["epochs"][-1]["loss"] < log["epochs"][0]["loss"]
    if system == "covington-nl":  # n Shifts and an arc per word at most: <= 2n
        assert log["epochs"][0]["configurations"] <= 2 * sum(s.n for s in data[0])


@pytest.mark.parametrize("name", SETUPS)
def test_parses_save_and_load(name, trained, data, tmp_path):
    parser, log = trained[name]
    assert log["hyperparameters"]["model"] == "bilstm"
    before = parser.parse(data[1])
    for (head, _), sentence in zip(before, data[1]):
        assert is_well_formed(np.asarray(head, np.int32)) and len(head) == sentence.n + 1
    path = tmp_path / "m.arcwise"
    parser.save(path)
    loaded = arcwise.load(path).parser
    assert isinstance(loaded, ScorerParser) and loaded.system == parser.system
    assert loaded.classes.n_columns == 3  # shift, left-arc, right-arc: k is no class
    assert modelfile.read_meta(path)["candidates"]["row_of_k"] == "FOCUS = i_k"
    assert [(list(h), d) for h, d in loaded.parse(data[1])] == [(list(h), d) for h, d in before]
    for (h1, _), (h2, _, trace) in zip(before, loaded.parse(data[1], trace=True)):
        assert list(h1) == list(h2)
        assert all(name is None or parser.kernels.takes_label(parser.kernels.action_id(name))
                   for name in trace.transition[1:])


def test_the_candidate_layout_is_checked_on_load(trained):
    parser, _ = trained["covington-nl:static"]
    arrays, meta = parser.saved()
    ScorerParser.from_saved(arrays, meta, "m.arcwise")
    for layout in ({**meta["candidates"], "version": 0}, None):
        changed = {**meta, "candidates": layout}
        with pytest.raises(ArcwiseError, match="m.arcwise: the model scores covington-nl's "
                                               "candidates as"):
            ScorerParser.from_saved(arrays, changed, "m.arcwise")


def test_same_seed_gives_an_identical_model_file(trained, data, tmp_path):
    parser, _ = trained["covington-nl-nm:dynamic"]
    again, _ = tiny_train("covington-nl-nm", data)
    parser.save(tmp_path / "a.arcwise")
    again.save(tmp_path / "b.arcwise")
    assert (tmp_path / "a.arcwise").read_bytes() == (tmp_path / "b.arcwise").read_bytes()


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "arcwise", *map(str, args)],
                          capture_output=True, text=True, timeout=600, check=False)


@compiled_only
def test_cli_trains_and_parses_valid_ud(data, tmp_path):
    from tests.test_ud_validation import BIN, ud_tool

    treebank = tmp_path / "small.conllu"
    treebank.write_text("".join("\n".join(s.lines) + "\n\n" for s in data[0][:12]))
    model = tmp_path / "m.arcwise"
    done = run_cli("train", "--system", "covington-nl", "--model", "bilstm", "--oracle",
                   "dynamic", "--train", treebank, "--epochs", "1", "-o", model,
                   *itertools.chain.from_iterable(("--neural", f"{k}={v}")
                                                  for k, v in TINY.items()))
    assert done.returncode == 0, done.stderr
    parsed = tmp_path / "parsed.conllu"
    done = run_cli("parse", "-m", model, treebank, "-o", parsed)
    assert done.returncode == 0, done.stderr
    if (BIN / "udvalidate").exists():
        validated = ud_tool("udvalidate", "--lang", "en", "--level", "2", parsed)
        assert validated.returncode == 0, validated.stdout + validated.stderr
