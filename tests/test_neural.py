"""The stepped seam (`arcwise.transition.steps`, `arcwise.transition.stepped`) and the BiLSTM scorer.

- Batched steps agree with the one-configuration kernels: the legal classes are
  the kernel's, and following the oracle step's target from the initial
  configurations of many random trees at once builds every gold tree the system
  can build (static and dynamic oracles), whatever the scores that choose among
  zero-cost classes.
- A BiLSTM parser trains with every transition system and both oracles, parses
  to well-formed trees, saves to a model file without pickles and loads back to
  the same parses; the same seed gives the same weights; it learns (compiled).
"""

import itertools
import subprocess
import sys
import zipfile

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

torch = pytest.importorskip("torch")

import arcwise  # noqa: E402
from arcwise import systems  # noqa: E402
from arcwise.core.errors import ArcwiseError  # noqa: E402
from arcwise.features.addresses import BASE_NAMES, N_BASES, base_positions
from arcwise.features.templates import neural_addresses
from arcwise.learn import perceptron as pc  # noqa: E402
from arcwise.models import modelfile  # noqa: E402
from arcwise.systems import state as st  # noqa: E402
from arcwise.systems.base import (
    Configuration,  # noqa: E402
    flat_gold,  # noqa: E402
)
from arcwise.training.data import score_parser
from arcwise.transition import steps
from arcwise.transition.parser import ScorerParser
from arcwise.transition.stepped import Stepper  # noqa: E402
from arcwise.transition.train import train  # noqa: E402
from arcwise.trees.projectivity import is_well_formed  # noqa: E402
from tests.ewt import NO_JIT, train_and_dev  # noqa: E402
from tests.reference.random_trees import examples, trees  # noqa: E402
from tests.rounded import rounded

SYSTEMS = ["arc-eager", "arc-eager+lba", "arc-eager-nm", "arc-hybrid", "arc-hybrid+swap",
           "covington", "covington-nm", "two-planar"]
TINY = {"word": 8, "suffix": 4, "shape": 4, "tag": 4, "lstm": 8, "hidden": 8, "threads": 1,
        "batch_sentences": 4}


class RandomScorer:
    """A scorer of random numbers: which zero-cost class the oracle step picks is arbitrary;
    it reads the words of the system's "paper" feature set."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def scores(self, rows):
        return self.rng.random((len(rows), self.n_classes))


@settings(max_examples=examples(60), deadline=None)
@given(hs.lists(trees(max_words=7), min_size=1, max_size=5), hs.sampled_from(SYSTEMS),
       hs.booleans(), hs.integers(0, 2**16))
def test_following_the_oracle_step_builds_the_gold_trees(golds, name, dynamic, seed):
    ts = systems.get(name)
    buildable = [ts.can_build(g) for g in golds]
    if not dynamic:
        golds = [g for g, ok in zip(golds, buildable) if ok]
        if not golds:
            return
    labels = ["dep", "root"]
    classes = pc.ClassSet.for_system(ts.kernels, labels)
    offsets = np.cumsum([0] + [len(g) for g in golds])
    deprel = np.concatenate([[1] + [2] * (len(g) - 1) for g in golds]).astype(np.int32)
    batch = type("B", (), {"offsets": offsets, "words": np.zeros((offsets[-1], 9), np.int32),
                           "deprel": deprel, "guided": False})()
    scorer = RandomScorer(seed)
    scorer.n_classes = classes.n_classes
    scorer.addresses = neural_addresses(name, "paper")
    stepper = Stepper(ts.kernels, classes, scorer, batch)
    gold_flat, gold_offsets = flat_gold([ts.oracle.prepare(np.array(g, np.int32)) for g in golds])
    gold_label = np.maximum(deprel - 2, -1).astype(np.int32)
    while len(rows := stepper.running()):
        legal = stepper.legal(rows)
        for r, b in enumerate(rows):  # the batched legal classes are the kernel's
            allowed = {ts.kernels.actions[classes.transition[c]]
                       for c in np.flatnonzero(legal[r])}
            state = stepper.states[b][: st.state_size(stepper.sizes[b])]
            assert allowed == set(ts.legal(Configuration(state, ts)))
        positions = stepper.positions(rows)  # the words a neural scorer reads, as brute force
        for r, b in enumerate(rows):
            state = stepper.states[b][: st.state_size(stepper.sizes[b])]
            expected = [address_word(ts.kernels.system_id, state, a)
                        for a in scorer.addresses]
            assert list(positions[r]) == [offsets[b] + w if w >= 0 else -1 for w in expected]
        zero_cost = np.zeros_like(legal)
        scores = scorer.scores(rows)
        target, follow = steps.oracle_step(
            ts.kernels.system_id, ts.oracle.variant, 0, dynamic, stepper.states, rows, legal,
            scores, steps.best_legal(scores, legal), gold_flat, gold_offsets, gold_label, offsets,
            classes.transition, classes.label, classes.first_class, classes.takes_label,
            steps.FOLLOW_ORACLE, 0.0, 0.0, np.zeros((len(rows), 2)), zero_cost)
        assert (target >= 0).all() and (follow == target).all()
        assert zero_cost[np.arange(len(rows)), target].all()
        stepper.apply(rows, follow)
    heads, _, _ = stepper.trees(0)
    for k, gold in enumerate(golds):
        built = heads[offsets[k] : offsets[k + 1]]
        assert is_well_formed(built)
        if ts.can_build(gold):
            assert list(built[1:]) == list(gold[1:])


def address_word(system_id, state, address):
    """The word at an address (a base position, then moves h, l, r) by brute force."""
    bases = np.full(N_BASES, -1, dtype=np.int64)
    base_positions(system_id, state, bases)
    name, *moves = address.split(".")
    word = int(bases[BASE_NAMES.index(name)])
    n = int(state[st.N])
    for move in moves:
        if word < 0:
            break
        if move == "h":
            word = int(st.head_of(state, word))
        else:
            left = move == "l"
            dependents = [d for d in range(1, n + 1) if st.head_of(state, d) == word
                          and (d < word if left else d > word)]
            word = (min(dependents) if left else max(dependents)) if dependents else -1
    return word


@pytest.fixture(scope="module")
def data():
    return train_and_dev(8 if NO_JIT else 40, 4 if NO_JIT else 20)


def tiny_train(name, data, oracle="dynamic", seed=1, epochs=1, **options):
    return train(name, data[0], data[1], oracle=oracle, epochs=epochs, seed=seed,
                 model="bilstm", neural={**TINY, **options})


@pytest.mark.parametrize("name,oracle", [(s, o) for s in SYSTEMS for o in ("static", "dynamic")])
def test_bilstm_trains_parses_saves_and_loads(name, oracle, data, tmp_path):
    parser, log = tiny_train(name, data, oracle)
    assert log["hyperparameters"]["model"] == "bilstm" and len(log["epochs"]) == 1
    trees_before = parser.parse(data[1])
    for (head, deprel), sentence in zip(trees_before, data[1]):
        assert is_well_formed(np.asarray(head, np.int32)) and len(head) == sentence.n + 1
        assert sum(h == 0 for h in head[1:]) == 1
    path = tmp_path / "m.arcwise"
    parser.save(path)
    loaded = arcwise.load(path).parser
    assert isinstance(loaded, ScorerParser) and loaded.system == name
    for (h1, d1), (h2, d2) in zip(trees_before, loaded.parse(data[1])):
        assert list(h1) == list(h2) and d1 == d2


@pytest.mark.parametrize("name", ["two-planar", "arc-hybrid+swap", "arc-eager", "covington-nm"])
def test_the_paper_feature_set_trains_and_travels_in_the_model_file(name, data, tmp_path):
    """--neural features=paper: the 2018 paper's words (§4.2; Kiperwasser & Goldberg's set
    for arc-eager and Covington), with the stack words' dependents; the network reads one
    vector per address, and the model file keeps the set."""
    parser, log = tiny_train(name, data, features="paper")
    addresses = neural_addresses(name, "paper")
    assert any("." in a for a in addresses)  # dependents, not only base positions
    assert parser.scorer.addresses == addresses
    assert log["hyperparameters"]["features"] == "paper"
    first = parser.scorer.network.transition[0]
    assert first.in_features == len(addresses) * parser.scorer.network.width
    path = tmp_path / "m.arcwise"
    parser.save(path)
    loaded = arcwise.load(path).parser
    assert loaded.scorer.addresses == addresses and loaded.scorer.features == "paper"
    assert ([list(h) for h, _ in loaded.parse(data[1])]
            == [list(h) for h, _ in parser.parse(data[1])])


def test_the_defaults_are_the_paper_features_with_dropout(data):
    """--model bilstm alone: the paper's feature set and dropout 0.33, the configuration that
    beat the perceptron where nobody tuned (#42 item 6, bench/RESULTS.md "neural-defaults");
    the log records both."""
    parser, log = train("two-planar", data[0], data[1], epochs=1, seed=1, model="bilstm",
                        neural={"threads": 1})
    assert log["hyperparameters"]["features"] == "paper"
    assert parser.scorer.addresses == neural_addresses("two-planar", "paper")
    assert log["hyperparameters"]["sizes"]["dropout"] == 0.33
    assert parser.scorer.network.encoder.dropout.p == 0.33


def test_neural_features_by_name_or_addresses_and_refused_in_one_line(tmp_path):
    assert neural_addresses("two-planar", "S0, T0.l B0") == ("S0", "T0.l", "B0")
    with pytest.raises(ValueError, match="did you mean paper"):
        neural_addresses("two-planar", "papr")
    with pytest.raises(ValueError, match="T0 is not a base position of this system"):
        neural_addresses("arc-hybrid", "S0 T0")
    with pytest.raises(ValueError, match="unknown move 'x'"):
        neural_addresses("arc-hybrid", "S0.x")
    train_file = tmp_path / "t.conllu"
    train_file.write_text("1\ta\ta\tX\tX\t_\t0\troot\t_\t_\n\n")
    done = subprocess.run(
        [sys.executable, "-m", "arcwise", "train", "--system", "arc-hybrid", "--model", "bilstm",
         "--train", str(train_file), "-o", str(tmp_path / "m"), "--neural", "features=papr"],
        capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "features=papr" in done.stderr and "did you mean paper" in done.stderr


def test_a_model_file_from_before_feature_sets_still_loads(data):
    """Model files written before feature sets name their words "bases"."""
    parser, _ = tiny_train("arc-hybrid", data)
    arrays, meta = parser.saved()
    meta["scorer"]["bases"] = meta["scorer"].pop("addresses")
    del meta["scorer"]["features"]
    loaded = ScorerParser.from_saved(arrays, meta, "old.arcwise")
    assert loaded.scorer.addresses == parser.scorer.addresses


def test_the_batch_loss_is_the_hinge_of_every_learned_configuration(data):
    """`learn` keeps configurations, `update` scores them again in one go: its loss is the
    sum over them of max(0, 1 - best right score + best wrong score) over every scored
    configuration, rows without a right or a wrong class adding nothing but their count."""
    from arcwise.features.batch import Batch

    parser = tiny_train("arc-eager", data)[0]
    scorer, batch = parser.scorer, Batch(data[1][:3], parser.vocabularies)
    context = scorer.encode(batch, train=False)  # no dropout: scores are repeatable
    context.train = True
    rng = np.random.default_rng(0)
    n_classes = len(scorer.column_of_class)
    expected = 0.0
    for rows in (5, 3):
        positions = rng.integers(-1, len(batch.words), (rows, len(scorer.addresses)))
        legal = rng.random((rows, n_classes)) < 0.7
        zero_cost = legal & (rng.random((rows, n_classes)) < 0.3)
        zero_cost[0] = False  # a row without a right class learns nothing
        scores = scorer.scores(context, None, np.arange(rows), positions, legal)
        for k in range(1, rows):
            right, wrong = zero_cost[k], legal[k] & ~zero_cost[k]
            if right.any() and wrong.any():
                expected += max(0.0, 1 - scores[k][right].max() + scores[k][wrong].max())
        scorer.learn(context, None, zero_cost, legal)
    assert scorer.update(context) == pytest.approx(expected / 8, rel=1e-5)


def test_same_seed_same_weights_other_seed_other(data):
    a = tiny_train("arc-hybrid", data, seed=3)[0].scorer.arrays()
    b = tiny_train("arc-hybrid", data, seed=3)[0].scorer.arrays()
    c = tiny_train("arc-hybrid", data, seed=4)[0].scorer.arrays()
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert not all(np.array_equal(a[k], c[k]) for k in a)


def test_model_file_holds_no_pickle_and_a_bad_array_is_refused(data, tmp_path):
    parser, _ = tiny_train("two-planar", data)
    path = tmp_path / "m.arcwise"
    parser.save(path)
    with np.load(path, allow_pickle=False) as npz:  # plain numeric arrays
        assert all(npz[k].dtype.kind == "f" for k in npz.files if k != "meta.json")
    assert modelfile.read_meta(path)["model"] == "bilstm"
    arrays, meta = modelfile.load(path)
    name = next(k for k in arrays if k.startswith("net__transition"))
    arrays[name] = arrays[name][:1]
    modelfile.save(tmp_path / "bad.arcwise", arrays, {k: v for k, v in meta.items()
                                                     if k not in modelfile._ADDED_META})
    with pytest.raises(ArcwiseError, match="bad.arcwise: corrupt model file"):
        arcwise.load(tmp_path / "bad.arcwise")
    with zipfile.ZipFile(path) as zf:
        assert not any(n.endswith(".pkl") for n in zf.namelist())


@pytest.mark.skipif(NO_JIT, reason="learning to a useful accuracy needs the compiled steps")
def test_bilstm_learns():
    train_sentences, dev = train_and_dev(300, 100)
    parser, log = train("arc-eager", train_sentences, dev, oracle="static", epochs=3, seed=1,
                        model="bilstm", neural={"word": 32, "lstm": 32, "hidden": 32,
                                                "threads": 1, "batch_sentences": 4})
    scores = score_parser(parser, dev)
    assert log["epochs"][-1]["loss"] < log["epochs"][0]["loss"]
    assert scores.uas > 50 and scores.las > 35


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "arcwise", *map(str, args)],
                          capture_output=True, text=True, timeout=600)


@pytest.mark.skipif(NO_JIT, reason="the compiled run covers the command line (30 s uncompiled)")
def test_cli_trains_and_parses_a_bilstm_model(tmp_path):
    treebank = tmp_path / "small.conllu"
    sentences = train_and_dev(6, 0)[0]
    treebank.write_text("".join("\n".join(s.lines) + "\n\n" for s in sentences))
    model = tmp_path / "m.arcwise"
    done = run_cli("train", "--system", "arc-hybrid", "--model", "bilstm", "--train", treebank,
                   "--epochs", "1", "-o", model,
                   *itertools.chain.from_iterable(("--neural", f"{k}={v}") for k, v in TINY.items()))
    assert done.returncode == 0, done.stderr
    parsed = run_cli("parse", "-m", model, treebank)
    assert parsed.returncode == 0 and parsed.stdout.count("\n\n") == len(sentences)
    refused = run_cli("train", "--system", "arc-hybrid", "--neural", "lstm=4", "--train",
                      treebank, "-o", tmp_path / "p.arcwise")
    assert refused.returncode == 2 and "--neural applies to --model bilstm" in refused.stderr


def test_biaffine_trains_decodes_one_root_trees_saves_and_loads(data, tmp_path):
    from arcwise.graph.biaffine_parser import BiaffineParser, train_biaffine

    for decoder in ("projective", "non-projective"):
        parser, log = train_biaffine(data[0], data[1], decoder=decoder, epochs=1, seed=1,
                                     neural={**TINY, "arc": 8, "label": 4})
        assert log["hyperparameters"]["model"] == "biaffine" and log["best_epoch"] == 1
        trees = parser.parse(data[1])
        for (head, _), sentence in zip(trees, data[1]):
            head = np.asarray(head, np.int32)
            assert is_well_formed(head) and len(head) == sentence.n + 1
            assert (head[1:] == 0).sum() == 1
            if decoder == "projective":
                from arcwise.trees.projectivity import is_projective

                assert is_projective(head)
        path = tmp_path / f"{decoder}.arcwise"
        parser.save(path)
        loaded = arcwise.load(path).parser
        assert isinstance(loaded, BiaffineParser) and loaded.decoder == decoder
        assert all(list(a[0]) == list(b[0]) and a[1] == b[1]
                   for a, b in zip(trees, loaded.parse(data[1])))
        # parsed in batches of similar lengths, returned in the input's order
        alone = [parser.parse(s) for s in data[1][:6]]
        assert all(list(a[0]) == list(b[0]) and a[1] == b[1] for a, b in zip(trees, alone))


@pytest.mark.end_to_end  # five command lines, each importing torch
@pytest.mark.neural
@pytest.mark.skipif(NO_JIT, reason="the compiled run covers the command line")
def test_cli_trains_a_biaffine_parser_and_refuses_linear_options(tmp_path):
    treebank = tmp_path / "small.conllu"
    sentences = train_and_dev(6, 0)[0]
    treebank.write_text("".join("\n".join(s.lines) + "\n\n" for s in sentences))
    model = tmp_path / "b.arcwise"
    sizes = ("--neural", "lstm=8", "--neural", "word=8", "--neural", "arc=8", "--neural", "label=4")
    done = run_cli("train", "--system", "mst", "--model", "biaffine", "--train", treebank,
                   "--epochs", "1", "-o", model, *sizes)
    assert done.returncode == 0, done.stderr
    parsed = run_cli("parse", "-m", model, treebank)
    assert parsed.returncode == 0 and parsed.stdout.count("\n\n") == len(sentences)
    for args in (("--order", "2"), ("--system", "arc-eager")):
        refused = run_cli("train", "--system", "mst", "--model", "biaffine", "--train", treebank,
                          "-o", tmp_path / "x.arcwise", *args)
        assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    # stacking: the biaffine parser guided by the one just trained, in one model file
    stacked = tmp_path / "stacked.arcwise"
    done = run_cli("train", "--system", "mst", "--model", "biaffine", "--train", treebank,
                   "--epochs", "1", "--guide", model, "--guide-folds", "2", "-o", stacked, *sizes)
    assert done.returncode == 0, done.stderr
    assert "fold 2/2" in done.stderr
    loaded = arcwise.load(stacked).parser
    assert loaded.guided_model.kind == "biaffine" and loaded.guide.kind == "biaffine"
    parsed = run_cli("parse", "-m", stacked, treebank)
    assert parsed.returncode == 0 and parsed.stdout.count("\n\n") == len(sentences)


def test_bilstm_trace_records_the_transitions(data):
    """A traced parse gives the same trees, and every arc a transition made names one of
    the system's actions."""
    parser, _ = tiny_train("covington-nm", data)
    plain = parser.parse(data[1])
    traced = parser.parse(data[1], trace=True)
    actions = set(systems.get("covington-nm").actions)
    named = 0
    for (h1, d1), (h2, d2, trace) in zip(plain, traced):
        assert list(h1) == list(h2) and d1 == d2
        for d in range(1, len(h2)):
            assert trace.transition[d] is None or trace.transition[d] in actions
            named += trace.transition[d] is not None
    assert named > 0


def test_a_bilstm_guide_is_jackknifed_and_travels_in_the_guided_model(data, tmp_path):
    """Stacking with a neural guide: the guide is retrained on the other folds with its own
    options, and the guided model file carries it back whole."""
    from arcwise.combination.stacking import GuidedParser, retrain, train_guided

    guide, _ = tiny_train("arc-hybrid", data)
    again = retrain(guide, data[0])
    assert isinstance(again, ScorerParser) and again.hyperparameters["sizes"] == \
        guide.hyperparameters["sizes"]
    guided, _ = train_guided("arc-eager", data[0], data[1], guide, folds=2, epochs=1, seed=1,
                             transition_buckets=2**12, label_buckets=2**10)
    path = tmp_path / "guided.arcwise"
    guided.save(path)
    loaded = arcwise.load(path).parser
    assert isinstance(loaded, GuidedParser) and isinstance(loaded.guide, ScorerParser)
    assert [list(h) for h, _ in loaded.parse(data[1])] == \
        [list(h) for h, _ in rounded(guided).parse(data[1])]  # the file's int8 perceptron


def test_neural_parsers_take_the_pipeline_text_api(data):
    """A BiLSTM or biaffine parser is a one-stage pipeline too: nlp(words) gives a Document."""
    from arcwise.graph.biaffine_parser import train_biaffine
    from arcwise.pipeline.pipeline import Pipeline

    sentence = data[1][0]  # a tagged Sentence: these parsers learned from tags
    for parser in (tiny_train("arc-eager", data)[0],
                   train_biaffine(data[0], None, epochs=1, neural={**TINY, "arc": 8})[0]):
        (parsed,) = Pipeline.of(parser)([sentence]).sentences
        assert [w.form for w in parsed.words] == list(sentence.form[1:])
        assert sum(w.head == 0 for w in parsed.words) == 1


def test_precomputed_first_layers_equal_the_concatenated_mlps():
    """Chen & Manning's pre-computation gives the scores of the MLPs over the concatenated
    BiLSTM vectors of the bases, up to float rounding."""
    import torch

    from arcwise.learn.neural import Sizes
    from arcwise.transition.scorers.bilstm import Network

    torch.manual_seed(0)
    sizes = Sizes(word=8, suffix=4, shape=4, tag=4, lstm=6, layers=1, hidden=7)
    network = Network([20] * 6, 3, 5, 9, sizes)
    vectors = torch.randn(11, network.width)
    index = torch.tensor([[0, 10, 3], [4, 4, 10], [7, 1, 2]])
    concatenated = vectors[index].reshape(3, -1)
    transition, label = network.mlp_scores(network.first_layers(vectors), index)
    assert torch.allclose(transition, network.transition(concatenated), atol=1e-5)
    assert torch.allclose(label, network.label(concatenated), atol=1e-5)


@settings(max_examples=examples(20), deadline=None)
@given(hs.lists(hs.integers(1, 9), min_size=1, max_size=7), hs.integers(0, 2**16))
def test_the_encoder_packs_words_as_pack_padded_sequence_does(lengths, seed):
    """The encoder packs a batch's words straight from their rows (no padded copy): the
    BiLSTM's vectors are exactly those of padding, `pack_padded_sequence` and unpadding;
    `padded` lays rows out by (sentence, position)."""
    import torch
    from torch import nn

    from arcwise.learn.neural import EncoderInputs, packed

    torch.manual_seed(seed)
    sizes = np.array(lengths)
    sentence = np.repeat(np.arange(len(sizes)), sizes)
    where = np.concatenate([np.arange(s) for s in sizes])
    inputs = EncoderInputs(None, torch.from_numpy(sizes), sentence, where, None)
    rows = torch.randn(int(sizes.sum()), 5)
    lstm = nn.LSTM(5, 3, num_layers=2, bidirectional=True, batch_first=True)
    sequences, row = packed(rows, inputs)
    direct = lstm(sequences)[0].data[row]
    padded = inputs.padded(rows)
    assert padded.shape == (len(sizes), sizes.max(), 5)
    assert torch.equal(padded[torch.from_numpy(sentence), torch.from_numpy(where)], rows)
    old = nn.utils.rnn.pack_padded_sequence(padded, inputs.lengths, batch_first=True,
                                            enforce_sorted=False)
    unpadded = nn.utils.rnn.pad_packed_sequence(lstm(old)[0], batch_first=True)[0]
    assert torch.equal(direct, unpadded[torch.from_numpy(sentence), torch.from_numpy(where)])


def test_the_learning_rate_decays_as_dozat_and_manning():
    """rate * decay ** (updates / decay_updates) after each update; none by default; a decay
    out of (0, 1] is refused."""
    from arcwise.learn.neural import Sizes, decayed

    weight = torch.nn.Parameter(torch.zeros(2))
    optimizer = torch.optim.Adam([weight], lr=0.01)
    assert decayed(optimizer, Sizes()) is None
    schedule = decayed(optimizer, Sizes(decay=0.75, decay_updates=2))
    for _ in range(4):
        weight.sum().backward()
        optimizer.step()
        schedule.step()
    assert optimizer.param_groups[0]["lr"] == pytest.approx(0.01 * 0.75 ** 2)
    for bad in ({"decay": 0.0}, {"decay": 1.5}, {"decay_updates": 0}):
        with pytest.raises(ValueError, match="decay"):
            Sizes(**bad)


def test_decay_trains_both_neural_models_and_is_recorded(data):
    from arcwise.graph.biaffine_parser import train_biaffine

    parser, log = tiny_train("arc-hybrid", data, decay=0.5, decay_updates=1)
    assert log["hyperparameters"]["sizes"]["decay"] == 0.5
    assert 0 < parser.scorer.optimizer.param_groups[0]["lr"] <= 1e-3 * 0.5  # halved per update
    _, log = train_biaffine(data[0], data[1], epochs=1, seed=1,
                            neural={**TINY, "arc": 8, "label": 4, "decay": 0.5})
    assert log["hyperparameters"]["sizes"]["decay"] == 0.5


@pytest.mark.skipif(NO_JIT, reason="the compiled run covers the command line")
def test_cli_refuses_a_decay_out_of_range(tmp_path):
    treebank = tmp_path / "small.conllu"
    treebank.write_text("".join("\n".join(s.lines) + "\n\n" for s in train_and_dev(2, 0)[0]))
    refused = run_cli("train", "--system", "arc-hybrid", "--model", "bilstm", "--neural",
                      "decay=1.5", "--train", treebank, "-o", tmp_path / "m.arcwise")
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert "decay 1.5" in refused.stderr


def test_dropout_is_applied_in_training_only_and_recorded(data, tmp_path):
    from arcwise.learn.neural import Sizes

    with pytest.raises(ValueError, match="dropout 1.0"):
        Sizes(dropout=1.0)
    parser, log = tiny_train("arc-eager", data, dropout=0.5)
    assert log["hyperparameters"]["sizes"]["dropout"] == 0.5
    assert parser.scorer.network.encoder.dropout.p == 0.5
    def same(a, b):
        return all(list(h1) == list(h2) and list(d1) == list(d2)
                   for (h1, d1), (h2, d2) in zip(a, b, strict=True))

    trees = parser.parse(data[1])
    assert not parser.scorer.network.training  # parsing runs without dropout: repeatable
    assert same(parser.parse(data[1]), trees)
    parser.save(tmp_path / "m.arcwise")
    loaded = arcwise.load(tmp_path / "m.arcwise").parser
    assert loaded.scorer.sizes.dropout == 0.5 and same(loaded.parse(data[1]), trees)
    # a different rate trains a different model from the same seed
    other, _ = tiny_train("arc-eager", data)
    a, b = parser.scorer.arrays(), other.scorer.arrays()
    assert not all(np.array_equal(a[k], b[k]) for k in a)


def test_character_vectors_tell_unknown_words_apart_and_travel_in_the_model_file(data,
                                                                                 tmp_path):
    from arcwise.graph.biaffine_parser import train_biaffine
    from arcwise.learn.neural import MAX_CHARS, CharEncoder, Sizes, char_vocabulary

    with pytest.raises(ValueError, match="chars -1"):
        Sizes(chars=-1)
    assert char_vocabulary(["ab", "ba", "c"]) == "abc"
    torch.manual_seed(0)
    encoder = CharEncoder("abc", Sizes(chars=3, char_embedding=2))
    forms = np.array([["abc", "cab", ""], ["zzz", "abc", "q" * 100]], dtype=object)
    vectors = encoder(forms)
    assert vectors.shape == (2, 3, 6)
    assert torch.equal(vectors[0, 0], vectors[1, 1])  # one form, one vector
    assert not torch.equal(vectors[0, 0], vectors[0, 1])  # the order of characters counts
    assert not torch.equal(vectors[1, 0], vectors[0, 0])  # unknown characters are a character
    long = np.array(["x" * (MAX_CHARS // 2) + "y" * 200 + "x" * (MAX_CHARS // 2)], dtype=object)
    assert torch.allclose(encoder(long)[0], encoder(np.array(["x" * MAX_CHARS], object))[0])

    parser, log = tiny_train("arc-eager", data, chars=4, char_embedding=3)
    assert log["hyperparameters"]["sizes"]["chars"] == 4
    assert set(parser.scorer.network.encoder.chars_vocabulary) == {
        c for s in data[0] for f in s.form for c in f}
    trees = parser.parse(data[1])
    parser.save(tmp_path / "m.arcwise")
    loaded = arcwise.load(tmp_path / "m.arcwise").parser
    assert loaded.scorer.network.encoder.chars_vocabulary == \
        parser.scorer.network.encoder.chars_vocabulary
    assert all(list(a[0]) == list(b[0]) and a[1] == b[1]
               for a, b in zip(trees, loaded.parse(data[1])))
    biaffine, _ = train_biaffine(data[0], data[1], epochs=1, seed=1,
                                 neural={**TINY, "arc": 8, "label": 4, "chars": 4})
    trees = biaffine.parse(data[1])
    biaffine.save(tmp_path / "b.arcwise")
    assert all(list(a[0]) == list(b[0]) and a[1] == b[1]
               for a, b in zip(trees, arcwise.load(tmp_path / "b.arcwise").parse(data[1])))


def check_stacking(parser, plain, dev, tmp_path, accuracy: bool = True):
    """A guided model (trained on gold guide trees) and an unguided one: the guided one
    needs guide trees, the unguided refuses them; the guided one follows its guide
    (accuracy); both travel in one model file and parse the same after loading."""
    from arcwise.combination.stacking import GuidedParser
    from arcwise.eval.metrics import evaluate
    from arcwise.io.conllu import with_tree
    from tests.test_guided_transition_parser import shifted

    assert parser.guided and not plain.guided
    with pytest.raises(ArcwiseError, match="guide"):
        parser.parse(dev)
    with pytest.raises(ArcwiseError, match="without a guide"):
        plain.parse(dev, guide=dev)

    def scores(guide):
        trees = parser.parse(dev, guide=guide)
        return evaluate(dev, [with_tree(s, *t) for s, t in zip(dev, trees)])

    if accuracy:
        followed, misled = scores(dev), scores(shifted(dev))
        assert followed.uas > 90 and misled.uas < followed.uas - 20  # it reads the guide
    head, _ = parser.parse(dev[0], guide=dev[0])
    assert list(head) == list(parser.parse(dev[:2], guide=dev[:2])[0][0])
    both = GuidedParser(plain, parser, folds=2)
    both.save(tmp_path / "stacked.arcwise")
    loaded = arcwise.load(tmp_path / "stacked.arcwise").parser
    assert loaded.guided_model.guided and not loaded.guide.guided
    assert all(list(a[0]) == list(b[0]) and a[1] == b[1]
               for a, b in zip(both.parse(dev), loaded.parse(dev)))


def test_a_biaffine_parser_guided_by_gold_trees_follows_its_guide(data, tmp_path):
    """Stacking with the neural graph-based parser (2011 paper §5.3): guided by the
    gold trees it learns to copy them (`check_stacking`)."""
    from arcwise.graph.biaffine_parser import train_biaffine
    from arcwise.models import kinds

    train_sentences, dev = data
    options = {**TINY, "arc": 8, "label": 4, "learning_rate": 0.02}
    with pytest.raises(ValueError, match="dev sentences too"):
        train_biaffine(train_sentences, dev, epochs=1, neural=options, guide=train_sentences)
    parser, log = kinds.train_system("mst", train_sentences, dev, model="biaffine", epochs=4,
                                     seed=1, neural=options, guide=train_sentences,
                                     dev_guide=dev)
    assert log["hyperparameters"]["guided"]
    plain, _ = train_biaffine(train_sentences, epochs=1, seed=1, neural=options)
    check_stacking(parser, plain, dev, tmp_path, accuracy=not NO_JIT)


@pytest.mark.parametrize("name", ["arc-eager", "covington-nm"])
def test_a_bilstm_transition_parser_guided_by_gold_trees_follows_its_guide(name, data,
                                                                          tmp_path):
    """Stacking with a BiLSTM transition parser: the guide's labels are embedded and its
    arcs between the bases fed to the MLPs; guided by the gold trees it copies them."""
    from arcwise.models import kinds

    train_sentences, dev = data
    parser, log = kinds.train_system(name, train_sentences, dev, model="bilstm", epochs=6,
                                     oracle="static", seed=1,
                                     neural={**TINY, "learning_rate": 0.02},
                                     guide=train_sentences, dev_guide=dev)
    assert log["hyperparameters"]["guided"]
    plain, _ = tiny_train("arc-eager", data)
    check_stacking(parser, plain, dev, tmp_path, accuracy=not NO_JIT)  # 8 sentences: too few


@pytest.mark.end_to_end
@pytest.mark.neural
@pytest.mark.skipif(NO_JIT, reason="the compiled run covers the command line")
def test_cli_trains_a_pipeline_with_a_neural_parser(tmp_path):
    """arcwise train --pipeline --model bilstm|biaffine: the pipeline's parser is that
    model (it used to be a perceptron whatever --model said); --model without a parser
    among the components is an error."""
    treebank = tmp_path / "small.conllu"
    sentences = train_and_dev(12, 0)[0]
    treebank.write_text("".join("\n".join(s.lines) + "\n\n" for s in sentences))
    sizes = ("--neural", "lstm=8", "--neural", "word=8", "--neural", "chars=4")
    for system, model in (("arc-eager", "bilstm"), ("mst", "biaffine")):
        out = tmp_path / f"{model}.pipeline"
        done = run_cli("train", "--pipeline", "--components", "tagger,parser", "--system",
                       system, "--model", model, "--train", treebank, "--epochs", "1",
                       "--tag-folds", "2", "-o", out, *sizes)
        assert done.returncode == 0, done.stderr
        assert "parser " + system + " epoch 1: loss" in done.stderr
        parser = arcwise.load(out).parser
        assert getattr(parser, "scorer", parser).kind == model
    refused = run_cli("train", "--pipeline", "--components", "tokenizer,tagger", "--system",
                      "arc-eager", "--model", "bilstm", "--train", treebank, "-o",
                      tmp_path / "x.pipeline")
    assert refused.returncode == 2 and "is the parser's" in refused.stderr
