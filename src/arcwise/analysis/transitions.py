"""What the transitions did: the parser's trace (MISC `Transition=`, `HeadHistory=`) analysed.

- `precision_by_transition` (Fernández-González & Gómez-Rodríguez 2012,
  Table 3): labeled precision of the final arcs built by each transition
  type (`left-arc`, `right-arc`, `left-buffer-arc`, ... as the system's
  registry spells them; `none` for words attached to 0 after the parse).
- `nonmonotonicity` (Fernández-González & Gómez-Rodríguez 2017, §6.3): the
  arc transitions of a word are its heads in HeadHistory followed by its
  final head (unless Transition=none: then no transition built the final
  arc).  An arc transition is non-monotonic when it is not the word's first
  (the word had a head before: the trace does not say whether a
  cycle-breaking step removed that head in between); it *created a gold
  arc* when its new head is the gold head, and it was *harmful* when the
  head it replaced was gold and the new one is not.

Only the words the punctuation policy scores are counted.
"""

from __future__ import annotations

import numpy as np

from arcwise.analysis.records import Records, Trace
from arcwise.eval.metrics import percent
from arcwise.transition.trace import NO_TRANSITION


def precision_by_transition(records: Records, labeled: bool = True,
                            punct: str = "include") -> dict:
    """system -> transition -> {precision, correct, arcs}; systems without a trace are left out."""
    scored = records.scored(punct)
    out = {}
    for s, name in enumerate(records.names):
        trace = records.systems[s].trace
        if trace is None:
            continue
        correct = records.correct(s, labeled)
        size = len(trace.names)
        arcs = np.bincount(trace.transition[scored], minlength=size)
        right = np.bincount(trace.transition[scored & correct], minlength=size)
        order = sorted(range(size), key=lambda k: (trace.names[k] == NO_TRANSITION, -arcs[k]))
        out[name] = {trace.names[k]: {"precision": percent(int(right[k]), int(arcs[k])),
                                      "correct": int(right[k]), "arcs": int(arcs[k])}
                     for k in order if arcs[k]}
    return out


def nonmonotonicity(records: Records, punct: str = "include") -> dict:
    """system -> the 2017 §6.3 shares (percentages) and their counts; traced systems only."""
    scored = records.scored(punct)
    out = {}
    for s, name in enumerate(records.names):
        tree = records.systems[s]
        trace = tree.trace
        if trace is None:
            continue
        owner, head = _assignments(trace, tree.head)
        keep = scored[owner]
        owner, head = owner[keep], head[keep]
        gold = records.gold.head[owner]
        later = np.concatenate([[False], owner[1:] == owner[:-1]])  # the word had a head
        previous = np.concatenate([[-1], head[:-1]])  # the head a later assignment replaced
        nonmonotonic = int(later.sum())
        created_gold = int((later & (head == gold)).sum())
        harmful = int((later & (previous == gold) & (head != gold)).sum())
        total = len(head)
        out[name] = {
            "arc_transitions": total, "nonmonotonic": nonmonotonic,
            "nonmonotonic_share": percent(nonmonotonic, total),
            "created_gold": created_gold, "created_gold_share": percent(created_gold, nonmonotonic),
            "harmful": harmful, "harmful_share": percent(harmful, nonmonotonic),
        }
    return out


def _assignments(trace: Trace, final_head: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every head assignment by a transition, word by word and in order: (word, head).

    A word's assignments are its HeadHistory, then its final head unless
    Transition=none.
    """
    words = len(final_head)
    built = np.array([n != NO_TRANSITION for n in trace.names] + [False], dtype=bool)
    finals = np.flatnonzero(built[trace.transition]) if words else np.zeros(0, dtype=np.int64)
    owner = np.concatenate([np.repeat(np.arange(words), np.diff(trace.history_start)), finals])
    head = np.concatenate([trace.history, final_head[finals]]).astype(np.int64)
    is_final = np.concatenate([np.zeros(len(trace.history)), np.ones(len(finals))])
    order = np.argsort(2 * owner + is_final, kind="stable")
    return owner[order].astype(np.int64), head[order]
