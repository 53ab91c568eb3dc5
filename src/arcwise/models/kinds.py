"""The kinds of model a model file can hold, and the class that loads each.

A model file names its kind in the metadata key ``model``; files written
before that key existed are recognised by what they hold (`kind_of`).  This
is the one place that maps a file to a class: `arcwise.load`, stacking and
the service ask it instead of looking at system names.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from arcwise.core.errors import ArcwiseError
from arcwise.core.registry import named, registered

# kind -> "module:Class"; the class has load(path) and from_saved(arrays, meta, source)
KINDS = {
    "perceptron": "arcwise.transition.parser:Parser",
    "bilstm": "arcwise.transition.parser:ScorerParser",
    "graph": "arcwise.graph.mst_parser:GraphParser",
    "biaffine": "arcwise.graph.biaffine_parser:BiaffineParser",
    "guided": "arcwise.combination.stacking:GuidedParser",
    "pipeline": "arcwise.pipeline.pipeline:Pipeline",
}
# kind -> "module:Class" of the Scorer (`arcwise.transition.scorers.scorer`) a ScorerParser of that kind holds
# (its classmethod for_training(run, options) makes a new one for `arcwise.transition.train`)
SCORERS = {
    "bilstm": "arcwise.transition.scorers.bilstm:BiLSTMScorer",
    "perceptron": "arcwise.transition.scorers.perceptron:PerceptronScorer",
}

# a tagger's model (its metadata's "model"; none: perceptron) -> "module:Class"; the class has
# train(sentences, dev, *, epochs, seed, progress, ...) and from_saved(arrays, meta, source, prefix)
TAGGERS = {
    "perceptron": "arcwise.pipeline.stages.tagger:Tagger",
    "bilstm": "arcwise.pipeline.stages.bilstm_tagger:BiLSTMTagger",
}


def kind_of(meta: dict[str, Any]) -> str:
    """The kind of model whose metadata this is."""
    if "guide" in meta:  # before "model": a guided model's metadata is its guided model's
        return "guided"
    if "model" in meta:
        return meta["model"]
    if meta.get("system") == "pipeline":
        return "pipeline"
    if meta.get("system") == "mst":
        return "graph"
    return "perceptron"


def model_class(meta: dict[str, Any], source: str = "model") -> type:
    """The class that loads a model of this metadata."""
    return registered(KINDS, kind_of(meta), "model", source, "; a newer arcwise may read it")


# Parsers that are not transition systems, by the name `arcwise train --system` takes and
# then by model (`--model`): "module:function" of their trainer, f(train, dev, **options).
GRAPH_SYSTEMS = {
    "mst": {"perceptron": "arcwise.graph.mst_parser:train_graph_parser",
            "biaffine": "arcwise.graph.biaffine_parser:train_biaffine"},
}
# every --model the registries know: the transition scorers and the graph-based models
MODELS = tuple(dict.fromkeys(["perceptron", *SCORERS,
                              *(m for models in GRAPH_SYSTEMS.values() for m in models)]))
# every transition system's trainer, f(system, train, dev, **options) (options["model"]
# names the scorer: `SCORERS`)
TRANSITION_TRAINER = "arcwise.transition.train:train"


def is_graph_system(system: str) -> bool:
    """Does `system` name a graph-based parser (not a transition system)?"""
    return system in GRAPH_SYSTEMS


def train_system(system: str, train: Any, dev: Any = None, **options: Any) -> tuple[Any, Any]:
    """Train a parser of `system` (a graph-based one, `GRAPH_SYSTEMS`, or a transition
    system, `TRANSITION_TRAINER`) and options["model"] (default perceptron); returns
    (parser, training log).  The one place that picks a trainer: the command line,
    stacking's jackknifing and the experiments ask it."""
    if system in GRAPH_SYSTEMS:
        options = dict(options)
        model = options.pop("model", "perceptron")
        if model not in GRAPH_SYSTEMS[system]:
            raise ValueError(f"{system} has no {model} model (it has "
                             f"{', '.join(GRAPH_SYSTEMS[system])})")
        return named(GRAPH_SYSTEMS[system][model])(train, dev, **options)
    return named(TRANSITION_TRAINER)(system, train, dev, **options)


def scorer_class(kind: str, source: str = "model") -> type:
    """The Scorer class of a transition parser of this kind."""
    return registered(SCORERS, kind, "scorer", source)


def load(path: str | os.PathLike) -> Any:
    """The model in a model file, of whatever kind it is (the file is read once: a file
    renamed over it meanwhile is not half read)."""
    from arcwise.models import modelfile

    return from_saved(*modelfile.load(path), os.fspath(path))


def from_saved(arrays: dict[str, np.ndarray], meta: dict[str, Any], source: str) -> Any:
    """The model of a model file's (arrays, metadata)."""
    return model_class(meta, source).from_saved(arrays, meta, source)


def tagger_class(model: str, source: str = "model") -> type:
    """The class of a tagger of this model (`TAGGERS`)."""
    return registered(TAGGERS, model, "tagger", source)


def train_tagger(sentences: Any, dev: Any = None, *, model: str = "perceptron",
                 **options: Any) -> Any:
    """A tagger of `model` (default perceptron) trained on `sentences` with its options."""
    return tagger_class(model, "--tagger-model").train(sentences, dev, **options)


def tagger_from_saved(arrays: dict[str, np.ndarray], meta: Any, source: str,
                      prefix: str = "") -> Any:
    """The tagger a model file holds under `prefix`, of whatever model it is."""
    model = meta.get("model", "perceptron") if isinstance(meta, dict) else "perceptron"
    if not isinstance(model, str):
        raise ArcwiseError(f"{source}: corrupt model file (bad tagger metadata)")
    return tagger_class(model, source).from_saved(arrays, meta, source, prefix)
