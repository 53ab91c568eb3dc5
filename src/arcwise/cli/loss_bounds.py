"""`arcwise loss-bounds`: how tight the covington-nm loss bounds are (2017 paper, Table 1)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    @app.command("loss-bounds")
    def loss_bounds_command(
        treebank: Path = typer.Argument(..., help="CoNLL-U or CoNLL-X file (.gz allowed)."),
        system: str = typer.Option(
            "covington-nm", "--system", "-s", help="covington-nm or covington-nm+root."
        ),
        transitions: int = typer.Option(100_000, "--transitions", "-t", help="Transitions to measure."),
        seed: int = typer.Option(0, "--seed", help="Seed of the exploration."),
        explore_p: float = typer.Option(
            None, "--explore-p",
            help="training, trained: probability of following the model's own mistake "
            "(default: 0.1 for training, the regime closest to the paper's; 0.9 for trained, "
            "arcwise train's); random: probability of a random legal action (default 0.1).",
        ),
        follow: str = typer.Option(
            "upper", "--follow", help="Bound whose zero-cost actions are followed."
        ),
        policy: str = typer.Option(
            "training", "--policy",
            help="training: the training run itself, a perceptron from zero weights updated "
            "online as arcwise train updates it, its own predictions followed (by default its "
            "first transitions, the paper's 'first 100,000 transitions'); trained: a "
            "perceptron trained first, its weights then fixed; random: a zero-cost action, or "
            "with probability --explore-p a random one.",
        ),
        model_epochs: int = typer.Option(
            None, "--model-epochs", min=0,
            help="training: epochs trained unmeasured before the measured one (default 0); "
            "trained: epochs of training before the measured pass (default 1).",
        ),
        explore_from: int = typer.Option(
            0, "--explore-from", min=0,
            help="training: the first epoch that explores, 0-based (default 0: from the first "
            "transition; arcwise train's is 1).",
        ),
        max_states: int = typer.Option(
            20_000, "--max-states", help="Exact-search limit per configuration (beyond: unresolved)."
        ),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
    ) -> None:
        """Average lower bound, exact loss, pc-upper and upper bound over the configurations
        met while training on TREEBANK with exploration (2017 paper, §5 and Table 1), and the
        mean relative differences |bound - loss| / loss."""
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )
        from rich.table import Table

        from arcwise.analysis.loss_bounds import (
            COLUMNS,
            POLICIES,
            WITNESS,
            measure_loss_bounds,
            prepare_policy,
        )
        from arcwise.core.errors import ArcwiseError
        from arcwise.io import read_treebank
        from arcwise.oracles.covington_nonmonotonic import BOUNDS

        if system.split("+")[0] != "covington-nm":
            raise ArcwiseError(f"loss bounds exist for covington-nm (+root) only, not {system!r}")
        from arcwise import systems

        try:
            options = systems.get(system).kernels.options
        except ValueError as error:
            raise ArcwiseError(str(error)) from None
        if follow not in BOUNDS:
            raise ArcwiseError(f"--follow takes one of {', '.join(BOUNDS)}, not {follow!r}")
        if policy not in POLICIES:
            raise ArcwiseError(f"--policy takes one of {', '.join(POLICIES)}, not {policy!r}")
        if policy == "trained" and model_epochs == 0:
            raise ArcwiseError("--policy trained needs --model-epochs 1 or more")
        if explore_p is None:
            explore_p = 0.9 if policy == "trained" else 0.1
        if not 0 <= explore_p <= 1:
            raise ArcwiseError(f"--explore-p is a probability, not {explore_p}")
        sentences = list(read_treebank(treebank))
        if policy != "random":
            print(f"training {system} on {treebank} ...", file=sys.stderr, flush=True)
        chosen, measured = prepare_policy(
            sentences, policy, system_name=system, epochs=model_epochs, p=explore_p,
            explore_from=explore_from, bound=follow, seed=seed)
        columns = (
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
        )
        with Progress(*columns, transient=True, disable=as_json) as progress:
            task = progress.add_task("transitions", total=transitions)
            result = measure_loss_bounds(
                measured,
                transitions,
                chosen,
                seed=seed,
                max_states=max_states,
                progress=lambda k: progress.advance(task, k),
                options=options,
            )
        summary = {
            "treebank": str(treebank),
            "system": system,
            "policy": policy,
            "model_epochs": (None if policy == "random" else
                             model_epochs if model_epochs is not None else
                             int(policy == "trained")),
            "explore_from": explore_from if policy == "training" else None,
            "explore_p": explore_p,
            "seed": seed,
            "max_states": max_states,
            **result.as_dict(),
        }
        if as_json:
            print(json.dumps(summary, indent=2))
            return
        rows = [("all", result)]
        if result.rootless is not None:
            rows.append(("no detachable root", result.rootless))
        averages = Table(title=f"loss bounds of {system} on {treebank} ({policy} policy): "
                         "average per configuration")
        differences = Table(title="relative difference to the loss, mean |bound - loss| / loss")
        for table, columns in ((averages, COLUMNS), (differences, COLUMNS[:1] + COLUMNS[2:])):
            table.add_column("configurations")
            for c in columns:
                table.add_column(c, justify="right")
            for name, part in rows:
                values = part.average if table is averages else part.relative_difference
                table.add_row(f"{name} ({part.configurations})",
                              *(f"{values(c):.5f}" for c in columns))
            Console().print(table)
        Console().print(
            f"witness sequence (§4; not in the paper): average {result.average(WITNESS):.5f}, "
            f"relative difference {result.relative_difference(WITNESS):.5f}"
        )
        low, high = result.bracket()
        Console().print(
            f"{result.configurations} configurations measured ({result.transitions} transitions) "
            f"in {result.sentences} sentences; "
            f"{result.unresolved} unresolved (exact search over {max_states} states), left out "
            f"(with them the average loss is {low:.5f} to {high:.5f}); "
            f"{result.violations} bound violations"
        )
        Console().print(
            f"closest to the loss: {result.closest()}; gold root words the upper bounds count "
            f"lost and the lower bound does not: "
            f"{result.detachable_roots / max(result.configurations, 1):.5f} per configuration"
        )
