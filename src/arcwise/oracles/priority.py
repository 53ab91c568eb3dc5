"""Priority for monotonic paths (Honnibal, Goldberg & Johnson 2013, §6).

A non-monotonic oracle makes wrong-but-repairable actions free: with the
raw costs of non-monotonic arc-eager, RIGHT-ARC 0 -> 1 costs nothing when
gold is 2 -> 1, since a later LEFT-ARC can replace the arc.  Honnibal et al.
train "using both the monotonic and non-monotonic oracles simultaneously by
combining their judgements: while we always prefer zero-cost non-monotonic
actions to monotonic actions with non-zero cost, if the non-monotonic oracle
assigns several actions a zero-cost, we prefer to follow those actions that
are also assigned a zero-cost by the monotonic oracle, as these actions lead
to the best outcome without relying on a non-monotonic (repair) operation
down the road".

Here an action is zero-cost for the monotonic oracle when it does not raise
the monotonic system's loss ℓ_m (arc-eager's for arc-eager-nm, Covington's
Algorithm 1 for covington-nm, both read on the same configuration): ℓ_m(a(c))
<= ℓ_m(c), which for the monotonic system's own actions is its cost being 0,
and for a repair (a non-monotonic LEFT-ARC or REDUCE restoring a gold arc)
holds as well, since it lowers ℓ_m.  `prefer_monotonic` charges one more to
the least-cost actions that raise ℓ_m when a least-cost action does not, so
the trainer's zero-cost set (the least-cost legal actions) is the paper's:
the non-monotonic oracle's, narrowed to the monotonic oracle's where the two
agree on some action.  Other costs are left as they are.
"""

from __future__ import annotations

import numpy as np

from arcwise.core.jit import njit
from arcwise.oracles import MONOTONIC, NONE, PRIORITIES  # noqa: F401 (where callers look)


def check(priority: str) -> str:
    """`priority` if it is one of PRIORITIES, else ValueError."""
    if priority not in PRIORITIES:
        choices = ", ".join(PRIORITIES)
        raise ValueError(f"oracle priority must be one of {choices}, not {priority!r}")
    return priority


@njit(cache=True)
def prefer_monotonic(mask, out, raises):
    """Among the least-cost legal actions, charge one more to those that raise the
    monotonic loss (raises[a]), if one of them does not."""
    least = np.iinfo(np.int64).max
    for a in range(len(out)):
        if mask[a] and out[a] < least:
            least = out[a]
    monotonic_path = False
    for a in range(len(out)):
        if mask[a] and out[a] == least and not raises[a]:
            monotonic_path = True
    if monotonic_path:
        for a in range(len(out)):
            if mask[a] and out[a] == least and raises[a]:
                out[a] += 1
