"""Transition systems, by name.

>>> from arcwise import systems
>>> ts = systems.get("covington-nm")
>>> c = ts.initial(3)

Names: arc-eager (+lba, +rba, +lnba, +rnba, combinable), arc-eager-nm,
arc-hybrid (+swap), covington (+root), covington-nm (+root), two-planar.  A system module
knows nothing of oracles; this registry is the one place that pairs each
system with its oracle module (by name, imported on first use).
"""

from arcwise.systems.base import Configuration, TransitionSystem
from arcwise.systems.base import Registry as _Registry

REGISTRY = _Registry(
    {
        "arc-eager": ("arcwise.systems.arc_eager", "arcwise.oracles.arc_eager"),
        "arc-eager-nm": (
            "arcwise.systems.arc_eager_nonmonotonic",
            "arcwise.oracles.arc_eager_nonmonotonic",
        ),
        "arc-hybrid": ("arcwise.systems.arc_hybrid", "arcwise.oracles.arc_hybrid"),
        "covington": ("arcwise.systems.covington", "arcwise.oracles.covington"),
        "covington-nm": (
            "arcwise.systems.covington_nonmonotonic",
            "arcwise.oracles.covington_nonmonotonic",
        ),
        "two-planar": ("arcwise.systems.two_planar", "arcwise.oracles.two_planar"),
    }
)


def get(name: str, **oracle_options) -> TransitionSystem:
    """The transition system `name` with its oracle (see module docstring)."""
    return REGISTRY.get(name, **oracle_options)


def describe() -> str:
    """Every system name with its variants, for messages."""
    return REGISTRY.describe()


def names() -> list[str]:
    """Base system names (variants add +extensions)."""
    return REGISTRY.names()


__all__ = ["Configuration", "TransitionSystem", "describe", "get", "names"]
