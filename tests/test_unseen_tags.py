"""Tags the model never saw (a foreign tag set: PTB tags in the UPOS column): said once, on
stderr by the command line and as an `UnseenTagsWarning` by the library; refused with
--unseen-tags refuse.  Input with the model's own tags says nothing."""

from __future__ import annotations

import warnings

import pytest

from arcwise.core.vocab import UnseenTagsWarning, unseen_tags
from arcwise.io import conllu
from tests.ewt import train_and_dev
from tests.tiny_model import arcwise, one_line, tiny_parser
from tests.tiny_model import tiny_model  # noqa: F401 -- a fixture


def with_ptb_tags(sentence):
    """The sentence with its XPOS (PTB tags in EWT) copied into UPOS."""
    return conllu.with_columns(sentence, upos=sentence.xpos)


@pytest.fixture(scope="module")
def dev():
    return train_and_dev(0, 20)[1]


def test_a_foreign_tag_set_is_named_once(dev):
    parser = tiny_parser()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parser.parse(dev)  # its own tag set: nothing to say
        assert not [w for w in caught if w.category is UnseenTagsWarning]
        parser.parse([with_ptb_tags(s) for s in dev])
        parser.parse([with_ptb_tags(s) for s in dev])
    said = [str(w.message) for w in caught if w.category is UnseenTagsWarning]
    assert len(said) == 1 and "UPOS values were never seen in training" in said[0]
    assert "NN" in said[0] or "DT" in said[0]


def test_the_share_that_warns():
    parser = tiny_parser()
    _, dev = train_and_dev(0, 20)
    assert unseen_tags(dev, parser.vocabularies) is None
    assert "UPOS" in unseen_tags([with_ptb_tags(s) for s in dev], parser.vocabularies)


@pytest.mark.end_to_end
def test_the_command_line_warns_or_refuses(tiny_model, dev, tmp_path):  # noqa: F811
    model, _ = tiny_model
    foreign = tmp_path / "ptb.conllu"
    conllu.write(foreign, [with_ptb_tags(s) for s in dev])
    run = arcwise("parse", "-m", model, foreign)
    line = one_line(run.stderr)
    assert run.returncode == 0 and line.startswith("arcwise: warning: ") and "UPOS" in line
    assert run.stdout.count(b"\n\n") == len(dev)
    refused = arcwise("parse", "-m", model, "--unseen-tags", "refuse", foreign, "-o",
                      tmp_path / "out.conllu")
    assert refused.returncode == 2 and "refused" in one_line(refused.stderr)
    assert not (tmp_path / "out.conllu").exists()
    workers = arcwise("parse", "-m", model, "--workers", "2", foreign)
    assert workers.returncode == 0 and workers.stdout == run.stdout
    assert one_line(workers.stderr).startswith("arcwise: warning: ")
