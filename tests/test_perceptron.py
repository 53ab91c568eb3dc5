"""Feature hashing and the factored averaged perceptron, against a brute-force perceptron."""

import os
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arcwise import systems
from arcwise.core.errors import ArcwiseError
from arcwise.features.hashing import bucket, combine, mix, text_hash
from arcwise.learn import perceptron as pc

COVINGTON = (("shift", "no-arc", "left-arc", "right-arc"), (False, False, True, True))
MASK64 = 2**64 - 1

# --- hashing ------------------------------------------------------------------


def reference_mix(x: int) -> int:
    """splitmix64's finaliser on Python ints."""
    x &= MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


def reference_combine(h: int, x: int) -> int:
    return reference_mix(h * 0x9E3779B97F4A7C15 + x + 0x9E3779B97F4A7C15)


HASH_PROGRAM = """
import numpy as np
from arcwise.features.hashing import bucket, combine, mix, text_hash
print(int(mix(1)), int(combine(0, 0)), int(combine(np.uint64(123), np.int64(-1))),
      int(combine(combine(0, 3), 7)), int(bucket(combine(0, 5), 1024)),
      int(bucket(np.int64(-3), 8)), int(text_hash("the")), hash("the") % 2)
"""
# Computed once; a change here changes every trained model's features.
EXPECTED_HASHES = [
    6238072747940578789,
    16294208416658607535,
    5394518703234433257,
    1236854646002600134,
    858,
    5,
    3331141520948189790,
]


def test_hash_values_are_fixed_and_match_the_reference():
    assert int(mix(0)) == 0 and int(mix(1)) == reference_mix(1) == EXPECTED_HASHES[0]
    assert int(combine(0, 0)) == reference_combine(0, 0) == EXPECTED_HASHES[1]
    assert (
        int(combine(np.uint64(123), np.int64(-1)))
        == reference_combine(123, -1)
        == EXPECTED_HASHES[2]
    )
    assert int(combine(combine(0, 3), 7)) == EXPECTED_HASHES[3]
    assert int(bucket(combine(0, 5), 1024)) == EXPECTED_HASHES[4]
    assert int(bucket(np.int64(-3), 8)) == EXPECTED_HASHES[5]  # low bits of two's complement
    assert int(text_hash("the")) == EXPECTED_HASHES[6]
    assert combine(combine(0, 3), 7) != combine(combine(0, 7), 3)


@given(st.integers(0, MASK64), st.integers(-(2**63), 2**63 - 1))
@settings(max_examples=200, deadline=None)
def test_combine_matches_the_reference(h, x):
    assert int(combine(np.uint64(h), np.int64(x))) == reference_combine(h, x)


def test_hashes_are_the_same_in_other_processes():
    """Python's hash seed and the JIT switch change nothing."""
    outputs = set()
    for seed, jit in (("1", "0"), ("2", "1")):
        env = dict(os.environ, PYTHONHASHSEED=seed, NUMBA_DISABLE_JIT=jit)
        result = subprocess.run(
            [sys.executable, "-c", HASH_PROGRAM],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        *values, parity = [int(v) for v in result.stdout.split()]
        assert values == EXPECTED_HASHES
        outputs.add(parity)
    assert outputs == {0, 1} or len(outputs) == 1  # hash("the") may differ; ours do not


def test_bucket_low_bits_are_uniform():
    counts = np.bincount(
        [bucket(np.uint64(combine(0, k)), 16) for k in range(16_000)], minlength=16
    )
    assert counts.min() > 850 and counts.max() < 1150


# --- classes ------------------------------------------------------------------


def test_class_set_numbering_and_names():
    classes = pc.ClassSet(*COVINGTON, range(4), ["nsubj", "obj", "root"])
    assert classes.n_classes == 2 + 2 * 3 and classes.n_columns == 4 and classes.n_slots == 6
    assert [classes.name(c) for c in range(classes.n_classes)] == [
        "shift", "no-arc",
        "left-arc(nsubj)", "left-arc(obj)", "left-arc(root)",
        "right-arc(nsubj)", "right-arc(obj)", "right-arc(root)",
    ]  # fmt: skip
    assert classes.class_of(3, 1) == 6 and classes.class_of(0) == 0 and classes.class_of(1, 2) == 1
    assert all(
        classes.class_of(int(classes.transition[c]), int(classes.label[c])) == c
        for c in range(classes.n_classes)
    )
    assert pc.class_of(classes.first_class, classes.takes_label, 2, 2) == 4
    mask = np.array([True, False, False, True])
    assert classes.legal_classes(mask).tolist() == [
        True,
        False,
        False,
        False,
        False,
        True,
        True,
        True,
    ]
    with pytest.raises(ValueError):
        classes.class_of(2, 3)
    with pytest.raises(ValueError):
        pc.ClassSet(*COVINGTON, range(4), [])


def test_class_set_orders_unlabeled_transitions_first():
    actions = ("left-arc", "shift", "right-arc", "reduce", "unused")
    classes = pc.ClassSet(actions, (True, False, True, False, False), (0, 1, 2, 3), ["a", "b"])
    assert [actions[a] for a in classes.column_action] == [
        "shift",
        "reduce",
        "left-arc",
        "right-arc",
    ]
    assert classes.first_class.tolist() == [2, 0, 4, 1, -1]
    assert classes.to_json() == {
        "transitions": ["shift", "reduce", "left-arc", "right-arc"],
        "labels": ["a", "b"],
    }


def test_class_set_of_a_registered_system():
    kernels = systems.get("covington").kernels
    classes = pc.ClassSet.for_system(kernels, ["dep", "root"])
    assert classes.n_classes == 2 + 2 * 2
    mask = np.zeros(len(kernels.actions), dtype=np.bool_)
    kernels.legal(kernels.initial(3), mask)
    assert [classes.name(c) for c in np.flatnonzero(classes.legal_classes(mask))] == ["shift"]


# --- a brute-force averaged perceptron ---------------------------------------


class ReferencePerceptron:
    """The textbook averaged perceptron of two decisions, in Python ints.

    A transition classifier over φ_T(x, t) = {(T, bucket(f), t)} picks the best
    legal transition; for an arc transition a, a label classifier over
    φ_L(x, a, l) = {(L, bucket(g), (a, l))} picks its best legal label.  Each
    learns its own decision: the transition one when the transitions differ,
    the label one whenever the gold class is an arc whose gold label is not the
    one it would choose.  The average is the mean of the weight vectors after
    each example.
    """

    def __init__(self, classes, transition_buckets, label_buckets):
        self.classes, self.bt, self.bl = classes, transition_buckets, label_buckets
        self.w: dict = {}
        self.sum_of_snapshots: dict = {}
        self.n = 0
        arcs = [a for a in classes.column_action if classes.takes_label[a]]
        self.column = [
            list(classes.column_action).index(classes.transition[c])
            for c in range(classes.n_classes)
        ]
        self.slot = [
            arcs.index(classes.transition[c]) * classes.n_labels + classes.label[c]
            if classes.label[c] >= 0
            else None
            for c in range(classes.n_classes)
        ]

    def phi_transition(self, features, c):
        return [("T", int(f) & (self.bt - 1), self.column[c]) for f in features]

    def phi_label(self, label_features, c):
        return [("L", int(g) & (self.bl - 1), self.slot[c]) for g in label_features]

    def scores(self, features, label_features):
        """The transition score of every class."""
        return [
            sum(self.w.get(k, 0) for k in self.phi_transition(features, c))
            for c in range(self.classes.n_classes)
        ]

    def relabel(self, label_features, c, legal):
        """Class c's arc transition with the label classifier's best legal label."""
        same_arc = [
            k for k in range(self.classes.n_classes)
            if self.column[k] == self.column[c] and legal[k]
        ]  # fmt: skip
        label_score = {
            k: sum(self.w.get(key, 0) for key in self.phi_label(label_features, k))
            for k in same_arc
        }
        return max(same_arc, key=lambda k: (label_score[k], -k))

    def predict(self, features, label_features, legal):
        scores = self.scores(features, label_features)
        legal_ids = [c for c in range(len(scores)) if legal[c]]
        best = max(legal_ids, key=lambda c: (scores[c], -c))
        return best if self.slot[best] is None else self.relabel(label_features, best, legal)

    def learn(self, features, label_features, gold, predicted):
        changes = []
        if self.column[gold] != self.column[predicted]:
            changes += [(k, 1) for k in self.phi_transition(features, gold)]
            changes += [(k, -1) for k in self.phi_transition(features, predicted)]
        if self.slot[gold] is not None:
            if self.column[gold] == self.column[predicted]:
                own = predicted
            else:
                own = self.relabel(label_features, gold, [True] * self.classes.n_classes)
            if own != gold:
                changes += [(k, 1) for k in self.phi_label(label_features, gold)]
                changes += [(k, -1) for k in self.phi_label(label_features, own)]
        if gold != predicted:
            for k, delta in changes:
                self.w[k] = self.w.get(k, 0) + delta
        for k, v in self.w.items():
            self.sum_of_snapshots[k] = self.sum_of_snapshots.get(k, 0) + v
        self.n += 1

    def dense(self, table, averaged=False):
        rows, cols = (
            (self.bt, self.classes.n_columns) if table == "T" else (self.bl, self.classes.n_slots)
        )
        out = np.zeros((rows, cols), dtype=object)
        source = self.sum_of_snapshots if averaged else self.w
        for (kind, b, col), v in source.items():
            if kind == table:
                out[b, col] = Fraction(v, self.n) if averaged else v
        return out


@st.composite
def problems(draw):
    n_unlabeled = draw(st.integers(0, 3))
    n_arcs = draw(st.integers(0 if n_unlabeled else 1, 3))
    n_labels = draw(st.integers(1, 4))
    labeled = [False] * n_unlabeled + [True] * n_arcs
    order = draw(st.permutations(range(len(labeled))))
    labeled = [labeled[k] for k in order]
    actions = [f"t{k}" for k in range(len(labeled))]
    classes = pc.ClassSet(actions, labeled, range(len(actions)), [f"l{k}" for k in range(n_labels)])
    bt, bl = draw(st.sampled_from([1, 2, 4, 8])), draw(st.sampled_from([1, 2, 4]))
    values = st.integers(-(2**63), 2**63 - 1)
    examples = []
    for _ in range(draw(st.integers(1, 25))):
        features = draw(st.lists(values, min_size=0, max_size=6))
        label_features = draw(st.lists(values, min_size=0, max_size=4))
        legal = draw(
            st.lists(st.booleans(), min_size=classes.n_classes, max_size=classes.n_classes)
        )
        if not any(legal):
            legal[draw(st.integers(0, classes.n_classes - 1))] = True
        gold = draw(st.sampled_from([c for c in range(classes.n_classes) if legal[c]]))
        examples.append(
            (
                np.array(features, np.int64),
                np.array(label_features, np.int64),
                np.array(legal),
                gold,
            )
        )
    return classes, bt, bl, examples


@given(problems())
@settings(max_examples=150, deadline=None)
def test_kernels_match_the_brute_force_perceptron(problem):
    classes, bt, bl, examples = problem
    model = pc.AveragedPerceptron(classes, bt, bl)
    reference = ReferencePerceptron(classes, bt, bl)
    scores = np.empty(classes.n_classes)
    for step, (features, label_features, legal, gold) in enumerate(examples):
        predicted = pc.best_class(model.weights, features, label_features, legal, scores)
        expected = reference.scores(features, label_features)
        assert [scores[c] if legal[c] else None for c in range(len(legal))] == [
            float(expected[c]) if legal[c] else None for c in range(len(legal))
        ]
        assert all(scores[c] == -np.inf for c in range(len(legal)) if not legal[c])
        assert predicted == reference.predict(features, label_features, legal)
        pc.update(model.weights, model.totals, features, label_features, gold, predicted, step)
        reference.learn(features, label_features, gold, predicted)
    assert model.weights.transition.tolist() == reference.dense("T").tolist()
    assert model.weights.label.tolist() == reference.dense("L").tolist()
    averaged = model.averaged(len(examples))
    assert averaged.transition.dtype == np.float32 and averaged.label.dtype == np.float32
    for mine, table in ((averaged.transition, "T"), (averaged.label, "L")):
        exact = reference.dense(table, averaged=True).astype(np.float64)
        np.testing.assert_allclose(mine, exact, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("width", [1, 4, 7, 9, 51])
def test_sum_rows_adds_each_column_in_feature_order(width):
    """sum_rows gives bit for bit the float64 sums of the plain loop over features."""
    rng = np.random.default_rng(width)
    table = (rng.standard_normal((64, 2 * width + 3)) * 1e3).astype(np.float32)
    features = rng.integers(0, 2**63, size=97).astype(np.uint64)
    for first in (0, width + 3):
        expected = np.zeros(width)
        for f in features:
            for k in range(width):
                expected[k] += np.float64(table[bucket(f, 64), first + k])
        out = np.empty(width)
        pc.sum_rows(table, features, first, out)
        assert out.tobytes() == expected.tobytes()


def test_argmax_respects_the_mask_and_breaks_ties_by_lowest_id():
    scores = np.array([1.0, 5.0, 5.0, 9.0, 5.0])
    assert pc.argmax(scores, np.array([True, True, True, False, True])) == 1
    assert pc.argmax(scores, np.array([False, False, True, False, True])) == 2
    assert pc.argmax(scores, np.array([True, False, False, False, False])) == 0
    assert pc.argmax(scores, np.zeros(5, dtype=np.bool_)) == -1
    classes = pc.ClassSet(*COVINGTON, range(4), ["a", "b"])
    model = pc.AveragedPerceptron(classes, 4, 4)
    legal = np.array([False, False, False, True, True, False])
    out = np.empty(classes.n_classes, dtype=np.float32)
    features = np.array([1, 2, 3], dtype=np.uint64)
    assert (
        pc.best_class(model.weights, features, features, legal, out) == 3
    )  # all zero: lowest legal
    assert out.tolist() == [-np.inf, -np.inf, -np.inf, 0.0, 0.0, -np.inf]
    pc.update(
        model.weights, model.totals, features, features, 5, 3, 0
    )  # right-arc(b) over left-arc(b): right-arc up, and the label b over a (its own)
    legal[:] = True
    assert pc.best_class(model.weights, features, features, legal, out) == 5
    legal[5] = False
    assert pc.best_class(model.weights, features, features, legal, out) == 4  # its legal label
    assert pc.best_class(model.weights, features, features, np.zeros(6, np.bool_), out) == -1


def feature(template, value):
    return np.uint64(combine(np.uint64(combine(0, template)), value))


def toy_problem(seed, n_examples=300):
    """Separable: each class has its own indicator feature among shared noise."""
    rng = np.random.default_rng(seed)
    classes = pc.ClassSet(*COVINGTON, range(4), ["nsubj", "obj", "amod"])
    examples = []
    for _ in range(n_examples):
        gold = int(rng.integers(classes.n_classes))
        indicator = feature(1, gold)
        noise = [feature(2, v) for v in rng.integers(0, 20, size=5)]
        features = np.array([indicator, *noise], dtype=np.uint64)
        legal = rng.random(classes.n_classes) < 0.6
        legal[gold] = True
        examples.append((features, features[:3].copy(), legal, gold))
    return classes, examples


def train(classes, examples, epochs):
    model = pc.AveragedPerceptron(classes, 2**10, 2**8)
    scores = np.empty(classes.n_classes)
    step = 0
    for _ in range(epochs):
        errors = 0
        for features, label_features, legal, gold in examples:
            predicted = pc.best_class(model.weights, features, label_features, legal, scores)
            errors += predicted != gold
            pc.update(model.weights, model.totals, features, label_features, gold, predicted, step)
            step += 1
    return model, model.averaged(step), errors


def test_learns_a_separable_problem():
    classes, examples = toy_problem(seed=3)
    _, averaged, last_epoch_errors = train(classes, examples, epochs=5)
    assert last_epoch_errors == 0
    scores = np.empty(classes.n_classes, dtype=np.float32)
    predictions = [pc.best_class(averaged, f, g, legal, scores) for f, g, legal, _ in examples]
    assert predictions == [gold for *_, gold in examples]


def test_training_is_deterministic():
    classes, examples = toy_problem(seed=4)
    (m1, a1, _), (m2, a2, _) = train(classes, examples, 2), train(classes, examples, 2)
    for x, y in zip(
        (*m1.weights[:2], *m1.totals[:2], *a1[:2]), (*m2.weights[:2], *m2.totals[:2], *a2[:2])
    ):
        assert x.tobytes() == y.tobytes()


# --- sizes and model-file arrays ---------------------------------------------


def test_default_sizes_bound_memory():
    classes = pc.ClassSet(*COVINGTON, range(4), [f"l{k}" for k in range(50)])
    transition_buckets, label_buckets = pc.default_buckets(classes)
    assert (transition_buckets, label_buckets) == (2**22, 2**18 // 2)
    memory = pc.memory_bytes(classes, transition_buckets, label_buckets)
    weights = 2**22 * 4 + 2**17 * 100
    assert memory == {"weights": weights, "parsing": weights, "training": 16 * weights}
    assert memory["parsing"] < 40e6 and memory["training"] < 2e9
    many = pc.ClassSet(*COVINGTON, range(4), [f"l{k}" for k in range(300)])
    assert (
        pc.memory_bytes(many, *pc.default_buckets(many))["weights"] <= 2 * pc.MAX_WEIGHTS_PER_TABLE
    )
    with pytest.raises(ValueError, match="power of two"):
        pc.AveragedPerceptron(classes, 1000, 64)
    model = pc.AveragedPerceptron(classes, 2**10, 2**6)
    assert model.weights.transition.dtype == np.int32 and model.totals.label.dtype == np.int64
    with pytest.raises(ValueError):
        model.averaged(0)


def format1_arrays(weights):
    """The arrays model-file format 1 wrote: the float32 tables' nonzero rows."""
    arrays = {"buckets": np.array([len(weights.transition), len(weights.label)], dtype="<i8")}
    for table, dense in zip(pc.TABLES, weights[:2]):
        rows = np.flatnonzero(dense.any(axis=1)).astype(np.int32)
        arrays[f"{table}_rows"] = rows
        arrays[f"{table}_weights"] = np.ascontiguousarray(dense[rows])
    return arrays


def test_model_arrays_are_int8_within_half_a_step():
    classes, examples = toy_problem(seed=5, n_examples=50)
    _, averaged, _ = train(classes, examples, 1)
    arrays = pc.to_arrays(averaged)
    assert sorted(arrays) == sorted(pc.ARRAY_NAMES)
    back = pc.from_arrays(arrays, classes, "m.arcwise")
    assert back.transition.dtype == back.label.dtype == np.int8 and back.n_labels == 3
    for table, scale, original in ((back.transition, back.transition_scale, averaged.transition),
                                   (back.label, back.label_scale, averaged.label)):
        assert table.shape == original.shape
        assert np.abs(table).max() == pc.STEPS  # the largest weight is exact
        assert np.abs(pc.dequantized(table, scale) - original).max() <= scale / 2 * (1 + 1e-6)
        assert np.array_equal(table == 0, np.abs(original) < scale / 2)
    again = pc.to_arrays(back)  # a loaded model saves to the same arrays
    assert all(np.array_equal(again[name], arrays[name]) for name in arrays)
    assert pc.to_arrays(pc.quantized(averaged))["scales"].tolist() == arrays["scales"].tolist()


def test_int8_weights_score_as_their_float_values():
    classes, examples = toy_problem(seed=3, n_examples=80)
    _, averaged, _ = train(classes, examples, 2)
    compact = pc.quantized(averaged)
    exact = pc.Weights(pc.dequantized(compact.transition, compact.transition_scale),
                       pc.dequantized(compact.label, compact.label_scale), compact.n_labels)
    legal = np.ones(classes.n_classes, dtype=np.bool_)
    for features, label_features, _, _ in examples[:30]:
        got, want = np.empty(classes.n_classes), np.empty(classes.n_classes)
        pc.score(compact, features, label_features, legal, got)
        pc.score(exact, features, label_features, legal, want)
        assert np.allclose(got, want, rtol=1e-5, atol=1e-5)
        for arc in range(2):
            got, want = np.empty(3), np.empty(3)
            pc.label_scores(compact, label_features, arc, got)
            pc.label_scores(exact, label_features, arc, want)
            assert np.allclose(got, want, rtol=1e-5, atol=1e-5)


def test_format1_arrays_are_read_and_checked():
    classes, examples = toy_problem(seed=5, n_examples=50)
    _, averaged, _ = train(classes, examples, 1)
    arrays = format1_arrays(averaged)
    assert 0 < len(arrays["transition_rows"]) < 2**10
    back = pc.from_arrays(arrays, classes, "m.arcwise")
    assert np.array_equal(back.transition, averaged.transition) and back.n_labels == 3
    assert np.array_equal(back.label, averaged.label) and back[3:] == (1.0, 1.0)
    dense = {"transition_weights": averaged.transition, "label_weights": averaged.label}
    old = pc.from_arrays(dense, classes, "m.arcwise")  # session 1's dense files
    assert np.array_equal(old.transition, averaged.transition)
    rows = arrays["transition_rows"]
    for name, bad in (
        ("transition_weights", arrays["transition_weights"][:-1]),
        ("label_weights", arrays["label_weights"][:, :5]),
        ("label_weights", arrays["label_weights"].astype(np.float64)),
        ("transition_rows", rows[::-1].copy()),
        ("transition_rows", np.where(rows == rows.max(), 2**10, rows).astype(np.int32)),
        ("transition_rows", rows.astype(np.int64)),
        ("buckets", np.array([1000, 2**8], dtype=np.int64)),
        ("buckets", np.array([2**10], dtype=np.int64)),
    ):
        with pytest.raises(ArcwiseError, match=f"m.arcwise: .*({name}|table)"):
            pc.from_arrays({**arrays, name: bad}, classes, "m.arcwise")
    with pytest.raises(ArcwiseError, match="no array"):
        pc.from_arrays({"label_weights": arrays["label_weights"]}, classes, "m.arcwise")
    with pytest.raises(ArcwiseError, match="power of two"):
        pc.from_arrays({**dense, "transition_weights": averaged.transition[:1000]}, classes, "m")


def test_int8_arrays_are_checked():
    classes, examples = toy_problem(seed=5, n_examples=50)
    _, averaged, _ = train(classes, examples, 1)
    arrays = pc.to_arrays(averaged)
    for name, bad in (
        ("transition_weights", arrays["transition_weights"][:-1]),
        ("transition_weights", arrays["transition_weights"].astype(np.float32)),
        ("label_weights", arrays["label_weights"][:, :5]),
        ("scales", np.array([1.0, np.nan])),
        ("scales", np.array([0.0, 1.0])),
        ("scales", np.array([1.0, 1.0], dtype=np.float32)),
        ("scales", np.ones(3)),
    ):
        with pytest.raises(ArcwiseError, match="m.arcwise: .*(weights|scales|power of two)"):
            pc.from_arrays({**arrays, name: bad}, classes, "m.arcwise")
