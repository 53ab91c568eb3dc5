"""Compiled walks through a transition system driven by an oracle.

The kernels of a system and an oracle are passed in as first-class numba
functions, so one compiled loop serves every system (numba specialises it
per system on first use and caches the result).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from arcwise.systems import state as st


@njit  # not cached: numba cannot cache functions that take functions (index pickling fails)
def follow_static_oracle(state, prepared, is_terminal, legal, apply, static, n_actions, max_steps):
    """Apply the static oracle's actions until a terminal configuration.

    Returns the number of actions taken, or -1 if the oracle chose an illegal
    action or the walk exceeded max_steps (the tree is then not rebuilt; the
    walk is finished with the first legal action so `state` is terminal).
    """
    mask = np.zeros(n_actions, dtype=np.bool_)
    steps = 0
    ok = True
    while not is_terminal(state):
        mask[:] = False
        legal(state, mask)
        action = static(state, prepared) if ok else -1
        if action < 0 or action >= n_actions or not mask[action] or steps >= max_steps:
            ok = False
            action = -1
            for a in range(n_actions):
                if mask[a]:
                    action = a
                    break
            if action == -1:
                break
        apply(state, action, -1)
        steps += 1
        if steps > 2 * max_steps:
            break
    return steps if ok else -1


@njit(cache=True)
def final_heads(state):
    """Heads of the terminal configuration, headless words attached to 0."""
    heads = st.region(state, st.HEADS).copy()
    for d in range(1, len(heads)):
        if heads[d] == -1:
            heads[d] = 0
    return heads
