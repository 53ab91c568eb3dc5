"""`arcwise experiment`: grid validation, the smoke grid on a local pool and on Dask, a killed
run resumed, dirty-tree refusal, and contrast figures against a hand computation."""

from __future__ import annotations

import itertools
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arcwise.core.errors import ArcwiseError
from arcwise.experiments import cells as cells_module
from arcwise.experiments import grid as grids
from arcwise.experiments import report, tables
from arcwise.experiments.cells import Revision, load_results, migrate, source_revision
from arcwise.experiments.grid import Contrast
from arcwise.experiments.run import run_grid
from tests.signal_dispositions import dispositions

pytestmark = pytest.mark.end_to_end

ROOT = Path(__file__).resolve().parents[1]
SMOKE = ROOT / "experiments" / "smoke.toml"
CLEAN = Revision("0" * 40, False)


def arcwise(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "arcwise", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, **kwargs)


# --- grid files ----------------------------------------------------------------

GOOD = """\
treebanks = ["en_ewt"]
seeds = [1]
epochs = 1
[[configurations]]
system = "arc-eager"
oracle = "static"
[[configurations]]
system = "covington-nm"
oracle = "dynamic"
bound = "upper"
options = { explore_p = 0.5 }
[[contrasts]]
a = "covington-nm:dynamic:upper"
b = "arc-eager:static"
"""


def write_grid(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "grid.toml"
    path.write_text(text)
    return path


def test_a_good_grid_names_its_configurations_and_resolves_treebanks(tmp_path):
    grid = grids.load(write_grid(tmp_path, GOOD), data=ROOT / "data")
    assert [c.name for c in grid.configurations] == ["arc-eager:static",
                                                     "covington-nm:dynamic:upper"]
    assert grid.configurations[1].options == {"explore_p": 0.5}
    files = grids.treebank_files(grid, "en_ewt")
    assert files["test"] == ROOT / "data" / "en_ewt" / "test.conllu.gz"
    # the UD release layout, *-ud-SPLIT.conllu
    ud = tmp_path / "ud" / "UD_Tiny"
    ud.mkdir(parents=True)
    for split in grids.SPLITS:
        (ud / f"xx_tiny-ud-{split}.conllu").write_text("")
    grid = grids.load(write_grid(tmp_path, GOOD.replace("en_ewt", "UD_Tiny")), data=ud.parent)
    assert grids.treebank_files(grid, "UD_Tiny")["dev"] == ud / "xx_tiny-ud-dev.conllu"


@pytest.mark.parametrize("change, message", [
    (("seeds = [1]", "seeds = []"), "seeds must be a non-empty list"),
    (("epochs = 1", "epochs = 0"), 'epochs (or "default") must be an integer >= 1'),
    (("epochs = 1", "epochs = 1\nepoch = 2"), "unknown key 'epoch'"),
    (('oracle = "static"', 'oracle = "greedy"'), "oracle must be one of static, dynamic"),
    (('system = "arc-eager"', 'system = "arc-yeager"'), "unknown transition system"),
    (('bound = "upper"', 'bound = "tight"'), "takes bound in"),
    (("explore_p = 0.5", "bogus = 1"), "bogus"),
    (("explore_p = 0.5", "seed = 3"), "option 'seed' is set by the grid"),
    # option values, checked as each cell's training would (`train.check_options`)
    (("explore_p = 0.5", "transition_buckets = 1000"), ("configuration "
     "'covington-nm:dynamic:upper': transition_buckets must be a power of two, not 1000")),
    (("explore_p = 0.5", "explore_p = 1.5"), "explore_p must be a probability (0 to 1), not 1.5"),
    (("explore_p = 0.5", 'pseudo_projective = "heads"'), "unknown pseudo-projective encoding"),
    (("explore_p = 0.5", 'oracle_priority = "often"'), "oracle priority must be one of"),
    (("explore_p = 0.5", 'model = "svm"'), "model must be one of perceptron, bilstm, not 'svm'"),
    (("explore_p = 0.5", 'model = "bilstm", neural = { hiden = 50 }'), "unknown neural option"),
    (("explore_p = 0.5", 'model = "bilstm", neural = { batch_sentences = 0 }'),
     "neural batch_sentences must be at least 1, not 0"),
    (('b = "arc-eager:static"', 'b = "arc-eager:dynamic"'), "no configuration named"),
    (('a = "covington-nm:dynamic:upper"\n', 'a = "x"\npaper = "t9"\n'), "no configuration"),
    (("treebanks = [\"en_ewt\"]", "treebanks = [\"../etc\"]"), "is not a name"),
    (("[[contrasts]]", "[[contrasts]\n"), "not valid TOML"),
])
def test_grid_errors_are_one_line_naming_the_file(tmp_path, change, message):
    path = write_grid(tmp_path, GOOD.replace(*change))
    with pytest.raises(ArcwiseError) as error:
        grids.load(path)
    assert message in str(error.value) and str(path) in str(error.value)
    assert "\n" not in str(error.value)


def test_a_grid_may_leave_the_epochs_to_arcwise_train(tmp_path):
    """epochs = "default": each cell trains `arcwise.training.epochs.default_epochs` (a neural
    parser's by its updates); its key and the report say so."""
    grid = grids.load(write_grid(tmp_path, GOOD.replace("epochs = 1", 'epochs = "default"')))
    assert grid.epochs is None
    cell = cells_module.Cell("en_ewt", "", "", "", grid.configurations[0], 1, grid.epochs)
    assert "__edefault__" in cell.key
    assert "its default epochs (`arcwise.training.epochs.default_epochs`" in report.markdown(grid, [], 1)


def test_missing_data_root_and_treebank_are_one_line_errors(tmp_path):
    grid = grids.load(write_grid(tmp_path, GOOD))
    with pytest.raises(ArcwiseError, match="no data root: give --data"):
        cells_module.cells_of(grid)
    grid = grids.load(write_grid(tmp_path, GOOD), data=tmp_path)
    with pytest.raises(ArcwiseError, match="treebank 'en_ewt': no folder"):
        cells_module.cells_of(grid)


def test_the_command_exits_2_with_one_line(tmp_path):
    bad = write_grid(tmp_path, GOOD.replace("epochs = 1", "epochs = 'many'"))
    run = arcwise("experiment", bad, "-o", tmp_path / "out")
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and 'epochs (or "default") must be an integer' in run.stderr
    run = arcwise("experiment", write_grid(tmp_path, "seeds = [1"), "-o", tmp_path / "out")
    assert run.returncode == 2 and run.stderr.startswith(f"{tmp_path / 'grid.toml'}:1: ")
    assert not (tmp_path / "out").exists()


def test_a_bad_option_value_stops_the_grid_before_any_cell(tmp_path):
    """A value no cell could train with (here in the grid-wide options, so in every
    configuration) was found by each cell: 4 cells failed with a ValueError, exit 1, an
    empty report.  Now the grid is refused first: one line naming the grid file, the
    configuration, the option and its value; exit 2; no cell started, nothing written."""
    bad = write_grid(tmp_path, GOOD.replace("seeds = [1]", "seeds = [1, 2]").replace(
        "epochs = 1", "epochs = 1\noptions = { transition_buckets = 1000 }"))
    run = arcwise("experiment", bad, "--data", ROOT / "data", "-o", tmp_path / "out",
                  "--allow-dirty")
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == (f"arcwise: {bad}: configuration 'arc-eager:static': "
                          "transition_buckets must be a power of two, not 1000\n")
    assert not (tmp_path / "out").exists()


def test_every_shipped_grid_is_valid():
    shipped = sorted((ROOT / "experiments").glob("*.toml"))
    assert len(shipped) >= 5
    for path in shipped:
        grid = grids.load(path, data="anywhere")
        assert grid.contrasts, path


def test_a_selection_trains_part_of_a_grid(tmp_path):
    grid = grids.load(ROOT / "experiments" / "covington-2017.toml", data=tmp_path)
    cells = cells_module.cells_of(grid, resolve=False)
    assert len(cells) == 9 * 6 * 3  # treebanks x configurations x seeds
    chosen = cells_module.selection(grid, ["Czech-CLTT"], ["covington-nm:*"], [2])
    assert sorted(c.config.name for c in cells if chosen(c)) == [
        "covington-nm:lower", "covington-nm:pc-upper", "covington-nm:upper",
        "covington-nm:upper:monotonic-priority"]
    for args, message in ((([], ["nm*"], None), "no configuration matches"),
                          ((["Czech"], None, None), "no treebank 'Czech'"),
                          ((None, None, [4]), "no seed 4")):
        with pytest.raises(ArcwiseError, match=message):
            cells_module.selection(grid, *args)


# --- the smoke grid: a killed local run resumed, then Dask ---------------------


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    """The smoke grid run by the command on one local process, interrupted after its first
    cell, then resumed on two: (results folder, the first cell's path and mtime, stderr)."""
    out = tmp_path_factory.mktemp("smoke")
    command = [sys.executable, "-m", "arcwise", "experiment", str(SMOKE), "-o", str(out),
               "--allow-dirty"]
    killed = subprocess.Popen(command + ["--workers", "1"], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, start_new_session=True,
                              preexec_fn=dispositions())
    deadline = time.monotonic() + 600
    while not list(out.glob("*.json")) and killed.poll() is None \
            and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(killed.pid, signal.SIGINT)  # Ctrl-C: the command and its worker
    _, killed_err = killed.communicate(timeout=120)
    first = {p: p.stat().st_mtime_ns for p in out.glob("*.json")}
    resumed = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    return out, first, killed.returncode, killed_err, resumed.stderr


def test_a_killed_run_keeps_its_cells_and_resumes_with_the_rest(smoke):
    out, first, killed_code, killed_err, resumed_err = smoke
    assert len(first) >= 1
    if killed_code != 0:  # interrupted before the last cell: one line, exit 130 (SIGINT)
        assert killed_code == 130 and "interrupted" in killed_err
        assert "Traceback" not in killed_err
    results = load_results(out)
    assert len(results) == 4
    for path, mtime in first.items():  # finished cells are not trained again
        assert path.stat().st_mtime_ns == mtime
    assert f"{4 - len(first)} cells to train" in resumed_err
    assert f"{4 - len(first)} trained now" in resumed_err
    assert not list(out.glob(".*.tmp"))


def test_smoke_cells_hold_scores_counts_and_revision(smoke):
    out = smoke[0]
    grid = grids.load(SMOKE)
    for key, r in load_results(out).items():
        counts = r["counts"]
        assert len(counts["scored"]) == r["test"]["sentences"] == grid.limits["test"]
        assert 100 * sum(counts["head"]) / sum(counts["scored"]) == pytest.approx(r["test"]["uas"])
        assert 100 * sum(counts["labeled"]) / sum(counts["scored"]) == pytest.approx(
            r["test"]["las"])
        # the full commit of the package source (None outside a git checkout)
        assert (r["git"] is None) == (source_revision().commit is None)
        assert r["git"] is None or re.fullmatch("[0-9a-f]{40}", r["git"])
        assert r["train_sentences"] == grid.limits["train"] and r["epoch_seconds"]
        assert r["device"] == "cpu"
    text = (out / "smoke.md").read_text()
    assert "Devices the networks were trained on" not in text  # said only for a GPU
    assert "#### arc-eager:dynamic vs arc-eager:static" in text and "| en_ewt | 2 |" in text


def test_the_same_grid_on_a_dask_cluster_gives_the_same_cells(smoke, tmp_path):
    from dask.distributed import LocalCluster

    local = load_results(smoke[0])
    grid = grids.load(SMOKE)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster:  # as --dask tcp://127.0.0.1:PORT
        outcome = run_grid(grid, tmp_path, dask=cluster.scheduler_address, revision=CLEAN)
    assert sorted(outcome.trained) == sorted(local) and not outcome.errors
    for r in outcome.results:  # same seed, same model, same scores
        assert r["counts"] == local[r["key"]]["counts"]
        assert r["git"] == CLEAN.commit and r["dirty"] is False
    # finished: nothing left to run, on any runner
    again = run_grid(grid, tmp_path, workers=1, revision=CLEAN)
    assert again.trained == [] and len(again.results) == 4


def test_resume_trains_only_the_missing_cells(smoke, tmp_path):
    for path in smoke[0].glob("*.json"):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    missing = sorted(tmp_path.glob("*__s2.json"))
    for path in missing:
        path.unlink()
    (tmp_path / ".x__s1.json.1234abcd.tmp").write_text('{"half a')  # a write that was killed
    kept = {p: p.stat().st_mtime_ns for p in tmp_path.glob("*.json")}
    seen = []
    outcome = run_grid(grids.load(SMOKE), tmp_path, workers=2, revision=CLEAN,
                       on_result=seen.append)
    assert sorted(r["key"] + ".json" for r in seen) == [p.name for p in missing]
    assert all(p.stat().st_mtime_ns == m for p, m in kept.items())
    assert len(outcome.results) == 4


def test_a_dirty_tree_is_refused_unless_allowed(tmp_path):
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "a.py").write_text("x = 1\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo)]
    subprocess.run(git[:5] + ["init", "-q", str(repo)], check=True)
    subprocess.run(git + ["add", "."], check=True)
    subprocess.run(git + ["commit", "-qm", "x"], check=True)
    clean = source_revision(repo / "pkg")
    assert len(clean.commit) == 40 and not clean.dirty
    (repo / "pkg" / "a.py").write_text("x = 2\n")
    dirty = source_revision(repo / "pkg")
    assert dirty == Revision(clean.commit, True)
    assert source_revision(tmp_path) == Revision(None, False)  # not a checkout

    grid = grids.load(SMOKE)
    with pytest.raises(ArcwiseError, match="uncommitted changes.*--allow-dirty"):
        run_grid(grid, tmp_path / "out", revision=dirty)
    assert not (tmp_path / "out").exists()


def test_a_changed_configuration_does_not_reuse_a_cell_of_the_same_name(smoke, tmp_path):
    for path in smoke[0].glob("*.json"):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    text = SMOKE.read_text().replace("explore_from = 0", "explore_from = 1")
    changed = tmp_path / "smoke.toml"
    changed.write_text(text)
    with pytest.raises(ArcwiseError, match="cached cell has options"):
        run_grid(grids.load(changed, data=ROOT / "data"), tmp_path, revision=CLEAN)


# --- contrast tables -------------------------------------------------------------


def fake(treebank: str, config: str, seed: int, scored, head, labeled) -> dict:
    return {"format": 2, "key": f"{treebank}-{config}-{seed}",
            "cell": {"treebank": treebank, "config": {"name": config}, "seed": seed},
            "counts": {"scored": scored, "head": head, "labeled": labeled}}


def test_contrast_figures_match_a_hand_computation():
    words = [5, 5]
    results = [
        # t1: A 8/10, 6/10 -> mean UAS 70; B 5/10, 7/10 -> 60; LAS A 60, B 60
        fake("t1", "A", 1, words, [4, 4], [3, 3]), fake("t1", "A", 2, words, [3, 3], [3, 3]),
        fake("t1", "B", 1, words, [2, 3], [3, 3]), fake("t1", "B", 2, words, [3, 4], [3, 3]),
        fake("t1", "A", 3, words, [0, 0], [0, 0]),  # a seed B lacks: left out
        # t2: one seed, A 4/10 vs B 6/10 UAS, LAS A 4/10, B 2/10
        fake("t2", "A", 1, words, [2, 2], [2, 2]), fake("t2", "B", 1, words, [3, 3], [1, 1]),
    ]
    result = tables.contrast(Contrast("A", "B"), results, ["t1", "t2", "t3"])
    t1, t2 = result.rows
    assert t1.seeds == (1, 2) and t2.seeds == (1,)
    assert (t1.a["uas"], t1.b["uas"], t1.a["las"], t1.b["las"]) == pytest.approx((70, 60, 60, 60))
    assert (t2.difference("uas"), t2.difference("las")) == pytest.approx((-20, 20))
    assert result.wins("uas") == 1 and result.wins("las") == 1
    assert result.mean_difference("uas") == pytest.approx((10 - 20) / 2)
    assert result.mean_difference("las") == pytest.approx((0 + 20) / 2)
    assert t1.p["las"] == 1.0  # identical counts: no shuffle can differ less
    # exact two-sided p over the (seed, sentence) sign flips of t1's UAS differences
    diffs = [4 - 2, 4 - 3, 3 - 3, 3 - 4]
    flips = [sum(s * d for s, d in zip(signs, diffs))
             for signs in itertools.product((1, -1), repeat=len(diffs))]
    exact = sum(abs(f) >= abs(sum(diffs)) for f in flips) / len(flips)
    assert t1.p["uas"] == pytest.approx(exact, abs=0.02)

    rendered = tables.render_contrast(result)
    assert rendered.rows[0] == ("t1", "2", "70.00", "60.00", "+10.00", f"{t1.p['uas']:.4f}",
                                "60.00", "60.00", "+0.00", "1.0000")
    assert rendered.rows[-1][:5] == ("**mean**", "", "55.00", "60.00", "-5.00")
    assert "UAS on 1 of 2 (0 significant), mean -5.00" in rendered.markdown()


def test_the_report_quotes_each_paper_once_beside_our_tables(tmp_path):
    text = GOOD + 'paper = "t3"\n[papers.t3]\ntext = "PAPER-T3"\n'
    grid = grids.load(write_grid(tmp_path, text))
    results = [fake("en_ewt", "arc-eager:static", 1, [5, 5], [3, 3], [2, 2]),
               fake("en_ewt", "covington-nm:dynamic:upper", 1, [5, 5], [4, 3], [2, 2])]
    for r in results:
        r.update(finished="2026-11-25 10:00:00 UTC", git=None, dirty=False)
    text = report.markdown(grid, results, 2, cells_table=False)
    assert text.count("PAPER-T3") == 1
    assert text.index("| en_ewt | 1 | 70.00 | 60.00 | +10.00 |") < text.index("PAPER-T3")


def test_significance_marks_and_old_cells_without_counts():
    words = [10] * 40
    strong = [fake("t", "A", 1, words, [10] * 40, [10] * 40),
              fake("t", "B", 1, words, [5] * 40, [5] * 40)]
    [row] = tables.contrast(Contrast("A", "B"), strong, ["t"]).rows
    assert row.p["uas"] < 0.01 and tables.mark(row.p["uas"]) == "**"
    old = {"cell": {"treebank": "t", "config": {"name": "A"}, "seed": 1},
           "test": {"uas": 80.0, "las": 70.0}}
    [row] = tables.contrast(Contrast("A", "B"), [old, strong[1]], ["t"]).rows
    assert row.p == {"uas": None, "las": None} and row.difference("uas") == pytest.approx(30)


def test_cells_of_bench_accuracy_py_are_read_in_the_new_format(tmp_path):
    old = {"cell": {"treebank": "Basque-BDT", "train": "/x/train.conllu.gz", "dev": "d",
                    "test": "t", "config": {"name": "arc-eager:static:pseudo-projective",
                                            "system": "arc-eager", "oracle": "static",
                                            "bound": None, "pseudo_projective": "head+path"},
                    "seed": 1, "epochs": 15, "max_train_sentences": None},
           "key": "Basque-BDT__arc-eager_static_pseudo-projective__e15__mall__s1",
           "test": {"uas": 80.1, "las": 75.2, "sentences": 3, "words": 30},
           "dev": {"uas": 79.0, "las": 74.0}, "best_epoch": 12, "train_sentences": 5396,
           "train_words": 72974, "unbuildable": 0, "skipped": 0, "pseudo_projective": None,
           "train_seconds": 42.6, "epoch_seconds": [3.3], "parse_sentences_per_second": 3157.8,
           "host": "vm", "git": "bae6d61 + uncommitted changes",
           "finished": "2026-11-24 21:07:39 UTC"}
    (tmp_path / f"{old['key']}.json").write_text(json.dumps(old))
    [new] = load_results(tmp_path).values()
    assert new["cell"]["config"]["options"] == {"pseudo_projective": "head+path"}
    assert (new["git"], new["dirty"], new["format"]) == ("bae6d61", True, 2)
    assert migrate(new) == new
    grid = grids.load(ROOT / "experiments" / "buffer-2012.toml", data=tmp_path)
    config = grid.configuration("arc-eager:static:pseudo-projective")
    cell = cells_module.Cell("Basque-BDT", "", "", "", config, 1, grid.epochs)
    assert cell.key == old["key"]
    cells_module.check_cached(cell, new)  # the grid's configuration is the cell's
    assert "| Basque-BDT |" in report.markdown(grid, [new], 1)


def test_a_malformed_treebank_fails_its_cells_with_file_and_line_and_exit_2(tmp_path):
    """The worker's InputError crosses the process boundary whole (it pickles), so each
    failed cell says where the treebank is wrong, and the run exits 2 (the data's fault)."""
    folder = tmp_path / "data" / "bad"
    folder.mkdir(parents=True)
    good = "# text = a b\n1\ta\ta\tX\tX\t_\t2\tdep\t_\t_\n2\tb\tb\tX\tX\t_\t0\troot\t_\t_\n\n"
    (folder / "train.conllu").write_text(good * 3 + "1\ta\ta\tX\tX\t_\t4\tdep\t_\t_\n\n")
    (folder / "dev.conllu").write_text(good)
    (folder / "test.conllu").write_text(good)
    grid = write_grid(tmp_path, GOOD.replace('"en_ewt"', '"bad"'))
    done = arcwise("experiment", grid, "--data", tmp_path / "data", "-o", tmp_path / "out",
                   "-j", "1", "--allow-dirty", "--configurations", "arc-eager:static",
                   timeout=300)
    assert done.returncode == 2, done.stderr
    failed = [line for line in done.stderr.splitlines() if line.startswith("failed:")]
    assert failed and all(f"{folder / 'train.conllu'}:13: HEAD '4'" in line for line in failed)
    assert "BrokenProcessPool" not in done.stderr and "Traceback" not in done.stderr


def opened_by(path: Path) -> list[int]:
    """The pids of the processes that have `path` open (from /proc)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") == str(path):
                    found.append(int(pid))
                    break
            except OSError:
                continue
    return found


def test_a_killed_worker_ends_the_run_in_one_line_and_the_run_resumes(tmp_path):
    """A cell's worker killed (SIGKILL, as by the out-of-memory killer): one line naming the
    cell it trained and how it ended, exit 2, no traceback (each cell failed with
    `BrokenProcessPool: ...`, exit 1); the same command then trains the grid.  The worker is
    held in its cell by a test file that is a FIFO, until the test opens it and kills it."""
    folder = tmp_path / "data" / "tiny"
    folder.mkdir(parents=True)
    good = "# text = a b\n1\ta\ta\tX\tX\t_\t2\tdep\t_\t_\n2\tb\tb\tX\tX\t_\t0\troot\t_\t_\n\n"
    (folder / "train.conllu").write_text(good * 4)
    (folder / "dev.conllu").write_text(good)
    fifo = folder / "test.conllu"
    os.mkfifo(fifo)
    grid = write_grid(tmp_path, GOOD.replace('"en_ewt"', '"tiny"'))
    out = tmp_path / "out"
    command = [sys.executable, "-m", "arcwise", "experiment", str(grid), "--data",
               str(tmp_path / "data"), "-o", str(out), "-j", "1", "--allow-dirty"]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True,
                               preexec_fn=dispositions())
    writer = None
    try:
        deadline = time.monotonic() + 300
        while writer is None and process.poll() is None and time.monotonic() < deadline:
            try:  # ENXIO until the worker opens the FIFO to read the cell's test file
                writer = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                time.sleep(0.02)
        assert writer is not None, process.communicate()[1][-2000:]
        # the worker's open, waiting in the kernel for a writer, returns a moment later
        while not (readers := [pid for pid in opened_by(fifo) if pid != os.getpid()]) \
                and time.monotonic() < deadline:
            time.sleep(0.01)
        [worker] = readers
        os.kill(worker, signal.SIGKILL)
        _, stderr = process.communicate(timeout=120)
    finally:
        if writer is not None:
            os.close(writer)
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    assert process.returncode == 2, stderr
    assert "Traceback" not in stderr and "BrokenProcessPool" not in stderr
    last = stderr.strip().splitlines()[-1]
    assert last == ("arcwise: the worker process training tiny arc-eager:static seed 1 died "
                    "(killed by SIGKILL: out of memory?); 2 of 2 cells not trained; 0 "
                    f"finished cells are kept in {out}: run the same command to resume"), stderr
    fifo.unlink()
    fifo.write_text(good)
    resumed = subprocess.run(command, check=False, cwd=ROOT, capture_output=True, text=True,
                             timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    assert "2 cells to train" in resumed.stderr and len(load_results(out)) == 2


def test_input_errors_pickle_whole():
    import pickle

    from arcwise.core.errors import InputError

    error = pickle.loads(pickle.dumps(InputError("t.conllu", 7, "bad")))
    assert (error.path, error.line, error.message, str(error)) == ("t.conllu", 7, "bad",
                                                                  "t.conllu:7: bad")


def test_a_grid_runs_unchanged_on_treebanks_it_does_not_name(tmp_path):
    """--other-treebanks: the held-out-language check (every folder of --data, or named ones)."""
    root = tmp_path / "other-ud"
    held_out = root / "xx_heldout"
    held_out.mkdir(parents=True)
    for path in (ROOT / "data" / "en_ewt").glob("*.conllu.gz"):
        (held_out / path.name).write_bytes(path.read_bytes())
    (root / "not_a_treebank").mkdir()  # no splits: not one of "all"
    out = tmp_path / "out"
    run = arcwise("experiment", SMOKE, "--data", root, "--other-treebanks", "all", "--seeds", "1",
                  "-j", "1", "--allow-dirty", "-o", out)
    assert run.returncode == 0, run.stderr
    results = load_results(out)
    assert len(results) == 2 and {r["cell"]["treebank"] for r in results.values()} == {
        "xx_heldout"}
    assert "| xx_heldout |" in (out / "smoke.md").read_text()
    run = arcwise("experiment", SMOKE, "--data", root, "--other-treebanks", "not_a_treebank",
                  "-o", tmp_path / "out2")
    assert run.returncode == 2 and run.stderr.count("\n") == 1
    assert "treebank 'not_a_treebank': no train files" in run.stderr


def test_dask_workers_in_another_folder_read_a_grids_relative_data(tmp_path):
    """#44: `arcwise experiment grids/g.toml --dask ADDRESS` run from one folder, with
    workers whose working folder is another, failed every cell (``grids/../data/...: cannot
    read``): the grid's relative data root travelled unresolved.  The client now makes
    every path absolute before a cell leaves it."""
    from dask.distributed import Client, LocalCluster

    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "en_ewt").symlink_to(ROOT / "data" / "en_ewt")
    (tmp_path / "grids").mkdir()
    (tmp_path / "grids" / "g.toml").write_text(
        SMOKE.read_text().replace("seeds = [1, 2]", "seeds = [1]"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT / "src"), *filter(None, [os.environ.get("PYTHONPATH")])]))
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster) as client:
        client.run(os.chdir, str(elsewhere))
        assert set(client.run(os.getcwd).values()) == {str(elsewhere)}
        run = subprocess.run(
            [sys.executable, "-m", "arcwise", "experiment", "grids/g.toml", "--dask",
             cluster.scheduler_address, "-o", "out", "--allow-dirty"],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert "cannot read" not in run.stderr
    results = load_results(tmp_path / "out")
    assert len(results) == 2
    for result in results.values():  # the files a worker read, named absolutely
        assert result["cell"]["train"] == str(tmp_path / "data" / "en_ewt" / "train.conllu.gz")


def test_a_part_of_a_grid_needs_only_its_own_treebanks(tmp_path):
    """--treebanks a: the data root need not hold the grid's other treebanks."""
    from arcwise.experiments.cells import selection
    from arcwise.experiments.run import plan

    (tmp_path / "data" / "a").mkdir(parents=True)
    for split in ("train", "dev", "test"):
        (tmp_path / "data" / "a" / f"{split}.conllu").write_text("")
    (tmp_path / "g.toml").write_text(
        'treebanks = ["a", "b"]\nseeds = [1]\nepochs = 1\n[[configurations]]\nname = "x"\n'
        'system = "arc-eager"\noracle = "static"\n')
    grid = grids.load(tmp_path / "g.toml", tmp_path / "data")
    _, todo, _ = plan(grid, tmp_path / "out", select=selection(grid, ["a"]))
    assert [c.treebank for c in todo] == ["a"] and todo[0].train.endswith("a/train.conllu")
    with pytest.raises(ArcwiseError, match="treebank 'b': no folder"):
        plan(grid, tmp_path / "out", select=selection(grid, ["b"]))
