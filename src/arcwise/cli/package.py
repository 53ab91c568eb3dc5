"""`arcwise package MODEL --name NAME`: a model file as a pip-installable model package."""

from __future__ import annotations

from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    @app.command("package")
    def package_command(
        model: str = typer.Argument(..., help="A model file (arcwise train)."),
        name: str = typer.Option(..., "--name", "-n",
                                 help="The package's name, by which arcwise.load and -m find "
                                 "it: language code, underscore, treebank (en_ewt)."),
        output: str = typer.Option(".", "--output", "-o",
                                   help="Folder to write the wheel into."),
        version: str = typer.Option("0.1.0", "--version", help="The package's version."),
        lang: str = typer.Option(None, "--lang",
                                 help="Language code (default: NAME's first part, as en in "
                                 "en_ewt)."),
        treebank: Path = typer.Option(
            None, "--treebank",
            help="The training treebank's folder: its name, source and licence go into the "
            "card, its test split is scored (default: the folder of the model's --train "
            "file, when it is there)."),
        test: Path = typer.Option(
            None, "--test", help="A gold CoNLL-U file to score the model on (default: the "
            "treebank's test split); the card records the CoNLL 2018 scorer's figures."),
        install: bool = typer.Option(False, "--install",
                                     help="pip install the wheel into this Python."),
    ) -> None:
        """Build a wheel holding MODEL and its model card, registered so that
        ``arcwise.load(NAME)`` and ``-m NAME`` find it once installed.

        The card (card.json, and README.md for people) records the language, the
        treebank and its licence, the training command, the test scores by the
        CoNLL 2018 scorer and the arcwise versions that read the model.  The same
        model gives the same wheel, byte for byte.
        """
        import subprocess
        import sys

        from arcwise.core.errors import ArcwiseError
        from arcwise.core.extras import required
        from arcwise.io.atomic import check_output
        from arcwise.packaging.card import package

        check_output(output, [model, treebank, test])

        if test is not None or treebank is not None:
            required("udtools", "eval", "scoring the model for its card")
        wheel, card = package(model, name, Path(output), version=version, lang=lang,
                              treebank=treebank, test=test)
        test_scores = card["scores"].get("test")
        scored = (f"; {test_scores['file']} ({test_scores['input']}): " + ", ".join(
            f"{m} {test_scores[m]:.2f}" for m in ("Tokens", "UPOS", "UAS", "LAS")
            if m in test_scores)) if test_scores else "; not scored (no --test)"
        print(f"{wheel}{scored}", file=sys.stderr)
        if install:
            done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet",
                                   "--no-deps", "--force-reinstall", str(wheel)])
            if done.returncode != 0:
                raise ArcwiseError(f"{wheel}: pip install failed (exit {done.returncode})")
            print(f"installed {name}: arcwise.load({name!r}), arcwise parse -m {name}",
                  file=sys.stderr)
