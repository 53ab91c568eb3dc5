"""Static and dynamic oracles of arc-hybrid and arc-hybrid+swap.

Dynamic oracle of arc-hybrid: Goldberg & Nivre (2013), for the
root at the end of the buffer (`arcwise.systems.arc_hybrid`).  The gold arc
into word d is *reachable* in c when

    d has a head h:              h == gold[d]
    d is headless on the stack:  gold[d] is in the buffer (the root always is:
                                 LEFT-ARC), or lies just below d (RIGHT-ARC)
    d is in the buffer:          gold[d] was not popped,

and loss(c) counts the words whose gold arc is not.  Arc-hybrid is
arc-decomposable for projective gold trees (Goldberg & Nivre 2013),
so this count is the exact minimum loss, and the cost of a transition is the
number of gold arcs it makes unreachable (their arc-hybrid costs, with
the root at the end): O(deg) per action, the system keeping every word's stack
depth in its marks.  For non-projective gold trees the count is only a
lower bound.

Static oracles: LEFT-ARC or RIGHT-ARC for a gold arc whose dependent has
all its dependents, else SHIFT (Goldberg & Nivre 2013, arc-hybrid); with
Swap, SWAP first when the buffer front b precedes s0 in the projective order
(`arcwise.trees.projective_order`).  Eager (Nivre 2009): always then.  Lazy
(after Nivre, Kuhlmann & Hall 2009): not while b is complete, its head is
b1 in the same maximal projective component, and no stack word falls
between b and b1 in the projective order; SHIFT and LEFT-ARC then attach b
first and s0 passes b1 alone, one swap fewer.  (Arc-standard's lazy rule,
"swap only once the component is built", does not carry over: arc-hybrid
builds right dependents on the stack, where a component's root would bury
s0 and strand it.)  Eager is lazy with every word its own component.

Static-dynamic oracle of arc-hybrid+swap (de Lhoneux, Stymne & Nivre 2017):
SWAP when the static oracle swaps, never otherwise, and the
arc-hybrid costs above for the other transitions, where SHIFT of a word
that is still to be swapped back costs nothing (de Lhoneux et al.'s
exception).  The API needs a loss that the costs are differences of, so
`loss` is the loss of the tree this oracle builds from c, choosing the
cheapest transition and, among those, the static oracle's; costs are then
exact differences of that loss, zero-cost transitions keep it, and it is
an upper bound of the minimum loss (`exact` False).  A transition the oracle
would not take can have negative cost when it leads somewhere the oracle
does better.
"""

from __future__ import annotations

from functools import partial

import numpy as np
from numba import njit

from arcwise.systems import arc_hybrid as ah
from arcwise.systems import state as st
from arcwise.systems.base import OracleKernels, SystemKernels, pack_gold
from arcwise.trees.projective_order import maximal_projective_components, projective_positions
from arcwise.trees.projectivity import children, is_projective

N_ACTIONS = len(ah.ACTIONS)
NO_COST = 1 << 30


def prepare(gold: np.ndarray, swap: str = "") -> tuple:
    """(gold heads, dependents start, dependents, projective position, component).

    Without swap the position is the sentence order; eager swap gives every
    word its own component, lazy swap the maximal projective components.
    """
    gold = np.ascontiguousarray(gold, dtype=np.int32)
    start, deps = children(gold)
    words = np.arange(len(gold), dtype=np.int32)
    position = projective_positions(gold) if swap else words
    component = maximal_projective_components(gold) if swap == "lazy" else words
    return pack_gold(gold, start, deps, position, component)


# --- where a word is ---------------------------------------------------------


@njit(cache=True)
def on_stack(state, w):
    """Is w a stack word (never the root, which waits at the buffer end)?"""
    return w > 0 and ah.stack_depth(state, w) > 0


@njit(cache=True)
def in_buffer(state, w):
    """Is w in the buffer (the root always is)?"""
    return w == 0 or (st.head_of(state, w) == -1 and ah.stack_depth(state, w) == 0)


@njit(cache=True)
def reachable(state, gold, d):
    """Can the gold arc into d still be in the final tree (module docstring)?"""
    g = gold[d]
    h = st.head_of(state, d)
    if h != -1:
        return h == g
    depth = ah.stack_depth(state, d)
    if depth > 0:
        return in_buffer(state, g) or (on_stack(state, g) and ah.stack_depth(state, g) == depth - 1)
    return in_buffer(state, g) or on_stack(state, g)


@njit(cache=True)
def arc_loss(state, prepared):
    """Number of words whose gold arc is unreachable."""
    gold = prepared[0]
    lost = 0
    for d in range(1, state[st.N] + 1):
        if not reachable(state, gold, d):
            lost += 1
    return lost


# --- what each transition makes unreachable ----------------------------------


@njit(cache=True)
def attach_cost(state, gold, d, h):
    """Giving d the head h loses d's gold arc if it was reachable and h is not it."""
    return 1 if gold[d] != h and reachable(state, gold, d) else 0


@njit(cache=True)
def buffer_dependents(state, prepared, w):
    """Gold dependents of w in the buffer: lost once w is popped."""
    start, deps = prepared[1], prepared[2]
    count = 0
    for k in range(start[w], start[w + 1]):
        if in_buffer(state, deps[k]):
            count += 1
    return count


@njit(cache=True)
def stack_dependents(state, prepared, w):
    """Gold dependents of w on the stack: lost once w is shifted above them."""
    start, deps = prepared[1], prepared[2]
    count = 0
    for k in range(start[w], start[w + 1]):
        if on_stack(state, deps[k]):
            count += 1
    return count


@njit(cache=True)
def swapped_back_later(state, position, b):
    """Is a word behind b in the buffer both after b in the sentence and before it
    in the projective order, so that b will be swapped back?"""
    for k in range(1, state[st.BUFFER_LEN]):
        y = st.buffer_get(state, k)
        if y > b and position[y] < position[b]:
            return True
    return False


@njit(cache=True)
def arc_costs(state, prepared, mask, out):
    """out[a] = gold arcs that legal LEFT-ARC, RIGHT-ARC or SHIFT makes unreachable."""
    gold, position = prepared[0], prepared[3]
    s1, s0, b = ah.top(state)
    if mask[ah.LEFT_ARC]:  # s0 gets head b and no more dependents
        out[ah.LEFT_ARC] = attach_cost(state, gold, s0, b) + buffer_dependents(state, prepared, s0)
    if mask[ah.RIGHT_ARC]:  # s0 gets head s1 and no more dependents
        lost_head = attach_cost(state, gold, s0, s1)
        out[ah.RIGHT_ARC] = lost_head + buffer_dependents(state, prepared, s0)
    if mask[ah.SHIFT]:  # b: a head only from s0 or the buffer, dependents only from the buffer
        if state[st.OPTIONS] & ah.HAS_SWAP and swapped_back_later(state, position, b):
            out[ah.SHIFT] = 0
        else:
            g = gold[b]
            lost_head = 1 if on_stack(state, g) and g != s0 else 0
            out[ah.SHIFT] = lost_head + stack_dependents(state, prepared, b)


@njit(cache=True)
def complete(state, prepared, w):
    """Has w all its gold dependents?"""
    start, deps = prepared[1], prepared[2]
    for k in range(start[w], start[w + 1]):
        if st.head_of(state, deps[k]) != w:
            return False
    return True


@njit(cache=True)
def comes_first(state, position, h, b):
    """Does h precede, in the projective order, every stack word that b precedes?"""
    stack = st.region(state, st.STACK)
    for k in range(state[st.STACK_LEN]):
        x = stack[k]
        if position[b] < position[x] < position[h]:
            return False
    return True


@njit(cache=True)
def static_swap(state, prepared, mask):
    """Does the static oracle swap?  When b precedes s0 in the projective order:
    eagerly, always; lazily, not while b can first be attached to b1 inside
    its maximal projective component (so that s0 passes b1 alone)."""
    if not mask[ah.SWAP]:
        return False
    gold, position, component = prepared[0], prepared[3], prepared[4]
    s1, s0, b = ah.top(state)
    if position[b] >= position[s0]:
        return False
    b1 = st.buffer_get(state, 1)
    passes_later = (
        b1 > 0
        and component[b1] == component[b]
        and gold[b] == b1
        and complete(state, prepared, b)
        and comes_first(state, position, b1, b)
    )
    return not passes_later


@njit(cache=True)
def arc_choice(state, prepared, mask):
    """The static oracle's choice among LEFT-ARC, RIGHT-ARC and SHIFT."""
    gold = prepared[0]
    s1, s0, b = ah.top(state)
    if mask[ah.LEFT_ARC] and gold[s0] == b and complete(state, prepared, s0):
        return ah.LEFT_ARC
    if mask[ah.RIGHT_ARC] and gold[s0] == s1 and complete(state, prepared, s0):
        return ah.RIGHT_ARC
    if mask[ah.SHIFT]:
        return ah.SHIFT
    return ah.RIGHT_ARC if mask[ah.RIGHT_ARC] else ah.LEFT_ARC


@njit(cache=True)
def static(state, prepared):
    """The static oracle's action (module docstring)."""
    mask = np.zeros(N_ACTIONS, dtype=np.bool_)
    ah.legal(state, mask)
    return ah.SWAP if static_swap(state, prepared, mask) else arc_choice(state, prepared, mask)


# --- arc-hybrid: exact loss and costs ----------------------------------------


@njit(cache=True)
def loss(state, prepared, bound):
    """Arc-hybrid: the exact minimum loss on projective gold trees."""
    return arc_loss(state, prepared)


@njit(cache=True)
def costs(state, prepared, bound, out):
    """Arc-hybrid: Goldberg & Nivre's cost of every legal action, into out."""
    mask = np.zeros(N_ACTIONS, dtype=np.bool_)
    ah.legal(state, mask)
    arc_costs(state, prepared, mask, out)


# --- arc-hybrid+swap: the static-dynamic oracle -------------------------------


@njit(cache=True)
def static_dynamic_choice(state, prepared, mask, out):
    """SWAP if the static oracle swaps; else the cheapest other transition,
    the static oracle's on ties."""
    if static_swap(state, prepared, mask):
        return ah.SWAP
    out[:] = NO_COST
    arc_costs(state, prepared, mask, out)
    best = arc_choice(state, prepared, mask)
    for a in (ah.LEFT_ARC, ah.RIGHT_ARC, ah.SHIFT):
        if mask[a] and out[a] < out[best]:
            best = a
    return best


@njit(cache=True)
def static_dynamic_loss(state, prepared):
    """Loss of the tree the static-dynamic oracle builds from `state` (left unchanged)."""
    gold = prepared[0]
    c = state.copy()
    mask = np.zeros(N_ACTIONS, dtype=np.bool_)
    out = np.zeros(N_ACTIONS, dtype=np.int64)
    while not ah.is_terminal(c):
        mask[:] = False
        ah.legal(c, mask)
        ah.apply(c, static_dynamic_choice(c, prepared, mask, out), -1)
    lost = 0
    for d in range(1, c[st.N] + 1):
        if st.head_of(c, d) != gold[d]:
            lost += 1
    return lost


@njit(cache=True)
def swap_loss(state, prepared, bound):
    """Arc-hybrid+swap: the loss of the static-dynamic oracle's tree."""
    return static_dynamic_loss(state, prepared)


@njit(cache=True)
def swap_costs(state, prepared, bound, out):
    """Arc-hybrid+swap: swap_loss(apply(c, a)) - swap_loss(c) for every legal a, into out."""
    mask = np.zeros(N_ACTIONS, dtype=np.bool_)
    ah.legal(state, mask)
    chosen = static_dynamic_choice(state, prepared, mask, np.empty(N_ACTIONS, dtype=np.int64))
    base = static_dynamic_loss(state, prepared)
    for a in range(N_ACTIONS):
        if mask[a] and a != chosen:
            c = state.copy()
            ah.apply(c, a, -1)
            out[a] = static_dynamic_loss(c, prepared) - base
    out[chosen] = 0  # the oracle's own transition keeps its loss


# --- construction --------------------------------------------------------------


def can_build(gold: np.ndarray) -> bool:
    """Arc-hybrid derives exactly the projective trees."""
    return bool(is_projective(np.asarray(gold, dtype=np.int32)))


def can_build_any(gold: np.ndarray) -> bool:
    """With Swap every tree can be derived (Nivre 2009)."""
    return True


NO_SWAP, LAZY_SWAP, EAGER_SWAP = 0, 1, 2  # OracleKernels.variant


def make(kernels: SystemKernels, swap: str = "lazy") -> OracleKernels:
    """The oracles of `kernels`; with Swap, `swap` = "lazy" or "eager" selects the static oracle."""
    if ah.SWAP not in kernels.enabled:
        return OracleKernels(
            prepare=prepare, static=static, loss=loss, can_build=can_build, costs=costs, exact=True
        )
    if swap not in ("lazy", "eager"):
        raise ValueError(f'swap must be "lazy" or "eager", not {swap!r}')
    return OracleKernels(
        prepare=partial(prepare, swap=swap),
        static=static,
        loss=swap_loss,
        can_build=can_build_any,
        costs=swap_costs,
        exact=False,
        variant=LAZY_SWAP if swap == "lazy" else EAGER_SWAP,
    )
