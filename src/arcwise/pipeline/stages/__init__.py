"""The pipeline's stages: what each reads and adds, and where its code lives.

A stage is one step from raw text to trees -- the tokenizer, the tagger (UPOS, XPOS,
FEATS and lemmas), the parser -- or any step added after them.  `STAGES` lists them in
the order a `arcwise.pipeline.pipeline.Pipeline` runs them (its ``COMPONENTS`` are
the registry's names), each with what it needs and provides and the "module:name"
strings of its trainer and loader, as Stanza's processors and spaCy's factories are
registered.  A new stage is one module here, a class behind `Stage`, and one
`StageEntry` line in `STAGES`: the pipeline saves it under its prefix in the model file,
loads it back, and runs its ``annotate`` in registry order; the three built-in stages
keep their own steps in `Pipeline.annotate` (the tokenizer makes the sentences, the
tagger's read and written tags, the parser's trees).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np


class Stage(Protocol):
    """What a pipeline asks of a stage: annotate sentences, and save itself as arrays and
    JSON metadata under a prefix (`arcwise.models.modelfile`: never a pickle)."""

    def annotate(self, sentences: list[Any]) -> list[Any]:
        """The sentences (`arcwise.core.corpus.Sentence`) with this stage's columns added."""
        ...

    def saved(self, prefix: str = "") -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """(arrays, metadata) of the model file, each array's name starting with prefix."""
        ...


@dataclass(frozen=True)
class StageEntry:
    """A stage in the registry.

    needs / provides: what it reads and what it adds ("text", "words", "tags",
    "lemmas", "tree"); trainer: "module:name" of ``f(sentences, dev, **options)``, the
    stage trained; loader: "module:name" of ``f(arrays, meta, source, prefix)``, the
    stage loaded; saver: "module:name" of ``f(stage, prefix)``, its (arrays, meta), when
    the stage's own ``saved(prefix)`` is not it.  Its arrays' prefix in a pipeline file is `prefix`."""

    needs: tuple[str, ...]
    provides: tuple[str, ...]
    trainer: str
    loader: str
    saver: str | None = None


# the stages `Pipeline.annotate` runs by its own steps; any other runs its `annotate`
BUILT_IN = ("tokenizer", "tagger", "parser")
# what the input gives before any stage: raw text, or words (pre-tokenized, CoNLL-U)
INPUT = ("text", "words")


def unmet_needs(names: list[str] | tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """{stage: what it needs that neither the input nor a stage before it provides} of
    the stages `names`, in registry order; empty when they can run."""
    available, unmet = set(INPUT), {}
    for name in (n for n in STAGES if n in names):
        missing = tuple(need for need in STAGES[name].needs if need not in available)
        if missing:
            unmet[name] = missing
        available.update(STAGES[name].provides)
    return unmet


def prefix(name: str) -> str:
    """The prefix of stage `name`'s arrays in a pipeline model file (``tokenizer_`` ...)."""
    return f"{name}_"


STAGES: dict[str, StageEntry] = {
    "tokenizer": StageEntry(
        needs=("text",), provides=("words",),
        trainer="arcwise.pipeline.stages.tokenizer:Tokenizer.train",
        loader="arcwise.pipeline.stages.tokenizer:Tokenizer.from_saved"),
    "tagger": StageEntry(  # of any model in `arcwise.models.kinds.TAGGERS`
        needs=("words",), provides=("tags", "lemmas"),
        trainer="arcwise.models.kinds:train_tagger",
        loader="arcwise.models.kinds:tagger_from_saved"),
    "parser": StageEntry(  # any parser `arcwise.models.kinds` loads
        needs=("words",), provides=("tree",),
        trainer="arcwise.models.kinds:train_system",
        loader="arcwise.pipeline.stages.parser:from_saved",
        saver="arcwise.pipeline.stages.parser:saved"),
}
