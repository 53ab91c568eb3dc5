"""The oracle explorer: a transition system stepped by hand towards a gold tree.

`explore(system, heads, history)` replays `history` (action names) from the
initial configuration with `arcwise.systems` (`TransitionSystem.apply`,
``.legal``, ``.costs``, ``.loss``, ``.static_oracle``: the kernels the trainer and
the parser run) and describes where it got: the configuration, the arcs
built, the legal transitions with their cost under every oracle of the
system (and every bound, for covington-nm), each oracle's loss and choice,
and the loss after each step.  The explorer keeps no state: undo is the same
history less its last action.

A system's oracles are the values of the options its oracle module's
``make`` takes (`OPTION_VALUES`: non-monotonic priority, Swap's static
oracle, 2-Planar's Switch regularization), read from its signature, so a
new option or system needs an entry here, never a branch on a system name.
"""

from __future__ import annotations

import itertools
import reprlib
from functools import lru_cache
from typing import Any

import numpy as np

from arcwise import systems
from arcwise.oracles.priority import PRIORITIES
from arcwise.service.errors import RequestError
from arcwise.systems.base import TransitionSystem
from arcwise.trees.projectivity import tree_problem

MAX_WORDS = 60  # words of an explored sentence (each step replays the history)
MAX_STEPS = 4 * (MAX_WORDS + 1) ** 2  # above any system's transitions for MAX_WORDS words

# oracle option -> the values the explorer compares (the first is each option's default order)
OPTION_VALUES: dict[str, tuple[Any, ...]] = {
    "priority": PRIORITIES,
    "swap": ("lazy", "eager"),
    "regularize": (True, False),
}


def system_names() -> list[str]:
    """Every system name: each base system and each of its variants (``+ext``)."""
    names = []
    for base in systems.names():
        names.append(base)
        names.extend(f"{base}+{v}" for v in systems.REGISTRY.variants(base))
    return names


def _oracle_options(base: str) -> list[str]:
    return [p for p in systems.REGISTRY.oracle_options(base) if p in OPTION_VALUES]


@lru_cache(maxsize=64)
def oracles(name: str) -> tuple[tuple[str, TransitionSystem], ...]:
    """(label, steppable system) for every distinct oracle of system `name`, the
    default first; ValueError for an unknown name."""
    default = systems.get(name)
    if default.oracle is None:
        raise ValueError(f"{name} has no oracle")
    options = _oracle_options(name.split("+")[0])
    found: list[tuple[str, TransitionSystem]] = []
    seen = set()
    for values in itertools.product(*(OPTION_VALUES[o] for o in options)):
        chosen = dict(zip(options, values))
        ts = systems.get(name, **chosen) if chosen else default
        o = ts.oracle
        key = (o.variant, o.costs, o.static, o.loss, o.priority)
        if key in seen:
            continue
        seen.add(key)
        label = ", ".join(f"{k}={v}" for k, v in chosen.items()) or "oracle"
        found.append((label, ts))
    if len(found) == 1:  # the options change nothing for this variant
        found = [("oracle", found[0][1])]
    # the oracle `systems.get(name)` gives (the trainer's default) first
    d = default.oracle
    found.sort(key=lambda item: (item[1].oracle.variant, item[1].oracle.priority)
               != (d.variant, d.priority))
    return tuple(found)


def columns(name: str) -> list[tuple[str, TransitionSystem, str | None]]:
    """(column label, system, bound) for every oracle and bound of system `name`."""
    out = []
    for label, ts in oracles(name):
        bounds = ts.oracle.bounds or (None,)
        for bound in bounds:
            out.append((label if bound is None else f"{label}, {bound}", ts, bound))
    return out


def _gold(heads: list[int]) -> np.ndarray:
    """The gold heads as the kernels take them; `RequestError` for too many words, or a
    head that is no integer or no word (a head of 2**40 would overflow the array)."""
    if not 1 <= _length(heads, "heads") <= MAX_WORDS:
        raise RequestError(f"the explorer takes sentences of 1 to {MAX_WORDS} words, "
                           f"not {len(heads)}")
    for k, head in enumerate(heads, 1):
        if isinstance(head, bool) or not isinstance(head, (int, np.integer)):
            raise RequestError(f"the head of word {k} is {_shown(head)}, not an integer")
        if not 0 <= head <= len(heads):
            shown = head if abs(head) < 10**18 else \
                f"{'a negative' if head < 0 else 'an'} integer of {int(head).bit_length()} bits"
            raise RequestError(f"the gold heads are not a tree: the head of word {k} is "
                               f"{shown}, outside 0..{len(heads)}")
    gold = np.array([-1, *heads], dtype=np.int32)
    if problem := tree_problem(gold):
        raise RequestError(f"the gold heads are not a tree: {problem}")
    return gold


def _length(items: Any, name: str) -> int:
    """len(items) of a list or tuple (or array) of `name`; else `RequestError`."""
    if isinstance(items, (str, bytes, dict)) or not hasattr(items, "__len__"):
        raise RequestError(f"{name} must be a list, not {type(items).__name__}")
    return len(items)


def _shown(value: Any) -> str:
    """A value as a message shows it: its repr, cut at 40 characters."""
    text = reprlib.repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _choice(ts: TransitionSystem, c, gold, bound, costs: dict[str, int]) -> str | None:
    """The oracle's move: its static action when that is among the least-cost legal
    actions, else the first least-cost legal action (None in a terminal configuration)."""
    if not costs:
        return None
    least = min(costs.values())
    try:
        static = ts.static_oracle(c, gold)
    except Exception:  # noqa: BLE001 -- a static oracle off the gold path may not answer
        static = None
    if static in costs and costs[static] == least:
        return static
    return next(a for a, cost in costs.items() if cost == least)


def explore(system: str, heads: list[int], history: list[str]) -> dict[str, Any]:
    """The explorer's view after applying `history` (see the module docstring).

    heads: the gold head of words 1..n (0 = the root).  Raises `RequestError` (an
    `ArcwiseError`: one line) for an unknown system, a gold that is not a tree (a head
    that is no integer, or out of range however large), more than `MAX_WORDS` words or
    `MAX_STEPS` steps, arguments of the wrong type, or an illegal step.
    """
    if not isinstance(system, str):
        raise RequestError(f"system must be a name, not {_shown(system)}")
    try:
        cols = columns(system)
    except ValueError as error:
        raise RequestError(str(error)) from None
    if _length(history, "history") > MAX_STEPS:
        raise RequestError(f"at most {MAX_STEPS} steps")
    gold = _gold(heads)
    main = cols[0]
    ts = main[1]
    c = ts.initial(len(heads))
    trajectory = [ts.loss(c, gold, main[2])]
    for k, action in enumerate(history, 1):
        if action not in ts.legal(c):
            raise RequestError(f"step {k}: {_shown(action)} is not legal here; legal: "
                               f"{', '.join(ts.legal(c)) or 'none (terminal)'}")
        c = ts.apply(c, action)
        trajectory.append(ts.loss(c, gold, main[2]))
    legal = ts.legal(c)
    costs = {label: ts_.costs(c, gold, bound) for label, ts_, bound in cols}
    describe = ts.kernels.describe
    fields = describe(c.state) if describe else {"stack": c.stack, "buffer": c.buffer}
    return {
        "system": system,
        "actions": list(ts.actions),
        "oracles": [label for label, _, _ in cols],
        "exact": {label: ts_.oracle.exact for label, ts_, _ in cols},
        "configuration": {k: (list(v) if isinstance(v, (list, tuple)) else v)
                          for k, v in fields.items()},
        "heads": (heads_built := ts.heads(c)[1:]),
        # the tree the loss counts: headless words attached to the root
        "tree": [max(h, 0) for h in heads_built],
        "terminal": ts.is_terminal(c),
        "can_build": ts.can_build(gold),
        "legal": [
            {"action": a, "arc": (list(arc) if (arc := ts.arc(c, a)) else None),
             "costs": {label: costs[label][a] for label in costs}}
            for a in legal
        ],
        "loss": {label: ts_.loss(c, gold, bound) for label, ts_, bound in cols},
        "choice": {label: _choice(ts_, c, gold, bound, costs[label])
                   for label, ts_, bound in cols},
        "trajectory": trajectory,
        "history": list(history),
    }
