"""Integer ids of the base transition systems, for compiled code that dispatches on them.

Numba cannot cache functions that take other compiled functions as
arguments, so compiled loops shared by every system (feature extraction,
parsing, training) branch on these ids instead.
"""

ARC_EAGER = 0
ARC_EAGER_NM = 1
ARC_HYBRID = 2
COVINGTON = 3
COVINGTON_NM = 4
TWO_PLANAR = 5

BY_NAME = {
    "arc-eager": ARC_EAGER,
    "arc-eager-nm": ARC_EAGER_NM,
    "arc-hybrid": ARC_HYBRID,
    "covington": COVINGTON,
    "covington-nm": COVINGTON_NM,
    "two-planar": TWO_PLANAR,
}


def system_id(name: str) -> int:
    """The id of a system name, variants included ("arc-eager+lba" -> ARC_EAGER)."""
    return BY_NAME[name.split("+")[0]]


def variant_options(name: str) -> tuple[str, ...]:
    """The variant options of a system name ("arc-eager+lba+rnba" -> ("lba", "rnba"))."""
    return tuple(name.split("+")[1:])
