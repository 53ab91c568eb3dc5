"""`arcwise compare GOLD A B`: two systems' scores and the significance of their difference."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path

import typer

from arcwise.cli.evaluate import Punct


class Metric(str, Enum):
    las = "las"
    uas = "uas"


class Test(str, Enum):
    bootstrap = "bootstrap"
    shuffle = "shuffle"


TEST_NAMES = {"bootstrap": "paired bootstrap over sentences (Berg-Kirkpatrick et al. 2012)",
              "shuffle": "randomised stratified shuffling over sentences (Yeh 2000)"}


def register(app: typer.Typer) -> None:
    @app.command("compare")
    def compare_command(
        gold: Path = typer.Argument(..., metavar="GOLD",
                                   help="Gold treebank (CoNLL-U or CoNLL-X, maybe .gz)."),
        system_a: Path = typer.Argument(..., metavar="A", help="First system's output."),
        system_b: Path = typer.Argument(..., metavar="B", help="Second system's output."),
        metric: Metric = typer.Option(Metric.las, "--metric", help="Score to compare."),
        test: Test = typer.Option(
            Test.bootstrap, "--test",
            help="bootstrap: one-sided p that the higher-scoring system is better; "
                 "shuffle: two-sided p that the systems differ."),
        samples: int = typer.Option(10_000, "--samples", min=1, help="Resamples / shuffles."),
        seed: int = typer.Option(0, "--seed", help="Seed of the random generator."),
        punct: Punct = typer.Option(
            Punct.include, "--punct",
            help="include: score every word; exclude: skip gold punctuation (as in evaluate)."),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
    ) -> None:
        """Score A and B against GOLD and print the p-value of their difference."""
        from arcwise.eval.significance import compare
        from arcwise.io import read_treebank

        result = compare(read_treebank(gold), read_treebank(system_a), read_treebank(system_b),
                         metric=metric.value, test=test.value, samples=samples, seed=seed,
                         punct=punct.value)
        if as_json:
            paths = {"gold": str(gold), "a": str(system_a), "b": str(system_b)}
            print(json.dumps({**paths, **result.to_dict()}, indent=1))
            return
        name = result.metric.upper()
        print(f"gold: {gold}  ({result.sentences} sentences, {result.words} words scored, "
              f"punctuation {result.punct}d)")
        print(f"A:    {result.score_a:6.2f} {name} ({result.correct_a}/{result.words})  {system_a}")
        print(f"B:    {result.score_b:6.2f} {name} ({result.correct_b}/{result.words})  {system_b}")
        print(f"A - B: {result.difference:+.2f} points")
        p = (f"p < {1 / result.samples:.2g}" if result.p_value == 0
             else f"p = {result.p_value:.4g}")
        print(f"{TEST_NAMES[result.test]}, {result.samples} samples, seed {result.seed}: "
              f"{p}  (H1: {result.hypothesis})")
