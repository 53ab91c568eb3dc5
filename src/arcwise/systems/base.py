"""The steppable Python face of a transition system and its oracle.

Every system is written once, as numba kernels over the flat state array of
`arcwise.systems.state` (a `SystemKernels`); every oracle likewise (an
`OracleKernels`).  `TransitionSystem` wraps the two for researchers who want
to step through configurations by hand; the trainer and parser call the same
kernels directly, so there is one implementation of each transition.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from arcwise.core.jit import njit
from arcwise.core.registry import did_you_mean
from arcwise.systems import state as st
from arcwise.trees.projectivity import is_well_formed, tree_problem


@dataclass(frozen=True)
class ParameterisedActions:
    """The action ids of a system whose arc transitions carry a parameter k that grows with
    the sentence (covington-nl's left-arc-k).

    Ids 0 .. len(plain) - 1 are the plain actions; then, k by k, one id per family:
    ``family f with parameter k`` is ``len(plain) + (k - 1) * len(families) + f``, named
    ``"{family}-{k}"``.  An id means the same in every sentence; an n-word sentence has
    ``n_actions(n)`` of them (the system's compiled count, which the dispatch also calls).
    Every parameterised action takes a label, no plain one does.
    """

    plain: tuple[str, ...]
    families: tuple[str, ...]
    n_actions: Callable[[int], int]

    def name(self, a: int) -> str:
        if a < len(self.plain):
            return self.plain[a]
        k, f = divmod(a - len(self.plain), len(self.families))
        return f"{self.families[f]}-{k + 1}"

    def id(self, name: str) -> int:
        if name in self.plain:
            return self.plain.index(name)
        family, _, k = name.rpartition("-")
        if family not in self.families or not k.isdigit() or int(k) < 1 or k != str(int(k)):
            raise KeyError(name)
        return len(self.plain) + (int(k) - 1) * len(self.families) + self.families.index(family)

    def takes_label(self, a: int) -> bool:
        return a >= len(self.plain)


@dataclass(frozen=True)
class SystemKernels:
    """What a transition-system module provides (via its ``make(options)``).

    initial(n) -> state array; is_terminal(state) -> bool;
    legal(state, mask) fills a bool mask over *all* action ids (`action_count(n)` of
    them, or more);
    apply(state, action, label) edits state in place (label -1 = unlabeled);
    arc(state, action) -> (head, dependent) of the arc the action would build,
    (-1, -1) if none (see `arcwise.dispatch.systems.arc`).

    A system with a fixed set of actions names them in `actions`; one whose actions carry
    a parameter bounded by the sentence length (covington-nl's left-arc-k) has
    `parameterised`, and `actions` / `labeled` / `enabled` are then its transition kinds
    (plain actions, then families: ``shift, left-arc, right-arc``).  The methods below
    answer for both.
    """

    name: str
    actions: tuple[str, ...]  # every action id of the kernel, in id order
    labeled: tuple[bool, ...]  # does action id take a label (an arc transition)?
    enabled: tuple[int, ...]  # the action ids this variant uses
    initial: Callable[[int], np.ndarray]
    is_terminal: Callable[[np.ndarray], bool]
    legal: Callable[[np.ndarray, np.ndarray], None]
    apply: Callable[[np.ndarray, int, int], None]
    arc: Callable[[np.ndarray, int], tuple[int, int]]
    describe: Callable[[np.ndarray], dict[str, Any]] | None = None
    # the variant's option bits, as its initial states carry them in the OPTIONS slot
    # (a field, not read from `initial(0)`: that would compile `initial` once more, for
    # no argument, beside the specialization the compiled loops use)
    options: int = 0
    parameterised: ParameterisedActions | None = None

    def action_count(self, n: int) -> int:
        """Action ids of an n-word sentence: the length of its legal mask."""
        if self.parameterised is None:
            return len(self.actions)
        return int(self.parameterised.n_actions(n))

    def enabled_ids(self, n: int) -> Sequence[int]:
        """The action ids this variant uses in an n-word sentence, in id order."""
        return self.enabled if self.parameterised is None else range(self.action_count(n))

    def action_name(self, a: int) -> str:
        return self.actions[a] if self.parameterised is None else self.parameterised.name(a)

    def action_id(self, name: str) -> int:
        """The id of an action name; KeyError if the system has no such action."""
        if self.parameterised is not None:
            return self.parameterised.id(name)
        ids = {self.actions[a]: a for a in self.enabled}
        return ids[name]

    def takes_label(self, a: int) -> bool:
        """Is action id `a` an arc transition (does it take a label)?"""
        if self.parameterised is not None:
            return self.parameterised.takes_label(a)
        return self.labeled[a]

    @property
    def system_id(self) -> int:
        """The `arcwise.systems.ids` id of the base system, for compiled dispatch."""
        from arcwise.systems.ids import system_id

        return system_id(self.name)


GOLD_ARRAYS = 6  # arrays in every oracle's prepared gold tuple


def pack_gold(*arrays) -> tuple[np.ndarray, ...]:
    """The uniform prepared-gold tuple: GOLD_ARRAYS contiguous 1-D int32 arrays.

    Scalars become 1-element arrays, other dtypes int32; missing arrays are
    empty.  One tuple type (a numba UniTuple) for every oracle lets compiled
    code call any of them from the same branch of a dispatch.
    """
    if len(arrays) > GOLD_ARRAYS:
        raise ValueError(f"at most {GOLD_ARRAYS} gold arrays, got {len(arrays)}")
    packed = [np.ascontiguousarray(np.ravel(a), dtype=np.int32) for a in arrays]
    packed += [np.zeros(0, dtype=np.int32) for _ in range(GOLD_ARRAYS - len(arrays))]
    return tuple(packed)


def flat_gold(prepared: Sequence[tuple[np.ndarray, ...] | None]) -> tuple[tuple, np.ndarray]:
    """Many sentences' prepared gold tuples (None: a sentence never visited) concatenated:
    (GOLD_ARRAYS arrays, offsets [sentences + 1, GOLD_ARRAYS]); `gold_of` takes one back."""
    empty = np.zeros(0, dtype=np.int32)
    offsets = np.zeros((len(prepared) + 1, GOLD_ARRAYS), dtype=np.int64)
    for k, p in enumerate(prepared):
        offsets[k + 1] = offsets[k] + ([0] * GOLD_ARRAYS if p is None else [len(a) for a in p])
    arrays = tuple(
        np.ascontiguousarray(
            np.concatenate([empty] + [p[j] for p in prepared if p is not None]), dtype=np.int32
        )
        for j in range(GOLD_ARRAYS)
    )
    return arrays, offsets


@njit(cache=True)
def gold_of(flat, offsets, k):
    """Sentence k's prepared gold tuple, a view into `flat_gold`'s arrays."""
    return (
        flat[0][offsets[k, 0] : offsets[k + 1, 0]],
        flat[1][offsets[k, 1] : offsets[k + 1, 1]],
        flat[2][offsets[k, 2] : offsets[k + 1, 2]],
        flat[3][offsets[k, 3] : offsets[k + 1, 3]],
        flat[4][offsets[k, 4] : offsets[k + 1, 4]],
        flat[5][offsets[k, 5] : offsets[k + 1, 5]],
    )


def kernels_of_module(name: str, module: Any, options: frozenset[str]) -> SystemKernels:
    """The kernels of a system without variants, read from its module.

    The module defines ACTIONS, LABELED, initial, is_terminal, legal, apply, arc
    and describe; every action is enabled.
    """
    if options:
        raise ValueError(f"{name} has no variants, got +{'+'.join(sorted(options))}")
    return SystemKernels(
        name=name,
        actions=module.ACTIONS,
        labeled=module.LABELED,
        enabled=tuple(range(len(module.ACTIONS))),
        initial=module.initial,
        is_terminal=module.is_terminal,
        legal=module.legal,
        apply=module.apply,
        arc=module.arc,
        describe=module.describe,
    )


@dataclass(frozen=True)
class OracleKernels:
    """What an oracle module provides (via its ``make(system_kernels, **options)``).

    prepare(gold) turns a gold head array (int32, n+1, gold[0] == -1) into the
    per-sentence arrays the kernels read, computed once per sentence: always
    `pack_gold(gold, ...)`, a tuple of GOLD_ARRAYS int32 arrays (kernels read
    ``prepared[k]``), so that every oracle takes the same argument types.
    static(state, prepared) -> action id.
    loss(state, prepared, bound) -> int: minimum Hamming loss reachable (or its
    bound).  costs(state, prepared, bound, out) writes loss(apply(c, a)) -
    loss(c) into out[a] for every legal a (None: computed generically).
    bound is an index into `bounds` (0 when the oracle has no bounds).
    variant selects among an oracle module's options in compiled dispatch
    (`arcwise.dispatch.oracles`); each module's ``make`` sets it.  priority:
    the non-monotonic oracles' priority for monotonic paths ("none" or
    "monotonic", `arcwise.oracles.priority`); None for the other oracles.
    """

    prepare: Callable[[np.ndarray], tuple]
    static: Callable[..., int]
    loss: Callable[..., int]
    can_build: Callable[[np.ndarray], bool]
    costs: Callable[..., None] | None = None
    bounds: tuple[str, ...] = ()
    exact: bool = True  # does `loss` equal the exhaustive minimum (no bound argument)?
    variant: int = 0
    priority: str | None = None


class Configuration:
    """An immutable configuration; equal states compare and hash equal."""

    __slots__ = ("_state", "_key", "system")

    def __init__(self, state: np.ndarray, system: TransitionSystem):
        # private and never written; writable because the compiled kernels take it, and a
        # read-only array is another argument type: every kernel would compile twice
        self._state = np.array(state, dtype=np.int32, copy=True)
        self._key = self._state.tobytes()
        self.system = system

    @property
    def state(self) -> np.ndarray:
        """The state array, read-only (see `arcwise.systems.state`)."""
        view = self._state.view()
        view.setflags(write=False)
        return view

    @property
    def n(self) -> int:
        return int(self._state[st.N])

    @property
    def stack(self) -> tuple[int, ...]:
        return tuple(int(w) for w in st.region(self._state, st.STACK)[: self._state[st.STACK_LEN]])

    @property
    def buffer(self) -> tuple[int, ...]:
        length = self._state[st.BUFFER_LEN]
        return tuple(int(w) for w in st.region(self._state, st.BUFFER)[:length][::-1])

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Configuration)
            and other.system.name == self.system.name
            and other._key == self._key
        )

    def __hash__(self) -> int:
        return hash((self.system.name, self._key))

    def __repr__(self) -> str:
        describe = self.system.kernels.describe
        fields = describe(self._state) if describe else {"stack": self.stack, "buffer": self.buffer}
        heads = self.system.heads(self)
        arcs = [f"{h}->{d}" for d, h in enumerate(heads) if h >= 0]
        shown = ", ".join(f"{k}={v}" for k, v in fields.items())
        return f"<{self.system.name} {shown}, arcs={{{' '.join(arcs)}}}>"


def _as_gold(gold: Sequence[int] | np.ndarray) -> np.ndarray:
    gold = np.asarray(gold, dtype=np.int32)
    if gold.ndim != 1 or len(gold) < 1 or gold[0] != -1:
        raise ValueError("gold must be a list of n+1 heads with gold[0] == -1")
    return gold


class TransitionSystem:
    """A transition system with its oracle, steppable by hand.

    >>> ts = get("covington-nm"); c = ts.initial(3)
    >>> c = ts.apply(c, "shift"); ts.legal(c)
    """

    def __init__(self, name: str, kernels: SystemKernels, oracle: OracleKernels | None):
        self.name = name
        self.kernels = kernels
        self.oracle = oracle
        self.actions: tuple[str, ...] = tuple(kernels.actions[a] for a in kernels.enabled)
        if kernels.parameterised is not None:  # the families as ``left-arc-k``
            p = kernels.parameterised
            self.actions = p.plain + tuple(f"{family}-k" for family in p.families)
        self._prepared = lru_cache(maxsize=64)(self._prepare)

    def __repr__(self) -> str:
        return f"TransitionSystem({self.name!r}, actions={self.actions})"

    # --- the system ------------------------------------------------------

    def initial(self, n: int) -> Configuration:
        """Initial configuration of a sentence of words 1..n (0 is the root)."""
        if n < 0:
            raise ValueError("n must be >= 0")
        return Configuration(self.kernels.initial(n), self)

    def is_terminal(self, c: Configuration) -> bool:
        return bool(self.kernels.is_terminal(c._state))

    def _legal_ids(self, state: np.ndarray) -> list[int]:
        n = int(state[st.N])
        mask = np.zeros(self.kernels.action_count(n), dtype=np.bool_)
        if not self.kernels.is_terminal(state):
            self.kernels.legal(state, mask)
        return [a for a in self.kernels.enabled_ids(n) if mask[a]]

    def legal(self, c: Configuration) -> list[str]:
        """Names of the actions allowed in c (empty in a terminal configuration)."""
        return [self.kernels.action_name(a) for a in self._legal_ids(c._state)]

    def action_id(self, action: str) -> int:
        try:
            return self.kernels.action_id(action)
        except KeyError:
            raise ValueError(f"{self.name} has no action {action!r}; it has {self.actions}") from None

    def apply(self, c: Configuration, action: str, label: int = -1) -> Configuration:
        """The configuration after `action`; c itself is unchanged."""
        a = self.action_id(action)
        if a not in self._legal_ids(c._state):
            raise ValueError(f"{action!r} is not legal in {c!r}")
        state = c._state.copy()
        self.kernels.apply(state, a, label)
        return Configuration(state, self)

    def arc(self, c: Configuration, action: str) -> tuple[int, int] | None:
        """(head, dependent) of the arc `action` would build in c, None if it builds none."""
        head, dependent = self.kernels.arc(c._state, self.action_id(action))
        return None if dependent < 0 else (int(head), int(dependent))

    def heads(self, c: Configuration) -> list[int]:
        """Heads of words 0..n: heads[0] == -1, -1 = no head yet."""
        return [int(h) for h in st.region(c._state, st.HEADS)]

    # --- the oracle ------------------------------------------------------

    def _need_oracle(self) -> OracleKernels:
        if self.oracle is None:
            raise NotImplementedError(f"{self.name} has no oracle yet")
        return self.oracle

    def _prepare(self, gold_key: bytes) -> tuple:
        return self._need_oracle().prepare(np.frombuffer(gold_key, dtype=np.int32).copy())

    def _gold(self, c: Configuration | None, gold) -> tuple:
        gold = _as_gold(gold)
        if c is not None and len(gold) != c.n + 1:
            raise ValueError(f"gold has {len(gold) - 1} words, the configuration {c.n}")
        if problem := tree_problem(gold):
            raise ValueError(f"gold is not a tree: {problem}")
        return self._prepared(gold.tobytes())

    def _bound(self, bound: str | None) -> int:
        bounds = self._need_oracle().bounds
        if bound is None:
            return 0
        if bound not in bounds:
            raise ValueError(f"{self.name} takes bound in {bounds or '(none)'}, not {bound!r}")
        return bounds.index(bound)

    def can_build(self, gold) -> bool:
        """Can this system derive the gold tree at all? (False for anything but a tree.)"""
        gold = _as_gold(gold)
        return bool(is_well_formed(gold)) and bool(self._need_oracle().can_build(gold))

    def static_oracle(self, c: Configuration, gold) -> str:
        """The action the static oracle takes in c towards the gold tree."""
        a = self._need_oracle().static(c._state, self._gold(c, gold))
        return self.kernels.action_name(a)

    def loss(self, c: Configuration, gold, bound: str | None = None) -> int:
        """Minimum Hamming loss (headless words attached to 0) reachable from c.

        Systems with approximate oracles return their estimate; covington-nm
        takes bound="lower" | "pc-upper" | "upper".
        """
        oracle = self._need_oracle()
        return int(oracle.loss(c._state, self._gold(c, gold), self._bound(bound)))

    def costs(self, c: Configuration, gold, bound: str | None = None) -> dict[str, int]:
        """{legal action: loss(apply(c, a)) - loss(c)}."""
        oracle = self._need_oracle()
        prepared = self._gold(c, gold)
        b = self._bound(bound)
        legal = self._legal_ids(c._state)
        name = self.kernels.action_name
        if oracle.costs is not None:
            out = np.zeros(self.kernels.action_count(c.n), dtype=np.int64)
            oracle.costs(c._state, prepared, b, out)
            return {name(a): int(out[a]) for a in legal}
        base = int(oracle.loss(c._state, prepared, b))
        result = {}
        for a in legal:
            state = c._state.copy()
            self.kernels.apply(state, a, -1)
            result[name(a)] = int(oracle.loss(state, prepared, b)) - base
        return result


@dataclass(frozen=True)
class Entry:
    """A registered system: its modules and the bundled feature tables its perceptron
    reads (files in `arcwise/features/templates/`)."""

    system: str  # the system module (ACTIONS, kernels, ``make(options)``)
    oracle: str  # its oracle module (``make(kernels, **options)``)
    features: str  # the default feature table
    guide_features: str  # the guide features a guided (stacked) parser adds
    variant_features: dict[str, str] = field(default_factory=dict)  # option -> table added
    # a parameterised system's table of the candidates of its arcs with k >= 2
    # (`arcwise.transition.candidates`)
    candidate_features: str | None = None


@dataclass
class Registry:
    """Systems by name; ``name+ext+ext`` selects a variant of a base system.  The compiled
    dispatch of every entry is generated (`arcwise.dispatch.generate`)."""

    entries: dict[str, Entry] = field(default_factory=dict)

    def names(self) -> list[str]:
        return sorted(self.entries)

    def variants(self, base: str) -> tuple[str, ...]:
        """The extensions `base` takes (``+name``), from its module's VARIANTS."""
        import importlib

        return tuple(getattr(importlib.import_module(self.entries[base].system), "VARIANTS", ()))

    def oracle_options(self, base: str) -> tuple[str, ...]:
        """The keyword options of `base`'s oracle (its module's ``make``), e.g. ("priority",)."""
        import importlib
        import inspect

        make = importlib.import_module(self.entries[base].oracle).make
        return tuple(name for name, p in inspect.signature(make).parameters.items()
                     if p.kind == p.KEYWORD_ONLY or (p.default is not p.empty
                                                     and p.kind != p.VAR_KEYWORD))

    def describe(self) -> str:
        """Every system with its variants: ``arc-eager (+lba, +rba, ...), arc-hybrid (+swap), ...``."""
        return ", ".join(
            name + (f" ({', '.join('+' + v for v in variants)})" if variants else "")
            for name in self.names()
            for variants in [self.variants(name)]
        )

    def get(self, name: str, **oracle_options: Any) -> TransitionSystem:
        import importlib
        import importlib.util

        base, *extensions = name.split("+")
        if base not in self.entries:
            guess = did_you_mean(base, self.names()) or ";"
            raise ValueError(f"unknown transition system {name!r}{guess} known: "
                             f"{self.describe()}")
        system_module, oracle_module = self.entries[base].system, self.entries[base].oracle
        module = importlib.import_module(system_module)
        kernels = module.make(frozenset(extensions))
        oracle = None
        if oracle_module and importlib.util.find_spec(oracle_module) is not None:
            oracle = importlib.import_module(oracle_module).make(kernels, **oracle_options)
        return TransitionSystem(name, kernels, oracle)
