"""A model card: the facts a model package carries (``card.json``) and shows (README.md).

>>> card = model_card("en.pipeline", "en_ewt", treebank=Path("data/en_ewt"))
>>> wheel = package("en.pipeline", "en_ewt", "dist", treebank=Path("data/en_ewt"))

The treebank folder (default: the folder of the training file the model's command
line names, when it is there) gives the treebank's name, source and licence (a UD
treebank's README ``License:`` line, else the first line of LICENSE.txt, which the
package also ships) and the test file, which the model parses as a user would --
from its raw text when the model has a tokenizer, else its gold tokens -- to be
scored by the CoNLL 2018 shared task's scorer (`arcwise.eval.conll18`).
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from arcwise.core.errors import ArcwiseError
from arcwise.core.version import __version__
from arcwise.eval.conll18 import conll18_scores
from arcwise.io import conllu, read_treebank
from arcwise.models import kinds, modelfile, packages
from arcwise.pipeline.pipeline import Pipeline
from arcwise.pipeline.stages.tokenizer import training_text

CARD_SCORES = ("Tokens", "Sentences", "Words", "UPOS", "XPOS", "UFeats", "Lemmas", "UAS", "LAS",
               "CLAS", "MLAS", "BLEX")
LICENCE_FILES = ("LICENSE.txt", "LICENSE", "LICENSE.md")


def treebank_of(meta: dict[str, Any]) -> Path | None:
    """The folder of the training file a model's command line names, if it is there."""
    command = meta.get("command_line") or []
    for flag, value in zip(command, command[1:]):
        if flag == "--train" and Path(value).is_file():
            return Path(value).resolve().parent
    return None


def treebank_facts(folder: Path) -> dict[str, Any]:
    """{"name", "language", "source", "licence"} of a treebank folder, as far as its
    SOURCE.txt, README and LICENSE say (a UD treebank's folder says all)."""
    facts: dict[str, Any] = {"name": folder.name}
    source = _read(folder / "SOURCE.txt")
    for key, field in (("name", "name"), ("source", "source_repo")):
        found = re.search(rf"^{field}:\s*(\S.*)$", source, re.M)
        if found:
            facts[key] = found.group(1).strip()
    facts["name"] = re.sub(r"^UD_", "", facts["name"])
    facts["language"] = facts["name"].split("-")[0].replace("_", " ")
    for readme in sorted(folder.glob("README*")):
        found = re.search(r"^License:\s*(\S.*)$", _read(readme), re.M)
        if found:
            facts["licence"] = found.group(1).strip()
            break
    else:
        lines = [line.strip() for line in _read(_licence_file(folder)).splitlines()]
        if any(lines):
            facts["licence"] = next(line for line in lines if line)
    return facts


def _read(path: Path | None) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace") if path else ""
    except OSError:
        return ""


def _licence_file(folder: Path) -> Path | None:
    return next((folder / n for n in LICENCE_FILES if (folder / n).is_file()), None)


def split(folder: Path, name: str) -> Path | None:
    """A treebank folder's split `name` (train, dev, test): ``NAME.conllu[.gz]``, as arcwise
    ships them, or ``*-ud-NAME.conllu[.gz]``, as UD names them."""
    for pattern in (f"{name}.conllu", f"{name}.conllu.gz", f"*-ud-{name}.conllu",
                    f"*-ud-{name}.conllu.gz"):
        found = sorted(folder.glob(pattern))
        if found:
            return found[0]
    return None


def test_scores(nlp: Pipeline, gold: Path) -> dict[str, Any]:
    """The CoNLL 2018 scores of the model on a gold treebank, parsed as a user would: its
    raw text when the model has a tokenizer, else its words (tags blanked for its tagger,
    kept when it has none)."""
    sentences = list(read_treebank(gold))
    if not sentences:
        raise ArcwiseError(f"{gold}: no sentence to score the model on")
    with tempfile.TemporaryDirectory() as work:
        gold_file, out = Path(work) / "gold.conllu", Path(work) / "system.conllu"
        conllu.write(gold_file, sentences)
        if nlp.tokenizer is not None:
            given, source = Path(work) / "test.txt", "raw text"
            given.write_text(training_text(sentences)[0] + "\n", encoding="utf-8")
            nlp.parse_file(given, out, format="text")
        elif nlp.tagger is not None:
            given, source = Path(work) / "words.conllu", "gold tokens, predicted tags"
            conllu.write(given, (conllu.without_tags(s) for s in sentences))
            nlp.parse_file(given, out)
        else:
            source = "gold tokens and tags"
            nlp.parse_file(gold_file, out)
        scores = conll18_scores(gold_file, out)
    return {"file": gold.name, "input": source, "scorer": "CoNLL 2018 (udtools udeval)",
            "sentences": len(sentences), **{m: scores[m] for m in CARD_SCORES if m in scores}}


def model_card(model: str | os.PathLike, name: str, *, version: str = "0.1.0",
               lang: str | None = None, treebank: Path | None = None,
               test: Path | None = None) -> dict[str, Any]:
    """The card of model file `model` packaged as `name` (see the module docstring); lang
    defaults to the language code the name starts with (en_ewt: en)."""
    meta = modelfile.read_meta(model)
    treebank = treebank or treebank_of(meta)
    facts = treebank_facts(treebank) if treebank else {}
    test = test or (split(treebank, "test") if treebank else None)
    kind = kinds.kind_of(meta)
    parts = meta.get("pipeline", {}) if kind == "pipeline" else {"parser": meta}
    system = parts.get("parser", {}).get("system")
    components = parts.get("components", ["parser"])
    card: dict[str, Any] = {
        "name": name, "version": version, "lang": lang or packages.language_of(name),
        "kind": kind, "components": components, "system": system,
        "summary": _summary(components, system, facts),
        "treebank": facts, "licence": facts.get("licence"),
        "training": {"command": meta.get("command_line", []),
                     "data_sha256": meta.get("training_data_sha256"),
                     "arcwise_version": meta.get("arcwise_version")},
        "model_sha256": _sha256(model), "model_bytes": os.path.getsize(model),
        "arcwise_version": __version__,
        "requires_arcwise": packages.compatible_versions(),
        "scores": {},
    }
    if test is not None:
        nlp = Pipeline.of(kinds.load(model))
        card["scores"]["test"] = test_scores(nlp, test)
    return card


def _summary(components: list[str], system: str | None, facts: dict[str, Any]) -> str:
    what = " + ".join(c if c != "parser" or not system else f"{system} parser"
                      for c in components)
    trained = f" trained on UD {facts['name']}" if "name" in facts else ""
    return f"an arcwise {what}{trained}"


def _sha256(path: str | os.PathLike) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def readme(card: dict[str, Any]) -> str:
    """The card for people: a model package's README.md."""
    bank = card.get("treebank") or {}
    lines = [f"# {card['name']} {card['version']}", "", card["summary"] + ".", "",
             "```python", "import arcwise", f'nlp = arcwise.load("{card["name"]}")',
             'doc = nlp("Some text.")', "```", "",
             f"- language: {card.get('lang') or 'unknown'}"
             + (f" ({bank['language']})" if bank.get("language") else ""),
             f"- components: {', '.join(card['components'])}"
             + (f"; parser: {card['system']}" if card.get("system") else ""),
             f"- treebank: {bank.get('name', 'unknown')}"
             + (f" ({bank['source']})" if bank.get("source") else ""),
             f"- licence (the treebank's): {card.get('licence') or 'unknown'}",
             f"- arcwise{card['requires_arcwise']} (built with {card['arcwise_version']})",
             f"- trained with: `{' '.join(card['training']['command']) or 'unknown'}`"]
    test = card["scores"].get("test")
    if test:
        metrics = [m for m in CARD_SCORES if m in test]
        lines += ["", f"## Scores on {test['file']} ({test['input']}; {test['scorer']})", "",
                  "| " + " | ".join(metrics) + " |", "|" + "---|" * len(metrics),
                  "| " + " | ".join(f"{test[m]:.2f}" for m in metrics) + " |"]
    return "\n".join(lines) + "\n"


def package(model: str | os.PathLike, name: str, out_dir: str | os.PathLike, *,
            version: str = "0.1.0", lang: str | None = None, treebank: Path | None = None,
            test: Path | None = None) -> tuple[Path, dict[str, Any]]:
    """(the wheel of model package `name`, its card) written into out_dir."""
    packages.check_name(name, version)
    model = packages.located(model)
    card = model_card(model, name, version=version, lang=lang, treebank=treebank, test=test)
    folder = treebank or treebank_of(modelfile.read_meta(model))
    licence = _licence_file(folder) if folder else None
    extra = {"TREEBANK_LICENSE.txt": licence.read_bytes()} if licence else {}
    return packages.wheel(model, card, readme(card), out_dir, extra), card
