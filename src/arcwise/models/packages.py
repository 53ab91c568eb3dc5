"""Model packages: a model file and its card in a pip-installable wheel, loaded by name.

spaCy's convention: ``pip install en_ewt-0.1.0-py3-none-any.whl`` then
``arcwise.load("en_ewt")`` (or ``import en_ewt; en_ewt.load()``, or ``-m en_ewt`` on
the command line).  A package is a Python module holding ``model`` + the model
file's suffix, ``card.json`` (what the model is, what it was trained on and under
which licence, how it scores, which arcwise reads it) and ``README.md`` (the card
for people), registered under the entry point group `GROUP`.

`wheel` writes the wheel itself: the format (PEP 427: a zip with a ``.dist-info``
folder holding METADATA, WHEEL, entry_points.txt and a RECORD of hashes) is small,
and writing it here keeps packaging offline, free of a build backend in the user's
environment, and deterministic: the same model and card give the same bytes.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import importlib.metadata
import importlib.util
import io
import json
import os
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from arcwise.core.errors import ArcwiseError
from arcwise.core.version import __version__
from arcwise.io.atomic import atomic_write

GROUP = "arcwise.models"
CARD = "card.json"
NAME = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*")  # a module name that pip keeps as is
_FIXED_TIME = (1980, 1, 1, 0, 0, 0)


def compatible_versions(version: str = __version__) -> str:
    """The arcwise versions that read what this one writes: the same minor release
    before 1.0 (0.1.x), the same major one after."""
    release = Version(version).release
    upper = f"0.{release[1] + 1}" if release[0] == 0 else f"{release[0] + 1}"
    return f">={version},<{upper}"


@dataclass(frozen=True)
class InstalledModel:
    """A model package found through its entry point."""

    name: str
    version: str
    model: Path  # the model file
    card: dict[str, Any]

    @property
    def compatible(self) -> bool:
        return _admits(self.card.get("requires_arcwise"), __version__)

    def check_compatible(self) -> None:
        """ArcwiseError unless this arcwise can read the package's model."""
        wanted = self.card.get("requires_arcwise")
        if not _admits(wanted, __version__):
            raise ArcwiseError(
                f"model package {self.name} {self.version} was built for arcwise{wanted}; this "
                f"is arcwise {__version__}: install arcwise{wanted}, or a {self.name} built "
                "for this arcwise (arcwise package)")


def _admits(specifier: Any, version: str) -> bool:
    try:
        return isinstance(specifier, str) and Version(version) in SpecifierSet(specifier)
    except InvalidSpecifier:
        return False


def installed() -> dict[str, InstalledModel]:
    """{name: model} of every installed model package, by name."""
    models = {}
    for entry in sorted(importlib.metadata.entry_points(group=GROUP), key=lambda e: e.name):
        model = _from_entry_point(entry)
        if model is not None:
            models.setdefault(model.name, model)
    return models


def _from_entry_point(entry: importlib.metadata.EntryPoint) -> InstalledModel | None:
    """The model package an entry point names, None when its files are not there."""
    spec = importlib.util.find_spec(entry.value) if entry.value.isidentifier() else None
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations)))
    models = sorted(p for p in folder.glob("model.*") if p.is_file())
    try:
        card = json.loads((folder / CARD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not models or not isinstance(card, dict):
        return None
    version = entry.dist.version if entry.dist is not None else str(card.get("version", "?"))
    return InstalledModel(entry.name, version, models[0], card)


def find(name: str) -> InstalledModel | None:
    """The installed model package called `name`, or None."""
    if not NAME.fullmatch(name):
        return None
    for entry in importlib.metadata.entry_points(group=GROUP, name=name):
        model = _from_entry_point(entry)
        if model is not None:
            return model
    return None


def located(model: str | os.PathLike) -> str:
    """The model file that `model` names: a path to an existing file, else the file of the
    installed model package of that name (checked to suit this arcwise), else `model`
    itself (whose reading then fails naming it)."""
    path = os.fspath(model)
    if os.path.exists(path) and not os.path.isdir(path):
        return path
    package = find(path)
    if package is None:
        return path
    package.check_compatible()
    return os.fspath(package.model)


def not_found(model: str) -> str:
    """What to say of a model that is neither a file nor an installed package."""
    if not NAME.fullmatch(model):
        return "cannot read model file: No such file or directory"
    names = ", ".join(installed()) or "none"
    return (f"no model file or installed model package of that name (installed packages: "
            f"{names}; `arcwise models` lists them)")


def card_of(model: str | os.PathLike) -> dict[str, Any] | None:
    """The card of the installed package `model` names, None for a model file."""
    path = os.fspath(model)
    if os.path.exists(path) and not os.path.isdir(path):
        return None
    package = find(path)
    return package.card if package is not None else None


def language_of(name: str) -> str | None:
    """The language code a package name starts with, as spaCy's and UD's do (en_ewt: en)."""
    head = name.split("_", 1)[0]
    return head if "_" in name and 2 <= len(head) <= 3 else None


def check_name(name: str, version: str) -> None:
    """ArcwiseError unless `name` is a package name arcwise finds (`NAME`) and `version` a
    version pip accepts."""
    if not NAME.fullmatch(name):
        raise ArcwiseError(f"--name {name}: a package name is lower-case letters, digits and "
                           "single underscores, starting with a letter (en_ewt)")
    try:
        Version(version)
    except InvalidVersion:
        raise ArcwiseError(f"--version {version}: not a version pip accepts (1.0.0)") from None


def wheel(model: str | os.PathLike, card: dict[str, Any], readme: str, out_dir: str | os.PathLike,
          extra_files: dict[str, bytes] | None = None) -> Path:
    """Write the wheel of model package card["name"] (version card["version"]) holding the
    model file, its card and README into out_dir; returns the wheel's path.  extra_files:
    {name: bytes} more files in the package (the treebank's LICENSE.txt)."""
    name, version = card["name"], card["version"]
    check_name(name, version)
    source = Path(model)
    suffix = "".join(source.suffixes) or ".model"
    dist = f"{name}-{version}.dist-info"
    module = _module_text(name, card)
    files: dict[str, bytes] = {
        f"{name}/__init__.py": module.encode("utf-8"),
        f"{name}/{CARD}": (json.dumps(card, indent=1, sort_keys=True, ensure_ascii=False)
                           + "\n").encode("utf-8"),
        f"{name}/README.md": readme.encode("utf-8"),
        **{f"{name}/{k}": v for k, v in (extra_files or {}).items()},
        f"{dist}/METADATA": _metadata(card, readme).encode("utf-8"),
        f"{dist}/WHEEL": (f"Wheel-Version: 1.0\nGenerator: arcwise {__version__}\n"
                          "Root-Is-Purelib: true\nTag: py3-none-any\n").encode(),
        f"{dist}/entry_points.txt": f"[{GROUP}]\n{name} = {name}\n".encode(),
    }
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"{name}-{version}-py3-none-any.whl"
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    with atomic_write(target, "wb") as f, zipfile.ZipFile(f, "w") as zf:
        model_member = f"{name}/model{suffix}"
        with open(source, "rb") as src, zf.open(_member(model_member), "w",
                                                force_zip64=True) as member:
            digest, size = hashlib.sha256(), 0
            for chunk in iter(lambda: src.read(1 << 20), b""):
                digest.update(chunk)
                size += len(chunk)
                member.write(chunk)
        writer.writerow([model_member, _hash(digest), size])
        for path, data in files.items():
            zf.writestr(_member(path), data)
            writer.writerow([path, _hash(hashlib.sha256(data)), len(data)])
        writer.writerow([f"{dist}/RECORD", "", ""])
        zf.writestr(_member(f"{dist}/RECORD"), record.getvalue().encode())
    return target


def _member(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=_FIXED_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.create_system = 3  # Unix
    info.external_attr = 0o644 << 16
    return info


def _hash(digest: Any) -> str:
    return "sha256=" + base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode()


def _module_text(name: str, card: dict[str, Any]) -> str:
    summary = card.get("summary") or f"an arcwise model ({card.get('kind', 'model')})"
    return (f'"""{name}: {summary}.\n\n'
            f'``nlp = {name}.load()`` is ``arcwise.load("{name}")``; card.json and README.md '
            'say what it is."""\n\n'
            "from pathlib import Path\n\n"
            f"CARD = Path(__file__).with_name({CARD!r})\n\n\n"
            "def load():\n"
            f'    """The model as an arcwise pipeline: ``nlp(\\"Some text.\\")``."""\n'
            "    import arcwise\n\n"
            f"    return arcwise.load({name!r})\n")


def _metadata(card: dict[str, Any], readme: str) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {card['name']}",
        f"Version: {card['version']}",
        f"Summary: {card.get('summary', 'an arcwise model')}",
        "Requires-Python: >=3.11",
        f"Requires-Dist: arcwise{card['requires_arcwise']}",
    ]
    if card.get("licence"):
        lines.append(f"License: {card['licence']}")
    lines += ["Description-Content-Type: text/markdown", "", readme]
    return "\n".join(lines)
