"""The exact loss of a non-monotonic Covington configuration (2017 paper §5).

ℓ(c) by exhaustive search over transition sequences, pruned with bounds as
§5 describes: a configuration whose lower and upper bounds agree is settled
without search, and a branch whose lower bound reaches the best loss already
found is cut (depth-first branch and bound, children tried in order of their
lower bound).  The lower bound is ``|U|`` of `arcwise.oracles.covington_nonmonotonic`;
the upper bound is the loss of §4's witness sequence (`witness_loss`), which is
at most pc-upper.  Settled losses, and the lower bounds learnt from cut
branches, are memoised on the state, so a memo shared by the configurations
of one sentence is reused across them.

The search is compiled; the memo keys states by a 62-bit hash (two 31-bit
polynomial hashes), so a collision — improbable at the 10^5..10^6 states one
search holds — could mix two states.  The search is exponential in the worst
case; ``max_states`` caps the configurations it expands, beyond which
`SearchLimitExceeded` is raised (callers report those configurations as
unresolved).
"""

from __future__ import annotations

import sys

import numpy as np
from numba import types
from numba.typed import Dict

from arcwise.core.jit import njit
from arcwise.oracles import covington_nonmonotonic as oracle
from arcwise.oracles.covington import focus_positions, in_sweep
from arcwise.systems import covington_nonmonotonic as system
from arcwise.systems import state as st


@njit(cache=True)
def witness_loss(state, gold):
    """The loss reached from c by Covington's criteria over I(c, tG) (§4's witness sequence).

    Building exactly the arcs of I not in A, in Covington order, reaches a
    tree of loss ``<= |U| + n_pc(A ∪ I)``: an achievable loss, hence an upper
    bound at least as tight as pc-upper.
    """
    i, j = focus_positions(state)
    n = len(gold) - 1
    heads = st.region(state, st.HEADS)
    ranks = np.full(n + 1, np.iinfo(np.int64).max, dtype=np.int64)
    for y in range(1, n + 1):
        x = gold[y]
        if max(heads[y], 0) != x and in_sweep(state, i, j, x, y):
            ranks[y] = oracle.covington_order(x, y, n)
    built = state.copy()
    for y in np.argsort(ranks):
        if ranks[y] == np.iinfo(np.int64).max:
            break
        system.attach(built, gold[y], y, -1)
    heads = st.region(built, st.HEADS)
    loss = 0
    for y in range(1, n + 1):
        if max(heads[y], 0) != gold[y]:
            loss += 1
    return loss


class SearchLimitExceeded(RuntimeError):
    """The exhaustive search expanded more configurations than allowed."""


class LossMemo:
    """Per-sentence memo: exact losses and proven lower bounds, by state hash."""

    def __init__(self, gold: np.ndarray):
        self.prepared = oracle.prepare(np.asarray(gold, dtype=np.int32))
        self.exact = Dict.empty(key_type=types.int64, value_type=types.int64)
        self.at_least = Dict.empty(key_type=types.int64, value_type=types.int64)


def exact_loss(state, gold, memo: LossMemo | None = None, max_states: int = 200_000) -> int:
    """ℓ(c): the minimum Hamming loss reachable from configuration `state` (covington-nm).

    `gold` is the gold head array; pass a `LossMemo` of that gold tree to reuse
    work across the configurations of a sentence.
    """
    memo = memo if memo is not None else LossMemo(gold)
    state = np.array(state, dtype=np.int32, copy=True)
    upper = int(oracle.loss(state, memo.prepared, oracle.PC_UPPER))
    expanded = np.zeros(1, dtype=np.int64)
    limit = sys.getrecursionlimit()  # for NUMBA_DISABLE_JIT=1: one frame per transition
    sys.setrecursionlimit(max(limit, 4 * (int(state[0]) + 2) ** 2 + 1000))
    try:
        value = _search(
            state, memo.prepared, upper + 1, memo.exact, memo.at_least, expanded, max_states
        )
    finally:
        sys.setrecursionlimit(limit)
    if value == ABORTED:
        raise SearchLimitExceeded(f"more than {max_states} configurations expanded")
    assert value <= upper, "the pc-upper bound is below the exact loss"
    return int(value)


ABORTED = -1


@njit(cache=True)
def state_key(state):
    """A 62-bit hash of a state: two polynomial hashes modulo 31-bit primes."""
    first, second = np.int64(0), np.int64(0)
    for v in state:
        first = (first * 1_000_003 + np.int64(v) + 1) % 2_147_483_647
        second = (second * 999_983 + np.int64(v) + 7) % 2_147_483_629
    return (first << 31) | second


@njit(cache=True)
def _search(state, prepared, budget, exact, at_least, expanded, max_states):
    """ℓ(state) if below `budget`, else a proven lower bound >= budget; ABORTED past max_states."""
    key = state_key(state)
    if key in exact:
        return exact[key]
    low = oracle.loss(state, prepared, oracle.LOWER)
    if key in at_least:
        low = max(low, at_least[key])
    if low >= budget:
        return low
    high = witness_loss(state, prepared[0])
    if low == high:
        exact[key] = low
        return low
    expanded[0] += 1
    if expanded[0] > max_states:
        return ABORTED
    cap = min(budget, high + 1)
    n_actions = len(system.ACTIONS)
    mask = np.zeros(n_actions, dtype=np.bool_)
    system.legal(state, mask)
    children = np.empty((n_actions, len(state)), dtype=np.int32)
    order = np.empty(n_actions, dtype=np.int64)  # children by lower bound, then action id
    count = 0
    for a in range(n_actions):
        if mask[a]:
            children[a] = state
            system.apply(children[a], a, -1)
            order[count] = oracle.loss(children[a], prepared, oracle.LOWER) * n_actions + a
            count += 1
    order = np.sort(order[:count])
    best = cap
    for k in range(count):
        child_low, a = order[k] // n_actions, order[k] % n_actions
        if child_low >= best:
            break
        value = _search(children[a], prepared, best, exact, at_least, expanded, max_states)
        if value == ABORTED:
            return ABORTED
        best = min(best, value)
        if best == low:
            break
    if best < budget:
        exact[key] = best
    elif key not in at_least or at_least[key] < best:
        at_least[key] = best
    return best
