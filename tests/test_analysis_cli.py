"""`arcwise analyze`: JSON keys and values, report files, several treebanks, one-line errors."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.end_to_end

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "analysis"
FACTORS = ("sentence_length", "arc_length", "root_distance", "siblings", "upos", "deprel")


def arcwise(*args):
    return subprocess.run([sys.executable, "-m", "arcwise", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """One run writing a report and printing JSON (subprocesses are slow: share it)."""
    out = tmp_path_factory.mktemp("report")
    run = arcwise("analyze", DATA / "gold.conllu", DATA / "a_traced.conllu", DATA / "b.conllu",
                  "--names", "A,B", "--samples", "500", "--seed", "3", "-o", out, "--json")
    assert run.returncode == 0, run.stderr
    return out, json.loads(run.stdout)


def test_json_has_the_factors_at_the_top_level(report):
    _, data = report
    for key in (*FACTORS, "upos_class", "deprel_group", "direction", "projectivity",
                "long_arcs", "label_confusions", "transitions", "nonmonotonicity", "meta"):
        assert key in data, key
    assert list(data["sentence_length"])[0] == "1-10"
    assert list(data["arc_length"])[:2] == ["root", "1"] and ">14" in data["arc_length"]
    assert ">6" in data["root_distance"] and ">9" in data["siblings"]
    bin_ = data["arc_length"]["1"]
    assert set(bin_) == {"A", "B"}
    assert {"precision", "recall", "predicted", "predicted_correct", "gold",
            "gold_correct"} <= set(bin_["B"])
    assert bin_["B"]["precision"] == 75.0  # 3 of B's 4 arcs of length 1 (see test_analysis_factors)
    assert set(data["upos"]["NOUN"]["A"]) >= {"accuracy", "words"}
    assert data["upos"]["NOUN"]["A"]["accuracy"] == 50.0
    assert 0 < bin_["A"]["p_values"]["B"]["precision"] <= 1
    assert data["deprel"]["obl"]["A"]["recall"] == 0.0


def test_json_meta_and_transitions(report):
    _, data = report
    meta = data["meta"]
    assert meta["labeled"] is True and meta["punct"] == "include"
    assert meta["samples"] == 500 and meta["seed"] == 3
    assert len(meta["sha256"]) == 3 and all(len(h) == 64 for h in meta["sha256"].values())
    assert data["totals"]["A"]["correct"] == 6 and data["totals"]["B"]["correct"] == 5
    assert data["transitions"]["A"]["left-arc"]["arcs"] == 4 and "B" not in data["transitions"]
    assert data["nonmonotonicity"]["A"]["harmful"] == 1


def test_report_files(report):
    out, data = report
    page = (out / "index.html").read_text()
    for factor in FACTORS:
        assert (out / f"{factor}.svg").stat().st_size > 0
        assert (out / f"{factor}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f'data-factor="{factor}"><svg' in page
    assert json.loads((out / "analysis.json").read_text())["arc_length"] == data["arc_length"]
    assert "arcwise analyze" in page and data["meta"]["arcwise_version"] in page
    assert next(iter(data["meta"]["sha256"].values())) in page
    assert "Non-monotonic arc transitions" in page


def test_several_treebanks_are_aggregated(tmp_path):
    run = arcwise("analyze", "--gold", f"{DATA / 'gold.conllu'},{DATA / 'gold.conllu'}",
                  "--sys", f"{DATA / 'a.conllu'},{DATA / 'a.conllu'}",
                  "--sys", f"{DATA / 'b.conllu'},{DATA / 'b.conllu'}",
                  "--names", "A,B", "--samples", "0", "--punct", "exclude", "--json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["meta"]["words"] == 14
    assert data["sentence_length"]["1-10"]["B"]["words"] == 12  # punctuation excluded
    assert data["arc_length"]["1"]["B"]["predicted"] == 8


def test_human_output_has_a_table_per_factor():
    run = arcwise("analyze", DATA / "gold.conllu", DATA / "a.conllu", DATA / "b.conllu",
                  "--samples", "200", "--unlabeled")
    assert run.returncode == 0, run.stderr
    for factor in FACTORS:
        assert f"{factor}:" in run.stdout
    assert "UAS" in run.stdout
    assert "label confusions" in run.stdout


def small_file_limit():
    """In the child: files may not grow past 200 KB (the figures fit, index.html, written
    last, does not), and going past is an error, not a signal."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))


def test_a_report_is_replaced_whole_or_not_at_all(tmp_path):
    """Rewriting a report on a nearly full disk: the old report stays as it was, with no
    new file among its own; once the disk has room, the new one replaces it whole."""
    out = tmp_path / "report"
    args = ["analyze", DATA / "gold.conllu", DATA / "b.conllu", "--samples", "0", "-o", out]
    assert arcwise(*args).returncode == 0
    old = {name: (out / name).read_bytes() for name in os.listdir(out)}
    assert "index.html" in old
    failed = subprocess.run([sys.executable, "-m", "arcwise", *map(str, args), "--unlabeled"],
                            capture_output=True, text=True, cwd=ROOT,
                            preexec_fn=small_file_limit)
    assert failed.returncode == 2 and "Traceback" not in failed.stderr
    assert failed.stderr == f"arcwise: {out}/index.html: cannot write: File too large\n"
    assert {name: (out / name).read_bytes() for name in os.listdir(out)} == old
    assert os.listdir(tmp_path) == ["report"]  # no temporary folder left
    assert arcwise(*args, "--unlabeled").returncode == 0
    new = {name: (out / name).read_bytes() for name in os.listdir(out)}
    assert new.keys() == old.keys() and new["index.html"] != old["index.html"]
    assert b"unlabeled" in new["index.html"] and os.listdir(tmp_path) == ["report"]


@pytest.mark.parametrize("args, message", [
    (["gold.conllu"], "at least one system"),
    (["gold.conllu", "a.conllu", "--names", "A,B"], "--names gives 2 name(s) for 1 system"),
    (["gold.conllu", "a.conllu", "a.conllu"], "system names must differ"),
    (["--gold", "gold.conllu", "--sys", "a.conllu,b.conllu"], "has 2 file(s) for 1 gold"),
    (["gold.conllu", "missing.conllu"], "missing.conllu"),
])
def test_bad_usage_is_one_line_and_exit_2(args, message, monkeypatch, capsys):
    from arcwise.cli.main import main

    monkeypatch.chdir(DATA)
    monkeypatch.setattr(sys, "argv", ["arcwise", "analyze", *args])
    with pytest.raises(SystemExit) as exit_:
        main()
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
