"""`arcwise view` on files that do not line up: one line naming the file, exit 2."""

from __future__ import annotations

import itertools

import pytest

from arcwise.io import conllu
from tests.ewt import DATA
from tests.tiny_model import arcwise, one_line

pytestmark = pytest.mark.end_to_end


def test_view_refuses_files_of_other_sentences(tmp_path):
    sentences = list(itertools.islice(conllu.read(DATA / "dev.conllu.gz"), 3))
    gold, fewer, other = tmp_path / "gold.conllu", tmp_path / "fewer.conllu", tmp_path / "o.conllu"
    conllu.write(gold, sentences)
    conllu.write(fewer, sentences[:2])
    conllu.write(other, [sentences[0], sentences[2], sentences[1]])
    page = tmp_path / "page.html"
    run = arcwise("view", fewer, "--gold", gold, "-o", page)
    assert run.returncode == 2 and "fewer sentences" in one_line(run.stderr)
    run = arcwise("view", other, "--gold", gold, "-o", page)
    line = one_line(run.stderr)
    assert run.returncode == 2 and line.startswith(f"{other}:") and "sentence 2" in line
    run = arcwise("view", gold, "-o", page, "--names", "a,b")
    assert run.returncode == 2 and "2 names for 1 files" in one_line(run.stderr)
    assert not page.exists()
    run = arcwise("view", "--gold", gold, gold, "-o", page, "--names", "mine")
    assert run.returncode == 0 and page.read_text().count('"names":["gold","mine"]') == 1


def test_view_reads_the_old_order_with_a_warning(tmp_path):
    """FILE GOLD, the order before --gold, still works until 0.2, and says so."""
    gold = tmp_path / "gold.conllu"
    conllu.write(gold, itertools.islice(conllu.read(DATA / "dev.conllu.gz"), 3))
    new, old = tmp_path / "new.html", tmp_path / "old.html"
    assert arcwise("view", "--gold", gold, gold, "-o", new, "--names", "mine").returncode == 0
    run = arcwise("view", gold, gold, "-o", old, "--names", "mine")
    assert run.returncode == 0 and b"old order" in run.stderr and b"--gold" in run.stderr
    assert old.read_bytes() == new.read_bytes()
