"""Sphinx configuration of arcwise's documentation (`make docs`).

Everything builds offline: no intersphinx, no assets from the web.  The API pages are
generated at build time by autosummary (recursive) into ``api/generated/`` (git-ignored),
and the CLI reference is generated from the typer app (`arcwise.cli.main.app`) by
sphinxcontrib-typer.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))  # this checkout's arcwise, not an installed one

import arcwise  # noqa: E402

project = "arcwise"
author = "the arcwise authors"
copyright = "the arcwise authors; Apache License 2.0"
release = version = arcwise.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "sphinxcontrib.bibtex",
    "sphinxcontrib.typer",
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
templates_path = ["_templates"]

# `arcwise.io.conllu` in a docstring is a cross-reference (about 200 of them).
default_role = "py:obj"

# MyST: Markdown pages, with `{eval-rst}` blocks for the module docstrings.
myst_enable_extensions = ["colon_fence", "deflist", "dollarmath"]
myst_heading_anchors = 4

# autodoc / autosummary: one page per module of the package, generated at build time.
autosummary_generate = True
autosummary_imported_members = False
# A package documents what it defines; what it re-exports (`arcwise.graph.eisner`, the
# function) is documented in its own module, so no object is described twice.
autodoc_default_options = {"members": True, "show-inheritance": True, "ignore-module-all": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_mock_imports: list[str] = []
napoleon_google_docstring = True
napoleon_numpy_docstring = False

# sphinxcontrib-bibtex: the papers arcwise implements and the work they build on.
bibtex_bibfiles = ["refs.bib"]
bibtex_default_style = "plain"
bibtex_reference_style = "author_year"

html_theme = "furo"
try:
    import furo  # noqa: F401
except ImportError:  # the docs extra brings furo; without it, Sphinx's own theme
    html_theme = "alabaster"
html_title = f"arcwise {release}"
html_static_path: list[str] = []
