"""The root of the command line: --version, signals held back around compiled calls, the demo
without its treebank, the licence file."""

import os
import signal

import pytest

import arcwise
from arcwise.core import interrupts
from tests.tiny_model import SRC, one_line
from tests.tiny_model import arcwise as run


def test_version_option_and_command():
    for args in (["--version"], ["version"]):
        done = run(*args)
        assert (done.returncode, done.stdout.decode(), done.stderr) == (
            0, f"{arcwise.__version__}\n", b"")


@pytest.fixture
def default_signals():
    """SIGINT, SIGTERM and SIGHUP at their defaults for the test, whatever the test runner
    inherited (under nohup SIGHUP is ignored, and arcwise leaves it so), then as before."""
    previous = {s: signal.signal(s, signal.SIG_DFL) for s in interrupts.SIGNALS}
    yield
    for s, handler in previous.items():
        signal.signal(s, handler)


def test_a_signal_inside_a_deferred_block_is_raised_after_it(default_signals):
    with interrupts.installed():
        reached_the_end = False
        with pytest.raises(interrupts.Interrupted) as caught:
            with interrupts.deferred():
                os.kill(os.getpid(), signal.SIGTERM)
                for _ in range(1000):  # the handler runs here, between bytecodes: no raise
                    pass
                reached_the_end = True
        assert (caught.value.exit_code, str(caught.value)) == (143, "interrupted by SIGTERM")
        assert reached_the_end or os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")
        with pytest.raises(interrupts.Interrupted):  # outside a deferred block: at once
            os.kill(os.getpid(), signal.SIGHUP)
            for _ in range(1000):
                pass
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # handlers restored


class _Finalised:
    """An object whose finaliser takes a SIGTERM: Python swallows what a finaliser raises."""

    def __del__(self):
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(1000):  # the handler runs here
            pass


def test_a_signal_swallowed_in_a_finaliser_is_raised_at_the_next_check(
        default_signals, tmp_path, capsys):
    from arcwise.io.atomic import atomic_write

    with interrupts.installed():
        _Finalised()  # collected at once: its Interrupted is swallowed
        assert "Exception ignored" not in capsys.readouterr().err  # not reported either
        with pytest.raises(interrupts.Interrupted) as caught, interrupts.deferred():
            pass
        assert caught.value.name == "SIGTERM"
        with interrupts.deferred():  # raised once
            pass
        _Finalised()
        # and no output is put in place
        with pytest.raises(interrupts.Interrupted), atomic_write(tmp_path / "out.txt") as f:
            f.write("done")
        assert os.listdir(tmp_path) == []


def test_an_ignored_signal_is_left_ignored(default_signals):
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    with interrupts.installed():
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
        assert callable(signal.getsignal(signal.SIGTERM))
        os.kill(os.getpid(), signal.SIGHUP)  # ignored: nothing happens
        for _ in range(1000):
            pass
    assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_the_demo_without_its_treebank_says_so():
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=str(SRC), ARCWISE_DEMO_DATA="/nonexistent")
    done = subprocess.run([sys.executable, "-m", "arcwise.demo"], env=env, capture_output=True,
                          timeout=120, check=False)
    assert done.returncode == 2 and done.stdout == b""
    assert "/nonexistent" in one_line(done.stderr)


def test_the_licence_is_there():
    text = (SRC.parent / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text


@pytest.mark.end_to_end
def test_the_demo_parses_raw_text(tmp_path, monkeypatch):
    """The demo's pipeline on a slice of the treebank: trained (tokenizer, tagger, parser)
    and saved where `make demo` packages it from, then the sample's words and the test
    text's CoNLL 2018 scores."""
    import io

    from rich.console import Console

    import arcwise
    from arcwise import demo
    from arcwise.io import conllu
    from tests.ewt import train_and_dev

    train_sentences, dev = train_and_dev(120, 30)
    for name, sentences in (("train", train_sentences), ("dev", dev), ("test", dev)):
        conllu.write(tmp_path / f"{name}.conllu.gz", sentences)
    monkeypatch.setattr(demo, "DATA", tmp_path)
    monkeypatch.setattr(demo, "MODEL", tmp_path / "models" / "en_ewt.model")
    monkeypatch.setattr(demo, "TAGGER_EPOCHS", 1)
    monkeypatch.setenv("DEMO_EPOCHS", "1")
    printed = io.StringIO()
    console = Console(file=printed, width=200)
    nlp = demo.train_pipeline_model(console)
    assert arcwise.load(demo.MODEL).components == ("tokenizer", "tagger", "parser")
    demo.raw_text_to_trees(console, nlp)
    out = printed.getvalue()
    assert "mat" in out and "Tokens" in out and "LAS" in out and "sentences/s" in out
