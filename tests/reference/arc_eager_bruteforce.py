"""Which trees a monotonic arc-eager variant derives, by exhaustive search.

Faster than `exhaustive.min_loss(...) == 0` from the initial configuration:
arcs are never removed, so a derivation of the gold tree only ever passes
through configurations whose arcs are all gold, and the search prunes every
other branch.
"""

from __future__ import annotations

import numpy as np

from arcwise.systems.state import HEADER, HEADS


def derivable(ts, gold, start=None) -> bool:
    """Does some transition sequence of `ts` build exactly `gold` (headless words = 0)?

    start: the configuration to search from (default: the initial one).
    """
    k = ts.kernels
    gold = list(gold)
    n = len(gold) - 1
    width = n + 1
    mask = np.zeros(len(k.actions), dtype=np.bool_)
    seen = set()

    def heads(state):
        return state[HEADER + HEADS * width : HEADER + (HEADS + 1) * width]

    def search(state) -> bool:
        key = state.tobytes()
        if key in seen:
            return False
        seen.add(key)
        h = heads(state)
        if any(h[d] != -1 and h[d] != gold[d] for d in range(1, width)):
            return False
        if k.is_terminal(state):
            return all((h[d] if h[d] != -1 else 0) == gold[d] for d in range(1, width))
        mask[:] = False
        k.legal(state, mask)
        for a in [a for a in k.enabled if mask[a]]:
            nxt = state.copy()
            k.apply(nxt, a, -1)
            if search(nxt):
                return True
        return False

    return search(np.array(k.initial(n) if start is None else start.state, copy=True))
