"""The choice of k: covington-nl's arc transitions scored candidate by candidate, by the
perceptron (its fused loops) and by a stepped scorer (the BiLSTM).

Non-local Covington (`arcwise.systems.covington_nonlocal`; Fernández-González &
Gómez-Rodríguez 2018) links the buffer front j with any word i_k of λ1, so its action ids
grow with the sentence (2n + 1 of them).  The model's classes are the system's kinds ×
labels (shift, left-arc(l), right-arc(l): `arcwise.learn.perceptron.ClassSet` of the
kinds, W_T with 3 columns, W_L with 2 × labels), and a decision is a class with its k.
Each candidate is scored from features of its own::

    shift                      W_T[φ(c), shift]
    left-arc-1, right-arc-1    W_T[φ(c), kind]      φ: the system's table, L0 = i_1
    left-arc-k, right-arc-k    W_T[ψ_k(c), kind]    ψ_k: the candidate table, L0 = i_k, k >= 2

φ(c) is Covington's feature vector of the configuration (covington.txt), so shift and the
arcs with i_1 are scored as Covington scores them.  ψ_k(c) is the candidate table
(features/templates/covington_nonlocal.txt) on the configuration Covington reaches after
k - 1 No-Arcs (FOCUS = i_k): pair features of i_k and j, as arc-swift (Qi & Manning 2017)
scores each stack word s_k with the buffer front.  The best legal decision wins (ties: the
lowest action id); an arc's label is the labeler's best from φ's label features at its
candidate (for k >= 2 Covington's features with FOCUS = i_k, extracted for the chosen arc).

Cost of a transition: one extraction of the system's table, the candidate table's
templates for each legal candidate with k >= 2 that is new to j, and one more extraction
when the chosen arc has k >= 2.  The candidate table reads nothing that changes while j is
the buffer front (`arcwise.features.templates.compile_candidate_table`: no scan of the
sentence, arcs of i_k and the words left of it only), so ψ of a word is computed once per
j and kept, with its scores while parsing: each pair (i_k, j) is hashed once, as Covington
extracts each of its configurations once.  Every legal candidate is scored: no k is cut
off, so the parser derives every tree the system does.

Learning (Collins 2002) with a vector per candidate: W_T[., gold kind] += the gold
candidate's features, W_T[., predicted kind] -= the predicted candidate's
(`arcwise.learn.perceptron.update_transitions`); the labeler learns the gold label at the
gold candidate.  The oracles answer per action id, with `arcwise.transition.train`'s rules:
static, the oracle's action with its dependent's gold label; dynamic, the prediction if it
is zero-cost (an arc with its dependent's gold label), else the best-scoring zero-cost
action.

The BiLSTM (Kiperwasser & Goldberg 2016, which the 2018 paper trains;
`arcwise.transition.scorers.bilstm`) scores the same candidates from the words of the same
views, through the batched steps of any stepped scorer (`arcwise.transition.stepped`).  A
configuration gets a row of positions (the words its feature addresses name) for itself and
one per legal candidate k >= 2, that of the configuration with FOCUS = i_k
(`candidate_rows`); the MLPs score each row's classes, kinds × labels (transition MLP:
shift, left-arc, right-arc; label MLP: 2 × labels), and a decision (action id, label) takes
the score of its kind and label at its k's row::

    shift(.)                       row of c
    left-arc-1(l), right-arc-1(l)  row of c,              T[kind] + L[kind, l]
    left-arc-k(l), right-arc-k(l)  row of c with FOCUS = i_k

The batched steps choose among these decisions as among a fixed system's classes
(`Decisions`: a class set over the action ids of the batch's longest sentence), so the
oracles, exploration and hinge loss are the other systems' (`CandidateRows.spread` gives
each configuration its decision scores).  Every legal candidate gets its row: no k is cut
off.  The hinge's gradient reaches the best right and best wrong decisions only, so `learn`
keeps just their two rows per configuration, not every candidate's.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import literally

from arcwise.core import arrays
from arcwise.core.jit import njit
from arcwise.dispatch import oracles, systems
from arcwise.features.addresses import N_BASES, base_positions, focus_words, inner_positions
from arcwise.features.extract import SUMMARY, extract, extract_at
from arcwise.learn import perceptron as pc
from arcwise.systems import covington_nonlocal as nl
from arcwise.systems import state as st
from arcwise.systems.base import gold_of
from arcwise.transition.fused import wrong_heads
from arcwise.transition.kernels import (
    final_tree,
    mark_built,
    max_steps,
    parse_in_threads,
    rows,
    traced_apply,
)
from arcwise.transition.steps import arc_dependent, position_row, widest


class Work(NamedTuple):
    """The arrays a sentence's decisions fill (`work_arrays`)."""

    mask: np.ndarray  # bool [action ids]: the legal actions
    scores: np.ndarray  # float64 [action ids]: their scores, -inf for the others
    costs: np.ndarray  # int64 [action ids]: the dynamic oracle's
    zero_cost: np.ndarray  # bool [action ids]
    features: np.ndarray  # uint64 [templates]: φ(c)
    label_features: np.ndarray  # uint64 [label templates]: φ(c)'s
    candidate_features: np.ndarray  # uint64 [n + 1, candidate templates]: row x = ψ of i_k = x
    candidate_sums: np.ndarray  # float64 [n + 1, 2]: row x = the arc columns summed over it
    computed_for: np.ndarray  # int64 [n + 1]: the j that row x was computed with (-1: none)
    candidate: np.ndarray  # uint64 [candidate templates]: one ψ, as extracted or summed
    pair: np.ndarray  # float64 [2]: its sums
    view_features: np.ndarray  # φ at the predicted candidate (k >= 2)
    view_label_features: np.ndarray
    gold_features: np.ndarray  # φ at the gold candidate (k >= 2)
    gold_label_features: np.ndarray
    positions: np.ndarray  # int64 [N_BASES]: a candidate's base positions
    at: np.ndarray  # the candidate table's work arrays (`arcwise.features.extract.extract_at`)
    summary: np.ndarray
    label_sets: np.ndarray
    values: np.ndarray
    no_labels: np.ndarray  # uint64 [0]: the candidate table feeds no labeler
    sums: np.ndarray  # float64 [3]: W_T's columns summed over φ


@njit(cache=True)
def work_arrays(system_id, program, candidates, n):
    """`Work` for an n-word sentence, the system's table `program` and the candidate
    table `candidates` (each an `arcwise.features.FeatureProgram`)."""
    ids = systems.n_actions(system_id, n)
    templates = program.template_values.shape[0]
    label_templates = program.label_templates.shape[0]
    addresses = candidates.address_base.shape[0]
    return Work(
        arrays.empty(ids, dtype=np.bool_), arrays.empty(ids, dtype=np.float64),
        arrays.empty(ids, dtype=np.int64), arrays.empty(ids, dtype=np.bool_),
        arrays.empty(templates, dtype=np.uint64), arrays.empty(label_templates, dtype=np.uint64),
        arrays.empty((n + 1, candidates.template_values.shape[0]), dtype=np.uint64),
        arrays.empty((n + 1, 2), dtype=np.float64), arrays.full(n + 1, -1, dtype=np.int64),
        arrays.empty(candidates.template_values.shape[0], dtype=np.uint64),
        arrays.empty(2, dtype=np.float64),
        arrays.empty(templates, dtype=np.uint64), arrays.empty(label_templates, dtype=np.uint64),
        arrays.empty(templates, dtype=np.uint64), arrays.empty(label_templates, dtype=np.uint64),
        arrays.empty(N_BASES, dtype=np.int64), arrays.empty(addresses, dtype=np.int64),
        arrays.empty((addresses, SUMMARY), dtype=np.int64),
        arrays.empty((addresses, 2), dtype=np.uint64),
        arrays.empty(candidates.value_address.shape[0], dtype=np.uint64),
        arrays.empty(0, dtype=np.uint64), arrays.empty(3, dtype=np.float64),
    )


@njit(cache=True, inline="always")  # per configuration: a call with its many arrays costs
def score(system_id, state, program, candidates, weights, words, work, learning):
    """work.scores[a] = the score of each action id a that work.mask allows (-inf for the
    others); work.features, work.label_features get φ(c), work.candidate_features[x] ψ of
    each legal candidate i_k = x, k >= 2.

    ψ of x does not change while j is the buffer front (`compile_candidate_table`), so
    it is computed once per (x, j) and kept (work.computed_for), with its sums while
    parsing; learning (the weights change between transitions) sums it again each time.
    The new ψ are all extracted before any sum, W_T's rows of each prefetched
    (`arcwise.learn.perceptron.prefetch_rows`): they load while the next is hashed.
    """
    # the arrays out of the tuple once: each use of a tuple's array counts a reference
    mask, scores, sums = work.mask, work.scores, work.sums
    kept, kept_sums, computed_for = work.candidate_features, work.candidate_sums, work.computed_for
    features, pair, positions = work.candidate, work.pair, work.positions
    scores[:] = -np.inf
    scale = weights.transition_scale
    extract(system_id, state, program, words, work.features, work.label_features)
    # W_T's rows of φ and of each new ψ loading while the next ψ is extracted
    pc.prefetch_rows(weights.transition, work.features, nl.SHIFT, nl.RIGHT_ARC + 1)
    positioned = False  # positions holds this configuration's bases (R0..R2 for every x)
    i, j = state[st.FOCUS], st.buffer_get(state, 0)
    first = nl.first_word(state)
    for x in range(i - 1, first - 1, -1):  # x = i_k, k >= 2
        k = i - x + 1
        if computed_for[x] == j or not (mask[nl.left_arc(k)] or mask[nl.right_arc(k)]):
            continue
        if not positioned:
            base_positions(system_id, state, positions)
            positioned = True
        nl.candidate_positions(state, x, positions)
        focus, front = focus_words(system_id, positions)
        inner_positions(focus, front, positions)
        extract_at(system_id, state, positions, candidates, words, work.at, work.summary,
                   work.label_sets, work.values, features, work.no_labels)
        for t in range(features.shape[0]):
            kept[x, t] = features[t]
        pc.prefetch_rows(weights.transition, features, nl.LEFT_ARC, 2)
    pc.sum_rows(weights.transition, work.features, nl.SHIFT, sums)
    for a in range(nl.RIGHT_ARC + 1):
        if mask[a]:
            scores[a] = sums[a] * scale
    for x in range(i - 1, first - 1, -1):
        k = i - x + 1
        left, right = nl.left_arc(k), nl.right_arc(k)
        if not (mask[left] or mask[right]):
            continue
        if computed_for[x] != j or learning:  # its ψ new to j (just extracted), or learning
            for t in range(features.shape[0]):
                features[t] = kept[x, t]
            pc.sum_rows(weights.transition, features, nl.LEFT_ARC, pair)
            kept_sums[x, 0], kept_sums[x, 1] = pair[0], pair[1]
            computed_for[x] = j
        if mask[left]:
            scores[left] = kept_sums[x, 0] * scale
        if mask[right]:
            scores[right] = kept_sums[x, 1] * scale


@njit(cache=True, inline="always")
def label_features_at(system_id, state, program, words, action, label_features,
                      view_features, view_label_features):
    """The label features of arc `action` at its candidate: label_features (φ(c)'s) for
    k = 1, else those of Covington's configuration after k - 1 No-Arcs, extracted into the
    view arrays."""
    if nl.parameter(action) == 1:
        return label_features
    focus = state[st.FOCUS]
    state[st.FOCUS] = nl.attached(state, action)
    extract(system_id, state, program, words, view_features, view_label_features)
    state[st.FOCUS] = focus
    return view_label_features


@njit(cache=True, inline="always")
def best_decision(system_id, state, program, candidates, weights, words, work, learning):
    """The model's (action id, label id) in state ((-1, -1) if nothing is legal; the label
    -1 for shift); fills work.mask with the legal actions and work.scores (`score`)."""
    work.mask[:] = False
    systems.legal(system_id, state, work.mask)
    score(system_id, state, program, candidates, weights, words, work, learning)
    action = pc.argmax(work.scores, work.mask)
    if action <= nl.SHIFT:
        return action, -1
    features = label_features_at(system_id, state, program, words, action,
                                 work.label_features, work.view_features,
                                 work.view_label_features)
    return action, pc.best_label(weights, features, nl.kind(action) - nl.LEFT_ARC)


@njit(cache=True)
def gold_label_of(system_id, state, action, gold_label):
    """The gold label of the word whose head arc transition `action` sets, -1 if it sets
    none (`arcwise.transition.steps.arc_dependent`)."""
    d = arc_dependent(system_id, state, action)
    return gold_label[d] if d > 0 else -1


@njit(cache=True, inline="always")
def oracle_decision(system_id, variant, bound, dynamic, state, gold, gold_label, work,
                    predicted, predicted_label):
    """The (action, label) to learn given the model's; (-1, -1) when the oracle has none
    (a gold tree the static oracle cannot build).  An arc that sets no head (covington-nl-nm
    making an arc that is there) takes any label: the predicted one, if it is that arc."""
    if dynamic:
        costs, zero_cost, mask = work.costs, work.zero_cost, work.mask
        costs[:] = 0
        oracles.costs(system_id, variant, state, gold, bound, costs)
        least = np.iinfo(np.int64).max
        for a in range(mask.shape[0]):
            if mask[a] and costs[a] < least:
                least = costs[a]
        for a in range(mask.shape[0]):
            zero_cost[a] = mask[a] and costs[a] == least
        if zero_cost[predicted]:
            wanted = gold_label_of(system_id, state, predicted, gold_label)
            if wanted < 0 or wanted == predicted_label:
                return predicted, predicted_label
        target = pc.argmax(work.scores, zero_cost)
        if target < 0:
            return -1, -1
    else:
        target = oracles.static(system_id, variant, state, gold)
        if target < 0 or target >= work.mask.shape[0] or not work.mask[target]:
            return -1, -1
    if target == nl.SHIFT:
        return target, -1
    wanted = gold_label_of(system_id, state, target, gold_label)
    if wanted >= 0:
        return target, wanted
    return target, predicted_label if target == predicted else 0


@njit(cache=True, inline="always")
def transition_features(state, work, action):
    """The features that score `action`: φ(c) for shift and k = 1, else ψ_k(c)."""
    if action <= nl.RIGHT_ARC:
        return work.features
    return work.candidate_features[nl.attached(state, action)]


@njit(cache=True, inline="always")
def learn(system_id, state, program, weights, totals, words, work, target, target_label,
          predicted, predicted_label, step):
    """The perceptron's updates toward decision (target, target_label) from the model's
    (predicted, predicted_label), which differ."""
    if target != predicted:
        pc.update_transitions(weights, totals, transition_features(state, work, target),
                              nl.kind(target), transition_features(state, work, predicted),
                              nl.kind(predicted), step)
    # a target that sets no head (covington-nl-nm making an arc that is there) has no label
    if target == nl.SHIFT or arc_dependent(system_id, state, target) <= 0:
        return
    arc = nl.kind(target) - nl.LEFT_ARC
    features = label_features_at(system_id, state, program, words, target,
                                 work.label_features, work.gold_features,
                                 work.gold_label_features)
    own = predicted_label if target == predicted else pc.best_label(weights, features, arc)
    n_labels = weights.n_labels
    pc.update_labels(weights, totals, features, arc * n_labels + target_label,
                     arc * n_labels + own, step)


@njit(cache=True)
def train_sentence(system_id, options, variant, bound, dynamic, explore, explore_p, program,
                   candidates, weights, totals, step, words, gold_label, gold):
    """Train on one sentence (as `arcwise.transition.fused.train_sentence`); returns (step,
    configurations, updates, words with a wrong head)."""
    n = words.shape[0] - 1
    state = systems.initial(system_id, n, options)
    work = work_arrays(system_id, program, candidates, n)
    configurations = 0
    updates = 0
    limit = max_steps(n)
    while not systems.is_terminal(system_id, state) and configurations < limit:
        predicted, predicted_label = best_decision(system_id, state, program, candidates,
                                                   weights, words, work, True)
        if predicted < 0:
            break
        target, target_label = oracle_decision(system_id, variant, bound, dynamic, state,
                                               gold, gold_label, work, predicted,
                                               predicted_label)
        if target < 0:
            break
        if target != predicted or target_label != predicted_label:
            learn(system_id, state, program, weights, totals, words, work, target,
                  target_label, predicted, predicted_label, step)
            updates += 1
        step += 1
        configurations += 1
        if explore and np.random.random() < explore_p:
            target, target_label = predicted, predicted_label
        systems.apply(system_id, state, target, target_label)
    return step, configurations, updates, wrong_heads(state, gold[0])


@njit(cache=True)
def train_epoch(system_id, options, variant, bound, dynamic, explore, explore_p, seed, program,
                candidates, weights, totals, step, order, offsets, words, gold_label, gold_flat,
                gold_offsets):
    """One pass over the sentences in `order` (as `arcwise.transition.fused.train_epoch`);
    returns (step, configurations, updates, wrong)."""
    np.random.seed(seed)
    configurations = 0
    updates = 0
    wrong = 0
    for i in range(order.shape[0]):
        k = order[i]
        a, b = offsets[k], offsets[k + 1]
        step, c, u, w = train_sentence(
            system_id, options, variant, bound, dynamic, explore, explore_p, program,
            candidates, weights, totals, step, words[a:b], gold_label[a:b],
            gold_of(gold_flat, gold_offsets, k),
        )
        configurations += c
        updates += u
        wrong += w
    return step, configurations, updates, wrong


@njit(cache=True, literal=("system_id",))
def parse_sentence(system_id, options, program, candidates, weights, root_label, words,
                   heads_out, labels_out, made_out, built_by, reheadings):
    """Parse one sentence greedily (as `arcwise.transition.kernels.parse_sentence`, whose
    outputs and trace arrays these are); returns the count of re-headings."""
    n = words.shape[0] - 1
    state = systems.initial(system_id, n, options)
    work = work_arrays(system_id, program, candidates, n)
    if built_by is not None:
        built_by[:] = -1
    replaced = np.int64(0)
    limit = max_steps(n)
    steps = 0
    while not systems.is_terminal(system_id, state) and steps < limit:
        action, label = best_decision(system_id, state, program, candidates, weights, words,
                                      work, False)
        if action < 0:
            break
        if built_by is None:
            systems.apply(system_id, state, action, label)
        else:
            replaced = traced_apply(system_id, state, action, label, built_by, reheadings,
                                    replaced)
        steps += 1
    final_tree(state, root_label, heads_out, labels_out)
    mark_built(state, heads_out, made_out)
    return replaced


@njit(cache=True, nogil=True)
def parse_range(system_id, options, program, candidates, weights, root_label, offsets, words,
                first, last, heads, labels, made, built_by, reheadings, room, counts):
    """`parse_sentence` on sentences first .. last - 1 of `parse_batch`'s batch (as
    `arcwise.transition.kernels.parse_range`), compiled once per system."""
    literally(system_id)
    for k in range(first, last):
        a, b = offsets[k], offsets[k + 1]
        counts[k] = parse_sentence(
            system_id, options, program, candidates, weights, root_label, words[a:b],
            heads[a:b], labels[a:b], made[a:b], rows(built_by, a, b),
            rows(reheadings, room[k], room[k + 1]),
        )


def parse_batch(system_id, options, program, candidates, weights, root_label, offsets, words,
                trace=False):
    """Parse every sentence of a batch (`arcwise.transition.kernels.parse_batch`, whose
    outputs these are), with the system's table `program` and the candidate table
    `candidates`."""
    return parse_in_threads(offsets, words, trace, lambda first, last, *out: parse_range(
        system_id, options, program, candidates, weights, root_label, offsets, words, first,
        last, *out))


# --- the stepped path's candidates (a neural scorer's: `arcwise.transition.stepped`) ------


LAYOUT_VERSION = 1  # of `layout`: what a model file records of the candidate rows


def layout(kernels) -> dict | None:
    """How a stepped scorer's decisions come from its rows (`CandidateRows`) for a
    parameterised system, as a model file records it (None for the other systems): the
    plain actions and k = 1 from the configuration's row, each k >= 2 from the row of the
    configuration with FOCUS = i_k."""
    p = kernels.parameterised
    if p is None:
        return None
    return {"version": LAYOUT_VERSION, "plain": list(p.plain), "families": list(p.families),
            "row_of_k": "FOCUS = i_k"}


class Decisions:
    """The decisions of a parameterised system's configurations of at most n words: a
    `arcwise.learn.perceptron.ClassSet` over its action ids (shift, then (left-arc-1, l),
    (right-arc-1, l), (left-arc-2, l) ...), which the batched steps choose among as they
    choose among a fixed system's classes, and where each comes from: a model class (a
    kind with a label: `ClassSet.for_system`) scored at the row of a candidate k.

    column[k, c]: the decision of model class c scored at candidate k's row (-1: none,
    shift at k >= 2); parameter[d], kind_class[d]: decision d's k (1 for shift) and model
    class.
    """

    def __init__(self, kernels, classes: pc.ClassSet, n: int):
        p = kernels.parameterised
        ids = kernels.action_count(n)
        self.classes = pc.ClassSet([kernels.action_name(a) for a in range(ids)],
                                   [kernels.takes_label(a) for a in range(ids)], range(ids),
                                   classes.labels)
        plain, families = len(p.plain), len(p.families)
        ks = np.arange(1, (ids - plain) // families + 1)
        self.column = np.full((len(ks) + 1, classes.n_classes), -1, dtype=np.int64)
        for c, (kind, label) in enumerate(zip(classes.transition, classes.label)):
            if kind < plain:
                self.column[1, c] = self.classes.first_class[kind]
            else:  # family f's action with parameter k, labeled
                actions = plain + (ks - 1) * families + (kind - plain)
                self.column[1:, c] = self.classes.first_class[actions] + label
        scored = self.column >= 0
        self.parameter = np.ones(self.classes.n_classes, dtype=np.int64)
        self.kind_class = np.full(self.classes.n_classes, -1, dtype=np.int64)
        self.parameter[self.column[scored]] = np.nonzero(scored)[0]
        self.kind_class[self.column[scored]] = np.nonzero(scored)[1]

    def rows(self, system_id, states, rows, addresses, word_offsets) -> CandidateRows:
        """The `CandidateRows` of configurations rows of a state matrix for a scorer that
        reads `addresses` (`compile_addresses`' program and wanted)."""
        program, wanted = addresses
        widest = int(states[:, st.N].max()) if len(states) else 0
        positions = np.empty((len(rows) * (widest + 1), len(wanted)), dtype=np.int64)
        parameter = np.empty(len(positions), dtype=np.int64)
        first = np.zeros(len(rows) + 1, dtype=np.int64)
        count = candidate_rows(system_id, states, rows, program, wanted, word_offsets,
                               positions, parameter, first)
        return CandidateRows(positions[:count], parameter[:count], first,
                             self.column[parameter[:count]], self)


class CandidateRows(NamedTuple):
    """What a stepped scorer scores for a parameterised system in one step: a row of
    positions per configuration (its plain actions and k = 1) and per legal candidate
    k >= 2 (the configuration with FOCUS = i_k), the rows of configuration r being
    first[r] .. first[r + 1] - 1 in increasing k; the scorer scores each row's model
    classes, `spread` makes them the configurations' decisions."""

    positions: np.ndarray  # int64 [candidate rows, addresses] (`steps.positions`)
    parameter: np.ndarray  # int64 [candidate rows]: the row's k
    first: np.ndarray  # int64 [configurations + 1]
    column: np.ndarray  # int64 [candidate rows, model classes]: their decisions (-1: none)
    decisions: Decisions

    def spread(self, scores: np.ndarray) -> np.ndarray:
        """The decision scores [configurations, decisions] of model class scores [candidate
        rows, model classes]: -inf for decisions no row scores (illegal ones)."""
        out = np.full((len(self.first) - 1, self.decisions.classes.n_classes), -np.inf)
        owner = np.repeat(np.arange(len(self.first) - 1), np.diff(self.first))
        scored = self.column >= 0
        out[np.broadcast_to(owner[:, None], scored.shape)[scored], self.column[scored]] = \
            scores[scored]
        return out

    def cells(self, configurations: np.ndarray, decisions: np.ndarray):
        """(candidate rows, model classes) where decision decisions[q] of configuration
        configurations[q] is scored."""
        k = self.decisions.parameter[decisions]
        row = np.array([self.first[r] + np.searchsorted(
            self.parameter[self.first[r] : self.first[r + 1]], kq)
            for r, kq in zip(configurations, k)], dtype=np.int64)
        return row, self.decisions.kind_class[decisions]


@njit(cache=True)
def candidate_rows(system_id, states, rows, program, wanted, word_offsets, positions,
                   parameter, first):
    """Fill `CandidateRows`' positions, parameter and first for configurations rows of a
    state matrix (`arcwise.transition.steps.positions`' arguments); returns the count of
    rows.  k = 1 is the configuration itself; k >= 2 with a legal left-arc-k or right-arc-k
    is Covington's configuration after k - 1 No-Arcs (FOCUS = i_k), as the perceptron's
    candidate table reads it (`score`)."""
    mask = np.zeros(systems.n_actions(system_id, widest(states)), dtype=np.bool_)
    view = np.empty(states.shape[1], dtype=states.dtype)
    found = np.empty(wanted.shape[0], dtype=np.int64)
    p = 0
    for r in range(rows.shape[0]):
        b = rows[r]
        state = states[b]
        first[r] = p
        mask[:] = False
        systems.legal(system_id, state, mask)
        view[:] = state
        i = state[st.FOCUS]
        for x in range(i, min(i, nl.first_word(state)) - 1, -1):  # x = i_k
            k = i - x + 1
            if k == 1 or mask[nl.left_arc(k)] or mask[nl.right_arc(k)]:
                view[st.FOCUS] = x
                position_row(system_id, view, program, wanted, word_offsets[b], found,
                             positions[p])
                parameter[p] = k
                p += 1
    first[rows.shape[0]] = p
    return p
