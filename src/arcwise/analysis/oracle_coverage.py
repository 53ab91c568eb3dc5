"""How much of a treebank a system's static oracle rebuilds."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass

import numpy as np

from arcwise.dispatch.systems import initial
from arcwise.dispatch.walk import count_static_oracle, final_heads, follow_static_oracle
from arcwise.systems import TransitionSystem


@dataclass
class Coverage:
    system: str
    sentences: int = 0
    words: int = 0
    buildable: int = 0  # sentences the system can derive at all (can_build)
    rebuilt: int = 0  # sentences the static oracle rebuilt exactly
    arcs_recovered: int = 0  # words whose head the static oracle's tree gets right
    oracle_failures: int = 0  # buildable sentences the oracle did not rebuild

    @property
    def unbuildable(self) -> int:
        return self.sentences - self.buildable

    def as_dict(self) -> dict:
        d = asdict(self)
        d["unbuildable"] = self.unbuildable
        d["rebuilt_pct"] = 100.0 * self.rebuilt / max(self.sentences, 1)
        d["buildable_pct"] = 100.0 * self.buildable / max(self.sentences, 1)
        d["arcs_recovered_pct"] = 100.0 * self.arcs_recovered / max(self.words, 1)
        return d


def static_oracle_tree(ts: TransitionSystem, gold: np.ndarray) -> np.ndarray:
    """The tree (headless words attached to 0) the static oracle builds for gold."""
    k, oracle = ts.kernels, ts.oracle
    n = len(gold) - 1
    state = initial(k.system_id, n, k.options)
    max_steps = 4 * (n + 1) * (n + 1) + 16
    follow_static_oracle(k.system_id, oracle.variant, state, oracle.prepare(gold), max_steps)
    return final_heads(state)


def oracle_coverage(ts: TransitionSystem, trees: Iterable[np.ndarray], progress=None) -> Coverage:
    """Run the static oracle on every gold tree (int32 heads, heads[0] == -1)."""
    if ts.oracle is None:
        raise NotImplementedError(f"{ts.name} has no oracle yet")
    cov = Coverage(ts.name)
    for gold in trees:
        gold = np.asarray(gold, dtype=np.int32)
        if np.any(gold[1:] < 0):
            continue  # no gold tree (unannotated heads)
        cov.sentences += 1
        cov.words += len(gold) - 1
        buildable = ts.can_build(gold)
        cov.buildable += buildable
        built = static_oracle_tree(ts, gold)
        correct = int(np.sum(built[1:] == gold[1:]))
        cov.arcs_recovered += correct
        if correct == len(gold) - 1:
            cov.rebuilt += 1
        elif buildable:
            cov.oracle_failures += 1
        if progress is not None:
            progress()
    return cov


def static_arcs(ts: TransitionSystem, trees: Iterable[np.ndarray]) -> dict[str, int]:
    """Arc transition name -> the arcs it builds in the static oracle's derivations of the
    gold trees the system can build (what static training learns from): e.g. the share of
    arcs arc-eager+lba builds with left-buffer-arc (2012 paper, §3.2)."""
    if ts.oracle is None:
        raise NotImplementedError(f"{ts.name} has no oracle yet")
    k, oracle = ts.kernels, ts.oracle
    trees = [gold for gold in (np.asarray(g, dtype=np.int32) for g in trees)
             if not np.any(gold[1:] < 0) and ts.can_build(gold)]
    longest = max((len(gold) - 1 for gold in trees), default=0)
    taken = np.zeros(k.action_count(longest), dtype=np.int64)  # covington-nl: ids up to 2n
    for gold in trees:
        n = len(gold) - 1
        state = initial(k.system_id, n, k.options)
        max_steps = 4 * (n + 1) * (n + 1) + 16
        count_static_oracle(k.system_id, oracle.variant, state, oracle.prepare(gold),
                            max_steps, taken)
    return {k.action_name(a): int(taken[a]) for a in k.enabled_ids(longest) if k.takes_label(a)}
