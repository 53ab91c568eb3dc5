"""Model-file format 2 (issue #40, item 3): int8 weight tables, deflated members, and the
files of format 1 still read (tests/data/format1: written by commit 43688f4)."""

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from arcwise.core.errors import ArcwiseError
from arcwise.io import conllu
from arcwise.learn import perceptron as pc
from arcwise.models import kinds, modelfile
from arcwise.pipeline.pipeline import Pipeline
from arcwise.transition.parser import Parser
from tests.ewt import train_and_dev
from tests.test_modelfile import META, assert_bad

FORMAT1 = Path(__file__).parent / "data" / "format1"


def trees(sentences):
    return [(s.head.tolist(), list(s.deprel)) for s in sentences]


def test_format1_files_load_and_parse_as_they_did(tmp_path):
    parser = kinds.load(FORMAT1 / "parser.model")
    assert parser.weights.transition.dtype == np.float32  # format 1's weights, exact
    assert modelfile.read_meta(FORMAT1 / "parser.model")["format_version"] == 1
    _, dev = train_and_dev(0, 3)
    parsed = [conllu.with_tree(s, *t) for s, t in zip(dev, parser.parse(dev))]
    assert trees(parsed) == trees(conllu.read(FORMAT1 / "parsed.conllu"))
    pipeline = kinds.load(FORMAT1 / "pipeline.model")
    out = tmp_path / "out.conllu"
    pipeline.parse_file(FORMAT1 / "text.txt", out, format="text")
    assert out.read_text() == (FORMAT1 / "pipeline.conllu").read_text()


@pytest.mark.parametrize("name", ["parser.model", "pipeline.model"])
def test_format1_files_convert_to_a_quarter_or_less(tmp_path, name):
    old = FORMAT1 / name
    new = tmp_path / name
    kinds.load(old).save(new)
    assert new.stat().st_size * 4 <= old.stat().st_size
    meta = modelfile.read_meta(new)
    assert meta["format_version"] == 2  # no float16 array (those make format 3)
    with zipfile.ZipFile(new) as zf:
        for info in zf.infolist():
            if info.filename.endswith("weights.npy"):
                assert info.compress_type == zipfile.ZIP_DEFLATED, info.filename
    again = tmp_path / f"again-{name}"
    kinds.load(new).save(again)  # int8 weights are written back unchanged
    assert again.read_bytes() == new.read_bytes()


def test_a_converted_parser_parses_nearly_as_before(tmp_path):
    new = tmp_path / "parser.model"
    kinds.load(FORMAT1 / "parser.model").save(new)
    parser = Parser.load(new)
    assert parser.weights.transition.dtype == parser.weights.label.dtype == np.int8
    _, dev = train_and_dev(0, 20)
    old_trees = kinds.load(FORMAT1 / "parser.model").parse(dev)
    new_trees = parser.parse(dev)
    words = sum(len(a[0]) - 1 for a in old_trees)
    same = sum(int(((a[0] == b[0]) & (np.array(a[1]) == np.array(b[1])))[1:].sum())
               for a, b in zip(old_trees, new_trees))
    assert same >= 0.97 * words  # rounding to 1/127 of the largest weight changes few arcs


def test_a_pipeline_round_trips_and_tags_the_same_after_loading(tmp_path):
    path = tmp_path / "p.model"
    kinds.load(FORMAT1 / "pipeline.model").save(path)
    first, second = tmp_path / "1.conllu", tmp_path / "2.conllu"
    Pipeline.load(path).parse_file(FORMAT1 / "text.txt", first, format="text")
    Pipeline.load(path, mapped=True).parse_file(FORMAT1 / "text.txt", second, format="text")
    assert first.read_text() == second.read_text()


def deflated_model(tmp_path):
    weights = pc.Weights(np.random.default_rng(3).standard_normal((4096, 4)).astype(np.float32),
                         np.zeros((16, 6), dtype=np.float32), 3)
    path = tmp_path / "model.arcwise"
    modelfile.save(path, pc.to_arrays(weights), META)
    return path


def test_a_corrupted_deflated_member_is_refused(tmp_path):
    path = deflated_model(tmp_path)
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo("transition_weights.npy")
        assert info.compress_type == zipfile.ZIP_DEFLATED
    data = bytearray(path.read_bytes())
    middle = info.header_offset + 30 + len(info.filename) + info.compress_size // 2
    data[middle] ^= 0x55
    path.write_bytes(bytes(data))
    assert_bad(path, "corrupt model file")
    with pytest.raises(ArcwiseError, match="corrupt model file"):
        modelfile.load(path, mapped=True)  # a deflated member is always read, and checked


def test_a_deflated_member_claiming_a_huge_size_is_refused_before_reading(tmp_path):
    path = deflated_model(tmp_path)
    members = {}
    with zipfile.ZipFile(path) as zf:
        for name in zf.namelist():
            members[name] = zf.read(name)
    meta = json.loads(members["meta.json"])
    huge = [2**31, 4]
    meta["arrays"]["transition_weights"]["shape"] = huge
    header = np.lib.format.header_data_from_array_1_0(np.zeros((1, 4), dtype=np.int8))
    header["shape"] = tuple(huge)
    import io
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, header)
    members["transition_weights.npy"] = buffer.getvalue() + b"\0" * 1000
    members["meta.json"] = json.dumps(meta).encode()
    bomb = tmp_path / "bomb.arcwise"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    assert_bad(bomb, "wrong length")


def test_the_scales_are_checked_on_load(tmp_path):
    path = deflated_model(tmp_path)
    arrays, _ = modelfile.load(path)
    classes = pc.ClassSet(("shift", "no-arc", "left-arc", "right-arc"), (False, False, True, True),
                          range(4), META["labels"])
    weights = pc.from_arrays(arrays, classes, str(path))
    assert weights.transition_scale > 0 and weights.label_scale == 1.0  # an all-zero table
    for bad in ([np.nan, 1.0], [1.0, -2.0], [0.0, 1.0]):
        with pytest.raises(ArcwiseError, match="scales"):
            pc.from_arrays({**arrays, "scales": np.array(bad)}, classes, str(path))
