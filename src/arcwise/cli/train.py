"""`arcwise train`: train a parser (transition-based, graph-based, or guided) into a model file."""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Any

import typer

from arcwise.core.errors import ArcwiseError
from arcwise.core.extras import required
from arcwise.core.registry import did_you_mean
from arcwise.learn.embeddings import DEFAULT_EXTRA
from arcwise.models.kinds import MODELS, is_graph_system, train_system
from arcwise.oracles import PRIORITIES
from arcwise.pipeline import TAGS
from arcwise.training.epochs import LINEAR_EPOCHS, default_epochs, learning_summary
from arcwise.transition import DEFAULT_ORACLE, ORACLES
from arcwise.trees import ENCODINGS


def choices(name: str, values: tuple[str, ...]) -> type[Enum]:
    """A typer choice of the library's own tuple of values (never a hand-copied list)."""
    return Enum(name, {value.replace("+", "_"): value for value in values}, type=str)


Oracle = choices("Oracle", ORACLES)
Model = choices("Model", MODELS)
Priority = choices("Priority", PRIORITIES)
Tags = choices("Tags", TAGS)
Encoding = choices("Encoding", ENCODINGS)


def tree_summary(log: dict) -> str:
    """One line on the training trees: lifted, not buildable, skipped (from the training log)."""
    total = log["sentences"]
    parts = []
    if log.get("pseudo_projective"):
        lifted = log["pseudo_projective"]
        parts.append(
            f"pseudo-projective ({lifted['encoding']}): lifted {lifted['arcs']:,} arcs "
            f"in {lifted['trees']:,} of {total:,} training trees"
        )
    static = log["hyperparameters"]["oracle"] == "static"
    unbuildable = log["unbuildable"]
    if static:
        parts.append(
            f"skipped {unbuildable:,} of {total:,} training trees the system cannot build "
            "(static oracle)"
        )
    else:
        parts.append(
            f"{unbuildable:,} of {total:,} training trees the system cannot build "
            "(trained on with the dynamic oracle)"
        )
    if log["malformed"]:
        parts.append(f"skipped {log['malformed']:,} trees that are not well formed")
    return "; ".join(parts)


GRAPH, TRANSITION, DYNAMIC = "graph", "transition", "dynamic"
# The options that apply to one kind of model only (the others apply to all): an option
# given on the command line for another kind is an error, never silently ignored.
OPTION_KINDS = {
    "oracle": TRANSITION,
    "bound": TRANSITION,
    "pseudo_projective": TRANSITION,
    "variant_features": TRANSITION,
    "features": TRANSITION,
    "feature_model": TRANSITION,
    "explore_from": DYNAMIC,
    "explore_p": DYNAMIC,
    "oracle_priority": DYNAMIC,
    "order": GRAPH,
    "decoder": GRAPH,
    "update": GRAPH,
}
KIND_NAMES = {GRAPH: "--system mst", TRANSITION: "transition systems",
              DYNAMIC: "transition systems with --oracle dynamic"}


def model_kinds(system: str, oracle: str) -> set[str]:
    """The kinds a training run is of: graph, or transition (and dynamic)."""
    from arcwise.graph.mst_parser import SYSTEM

    if system == SYSTEM:
        return {GRAPH}
    return {TRANSITION, DYNAMIC} if oracle == "dynamic" else {TRANSITION}


def check_options(ctx: typer.Context, system: str, oracle: str, bound: str | None,
                  decoder: str, update: str, feature_model: str = "default") -> None:
    """Reject, before any file is read, an unknown system or option value and an option
    given on the command line that does not apply to this kind of model (`OPTION_KINDS`)."""
    from arcwise import systems
    from arcwise.graph.mst_parser import DECODERS, SYSTEM, UPDATES

    if system != SYSTEM:
        if system.split("+")[0] not in systems.names():
            guess = did_you_mean(system.split("+")[0], [*systems.names(), SYSTEM])
            raise ArcwiseError(f"unknown system {system!r}{guess or ';'} known: "
                               f"{systems.describe()}, {SYSTEM} (graph-based)")
        try:
            ts = systems.get(system)
        except ValueError as error:  # a variant the system does not have
            raise ArcwiseError(str(error)) from None
        bounds = ts.oracle.bounds if ts.oracle is not None else ()
        if bound is not None and bound not in bounds:
            raise ArcwiseError(f"--bound {bound}: {system} takes "
                               + (f"one of {', '.join(bounds)}" if bounds else "no --bound"))
        from arcwise.features.templates import check_feature_model

        try:
            check_feature_model(system, feature_model)
        except ValueError as error:
            raise ArcwiseError(f"--feature-model {feature_model}: {error}") from None
    for value, known, option in [(decoder, DECODERS, "--decoder"), (update, UPDATES, "--update")]:
        if value not in known:
            raise ArcwiseError(f"{option} {value}: use one of {', '.join(known)}")
    kinds = model_kinds(system, oracle)
    for param in ctx.command.params:
        kind = OPTION_KINDS.get(param.name)
        source = ctx.get_parameter_source(param.name)
        if kind and kind not in kinds and source and source.name in ("COMMANDLINE", "ENVIRONMENT"):
            raise ArcwiseError(f"{param.opts[0]} applies to {KIND_NAMES[kind]} only, "
                               f"not to --system {system}"
                               + (f" --oracle {oracle}" if TRANSITION in kinds else ""))


def check_output(output: str, *inputs: Path | None) -> None:
    """Refuse, before training, an output (the model or its log) that would overwrite an
    input (`arcwise.io.atomic.check_output`) or cannot be written."""
    import os

    from arcwise.io.atomic import check_output as check_not_an_input

    check_not_an_input(output, inputs)
    output = Path(output)
    check_not_an_input(log_path(output), inputs)
    folder = output.parent
    if not folder.is_dir():
        raise ArcwiseError(f"-o {output}: no such directory {folder}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ArcwiseError(f"-o {output}: directory {folder} is not writable")
    if output.is_dir():
        raise ArcwiseError(f"-o {output}: is a directory")


def log_path(output: Path) -> Path:
    """Where the training log of the model file `output` goes: OUTPUT.log.json."""
    return output.with_name(output.name + ".log.json")


def saved_with_log(model, output: str | Path, log: dict, described: str = "") -> None:
    """Save the model and its training log (OUTPUT.log.json) to temporary files, load the
    model back, and only then rename both into place together (`AtomicFiles`: signals
    held, so an interrupted or failed run leaves the old pair, never half of each); a
    model that does not load is an error and replaces nothing.  Then say so on stderr:
    "wrote OUTPUT{described} and OUTPUT.log.json"."""
    import arcwise
    from arcwise.io.atomic import AtomicFiles

    output = Path(output)
    with AtomicFiles() as files:
        with files.write(output, "wb") as out:
            model.save(out)
        temp = files.temp(output)  # None: written to a device or FIFO, which cannot be read back
        if temp is not None:
            try:
                arcwise.load(temp)
            except ArcwiseError as error:
                raise ArcwiseError("the trained model does not load, not kept "
                                   f"({str(error).replace(temp, str(output))})") from None
        with files.write(log_path(output)) as out:
            json.dump(log, out, indent=2, default=str)
    print(f"wrote {output}{described} and {log_path(output)}", file=sys.stderr)


class EpochProgress:
    """A line per epoch on stderr: a rich bar on a terminal, plain whole lines otherwise."""

    def __init__(self, title: str, epochs: int):
        self.title, self.epochs = title, epochs
        self.bar = None
        if sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

            self.bar = Progress(
                TextColumn("{task.description}"), BarColumn(),
                TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn(),
                console=Console(stderr=True),
            )
            self.task = self.bar.add_task(title, total=epochs)

    def __enter__(self) -> EpochProgress:
        if self.bar is not None:
            self.bar.start()
        return self

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()

    def epoch(self, description: str) -> None:
        if self.bar is not None:
            self.bar.update(self.task, advance=1, description=description)
        else:
            print(description, file=sys.stderr, flush=True)


def dev_scores(entry: dict) -> str:
    return (f", dev UAS {entry['dev_uas']:.2f} LAS {entry['dev_las']:.2f}"
            if "dev_uas" in entry else "")


def register(app: typer.Typer) -> None:
    @app.command("train")
    def train_command(
        ctx: typer.Context,
        system: str = typer.Option(
            ..., "--system", "-s",
            help="Transition system (e.g. covington-nm, arc-eager+lba) or mst (graph-based).",
        ),
        train_path: Path = typer.Option(..., "--train", help="Training treebank (CoNLL-U/X, .gz allowed)."),
        output: str = typer.Option(..., "--output", "-o", help="Model file to write (atomically)."),
        dev_path: Path = typer.Option(None, "--dev", help="Dev treebank: keep the epoch with the best LAS."),
        oracle: Oracle = typer.Option(DEFAULT_ORACLE, "--oracle", help="static or dynamic."),
        bound: str = typer.Option(None, "--bound", help="covington-nm: lower, pc-upper or upper (default)."),
        epochs: int = typer.Option(
            None, "--epochs", min=1,
            help="Training epochs (the best on --dev is kept); default 15, for a neural parser "
            "(bilstm, biaffine) enough for 5,000 updates, 15 to 100."),
        explore_from: int = typer.Option(1, "--explore-from", min=0, help="First exploring epoch (0-based)."),
        explore_p: float = typer.Option(0.9, "--explore-p", min=0.0, max=1.0),
        seed: int = typer.Option(0, "--seed"),
        pseudo_projective: Encoding = typer.Option(
            None, "--pseudo-projective",
            help="Train on trees projectivized with this label encoding (Nivre & Nilsson 2005) "
            "and deprojectivize at parse time; meant for the projective systems "
            "(arc-eager, arc-hybrid).",
        ),
        order: int = typer.Option(1, "--order", min=1, max=2, help="mst: first or second order."),
        decoder: str = typer.Option(
            "non-projective", "--decoder", help="mst: projective or non-projective."
        ),
        update: str = typer.Option("mira", "--update", help="mst: mira or perceptron."),
        guide_path: Path = typer.Option(
            None, "--guide",
            help="Stacking (2011 paper, §5): a model file whose parser guides this one. It is "
            "retrained on the other folds to annotate each fold of TRAIN (jackknifing), and "
            "stored in the output model, which runs it first when parsing.",
        ),
        guide_folds: int = typer.Option(2, "--guide-folds", min=2, help="Jackknifing folds."),
        oracle_priority: Priority = typer.Option(
            None, "--oracle-priority",
            help="arc-eager-nm, covington-nm: among zero-cost transitions, prefer those that keep "
            "the monotonic system's loss (Honnibal et al. 2013, §6), or not. Default: monotonic "
            "for arc-eager-nm (that paper), none for covington-nm (the 2017 paper).",
        ),
        variant_features: bool = typer.Option(
            True, "--variant-features/--no-variant-features",
            help="Add the features of the variant's extra transitions to the default feature "
            "table (arc-eager+lba, +rba, +lnba, +rnba: the buffer words, as the 2012 paper's "
            "feature models); --no-variant-features: the base system's table. Recorded in "
            "the model, which stores its feature table.",
        ),
        features: Path = typer.Option(
            None, "--features",
            help="A feature table file (one template per line, as the bundled ones in "
            "arcwise/features/templates/; MaltParser's feature model) instead of the system's "
            "default table; --model perceptron only. Stored in the model.",
        ),
        feature_model: str = typer.Option(
            "default", "--feature-model", metavar="NAME",
            help="Which bundled feature table: default (the system's), or malt (arc-eager: "
            "MaltParser's feature model with every pair of features conjoined, as the "
            "degree-2 kernel of the 2012 paper's SVMs); --model perceptron only.",
        ),
        pipeline: bool = typer.Option(
            False, "--pipeline",
            help="Train a pipeline model: a tokenizer and sentence splitter, a tagger and the "
            "parser SYSTEM (the components of --components), in one model file that parses raw "
            "text (arcwise parse --input text).",
        ),
        components: str = typer.Option(
            "tokenizer,tagger,parser", "--components",
            help="--pipeline: which components, comma-separated.",
        ),
        tags: Tags = typer.Option(
            None, "--tags",
            help="The tags the parser trains on: gold, or predicted by a tagger that never saw "
            "the sentence (jackknifing, --tag-folds); the model then holds that tagger, trained "
            "on all of TRAIN, and tags untagged input with it; or none (UPOS, XPOS and FEATS "
            "blanked: the parser reads words only, e.g. with --neural chars=50, and ignores "
            "the tags of its input). Default: predicted for a --pipeline with a tagger, "
            "else gold.",
        ),
        tag_folds: int = typer.Option(10, "--tag-folds", min=2,
                                      help="--tags predicted: jackknifing folds."),
        tag_workers: int = typer.Option(
            1, "--tag-workers", min=1,
            help="--tags predicted: train the folds' taggers in this many processes.",
        ),
        tagger: list[str] = typer.Option(
            [], "--tagger", metavar="KEY=VALUE",
            help="The tagger's options (repeatable; --system tagger, --pipeline, --tags "
            "predicted): model=perceptron (the default) or model=bilstm (a BiLSTM tagger "
            "reading characters; needs the neural extra), epochs (perceptron 8; bilstm: "
            "enough for 4,000 updates, 10 to 100), features (perceptron: 1, 2, auto: both "
            "trained, the better on dev kept, or both, the default: both trained, their "
            "scores added), "
            "combinations (perceptron: seen, the default, writes a word only a UPOS, XPOS "
            "and FEATS combination seen in training, while the parser reads each column's "
            "best; any writes those), and a "
            "bilstm tagger's network options as --neural's (chars, dropout, lstm, threads ...).",
        ),
        model: Model = typer.Option(
            Model.perceptron, "--model",
            help="What scores the parser's decisions: the averaged perceptron (transition "
            "systems; mst: its linear model), a BiLSTM (transition systems; Kiperwasser & "
            "Goldberg 2016) or biaffine (--system mst; Dozat & Manning 2017). The neural "
            "models need the neural extra: pip install 'arcwise\\[neural]'.",
        ),
        neural: list[str] = typer.Option(
            [], "--neural", metavar="KEY=VALUE",
            help="--model bilstm or biaffine: a network or training option (repeatable): "
            "word, suffix, shape, tag (embedding sizes), chars (a character BiLSTM's size; "
            "default none), char_embedding, lstm, layers, word_dropout, dropout (0.33), "
            "learning_rate, decay and decay_updates (the rate times decay every "
            "decay_updates updates; default none), batch_sentences, threads; bilstm: "
            "hidden, aggressive_p, features (the words the network reads: paper, the "
            "2018 paper's and Kiperwasser & Goldberg's, with the stack words' leftmost and "
            "rightmost dependents, the default; compact, the words alone; or addresses "
            "such as S0,S1,B0,S0.l); biaffine: arc, label.",
        ),
        embeddings: Path = typer.Option(
            None, "--embeddings",
            help="Pretrained word vectors for every neural model trained (--model bilstm or "
            "biaffine, --tagger model=bilstm): word2vec text or binary, fastText .vec or "
            "GloVe .txt, gzipped or not. The vectors of the training words (an exact "
            "lowercase entry, else the first cased variant) and of --embeddings-extra other "
            "words are copied into the model, which never needs the file again; a fixed "
            "table, concatenated to the trained word embedding (its dimension is the "
            "file's: no size has to match).",
        ),
        embeddings_extra: int = typer.Option(
            DEFAULT_EXTRA, "--embeddings-extra", min=0,
            help="--embeddings: how many words beside the training vocabulary keep their "
            "vector (the file's first, in its order: the most frequent), so that words "
            "never seen in training find theirs.",
        ),
        device: str = typer.Option(
            "cpu", "--device",
            help="Where the neural networks (--model bilstm or biaffine, --tagger "
            "model=bilstm) train: cpu (deterministic: the same seed, the same model file), "
            "cuda or cuda:N (a GPU; an error where torch sees none), or auto (cuda when "
            "torch sees a GPU, else cpu). Not stored in the model.",
        ),
    ) -> None:
        """Train SYSTEM on TRAIN and write the model file; a JSON training log goes beside it.

        --system tagger (UPOS, XPOS, FEATS) and --system tokenizer (tokens, sentences,
        multiword tokens from raw text) train those components alone; --pipeline trains
        several into one model file (see --components).

        Gold trees the system cannot build are counted (in the log and in the
        summary printed at the end): static training skips them, dynamic
        training learns from them.  --pseudo-projective works with any transition
        system but only helps those that cannot build non-projective trees.
        Options for another kind of model (--order with arc-eager, --bound with
        mst, --explore-p with --oracle static ...) are errors; so are training
        data without a tree to learn from and an output that would overwrite
        the data or cannot be written, all found before training starts.  The
        saved model is loaded back to check it.
        """
        from arcwise.io import read_treebank
        from arcwise.io.conllu import without_tags

        checked_device(ctx, device, model.value, tagger)
        checked_embeddings(ctx, embeddings, system, model.value, tagger, pipeline, components,
                           tags)
        predicted = tags is not None and tags.value == "predicted"
        if system in ("tagger", "tokenizer") or pipeline or predicted:
            if guide_path is not None:
                raise ArcwiseError("--guide cannot be combined with --pipeline or --tags "
                                   "predicted yet")
            wanted = ([c.strip() for c in components.split(",")] if pipeline
                      else [system] if system in ("tagger", "tokenizer") else ["tagger", "parser"])
            if "parser" not in wanted and model.value != "perceptron":
                raise ArcwiseError(f"--model {model.value} is the parser's: train a parser "
                                   "(--pipeline with parser among --components)")
            if tagger and "tagger" not in wanted:
                raise ArcwiseError("--tagger: this model has no tagger (add tagger to "
                                   "--components)")
            _train_pipeline(ctx, system, wanted, train_path, dev_path, output, epochs, seed,
                            tags.value if tags else None, tag_folds, tag_workers,
                            parse_tagger(tagger), (embeddings, embeddings_extra),
                            dict(oracle=oracle, bound=bound, order=order, decoder=decoder,
                                 update=update, explore_from=explore_from, explore_p=explore_p,
                                 pseudo_projective=pseudo_projective,
                                 oracle_priority=oracle_priority,
                                 variant_features=variant_features,
                                 feature_model=feature_model, model=model.value,
                                 neural=checked_model(system, model.value, neural),
                                 features=features))
            return
        if tagger:
            raise ArcwiseError("--tagger: this model has no tagger (train one with --system "
                               "tagger, --pipeline or --tags predicted)")
        check_options(ctx, system, oracle.value, bound, decoder, update, feature_model)
        neural_options = checked_model(system, model.value, neural)
        if feature_model != "default" and model.value != "perceptron":
            raise ArcwiseError(f"--feature-model is the perceptron's; --model {model.value} "
                               "reads the words of --neural features")
        table = feature_table(features, system, model.value, guided=guide_path is not None)
        check_output(output, train_path, dev_path, guide_path, features, embeddings)
        train_sentences = list(read_treebank(train_path))
        dev = list(read_treebank(dev_path)) if dev_path else None
        vectors = read_embeddings(embeddings, embeddings_extra, train_sentences)
        if tags is not None and tags.value == "none":
            train_sentences = [without_tags(s) for s in train_sentences]
            dev = [without_tags(s) for s in dev] if dev is not None else None
        guide = guided_by(guide_path, guide_folds, train_sentences, dev)
        epochs = epochs or default_epochs(model.value, len(train_sentences),
                                          int(neural_options.get("batch_sentences", 32)))
        if model.value == "biaffine":
            refuse_linear_mst_options(ctx)
        options = trainer_options(
            system, model.value, oracle=oracle.value, bound=bound, epochs=epochs,
            explore_from=explore_from, explore_p=explore_p, seed=seed, order=order,
            decoder=decoder, update=update,
            pseudo_projective=pseudo_projective.value if pseudo_projective else None,
            oracle_priority=oracle_priority.value if oracle_priority else None,
            variant_features=variant_features, feature_model=feature_model,
            neural=neural_options, table=table, embeddings=vectors)
        title = trainer_title(system, model.value, oracle.value, order, decoder)
        with EpochProgress(title, epochs) as bar:
            try:
                parser, log = train_system(
                    system, train_sentences, dev,
                    progress=lambda entry: bar.epoch(epoch_line(title, model.value, system,
                                                                entry)),
                    **options, **guide.training_options)
            except ValueError as error:  # bad system, bound or option
                raise ArcwiseError(str(error)) from None
        parser.command_line = ["arcwise", *sys.argv[1:]]
        linear_mst = is_graph_system(system) and model.value == "perceptron"
        best = "" if linear_mst else f" (best epoch {log['best_epoch']})"
        saved_with_log(guide.wrap(parser), output, log, best)
        if not is_graph_system(system):
            print(tree_summary(log), file=sys.stderr)


def trainer_options(system: str, model: str, *, oracle: str, bound: str | None,
                    epochs: int | None, explore_from: int, explore_p: float, seed: int,
                    order: int, decoder: str, update: str, pseudo_projective: str | None,
                    oracle_priority: str | None, variant_features: bool, neural: dict,
                    table: Any, feature_model: str = "default",
                    embeddings: Any = None) -> dict[str, Any]:
    """The options of `arcwise.models.kinds.train_system` that the command line's give for
    `system` and `model`: the trainer is picked by the kind registry alone.  embeddings:
    the `arcwise.learn.embeddings.Vectors` of --embeddings (a neural model's only)."""
    pretrained = {} if embeddings is None or model == "perceptron" else {
        "embeddings": embeddings}
    if model == "biaffine":
        return dict(model=model, decoder=decoder, epochs=epochs, seed=seed, neural=neural,
                    **pretrained)
    if is_graph_system(system):
        return dict(model=model, order=order, decoder=decoder, update_rule=update,
                    epochs=epochs or LINEAR_EPOCHS, seed=seed)
    return dict(oracle=oracle, bound=bound, epochs=epochs, explore_from=explore_from,
                explore_p=explore_p, seed=seed, pseudo_projective=pseudo_projective,
                oracle_priority=oracle_priority, variant_features=variant_features,
                feature_model=feature_model, model=model, neural=neural, table=table,
                **pretrained)


def trainer_title(system: str, model: str, oracle: str, order: int, decoder: str) -> str:
    """What the progress bar calls the training run."""
    if model == "biaffine":
        return f"biaffine {decoder}"
    if is_graph_system(system):
        return f"mst order {order} {decoder}"
    return f"{system} ({oracle})"


def epoch_line(title: str, model: str, system: str, entry: dict) -> str:
    """One epoch of the training log, as the progress bar shows it."""
    if model == "biaffine":
        return (f"biaffine epoch {entry['epoch']}: {entry['sentences_per_second']:.0f} "
                f"sentences/s, loss {entry['loss']:.3f}{dev_scores(entry)}")
    if is_graph_system(system):
        return f"{title} epoch {entry['epoch']}: {entry['seconds']:.0f} s{dev_scores(entry)}"
    return (f"{title} epoch {entry['epoch']}: {entry['sentences_per_second']:.0f} sentences/s, "
            f"{learning_summary(entry)}{dev_scores(entry)}")


def refuse_linear_mst_options(ctx: typer.Context) -> None:
    """--order and --update belong to the linear MST parser: given with --model biaffine,
    an error rather than silently ignored."""
    for option in ("order", "update"):
        source = ctx.get_parameter_source(option)
        if source and source.name in ("COMMANDLINE", "ENVIRONMENT"):
            raise ArcwiseError(f"--{option} applies to the linear MST parser, not to "
                               "--model biaffine")


def feature_table(path: Path | None, system: str, model: str, guided: bool = False):
    """The table of --features (None: the system's default); ArcwiseError if the model
    reads no feature table."""
    if path is None:
        return None
    if model != "perceptron":
        raise ArcwiseError(f"--features is the perceptron's feature table; --model {model} "
                           "reads the BiLSTM vectors of the system's positions")
    from arcwise.features import table_from_file

    return table_from_file(path, system, guided)


def checked_device(ctx: typer.Context, device: str, model: str, tagger: list[str]) -> None:
    """Train the neural networks on --device (`arcwise.core.device.use_device`);
    ArcwiseError if it is given for a run that trains none, or names no device here."""
    from arcwise.core.device import use_device

    tagger_models = [pair.partition("=")[2] for pair in tagger if pair.startswith("model=")]
    neural = model != "perceptron" or tagger_models[-1:] == ["bilstm"]
    source = ctx.get_parameter_source("device")
    if not neural and source and source.name in ("COMMANDLINE", "ENVIRONMENT"):
        raise ArcwiseError(f"--device applies to the neural models only (--model bilstm or "
                           f"biaffine, --tagger model=bilstm), not to --model {model}")
    use_device(device)


def checked_embeddings(ctx: typer.Context, embeddings: Path | None, system: str, model: str,
                       tagger: list[str], pipeline: bool, components: str, tags) -> None:
    """ArcwiseError, before any file is read, for --embeddings in a run that trains no
    neural model, or --embeddings-extra without it; InputError for a vectors file whose
    start is none's (`arcwise.learn.embeddings.read_header`)."""
    source = ctx.get_parameter_source("embeddings_extra")
    if embeddings is None:
        if source and source.name in ("COMMANDLINE", "ENVIRONMENT"):
            raise ArcwiseError("--embeddings-extra applies to --embeddings (pretrained word "
                               "vectors) only")
        return
    tagger_models = [pair.partition("=")[2] for pair in tagger if pair.startswith("model=")]
    predicted = tags is not None and tags.value == "predicted"
    wanted = ([c.strip() for c in components.split(",")] if pipeline
              else [system] if system in ("tagger", "tokenizer")
              else ["tagger", "parser"] if predicted else ["parser"])
    neural_parser = "parser" in wanted and model != "perceptron"
    neural_tagger = "tagger" in wanted and tagger_models[-1:] == ["bilstm"]
    if not (neural_parser or neural_tagger):
        raise ArcwiseError("--embeddings applies to the neural models only (--model bilstm "
                           "or biaffine, --tagger model=bilstm), not to "
                           + ("--tagger model=perceptron" if wanted == ["tagger"]
                              else f"--model {model}"))
    from arcwise.learn.embeddings import read_header

    read_header(embeddings)


def read_embeddings(path: Path | None, extra: int, sentences) -> Any:
    """The `arcwise.learn.embeddings.Vectors` of --embeddings for the training sentences'
    lowercased forms and `extra` other words, read once for every model the run trains
    (a line on stderr says what was kept); None without --embeddings."""
    if path is None:
        return None
    from arcwise.core.vocab import form_signature
    from arcwise.learn.embeddings import read_vectors

    wanted = {form_signature(f)[0] for s in sentences for f in s.form[1:]}
    vectors = read_vectors(path, wanted, extra)
    found = sum(1 for w in vectors.words if w in wanted)
    print(f"embeddings {path}: {vectors.format}, {vectors.dimension} dimensions, "
          f"{vectors.read:,} vectors; kept {found:,} of the {len(wanted):,} training words "
          f"and {len(vectors.words) - found:,} others", file=sys.stderr, flush=True)
    return vectors


def checked_model(system: str, model: str, neural: list[str]) -> dict:
    """The --neural options of --model for --system; ArcwiseError if that model does not
    train that system or an option is wrong."""
    if model != "perceptron":
        required("torch", "neural", f"--model {model}")
    options = parse_neural(neural, model)
    if (model == "biaffine") != (is_graph_system(system) and model != "perceptron"):
        raise ArcwiseError(f"--model {model} does not train --system {system}: "
                           "--model bilstm trains transition systems, --model biaffine "
                           "the graph-based parser (--system mst)")
    if "features" in options:
        from arcwise.features.templates import neural_addresses

        try:
            neural_addresses(system, options["features"])
        except ValueError as error:
            raise ArcwiseError(f"--neural features={options['features']}: {error}") from None
    return options


def parse_neural(pairs: list[str], model: str, flag: str = "--neural") -> dict:
    """--neural KEY=VALUE options as {key: int or float}; errors before any file is read.
    model: perceptron, bilstm, biaffine, or tagger (a BiLSTM tagger's options, `flag`)."""
    if pairs and model == "perceptron":
        raise ArcwiseError("--neural applies to --model bilstm and biaffine only")
    if not pairs:
        return {}
    from dataclasses import fields

    from arcwise.graph.biaffine import BiaffineSizes
    from arcwise.learn.neural import Sizes

    sizes = BiaffineSizes if model == "biaffine" else Sizes
    size_fields = {f.name: f.type for f in fields(sizes)}
    known = dict(size_fields)
    known.update(batch_sentences="int", threads="int")
    if model == "bilstm":
        known.update(aggressive_p="float", features="str")
    options = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        if key not in known:
            raise ArcwiseError(f"{flag} {pair}: unknown option; use one of {', '.join(known)}")
        if known[key] == "str":
            options[key] = value
            continue
        try:
            options[key] = float(value) if known[key] in (float, "float") else int(value)
        except ValueError:
            raise ArcwiseError(f"{flag} {pair}: {value!r} is not a number") from None
    try:  # values out of range
        sizes(**{k: v for k, v in options.items() if k in size_fields})
    except ValueError as error:
        raise ArcwiseError(f"{flag}: {error}") from None
    return options


def parse_tagger(pairs: list[str]) -> dict:
    """--tagger KEY=VALUE options as the tagger's options (`train_pipeline`'s
    tagger_options): model (perceptron or bilstm), epochs, features (the perceptron's
    version), combinations (the perceptron's: seen or any), and a bilstm tagger's network
    options (as --neural); errors before any file is read."""
    from arcwise.models.kinds import TAGGERS

    options: dict = {}
    neural = []
    for pair in pairs:
        key, _, value = pair.partition("=")
        if key == "model":
            if value not in TAGGERS:
                raise ArcwiseError(f"--tagger {pair}: use one of "
                                   f"{', '.join('model=' + m for m in TAGGERS)}")
            options["model"] = value
        elif key == "features":
            if value not in ("1", "2", "auto", "both"):
                raise ArcwiseError(f"--tagger {pair}: use features=1, 2, auto (both trained, "
                                   "the better on dev kept) or both (the default: both "
                                   "trained, their scores added)")
            options[key] = value if value in ("auto", "both") else int(value)
        elif key == "epochs":
            if not value.isdigit() or int(value) < 1:
                raise ArcwiseError(f"--tagger {pair}: {value!r} is not a positive whole number")
            options[key] = int(value)
        elif key == "combinations":
            if value not in ("seen", "any"):
                raise ArcwiseError(f"--tagger {pair}: use combinations=seen (the default: "
                                   "a word gets a UPOS, XPOS and FEATS combination seen in "
                                   "training) or combinations=any")
            options[key] = value == "seen"
        else:
            neural.append(pair)
    model = options.get("model", "perceptron")
    if model == "perceptron" and neural:
        raise ArcwiseError(f"--tagger {neural[0]}: unknown option for a perceptron tagger; "
                           "use epochs, features or combinations (model=bilstm takes network "
                           "options)")
    if model == "bilstm":
        required("torch", "neural", "--tagger model=bilstm")
        for key in ("features", "combinations"):
            if key in options:
                raise ArcwiseError(f"--tagger {key}: a perceptron tagger's option, "
                                   "not model=bilstm's")
        if neural:
            options["neural"] = parse_neural(neural, "tagger", "--tagger")
    return options


class Guide:
    """What --guide adds to training: the guide's trees, and the wrapping of the result."""

    def __init__(self, model=None, folds: int = 2, trees=None, dev_trees=None):
        self.model, self.folds = model, folds
        self.training_options = ({} if model is None else
                                 {"guide": trees, "dev_guide": dev_trees})

    def wrap(self, parser):
        """The parser to save: the trained one, or it with its guide (one model file)."""
        if self.model is None:
            return parser
        from arcwise.combination.stacking import GuidedParser

        return GuidedParser(self.model, parser, self.folds)


def guided_by(guide_path, folds, train_sentences, dev) -> Guide:
    """Load the guide model and jackknife its trees of TRAIN (a line per fold on stderr)."""
    if guide_path is None:
        return Guide()
    from arcwise.combination.stacking import jackknife, parsed
    from arcwise.models import kinds

    model = kinds.load(guide_path)  # the parser itself, not its pipeline
    if getattr(model, "guided", False) or not hasattr(model, "hyperparameters"):
        raise ArcwiseError(f"{guide_path}: a guided model cannot guide another parser")

    def progress(k: int, total: int) -> None:
        print(f"guide {model.system}: fold {k}/{total} annotated by a guide retrained on the "
              "other folds", file=sys.stderr, flush=True)

    try:
        trees = jackknife(model, train_sentences, folds, dev, progress)
    except ValueError as error:
        raise ArcwiseError(str(error)) from None
    return Guide(model, folds, trees, parsed(model, dev) if dev else None)


def _train_pipeline(ctx, system, wanted, train_path, dev_path, output, epochs, seed, tags,
                    tag_folds, tag_workers, tagger_options, embeddings, parser_options) -> None:
    """`arcwise train --system tagger|tokenizer`, `--pipeline` and `--tags predicted`: the
    components in `wanted` (`arcwise.pipeline.training`) in one pipeline model file.
    embeddings: (--embeddings, --embeddings-extra), for its neural models."""
    from arcwise.io import read_treebank
    from arcwise.pipeline.pipeline import COMPONENTS
    from arcwise.pipeline.training import train_pipeline

    unknown = [c for c in wanted if c not in COMPONENTS]
    if unknown or not wanted:
        raise ArcwiseError(f"--components {','.join(wanted)}: use some of {', '.join(COMPONENTS)}")
    o = parser_options
    table = None
    if "parser" in wanted:
        check_options(ctx, system, o["oracle"].value, o["bound"], o["decoder"], o["update"],
                      o["feature_model"])
        table = feature_table(o["features"], system, o["model"])
    check_output(output, train_path, dev_path, o["features"], embeddings[0])
    train_sentences = list(read_treebank(train_path))
    dev = list(read_treebank(dev_path)) if dev_path else None
    vectors = read_embeddings(*embeddings, train_sentences)
    if vectors is not None and tagger_options.get("model") == "bilstm" and "tagger" in wanted:
        tagger_options = {**tagger_options, "embeddings": vectors}

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    def progress(entry: dict) -> None:
        say(f"parser {system} epoch {entry['epoch']}: "
            f"{learning_summary(entry)}{dev_scores(entry)}")

    if o["model"] == "biaffine":
        refuse_linear_mst_options(ctx)
    options = trainer_options(
        system, o["model"], oracle=o["oracle"].value, bound=o["bound"], epochs=epochs,
        explore_from=o["explore_from"], explore_p=o["explore_p"], seed=seed, order=o["order"],
        decoder=o["decoder"], update=o["update"],
        pseudo_projective=o["pseudo_projective"].value if o["pseudo_projective"] else None,
        oracle_priority=o["oracle_priority"].value if o["oracle_priority"] else None,
        variant_features=o["variant_features"], feature_model=o["feature_model"],
        neural=o["neural"], table=table, embeddings=vectors)
    if not (is_graph_system(system) and o["model"] == "perceptron"):  # MST's epochs: unshown
        options["progress"] = progress

    def train_parser(sentences, dev_sentences):
        return train_system(system, sentences, dev_sentences, **options)

    try:
        model, log = train_pipeline(train_sentences, dev, wanted, train_parser=train_parser,
                                    tags=tags, tag_folds=tag_folds, tag_workers=tag_workers,
                                    seed=seed,
                                    tagger_options=tagger_options, progress=say,
                                    command_line=["arcwise", *sys.argv[1:]])
    except ValueError as error:  # bad system, bound or option; too few sentences for the folds
        raise ArcwiseError(str(error)) from None
    saved_with_log(model, output, log, f" ({', '.join(model.components)})")
