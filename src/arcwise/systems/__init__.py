"""Transition systems, by name.

>>> from arcwise import systems
>>> ts = systems.get("covington-nm")
>>> c = ts.initial(3)

Names: arc-eager (+lba, +rba, +lnba, +rnba, combinable), arc-eager-nm,
arc-hybrid (+swap), covington (+root), covington-nm (+root), covington-nl (+root),
covington-nl-nm (+root), two-planar.  A system module knows nothing of oracles;
this registry is the one place that pairs each system with its oracle module (by
name, imported on first use) and its feature tables.  Adding a system: its module,
its oracle module, an entry here, then ``python -m arcwise.dispatch.generate`` (the
compiled dispatch).
"""

from arcwise.systems.base import Configuration, Entry, TransitionSystem
from arcwise.systems.base import Registry as _Registry

BUFFER_FEATURES = {option: "arc_eager_buffer.txt" for option in ("lba", "rba", "lnba", "rnba")}

REGISTRY = _Registry(
    {
        "arc-eager": Entry(
            "arcwise.systems.arc_eager", "arcwise.oracles.arc_eager",
            features="arc_eager.txt", guide_features="guide_stack.txt",
            variant_features=BUFFER_FEATURES,  # the buffer words of the 2012 paper's transitions
        ),
        "arc-eager-nm": Entry(
            "arcwise.systems.arc_eager_nonmonotonic", "arcwise.oracles.arc_eager_nonmonotonic",
            features="arc_eager.txt", guide_features="guide_stack.txt",
        ),
        "arc-hybrid": Entry(
            "arcwise.systems.arc_hybrid", "arcwise.oracles.arc_hybrid",
            features="arc_hybrid.txt", guide_features="guide_stack.txt",
        ),
        "covington": Entry(
            "arcwise.systems.covington", "arcwise.oracles.covington",
            features="covington.txt", guide_features="guide_covington.txt",
        ),
        "covington-nm": Entry(
            "arcwise.systems.covington_nonmonotonic", "arcwise.oracles.covington_nonmonotonic",
            features="covington.txt", guide_features="guide_covington.txt",
        ),
        "two-planar": Entry(
            "arcwise.systems.two_planar", "arcwise.oracles.two_planar",
            features="two_planar.txt", guide_features="guide_stack.txt",
        ),
        # appended: a system's id is its place here
        "covington-nl": Entry(
            "arcwise.systems.covington_nonlocal", "arcwise.oracles.covington_nonlocal",
            features="covington.txt", guide_features="guide_covington.txt",
            candidate_features="covington_nonlocal.txt",
        ),
        "covington-nl-nm": Entry(
            "arcwise.systems.covington_nonlocal_nonmonotonic",
            "arcwise.oracles.covington_nonlocal_nonmonotonic",
            features="covington.txt", guide_features="guide_covington.txt",
            candidate_features="covington_nonlocal.txt",
        ),
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
