"""Batched steps: many configurations of one transition system advanced together.

A scorer that is cheap per call but expensive to start (a neural network)
wants the configurations of many sentences at once.  These compiled steps
work on a *state matrix*: row b is one configuration (`arcwise.systems.state`)
of sentence b, padded to the longest sentence's state size (the kernels read
only the cells an n-word state has).  A step over `rows` (the row indices still
running) is::

    legal_classes  -> which labeled classes each configuration allows
    positions      -> the words a scorer reads (its feature addresses)
    (the scorer's scores for those classes)
    oracle_step    -> per row the class to learn (target), the classes as good as
                      it (zero-cost), and the class to follow (exploration policy)
    apply          -> every row takes its class

so that every kind of model trains and parses through the same kernels and
oracles as the perceptron's fused loops (`arcwise.transition.train`, `arcwise.transition.parser`).
"""

from __future__ import annotations

import numpy as np

from arcwise.core.jit import njit
from arcwise.dispatch import oracles, systems
from arcwise.features.extract import address_words
from arcwise.learn import perceptron as pc
from arcwise.systems import state as st
from arcwise.systems.base import gold_of
from arcwise.transition.kernels import final_tree, max_steps, reheadings_bound, traced_apply

# exploration policies of `oracle_step`
FOLLOW_ORACLE = 0  # always the target (static training, or no exploration yet)
FOLLOW_PREDICTION = 1  # the prediction with probability p (Goldberg & Nivre 2012, Algorithm 3)
AGGRESSIVE = 2  # also a wrong class that came within the margin (Kiperwasser & Goldberg 2016)


@njit(cache=True)
def initial_states(system_id, options, sizes):
    """The state matrix of sentences of sizes[b] words: row b = the initial configuration."""
    width = st.state_size(sizes.max() if sizes.shape[0] else 0)
    states = np.zeros((sizes.shape[0], width), dtype=np.int32)
    for b in range(sizes.shape[0]):
        state = systems.initial(system_id, sizes[b], options)
        states[b, : state.shape[0]] = state
    return states


@njit(cache=True)
def widest(states):
    """The most words of any configuration in a state matrix (what sizes an action mask)."""
    return states[:, st.N].max() if states.shape[0] else 0


@njit(cache=True)
def running_rows(system_id, states, steps):
    """The rows whose configuration is not terminal and under its step guard."""
    keep = np.zeros(states.shape[0], dtype=np.bool_)
    for b in range(states.shape[0]):
        state = states[b]
        keep[b] = not systems.is_terminal(system_id, state) and steps[b] < max_steps(state[st.N])
    return np.nonzero(keep)[0]


@njit(cache=True)
def legal_classes(system_id, states, rows, class_transition, out):
    """out[r, c] = does configuration rows[r] allow class c (a bool [rows, classes] matrix)."""
    mask = np.zeros(systems.n_actions(system_id, widest(states)), dtype=np.bool_)
    for r in range(rows.shape[0]):
        mask[:] = False
        systems.legal(system_id, states[rows[r]], mask)
        pc.legal_classes(class_transition, mask, out[r])


@njit(cache=True)
def positions(system_id, states, rows, program, wanted, word_offsets, out):
    """out[r, k] = the word at address wanted[k] of an address program (a neural scorer's
    features, `arcwise.features.templates.compile_addresses`) in configuration rows[r], as
    a row of the batch's flat word arrays (word_offsets[b] + word), or -1 where there is
    none."""
    found = np.empty(wanted.shape[0], dtype=np.int64)
    for r in range(rows.shape[0]):
        b = rows[r]
        position_row(system_id, states[b], program, wanted, word_offsets[b], found, out[r])


@njit(cache=True)
def position_row(system_id, state, program, wanted, offset, found, out):
    """One configuration's row of `positions`: out[k] = offset + the word at address
    wanted[k] (-1 where there is none); found: work space of len(wanted)."""
    address_words(system_id, state, program, wanted, found)
    for k in range(wanted.shape[0]):
        w = found[k]
        out[k] = offset + w if w >= 0 else -1


@njit(cache=True)
def arc_dependent(system_id, state, action):
    """The word whose head `action` sets in state, as the system says (`systems.arc`);
    -1 if it builds no arc or gives the word the head it has."""
    head, dependent = systems.arc(system_id, state, action)
    if dependent <= 0 or head < 0 or st.head_of(state, dependent) == head:
        return -1
    return dependent


@njit(cache=True)
def labeled_class(system_id, state, action, gold_label, first_class, takes_label):
    """The class of action labeled, for an arc, with the gold label of its dependent."""
    label = 0
    if takes_label[action]:
        d = arc_dependent(system_id, state, action)
        if d > 0 and gold_label[d] >= 0:
            label = gold_label[d]
    return pc.class_of(first_class, takes_label, action, label)


@njit(cache=True)
def zero_cost_classes(
    system_id, variant, state, gold, bound, legal, costs, class_transition,
    class_label, gold_label, out,
):
    """out[c] = is class c legal and zero-cost (least-cost transition; for an arc, gold label)."""
    costs[:] = 0
    oracles.costs(system_id, variant, state, gold, bound, costs)
    least = np.iinfo(np.int64).max
    for c in range(legal.shape[0]):
        if legal[c] and costs[class_transition[c]] < least:
            least = costs[class_transition[c]]
    last_action = -1
    label = -1
    for c in range(legal.shape[0]):
        out[c] = legal[c] and costs[class_transition[c]] == least
        if out[c] and class_label[c] >= 0:
            action = class_transition[c]
            if action != last_action:  # first class of the action's label block
                last_action = action
                d = arc_dependent(system_id, state, action)
                label = gold_label[d] if d > 0 else -1
            if label >= 0:
                out[c] = class_label[c] == label


@njit(cache=True)
def oracle_target(
    system_id, variant, bound, dynamic, state, gold, gold_label, legal, scores,
    predicted, costs, class_transition, class_label, first_class, takes_label, zero_cost,
):
    """The class to learn in state given the model's `predicted` class; -1 when the oracle
    has none (a gold tree the static oracle cannot build).  zero_cost gets the classes as
    good as the target (dynamic: every zero-cost class; static: the target alone).

    Dynamic: the prediction if it is zero-cost, else the best-scoring zero-cost class.
    Static: the static oracle's action with its dependent's gold label.  A labeled
    transition that adds no arc (arc-eager-nm's REDUCE of a headed word) has no label to
    learn: the predicted label of the same transition is as good as any.
    """
    if dynamic:
        zero_cost_classes(system_id, variant, state, gold, bound, legal, costs,
                          class_transition, class_label, gold_label, zero_cost)
        target = predicted if predicted >= 0 and zero_cost[predicted] else pc.argmax(
            scores, zero_cost)
    else:
        zero_cost[:] = False
        action = oracles.static(system_id, variant, state, gold)
        if action < 0 or action >= costs.shape[0] or first_class[action] < 0:
            return -1
        target = labeled_class(system_id, state, action, gold_label, first_class,
                               takes_label)
        if not legal[target]:
            return -1
        zero_cost[target] = True
    if target >= 0 and predicted >= 0 and target != predicted and class_label[target] >= 0:
        if class_transition[target] == class_transition[predicted] \
                and arc_dependent(system_id, state, class_transition[target]) <= 0:
            zero_cost[predicted] = True
            target = predicted
    return target


@njit(cache=True)
def oracle_step(
    system_id, variant, bound, dynamic, states, rows, legal, scores, predicted, gold_flat,
    gold_offsets, gold_label, word_offsets, class_transition, class_label, first_class,
    takes_label, policy, explore_p, aggressive_p, draws, zero_cost,
):
    """(target, follow) per row, and zero_cost[r] (see `oracle_target`).

    predicted: the model's class per row (`Scorer.best`); target: the class to learn
    (-1: the oracle has none, stop that sentence); follow: the class to apply, by `policy`:
    FOLLOW_ORACLE the target; FOLLOW_PREDICTION the prediction with probability
    explore_p; AGGRESSIVE as FOLLOW_PREDICTION, and when the prediction is right but
    the best wrong class scores within 1 of it, that wrong class with probability
    aggressive_p.  draws[r, 0..1]: uniform [0, 1) numbers, so that the caller's seed
    makes the policy deterministic.  gold_flat / gold_offsets: the batch's prepared
    gold arrays (sentence b: gold_flat[j][gold_offsets[b, j] : gold_offsets[b + 1, j]]);
    gold_label: label ids of every word of the batch (row word_offsets[b] + d).
    """
    n_rows = rows.shape[0]
    target = np.full(n_rows, -1, dtype=np.int64)
    follow = np.full(n_rows, -1, dtype=np.int64)
    costs = np.zeros(systems.n_actions(system_id, widest(states)), dtype=np.int64)
    wrong = np.zeros(legal.shape[1], dtype=np.bool_)
    for r in range(n_rows):
        b = rows[r]
        state = states[b]
        gold = gold_of(gold_flat, gold_offsets, b)
        labels = gold_label[word_offsets[b] : word_offsets[b] + state[st.N] + 1]
        p = predicted[r]
        t = oracle_target(system_id, variant, bound, dynamic, state, gold, labels,
                          legal[r], scores[r], p, costs, class_transition, class_label,
                          first_class, takes_label, zero_cost[r])
        target[r] = t
        if t < 0:
            continue
        f = t
        if policy != FOLLOW_ORACLE:
            if not zero_cost[r, p]:
                if draws[r, 0] < explore_p:
                    f = p
            elif policy == AGGRESSIVE:
                for c in range(wrong.shape[0]):
                    wrong[c] = legal[r, c] and not zero_cost[r, c]
                w = pc.argmax(scores[r], wrong)
                if w >= 0 and scores[r, p] - scores[r, w] < 1.0 and draws[r, 1] < aggressive_p:
                    f = w
        follow[r] = f
    return target, follow


@njit(cache=True)
def best_legal(scores, legal):
    """Per row the best-scoring legal class (ties: the lowest id), -1 where none is legal."""
    best = np.empty(scores.shape[0], dtype=np.int64)
    for r in range(scores.shape[0]):
        best[r] = pc.argmax(scores[r], legal[r])
    return best


@njit(cache=True)
def apply(system_id, states, rows, classes, class_transition, class_label, steps):
    """Configuration rows[r] takes class classes[r] (skipped where it is -1); counts steps."""
    for r in range(rows.shape[0]):
        c = classes[r]
        if c >= 0:
            systems.apply(system_id, states[rows[r]], class_transition[c], class_label[c])
            steps[rows[r]] += 1


@njit(cache=True)
def traced_apply_rows(system_id, states, rows, classes, class_transition, class_label, steps,
                      word_offsets, built_by, room, reheadings, counts):
    """`apply`, recording what each transition did to the arcs (`arcwise.transition.kernels.traced_apply`):
    built_by (a row per batch word), and sentence b's re-headings in rows room[b] ..
    room[b + 1] - 1 of reheadings, counts[b] of them so far."""
    for r in range(rows.shape[0]):
        c = classes[r]
        if c >= 0:
            b = rows[r]
            a, e = word_offsets[b], word_offsets[b + 1]
            counts[b] = traced_apply(system_id, states[b], class_transition[c], class_label[c],
                                     built_by[a:e], reheadings[room[b] : room[b + 1]], counts[b])
            steps[b] += 1


@njit(cache=True)
def reheading_room(word_offsets):
    """room[b]: where sentence b's re-heading record starts (`reheadings_bound` rows each)."""
    room = np.zeros(word_offsets.shape[0], dtype=np.int64)
    for b in range(word_offsets.shape[0] - 1):
        room[b + 1] = room[b] + reheadings_bound(word_offsets[b + 1] - word_offsets[b] - 1)
    return room


@njit(cache=True)
def final_trees(states, root_label, word_offsets, heads, labels, made):
    """Every row's tree into the flat heads, labels (label ids), made arrays (`final_tree`)."""
    for b in range(states.shape[0]):
        a, e = word_offsets[b], word_offsets[b + 1]
        final_tree(states[b], root_label, heads[a:e], labels[a:e])
        state_heads = st.region(states[b], st.HEADS)
        made[a] = False
        for d in range(1, e - a):
            made[a + d] = state_heads[d] == heads[a + d]
