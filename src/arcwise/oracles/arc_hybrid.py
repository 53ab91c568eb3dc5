"""Static and dynamic oracles of arc-hybrid and arc-hybrid+swap.

Dynamic oracle of arc-hybrid: Goldberg & Nivre (2013), for the
root at the end of the buffer (`arcwise.systems.arc_hybrid`).  The gold arc
into word d is *reachable* in c when::

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

Static-dynamic oracle of arc-hybrid+swap (de Lhoneux, Stymne & Nivre 2017,
Figure 1): SWAP is a static decision.  Where the static oracle swaps, SWAP
costs 0 and every other transition 1; elsewhere SWAP costs 1.  LEFT-ARC,
RIGHT-ARC and SHIFT get Goldberg & Nivre's arc-hybrid costs relative to the
projective order: a stack word that a later buffer word precedes in the
projective order will be swapped back, so it counts as a buffer word (the
paper's free SHIFT of such a word is the case where it is b).  With those
words off it, the *projective stack* (`projective_depths`), the arc-hybrid
reachability rules above give `projective_loss`, and a transition costs the
gold arcs it makes unreachable.

The paper keeps, per word, the gold dependents still reachable and strikes
them off as transitions are taken; here reachability is read off the
configuration.  Where the parser takes every static swap and no other (the
paper's training), the two agree on every cost (tested against Figure 1's
bookkeeping).  Read off the configuration, the costs of LEFT-ARC, RIGHT-ARC
and SHIFT are, where the static oracle does not swap, exact differences of a
loss: the Hamming loss of the tree that the policy "the static oracle's
SWAP, else the cheapest other transition" (`static_dynamic_choice`) builds
from c.  Following zero-cost transitions from any configuration ends with
that loss, an upper bound of the minimum (`exact` False).

`projective_loss` is that loss whenever the unattached words are
`in_projective_order` (property-tested against full play-outs), which static
swaps and arc-hybrid transitions keep, except a SHIFT of a word that
precedes s0 in the projective order; costs then take O(n).  After a swap the
static oracle would not make, one it skipped, or one the lazy oracle
postpones, the policy is played until the words are in projective order
again; such costs can differ from Figure 1, and a transition the policy
would not take can have negative cost.  On projective gold trees, without
swaps, the costs are arc-hybrid's.  (In the paper's training, SWAP is never
explored: the parser follows the static oracle's swaps and no others.)
"""

from __future__ import annotations

from functools import partial

import numpy as np

from arcwise.core.jit import njit
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
    """The policy whose tree `swap_loss` scores: SWAP if the static oracle swaps;
    else the cheapest of the other transitions by `arc_costs`, the static
    oracle's on ties."""
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
def in_projective_order(state, position, scratch):
    """Could the static oracle's swaps alone have ordered the unattached words?

    Reading the stack bottom-up and then the buffer front to back (the root
    aside), no two words are out of both sentence and projective order (a
    swap the static oracle would not make), and the stack rises in projective
    order (no skipped swap).  O(n) plus O(n) per word that some swap put
    behind a later one; scratch has at least n cells.
    """
    stack = st.region(state, st.STACK)
    n_stack = state[st.STACK_LEN]
    for i in range(1, n_stack):
        if position[stack[i - 1]] > position[stack[i]]:
            return False
    words = scratch
    size = n_stack
    words[:size] = stack[:size]
    for k in range(1, state[st.BUFFER_LEN]):
        words[size] = st.buffer_get(state, k - 1)
        size += 1
    last = words[0] if size > 0 else 0  # the greatest word so far
    for j in range(1, size):
        y = words[j]
        if y > last:  # after every word before it in the sentence too: no pair to check
            last = y
            continue
        for i in range(j):
            if words[i] > y and position[words[i]] > position[y]:
                return False
    return True


@njit(cache=True)
def projective_depths(state, position, scratch):
    """The depths of the *projective stack*, in scratch[n + 2:]: 1 + w's place from
    its bottom, 0 for words off it.

    The projective stack is the stack without the words the static oracle
    will swap back into the buffer: those that a later word still in the
    buffer precedes in projective order (de Lhoneux et al.'s condition for a
    free SHIFT).  scratch has 2n + 4 cells.
    """
    n = state[st.N]
    first = scratch[: n + 2]  # first[k] = least projective position of a buffer word >= k
    depth = scratch[n + 2 :]
    first[:] = n + 1
    depth[:] = 0
    for k in range(1, state[st.BUFFER_LEN]):
        w = st.buffer_get(state, k - 1)
        first[w] = position[w]
    for k in range(n - 1, 0, -1):
        if first[k + 1] < first[k]:
            first[k] = first[k + 1]
    stack = st.region(state, st.STACK)
    level = 0
    for i in range(state[st.STACK_LEN]):
        w = stack[i]
        if first[w + 1] > position[w]:
            level += 1
            depth[w] = level
    return depth


@njit(cache=True)
def projective_loss(state, prepared, scratch):
    """Goldberg & Nivre's count of unreachable gold arcs, with the projective
    stack (`projective_depths`) as the stack and every other unattached word
    in the buffer: the static-dynamic oracle's loss when `in_projective_order`."""
    gold = prepared[0]
    depth = projective_depths(state, prepared[3], scratch)
    lost = 0
    for d in range(1, state[st.N] + 1):
        h = st.head_of(state, d)
        if h != -1:
            if h != gold[d]:
                lost += 1
            continue
        g = gold[d]
        g_free = g == 0 or st.head_of(state, g) == -1
        if depth[d] > 0:  # stacked: a head from the buffer, or just below it
            if not (g_free and (depth[g] == 0 or depth[g] == depth[d] - 1)):
                lost += 1
        elif not g_free:  # in the buffer: its head must not be attached
            lost += 1
    return lost


@njit(cache=True)
def static_dynamic_loss(state, prepared, scratch):
    """Loss of the tree `static_dynamic_choice` builds from `state` (left unchanged).

    The policy is followed only until the unattached words are
    `in_projective_order` again; from there on its loss is `projective_loss`.
    """
    position = prepared[3]
    if in_projective_order(state, position, scratch):
        return projective_loss(state, prepared, scratch)
    c = state.copy()
    mask = np.zeros(N_ACTIONS, dtype=np.bool_)
    out = np.zeros(N_ACTIONS, dtype=np.int64)
    ordered = False
    while not ordered:
        mask[:] = False
        ah.legal(c, mask)
        action = static_dynamic_choice(c, prepared, mask, out)
        ah.apply(c, action, -1)
        # SHIFT keeps the order of the unattached words, and the stack's disorder
        ordered = action != ah.SHIFT and in_projective_order(c, position, scratch)
    return projective_loss(c, prepared, scratch)


@njit(cache=True)
def swap_loss(state, prepared, bound):
    """Arc-hybrid+swap: the loss of the static-dynamic oracle's tree."""
    return static_dynamic_loss(state, prepared, np.empty(2 * state[st.N] + 4, dtype=np.int32))


@njit(cache=True)
def swap_costs(state, prepared, bound, out):
    """Arc-hybrid+swap: de Lhoneux et al.'s costs of every legal action, into out.

    Where the static oracle swaps, SWAP costs 0 and every other transition 1;
    elsewhere SWAP costs 1 and LEFT-ARC, RIGHT-ARC and SHIFT cost
    swap_loss(apply(c, a)) - swap_loss(c).  O(n) when the words are
    `in_projective_order` (O(n²) to check it), else the policy is played
    until they are.
    """
    mask = np.zeros(N_ACTIONS, dtype=np.bool_)
    ah.legal(state, mask)
    if static_swap(state, prepared, mask):
        for a in range(N_ACTIONS):
            out[a] = 1
        out[ah.SWAP] = 0
        return
    out[ah.SWAP] = 1
    position = prepared[3]
    scratch = np.empty(2 * state[st.N] + 4, dtype=np.int32)
    ordered = in_projective_order(state, position, scratch)
    chosen = -1  # out of order, the policy's own transition keeps the loss: no play-out
    if ordered:
        base = projective_loss(state, prepared, scratch)
    else:
        base = static_dynamic_loss(state, prepared, scratch)
        chosen = static_dynamic_choice(state, prepared, mask, out)
        out[ah.SWAP] = 1
        out[chosen] = 0
    s1, s0, b = ah.top(state)
    c = np.empty_like(state)
    for a in (ah.LEFT_ARC, ah.RIGHT_ARC, ah.SHIFT):
        if mask[a] and a != chosen:
            c[:] = state
            ah.apply(c, a, -1)
            # arcs keep the order; SHIFT keeps it when b follows s0 in projective order
            if ordered and (a != ah.SHIFT or s0 == -1 or position[b] > position[s0]):
                out[a] = projective_loss(c, prepared, scratch) - base
            else:
                out[a] = static_dynamic_loss(c, prepared, scratch) - base


# --- construction --------------------------------------------------------------


def can_build(gold: np.ndarray) -> bool:
    """Arc-hybrid derives exactly the projective trees."""
    return bool(is_projective(np.asarray(gold, dtype=np.int32)))


def can_build_any(gold: np.ndarray) -> bool:
    """With Swap every tree can be derived (Nivre 2009)."""
    return True


NO_SWAP, LAZY_SWAP, EAGER_SWAP = 0, 1, 2  # OracleKernels.variant
VARIANT_KERNELS = {  # compiled dispatch; the static oracle's lazy or eager order lies in `gold`
    "LAZY_SWAP": {"loss": swap_loss, "costs": swap_costs},
    "EAGER_SWAP": {"loss": swap_loss, "costs": swap_costs},
}


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
