"""`analyze`: the whole error analysis of one or more treebanks, as one JSON-able result.

Reads the gold and system files, builds the per-word `Records`, counts every
factor (`arcwise.analysis.factors`) with per-bin significance for every pair
of systems, the label confusions, and, for system files that carry a trace,
the transition analyses (`arcwise.analysis.transitions`).  Several
treebanks are aggregated word by word, as the 2011 paper aggregates its 13
languages.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass

from arcwise.analysis.factors import FactorResult, factor_results, label_confusions
from arcwise.analysis.records import Records, build_records
from arcwise.analysis.transitions import nonmonotonicity, precision_by_transition
from arcwise.core.errors import ArcwiseError
from arcwise.eval.metrics import PUNCT_POLICIES, percent

SIGNIFICANCE = ("two-sided randomised stratified shuffling (Yeh 2000), the {unit} as the "
                "instance, for every pair of systems and every bin")


@dataclass
class Analysis:
    records: Records
    factors: list[FactorResult]
    confusions: dict
    transitions: dict
    nonmonotonicity: dict
    meta: dict

    def factor(self, name: str) -> FactorResult:
        return next(f for f in self.factors if f.factor.name == name)

    def totals(self) -> dict:
        """Per system: scored words, correct words and their percentage (LAS or UAS)."""
        scored = self.records.scored(self.meta["punct"])
        out = {}
        for s, name in enumerate(self.records.names):
            correct = int((self.records.correct(s, self.meta["labeled"]) & scored).sum())
            out[name] = {"words": int(scored.sum()), "correct": correct,
                         "score": percent(correct, int(scored.sum()))}
        return out

    def to_dict(self) -> dict:
        """The `--json` object: the factors at the top level (bin -> system -> values), etc."""
        result = {"meta": self.meta, "totals": self.totals()}
        result.update({f.factor.name: f.to_dict() for f in self.factors})
        result["label_confusions"] = self.confusions
        result["transitions"] = self.transitions
        result["nonmonotonicity"] = self.nonmonotonicity
        return result


def analyze(gold: Sequence[str | os.PathLike], systems: Sequence[Sequence[str | os.PathLike]],
            names: Sequence[str], labeled: bool = True, punct: str = "include",
            samples: int = 10_000, seed: int = 0, pronoun_det: bool = False,
            unit: str = "word", command: str = "") -> Analysis:
    """Analyse systems[s][t], the output of system `names[s]` for treebank gold[t].

    samples = 0 skips the significance tests.  Raises ArcwiseError for bad
    options and InputError for files that do not align.
    """
    from arcwise import __version__
    from arcwise.io import read_treebank

    if punct not in PUNCT_POLICIES:
        raise ArcwiseError(f"unknown punctuation policy {punct!r}: use include or exclude")
    if samples < 0:
        raise ArcwiseError(f"the number of samples cannot be negative, not {samples}")
    if len(set(names)) != len(names):
        raise ArcwiseError(f"system names must differ: {', '.join(names)} (use --names)")
    for s, files in enumerate(systems):
        if len(files) != len(gold):
            raise ArcwiseError(f"system {names[s]} has {len(files)} file(s) for "
                               f"{len(gold)} gold treebank(s)")
    records = build_records([read_treebank(g) for g in gold],
                            [[read_treebank(f) for f in files] for files in systems], names)
    meta = {
        "command": command, "arcwise_version": __version__,
        "gold": [str(g) for g in gold],
        "systems": {name: [str(f) for f in files] for name, files in zip(names, systems)},
        "sha256": {str(p): sha256(p) for p in [*gold, *(f for fs in systems for f in fs)]},
        "labeled": labeled, "punct": punct, "samples": samples, "seed": seed,
        "significance": SIGNIFICANCE.format(unit=unit) if samples else "not tested (samples = 0)",
        "shuffle_unit": unit,
        "pronoun_includes_det": pronoun_det,
        "sentences": int(records.sentence[-1]) + 1 if len(records) else 0,
        "words": len(records),
    }
    return Analysis(
        records=records,
        factors=factor_results(records, labeled=labeled, punct=punct, samples=samples, seed=seed,
                              pronoun_det=pronoun_det, unit=unit),
        confusions=label_confusions(records, punct),
        transitions=precision_by_transition(records, labeled, punct),
        nonmonotonicity=nonmonotonicity(records, punct),
        meta=meta)


def sha256(path: str | os.PathLike) -> str:
    """Hex SHA-256 of a file's bytes (of the compressed file for .gz); "" unless a regular file."""
    if os.fspath(path) == "-" or not os.path.isfile(path):
        return ""  # stdin, a pipe: hashing would consume it
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
    except OSError as error:
        raise ArcwiseError(f"cannot read {path}: {error.strerror or error}") from None
    return digest.hexdigest()
