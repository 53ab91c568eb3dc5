"""The module paths of arcwise before the 0.1 redesign, importable until 0.2 with a
`DeprecationWarning` that names the new home.

``import arcwise.parse`` or ``from arcwise.train import train`` still work: `MOVED` maps
each old path to its new module(s), and `install` puts a finder on `sys.meta_path` that
gives the old name a module whose attributes are read from those homes (a module that
was split, like ``arcwise.parse``, has several).  Nothing in arcwise imports the old
paths; this serves user code and notebooks written before the move.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings
from typing import Any

REMOVED_IN = "0.2"

MOVED: dict[str, tuple[str, ...]] = {
    "arcwise.corpus": ('arcwise.core.corpus',),
    "arcwise.vocab": ('arcwise.core.vocab',),
    "arcwise.errors": ('arcwise.core.errors',),
    "arcwise.interrupts": ('arcwise.core.interrupts',),
    "arcwise.local_pool": ('arcwise.core.local_pool',),
    "arcwise.systems.dispatch": ('arcwise.dispatch.systems',),
    "arcwise.oracles.dispatch": ('arcwise.dispatch.oracles',),
    "arcwise.systems.generate": ('arcwise.dispatch.generate',),
    "arcwise.oracles.walk": ('arcwise.dispatch.walk',),
    "arcwise.models.hashing": ('arcwise.features.hashing',),
    "arcwise.models.perceptron": ('arcwise.learn.perceptron',),
    "arcwise.models.bilstm": ('arcwise.learn.neural', 'arcwise.transition.scorers.bilstm',),
    "arcwise.models.scorer": ('arcwise.transition.scorers.scorer',),
    "arcwise.models.perceptron_scorer": ('arcwise.transition.scorers.perceptron',),
    "arcwise.models.biaffine": ('arcwise.graph.biaffine',),
    "arcwise.models.arc_labeler": ('arcwise.graph.arc_labeler',),
    "arcwise.trainer": ('arcwise.training.epochs',),
    "arcwise.parse": ('arcwise.transition.parser', 'arcwise.features.batch', 'arcwise.io.annotations', 'arcwise.training.data', 'arcwise.transition.kernels', 'arcwise.trees.roots',),
    "arcwise.train": ('arcwise.transition.train', 'arcwise.training.data', 'arcwise.transition.fused',),
    "arcwise.steps": ('arcwise.transition.steps',),
    "arcwise.stepped": ('arcwise.transition.stepped', 'arcwise.transition.parser', 'arcwise.features.batch',),
    "arcwise.trace": ('arcwise.transition.trace',),
    "arcwise.stacking": ('arcwise.combination.stacking',),
    "arcwise.combine": ('arcwise.combination.voting',),
    "arcwise.pipeline.tokenizer": ('arcwise.pipeline.stages.tokenizer',),
    "arcwise.pipeline.tagger": ('arcwise.pipeline.stages.tagger',),
    "arcwise.pipeline.bilstm_tagger": ('arcwise.pipeline.stages.bilstm_tagger',),
}

# names that changed with their module: (old module, old name) -> "new module:new name"
RENAMED = {("arcwise.parse", "annotations"): "arcwise.io.annotations:tree_annotations",
           ("arcwise.stacking", "from_saved"): "arcwise.models.kinds:from_saved"}


class MovedModule(types.ModuleType):
    """An old module path: each attribute is read from the first new home that has it."""

    def __init__(self, name: str, homes: tuple[str, ...]):
        super().__init__(name, f"Moved to {', '.join(homes)} (see `arcwise.moved`).")
        self.__homes = homes

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        if (self.__name__, attribute) in RENAMED:
            module, name = RENAMED[self.__name__, attribute].split(":")
            return getattr(importlib.import_module(module), name)
        for home in self.__homes:
            module = importlib.import_module(home)
            if hasattr(module, attribute):
                return getattr(module, attribute)
        raise AttributeError(f"module {self.__name__!r} (moved to "
                             f"{', '.join(self.__homes)}) has no attribute {attribute!r}")

    def __dir__(self) -> list[str]:
        return sorted({name for home in self.__homes
                       for name in dir(importlib.import_module(home))})


class MovedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the old paths of `MOVED` (and only those)."""

    def find_spec(self, fullname: str, path: Any, target: Any = None):
        if fullname not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        homes = MOVED[spec.name]
        warnings.warn(f"{spec.name} moved to {' and '.join(homes)}; the old path goes in "
                      f"arcwise {REMOVED_IN}", DeprecationWarning, stacklevel=2)
        return MovedModule(spec.name, homes)

    def exec_module(self, module: types.ModuleType) -> None:
        pass


def install() -> None:
    """Put the finder on `sys.meta_path` (once)."""
    if not any(isinstance(finder, MovedFinder) for finder in sys.meta_path):
        sys.meta_path.append(MovedFinder())
