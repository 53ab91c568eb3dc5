"""Static and dynamic oracles of arc-eager and its buffer transitions.

Dynamic oracle: Goldberg & Nivre (2012, "A dynamic oracle for arc-eager
dependency parsing"), for root 0 at the stack bottom and the API's loss
convention (a word left headless counts as attached to 0).  The gold arc
into word d is *reachable* in c when::

    d has a head h:             h == gold[d]
    d is headless on the stack: gold[d] == 0 or gold[d] is in the buffer
                                (only LEFT-ARC/LNBA can still give it a head)
    d is in the buffer:         gold[d] == 0 or gold[d] was not popped,

and loss(c) counts the words whose gold arc is not.  For projective gold
trees arc-eager is arc-decomposable (Goldberg & Nivre 2012, §4), so this
count is the exact minimum loss, and each action's cost is the number of
gold arcs it makes unreachable (`arc_costs`): O(deg) per action after one
O(n) pass that locates every word (`locate`).  One difference from the
paper's costs comes from the loss convention: a gold root arc 0 -> d is
never lost by SHIFT or by leaving d on the stack, only by giving d a head.

The buffer transitions keep buffer nodes headless and remove every
dependent they attach, so the same arc-level costs hold for them; the
count stays the exact minimum loss on projective gold trees for every
variant (checked against exhaustive search in tests/test_arc_eager*.py).

Non-projective gold trees: loss adds the arcs lost to headless root words
that bury the stack below them (`buried_by_root_words`), and costs are
loss differences.  The loss is then a lower bound of the minimum loss, so
`exact` is False for the variants with LNBA/RNBA, which build some
non-projective trees; arc-eager and +lba/+rba build only projective ones.

Static oracle: the zero-cost action first in the order of the 2012 paper's
policies: a projective buffer transition for a gold arc of length 1 (§3.1,
"possible" = losing no other gold arc, footnote 2), then a non-projective
buffer transition for any gold arc it can build without loss (§4.1), then
the arc-eager oracle (gold LEFT-ARC, gold RIGHT-ARC, REDUCE, SHIFT).

Fallback.  With RIGHT-BUFFER-ARC and a non-projective buffer transition,
that policy misses some derivable non-projective trees: those that need an
RBA between words made adjacent by an earlier RBA or RNBA.  Gold 5 -> 1,
1 -> 3 and roots 2, 4, 5 (+rba+rnba): after RNBA 0 -> 2, 1 is in front of
3; the policy shifts 1 (RBA 1 -> 3 has length 2), which buries 0 until
5 -> 1 and loses 0 -> 4, while RBA 1 -> 3 keeps 1 in the buffer, in front
of 4, for RNBA 0 -> 4.  So when a zero-cost gold RBA longer than 1 is legal
and the policy's choice makes the gold tree underivable while the RBA
keeps it derivable, the oracle takes the RBA.  Derivability is decided by
following the policy that takes every zero-cost gold RBA at once, whatever
its length (`builds_gold`, O(n) steps): it rebuilds the gold tree from
every configuration that can still derive it (checked against exhaustive
search in tests/test_arc_eager_buffer.py, on every tree of up to 6 words),
and it is `can_build` for the variants with LNBA/RNBA.  On projective gold
trees costs are exact, so the policy never loses the tree and no check runs.
"""

from __future__ import annotations

import numpy as np

from arcwise.core.jit import njit
from arcwise.systems import arc_eager as ae
from arcwise.systems import state as st
from arcwise.systems.base import OracleKernels, SystemKernels, pack_gold
from arcwise.trees.projectivity import children, is_projective

GONE, STACK, BUFFER = 0, 1, 2

# Order in which the static oracle tries zero-cost actions (2012 paper policies).
STATIC_ORDER = np.array(
    [ae.LBA, ae.RBA, ae.LNBA, ae.RNBA, ae.LEFT_ARC, ae.RIGHT_ARC, ae.REDUCE, ae.SHIFT],
    dtype=np.int64,
)


def prepare(gold: np.ndarray) -> tuple:
    """(gold heads, dependents start, dependents, [is projective]): `children` of the gold tree."""
    gold = np.ascontiguousarray(gold, dtype=np.int32)
    start, deps = children(gold)
    return pack_gold(gold, start, deps, is_projective(gold))


@njit(cache=True)
def locate(state):
    """where[w] for every word: STACK, BUFFER or GONE (popped or removed)."""
    where = np.zeros(state[st.N] + 1, dtype=np.int8)
    stack = st.region(state, st.STACK)
    for k in range(state[st.STACK_LEN]):
        where[stack[k]] = STACK
    buffer = st.region(state, st.BUFFER)
    for k in range(state[st.BUFFER_LEN]):
        where[buffer[k]] = BUFFER
    return where


@njit(cache=True)
def reachable(state, where, gold, d):
    """Can the gold arc into d still be in the final tree (see module docstring)?"""
    g = gold[d]
    h = st.head_of(state, d)
    if h != -1:
        return h == g
    if where[d] == STACK:
        return g == 0 or where[g] == BUFFER
    return where[g] != GONE  # d in the buffer; where[0] is STACK


@njit(cache=True)
def arc_loss(state, prepared):
    """Number of words whose gold arc is unreachable."""
    gold = prepared[0]
    where = locate(state)
    lost = 0
    for d in range(1, state[st.N] + 1):
        if not reachable(state, where, gold, d):
            lost += 1
    return lost


@njit(cache=True)
def buried_by_root_words(state, where, prepared):
    """Fewest gold arcs lost to headless root words on the stack (non-projective gold only).

    A headless stack word whose gold head is 0 (Z) keeps its arc only by
    staying to the end, which buries the words below it: their gold arcs
    to and from the buffer are lost.  Keeping the Z words up to some height
    and giving up those above, the fewest lost is a minimum over heights.
    On projective gold trees no such arc exists (it would cross 0 -> Z).
    """
    gold, start, deps = prepared[0], prepared[1], prepared[2]
    stack = st.region(state, st.STACK)
    length = state[st.STACK_LEN]
    z_count = 0
    for k in range(2, length):
        if st.head_of(state, stack[k]) == -1 and gold[stack[k]] == 0:
            z_count += 1
    if z_count == 0:
        return 0
    best = z_count  # give up every Z
    buried = 0  # arcs needing words below the current height
    kept = 0
    for k in range(1, length):
        w = stack[k]
        if k >= 2 and st.head_of(state, w) == -1 and gold[w] == 0:
            kept += 1
            if buried + z_count - kept < best:
                best = buried + z_count - kept
        if st.head_of(state, w) == -1 and where[gold[w]] == BUFFER:
            buried += 1
        buried += buffer_dependents(where, prepared, w)
    return best


@njit(cache=True)
def loss(state, prepared, bound):
    lost = arc_loss(state, prepared)
    if not prepared[3][0]:
        lost += buried_by_root_words(state, locate(state), prepared)
    return lost


# --- what each elementary move makes unreachable ---------------------------


@njit(cache=True)
def attach_cost(state, where, gold, d, h):
    """Giving headless d the head h loses d's gold arc if it was reachable and h is not it."""
    return 1 if gold[d] != h and reachable(state, where, gold, d) else 0


@njit(cache=True)
def buffer_dependents(where, prepared, w):
    """Gold dependents of w in the buffer: lost once w leaves the stack or buffer."""
    gold, start, deps = prepared[0], prepared[1], prepared[2]
    count = 0
    for k in range(start[w], start[w + 1]):
        if where[deps[k]] == BUFFER:
            count += 1
    return count


@njit(cache=True)
def headless_stack_dependents(state, where, prepared, w):
    """Gold dependents of w headless on the stack: lost once w leaves the buffer."""
    gold, start, deps = prepared[0], prepared[1], prepared[2]
    count = 0
    for k in range(start[w], start[w + 1]):
        d = deps[k]
        if where[d] == STACK and st.head_of(state, d) == -1:
            count += 1
    return count


@njit(cache=True)
def arc_costs(state, prepared, where, mask, out):
    """out[a] = gold arcs that legal action a makes unreachable (= its cost)."""
    gold = prepared[0]
    s, b, b1 = ae.top(state)
    if mask[ae.SHIFT]:  # b becomes a headless stack word
        g = gold[b]
        out[ae.SHIFT] = (1 if g != 0 and where[g] == STACK else 0) + headless_stack_dependents(
            state, where, prepared, b
        )
    if mask[ae.LEFT_ARC]:
        out[ae.LEFT_ARC] = attach_cost(state, where, gold, s, b) + buffer_dependents(
            where, prepared, s
        )
    if mask[ae.RIGHT_ARC]:
        out[ae.RIGHT_ARC] = attach_cost(state, where, gold, b, s) + headless_stack_dependents(
            state, where, prepared, b
        )
    if mask[ae.REDUCE]:
        out[ae.REDUCE] = buffer_dependents(where, prepared, s)
    if mask[ae.LBA]:
        out[ae.LBA] = (
            attach_cost(state, where, gold, b, b1)
            + buffer_dependents(where, prepared, b)
            + headless_stack_dependents(state, where, prepared, b)
        )
    if mask[ae.RBA]:
        out[ae.RBA] = (
            attach_cost(state, where, gold, b1, b)
            + buffer_dependents(where, prepared, b1)
            + headless_stack_dependents(state, where, prepared, b1)
        )
    if mask[ae.LNBA]:
        out[ae.LNBA] = attach_cost(state, where, gold, s, b1) + buffer_dependents(
            where, prepared, s
        )
    if mask[ae.RNBA]:
        out[ae.RNBA] = (
            attach_cost(state, where, gold, b1, s)
            + buffer_dependents(where, prepared, b1)
            + headless_stack_dependents(state, where, prepared, b1)
        )


@njit(cache=True)
def loss_differences(state, prepared, mask, out):
    """out[a] = loss(apply(c, a)) - loss(c) for every legal a, by applying each."""
    base = loss(state, prepared, 0)
    for a in range(len(mask)):
        if mask[a]:
            after = state.copy()
            ae.apply(after, a, -1)
            out[a] = loss(after, prepared, 0) - base


@njit(cache=True)
def costs(state, prepared, bound, out):
    """Arc costs on projective gold trees; loss differences otherwise."""
    mask = np.zeros(len(ae.ACTIONS), dtype=np.bool_)
    ae.legal(state, mask)
    if prepared[3][0]:
        arc_costs(state, prepared, locate(state), mask, out)
    else:
        loss_differences(state, prepared, mask, out)


@njit(cache=True)
def policy_allows(state, gold, action):
    """May the static oracle take `action` here?  Arc transitions build gold arcs only,
    and the projective buffer transitions gold arcs of length 1 (2012 paper, §3.1)."""
    s, b, b1 = ae.top(state)
    if action == ae.LEFT_ARC:
        return gold[s] == b
    if action == ae.RIGHT_ARC:
        return gold[b] == s
    if action == ae.LBA:
        return gold[b] == b1 and b1 == b + 1
    if action == ae.RBA:
        return gold[b1] == b and b1 == b + 1
    if action == ae.LNBA:  # any gold arc (§4.1)
        return gold[s] == b1
    if action == ae.RNBA:
        return gold[b1] == s
    return True


@njit(cache=True)
def first_free(state, prepared, mask, out, order):
    """The first action of `order` the policy allows at zero cost, else the cheapest legal one."""
    gold = prepared[0]
    for a in order:
        if mask[a] and out[a] == 0 and policy_allows(state, gold, a):
            return a
    best, best_cost = -1, 1 << 30
    for a in order:
        if mask[a] and out[a] < best_cost:
            best, best_cost = a, out[a]
    return best


@njit(cache=True)
def long_right_buffer_arc(state, gold, mask, out):
    """Is a zero-cost gold RIGHT-BUFFER-ARC longer than 1 legal (the paper's policy skips it)?"""
    s, b, b1 = ae.top(state)
    return mask[ae.RBA] and out[ae.RBA] == 0 and gold[b1] == b and b1 != b + 1


@njit(cache=True)
def legal_costs(state, prepared):
    """(legal mask, costs) of state."""
    mask = np.zeros(len(ae.ACTIONS), dtype=np.bool_)
    ae.legal(state, mask)
    out = np.zeros(len(ae.ACTIONS), dtype=np.int64)
    costs(state, prepared, 0, out)
    return mask, out


@njit(cache=True)
def eager_right_buffer_arcs(state, prepared):
    """The paper's choice, except that a zero-cost gold RBA is taken at any length."""
    mask, out = legal_costs(state, prepared)
    if long_right_buffer_arc(state, prepared[0], mask, out):
        return ae.RBA
    return first_free(state, prepared, mask, out, STATIC_ORDER)


@njit(cache=True)
def builds_gold(state, prepared):
    """Can the gold tree still be derived from `state`?  Follows `eager_right_buffer_arcs`
    to the end (modifying `state`), which rebuilds it whenever it can (module docstring)."""
    gold = prepared[0]
    for _ in range(2 * state[st.N] + 1):  # every transition consumes a buffer word or pops
        if ae.is_terminal(state):
            break
        ae.apply(state, eager_right_buffer_arcs(state, prepared), -1)
    for d in range(1, state[st.N] + 1):
        h = st.head_of(state, d)
        if (h if h != -1 else 0) != gold[d]:
            return False
    return ae.is_terminal(state)


@njit(cache=True)
def builds_gold_after(state, prepared, action):
    """Can the gold tree still be derived after `action`?"""
    after = state.copy()
    ae.apply(after, action, -1)
    return builds_gold(after, prepared)


@njit(cache=True)
def static(state, prepared):
    """The first zero-cost action in STATIC_ORDER that the paper's policy allows, or a
    longer RIGHT-BUFFER-ARC when only that keeps the gold tree derivable (module docstring)."""
    mask, out = legal_costs(state, prepared)
    action = first_free(state, prepared, mask, out, STATIC_ORDER)
    if (
        not prepared[3][0]
        and action != ae.RBA
        and long_right_buffer_arc(state, prepared[0], mask, out)
        and not builds_gold_after(state, prepared, action)
        and builds_gold_after(state, prepared, ae.RBA)
    ):
        return ae.RBA
    return action


def make(kernels: SystemKernels) -> OracleKernels:
    """The oracle of an arc-eager variant; `exact` = exact on every tree the variant builds."""
    nonprojective = ae.LNBA in kernels.enabled or ae.RNBA in kernels.enabled
    return OracleKernels(
        prepare=prepare,
        static=static,
        loss=loss,
        can_build=can_build_for(kernels) if nonprojective else can_build,
        costs=costs,
        exact=not nonprojective,
    )


def can_build(gold: np.ndarray) -> bool:
    """arc-eager (with or without LBA/RBA) derives exactly the projective trees."""
    return bool(is_projective(np.asarray(gold, dtype=np.int32)))


def can_build_for(kernels: SystemKernels):
    """can_build of a variant with LNBA/RNBA: `builds_gold` from the initial configuration,
    which equals exhaustive derivability (module docstring)."""

    def can_build_nonprojective(gold: np.ndarray) -> bool:
        gold = np.ascontiguousarray(gold, dtype=np.int32)
        return bool(builds_gold(kernels.initial(len(gold) - 1), prepare(gold)))

    return can_build_nonprojective
