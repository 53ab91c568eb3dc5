"""Model packages (`arcwise package`, `arcwise.models.packages`): a wheel holding the model
and its card, byte-identical when built twice, installed with pip (offline, into a folder
put on PYTHONPATH) and then found by name by `arcwise.load`, `-m` and `arcwise models`; a
package built for another arcwise is refused in one line."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from arcwise.io import conllu
from arcwise.models import packages
from tests.ewt import train_and_dev
from tests.tiny_model import arcwise, one_line
from tests.tiny_model import tiny_pipeline_model  # noqa: F401 -- a fixture

pytestmark = [pytest.mark.end_to_end, pytest.mark.packaging]
pytest.importorskip("udtools", reason="the eval extra (the CoNLL 2018 scorer) is not installed")

LICENCE = "Attribution-ShareAlike 4.0 International\n\nThe licence's text.\n"


@pytest.fixture(scope="module")
def treebank(tmp_path_factory) -> Path:
    """A UD-like treebank folder: a test split, a README with a License: line, a LICENSE."""
    folder = tmp_path_factory.mktemp("UD_English-Tiny")
    _, test = train_and_dev(0, 5)
    conllu.write(folder / "test.conllu", test)
    (folder / "README.md").write_text("# Tiny\n\nLicense: CC BY-SA 4.0\n")
    (folder / "LICENSE.txt").write_text(LICENCE)
    (folder / "SOURCE.txt").write_text("name: English-Tiny\nsource_repo: https://example.org\n")
    return folder


@pytest.fixture(scope="module")
def wheel(tiny_pipeline_model, treebank, tmp_path_factory):  # noqa: F811
    out = tmp_path_factory.mktemp("dist")
    run = arcwise("package", tiny_pipeline_model, "--name", "en_tiny", "--treebank", treebank,
                  "-o", out)
    assert run.returncode == 0, run.stderr.decode()
    (path,) = out.glob("*.whl")
    return path


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """The wheel installed by pip into a folder (offline, no dependencies)."""
    target = tmp_path_factory.mktemp("site")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                    "--no-index", "--target", str(target), str(wheel)], check=True)
    return target


def on_path(target: Path) -> dict[str, str]:
    return {"PYTHONPATH": os.pathsep.join([str(Path(__file__).parents[1] / "src"),
                                           str(target)])}


def test_the_wheel_holds_the_model_its_card_and_a_valid_record(wheel, tiny_pipeline_model):  # noqa: F811
    assert wheel.name == "en_tiny-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        assert {"en_tiny/__init__.py", "en_tiny/card.json", "en_tiny/README.md",
                "en_tiny/model.arcwise", "en_tiny/TREEBANK_LICENSE.txt",
                "en_tiny-0.1.0.dist-info/METADATA", "en_tiny-0.1.0.dist-info/WHEEL",
                "en_tiny-0.1.0.dist-info/RECORD",
                "en_tiny-0.1.0.dist-info/entry_points.txt"} <= names
        assert zf.read("en_tiny/model.arcwise") == Path(tiny_pipeline_model).read_bytes()
        assert zf.read("en_tiny/TREEBANK_LICENSE.txt").decode() == LICENCE
        record = list(csv.reader(io.StringIO(zf.read("en_tiny-0.1.0.dist-info/RECORD")
                                             .decode())))
        assert {row[0] for row in record} == names
        for path, digest, size in record:
            if path.endswith("RECORD"):
                continue
            data = zf.read(path)
            expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            assert digest == "sha256=" + expected.decode() and int(size) == len(data)
        metadata = zf.read("en_tiny-0.1.0.dist-info/METADATA").decode()
        assert "Requires-Dist: arcwise>=0.1.0,<0.2" in metadata
        assert "License: CC BY-SA 4.0" in metadata
        assert "[arcwise.models]\nen_tiny = en_tiny" in zf.read(
            "en_tiny-0.1.0.dist-info/entry_points.txt").decode()
        card = json.loads(zf.read("en_tiny/card.json"))
    assert card["lang"] == "en" and card["licence"] == "CC BY-SA 4.0"
    assert card["treebank"]["name"] == "English-Tiny"
    assert card["components"] == ["tokenizer", "tagger", "parser"]
    test = card["scores"]["test"]
    assert test["input"] == "raw text" and test["sentences"] == 5
    assert 0 <= test["LAS"] <= 100 and 0 < test["Tokens"] <= 100


def test_packaging_twice_gives_the_same_bytes(wheel, tiny_pipeline_model, treebank, tmp_path):  # noqa: F811
    run = arcwise("package", tiny_pipeline_model, "--name", "en_tiny", "--treebank", treebank,
                  "-o", tmp_path)
    assert run.returncode == 0
    assert (tmp_path / wheel.name).read_bytes() == wheel.read_bytes()


def test_an_installed_package_loads_by_name_everywhere(installed, tmp_path):
    env = on_path(installed)
    text = tmp_path / "raw.txt"
    text.write_text("The dog barked. It slept.\n")
    by_name = arcwise("parse", "-m", "en_tiny", text, env=env)
    assert by_name.returncode == 0, by_name.stderr.decode()
    by_path = arcwise("parse", "-m", installed / "en_tiny" / "model.arcwise", text, env=env)
    assert by_name.stdout == by_path.stdout and b"# text = The dog barked." in by_name.stdout
    listed = arcwise("models", "--json", env=env)
    models = json.loads(listed.stdout)
    assert models["en_tiny"]["compatible"] and models["en_tiny"]["card"]["lang"] == "en"
    code = ("import arcwise, en_tiny; nlp = arcwise.load('en_tiny'); "
            "assert en_tiny.load().lang == nlp.lang == 'en'; "
            "print(nlp('The dog barked.').to_spacy().lang_)")
    run = subprocess.run([sys.executable, "-c", code], env={**os.environ, **env},
                         capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.strip() == "en", run.stderr


def test_a_package_for_another_arcwise_is_refused_in_one_line(installed, tmp_path):
    other = tmp_path / "site"
    import shutil

    shutil.copytree(installed, other)
    card_file = other / "en_tiny" / "card.json"
    card = json.loads(card_file.read_text())
    card["requires_arcwise"] = ">=9.0,<10"
    card_file.write_text(json.dumps(card))
    run = arcwise("parse", "-m", "en_tiny", "-", input=b"The dog barked.\n", env=on_path(other))
    line = one_line(run.stderr)
    assert run.returncode == 2 and "arcwise>=9.0,<10" in line and "this is arcwise" in line
    assert not json.loads(arcwise("models", "--json", env=on_path(other)).stdout)[
        "en_tiny"]["compatible"]


def test_an_unknown_name_says_what_is_installed(installed):
    run = arcwise("parse", "-m", "en_nothing", "-", input=b"x\n", env=on_path(installed))
    line = one_line(run.stderr)
    assert run.returncode == 2 and "no model file or installed model package" in line
    assert "en_tiny" in line


def test_bad_names_and_versions_are_refused(tiny_pipeline_model, tmp_path):  # noqa: F811
    for args in (["--name", "En-Tiny"], ["--name", "en_tiny", "--version", "not a version"]):
        run = arcwise("package", tiny_pipeline_model, *args, "-o", tmp_path)
        assert run.returncode == 2 and not list(tmp_path.iterdir()), run.stderr


def test_compatible_versions_and_language_codes():
    assert packages.compatible_versions("0.1.0") == ">=0.1.0,<0.2"
    assert packages.compatible_versions("1.4.2") == ">=1.4.2,<2"
    assert packages.language_of("en_ewt") == "en"
    assert packages.language_of("english_ewt") is None and packages.language_of("en") is None


def test_make_models_builds_a_package_per_treebank_folder(tmp_path):
    """`make models DATA=DIR`: a pipeline and a wheel per folder, named as UD names its files
    or after the folder; a second run finds them done."""
    from arcwise.packaging.build import build, package_name

    train, dev = train_and_dev(12, 4)
    data = tmp_path / "ud"
    for folder, prefix in (("UD_English-Small", "en_small-ud-"), ("Tiny-Bank", "")):
        (data / folder).mkdir(parents=True)
        for split, sentences in (("train", train), ("dev", dev), ("test", dev)):
            conllu.write(data / folder / f"{prefix}{split}.conllu", sentences)
        (data / folder / "LICENSE.txt").write_text(LICENCE)
    (data / "notes").mkdir()  # no treebank: skipped
    assert [package_name(data / f) for f in ("UD_English-Small", "Tiny-Bank")] == \
        ["en_small", "tiny_bank"]
    training = ["--system", "arc-eager", "--epochs", "1", "--tag-folds", "2",
                "--tagger", "epochs=1"]
    wheels = build(data, tmp_path / "out", training=training)
    assert [w.name for w in wheels] == ["tiny_bank-0.1.0-py3-none-any.whl",
                                        "en_small-0.1.0-py3-none-any.whl"]
    with zipfile.ZipFile(wheels[1]) as zf:
        card = json.loads(zf.read("en_small/card.json"))
    assert card["lang"] == "en" and card["scores"]["test"]["sentences"] == 4
    assert card["licence"] == "Attribution-ShareAlike 4.0 International"
    assert build(data, tmp_path / "out", training=training) == wheels  # resumed: all done
