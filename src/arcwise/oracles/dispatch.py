"""Every oracle behind one set of compiled functions, selected by system id and variant.

The companion of `arcwise.systems.dispatch`: `gold` is the uniform tuple an
oracle's ``prepare`` returns (`arcwise.systems.base.pack_gold`), `variant`
is `OracleKernels.variant` (which of a module's oracles ``make`` chose), and
`bound` an index into `OracleKernels.bounds`.
"""

from __future__ import annotations

from numba import njit

from arcwise.oracles import arc_eager, arc_eager_nonmonotonic, arc_hybrid, covington
from arcwise.oracles import covington_nonmonotonic, two_planar
from arcwise.systems.ids import ARC_EAGER, ARC_EAGER_NM, ARC_HYBRID, COVINGTON, COVINGTON_NM
from arcwise.systems.ids import TWO_PLANAR


@njit(cache=True)
def static(system, variant, state, gold):
    """The static oracle's action id in state."""
    if system == ARC_EAGER:
        return arc_eager.static(state, gold)
    if system == ARC_EAGER_NM:
        return arc_eager_nonmonotonic.static(state, gold)
    if system == ARC_HYBRID:
        return arc_hybrid.static(state, gold)  # lazy or eager lies in `gold`
    if system == COVINGTON or system == COVINGTON_NM:
        return covington.static(state, gold)
    if system == TWO_PLANAR:
        return two_planar.static(state, gold)
    raise ValueError("unknown system id")


@njit(cache=True)
def loss(system, variant, state, gold, bound):
    """Minimum Hamming loss reachable from state (or the oracle's estimate / bound)."""
    if system == ARC_EAGER:
        return arc_eager.loss(state, gold, bound)
    if system == ARC_EAGER_NM:
        return arc_eager_nonmonotonic.loss(state, gold, bound)
    if system == ARC_HYBRID:
        if variant == arc_hybrid.NO_SWAP:
            return arc_hybrid.loss(state, gold, bound)
        return arc_hybrid.swap_loss(state, gold, bound)
    if system == COVINGTON:
        return covington.loss(state, gold, bound)
    if system == COVINGTON_NM:
        return covington_nonmonotonic.loss(state, gold, bound)
    if system == TWO_PLANAR:
        return two_planar.loss(state, gold, bound)
    raise ValueError("unknown system id")


@njit(cache=True)
def costs(system, variant, state, gold, bound, out):
    """out[a] = loss(apply(state, a)) - loss(state) for every legal a (int64 out)."""
    if system == ARC_EAGER:
        arc_eager.costs(state, gold, bound, out)
    elif system == ARC_EAGER_NM:
        if variant == arc_eager_nonmonotonic.MONOTONIC_PRIORITY:
            arc_eager_nonmonotonic.costs_monotonic_priority(state, gold, bound, out)
        else:
            arc_eager_nonmonotonic.costs(state, gold, bound, out)
    elif system == ARC_HYBRID:
        if variant == arc_hybrid.NO_SWAP:
            arc_hybrid.costs(state, gold, bound, out)
        else:
            arc_hybrid.swap_costs(state, gold, bound, out)
    elif system == COVINGTON:
        covington.costs(state, gold, bound, out)
    elif system == COVINGTON_NM:
        if variant == covington_nonmonotonic.MONOTONIC_PRIORITY:
            covington_nonmonotonic.costs_monotonic_priority(state, gold, bound, out)
        else:
            covington_nonmonotonic.costs(state, gold, bound, out)
    elif system == TWO_PLANAR:
        if variant == two_planar.UNREGULARIZED:
            two_planar.costs_unregularized(state, gold, bound, out)
        else:
            two_planar.costs(state, gold, bound, out)
    else:
        raise ValueError("unknown system id")
