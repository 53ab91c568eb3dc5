"""The averaged perceptron's fused training loops: one compiled call per epoch over every
training sentence (`train_epoch`), one per sentence (`train_sentence`); see
`arcwise.transition.train` for the oracle rules they follow."""

from __future__ import annotations

import numpy as np

from arcwise.core.jit import njit
from arcwise.dispatch import systems
from arcwise.learn import perceptron as pc
from arcwise.systems import state as st
from arcwise.systems.base import gold_of
from arcwise.transition.kernels import best_legal_class, max_steps
from arcwise.transition.steps import arc_dependent, oracle_target


@njit(cache=True)
def train_sentence(
    system_id, options, variant, bound, dynamic, explore, explore_p, program, weights, totals,
    step, class_transition, class_label, first_class, takes_label, words, gold_label, gold,
):
    """Train on one sentence; returns (step, configurations, updates, words with a wrong head)."""
    n = words.shape[0] - 1
    n_classes = class_transition.shape[0]
    state = systems.initial(system_id, n, options)
    mask = np.zeros(systems.n_actions(system_id, n), dtype=np.bool_)
    costs = np.zeros(systems.n_actions(system_id, n), dtype=np.int64)
    legal = np.zeros(n_classes, dtype=np.bool_)
    zero_cost = np.zeros(n_classes, dtype=np.bool_)
    scores = np.zeros(n_classes, dtype=np.float64)
    features = np.zeros(program.template_values.shape[0], dtype=np.uint64)
    label_features = np.zeros(program.label_templates.shape[0], dtype=np.uint64)
    configurations = 0
    updates = 0
    limit = max_steps(n)
    while not systems.is_terminal(system_id, state) and configurations < limit:
        predicted = best_legal_class(
            system_id, state, program, weights, class_transition, words,
            mask, legal, features, label_features, scores,
        )
        if predicted < 0:
            break
        target = oracle_target(
            system_id, variant, bound, dynamic, state, gold, gold_label, legal, scores,
            predicted, costs, class_transition, class_label, first_class, takes_label, zero_cost,
        )
        if target < 0:
            break
        # a wrong class whose transition adds no arc here (arc-eager-nm's REDUCE of a
        # headed word) has no label to learn: its label features are not updated
        adds_arc = True
        if target != predicted and class_label[target] >= 0:
            adds_arc = arc_dependent(system_id, state, class_transition[target]) > 0
        if target != predicted:
            pc.update(weights, totals, features, label_features, target, predicted, step,
                      adds_arc)
            updates += 1
        step += 1
        configurations += 1
        follow = target
        if explore and np.random.random() < explore_p:
            follow = predicted
        systems.apply(system_id, state, class_transition[follow], class_label[follow])
    return step, configurations, updates, wrong_heads(state, gold[0])


@njit(cache=True)
def wrong_heads(state, gold_heads):
    """The words of a terminal configuration whose head (headless: the root 0) is not gold."""
    heads = st.region(state, st.HEADS)
    wrong = 0
    for d in range(1, gold_heads.shape[0]):
        if max(heads[d], 0) != gold_heads[d]:
            wrong += 1
    return wrong


@njit(cache=True)
def train_epoch(
    system_id, options, variant, bound, dynamic, explore, explore_p, seed, program, weights,
    totals, step, class_transition, class_label, first_class, takes_label, order, offsets,
    words, gold_label, gold_flat, gold_offsets,
):
    """One pass over the sentences in `order`; returns (step, configurations, updates, wrong).

    Sentence k's words are rows offsets[k] .. offsets[k+1] - 1 of the words
    matrix and entries of gold_label (label ids, -1 at the root); its
    prepared gold arrays are gold_flat[j][gold_offsets[k, j] : gold_offsets[k+1, j]].
    step: perceptron examples seen so far (over all epochs).
    """
    np.random.seed(seed)
    configurations = 0
    updates = 0
    wrong = 0
    for i in range(order.shape[0]):
        k = order[i]
        a, b = offsets[k], offsets[k + 1]
        gold = gold_of(gold_flat, gold_offsets, k)
        step, c, u, w = train_sentence(
            system_id, options, variant, bound, dynamic, explore, explore_p, program, weights,
            totals, step, class_transition, class_label, first_class, takes_label,
            words[a:b], gold_label[a:b], gold,
        )
        configurations += c
        updates += u
        wrong += w
    return step, configurations, updates, wrong
