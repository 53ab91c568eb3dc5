"""`arcwise combine SYS...`: arc voting with reparsing, or the oracle combinations of §4.4."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path

import typer

from arcwise.core.errors import ArcwiseError


class Method(str, Enum):
    vote = "vote"
    oracle_graph = "oracle-graph"
    oracle_arc = "oracle-arc"


class Metric(str, Enum):
    las = "las"
    uas = "uas"


def register(app: typer.Typer) -> None:
    @app.command("combine")
    def combine_command(
        systems: list[Path] = typer.Argument(..., metavar="SYS",
                                             help="System outputs for the same sentences."),
        method: Method = typer.Option(
            ..., "--method",
            help="vote: weighted arc voting + maximum spanning tree (Sagae & Lavie 2006); "
                 "oracle-graph: per sentence the system tree with most correct attachments; "
                 "oracle-arc: the best tree of arcs some system proposes (both need --gold)."),
        output: str = typer.Option(..., "--output", "-o",
                                   help="Output file (written atomically), - for stdout."),
        gold: Path | None = typer.Option(
            None, "--gold", help="Gold standard of the SYS sentences: needed by the oracles; "
                                 "with it, every input's and the result's UAS/LAS go to stderr."),
        weights: str | None = typer.Option(None, "--weights", metavar="W1,W2,...",
                                           help="vote: one non-negative weight per system."),
        weights_by_upos: bool = typer.Option(
            False, "--weights-by-upos",
            help="vote: weigh each system by its UAS on the dependent's UPOS, measured with "
                 "--dev-gold/--dev-output if given, else on --gold and SYS (optimistic)."),
        dev_gold: Path | None = typer.Option(None, "--dev-gold",
                                             help="Held-out gold for --weights-by-upos."),
        dev_outputs: list[Path] = typer.Option(
            [], "--dev-output", help="Each system's output on --dev-gold, in the order of SYS "
                                     "(repeat the option)."),
        metric: Metric = typer.Option(Metric.las, "--metric",
                                      help="What the oracles maximise: labeled or unlabeled."),
        single_root: bool = typer.Option(
            None, "--single-root/--multi-root", show_default=False,
            help="--single-root: exactly one word attached to 0 per sentence, as UD demands "
                 "(the default for CoNLL-U); --multi-root: several allowed (the default for "
                 "CoNLL-X)."),
    ) -> None:
        """Combine the trees of several parsers into one output (only HEAD/DEPREL/DEPS change)."""
        from arcwise.combination.voting import combine, estimate_upos_weights
        from arcwise.eval.metrics import evaluate
        from arcwise.io import conllu, format_of, one_root_by_default, read_treebank
        from arcwise.io.atomic import check_output

        check_output(output, [*systems, gold, dev_gold, *dev_outputs])

        if single_root is None:
            single_root = one_root_by_default(format_of(systems[0]) or "conllu")

        outputs = [list(read_treebank(path)) for path in systems]
        gold_sentences = list(read_treebank(gold)) if gold is not None else None
        if weights is not None and weights_by_upos:
            raise ArcwiseError("give --weights or --weights-by-upos, not both")
        system_weights = None
        if weights is not None:
            try:
                system_weights = [float(w) for w in weights.split(",")]
            except ValueError:
                raise ArcwiseError(f"--weights {weights!r}: expected numbers separated by commas") \
                    from None
        elif weights_by_upos:
            if dev_gold is not None:
                if len(dev_outputs) != len(systems):
                    raise ArcwiseError(f"{len(dev_outputs)} --dev-output files for "
                                       f"{len(systems)} systems: give one per system")
                system_weights = estimate_upos_weights(
                    list(read_treebank(dev_gold)),
                    [list(read_treebank(path)) for path in dev_outputs])
            elif gold_sentences is not None:
                system_weights = estimate_upos_weights(gold_sentences, outputs)
            else:
                raise ArcwiseError("--weights-by-upos needs --dev-gold (or --gold)")
        trees = list(combine(outputs, method.value, gold=gold_sentences, weights=system_weights,
                             metric=metric.value, single_root=single_root))
        conllu.write(output, outputs[0], trees=trees)

        if gold_sentences is not None:
            from arcwise.io.conllu import with_tree

            combined = [with_tree(s, *tree) for s, tree in zip(outputs[0], trees)]
            for name, result in [*zip(map(str, systems), outputs), (method.value, combined)]:
                scores = evaluate(gold_sentences, result)
                print(f"{name}: UAS {scores.uas:.2f} LAS {scores.las:.2f}", file=sys.stderr)
