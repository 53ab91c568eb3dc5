"""The exact loss of a non-monotonic Covington configuration (2017 paper §5).

ℓ(c) by exhaustive search over transition sequences, pruned with bounds as
§5 describes: a configuration whose lower and upper bounds agree is settled
without search, and a branch whose lower bound reaches the best loss already
found is cut (depth-first branch and bound, children tried in order of their
lower bound, then of their upper bound).  The lower bound is ``|U|`` of
`arcwise.oracles.covington_nonmonotonic`, plus 1 where a gold root word that ``|U|``
holds detachable cannot be detached without another word ending wrong
(`root_penalty`); the upper bound is the
least loss of two achievable sequences, §4's witness (`witness_loss`, at most
pc-upper) and one that also detaches wrongly headed gold root words
(`detaching_loss`).  Those two refinements are the search's own, not the
paper's: without them the gold root words -- the one place where ``|U|`` and
the witness disagree most often on the configurations of training -- left
about one configuration in ten unresolved (issue #42, item 5).  Settled losses,
and the lower bounds learnt from cut branches, are memoised on the state
(labels and the previous action ignored), so a memo shared by the
configurations of one sentence is reused across them.

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
from arcwise.systems import covington
from arcwise.systems import covington_nonmonotonic as system
from arcwise.systems import state as st


@njit(cache=True)
def _hamming_loss(state, gold):
    """The words of the tree A would make (headless words on 0) whose head is not gold."""
    heads = st.region(state, st.HEADS)
    loss = 0
    for y in range(1, len(gold)):
        if max(heads[y], 0) != gold[y]:
            loss += 1
    return loss


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
    return _hamming_loss(built, gold)


@njit(cache=True)
def _free_to_rehead(state, first_state, i, j, d, head, rank, gold):
    """May d take `head` at the pair of this rank at no cost?  Its gold head is `head`, it
    is wrong already, or its gold arc's pair comes later in the sweep (rebuilt there).
    (first_state, i, j: the configuration the sequence starts from.)"""
    g = gold[d]
    if g == head or max(st.head_of(state, d), 0) != g:
        return True
    n = len(gold) - 1
    return in_sweep(first_state, i, j, g, d) and oracle.covington_order(g, d, n) > rank


@njit(cache=True)
def detaching_loss(state, gold):
    """The loss of a sequence that also detaches wrongly headed gold root words.

    A word y with gold head 0 and a (wrong) head in A is made headless again
    only by a cycle-breaking deletion: an arc y -> d built while d dominates y
    (`root_detachable`; with +root also once the pair (0, y) is past).  §4's
    witness never aims at one, so it counts such a y lost.  This sequence goes
    through the pairs {a, b} still in the sweep in Covington order and builds at
    each at most one arc: the pair's gold arc where its dependent lacks it; else
    y -> d for a root word y of the pair whose other word d dominates it, where
    re-heading d costs nothing (`_free_to_rehead`); else, to prepare that, an arc
    h -> d between the pair's words where d dominates such a y (or is y) and may
    take h at no cost, so that h dominates y, when h may still detach y (the
    pair {y, h} is still to come) or take a head itself at no cost later.
    Every arc transition is legal at every pair, so its loss is achievable: an
    upper bound on ℓ(c), which the search takes with the witness's.
    """
    i, j = focus_positions(state)
    n = len(gold) - 1
    heads = st.region(state, st.HEADS)
    roots = np.zeros(n + 1, dtype=np.bool_)  # gold root words with a head in A
    for y in range(1, n + 1):
        roots[y] = gold[y] == 0 and heads[y] > 0
    built = state.copy()
    if not roots.any() or j > n:
        return _hamming_loss(built, gold)
    heads = st.region(built, st.HEADS)
    first = covington.first_word(state)
    for b in range(j, n + 1):
        for a in range(i if b == j else b - 1, first - 1, -1):
            if a == 0:  # +root: only the gold root arc 0 -> b
                if gold[b] == 0 and heads[b] > 0:
                    system.attach(built, 0, b, -1)
                continue
            rank = oracle.covington_order(a, b, n)
            if gold[b] == a and heads[b] != a:
                system.attach(built, a, b, -1)
                continue
            if gold[a] == b and heads[a] != b:
                system.attach(built, b, a, -1)
                continue
            done = False
            for y, d in ((a, b), (b, a)):  # detach y by y -> d
                if roots[y] and heads[y] > 0 and st.reaches(built, d, y) \
                        and _free_to_rehead(built, state, i, j, d, y, rank, gold):
                    system.attach(built, y, d, -1)
                    done = True
                    break
            if done:
                continue
            for y in range(1, n + 1):  # prepare: h above d, d = y or an ancestor of y
                if not (roots[y] and heads[y] > 0):
                    continue
                for h, d in ((b, a), (a, b)):
                    if h == y or not st.reaches(built, d, y) or st.reaches(built, h, y) \
                            or st.reaches(built, d, h):
                        continue
                    if d != y and not _free_to_rehead(built, state, i, j, d, h, rank, gold):
                        continue
                    g = gold[h]
                    later = (in_sweep(state, i, j, y, h)
                             and oracle.covington_order(y, h, n) > rank) \
                        or max(heads[h], 0) != g or (
                        in_sweep(state, i, j, g, h) and oracle.covington_order(g, h, n) > rank)
                    if later:
                        system.attach(built, h, d, -1)
                        done = True
                        break
                if done:
                    break
    return _hamming_loss(built, gold)


@njit(cache=True)
def _may_head(state, i, j, u, v, rank):
    """Can u be v's head just before the pair of this rank: u -> v in A, or built at a pair
    {u, v} of the sweep before it?"""
    if st.head_of(state, v) == u:
        return True
    n = state[st.N]
    return in_sweep(state, i, j, u, v) and oracle.covington_order(u, v, n) < rank


@njit(cache=True)
def _may_be_wrong(state, i, j, v, rank, gold, lost):
    """May v hold a head other than its gold one at the pair of this rank at no cost?  v's
    gold arc is lost already, v is a gold root word (which may be detached later: not
    charged), or v's gold arc's pair comes after it in the sweep."""
    g = gold[v]
    if lost[v] or g == 0:
        return True
    n = state[st.N]
    return in_sweep(state, i, j, g, v) and oracle.covington_order(g, v, n) > rank


@njit(cache=True)
def _detachable_for_free(state, gold, lost, y):
    """A necessary condition for the headed gold root word y to end headless with no word
    outside `lost` wrong (relaxing the order of the arcs before the detaching one).

    The last arc that detaches y is some y -> d at a pair {y, d} still in the sweep, while
    d dominates y: a chain d -> ... -> y of arcs in A or built at earlier pairs.  d takes
    the head y there, and every word of the chain but y keeps its chain head up to then,
    so each of them either has its gold head on the chain or may be wrong then
    (`_may_be_wrong`).  False when no d has such a chain.
    """
    i, j = focus_positions(state)
    n = len(gold) - 1
    seen = np.zeros(n + 1, dtype=np.bool_)
    stack = np.empty(n + 1, dtype=np.int64)
    for d in range(1, n + 1):
        if d == y or not in_sweep(state, i, j, y, d):
            continue
        rank = oracle.covington_order(y, d, n)
        if gold[d] != y and not _may_be_wrong(state, i, j, d, rank, gold, lost):
            continue
        seen[:] = False  # words that may dominate y then, found going up from y
        seen[y] = True
        stack[0] = y
        top = 1
        while top > 0:
            top -= 1
            v = stack[top]
            free = v == y or _may_be_wrong(state, i, j, v, rank, gold, lost)
            for u in range(1, n + 1):
                if seen[u] or u == v or not (free or u == gold[v]):
                    continue
                if _may_head(state, i, j, u, v, rank):
                    if u == d:
                        return True
                    seen[u] = True
                    stack[top] = u
                    top += 1
    return False


@njit(cache=True)
def root_penalty(state, gold):
    """1 when a gold root word that the lower bound holds detachable (`root_detachable`)
    cannot be detached without another word ending wrong (`_detachable_for_free`), else
    0: the lower bound plus this is still a lower bound on ℓ(c), a tighter one."""
    i, j = focus_positions(state)
    n = len(gold) - 1
    heads = st.region(state, st.HEADS)
    lost = np.zeros(n + 1, dtype=np.bool_)
    candidates = np.zeros(n + 1, dtype=np.bool_)
    for y in range(1, n + 1):
        x = gold[y]
        if heads[y] == x or (x == 0 and heads[y] == -1) or in_sweep(state, i, j, x, y):
            continue
        if x == 0 and oracle.root_detachable(state, i, j, y):
            candidates[y] = True
        else:
            lost[y] = True
    for y in range(1, n + 1):
        if candidates[y] and not _detachable_for_free(state, gold, lost, y):
            return 1
    return 0


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
    st.region(state, st.LABELS)[:] = st.NO_LABEL  # labels change no loss: one memo key
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
    for k in range(len(state)):
        v = state[k] if k != st.PREVIOUS else -1  # the previous action changes no loss
        first = (first * 1_000_003 + np.int64(v) + 1) % 2_147_483_647
        second = (second * 999_983 + np.int64(v) + 7) % 2_147_483_629
    return (first << 31) | second


@njit(cache=True)
def _search(state, prepared, budget, exact, at_least, expanded, max_states):
    """ℓ(state) if below `budget`, else a proven lower bound >= budget; ABORTED past max_states.

    Branch and bound: ℓ lies between the lower bound and the least loss of the
    witness and the detaching sequence (both achievable); a child is searched
    only while its lower bound is below the best loss known, children in order of
    their lower bound, then of their upper bound, then of action id.
    """
    key = state_key(state)
    if key in exact:
        return exact[key]
    gold = prepared[0]
    low = oracle.loss(state, prepared, oracle.LOWER)
    high = min(witness_loss(state, gold), detaching_loss(state, gold))
    if low < high:
        low += root_penalty(state, gold)
    if key in at_least:
        low = max(low, at_least[key])
    if low >= budget:
        return low
    if low == high:
        exact[key] = low
        return low
    expanded[0] += 1
    if expanded[0] > max_states:
        return ABORTED
    n_actions = len(system.ACTIONS)
    mask = np.zeros(n_actions, dtype=np.bool_)
    system.legal(state, mask)
    children = np.empty((n_actions, len(state)), dtype=np.int32)
    order = np.empty(n_actions, dtype=np.int64)
    width = n_actions * (len(gold) + 1)
    count = 0
    for a in range(n_actions):
        if mask[a]:
            children[a] = state
            system.apply(children[a], a, -1)
            child_low = oracle.loss(children[a], prepared, oracle.LOWER)
            child_high = min(witness_loss(children[a], gold), detaching_loss(children[a], gold))
            order[count] = child_low * width + child_high * n_actions + a
            count += 1
    order = np.sort(order[:count])
    # ℓ <= high is achievable: below the budget, look only for something better
    best = min(budget, high)
    for k in range(count):
        child_low, a = order[k] // width, order[k] % n_actions
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
