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

from arcwise.analysis.records import NO_TRANSITION, Records
from arcwise.eval.metrics import percent


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
        words = np.flatnonzero(scored)
        built = np.array([n != NO_TRANSITION for n in trace.names], dtype=bool)
        final = built[trace.transition] if len(trace.names) else np.zeros(len(tree.head), bool)
        per_word = (np.diff(trace.history_start) + final)[words]
        # every assignment of a word, in order: its history, then its final head if built
        sequence, owner = _assignments(trace.history_start, trace.history, tree.head, final, words)
        gold = records.gold.head[owner]
        first = np.concatenate([[0], np.cumsum(per_word)[:-1]]).astype(np.int64)[per_word > 0]
        later = np.ones(len(sequence), dtype=bool)
        later[first] = False
        previous = np.roll(sequence, 1)  # the replaced head, where `later`
        nonmonotonic = int(later.sum())
        created_gold = int((later & (sequence == gold)).sum())
        harmful = int((later & (previous == gold) & (sequence != gold)).sum())
        total = int(per_word.sum())
        out[name] = {
            "arc_transitions": total, "nonmonotonic": nonmonotonic,
            "nonmonotonic_share": percent(nonmonotonic, total),
            "created_gold": created_gold, "created_gold_share": percent(created_gold, nonmonotonic),
            "harmful": harmful, "harmful_share": percent(harmful, nonmonotonic),
        }
    return out


def _assignments(history_start, history, final_head, final, words):
    """The heads assigned to each word of `words` in order, and the word of each."""
    heads, owner = [], []
    for w in words:
        past = history[history_start[w]:history_start[w + 1]]
        heads.append(past)
        owner.append(np.full(len(past), w))
        if final[w]:
            heads.append(final_head[w:w + 1])
            owner.append(np.array([w]))
    if not heads:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return (np.concatenate(heads).astype(np.int64), np.concatenate(owner).astype(np.int64))
