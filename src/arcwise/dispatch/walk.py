"""Compiled walks through a transition system driven by an oracle.

One cached compiled loop serves every system: it reaches the system's and
the oracle's kernels through `arcwise.dispatch.systems` and
`arcwise.dispatch.oracles` by system id and oracle variant.
"""

from __future__ import annotations

import numpy as np

from arcwise.core.jit import njit
from arcwise.dispatch import oracles, systems
from arcwise.systems import state as st


@njit(cache=True)
def follow_static_oracle(system, variant, state, gold, max_steps):
    """Apply the static oracle's actions until a terminal configuration.

    system: an `arcwise.systems.ids` id; variant: `OracleKernels.variant`;
    gold: the oracle's prepared gold tuple.  Returns the number of actions
    taken, or -1 if the oracle chose an illegal action or the walk exceeded
    max_steps (the tree is then not rebuilt; the walk is finished with the
    first legal action so `state` is terminal).
    """
    return count_static_oracle(system, variant, state, gold, max_steps,
                               np.zeros(0, dtype=np.int64))


@njit(cache=True)
def count_static_oracle(system, variant, state, gold, max_steps, taken):
    """`follow_static_oracle`, adding 1 to taken[a] for every action a the oracle chose
    (taken: int64 [number of actions], or empty to count nothing)."""
    n_actions = systems.n_actions(system, state[st.N])
    mask = np.zeros(n_actions, dtype=np.bool_)
    steps = 0
    ok = True
    while not systems.is_terminal(system, state):
        mask[:] = False
        systems.legal(system, state, mask)
        action = oracles.static(system, variant, state, gold) if ok else -1
        if action < 0 or action >= n_actions or not mask[action] or steps >= max_steps:
            ok = False
            action = -1
            for a in range(n_actions):
                if mask[a]:
                    action = a
                    break
            if action == -1:
                break
        elif taken.shape[0] > 0:
            taken[action] += 1
        systems.apply(system, state, action, -1)
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
