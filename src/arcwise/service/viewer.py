"""The viewer page: one HTML file with its CSS, JavaScript and (offline) data inline.

`page(data)` is what ``arcwise view`` writes (`write_view`) and, with
data=None, what ``arcwise serve`` answers at ``/`` (where the page parses
text and runs the oracle explorer through the API).  `view_data` aligns
several analyses of the same sentences (gold and system outputs) into the
JSON the page reads: per sentence its id, text, words, tags and one
(heads, relations) pair per file.  The static files are package data
(``arcwise/service/static``); nothing is fetched from elsewhere.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from importlib import resources
from itertools import zip_longest
from typing import Any

from arcwise.core.corpus import Sentence
from arcwise.core.errors import ArcwiseError, InputError
from arcwise.io import read_treebank
from arcwise.io.html import script_json
from arcwise.service.formats import sentence_id


def _static(name: str) -> str:
    return resources.files("arcwise.service").joinpath("static", name).read_text("utf-8")


def page(data: dict[str, Any] | None, served: bool = False) -> str:
    """The viewer as one HTML document; data=None for the served page."""
    html = _static("viewer.html")
    for marker, text in (("/*ARCWISE_CSS*/", _static("viewer.css")),
                         ("/*ARCWISE_JS*/", _static("viewer.js").replace("</", "<\\/")),
                         ("/*ARCWISE_DATA*/", script_json(data))):
        html = html.replace(marker, text, 1)
    return html


def _text(sentence: Sentence) -> str:
    for line in sentence.lines:
        if line.startswith("# text") and "=" in line:
            return line.split("=", 1)[1].strip()
        if line[:1] != "#":
            break
    return ""


def view_data(files: Sequence[str | os.PathLike], names: Sequence[str],
              gold: int | None) -> dict[str, Any]:
    """The page's data for `files` (same sentences, same words), shown under `names`;
    gold: the index of the gold file, or None.  A file that does not line up with
    the first is an `InputError` at its first sentence that differs."""
    readers = [read_treebank(f) for f in files]
    sentences = []
    for k, group in enumerate(zip_longest(*readers)):
        first = group[0]
        for f, s in zip(files[1:], group[1:]):
            if first is None or s is None:
                short = files[0] if first is None else f
                raise ArcwiseError(f"{short}: fewer sentences than the other files "
                                   f"({k} where another has more)")
            if s.form != first.form:
                raise InputError(f, s.first_line,
                                 f"sentence {k + 1} has other words than in {files[0]}")
        sentences.append({
            "id": sentence_id(first, k),
            "text": _text(first),
            "form": list(first.form[1:]),
            "upos": list(first.upos[1:]),
            "trees": [[s.head[1:].tolist(), list(s.deprel[1:])] for s in group],
        })
    return {"names": list(names), "gold": gold, "sentences": sentences}


def write_view(path: str | os.PathLike, data: dict[str, Any]) -> None:
    """Write the offline viewer page with `data`, atomically."""
    from arcwise.io.atomic import atomic_write

    with atomic_write(os.fspath(path), "wb") as out:
        out.write(page(data).encode("utf-8"))
