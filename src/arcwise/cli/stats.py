"""`arcwise stats FILE...`: the treebank figures of Table 2 (2011) and Table 2 (2012), per file."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

# (row label, how to show a file's statistics): the 2011 paper's columns first, named as there.
ROWS = [
    ("Tok", lambda s: str(s["tokens"])),
    ("Sen", lambda s: str(s["sentences"])),
    ("T/S", lambda s: f"{s['tokens_per_sentence']:.2f}"),
    ("Lem", lambda s: "yes" if s["lemmas"] else "no"),
    ("CPoS (UPOS)", lambda s: str(s["cpos"])),
    ("PoS (XPOS)", lambda s: str(s["pos"])),
    ("MSF (FEATS atoms)", lambda s: str(s["features"])),
    ("Dep (full / universal)", lambda s: f"{s['deprels']} / {s['deprels_universal']}"),
    ("NPT %", lambda s: f"{s['nonprojective_arcs_pct']:.2f}"),
    ("NPS %", lambda s: f"{s['nonprojective_sentences_pct']:.2f}"),
    ("not 2-planar %", lambda s: f"{s['not_two_planar_sentences_pct']:.2f}"),
    ("multi-root %", lambda s: f"{s['multi_root_sentences_pct']:.2f}"),
    ("malformed", lambda s: str(s["malformed_sentences"])),
    ("L %", lambda s: f"{s['left_arcs_pct']:.2f}"),
    ("R %", lambda s: f"{s['right_arcs_pct']:.2f}"),
    ("L1 %", lambda s: f"{s['left_length1_pct']:.2f}"),
    ("R1 %", lambda s: f"{s['right_length1_pct']:.2f}"),
    ("length-1 %", lambda s: f"{s['length1_pct']:.2f}"),
]

LEGEND = (
    "Tok tokens (syntactic words), Sen sentences, T/S tokens per sentence, Lem lemmas present, "
    "CPoS/PoS distinct UPOS/XPOS tags, MSF distinct FEATS Attribute=Value atoms, Dep distinct "
    "DEPREL; NPT/NPS: % non-projective arcs (of tokens) and sentences (2011, Table 2). "
    "not 2-planar, multi-root: % of sentences; malformed: sentences whose heads are not a tree "
    "(left out of NPT, NPS, 2-planarity). L/R: % leftward (head after dependent) and rightward "
    "arcs, L1/R1: % leftward and rightward arcs of length 1, all of the arcs between two words, "
    "root attachments left out (2012, Table 2)."
)


def register(app: typer.Typer) -> None:
    @app.command("stats")
    def stats_command(
        files: list[Path] = typer.Argument(..., help="Treebanks (CoNLL-U or CoNLL-X, maybe .gz)."),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object {file: stats}."),
    ) -> None:
        """Size, tag sets, non-projectivity, 2-planarity and arc directions of each treebank."""
        from arcwise.analysis.treebank_stats import treebank_stats
        from arcwise.io import read_treebank

        results = {str(path): treebank_stats(read_treebank(path)) for path in files}
        if as_json:
            print(json.dumps(results, indent=1))
            return
        names = [Path(p).name for p in results]
        if len(set(names)) < len(names):
            names = list(results)
        table = Table(caption=LEGEND, caption_justify="left")
        table.add_column("")
        for name in names:
            table.add_column(escape(name), justify="right")
        for label, show in ROWS:
            table.add_row(label, *(show(s) for s in results.values()))
        Console().print(table)
