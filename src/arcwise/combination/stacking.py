"""Stacking (2011 paper, §5): a parser guided by another parser's trees.

The guided parser reads, for every sentence, the guide parser's tree through
the guide features of Table 5 (`arcwise.transition.train.train(guide=...)` for the
transition systems, `train_graph_parser(guide=...)` for MST); any parser can
guide any other.  Its training trees must come from a guide that has not seen
them, or it would learn to trust a guide far better than the one it meets at
parse time: `jackknife` splits the training sentences into k contiguous folds
and parses each with the guide's system retrained, with the guide model's own
options, on the other folds (§5.1).  Dev sentences (epoch selection) and, at
parse time, every input are parsed by the guide model itself.

`GuidedParser` holds the two models and runs them in turn.  It is saved as one
model file (`arcwise.models.modelfile`: arrays and JSON, never a pickle): the
guided model's arrays and metadata, plus the guide's arrays with a ``guide_``
prefix and its metadata under "guide".
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import IO, Any

import numpy as np

from arcwise.core.corpus import Sentence, as_sentences
from arcwise.core.errors import NOT_TRANSITION_BASED, ArcwiseError
from arcwise.io import annotate
from arcwise.io.annotations import tree_annotations
from arcwise.io.conllu import with_tree
from arcwise.models import kinds, modelfile

GUIDE_PREFIX = "guide_"
DEFAULT_FOLDS = 2


def retrain(model, sentences: Sequence[Sentence], dev: Sequence[Sentence] | None = None):
    """A new model of `model`'s kind trained on `sentences` with `model`'s options
    (system, oracle, bound, epochs, exploration, seed, table, buckets, network sizes, ...:
    its ``training_options()``), by the kind registry (`arcwise.models.kinds.train_system`)."""
    if getattr(model, "guided", False):
        raise ArcwiseError("a guided model cannot guide (it needs a guide of its own)")
    if not getattr(model, "retrains_with_dev", True):
        dev = None
    parser, _ = kinds.train_system(model.system, sentences, dev, **model.training_options())
    return parser


def folds_of(n: int, folds: int) -> list[range]:
    """k contiguous, nearly equal parts of range(n) (§5.1)."""
    if folds < 2:
        raise ValueError(f"jackknifing needs at least 2 folds, not {folds}")
    if n < folds:
        raise ValueError(f"{n} training sentences cannot make {folds} folds")
    bounds = np.linspace(0, n, folds + 1).round().astype(int)
    return [range(a, b) for a, b in zip(bounds[:-1], bounds[1:])]


def parsed(model, sentences: Sequence[Sentence]) -> list[Sentence]:
    """The sentences carrying `model`'s trees."""
    trees = model.parse(list(sentences), single_root=False)  # as the guide built them
    return [with_tree(s, *tree) for s, tree in zip(sentences, trees)]


def jackknife(guide, sentences: Sequence[Sentence], folds: int = DEFAULT_FOLDS,
              dev: Sequence[Sentence] | None = None,
              progress: Callable[[int, int], Any] | None = None) -> list[Sentence]:
    """The guide's trees of the training sentences, each fold parsed by the guide's
    system retrained on the other folds (`retrain`); progress(k, folds) after fold k."""
    sentences = list(sentences)
    out: list[Sentence] = []
    for k, fold in enumerate(folds_of(len(sentences), folds), start=1):
        others = sentences[: fold.start] + sentences[fold.stop :]
        out += parsed(retrain(guide, others, dev), sentences[fold.start : fold.stop])
        if progress is not None:
            progress(k, folds)
    return out


class GuidedParser:
    """A guide model and the model it guides, run in turn (2011 paper §5.3).

    >>> parser = arcwise.load("mst-guided-by-arc-eager.model")
    >>> head, deprel = parser.parse(sentence)
    """

    def __init__(self, guide, guided, folds: int = DEFAULT_FOLDS):
        if not guided.guided:
            raise ValueError("the guided model was trained without a guide")
        if getattr(guide, "guided", False):
            raise ValueError("a guided model cannot guide")
        self.guide = guide
        self.guided_model = guided
        self.folds = folds

    @property
    def system(self) -> str:
        return self.guided_model.system

    @property
    def transition_based(self) -> bool:
        return self.guided_model.transition_based

    def __repr__(self) -> str:
        return f"GuidedParser(guide={self.guide!r}, guided={self.guided_model!r})"

    def parse(self, sentences, single_root: bool = True, trace: bool = False):
        """The (head, deprel) of a sentence, or the list of them for a sequence of sentences;
        trace=True (a transition-based guided model): (head, deprel, the guided
        parser's `arcwise.transition.trace.Trace`), as `arcwise.transition.parser.Parser.parse`."""
        sentences, single = as_sentences(sentences)
        if single:
            return self.parse(sentences, single_root, trace)[0]
        if trace and not self.transition_based:  # before the guide runs
            raise ArcwiseError(NOT_TRANSITION_BASED)
        sentences = list(sentences)
        return self.guided_model.parse(sentences, single_root=single_root,
                                       guide=parsed(self.guide, sentences), trace=trace)

    def parse_file(self, input: str | os.PathLike | IO, output: str | os.PathLike | IO, *,
                   format: str | None = None, single_root: bool | None = None,
                   progress: Callable[[int], Any] | None = None,
                   batch_sentences: int = 4096, trace: bool = False) -> int:
        """Parse a treebank into another, streaming; as `arcwise.transition.parser.Parser.parse_file`."""
        if trace and not self.transition_based:  # even when the input turns out empty
            raise ArcwiseError(NOT_TRANSITION_BASED)
        return annotate(input, output,
                        lambda batch, single_root: tree_annotations(
                            self.parse(batch, single_root, trace)),
                        format=format, single_root=single_root,
                        batch_sentences=batch_sentences, progress=progress)

    def saved(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """What the model file holds: the guided model's arrays and metadata, the
        guide's arrays renamed guide_NAME and its metadata under "guide"."""
        arrays, meta = self.guided_model.saved()
        guide_arrays, guide_meta = self.guide.saved()
        arrays = {**arrays, **{GUIDE_PREFIX + name: a for name, a in guide_arrays.items()}}
        return arrays, {**meta, "guide": guide_meta, "stacking": {"folds": self.folds}}

    def save(self, path: str | os.PathLike) -> None:
        """Write both models to one model file, atomically."""
        modelfile.save(path, *self.saved())

    @classmethod
    def load(cls, path: str | os.PathLike, mapped: bool = False) -> GuidedParser:
        """Both models from one model file; any problem with it is an `ArcwiseError`."""
        return cls.from_saved(*modelfile.load(path, mapped=mapped), os.fspath(path))

    @classmethod
    def from_saved(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any],
                   source: str) -> GuidedParser:
        """Both models from a model file's (arrays, metadata); `source` names it in errors."""
        guide_meta = meta.get("guide")
        if not isinstance(guide_meta, dict) or not isinstance(meta.get("stacking"), dict):
            raise ArcwiseError(f"{source}: not a guided model file (no guide)")
        guide_arrays = {name[len(GUIDE_PREFIX):]: a for name, a in arrays.items()
                        if name.startswith(GUIDE_PREFIX)}
        own = {name: a for name, a in arrays.items() if not name.startswith(GUIDE_PREFIX)}
        guide = kinds.from_saved(guide_arrays, guide_meta, f"{source} (guide)")
        own_meta = {k: v for k, v in meta.items() if k not in ("guide", "stacking")}
        guided = kinds.from_saved(own, own_meta, source)
        try:
            return cls(guide, guided, meta["stacking"]["folds"])
        except (KeyError, ValueError) as error:
            raise ArcwiseError(f"{source}: bad guided model ({error})") from None


def train_guided(system: str, train_sentences: Sequence[Sentence],
                 dev_sentences: Sequence[Sentence] | None, guide, *,
                 folds: int = DEFAULT_FOLDS,
                 fold_progress: Callable[[int, int], Any] | None = None,
                 **options: Any) -> tuple[GuidedParser, Any]:
    """Train `system` ("mst" or a transition system) guided by the model `guide`:
    jackknifed guide trees for training, the guide's own trees for dev; options go
    to `arcwise.transition.train.train` or `train_graph_parser`.  Returns (parser, training log)."""
    train_sentences = list(train_sentences)
    dev = list(dev_sentences) if dev_sentences else None
    guide_trees = jackknife(guide, train_sentences, folds, dev, fold_progress)
    dev_guide = parsed(guide, dev) if dev else None
    guided, log = kinds.train_system(system, train_sentences, dev, guide=guide_trees,
                                     dev_guide=dev_guide, **options)
    return GuidedParser(guide, guided, folds), log
