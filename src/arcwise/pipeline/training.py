"""Training a pipeline: the tokenizer, the tagger and the parser of one treebank.

>>> nlp, log = train_pipeline(train, dev, train_parser=lambda s, d: train("arc-eager", s, d))

The parser is trained on predicted tags (`arcwise.pipeline.predicted_tags`, jackknifed)
whenever the pipeline has a tagger, unless gold tags or none are asked for.  A parser
trained without tags reads words only (a character BiLSTM's, say): tagging errors cannot
reach it, and the pipeline's tagger still tags its output.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from arcwise.combination.stacking import folds_of
from arcwise.core.corpus import Sentence
from arcwise.core.errors import ArcwiseError
from arcwise.core.registry import named
from arcwise.io.conllu import without_tags
from arcwise.models.kinds import train_tagger
from arcwise.pipeline.pipeline import COMPONENTS, Pipeline
from arcwise.pipeline.predicted_tags import DEFAULT_FOLDS, TAGS, with_predicted_tags
from arcwise.pipeline.stages import BUILT_IN, STAGES
from arcwise.pipeline.stages.tokenizer import WHITESPACE_ONLY, Tokenizer

ParserTrainer = Callable[[Sequence[Sentence], Sequence[Sentence] | None], tuple[Any, Any]]
"""(train sentences, dev sentences or None) -> (parser, training log)."""


def default_tags(components: Sequence[str]) -> str:
    """The tags a pipeline's parser trains on: predicted when the pipeline has a tagger."""
    return "predicted" if "tagger" in components and "parser" in components else "gold"


def train_pipeline(train: Sequence[Sentence], dev: Sequence[Sentence] | None = None,
                   components: Sequence[str] = COMPONENTS, *,
                   train_parser: ParserTrainer | None = None, tags: str | None = None,
                   tag_folds: int = DEFAULT_FOLDS, tag_workers: int = 1, seed: int = 0,
                   tokenizer_options: dict[str, Any] | None = None,
                   tagger_options: dict[str, Any] | None = None,
                   progress: Callable[[str], Any] | None = None,
                   command_line: Sequence[str] = ()) -> tuple[Pipeline, dict[str, Any]]:
    """(the pipeline of `components`, a training log {component: its scores}).

    tags: what the parser trains on, "gold", "predicted" or "none" (UPOS, XPOS and FEATS
    blanked; default: `default_tags`); predicted needs a tagger among the components, and
    trains the folds' taggers in tag_workers processes.
    train_parser trains the parser (required with "parser").  progress(line) as training
    goes."""
    if not components or not set(components) <= set(COMPONENTS):
        raise ArcwiseError(f"components {', '.join(components)}: use some of "
                           f"{', '.join(COMPONENTS)}")
    components = [c for c in COMPONENTS if c in components]
    tags = tags or default_tags(components)
    if tags not in TAGS:
        raise ArcwiseError(f"tags {tags!r}: use one of {', '.join(TAGS)}")
    if tags == "predicted" and not {"tagger", "parser"} <= set(components):
        raise ArcwiseError("predicted tags are for training a parser with a tagger: "
                           "add tagger and parser to the components, or use gold tags")
    if "parser" in components and train_parser is None:
        raise ValueError("a pipeline with a parser needs train_parser")
    say = progress or (lambda line: None)

    def epochs_of(what: str) -> Callable[[dict], None]:
        return lambda entry: say(f"{what} epoch {entry['epoch']}: " + ", ".join(
            f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}"
            for k, v in entry.items() if k != "epoch"))

    train = list(train)
    dev = list(dev) if dev is not None else None
    if tags == "predicted":
        folds_of(len(train), tag_folds)  # too few sentences: ValueError before any training
    tokenizer = tagger = parser = None
    log: dict[str, Any] = {}
    if "tokenizer" in components:
        tokenizer = Tokenizer.train(train, dev, seed=seed, progress=epochs_of("tokenizer"),
                                    **(tokenizer_options or {}))
        log["tokenizer"] = tokenizer.scores
        if tokenizer.scores.get("whitespace_only"):
            say(f"tokenizer: note: {WHITESPACE_ONLY}")
    parser_train, parser_dev = train, dev
    if tags == "predicted":
        tagger, parser_train, parser_dev, log["parser_tags"] = with_predicted_tags(
            train, dev, tag_folds, seed=seed, tagger_options=tagger_options, progress=say,
            workers=tag_workers)
        log["tagger"] = tagger.scores
    elif tags == "none":
        parser_train = [without_tags(s) for s in train]
        parser_dev = [without_tags(s) for s in dev] if dev is not None else None
    if tags != "predicted" and "tagger" in components:
        tagger = train_tagger(train, dev, seed=seed, progress=epochs_of("tagger"),
                              **(tagger_options or {}))
        log["tagger"] = tagger.scores
    if "parser" in components:
        parser, log["parser"] = train_parser(parser_train, parser_dev)
    others = {}  # stages registered after the built-in three: each by its own trainer
    for name in components:
        if name not in BUILT_IN:
            others[name] = named(STAGES[name].trainer)(train, dev, seed=seed,
                                                       progress=epochs_of(name))
            log[name] = getattr(others[name], "scores", {})
    hyperparameters = {}
    if parser is not None:
        hyperparameters["parser_tags"] = tags
        if tags == "predicted":
            hyperparameters["tag_folds"] = tag_folds
    return Pipeline(tokenizer, tagger, parser, command_line, hyperparameters, **others), log
