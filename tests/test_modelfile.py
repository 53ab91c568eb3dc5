"""Model files: exact round trips, identical bytes, and one-line errors for every bad file."""

import collections
import contextlib
import io
import itertools
import json
import os
import shutil
import threading
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import arcwise
from arcwise.core.errors import ArcwiseError
from arcwise.learn import perceptron as pc
from arcwise.models import modelfile

META = {
    "system": "covington-nm",
    "options": {"bound": "upper", "pseudo_projective": None},
    "labels": ["nsubj", "obj", "nmod:poss"],
    "vocabularies": {"upos": {"NOUN": 0, "VERB": 1}, "words": {"ünïcode": 7}},
    "training_data_sha256": "0" * 64,
    "scores": {"dev": {"uas": 88.5, "las": 86.25}},
    "hyperparameters": {"epochs": 15, "seed": 1, "transition_buckets": 1024},
    "command_line": ["arcwise", "train", "--system", "covington-nm"],
}


def arrays():
    rng = np.random.default_rng(0)
    return {
        "transition_weights": rng.standard_normal((64, 4)).astype(np.float32),
        "label_weights": rng.standard_normal((16, 6)).astype(np.float32),
        "word_ids": np.arange(-3, 7, dtype=np.int64),
        "flags": np.array([True, False]),
        "scalar": np.array(2.5),
    }


@pytest.fixture
def model_path(tmp_path):
    path = tmp_path / "model.arcwise"
    modelfile.save(path, arrays(), META)
    return path


def assert_bad(path, *fragments):
    """Loading fails with a one-line ArcwiseError naming the file."""
    with pytest.raises(ArcwiseError) as caught:
        modelfile.load(path)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"{path}: "), message
    for fragment in fragments:
        assert fragment in message, message
    return message


def write_zip(path, members):
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)


def npy(array, allow_pickle=False):
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, allow_pickle=allow_pickle)
    return buffer.getvalue()


def members_of(path):
    with zipfile.ZipFile(path) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def meta_of(path):
    return json.loads(members_of(path)["meta.json"])


# --- good files -----------------------------------------------------------------


@pytest.mark.parametrize("mapped", [False, True])
def test_round_trip_is_exact(model_path, mapped):
    loaded, meta = modelfile.load(model_path, mapped=mapped)
    original = arrays()
    assert sorted(loaded) == sorted(original)
    for name, array in original.items():
        assert loaded[name].dtype == array.dtype and loaded[name].shape == array.shape
        assert loaded[name].tobytes() == array.tobytes()
        # maps of the stored (float) members are read-only; deflated ones are read
        assert loaded[name].flags.writeable != (mapped and array.dtype.kind == "f")
    assert {k: meta[k] for k in META} == META
    assert meta["format"] == "arcwise-model" and meta["format_version"] == 2  # no float16
    assert meta["arrays"]["transition_weights"] == {"dtype": "<f4", "shape": [64, 4]}
    assert modelfile.read_meta(model_path) == meta


@pytest.mark.parametrize("mapped", [False, True])
@pytest.mark.parametrize("compression", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
def test_zero_size_arrays_round_trip(tmp_path, mapped, compression):
    empty = {"no_rows": np.zeros((0, 6), np.float32), "no_columns": np.zeros((5, 0), np.int64),
             "nothing": np.zeros(0, np.int32), "flags": np.zeros((0, 0), np.bool_)}
    path = tmp_path / "empty_arrays.arcwise"
    modelfile.save(path, {**arrays(), **empty}, META)
    if compression == zipfile.ZIP_DEFLATED:
        members = members_of(path)
        with zipfile.ZipFile(path, "w", compression=compression) as zf:
            for name, data in members.items():
                zf.writestr(name, data)
    loaded, meta = modelfile.load(path, mapped=mapped)
    for name, array in {**arrays(), **empty}.items():
        assert loaded[name].dtype == array.dtype and loaded[name].shape == array.shape, name
        assert loaded[name].tobytes() == array.tobytes(), name
    assert meta["arrays"]["no_columns"] == {"dtype": "<i8", "shape": [5, 0]}


def test_identical_inputs_give_identical_bytes(tmp_path, model_path):
    again = tmp_path / "again.arcwise"
    shuffled_arrays = dict(reversed(list(arrays().items())))
    shuffled_meta = dict(reversed(list(META.items())))
    modelfile.save(again, shuffled_arrays, shuffled_meta)
    assert again.read_bytes() == model_path.read_bytes()
    os.utime(again, (0, 0))
    modelfile.save(again, arrays(), {**META, "scores": {}})
    assert again.read_bytes() != model_path.read_bytes()


@contextlib.contextmanager
def swapped(target, *files):
    """Within the block a thread renames a copy of each of `files` in turn over `target`,
    as `arcwise train -o TARGET` replaces a model."""
    shutil.copyfile(files[0], target)
    stop = threading.Event()

    def swap():
        for k in itertools.count():
            if stop.is_set():
                return
            copy = target.with_name(f".copy{k}")
            shutil.copyfile(files[k % len(files)], copy)
            os.replace(copy, target)

    swapper = threading.Thread(target=swap)
    swapper.start()
    try:
        yield
    finally:
        stop.set()
        swapper.join()


@pytest.mark.parametrize("mapped", [False, True])
def test_a_load_while_the_file_is_replaced_reads_one_whole_file(tmp_path, mapped):
    """A load while another process renames a new model over the file reads the old model
    or the new one, never the zip directory of one and the arrays of the other."""
    small, large = tmp_path / "small.arcwise", tmp_path / "large.arcwise"
    modelfile.save(small, arrays(), {**META, "scores": {"which": "small"}})
    bigger = {**arrays(), "transition_weights": np.ones((4096, 4), np.float32)}
    modelfile.save(large, bigger, {**META, "scores": {"which": "large"}})
    seen = collections.Counter()
    with swapped(tmp_path / "model.arcwise", small, large):
        for _ in range(400):
            loaded, meta = modelfile.load(tmp_path / "model.arcwise", mapped=mapped)
            which = meta["scores"]["which"]
            expected = bigger if which == "large" else arrays()
            assert all(loaded[n].tobytes() == a.tobytes() for n, a in expected.items()), which
            seen[which] += 1
    assert seen["small"] and seen["large"], seen


def test_arcwise_load_while_the_file_is_replaced_by_another_kind_of_model(tmp_path):
    """arcwise.load finds the kind of model and reads it from the same open file."""
    from tests.tiny_model import tiny_parser, tiny_pipeline

    parser, pipeline = tmp_path / "parser.arcwise", tmp_path / "pipeline.arcwise"
    tiny_parser().save(parser)
    tiny_pipeline().save(pipeline)
    seen = collections.Counter()
    with swapped(tmp_path / "model.arcwise", parser, pipeline):
        for _ in range(100):
            seen[tuple(arcwise.load(tmp_path / "model.arcwise").components)] += 1
    assert len(seen) == 2, seen


def test_numpy_reads_the_file_without_pickle(model_path):
    with np.load(model_path, allow_pickle=False) as npz:
        assert np.array_equal(npz["word_ids"], arrays()["word_ids"])


def test_a_deflated_zip_with_valid_contents_loads(tmp_path, model_path):
    path = tmp_path / "deflated.arcwise"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in members_of(model_path).items():
            zf.writestr(name, data)
    loaded, _ = modelfile.load(path)
    assert np.array_equal(loaded["label_weights"], arrays()["label_weights"])


def test_perceptron_weights_through_a_file(tmp_path):
    classes = pc.ClassSet(
        ("shift", "no-arc", "left-arc", "right-arc"),
        (False, False, True, True),
        range(4),
        META["labels"],
    )
    model = pc.AveragedPerceptron(classes, 2**6, 2**4)
    features = np.array([3, 5, 8], dtype=np.uint64)
    pc.update(model.weights, model.totals, features, features, 4, 0, 0)
    path = tmp_path / "m.arcwise"
    modelfile.save(path, pc.to_arrays(model.averaged(1)), META)
    legal = np.ones(classes.n_classes, dtype=np.bool_)
    for mapped in (False, True):
        loaded, _ = modelfile.load(path, expected=pc.array_specs(classes), mapped=mapped)
        weights = pc.from_arrays(loaded, classes, str(path))
        assert (
            pc.best_class(
                weights, features, features, legal, np.empty(classes.n_classes, np.float32)
            )
            == 4
        )
    with pytest.raises(ArcwiseError, match="expected <f4\\[None, 9\\]"):
        modelfile.load(path, expected={"label_weights": ("<f4", (None, 9))})
    with pytest.raises(ArcwiseError, match="no array 'other'"):
        modelfile.load(path, expected={"other": ("<f4", (None,))})


def test_save_rejects_what_it_cannot_store(tmp_path):
    path = tmp_path / "m.arcwise"
    with pytest.raises(ValueError, match="lacks"):
        modelfile.save(path, arrays(), {k: v for k, v in META.items() if k != "labels"})
    with pytest.raises(ValueError, match="must not set"):
        modelfile.save(path, arrays(), {**META, "format_version": 9})
    with pytest.raises(ValueError, match="array name"):
        modelfile.save(path, {"Bad-Name": np.zeros(2)}, META)
    with pytest.raises(ValueError, match="plain number type"):
        modelfile.save(path, {"objects": np.array([{}], dtype=object)}, META)
    with pytest.raises(ValueError):
        modelfile.save(path, arrays(), {**META, "scores": {"las": float("nan")}})
    with pytest.raises(ValueError, match="'labels'"):
        modelfile.save(path, arrays(), {**META, "labels": "nsubj"})
    assert not path.exists() and os.listdir(tmp_path) == []  # nothing half-written


def test_file_sha256(tmp_path):
    path = tmp_path / "train.conllu"
    path.write_bytes(b"abc")
    assert (
        modelfile.file_sha256(path)
        == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )


# --- bad files ------------------------------------------------------------------


def test_missing_empty_and_random_files(tmp_path):
    assert_bad(tmp_path / "nowhere.arcwise", "cannot read")
    empty = tmp_path / "empty.arcwise"
    empty.write_bytes(b"")
    assert_bad(empty, "not an arcwise model file")
    noise = tmp_path / "noise.arcwise"
    noise.write_bytes(np.random.default_rng(1).bytes(5000))
    assert_bad(noise, "not an arcwise model file")
    assert_bad(tmp_path, "model file")  # a directory


def test_every_truncation_is_an_error(tmp_path, model_path):
    data = model_path.read_bytes()
    cut = tmp_path / "cut.arcwise"
    for length in [*range(0, len(data), max(1, len(data) // 60)), len(data) - 1, len(data) - 22]:
        cut.write_bytes(data[:length])
        assert_bad(cut)


def test_a_truncated_model_file_says_so(tmp_path, model_path):
    """A model file cut short (a copy or download that stopped) starts as a zip but has
    lost the zip's directory at its end: "truncated or corrupt", not "not a zip archive"."""
    data = model_path.read_bytes()
    cut = tmp_path / "cut.arcwise"
    for length in [4, *range(100, len(data), max(1, len(data) // 30)), len(data) - 1]:
        cut.write_bytes(data[:length])
        assert_bad(cut, "truncated or corrupt model file (a zip archive whose directory at "
                        "the end is missing or damaged: cut short?)")
    cut.write_bytes(b"PK")  # not even a zip's first member
    assert_bad(cut, "not an arcwise model file (not a zip archive)")


@pytest.mark.parametrize("rows", [16, 4096])  # read through zipfile / straight from the file
def test_corrupted_array_bytes_fail_the_crc_check(tmp_path, rows):
    weights = np.random.default_rng(2).standard_normal((rows, 6)).astype(np.float32)
    path = tmp_path / "model.arcwise"
    modelfile.save(path, {"label_weights": weights}, META)
    data = bytearray(path.read_bytes())
    data[data.index(weights.tobytes()[-64:]) + 10] ^= 0xFF
    path.write_bytes(bytes(data))
    assert_bad(path, "CRC")
    loaded, _ = modelfile.load(path, mapped=True)  # a map is not checksummed, only checked
    assert loaded["label_weights"].shape == (rows, 6)


def test_a_zip_that_is_not_a_model(tmp_path, model_path):
    foreign = tmp_path / "foreign.arcwise"
    write_zip(foreign, {"readme.txt": b"hello"})
    assert_bad(foreign, "not an arcwise model file (no meta.json)")
    members = members_of(model_path)
    other_format = dict(
        members, **{"meta.json": json.dumps({**meta_of(model_path), "format": "spacy"})}
    )
    write_zip(foreign, other_format)
    assert_bad(foreign, "not an arcwise model file")
    write_zip(foreign, dict(members, **{"meta.json": b"{not json"}))
    assert_bad(foreign, "meta.json is not JSON")
    write_zip(foreign, dict(members, **{"meta.json": b"[1, 2]"}))
    assert_bad(foreign, "not an arcwise model file")
    write_zip(foreign, dict(members, **{"meta.json": b"\xff\xfe"}))
    assert_bad(foreign, "not JSON")


def test_a_newer_format_version_asks_for_an_upgrade(tmp_path, model_path):
    newer = tmp_path / "newer.arcwise"
    meta = {**meta_of(model_path), "format_version": modelfile.FORMAT_VERSION + 2}
    write_zip(newer, dict(members_of(model_path), **{"meta.json": json.dumps(meta)}))
    message = assert_bad(
        newer, f"format version {modelfile.FORMAT_VERSION + 2} is newer", "upgrade"
    )
    assert message.endswith("upgrade arcwise")
    for version in ("1", 0, True, None):
        meta["format_version"] = version
        write_zip(newer, dict(members_of(model_path), **{"meta.json": json.dumps(meta)}))
        assert_bad(newer, "format version")


@pytest.mark.parametrize(
    "key, value",
    [
        ("labels", "nsubj"),
        ("labels", [1, 2]),
        ("system", 3),
        ("vocabularies", None),
        ("training_data_sha256", 5),
        ("command_line", "arcwise train"),
        ("arrays", []),
        ("arcwise_version", 1),
    ],
)
def test_metadata_of_the_wrong_shape(tmp_path, model_path, key, value):
    bad = tmp_path / "bad.arcwise"
    write_zip(
        bad,
        dict(
            members_of(model_path), **{"meta.json": json.dumps({**meta_of(model_path), key: value})}
        ),
    )
    assert_bad(bad, "corrupt model file")
    meta = meta_of(model_path)
    del meta[key]
    write_zip(bad, dict(members_of(model_path), **{"meta.json": json.dumps(meta)}))
    assert_bad(bad, "corrupt model file")


def rewrite(tmp_path, model_path, manifest=None, **replace):
    """The model with some members replaced (None: removed) and manifest entries changed."""
    members = members_of(model_path)
    meta = meta_of(model_path)
    meta["arrays"].update(manifest or {})
    members["meta.json"] = json.dumps(meta).encode()
    for name, data in replace.items():
        if data is None:
            del members[name + ".npy"]
        else:
            members[name + ".npy"] = data
    path = tmp_path / "rewritten.arcwise"
    write_zip(path, members)
    return path


def test_wrong_dtypes(tmp_path, model_path):
    as_double = npy(arrays()["label_weights"].astype(np.float64))
    assert_bad(
        rewrite(tmp_path, model_path, label_weights=as_double),
        "'label_weights' is <f8[16, 6]",
        "<f4[16, 6]",
    )
    both = rewrite(
        tmp_path,
        model_path,
        {"label_weights": {"dtype": "<f8", "shape": [16, 6]}},
        label_weights=as_double,
    )
    modelfile.load(both)  # consistent, so readable; the caller's expectations catch it:
    with pytest.raises(ArcwiseError, match="'label_weights' is <f8"):
        modelfile.load(both, expected={"label_weights": ("<f4", (None, 6))})
    big_endian = npy(arrays()["label_weights"].astype(">f4"))
    assert_bad(
        rewrite(
            tmp_path,
            model_path,
            {"label_weights": {"dtype": ">f4", "shape": [16, 6]}},
            label_weights=big_endian,
        )
    )
    structured = npy(np.zeros(3, dtype=[("a", "<i4")]))
    assert_bad(
        rewrite(
            tmp_path, model_path, {"word_ids": {"dtype": "|V4", "shape": [3]}}, word_ids=structured
        )
    )


def test_pickled_object_arrays_are_never_unpickled(tmp_path, model_path):
    marker = tmp_path / "unpickled"

    class Payload:
        def __reduce__(self):
            return (os.mkdir, (str(marker),))

    objects = np.empty(1, dtype=object)
    objects[0] = Payload()
    pickled = npy(objects, allow_pickle=True)
    assert_bad(
        rewrite(tmp_path, model_path, {"word_ids": {"dtype": "|O", "shape": [1]}}, word_ids=pickled)
    )
    assert_bad(
        rewrite(
            tmp_path, model_path, {"word_ids": {"dtype": "<i8", "shape": [1]}}, word_ids=pickled
        )
    )
    assert_bad(rewrite(tmp_path, model_path, word_ids=pickled), "'word_ids'")
    assert not marker.exists()


def test_wrong_shapes_and_lengths(tmp_path, model_path):
    original = arrays()["transition_weights"]
    assert_bad(
        rewrite(tmp_path, model_path, transition_weights=npy(original[:32])), "[32, 4]", "[64, 4]"
    )
    assert_bad(
        rewrite(tmp_path, model_path, {"transition_weights": {"dtype": "<f4", "shape": [64, 5]}})
    )
    fortran = npy(np.asfortranarray(original))
    assert_bad(rewrite(tmp_path, model_path, transition_weights=fortran))
    short = npy(original)[:-8]
    assert_bad(rewrite(tmp_path, model_path, transition_weights=short), "wrong length")
    assert_bad(rewrite(tmp_path, model_path, transition_weights=b"\x93NUMPY\x09\x00junk"))
    assert_bad(rewrite(tmp_path, model_path, transition_weights=b"not numpy at all"))
    bad_shape = {"transition_weights": {"dtype": "<f4", "shape": [-1, 4]}}
    assert_bad(rewrite(tmp_path, model_path, bad_shape), "manifest entry")


def test_missing_extra_and_duplicate_members(tmp_path, model_path):
    assert_bad(
        rewrite(tmp_path, model_path, label_weights=None), "missing member 'label_weights.npy'"
    )
    assert_bad(
        rewrite(tmp_path, model_path, extra=npy(np.zeros(2))), "unexpected member 'extra.npy'"
    )
    assert_bad(
        rewrite(tmp_path, model_path, {"../evil": {"dtype": "<f4", "shape": [1]}}), "manifest entry"
    )
    duplicated = tmp_path / "dup.arcwise"
    with zipfile.ZipFile(duplicated, "w") as zf:
        for name, data in members_of(model_path).items():
            zf.writestr(name, data)
        with pytest.warns(UserWarning):
            zf.writestr("flags.npy", npy(np.array([True, False])))
    assert_bad(duplicated, "duplicate")


@given(st.data())
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_random_damage_never_escapes_as_another_exception(tmp_path, model_path, data):
    original = model_path.read_bytes()
    damaged = bytearray(original)
    for _ in range(data.draw(st.integers(1, 4))):
        position = data.draw(st.integers(0, len(damaged) - 1))
        damaged[position] = data.draw(st.integers(0, 255))
    path = tmp_path / "damaged.arcwise"
    path.write_bytes(bytes(damaged))
    for mapped in (False, True):
        try:
            loaded, _ = modelfile.load(path, mapped=mapped)
        except ArcwiseError as error:
            assert "\n" not in str(error)
        else:  # only bytes no reader looks at (timestamps, padding) may change unnoticed
            if not mapped:
                assert all(loaded[k].tobytes() == v.tobytes() for k, v in arrays().items())


def test_the_same_training_gives_the_same_file(tmp_path):
    classes = pc.ClassSet(
        ("shift", "no-arc", "left-arc", "right-arc"),
        (False, False, True, True),
        range(4),
        ["a", "b"],
    )
    files = []
    for run in range(2):
        rng = np.random.default_rng(7)
        model = pc.AveragedPerceptron(classes, 2**8, 2**6)
        scores = np.empty(classes.n_classes)
        legal = np.ones(classes.n_classes, dtype=np.bool_)
        for step in range(200):
            features = rng.integers(0, 2**63, size=8, dtype=np.int64)
            predicted = pc.best_class(model.weights, features, features[:3], legal, scores)
            gold = int(rng.integers(classes.n_classes))
            pc.update(model.weights, model.totals, features, features[:3], gold, predicted, step)
        path = tmp_path / f"run{run}.arcwise"
        modelfile.save(path, pc.to_arrays(model.averaged(200)), META)
        files.append(path.read_bytes())
    assert files[0] == files[1]


# --- a trained model with valid CRCs but wrong content: `arcwise parse` refuses it ----------


def parse_in_process(model, text, out, capsys, monkeypatch):
    """`arcwise parse -m MODEL TEXT -o OUT` through the real entry point: (exit code, stderr)."""
    import sys

    from arcwise.cli.main import main

    argv = ["arcwise", "parse", "-m", str(model), str(text), "-o", str(out)]
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as caught:
        main()
    _, err = capsys.readouterr()
    return caught.value.code or 0, err


def with_meta(source, target, change=None, **arrays_to_write):
    """A copy of the model file `source` at `target` with change(meta) applied and some arrays
    replaced (manifest updated); zipfile recomputes every CRC, so only the contents are wrong."""
    members = members_of(source)
    meta = json.loads(members["meta.json"])
    if change is not None:
        change(meta)
    for name, array in arrays_to_write.items():
        members[name + ".npy"] = npy(array)
        meta["arrays"][name] = {"dtype": array.dtype.str, "shape": list(array.shape)}
    members["meta.json"] = json.dumps(meta).encode()
    write_zip(target, members)
    return target


def setter(path, value):
    """change(meta) setting meta[path[0]][path[1]]... to value (deleting it if value is DELETE)."""
    def change(meta):
        node = meta
        for key in path[:-1]:
            node = node[key]
        if value is DELETE:
            del node[path[-1]]
        else:
            node[path[-1]] = value
    return change


DELETE = object()


def weights_with(array_name, value):
    def arrays_of(source):
        array = np.load(source)[array_name].copy()
        array.flat[0] = value
        return {array_name: array}
    return arrays_of


BAD_MODELS = {  # what is wrong: (change to the metadata, replaced arrays)
    "root label not a label": (setter(["root_label"], "nowhere"), None),
    "root label not a string": (setter(["root_label"], 5), None),
    "label with a newline": (lambda m: m["labels"].__setitem__(0, "nsubj\nx"), None),
    "label with a tab": (lambda m: m["labels"].__setitem__(0, "a\tb"), None),
    "label only a space": (lambda m: m["labels"].__setitem__(0, " "), None),
    "label with an escape": (lambda m: m["labels"].__setitem__(0, "a\x1b"), None),
    "empty label": (lambda m: m["labels"].__setitem__(0, ""), None),
    "label _": (lambda m: m["labels"].__setitem__(0, "_"), None),
    "labels repeat": (lambda m: m["labels"].__setitem__(1, m["labels"][0]), None),
    "no labels": (setter(["labels"], []), None),
    "labels not the classes'": (lambda m: m["labels"].reverse(), None),
    "NaN scale": (None, weights_with("scales", np.nan)),
    "infinite scale": (None, weights_with("scales", np.inf)),
    "zero scale": (None, weights_with("scales", 0.0)),
    "negative scale": (None, weights_with("scales", -1.0)),
    "one scale": (None, lambda s: {"scales": np.ones(1)}),
    "table not a power of two": (None, lambda s: {
        "transition_weights": np.load(s)["transition_weights"][:-1].copy()}),
    "table differs from the recorded buckets": (None, lambda s: {
        "transition_weights": np.load(s)["transition_weights"][: 2**9].copy()}),
    "weights as float32": (None, lambda s: {
        "transition_weights": np.load(s)["transition_weights"].astype("<f4")}),
    "weights of the wrong width": (None, lambda s: {
        "label_weights": np.load(s)["label_weights"][:, :-1].copy()}),
    "no form vocabulary": (setter(["vocabularies", "form"], DELETE), None),
    "vocabulary of numbers": (setter(["vocabularies", "upos", "strings"], [1, 2]), None),
    "vocabularies not a dict": (setter(["vocabularies"], []), None),
    "unknown system": (setter(["system"], "bogus"), None),
    "graph system on transition arrays": (setter(["system"], "mst"), None),
    "other option bits": (setter(["options", "option_bits"], 12345), None),
    "classes changed": (lambda m: m["classes"]["transitions"].reverse(), None),
    "no feature table": (setter(["features"], DELETE), None),
    "feature templates garbage": (setter(["features", "templates"], ["S0.zz"]), None),
    "feature count off": (lambda m: m["features"].__setitem__(
        "n_features", m["features"]["n_features"] + 1), None),
    "unknown pseudo-projective encoding": (setter(["pseudo_projective"], "weird"), None),
    "hyperparameters not a dict": (setter(["hyperparameters"], 3), None),
}


# A parser written by format 1 (float32 nonzero rows), wrong in one way.
FORMAT1 = Path(__file__).parent / "data" / "format1" / "parser.model"
BAD_FORMAT1_MODELS = {
    "NaN weight": (None, weights_with("transition_weights", np.nan)),
    "infinite weight": (None, weights_with("label_weights", np.inf)),
    "huge buckets": (None, lambda _: {"buckets": np.array([2**31, 2**31], dtype="<i8")}),
    "buckets not powers of two": (None, lambda _: {"buckets": np.array([3, 5], dtype="<i8")}),
    "buckets differ from the recorded": (
        None, lambda s: {"buckets": np.load(s)["buckets"] * 2}),
    "rows past the table": (None, lambda s: {
        "transition_rows": np.load(s)["transition_rows"] + 2**20}),
    "weights as float64": (None, lambda s: {
        "transition_weights": np.load(s)["transition_weights"].astype("<f8")}),
}


@pytest.mark.parametrize("what", BAD_FORMAT1_MODELS)
def test_parse_refuses_a_format1_model_with_wrong_content(trained_model, tmp_path, capsys,
                                                          monkeypatch, what):
    _, text = trained_model
    change, arrays_of = BAD_FORMAT1_MODELS[what]
    bad = with_meta(FORMAT1, tmp_path / "bad.arcwise", change, **arrays_of(FORMAT1))
    assert_parse_refuses(bad, text, tmp_path, capsys, monkeypatch)


def test_parse_refuses_huge_tables_before_allocating_them(trained_model, tmp_path, capsys,
                                                          monkeypatch):
    _, text = trained_model
    source = FORMAT1
    huge = 2**31

    def record(meta):
        meta["hyperparameters"].update(transition_buckets=huge, label_buckets=huge)

    bad = with_meta(source, tmp_path / "huge.arcwise", record,
                    buckets=np.array([huge, huge], dtype="<i8"))
    err = assert_parse_refuses(bad, text, tmp_path, capsys, monkeypatch)
    assert "larger than any model arcwise trains" in err


@pytest.fixture(scope="module")
def trained_model(tmp_path_factory):
    from tests.tiny_model import tiny_parser

    tmp = tmp_path_factory.mktemp("trained")
    model = tmp / "tiny.arcwise"
    tiny_parser().save(model)
    from arcwise.io import conllu
    from tests.ewt import train_and_dev

    text = tmp / "three.conllu"
    conllu.write(text, train_and_dev(0, 3)[1])
    return model, text


def assert_parse_refuses(model, text, tmp_path, capsys, monkeypatch):
    out_dir = tmp_path / "out"
    out_dir.mkdir(exist_ok=True)
    code, err = parse_in_process(model, text, out_dir / "parsed.conllu", capsys, monkeypatch)
    assert code == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"arcwise: {model}: "), err
    assert os.listdir(out_dir) == []
    return err


@pytest.mark.parametrize("what", BAD_MODELS)
def test_parse_refuses_a_model_with_wrong_content(trained_model, tmp_path, capsys, monkeypatch,
                                                  what):
    source, text = trained_model
    change, arrays_of = BAD_MODELS[what]
    bad = with_meta(source, tmp_path / "bad.arcwise", change,
                    **(arrays_of(source) if arrays_of else {}))
    assert_parse_refuses(bad, text, tmp_path, capsys, monkeypatch)


def test_the_unchanged_copy_parses(trained_model, tmp_path, capsys, monkeypatch):
    source, text = trained_model
    copy = with_meta(source, tmp_path / "copy.arcwise")
    code, err = parse_in_process(copy, text, tmp_path / "parsed.conllu", capsys, monkeypatch)
    assert (code, err) == (0, "")


@pytest.mark.parametrize("kind", ["fifo", "directory", "device"])
def test_parse_refuses_a_model_that_is_not_a_regular_file(trained_model, tmp_path, capsys,
                                                          monkeypatch, kind):
    path = tmp_path / "model"
    if kind == "fifo":
        os.mkfifo(path)  # opening it would wait for a writer forever
    elif kind == "directory":
        path.mkdir()
    else:
        path = "/dev/zero"  # reading it would fill the memory
    err = assert_parse_refuses(path, trained_model[1], tmp_path, capsys, monkeypatch)
    assert "regular file" in err or "model file" in err


def every_path(node, path=()):
    """Every key path of a JSON tree (dict keys and list indices), the root's children first."""
    items = node.items() if isinstance(node, dict) else enumerate(node) \
        if isinstance(node, list) else ()
    for key, child in items:
        yield (*path, key)
        yield from every_path(child, (*path, key))


@given(st.data())
@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_fuzzed_metadata_never_gives_a_traceback(trained_model, tmp_path, capsys, monkeypatch,
                                                 data):
    """Any field of the metadata replaced by another JSON value (or removed), or the file cut:
    parse either works (a field nothing reads; at most a warning) or exits 2 with one line
    and no output file."""
    source, text = trained_model
    meta = meta_of(source)
    paths = sorted({p for p in every_path(meta) if p[0] != "arrays" and len(p) <= 4}, key=str)
    path = data.draw(st.sampled_from(paths))
    value = data.draw(st.sampled_from(
        [DELETE, None, True, -1, 2**40, 0.5, float("inf"), "", "_", "x\ty", [], {}, ["a"]]))
    if value is DELETE and isinstance(path[-1], int):
        value = None
    bad = tmp_path / "fuzzed.arcwise"
    if data.draw(st.booleans()):
        with_meta(source, bad, setter(list(path), value))
    else:
        whole = source.read_bytes()
        bad.write_bytes(whole[: data.draw(st.integers(0, len(whole) - 1))])
    out_dir = tmp_path / "out"
    out_dir.mkdir(exist_ok=True)
    for name in os.listdir(out_dir):
        os.unlink(out_dir / name)
    code, err = parse_in_process(bad, text, out_dir / "parsed.conllu", capsys, monkeypatch)
    assert "Traceback" not in err, err
    if code == 0:  # a renamed tag in a vocabulary may leave the input's tags unseen: warned
        assert all(line.startswith("arcwise: warning: ") for line in err.splitlines()), err
        assert os.listdir(out_dir) == ["parsed.conllu"]
    else:
        assert code == 2 and err.count("\n") == 1 and os.listdir(out_dir) == [], (path, value, err)
