"""Smoke tests of bench/speed.py and bench/accuracy.py: each main on ~20 sentences, 1 epoch."""

import itertools
import json
import os
import sys
from pathlib import Path

import pytest

from arcwise.io import conllu, read_treebank

ROOT = Path(__file__).resolve().parents[1]
EWT = ROOT / "data" / "en_ewt"


def tiny_treebank(folder: Path, sentences: int) -> Path:
    """A treebank folder of the first `sentences` sentences of each EWT split."""
    folder.mkdir(parents=True)
    for split in ("train", "dev", "test"):
        conllu.write(folder / f"{split}.conllu.gz",
                     itertools.islice(read_treebank(EWT / f"{split}.conllu.gz"), sentences))
    return folder

# The benches time compiled code; uncompiled, a single epoch would dominate the no-JIT suite.
pytestmark = pytest.mark.skipif(
    os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="benchmarks of compiled code"
)


@pytest.fixture
def bench(monkeypatch):
    """The bench scripts as modules (bench/ on sys.path, so spawned workers import them too)."""
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    import accuracy
    import speed

    yield speed, accuracy
    for name in ("speed", "accuracy"):
        sys.modules.pop(name, None)


def test_children_inherit_the_callers_numba_cache_when_asked(monkeypatch, tmp_path):
    """--numba-cache-dir inherit leaves NUMBA_CACHE_DIR alone (it used to become a folder
    named inherit/<fingerprint> in the working directory: a cold cache every time)."""
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    import numba_cache

    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    numba_cache.use_for_children("inherit")
    assert "NUMBA_CACHE_DIR" not in os.environ
    numba_cache.use_for_children(tmp_path)
    assert os.environ["NUMBA_CACHE_DIR"] == str(tmp_path / numba_cache.source_fingerprint())

def test_speed_main_measures_every_figure(bench, capsys):
    speed, _ = bench
    # the children share the suite's numba cache: a cold bench cache would compile every kernel
    [result] = speed.main(["--systems", "arc-eager", "--sentences", "20", "--no-cold", "--json",
                           "--numba-cache-dir", "inherit"])
    printed = json.loads(capsys.readouterr().out)
    assert printed["results"] == [result]
    assert result["train_sentences"] == 20 and result["test_sentences"] == 20
    for key in ("seconds_per_epoch", "batch_sentences_per_second", "e2e_sentences_per_second",
                "warm_start_seconds", "warm_first_sentence_seconds", "train_peak_rss_mb",
                "parse_peak_rss_mb"):
        assert result[key] > 0, key
    assert result["warm_first_sentence_seconds"] <= result["warm_start_seconds"]
    assert "| arc-eager | dynamic |" in speed.markdown_table([result])


TINY_GRID = """\
title = "Tiny"
treebanks = ["English-Tiny"]
seeds = [1]
epochs = 1
[[configurations]]
name = "covington:static"
system = "covington"
oracle = "static"
[[configurations]]
name = "covington:dynamic"
system = "covington"
oracle = "dynamic"
[[contrasts]]
a = "covington:dynamic"
b = "covington:static"
paper = "t3"
[papers.t3]
text = "The paper's Table 3"
"""


def test_accuracy_main_writes_results_and_resumes(bench, tmp_path):
    _, accuracy = bench
    tiny_treebank(tmp_path / "ud" / "English-Tiny", 20)
    grid = tmp_path / "tiny.toml"
    grid.write_text(TINY_GRID)
    argv = ["--data", str(tmp_path / "ud"), "--grids", str(grid), "--workers", "1",
            "--allow-dirty", "--results", str(tmp_path / "results"),
            "--output", str(tmp_path / "RESULTS.md"), "--numba-cache-dir", "inherit"]
    results = accuracy.main(argv)["tiny"]
    assert [r["cell"]["config"]["name"] for r in results] == ["covington:static",
                                                               "covington:dynamic"]
    assert all(0 <= r["test"]["las"] <= r["test"]["uas"] <= 100 for r in results)
    report = (tmp_path / "RESULTS.md").read_text()
    assert "| English-Tiny | 1 |" in report and "The paper's Table 3" in report
    assert len(list((tmp_path / "results").glob("*.json"))) == 2
    # a second run finds the cached cells and trains nothing; without --data, only reports
    assert accuracy.main(argv) == {"tiny": results}
    assert accuracy.main(argv[2:]) == {"tiny": results}


def test_a_grid_run_on_other_treebanks_reports_what_ran_with_its_notes(bench, tmp_path,
                                                                         monkeypatch):
    """bench/accuracy.py's ON_OTHER_TREEBANKS: a grid run with --other-treebanks and some of
    its configurations is reported on the treebanks of its cells, with only the
    configurations that ran (and the contrasts between them), then its notes."""
    from arcwise.experiments import grid as grids
    from arcwise.experiments.cells import selection
    from arcwise.experiments.run import run_grid

    _, accuracy = bench
    tiny_treebank(tmp_path / "other" / "English-Other", 20)
    grid_file = tmp_path / "tiny.toml"
    grid_file.write_text(TINY_GRID)
    grid = grids.on_treebanks(grids.load(grid_file, tmp_path / "other"), ["all"])
    cells = tmp_path / "results" / "tiny-other"
    run_grid(grid, cells, workers=1, allow_dirty=True,
             select=selection(grid, None, ["covington:static"], None))
    (tmp_path / "results" / "tiny-other-notes.md").write_text("#### So\n\nIt ran.")
    monkeypatch.setattr(accuracy, "ON_OTHER_TREEBANKS",
                        [(grid_file, cells, "on other treebanks", "`COMMANDS`")])
    text = accuracy.section([], {}, "CMD")
    assert "### Tiny, on other treebanks" in text and "| English-Other |" in text
    assert "covington:dynamic" not in text  # it did not run: no column, no contrast
    assert text.index("- Commands: `COMMANDS`") < text.index("#### So")


def test_combination_main_trains_missing_models_then_reuses_them(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    import combination

    treebank = tiny_treebank(tmp_path / "English-Tiny", 20)
    argv = ["--treebank", str(treebank), "--models", str(tmp_path / "models"), "--samples", "50"]
    result = combination.main(argv)
    rows = result["rows"]
    assert set(combination.SYSTEMS) <= set(rows)
    best = max(rows[s]["las"] for s in combination.SYSTEMS)
    assert rows["oracle-graph"]["las"] >= best and rows["oracle-arc"]["las"] >= best
    assert len(list((tmp_path / "models").glob("*.model"))) == 3
    assert combination.main(argv) == result  # the saved models give the same results
    sys.modules.pop("combination", None)


def test_stepped_perceptron_times_both_paths(monkeypatch, tmp_path, capsys):
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    import stepped_perceptron

    try:
        small = tmp_path / "small.conllu"
        conllu.write(small, itertools.islice(read_treebank(EWT / "dev.conllu.gz"), 30))
        stepped_perceptron.main(["--train", str(small), "--test", str(small), "--batches",
                                 "1,8", "--repeats", "1", "--buckets", str(2**14), "--json"])
    finally:
        sys.modules.pop("stepped_perceptron", None)
    rows = json.loads(capsys.readouterr().out)
    assert [(r["task"], r["path"]) for r in rows] == [
        ("train epoch", "fused"), ("train epoch", "stepped, 1 per batch"),
        ("train epoch", "stepped, 8 per batch"), ("parse", "fused"),
        ("parse", "stepped, 1 per batch"), ("parse", "stepped, 8 per batch")]
    assert all(r["cpu_s"] > 0 and r["sentences"] == 30 for r in rows)


def test_transition_profile_times_every_phase(monkeypatch, tmp_path, capsys):
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    import transition_profile

    try:
        small = tmp_path / "small.conllu"
        conllu.write(small, itertools.islice(read_treebank(EWT / "dev.conllu.gz"), 20))
        transition_profile.main(["--systems", "covington-nm", "--train", str(small), "--test",
                                 str(small), "--epochs", "1", "--repeats", "1",
                                 "--save-dir", str(tmp_path / "models")])
    finally:
        sys.modules.pop("transition_profile", None)
    out = capsys.readouterr().out
    assert "covington-nm:" in out and "no-arc" in out
    for phase in transition_profile.PHASES + ("stepped", "fused"):
        assert f"  {phase} " in out
    assert (tmp_path / "models" / "covington-nm.arcwise").exists()


@pytest.mark.end_to_end
@pytest.mark.neural
def test_stacking_main_reruns_table_6_with_neural_models(tmp_path, monkeypatch):
    """bench/stacking.py --model neural: the biaffine parser and a BiLSTM transition parser,
    each alone and guided by the other, kept apart from the perceptron's results."""
    pytest.importorskip("torch")
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    import report
    import stacking

    treebank = tiny_treebank(tmp_path / "English-Tiny", 16)
    sections = {}
    monkeypatch.setattr(report, "write_section", lambda name, text: sections.update({name: text}))
    tiny = [f"--neural={k}" for k in ("word=8", "lstm=8", "hidden=8", "tag=4", "batch_sentences=4")]
    try:
        [result] = stacking.main([str(treebank / "train.conllu.gz"), "--model", "neural",
                                  *tiny, "--epochs", "1", "--mst-epochs", "1", "--workers", "1",
                                  "--samples", "50", "--results", str(tmp_path / "kept"),
                                  "--numba-cache-dir", "inherit", "--report"])
    finally:
        sys.modules.pop("stacking", None)
    assert result["model"] == "neural" and result["neural"]["bilstm"]["threads"] == 1
    assert set(result["las"]) == {"mst", "mst_guided", "transition", "transition_guided",
                                  "oracle-graph", "oracle-arc"}
    assert all(0 <= las <= 100 for las in result["las"].values())
    [kept] = (tmp_path / "kept").glob("*.json")
    assert kept.name.endswith("__neural.json")
    assert "biaffine" in sections["stacking-neural"] and "stacking" not in sections
    assert not (Path.cwd() / "inherit").exists()


@pytest.mark.end_to_end
@pytest.mark.neural
def test_embeddings_bench_compares_no_random_and_given_vectors(tmp_path, monkeypatch, capsys):
    """bench/embeddings.py --vectors FILE (no gensim): the three conditions, the random
    control written for the same words, and the report's table; the parsers on half the
    training sentences."""
    pytest.importorskip("torch")
    import numpy as np

    from arcwise.learn.embeddings import read_vectors, write_vectors

    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    import embeddings
    import report

    tiny_treebank(tmp_path / "ud" / "English-Tiny", 12)
    words = sorted({f.lower() for s in read_treebank(tmp_path / "ud" / "English-Tiny" /
                                                      "train.conllu.gz") for f in s.form[1:]})
    given = tmp_path / "given.vec"
    write_vectors(given, words, np.random.default_rng(0).standard_normal((len(words), 4)))
    sections = {}
    monkeypatch.setattr(report, "write_section", lambda name, text: sections.update({name: text}))
    monkeypatch.setattr(embeddings, "RESULTS", tmp_path / "kept")
    tiny = [f"--neural={k}" for k in ("word=8", "lstm=8", "hidden=8", "tag=4")]
    try:
        assert embeddings.main([str(tmp_path / "ud"), "--treebank", "English-Tiny",
                                "--epochs", "1", "--seeds", "1,2", "--vectors", str(given),
                                "--out", str(tmp_path / "out"), "--parser-sentences", "6",
                                *tiny, "--report"]) == 0
    finally:
        sys.modules.pop("embeddings", None)
    out = capsys.readouterr().out
    assert all(f"{c} seed {s}:" in out for c in ("none", "random", "trained") for s in (1, 2))
    control = read_vectors(tmp_path / "out" / "English-Tiny.random.vec", extra=10**6)
    assert control.words == tuple(words) and control.dimension == 4
    text = sections["embeddings"]
    assert "| random | 2 |" in text and "mean test LAS" in text and "--vectors" in text
    [kept] = (tmp_path / "kept").glob("*.json")
    assert kept.name == "English-Tiny_two-planar_static_e1_n6.json"
    assert "the parsers on 6 of the training sentences" in text


TINY_NEURAL_GRID = """\
title = "Tiny neural"
treebanks = ["English-Tiny"]
seeds = [1]
epochs = 1
options = { model = "bilstm", neural = { threads = 1, word = 8, lstm = 8, hidden = 8, tag = 4 } }
[[configurations]]
name = "bilstm:arc-eager:static"
system = "arc-eager"
oracle = "static"
[[tables]]
title = "Tiny table"
columns = [["arc-eager", "bilstm:arc-eager:static"]]
"""


@pytest.mark.end_to_end
@pytest.mark.neural
def test_neural_section_reports_its_grids_cells_finished_so_far_with_their_notes(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    from arcwise.experiments import grid as grids
    from arcwise.experiments.run import run_grid

    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    import neural

    tiny_treebank(tmp_path / "ud" / "English-Tiny", 12)
    grid = tmp_path / "tiny-neural.toml"
    grid.write_text(TINY_NEURAL_GRID)
    try:
        cells = tmp_path / "results" / "cells"
        monkeypatch.setattr(neural, "GRIDS", [neural.GridReport(grid, cells, "DATA")])
        assert neural.grid_section() == []  # nothing run yet: no subsection
        run_grid(grids.load(grid, tmp_path / "ud"), cells, workers=1, allow_dirty=True)
        text = "\n".join(neural.grid_section())
        (tmp_path / "results" / "cells-notes.md").write_text("#### What it means\n\nNothing.")
        with_notes = "\n".join(neural.grid_section())
    finally:
        sys.modules.pop("neural", None)
    assert "### Tiny neural" in text and "| English-Tiny |" in text
    assert "1 of 1 cells finished" in text and "experiments/tiny-neural.toml" in text
    assert "What it means" not in text and with_notes.endswith("#### What it means\n\nNothing.")



@pytest.mark.end_to_end
@pytest.mark.neural
def test_neural_bench_makes_its_save_folder_before_training(tmp_path, monkeypatch, capsys):
    """bench/neural.py --save: a missing folder is made before training, and a folder that
    cannot be made stops it at once (exit 2, one line), not after the training hours."""
    pytest.importorskip("torch")
    data = tiny_treebank(tmp_path / "tiny", 8)
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    import neural

    splits = [f"--{s}={data / f'{s}.conllu.gz'}" for s in ("train", "dev", "test")]
    tiny = [f"--neural={k}" for k in ("word=8", "lstm=8", "hidden=8", "tag=4")]
    (tmp_path / "file").write_text("")
    try:
        assert neural.main([*splits, *tiny, "--epochs", "1", "--threads", "1",
                            "--save", str(tmp_path / "file" / "models")]) == 2
        err = capsys.readouterr().err
        assert "cannot make" in err and '"epoch"' not in err and "Traceback" not in err
        assert neural.main([*splits, *tiny, "--epochs", "1", "--threads", "1",
                            "--save", str(tmp_path / "new" / "models")]) == 0
    finally:
        sys.modules.pop("neural", None)
    assert (tmp_path / "new" / "models" / "arc-eager_dynamic.arcwise").exists()
    assert "test UAS" in capsys.readouterr().out

def test_feature_tables_compares_a_table_file_with_the_default(tmp_path, monkeypatch, capsys):
    """bench/feature_tables.py: the default table and each file, trained alike, scored and
    timed; the file's template count is its own."""
    data = tiny_treebank(tmp_path / "tiny", 20)
    table = tmp_path / "focus.txt"
    table.write_text("L0.w  @label\nL0.p  @label\nR0.w  @label\nR0.p  @label\nL0.p + R0.p\n")
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    import feature_tables

    try:
        default, mine = feature_tables.main(
            [str(table), "--epochs", "1", *(f"--{s}={data / f'{s}.conllu.gz'}"
                                           for s in ("train", "dev", "test"))])
    finally:
        sys.modules.pop("feature_tables", None)
    assert (default["table"], mine["table"]) == ("default", str(table))
    assert default["templates"] == 129 and mine["templates"] == 5
    assert all(0 <= r["test_las"] <= r["test_uas"] <= 100 and r["sentences_per_second"] > 0
               for r in (default, mine))
    assert "covington-nm " + str(table) + ": 5 templates" in capsys.readouterr().out
