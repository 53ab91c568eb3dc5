"""`parse(..., trace=True)` and `arcwise parse --trace`: which transition built each
word's arc and which heads transitions replaced, checked against a replay of the
parser's own decisions through the steppable API, on scripted derivations worked
out by hand, and through the MISC column of written files."""

import dataclasses
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as stg

from arcwise import systems
from arcwise.combination.stacking import GuidedParser
from arcwise.core.corpus import ROOT, Sentence
from arcwise.core.errors import ArcwiseError
from arcwise.features.batch import Batch
from arcwise.io import conllu, read_treebank
from arcwise.systems import state as st
from arcwise.transition.kernels import best_legal_class, max_steps, traced_apply
from arcwise.transition.parser import Parser
from arcwise.transition.trace import Trace, from_misc, of_parse
from arcwise.transition.train import train
from tests.ewt import NO_JIT, train_and_dev

N_TRAIN, N_TEST = (4, 3) if NO_JIT else (200, 60)
SMALL = {"transition_buckets": 2**16, "label_buckets": 2**12}
SYSTEMS = {
    "arc-eager": {},
    "arc-eager+lba": {},
    "arc-eager+rba": {},
    "arc-eager+lnba": {},
    "arc-eager+rnba": {},
    "arc-eager-nm": {},
    "arc-hybrid": {},
    "arc-hybrid+swap": {},
    "covington": {},
    "covington+root": {},
    "covington-nm": {"bound": "upper"},
    "covington-nm+root": {"bound": "upper"},
    "two-planar": {},
}
NONMONOTONIC = {"arc-eager-nm", "covington-nm", "covington-nm+root"}


@pytest.fixture(scope="module")
def data():
    return train_and_dev(N_TRAIN, N_TEST)


@pytest.fixture(scope="module")
def parsers(data):
    """A tiny model per system, trained with exploration: it makes (and repairs) errors."""
    return {
        name: train(name, data[0], oracle="dynamic", explore_from=0, epochs=1, seed=1,
                    **setup, **SMALL)[0]
        for name, setup in SYSTEMS.items()
    }


def replay(parser: Parser, sentence: Sentence) -> tuple[list[int], Trace]:
    """The parser's greedy derivation of `sentence`, stepped through the Python API: its
    final heads and the trace read off the heads before and after every transition."""
    ts = systems.get(parser.system)
    kernels = ts.kernels
    words = Batch([sentence], parser.vocabularies).words
    n = sentence.n
    classes = parser.classes
    work = (np.zeros(len(kernels.actions), dtype=np.bool_),
            np.zeros(len(classes.transition), dtype=np.bool_),
            np.zeros(parser.table.program.template_values.shape[0], dtype=np.uint64),
            np.zeros(parser.table.program.label_templates.shape[0], dtype=np.uint64),
            np.zeros(len(classes.transition), dtype=np.float64))
    c = ts.initial(n)
    built: list[str | None] = [None] * (n + 1)
    history: list[list[int]] = [[] for _ in range(n + 1)]
    for _ in range(max_steps(n)):
        if ts.is_terminal(c):
            break
        k = best_legal_class(kernels.system_id, c.state.copy(), parser.table.program,
                             parser.weights, classes.transition, words, *work)
        action = kernels.actions[classes.transition[k]]
        before = ts.heads(c)
        c = ts.apply(c, action, int(classes.label[k]))
        for w, (was, now) in enumerate(zip(before, ts.heads(c))):
            if was != now:
                if was >= 0:
                    history[w].append(was)
                built[w] = action if now >= 0 else None
    heads = [max(h, 0) for h in ts.heads(c)]
    heads[0] = -1
    return heads, Trace(tuple(built), tuple(tuple(h) for h in history))


def arc_actions(name: str) -> set[str]:
    kernels = systems.get(name).kernels
    return {kernels.actions[a] for a in kernels.enabled if kernels.labeled[a]}


@pytest.mark.parametrize("name", SYSTEMS)
def test_trace_is_that_of_the_replayed_derivation(name, parsers, data):
    parser = parsers[name]
    sentences = data[1]
    plain = parser.parse(sentences, single_root=False)  # the trees the derivations built
    traced = parser.parse(sentences, single_root=False, trace=True)
    arcs = arc_actions(name)
    for sentence, (head, deprel), (t_head, t_deprel, trace) in zip(sentences, plain, traced):
        assert np.array_equal(head, t_head) and deprel == t_deprel  # tracing changes no tree
        heads, expected = replay(parser, sentence)
        assert heads == head.tolist()
        assert trace == expected
        assert len(trace.transition) == sentence.n + 1
        assert {t for t in trace.transition if t is not None} <= arcs
        if name not in NONMONOTONIC:
            assert not any(trace.head_history)
        # a word with a transition-built arc has the head the parse gives it
        for d, transition in enumerate(trace.transition[1:], 1):
            if transition is None:
                assert head[d] == 0


@pytest.mark.skipif(NO_JIT, reason="a model trained on a few sentences may never re-head")
@pytest.mark.parametrize("name", sorted(NONMONOTONIC))
def test_nonmonotonic_parsers_record_replaced_heads(name, parsers, data):
    traces = [trace for *_, trace in parsers[name].parse(data[1], trace=True)]
    assert any(history for trace in traces for history in trace.head_history)


def scripted(name: str, n: int, script: list[str]) -> tuple[list[int], Trace]:
    """Run a scripted derivation through `traced_apply`: the final heads and the trace."""
    ts = systems.get(name)
    state = ts.initial(n).state.copy()
    built_by = np.full(n + 1, -1, dtype=np.int32)
    reheadings = np.zeros((n * (n + 1) // 2, 2), dtype=np.int32)
    count = 0
    for action in script:
        assert action in ts.legal(systems.Configuration(state, ts))
        count = traced_apply(ts.kernels.system_id, state, ts.action_id(action), 0, built_by,
                             reheadings, count)
    heads = st.region(state, st.HEADS).tolist()
    return heads, of_parse(ts.kernels.actions, built_by, reheadings[:count].tolist())


def test_covington_nm_records_the_arc_deleted_to_break_a_cycle():
    # 1 -> 2 and 2 -> 3 by Right-Arcs; then Left-Arc 3 -> 1 would close the cycle
    # 1 -> 2 -> 3 -> 1, so it deletes 2 -> 3 (2017 paper, Figure 2): 3 ends headless.
    heads, trace = scripted("covington-nm", 3,
                            ["shift", "right-arc", "shift", "right-arc", "left-arc", "shift"])
    assert heads == [-1, 3, 1, -1]
    assert trace.transition == (None, "left-arc", "right-arc", None)
    assert trace.head_history == ((), (), (), (2,))
    assert trace.misc()[1:] == [
        {"Transition": "left-arc", "HeadHistory": None},
        {"Transition": "right-arc", "HeadHistory": None},
        {"Transition": "none", "HeadHistory": "2"},
    ]


def test_covington_nm_records_a_replaced_head():
    # 2 -> 3, then 1 -> 3 replaces it
    heads, trace = scripted("covington-nm", 3, ["shift", "shift", "right-arc", "right-arc"])
    assert heads == [-1, -1, -1, 1]
    assert trace.transition == (None, None, None, "right-arc")
    assert trace.head_history == ((), (), (), (2,))


def test_arc_eager_nm_left_arc_replaces_a_right_arc():
    # RIGHT-ARC 0 -> 1, LEFT-ARC 2 -> 1 (replacing 0 -> 1), RIGHT-ARC 0 -> 2
    heads, trace = scripted("arc-eager-nm", 2, ["right-arc", "left-arc", "right-arc"])
    assert heads == [-1, 2, 0]
    assert trace.transition == (None, "left-arc", "right-arc")
    assert trace.head_history == ((), (0,), ())


def test_arc_eager_nm_reduce_builds_an_arc_to_a_headless_top():
    heads, trace = scripted("arc-eager-nm", 3, ["shift", "shift", "reduce", "right-arc"])
    assert heads == [-1, -1, 1, 1]  # REDUCE attached 2 to 1 below it
    assert trace.transition == (None, None, "reduce", "right-arc")
    assert trace.head_history == ((), (), (), ())


@given(stg.sampled_from(sorted(SYSTEMS)), stg.integers(0, 6), stg.randoms(use_true_random=False))
def test_arc_names_the_only_heads_an_action_changes(name, n, rng):
    """`arc` (the seam the trace relies on) against apply, on random legal walks."""
    ts = systems.get(name)
    c = ts.initial(n)
    while not ts.is_terminal(c):
        for action in ts.legal(c):
            arc = ts.arc(c, action)
            before, after = ts.heads(c), ts.heads(ts.apply(c, action))
            changed = {w for w in range(n + 1) if before[w] != after[w]}
            if arc is None:
                assert not changed
            else:
                head, dependent = arc
                assert after[dependent] == head
                assert changed <= {dependent, head}
                assert head == dependent or head not in changed or after[head] == -1
        c = ts.apply(c, rng.choice(ts.legal(c)))


def test_single_root_and_deprojectivization_rules(data):
    train_sentences, test_sentences = data
    parser, _ = train("arc-eager", train_sentences, oracle="static", epochs=1, seed=1,
                      pseudo_projective="head", **SMALL)
    raw = Parser(parser.system, parser.vocabularies, parser.table, parser.classes,
                 parser.weights, parser.root_label)
    sentences = train_sentences + test_sentences
    # deprojectivization moves arcs but keeps the transitions that built them
    assert ([t for *_, t in parser.parse(sentences, trace=True)]
            == [t for *_, t in raw.parse(sentences, trace=True)])
    # single-rooting: a word moved under the kept root has no transition, the others keep theirs
    many = raw.parse(sentences, trace=True)
    one = raw.parse(sentences, single_root=True, trace=True)
    for (head, _, trace), (head1, _, trace1) in zip(many, one):
        for d in range(1, len(head)):
            expected = None if head[d] != head1[d] else trace.transition[d]
            assert trace1.transition[d] == expected
        assert trace1.head_history == trace.head_history


def sentence_of(misc_column: list[str], conllx: bool = False) -> Sentence:
    n = len(misc_column)
    lines = ["# text = a b c"] + [
        f"{i}\tw{i}\tw\tX\tX\t_\t0\tdep\t_\t{misc}" for i, misc in enumerate(misc_column, 1)
    ]
    return Sentence(form=(ROOT, *[f"w{i}" for i in range(1, n + 1)]), lemma=(ROOT,) * (n + 1),
                    upos=(ROOT,) * (n + 1), xpos=(ROOT,) * (n + 1), feats=(ROOT,) * (n + 1),
                    head=np.array([-1] + [0] * n, dtype=np.int32), deprel=(ROOT,) + ("dep",) * n,
                    lines=lines, word_lines=np.arange(n + 1, dtype=np.int32))


def test_misc_attributes_are_merged():
    s = sentence_of(["_", "SpaceAfter=No", "Transition=shift|SpaceAfter=No|HeadHistory=1",
                     "Gloss=x|HeadHistory=4|Transition=a|Transition=b"])
    trace = Trace((None, "left-arc", None, "right-arc", "reduce"), ((), (2, 3), (), (), ()))
    out = conllu.with_misc(s, trace.misc())
    assert conllu.misc(out) == (
        "_",
        "Transition=left-arc|HeadHistory=2,3",
        "SpaceAfter=No|Transition=none",
        "Transition=right-arc|SpaceAfter=No",
        "Gloss=x|Transition=reduce",
    )
    assert out.lines[0] == s.lines[0]
    assert [line.split("\t")[:9] for line in out.lines[1:]] == [
        line.split("\t")[:9] for line in s.lines[1:]]
    assert from_misc(out) == trace
    assert conllu.misc(conllu.with_misc(s, [{}] * 5)) == conllu.misc(s)


@pytest.mark.end_to_end
def test_parse_file_writes_the_trace_into_misc(parsers, data, tmp_path):
    parser = parsers["covington-nm"]
    source = tmp_path / "in.conllu"
    conllu.write(source, data[1])
    plain, traced = tmp_path / "plain.conllu", tmp_path / "traced.conllu"
    parser.parse_file(source, plain)
    parser.parse_file(source, traced, trace=True)
    expected = conllu.write(tmp_path / "expected.conllu", data[1],
                            trees=parser.parse(data[1]))
    assert expected == len(data[1])
    # without trace: the output of parse, byte for byte
    assert plain.read_bytes() == (tmp_path / "expected.conllu").read_bytes()
    written = list(conllu.read(traced))
    for s, t, (head, deprel, trace) in zip(conllu.read(plain), written,
                                           parser.parse(data[1], trace=True)):
        assert np.array_equal(s.head, t.head) and s.deprel == t.deprel
        assert from_misc(t) == trace
        # only MISC differs from the untraced output
        assert [line.split("\t")[:9] for line in s.lines] == [
            line.split("\t")[:9] for line in t.lines]
    # tracing a traced file replaces the record instead of adding to it
    again = tmp_path / "again.conllu"
    parser.parse_file(traced, again, trace=True)
    assert again.read_bytes() == traced.read_bytes()


@pytest.mark.end_to_end
def test_conllx_gets_the_trace_in_its_tenth_column(parsers, data, tmp_path):
    parser = parsers["arc-eager-nm"]
    source, output = tmp_path / "in.conll", tmp_path / "out.conll"
    conllu.write(source, map(conllu.common_core, data[1]))
    parser.parse_file(source, output, trace=True)
    written = list(read_treebank(output))
    assert [from_misc(s) for s in written] == [t for *_, t in parser.parse(data[1], trace=True)]
    assert all(len(line.split("\t")) == 10 for s in written for line in s.lines)


def test_guided_parser_traces_its_guided_model(parsers, data):
    guide = parsers["arc-eager"]
    guide_trees = [dataclasses.replace(s, head=h, deprel=d)
                   for s, (h, d) in zip(data[0], guide.parse(data[0], single_root=False))]
    guided, _ = train("covington", data[0], oracle="static", epochs=1, seed=1,
                      guide=guide_trees, **SMALL)
    stacked = GuidedParser(guide, guided)
    parses = stacked.parse(data[1], trace=True)
    guides = [dataclasses.replace(s, head=h, deprel=d)
              for s, (h, d) in zip(data[1], guide.parse(data[1], single_root=False))]
    for (head, deprel, trace), (g_head, g_deprel, g_trace) in zip(
            parses, guided.parse(data[1], guide=guides, trace=True)):
        assert np.array_equal(head, g_head) and deprel == g_deprel and trace == g_trace
    transitions = {t for *_, trace in parses for t in trace.transition}
    assert transitions <= arc_actions("covington") | {None}


def arcwise_cli(*args):
    return subprocess.run([sys.executable, "-m", "arcwise", *map(str, args)],
                          capture_output=True, text=True, timeout=600)


@pytest.mark.end_to_end
def test_cli_trace(parsers, data, tmp_path):
    model = tmp_path / "m.arcwise"
    parsers["arc-eager-nm"].save(model)
    source = tmp_path / "in.conllu"
    conllu.write(source, data[1][:5])
    run = arcwise_cli("parse", "-m", model, "--trace", source, "-o", tmp_path / "out.conllu")
    assert run.returncode == 0, run.stderr
    for s in conllu.read(tmp_path / "out.conllu"):
        assert all("Transition=" in m for m in conllu.misc(s)[1:])


@pytest.mark.end_to_end
def test_graph_based_parsers_refuse_to_trace(parsers, data, tmp_path):
    from arcwise.graph.mst_parser import train_graph_parser

    tiny = {"epochs": 1, "seed": 1, "buckets": 2**10, "label_buckets": 2**8}
    mst, _ = train_graph_parser(data[0][:2], **tiny)
    guided_mst, _ = train_graph_parser(data[0][:2], guide=data[0][:2], **tiny)
    stacked = GuidedParser(parsers["arc-eager"], guided_mst)
    source, output = tmp_path / "in.conllu", tmp_path / "out.conllu"
    conllu.write(source, data[1][:2])
    for parser in (mst, stacked):
        with pytest.raises(ArcwiseError, match="graph-based"):
            parser.parse(data[1][:2], trace=True)
        with pytest.raises(ArcwiseError, match="graph-based"):
            parser.parse_file(source, output, trace=True)
        assert not output.exists()
    model = tmp_path / "mst.arcwise"
    mst.save(model)
    run = arcwise_cli("parse", "-m", model, "--trace", source)
    assert run.returncode == 2
    assert run.stdout == ""
    assert len(run.stderr.strip().splitlines()) == 1 and "graph-based" in run.stderr
