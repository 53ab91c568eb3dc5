"""Default parse output is valid UD: the official validator (level 2) passes it and the
official CoNLL 2018 scorer accepts it (both from the `udtools` test dependency)."""

import itertools
import subprocess
import sys
from pathlib import Path

import pytest

from arcwise.cli.main import main
from arcwise.graph.mst_parser import train_graph_parser
from arcwise.io import conllu
from arcwise.transition.train import train
from tests.ewt import DATA, NO_JIT

BIN = Path(sys.executable).parent
pytestmark = [pytest.mark.end_to_end,
              pytest.mark.skipif(not (BIN / "udvalidate").exists(), reason="udtools not installed")]
# the whole test file takes ~4 s more to validate; without the JIT, parsing is the slow part
TEST_SENTENCES = 20 if NO_JIT else 500
TRAIN_SENTENCES, EPOCHS = (30, 1) if NO_JIT else (150, 2)


def ud_tool(*args) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / args[0]), *map(str, args[1:])], capture_output=True,
                          text=True, timeout=300, check=False)


@pytest.fixture(scope="module")
def gold(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("ud") / "gold.conllu"
    conllu.write(path, itertools.islice(conllu.read(DATA / "test.conllu.gz"), TEST_SENTENCES))
    assert ud_tool("udvalidate", "--lang", "en", "--level", "2", path).returncode == 0
    return path


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> dict[str, Path]:
    """A transition-based and a graph-based model, each trained on a slice of train."""
    sentences = list(itertools.islice(conllu.read(DATA / "train.conllu.gz"), TRAIN_SENTENCES))
    folder = tmp_path_factory.mktemp("models")
    eager, _ = train("arc-eager", sentences, oracle="dynamic", epochs=EPOCHS)
    graph, _ = train_graph_parser(sentences, epochs=1)
    paths = {"arc-eager": folder / "eager.arcwise", "mst": folder / "mst.arcwise"}
    eager.save(paths["arc-eager"])
    graph.save(paths["mst"])
    return paths


def run(args) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(sys, "argv", ["arcwise", *map(str, args)])
        with pytest.raises(SystemExit) as caught:
            main()
    assert (caught.value.code or 0) == 0


@pytest.fixture(scope="module")
def parsed(gold, models, tmp_path_factory) -> dict[str, Path]:
    """`arcwise parse` output of each model, with the default options."""
    folder = tmp_path_factory.mktemp("parsed")
    for kind, model in models.items():
        run(["parse", "-m", model, gold, "-o", folder / f"{kind}.conllu"])
    return {kind: folder / f"{kind}.conllu" for kind in models}


def assert_valid_ud(gold: Path, system: Path) -> None:
    validated = ud_tool("udvalidate", "--lang", "en", "--level", "2", system)
    assert validated.returncode == 0, validated.stdout + validated.stderr
    scored = ud_tool("udeval", gold, system)  # refuses several roots in a sentence
    assert scored.returncode == 0, scored.stdout + scored.stderr
    assert "LAS F1 Score" in scored.stdout


@pytest.mark.parametrize("kind", ["arc-eager", "mst"])
def test_default_parse_output_passes_the_ud_validator_and_scorer(kind, gold, parsed):
    assert_valid_ud(gold, parsed[kind])


def test_multi_root_output_is_what_the_validator_rejects(gold, models, tmp_path):
    out = tmp_path / "parsed.conllu"
    run(["parse", "-m", models["arc-eager"], gold, "-o", out, "--multi-root"])
    if not any((s.head == 0).sum() > 1 for s in conllu.read(out)):
        pytest.skip("this model left no sentence with several roots")
    validated = ud_tool("udvalidate", "--lang", "en", "--level", "2", out)
    assert validated.returncode != 0 and "multiple-roots" in validated.stdout + validated.stderr


def test_combined_output_passes_the_ud_validator_and_scorer(gold, parsed, tmp_path):
    for method in ("vote", "oracle-graph", "oracle-arc"):
        out = tmp_path / f"{method}.conllu"
        run(["combine", *parsed.values(), "--gold", gold, "--method", method, "-o", out])
        assert_valid_ud(gold, out)


def test_raw_text_of_every_kind_gives_valid_ud(tmp_path):
    """Raw text with a byte-order mark, decomposed characters, tabs, no-break and other
    Unicode spaces, a zero-width space, emoji and right-to-left script parses into CoNLL-U
    that the validator passes."""
    from tests.tiny_model import tiny_pipeline

    model, raw = tmp_path / "pipeline.arcwise", tmp_path / "raw.txt"
    tiny_pipeline().save(model)
    raw.write_text("\ufeffThe cafe\u0301 was\tnai\u0308ve. A\u00a0dog\u000bran\u2028far.\n"
                   "Zero\u200bwidth and \U0001F600 too.\u3000Done.\n\n"
                   "\u05e9\u05dc\u05d5\u05dd and more text\r\nhere.\n", encoding="utf-8")
    out = tmp_path / "parsed.conllu"
    run(["parse", "-m", model, "--input", "text", raw, "-o", out])
    validated = ud_tool("udvalidate", "--lang", "en", "--level", "2", out)
    assert validated.returncode == 0, validated.stdout + validated.stderr
    forms = [f for s in conllu.read(out) for f in s.form[1:]]
    assert "\ufeff" not in "".join(forms) and "caf\u00e9" in "".join(forms)
