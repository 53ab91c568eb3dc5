"""The registries' plumbing: a registry is a dict from a key (a model kind, a scorer, a
tagger, a stage) to a "module:name" string, so a registry low in the package can name
classes and trainers that live in the layers above it without importing them."""

from __future__ import annotations

import difflib
import functools
import importlib
from collections.abc import Iterable
from typing import Any

from arcwise.core.errors import ArcwiseError


def registered(registry: dict[str, str], key: str, what: str, source: str,
               hint: str = "") -> type:
    """The class that `registry` ({key: "module:Class"}) names for `key`; ArcwiseError for a
    key it does not know, saying which it knows."""
    if key not in registry:
        raise ArcwiseError(f"{source}: unknown kind of {what} {key!r}{did_you_mean(key, registry)}"
                           f" (known: {', '.join(registry)}{hint})")
    return named(registry[key])


def named(target: str) -> Any:
    """The object a "module:name" string names (name may be dotted: "module:Class.method"),
    its module imported on first use: how the registries name what lives in the layers
    above them."""
    module, name = target.split(":")
    return functools.reduce(getattr, name.split("."), importlib.import_module(module))



def did_you_mean(name: str, known: Iterable[str]) -> str:
    """"; did you mean X?" for the known name closest to a misspelled one, else ""."""
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f"; did you mean {close[0]}?" if close else ""
