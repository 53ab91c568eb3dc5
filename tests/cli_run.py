"""Running the real `arcwise` entry point in-process, as the CLI tests do."""

import sys

import pytest

from arcwise.cli.main import main


def run(args, capsys, monkeypatch) -> tuple[int, str, str]:
    """Run `arcwise ARGS` through `arcwise.cli.main.main`: (exit code, stdout, stderr)."""
    monkeypatch.setattr(sys, "argv", ["arcwise", *map(str, args)])
    with pytest.raises(SystemExit) as caught:
        main()
    out, err = capsys.readouterr()
    return caught.value.code or 0, out, err


def hide_module(monkeypatch, missing: str) -> None:
    """Make `importlib.util.find_spec` (how arcwise looks for an extra) miss module `missing`."""
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == missing else find_spec(name, *a))
