"""The documentation builds, and the guides' Python code runs.

- `test_docs_build`: ``sphinx-build -W --keep-going -b html docs`` into a temporary folder
  succeeds (warnings are errors, as `make docs`); skipped when Sphinx or an extension
  of the `docs` extra is not installed.
- `test_guide_code_runs`: every fenced ```python block of the getting-started page and of
  the guides (``docs/guides/*.md``) runs, the blocks of a page in order in one namespace,
  in a scratch folder that holds the repository's ``data/`` and the two small models the
  pages' ```console blocks would train (``ewt.arcwise``, ``en.pipeline``: here on 200
  sentences of the bundled treebank, one epoch).  A block that is not meant to run is
  written ```text (or ```console for the command line).
"""

from __future__ import annotations

import gzip
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.end_to_end, pytest.mark.docs]

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
DATA = ROOT / "data" / "en_ewt"
DOCS_EXTENSIONS = ("sphinx", "myst_parser", "sphinxcontrib.bibtex", "sphinxcontrib.typer")
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)
GUIDES = [DOCS / "getting-started.md", *sorted((DOCS / "guides").glob("*.md"))]
NEURAL_GUIDES = {"neural-models.md"}  # train torch models: also marked neural


def _env() -> dict[str, str]:
    """This checkout's sources first, whatever arcwise is installed."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"),
                                                      env.get("PYTHONPATH")]))
    return env


def _missing_docs_extension() -> str | None:
    for name in DOCS_EXTENSIONS:
        try:
            if importlib.util.find_spec(name) is None:
                return name
        except ModuleNotFoundError:
            return name
    return None


def test_docs_build(tmp_path):
    missing = _missing_docs_extension()
    if missing:
        pytest.skip(f"{missing} is not installed (the docs extra: pip install -e '.[docs]')")
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html", "-q",
         "-d", str(tmp_path / "doctrees"), str(DOCS), str(tmp_path / "html")],
        cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-10000:]
    for page in ("index", "getting-started", "cli", "results", "api", "changelog",
                 "research/covington-nm", "howto/add-system", "guides/pipelines"):
        assert (tmp_path / "html" / f"{page}.html").is_file(), page
    cli = (tmp_path / "html" / "cli.html").read_text(encoding="utf-8")
    assert "arcwise train" in cli and "--system" in cli  # generated from the typer app


def python_blocks(page: Path) -> list[str]:
    """The ```python blocks of a Markdown page, in order."""
    return PYTHON_BLOCK.findall(page.read_text(encoding="utf-8"))


def _first_sentences(source: Path, target: Path, n: int) -> None:
    """The first n sentences of a gzipped CoNLL-U file, as a plain file."""
    lines, count = [], 0
    with gzip.open(source, "rt", encoding="utf-8") as f:
        for line in f:
            lines.append(line)
            if not line.strip():
                count += 1
                if count == n:
                    break
    target.write_text("".join(lines), encoding="utf-8")


def _arcwise(*args: str, cwd: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "arcwise", *args], cwd=cwd, env=_env(),
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"arcwise {' '.join(args)}:\n{result.stderr[-5000:]}"


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    """A folder with data/ (the repository's) and small ewt.arcwise and en.pipeline."""
    folder = tmp_path_factory.mktemp("guides")
    (folder / "data").symlink_to(ROOT / "data", target_is_directory=True)
    _first_sentences(DATA / "train.conllu.gz", folder / "train200.conllu", 200)
    _arcwise("train", "--system", "arc-eager", "--train", "train200.conllu", "--epochs", "1",
             "-o", "ewt.arcwise", cwd=folder)
    _arcwise("train", "--pipeline", "--system", "arc-eager", "--train", "train200.conllu",
             "--epochs", "1", "--tag-folds", "2", "-o", "en.pipeline", cwd=folder)
    return folder


@pytest.mark.parametrize("page", [
    pytest.param(page, id=page.relative_to(DOCS).as_posix(),
                 marks=[pytest.mark.neural] if page.name in NEURAL_GUIDES else [])
    for page in GUIDES if python_blocks(page)])
def test_guide_code_runs(page, scratch, monkeypatch):
    monkeypatch.chdir(scratch)
    monkeypatch.syspath_prepend(str(ROOT / "src"))
    namespace: dict = {"__name__": "__guide__"}
    for k, block in enumerate(python_blocks(page), 1):
        code = compile(block, f"{page.relative_to(ROOT)} (python block {k})", "exec")
        exec(code, namespace)  # noqa: S102 -- the documentation's own examples


def test_every_guide_has_its_blocks_found():
    """The pages meant to run code have some (a typo in a fence would hide them)."""
    pages = {page.relative_to(DOCS).as_posix() for page in GUIDES if python_blocks(page)}
    assert {"getting-started.md", "guides/train-and-parse.md", "guides/pipelines.md",
            "guides/neural-models.md", "guides/systems-api.md"} <= pages
