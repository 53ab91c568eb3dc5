"""Approximate dynamic oracle for non-local non-monotonic Covington (covington-nl-nm).

Left-Arc_k is k - 1 No-Arcs then covington-nm's Left-Arc (Right-Arc_k likewise), and
No-Arcs before a Shift change nothing, so from every configuration this system reaches
the terminal configurations covington-nm reaches: its loss ℓ(c) is covington-nm's, and
the three bounds of `arcwise.oracles.covington_nonmonotonic` (2017 paper, Algorithm 2:
upper ``|U| + n_c``, pc-upper ``|U| + n_pc``, lower ``|U|``) bound it unchanged.  An
action's cost is the chosen bound after it minus before.  The static oracle is
covington-nl's.
"""

from __future__ import annotations

import numpy as np

from arcwise.core.jit import njit
from arcwise.oracles.covington import can_build, prepare
from arcwise.oracles.covington_nonlocal import static
from arcwise.oracles.covington_nonmonotonic import BOUNDS, loss
from arcwise.systems import covington_nonlocal_nonmonotonic as system
from arcwise.systems.base import OracleKernels, SystemKernels

# what the compiled dispatch reads here, covington-nl's and covington-nm's kernels included
__all__ = ["can_build", "costs", "loss", "make", "prepare", "static"]


@njit(cache=True)
def costs(state, prepared, bound, out):
    """out[a] = loss(apply(c, a)) - loss(c) for every legal a (covington-nm's bound `bound`)."""
    mask = np.zeros(len(out), dtype=np.bool_)
    system.legal(state, mask)
    base = loss(state, prepared, bound)
    after = state.copy()
    for a in range(len(out)):
        if mask[a]:
            after[:] = state
            system.apply(after, a, -1)
            out[a] = loss(after, prepared, bound) - base


def make(kernels: SystemKernels, **options) -> OracleKernels:
    if options:
        raise ValueError(f"the covington-nl-nm oracle takes no options, got {sorted(options)}")
    return OracleKernels(prepare=prepare, static=static, loss=loss, can_build=can_build,
                         costs=costs, bounds=BOUNDS, exact=False)
