"""Grid choices (the best of some configurations per treebank, chosen on dev) and the training
data's statistics beside the scores (2012 paper, Table 2; arcs the static oracle builds)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arcwise.core.errors import ArcwiseError
from arcwise.experiments import grid as grids
from arcwise.experiments import report, tables
from arcwise.experiments.cells import training_data_description
from arcwise.experiments.grid import Choice, Configuration, Contrast
from arcwise.io import conllu

ROOT = Path(__file__).resolve().parents[1]

GRID = """\
treebanks = ["t1", "t2", "t3"]
seeds = [1, 2]
epochs = 1
[[configurations]]
name = "NE"
system = "arc-eager"
oracle = "static"
[[configurations]]
name = "LBA"
system = "arc-eager+lba"
oracle = "static"
[[configurations]]
name = "RBA"
system = "arc-eager+rba"
oracle = "static"
[[choices]]
name = "best"
candidates = ["LBA", "RBA"]
[[contrasts]]
a = "best"
b = "NE"
[[tables]]
title = "buffer"
columns = [["NE", "NE"], ["+LBA", "LBA"], ["+RBA", "RBA"], ["best", "best"]]
statistics = [["L1 %", "left_length1_pct"], ["R1 %", "right_length1_pct"]]
arc_shares = [["LBA %", "LBA", "left-buffer-arc"]]
"""


def cell(treebank, config, seed, dev_las, test_las, **extra) -> dict:
    """A finished cell with a dev LAS and 10 scored test words (test UAS = LAS + 10)."""
    labeled = round(test_las / 10)
    return {"format": 2, "key": f"{treebank}-{config}-{seed}",
            "cell": {"treebank": treebank, "config": {"name": config}, "seed": seed},
            "dev": {"uas": dev_las + 5, "las": dev_las},
            "counts": {"scored": [10], "head": [labeled + 1], "labeled": [labeled]}, **extra}


# t1: LBA better on dev (mean 81 vs 80) but worse on test: the choice must be LBA.
# t2: RBA better on dev; t3: RBA has no seed 2, the choice uses seed 1 only (RBA's dev wins).
RESULTS = [
    cell("t1", "NE", 1, 70, 70), cell("t1", "NE", 2, 70, 70),
    cell("t1", "LBA", 1, 82, 60), cell("t1", "LBA", 2, 80, 60),
    cell("t1", "RBA", 1, 80, 90), cell("t1", "RBA", 2, 80, 90),
    cell("t2", "NE", 1, 70, 70), cell("t2", "NE", 2, 70, 70),
    cell("t2", "LBA", 1, 60, 90), cell("t2", "LBA", 2, 60, 90),
    cell("t2", "RBA", 1, 75, 80), cell("t2", "RBA", 2, 75, 80),
    cell("t3", "NE", 1, 70, 70),
    cell("t3", "LBA", 1, 70, 50), cell("t3", "LBA", 2, 99, 100),
    cell("t3", "RBA", 1, 71, 60),
]


def test_the_best_candidate_is_chosen_on_dev_not_on_test():
    choice = Choice("best", ("LBA", "RBA"))
    picks = tables.choose(choice, RESULTS, ["t1", "t2", "t3", "t4"])
    assert [(p.treebank, p.candidate, p.seeds) for p in picks] == [
        ("t1", "LBA", (1, 2)), ("t2", "RBA", (1, 2)), ("t3", "RBA", (1,))]
    assert picks[0].scores == {"LBA": 81, "RBA": 80}
    # on test the other candidate would win on t1 and t2
    on_test = tables.choose(Choice("oracle", ("LBA", "RBA"), by="test"), RESULTS, ["t1", "t2"])
    assert [p.candidate for p in on_test] == ["RBA", "LBA"]
    # ties go to the first candidate
    tie = [cell("t", "A", 1, 80, 50), cell("t", "B", 1, 80, 60)]
    assert tables.choose(Choice("c", ("B", "A")), tie, ["t"])[0].candidate == "B"


def test_a_choice_contrasts_like_a_configuration():
    chosen = tables.chosen([Choice("best", ("LBA", "RBA"))], RESULTS, ["t1", "t2", "t3"])
    assert {(r["cell"]["treebank"], r["cell"]["seed"], r["chosen"]) for r in chosen} == {
        ("t1", 1, "LBA"), ("t1", 2, "LBA"), ("t2", 1, "RBA"), ("t2", 2, "RBA"), ("t3", 1, "RBA")}
    assert all(r["cell"]["config"]["name"] == "best" for r in chosen)
    result = tables.contrast(Contrast("best", "NE"), RESULTS + chosen, ["t1", "t2", "t3"],
                             samples=200)
    # test LAS best - NE: t1 60 - 70, t2 80 - 70, t3 60 - 70
    assert [r.difference("las") for r in result.rows] == pytest.approx([-10, 10, -10])
    assert result.wins("las") == 1 and result.mean_difference("las") == pytest.approx(-10 / 3)
    rendered = tables.render_choice(Choice("best", ("LBA", "RBA")), RESULTS, ["t1", "t2", "t3"])
    assert rendered.rows[0] == ("t1", "2", "81.00", "80.00", "`LBA`", "70.00", "60.00")
    assert "`LBA` on 1, `RBA` on 2 of 3 treebanks" in rendered.markdown()


def test_the_grid_report_shows_choices_statistics_and_arc_shares(tmp_path):
    path = tmp_path / "grid.toml"
    path.write_text(GRID)
    grid = grids.load(path)
    assert grid.choices == (Choice("best", ("LBA", "RBA"), "dev", "las"),)
    described = [dict(r) for r in RESULTS]
    for r in described:
        r["train_statistics"] = {"left_length1_pct": 30.0 if r["cell"]["treebank"] == "t1"
                                 else 10.0, "right_length1_pct": 20.0}
        if r["cell"]["config"]["name"] == "LBA":
            r["static_arcs"] = {"left-arc": 3, "right-arc": 5, "reduce": 0,
                                "left-buffer-arc": 2}
    sections = report.sections(grid, described)
    overview, shown, _ = sections[0]
    assert overview.header[-3:] == ("L1 %", "R1 %", "LBA %")
    assert overview.rows[0][0] == "t1" and overview.rows[0][-3:] == ("30.00", "20.00", "20.00")
    assert overview.rows[-1][-3:] == ("16.67", "20.00", "20.00")  # mean over the treebanks
    assert overview.header[7:9] == ("best UAS", "LAS")
    assert overview.rows[0][8] == "60.00"  # best on t1 = LBA's test LAS
    assert [r.title for r in shown] == [
        "best: the best of LBA, RBA per treebank, chosen on dev LAS", "best vs NE"]
    text = report.markdown(grid, [dict(r, finished="x", git=None, dirty=False)
                                  for r in described], 15, cells_table=False)
    assert "`best` beats `NE`: UAS on 1 of 3" in text


@pytest.mark.parametrize("change,message", [
    ('candidates = ["LBA", "RBA"]', None),
    ('candidates = ["LBA"]', "two or more"),
    ('candidates = ["LBA", "XBA"]', "no configuration named 'XBA'"),
    ('candidates = ["LBA", "RBA"]\nby = "train"', "by must be one of dev, test"),
    ('candidates = ["LBA", "RBA"]\nmetric = "la"', "metric must be one of uas, las"),
])
def test_choice_errors_are_one_line(tmp_path, change, message):
    text = GRID.replace('candidates = ["LBA", "RBA"]', change)
    path = tmp_path / "grid.toml"
    path.write_text(text)
    if message is None:
        grids.load(path)
        return
    with pytest.raises(ArcwiseError, match=message):
        grids.load(path)


@pytest.mark.parametrize("old,new,message", [
    ('"left_length1_pct"]', '"left_pct"]', "unknown statistic 'left_pct'"),
    ('"LBA", "left-buffer-arc"', '"NE", "left-buffer-arc"', "arc-eager has no arc transition"),
    ('"LBA", "left-buffer-arc"', '"best", "left-buffer-arc"', "no configuration named 'best'"),
    ('name = "best"', 'name = "NE"', "already the name of a configuration"),
])
def test_table_statistics_errors_are_one_line(tmp_path, old, new, message):
    path = tmp_path / "grid.toml"
    path.write_text(GRID.replace(old, new, 1))
    with pytest.raises(ArcwiseError, match=message):
        grids.load(path)


# Two hand-made trees: "a b c" with a <- b -> c (b the root), and "a b c d" with a <- c,
# b <- c, c -> d (c the root).  Arcs between two words: 5; leftward 3 (a <- b, a <- c,
# b <- c), of length 1: 2 (a <- b, b <- c); rightward 2, both of length 1.
TINY = """\
1\ta\t_\tX\t_\t_\t2\tdep\t_\t_
2\tb\t_\tX\t_\t_\t0\troot\t_\t_
3\tc\t_\tX\t_\t_\t2\tdep\t_\t_

1\ta\t_\tX\t_\t_\t3\tdep\t_\t_
2\tb\t_\tX\t_\t_\t3\tdep\t_\t_
3\tc\t_\tX\t_\t_\t0\troot\t_\t_
4\td\t_\tX\t_\t_\t3\tdep\t_\t_

"""


def test_table_2_statistics_and_static_arcs_of_a_tiny_treebank(tmp_path):
    path = tmp_path / "tiny.conllu"
    path.write_text(TINY)
    sentences = list(conllu.read(path))
    stats, arcs = training_data_description(
        Configuration("x", "arc-eager+lba", "static"), sentences)
    assert stats["word_arcs"] == 5
    assert (stats["left_arcs_pct"], stats["right_arcs_pct"]) == pytest.approx((60, 40))
    assert (stats["left_length1_pct"], stats["right_length1_pct"]) == pytest.approx((40, 40))
    # the 2012 oracle builds the leftward arcs of length 1 with LEFT-BUFFER-ARC (a <- b in
    # the first tree, b <- c in the second), a <- c with LEFT-ARC, the rest with RIGHT-ARC
    # (the root arcs included)
    assert arcs == {"left-arc": 1, "right-arc": 4, "left-buffer-arc": 2}
    _, plain = training_data_description(Configuration("y", "arc-eager", "static"), sentences)
    assert plain == {"left-arc": 3, "right-arc": 4}


def test_the_shipped_buffer_grid_chooses_on_dev_and_shows_table_2():
    grid = grids.load(ROOT / "experiments" / "buffer-2012.toml")
    assert {c.by for c in grid.choices} == {"dev"} and len(grid.choices) == 4
    static = grid.tables[0]
    assert [key for _, key in static.statistics] == [
        "left_arcs_pct", "right_arcs_pct", "left_length1_pct", "right_length1_pct"]
    assert {t for _, _, t in static.arc_shares} == {"left-buffer-arc", "right-buffer-arc"}
    names = {c.name for c in grid.configurations}
    for choice in grid.choices:
        assert any(c.a == choice.name for c in grid.contrasts)
        assert set(choice.candidates) <= names
