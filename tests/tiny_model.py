"""A tiny trained model (10 EWT sentences, one epoch, small tables), a tiny pipeline and a
runner for the CLI, shared by the tests that check what the commands do with signals, special
files and bad models, and by the service tests."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arcwise.io import conllu
from tests.ewt import train_and_dev

SRC = Path(__file__).resolve().parents[1] / "src"


def tiny_parser(tagged: bool = True):
    """An arc-eager parser trained on 10 sentences for one epoch (seconds, even without JIT);
    tagged=False: trained with UPOS, XPOS and FEATS blanked, so it parses bare words."""
    from arcwise.transition.train import train

    sentences, _ = train_and_dev(10, 0)
    if not tagged:
        sentences = [conllu.without_tags(s) for s in sentences]
    parser, _ = train("arc-eager", sentences, oracle="static", epochs=1, seed=1,
                      transition_buckets=2**10, label_buckets=2**8)
    return parser


def tiny_pipeline():
    """A pipeline (tokenizer, tagger, and tiny_parser trained with tags) on 10 EWT sentences,
    one or two epochs each: seconds, even without JIT; its output is poor but deterministic."""
    from arcwise.pipeline.pipeline import Pipeline
    from arcwise.pipeline.stages.tagger import Tagger
    from arcwise.pipeline.stages.tokenizer import Tokenizer

    sentences, _ = train_and_dev(10, 0)
    return Pipeline(Tokenizer.train(sentences, epochs=2, buckets=2**12),
                    Tagger.train(sentences, epochs=1, buckets=2**10), tiny_parser())


def tiny_files(tmp_path_factory, tagged: bool = True):
    """(model path, a 3-sentence CoNLL-U file) in a new temporary directory."""
    tmp = tmp_path_factory.mktemp("tiny")
    model = tmp / "tiny.arcwise"
    tiny_parser(tagged).save(model)
    _, dev = train_and_dev(0, 3)
    text = tmp / "three.conllu"
    conllu.write(text, dev)
    return model, text


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    """(model path, a 3-sentence CoNLL-U file) in a module-wide temporary directory."""
    return tiny_files(tmp_path_factory)


@pytest.fixture(scope="module")
def untagged_tiny_model(tmp_path_factory):
    """tiny_model trained without tags: it parses bare words (pre-tokenized input)."""
    return tiny_files(tmp_path_factory, tagged=False)


@pytest.fixture(scope="module")
def tiny_pipeline_model(tmp_path_factory):
    """The path of a tiny_pipeline model file (tokenizer, tagger, parser)."""
    path = tmp_path_factory.mktemp("pipeline") / "pipeline.arcwise"
    tiny_pipeline().save(path)
    return path


def arcwise(*args, **kwargs) -> subprocess.CompletedProcess:
    """`python -m arcwise ARGS` on this checkout's sources; bytes in and out, never raises."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(SRC), *filter(None, [os.environ.get("PYTHONPATH")])]))
    env.update(kwargs.pop("env", {}))
    if "stdout" not in kwargs and "stderr" not in kwargs:
        kwargs.setdefault("capture_output", True)
    kwargs.setdefault("timeout", 300)
    return subprocess.run([sys.executable, "-m", "arcwise", *map(str, args)],
                          env=env, check=False, **kwargs)


def one_line(stderr: bytes) -> str:
    """The single line of stderr (asserting it is one line and no traceback)."""
    text = stderr.decode()
    assert b"Traceback" not in stderr and text.count("\n") == 1 and text.endswith("\n"), text
    return text[:-1]
