"""Exhaustive search over every transition sequence (the ground truth for oracles)."""

from __future__ import annotations

import numpy as np


def hamming(heads, gold) -> int:
    """Words whose head differs from gold, headless words counted as attached to 0."""
    return sum(1 for d in range(1, len(gold)) if (heads[d] if heads[d] != -1 else 0) != gold[d])


def min_loss(ts, c, gold, memo=None, limit=2_000_000) -> int:
    """Minimum Hamming loss over all terminal configurations reachable from c.

    Works on the kernels directly (states as bytes) so that exhaustive search on
    7-word sentences stays affordable; `limit` bounds the states visited.
    """
    k = ts.kernels
    memo = {} if memo is None else memo
    n_actions = k.action_count(c.n)
    gold = list(gold)
    mask = np.zeros(n_actions, dtype=np.bool_)
    enabled = k.enabled_ids(c.n)

    def search(state):
        key = state.tobytes()
        if key in memo:
            return memo[key]
        if len(memo) > limit:
            raise RuntimeError("exhaustive search exceeded its state limit")
        if k.is_terminal(state):
            width = state[0] + 1
            from arcwise.systems.state import HEADER, HEADS
            heads = state[HEADER + HEADS * width: HEADER + (HEADS + 1) * width]
            best = hamming(heads, gold)
        else:
            mask[:] = False
            k.legal(state, mask)
            legal = [a for a in enabled if mask[a]]
            best = None
            for a in legal:
                nxt = state.copy()
                k.apply(nxt, a, -1)
                value = search(nxt)
                if best is None or value < best:
                    best = value
                    if best == 0:
                        break
            assert best is not None, "a non-terminal configuration with no legal action"
        memo[key] = best
        return best

    return search(np.array(c.state, copy=True))


def costs(ts, c, gold, memo=None) -> dict[str, int]:
    """{legal action: min_loss(apply(c, a)) - min_loss(c)} by exhaustive search."""
    memo = {} if memo is None else memo
    base = min_loss(ts, c, gold, memo)
    return {a: min_loss(ts, ts.apply(c, a), gold, memo) - base for a in ts.legal(c)}
