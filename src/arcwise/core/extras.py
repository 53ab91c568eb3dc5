"""Optional parts of arcwise (pip extras): one clear line when one is missing."""

from __future__ import annotations

import importlib.util

from arcwise.core.errors import ArcwiseError

# extra -> what it installs, for the messages
EXTRAS = {
    "neural": "torch (the BiLSTM and biaffine models)",
    "serve": "FastAPI and uvicorn (arcwise serve)",
    "eval": "the CoNLL 2018 shared task's scorer (udtools)",
    "experiments": "dask (arcwise experiment, stacking's folds side by side)",
    "corpus": "pyarrow (arcwise parse --format parquet)",
    "report": "matplotlib (figures of reports and experiments)",
    "spacy": "spaCy (Document.to_spacy)",
}


def install_line(extra: str) -> str:
    """The literal command that installs an extra."""
    return f"pip install 'arcwise[{extra}]'"


def required(module: str, extra: str, what: str) -> None:
    """ArcwiseError (one line, exit 2 on the command line) unless `module` can be imported:
    `what` needs the extra, with the command that installs it."""
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise ArcwiseError(f"{what} needs {module}, which is not installed: "
                           f"{install_line(extra)}")
