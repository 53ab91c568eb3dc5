"""The trace in MISC (Transition=, HeadHistory=) read and analysed (2012 Table 3, 2017 §6.3).

tests/data/analysis/a_traced.conllu is system A's output with a hand-written
trace: "dog" was first attached to 4 and then to 3 (gold); "cat" to 3
(gold), then 5 (harmful), then 3 again (gold, with the wrong label obj);
"barks" was attached to 0 after the parse (Transition=none).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from arcwise.analysis.records import build_records, read_trace
from arcwise.analysis.transitions import nonmonotonicity, precision_by_transition
from arcwise.core.errors import InputError
from arcwise.io import conllu

DATA = Path(__file__).resolve().parent / "data" / "analysis"


def records(*systems):
    return build_records([list(conllu.read(DATA / "gold.conllu"))],
                         [[list(conllu.read(p))] for p in systems],
                         [Path(p).stem for p in systems])


def test_trace_is_read_from_misc():
    trace = read_trace(list(conllu.read(DATA / "a_traced.conllu")))
    assert trace.names == ("left-arc", "none", "right-arc")
    assert [trace.names[t] for t in trace.transition] == [
        "left-arc", "left-arc", "none", "left-arc", "left-arc", "right-arc", "right-arc"]
    assert trace.history_start.tolist() == [0, 0, 1, 1, 1, 1, 3, 3]
    assert trace.history.tolist() == [4, 3, 5]


def test_untraced_output_has_no_trace():
    assert read_trace(list(conllu.read(DATA / "a.conllu"))) is None
    r = records(DATA / "a.conllu")
    assert precision_by_transition(r) == {} and nonmonotonicity(r) == {}


def test_labeled_precision_by_transition():
    r = records(DATA / "a_traced.conllu", DATA / "b.conllu")
    table = precision_by_transition(r)
    assert list(table) == ["a_traced"]
    assert table["a_traced"] == {
        "left-arc": {"precision": 100.0, "correct": 4, "arcs": 4},
        "right-arc": {"precision": 50.0, "correct": 1, "arcs": 2},
        "none": {"precision": 100.0, "correct": 1, "arcs": 1},
    }
    unlabeled = precision_by_transition(r, labeled=False)["a_traced"]
    assert unlabeled["right-arc"]["correct"] == 2


def test_nonmonotonic_shares():
    shares = nonmonotonicity(records(DATA / "a_traced.conllu"))["a_traced"]
    # assignments: The [2], dog [4, 3], barks [], at [6], the [6], cat [3, 5, 3], . [3]
    assert shares["arc_transitions"] == 9
    assert shares["nonmonotonic"] == 3  # dog -> 3, cat -> 5, cat -> 3
    assert shares["created_gold"] == 2  # dog -> 3, cat -> 3
    assert shares["harmful"] == 1  # cat: gold 3 replaced by 5
    assert shares["nonmonotonic_share"] == pytest.approx(100 / 3)
    assert shares["created_gold_share"] == pytest.approx(200 / 3)
    assert shares["harmful_share"] == pytest.approx(100 / 3)


def test_punctuation_policy_applies_to_transitions():
    r = records(DATA / "a_traced.conllu")
    assert precision_by_transition(r, punct="exclude")["a_traced"]["right-arc"]["arcs"] == 1
    assert nonmonotonicity(r, punct="exclude")["a_traced"]["arc_transitions"] == 8


@pytest.mark.parametrize("change, message", [
    (("Transition=left-arc|HeadHistory=4", "HeadHistory=4"), "without Transition="),
    (("HeadHistory=4", "HeadHistory=4,x"), "bad HeadHistory"),
    (("HeadHistory=4", "HeadHistory=9"), "heads must be 0..7"),
    (("Transition=none", "Transition=LEFT ARC"), "bad Transition"),
])
def test_malformed_trace_is_an_input_error_at_the_word(tmp_path, change, message):
    path = tmp_path / "bad.conllu"
    path.write_text((DATA / "a_traced.conllu").read_text().replace(*change, 1))
    with pytest.raises(InputError, match=message) as error:
        read_trace(list(conllu.read(path)))
    assert error.value.line in (3, 4)


def test_trace_on_later_words_only_is_an_input_error(tmp_path):
    path = tmp_path / "half.conllu"
    lines = (DATA / "a_traced.conllu").read_text().split("\n")
    lines[1] = lines[1].replace("Transition=left-arc", "_")
    path.write_text("\n".join(lines))
    with pytest.raises(InputError, match="not on the first word"):
        read_trace(list(conllu.read(path)))


def test_history_of_every_word_round_trips():
    trace = read_trace(list(conllu.read(DATA / "a_traced.conllu")))
    per_word = [trace.history[trace.history_start[i]:trace.history_start[i + 1]].tolist()
                for i in range(7)]
    assert per_word == [[], [4], [], [], [], [3, 5], []]
    assert np.diff(trace.history_start).sum() == len(trace.history)
