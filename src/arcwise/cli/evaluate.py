"""`arcwise evaluate GOLD SYSTEM`: attachment scores, CoNLL 2018 figures, breakdown tables."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from arcwise.core.errors import ArcwiseError
from arcwise.eval.metrics import Counts, Scores, evaluate


class Punct(str, Enum):
    include = "include"
    exclude = "exclude"


def register(app: typer.Typer) -> None:
    @app.command("evaluate")
    def evaluate_command(
        gold: Path = typer.Argument(..., help="Gold treebank (CoNLL-U or CoNLL-X, maybe .gz)."),
        system: Path = typer.Argument(..., help="System output with the same sentences and words."),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object, no tables."),
        punct: Punct = typer.Option(
            Punct.include, "--punct",
            help="include: score every word; exclude: skip gold punctuation (UPOS PUNCT, or, "
                 "without UD tags, forms made only of Unicode punctuation as in CoNLL-X eval.pl)."),
    ) -> None:
        """Score SYSTEM against GOLD: UAS, LAS, LA, CLAS, exact match; CoNLL 2018 UAS/LAS/CLAS."""
        from arcwise.io import read_treebank

        scores = evaluate(read_treebank(gold), read_treebank(system), punct=punct.value)
        if scores.words == 0:
            raise ArcwiseError(f"{gold}: no words to evaluate")
        if as_json:
            result = {"gold": str(gold), "system": str(system), **scores.to_dict()}
            print(json.dumps(result, indent=1))
        else:
            print_scores(Console(), gold, system, scores)


def punctuation_policy(scores: Scores) -> str:
    """One line saying which words were scored and why."""
    if scores.punct == "include":
        return f"punctuation included: all {scores.words} words scored"
    return (f"punctuation excluded: {scores.words - scores.scored_words} of {scores.words} words "
            f"not scored ({'; '.join(scores.punctuation_rules) or 'no rule needed'}), "
            f"{scores.scored_words} scored")


def precision_recall(c: Counts) -> str:
    return f"P {c.precision:.2f} ({c.correct}/{c.system}), R {c.recall:.2f} ({c.correct}/{c.gold})"


def print_scores(console: Console, gold: Path, system: Path, scores: Scores) -> None:
    console.print(f"gold:   {escape(str(gold))}\nsystem: {escape(str(system))}", highlight=False)
    console.print(f"{scores.sentences} sentences, {scores.words} words; "
                  f"{escape(punctuation_policy(scores))}", highlight=False)

    summary = Table(title="Attachment scores (full DEPREL)", title_justify="left")
    summary.add_column("metric")
    summary.add_column("%", justify="right")
    summary.add_column("correct / total", justify="right")
    n = scores.scored_words
    summary.add_row("UAS", f"{scores.uas:.2f}", f"{scores.head_correct} / {n}")
    summary.add_row("LAS", f"{scores.las:.2f}", f"{scores.labeled_correct} / {n}")
    summary.add_row("LA", f"{scores.la:.2f}", f"{scores.label_correct} / {n}")
    summary.add_row("CLAS F1", f"{scores.clas:.2f}", precision_recall(scores.clas_counts))
    summary.add_row("exact, unlabeled", f"{scores.exact_unlabeled:.2f}",
                    f"{scores.exact_unlabeled_sentences} / {scores.sentences} sentences")
    summary.add_row("exact, labeled", f"{scores.exact_labeled:.2f}",
                    f"{scores.exact_labeled_sentences} / {scores.sentences} sentences")
    console.print(summary)

    c18 = scores.conll18
    conll18 = Table(title="CoNLL 2018 (conll18_ud_eval.py: universal DEPREL, every word, "
                          "punctuation always included)", title_justify="left")
    conll18.add_column("metric")
    conll18.add_column("%", justify="right")
    conll18.add_column("correct / total", justify="right")
    conll18.add_row("UAS", f"{c18.uas:.2f}", f"{c18.head_correct} / {c18.words}")
    conll18.add_row("LAS", f"{c18.las:.2f}", f"{c18.labeled_correct} / {c18.words}")
    conll18.add_row("CLAS F1", f"{c18.clas:.2f}", precision_recall(c18.clas_counts))
    console.print(conll18)

    relations = Table(title="By relation (CoNLL-X eval.pl 'DEPREL + ATTACHMENT'; "
                            "UAS over gold words with the relation)", title_justify="left")
    for name in ("DEPREL", "gold", "system", "correct", "P", "R", "F1", "UAS"):
        relations.add_column(name, justify="left" if name == "DEPREL" else "right")
    for label, row in scores.by_deprel.items():
        r = row.labeled
        relations.add_row(escape(label), str(r.gold), str(r.system), str(r.correct),
                          f"{r.precision:.2f}", f"{r.recall:.2f}", f"{r.f1:.2f}",
                          f"{row.attachment:.2f}" if r.gold else "-")
    console.print(relations)

    tags = Table(title="By gold UPOS", title_justify="left")
    for name in ("UPOS", "words", "UAS", "LAS", "LA"):
        tags.add_column(name, justify="left" if name == "UPOS" else "right")
    for tag, row in scores.by_upos.items():
        d = row.to_dict()
        tags.add_row(escape(tag), str(row.words), *(f"{d[k]:.2f}" for k in ("uas", "las", "la")))
    console.print(tags)
