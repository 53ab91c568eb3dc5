"""The parser as a pipeline stage: any parser the kind registry knows
(`arcwise.models.kinds`), stored in a pipeline model file under its prefix."""

from __future__ import annotations

from typing import Any

import numpy as np

from arcwise.core.errors import MissingArray
from arcwise.models import kinds


def saved(parser: Any, prefix: str) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """(arrays, metadata) of a parser in a pipeline model file: its own model file's, its
    arrays' names prefixed."""
    if getattr(parser, "guided", False):
        raise ValueError("a guided (stacking) parser cannot be part of a pipeline yet")
    arrays, meta = parser.saved()
    return {prefix + name: array for name, array in arrays.items()}, meta


def from_saved(arrays: dict[str, np.ndarray], meta: dict[str, Any], source: str,
               prefix: str) -> Any:
    """The parser a pipeline model file holds under prefix, of whatever kind it is."""
    own = {name[len(prefix):]: a for name, a in arrays.items() if name.startswith(prefix)}
    try:
        return kinds.from_saved(own, meta, f"{source} (parser)")
    except MissingArray as missing:
        raise missing.under(prefix) from None
