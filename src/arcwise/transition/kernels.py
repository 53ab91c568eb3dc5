"""The compiled kernels of greedy transition-based parsing: one call parses a batch.

`parse_batch` takes many sentences as flat id arrays and, per configuration, extracts
the hashed features, scores the legal labeled classes with the averaged weights and
applies the best one until the configuration is terminal (see `arcwise.transition.parser`).
"""

from __future__ import annotations

import numpy as np
from numba import literally

from arcwise.core import arrays
from arcwise.core.jit import njit
from arcwise.core.threads import in_threads
from arcwise.dispatch import systems
from arcwise.features import extract
from arcwise.learn import perceptron as pc
from arcwise.systems import state as st


@njit(cache=True)
def max_steps(n):
    """A bound on the transitions of an n-word sentence in any system (a guard, never reached)."""
    return 4 * (n + 1) * (n + 1) + 16


@njit(cache=True)
def final_tree(state, root_label, heads_out, labels_out):
    """The tree of a (terminal) configuration into heads_out, labels_out (n + 1 entries).

    Headless words go to 0 with root_label; a cycle (which no system should
    leave) is broken by attaching the word where it is found to 0, so the
    result is always a tree rooted at 0.
    """
    n = state[st.N]
    heads = st.region(state, st.HEADS)
    labels = st.region(state, st.LABELS)
    heads_out[0] = -1
    labels_out[0] = -1
    for d in range(1, n + 1):
        if heads[d] < 0 or heads[d] > n:
            heads_out[d] = 0
            labels_out[d] = root_label
        else:
            heads_out[d] = heads[d]
            labels_out[d] = labels[d] if labels[d] >= 0 else root_label
    # 0 = not seen, k = on the path walked from word k, -1 = known to reach 0
    seen = arrays.zeros(n + 1, dtype=np.int64)
    seen[0] = -1
    for d in range(1, n + 1):
        w = d
        while seen[w] == 0:
            seen[w] = d
            w = heads_out[w]
        if seen[w] == d:  # back on this path: a cycle through w
            heads_out[w] = 0
            labels_out[w] = root_label
        w = d
        while seen[w] == d:
            seen[w] = -1
            w = heads_out[w]


@njit(cache=True)
def mark_built(state, heads_out, made_out):
    """made_out[d]: was word d's head in heads_out built by the parser (not given by
    `final_tree` to a headless word)?  made_out[0] is False."""
    heads = st.region(state, st.HEADS)
    made_out[0] = False
    for d in range(1, state[st.N] + 1):
        made_out[d] = heads[d] == heads_out[d]


@njit(cache=True, inline="always")  # a call per configuration costs ~1 µs: its many arrays
def best_legal_class(
    system_id, state, program, weights, class_transition, words,
    mask, legal, features, label_features, scores,
):
    """The model's best legal labeled transition in `state` (-1 if none); fills the
    work arrays mask, legal, features, label_features and scores on the way."""
    mask[:] = False
    systems.legal(system_id, state, mask)
    pc.legal_classes(class_transition, mask, legal)
    extract(system_id, state, program, words, features, label_features)
    return pc.best_class(weights, features, label_features, legal, scores)


@njit(cache=True, literal=("system_id",))  # one version per system: `parse_range`
def parse_sentence(
    system_id, options, program, weights, class_transition, class_label, root_label,
    words, heads_out, labels_out, made_out, built_by, reheadings,
):
    """Parse one sentence (its words matrix, n + 1 rows) greedily into heads_out, labels_out.

    made_out[d] tells whether word d's arc was made by a transition (False:
    `final_tree` attached it to 0).  With the trace arrays (None without
    trace: the tracing code is then not even compiled), built_by[d] gets the
    action id of the transition that gave word d its head at the end of the
    transitions (-1: none), and reheadings the (word, head) pairs of every
    arc a later transition replaced or deleted, in order (at most
    `reheadings_bound(n)` rows); returns how many there were (0 without trace).
    """
    n = words.shape[0] - 1
    n_classes = class_transition.shape[0]
    state = systems.initial(system_id, n, options)
    # work arrays that every step fills (`best_legal_class`)
    mask = arrays.empty(systems.n_actions(system_id, n), dtype=np.bool_)
    legal = arrays.empty(n_classes, dtype=np.bool_)
    scores = arrays.empty(n_classes, dtype=np.float64)
    features = arrays.empty(program.template_values.shape[0], dtype=np.uint64)
    label_features = arrays.empty(program.label_templates.shape[0], dtype=np.uint64)
    if built_by is not None:
        built_by[:] = -1
    replaced = np.int64(0)  # not a literal 0: traced_apply would also compile for Literal[int](0)
    limit = max_steps(n)
    steps = 0
    while not systems.is_terminal(system_id, state) and steps < limit:
        c = best_legal_class(
            system_id, state, program, weights, class_transition, words,
            mask, legal, features, label_features, scores,
        )
        if c < 0:
            break
        if built_by is None:
            systems.apply(system_id, state, class_transition[c], class_label[c])
        else:
            replaced = traced_apply(system_id, state, class_transition[c], class_label[c],
                                    built_by, reheadings, replaced)
        steps += 1
    final_tree(state, root_label, heads_out, labels_out)
    mark_built(state, heads_out, made_out)
    return replaced


@njit(cache=True)
def reheadings_bound(n):
    """Rows of the re-heading record an n-word sentence may need in any system.

    Every re-heading undoes an arc a transition built.  arc-eager-nm replaces
    a word's head at most once (LEFT-ARC pops it), covington-nm builds at most
    one arc per pair of positions (the focus pair never repeats), and the
    other systems never replace arcs: n(n + 1) / 2 bounds them all.
    """
    return n * (n + 1) // 2


@njit(cache=True, literal=("system_id",))
def traced_apply(system_id, state, action, label, built_by, reheadings, count):
    """Apply action to state, recording what it did to the arcs; returns the new length
    of the re-heading record (`parse_sentence`).

    An arc transition built its dependent's arc (built_by), and the arcs it
    replaced (the dependent's previous one) or deleted (the head's own, when
    covington-nm breaks a cycle) go to the record as (word, previous head).
    Those two words are the only ones whose heads an action changes (`systems.arc`).
    """
    head, dependent = systems.arc(system_id, state, action)
    heads = st.region(state, st.HEADS)
    head_was = heads[head] if head > 0 else -1
    dependent_was = heads[dependent] if dependent > 0 else -1
    systems.apply(system_id, state, action, label)
    if dependent <= 0:
        return count
    built_by[dependent] = action
    if dependent_was >= 0 and heads[dependent] != dependent_was:
        count = record_reheading(reheadings, count, dependent, dependent_was)
    if head_was >= 0 and heads[head] != head_was:
        built_by[head] = -1
        count = record_reheading(reheadings, count, head, head_was)
    return count


@njit(cache=True)
def record_reheading(reheadings, count, word, head):
    """Append (word, head) to the re-heading record; returns its new length."""
    if count >= reheadings.shape[0]:
        raise RuntimeError("more re-headings than reheadings_bound allows")
    reheadings[count, 0] = word
    reheadings[count, 1] = head
    return count + 1


def parse_batch(
    system_id, options, program, weights, class_transition, class_label, root_label,
    offsets, words, trace=False,
):
    """Parse every sentence of a batch; returns (heads, labels, made), a row of `words` each,
    and with trace also (built_by, reheadings, reheading_offsets).

    Sentences are shared among threads (`arcwise.core.threads.in_threads`: as many as
    `numba.set_num_threads` says, all cores by default), each running `parse_range` on
    its share; each sentence is parsed alone, so the output does not depend on the number
    of threads.

    offsets: int64 [sentences + 1]; sentence k is rows offsets[k] ..
    offsets[k+1] - 1 of words (the words matrices, root first).
    heads[offsets[k] + d] is word d's head (-1 for the root entry);
    labels holds label ids (indices of the model's labels, -1 at the root);
    made tells which arcs a transition made (the others: `final_tree`).
    With trace (`parse_sentence`): built_by, a row of `words` each, holds the
    action id that built each word's arc (-1: none), and sentence k's
    re-headings, (word, previous head) in order, are rows
    reheading_offsets[k] .. reheading_offsets[k+1] - 1 of reheadings.
    """
    return parse_in_threads(offsets, words, trace, lambda first, last, *out: parse_range(
        system_id, options, program, weights, class_transition, class_label, root_label,
        offsets, words, first, last, *out))


def parse_in_threads(offsets, words, trace, parse_range):
    """`parse_batch`'s outputs, parse_range(first, last, heads, labels, made, built_by,
    reheadings, room, counts) filling them for sentences first .. last - 1 in threads."""
    sentences = offsets.shape[0] - 1
    heads = np.empty(words.shape[0], dtype=np.int32)
    labels = np.empty(words.shape[0], dtype=np.int32)
    made = np.empty(words.shape[0], dtype=np.bool_)
    built_by = np.empty(words.shape[0], dtype=np.int32) if trace else None
    # where each sentence's re-heading record starts
    room = reheading_rooms(offsets) if trace else np.zeros(sentences + 1, dtype=np.int64)
    reheadings = np.empty((room[sentences], 2), dtype=np.int32) if trace else None
    counts = np.zeros(sentences, dtype=np.int64)
    in_threads(lambda first, last: parse_range(
        first, last, heads, labels, made, built_by, reheadings, room, counts), sentences)
    if not trace:
        return heads, labels, made
    return (heads, labels, made, built_by, *packed_reheadings(reheadings, room, counts))


# nogil: threads parse at once (`parse_batch`), a server while it reads; literal: a call
# from Python finds the system's version at once (`arcwise.core.jit_linking`)
@njit(cache=True, nogil=True, literal=("system_id",))
def parse_range(
    system_id, options, program, weights, class_transition, class_label, root_label,
    offsets, words, first, last, heads, labels, made, built_by, reheadings, room, counts,
):
    """`parse_sentence` on sentences first .. last - 1 of `parse_batch`'s batch, into its
    arrays (counts[k]: sentence k's re-headings, from row room[k] of reheadings; those
    two None without trace).

    Compiled once per system, for its id as a literal: the kernels it calls down to the
    system's own (`arcwise.dispatch.systems`) then compile that system's code alone.
    """
    literally(system_id)
    for k in range(first, last):
        a, b = offsets[k], offsets[k + 1]
        counts[k] = parse_sentence(
            system_id, options, program, weights, class_transition, class_label, root_label,
            words[a:b], heads[a:b], labels[a:b], made[a:b],
            rows(built_by, a, b), rows(reheadings, room[k], room[k + 1]),
        )


@njit(cache=True)
def rows(array, first, last):
    """Rows first .. last - 1 of array; None stays None."""
    if array is None:
        return array
    return array[first:last]


@njit(cache=True)
def reheading_rooms(offsets):
    """Where each sentence's re-heading record starts (`reheadings_bound` rows each), and
    the rows of all of them at the end."""
    room = arrays.zeros(offsets.shape[0], dtype=np.int64)
    for k in range(offsets.shape[0] - 1):
        room[k + 1] = room[k] + reheadings_bound(offsets[k + 1] - offsets[k] - 1)
    return room


@njit(cache=True)
def packed_reheadings(reheadings, room, counts):
    """(packed, reheading_offsets): sentence k's counts[k] re-headings (from row room[k] of
    reheadings), one sentence after another."""
    sentences = counts.shape[0]
    reheading_offsets = arrays.zeros(sentences + 1, dtype=np.int64)
    for k in range(sentences):
        reheading_offsets[k + 1] = reheading_offsets[k] + counts[k]
    packed = arrays.empty((reheading_offsets[sentences], 2), dtype=np.int32)
    for k in range(sentences):  # row by row: a slice assignment's shape check compiles slowly
        for r in range(counts[k]):
            packed[reheading_offsets[k] + r, 0] = reheadings[room[k] + r, 0]
            packed[reheading_offsets[k] + r, 1] = reheadings[room[k] + r, 1]
    return packed, reheading_offsets
