"""The compiled feature extractor against the plain-Python reference, on random configurations."""

import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from arcwise import systems
from arcwise.features.addresses import IL, IR, N_BASES, base_positions
from arcwise.features.extract import extract, head_place, new_outputs
from arcwise.features.templates import BASES_OF, MOVES, compile_table, default_table
from arcwise.features.words import WORD_COLUMNS
from arcwise.systems import ids
from tests.reference import features_reference as ref
from tests.reference.random_trees import trees

SYSTEMS = (
    "covington",
    "covington-nm",
    "covington+root",
    "covington-nm+root",
    "arc-eager",
    "arc-eager+lba+rba+lnba+rnba",
    "arc-eager-nm",
    "arc-hybrid",
    "arc-hybrid+swap",
    "two-planar",
)


def every_move_and_atom(system: str) -> str:
    """A table using every base position, move and atom of a system, and chained moves."""
    lines = []
    for base in BASES_OF[ids.system_id(system)]:
        lines += [f"{base}.wpxml", f"{base}.dv_lv_rs_ls_r @label", f"{base}.lcsfshgdglgahr"]
        lines += [f"{base}.{move}.wl" for move in MOVES]
        lines += [f"{base}.l.r'.p", f"{base}.h.l2.ps_r", f"{base}.r.h2.x + {base}.w"]
    return "\n".join(lines)


def random_configuration(ts, n, rng, n_labels):
    """A configuration reached by random legal actions, arcs given random labels."""
    c = ts.initial(n)
    for _ in range(rng.integers(0, 3 * (n + 1))):
        legal = ts.legal(c)
        if not legal:
            break
        c = ts.apply(c, legal[rng.integers(len(legal))], int(rng.integers(0, n_labels)))
    return c


def random_columns(n, rng):
    """Random ids per column of the words matrix, and a random guide tree (or none)."""
    columns = {name: rng.integers(0, 6, n + 1).astype(np.int32) for name in WORD_COLUMNS}
    for column in columns.values():
        column[0] = 1  # the root's id (vocab.ROOT_ID)
    if rng.random() < 0.2:
        columns["guide_head"][:] = -1  # no guide
    else:
        columns["guide_head"][1:] = rng.integers(-1, n + 1, n)
        columns["guide_head"][0] = -1
    return columns


def compiled(system, c, table, columns):
    out_t, out_l = new_outputs(table.program)
    words = np.ascontiguousarray(np.stack([columns[name] for name in WORD_COLUMNS], axis=1))
    extract(ids.system_id(system), c.state.copy(), table.program, words, out_t, out_l)
    return out_t, out_l


@pytest.mark.parametrize("system", SYSTEMS)
@settings(max_examples=60, deadline=None)
@given(gold=trees(1, 9), seed=hs.integers(0, 2**32 - 1), n_labels=hs.sampled_from([3, 40, 300]))
def test_extract_matches_reference(system, gold, seed, n_labels):
    ts = systems.get(system)
    rng = np.random.default_rng(seed)
    n = len(gold) - 1
    c = random_configuration(ts, n, rng, n_labels)
    columns = random_columns(n, rng)
    tables = (default_table(system), default_table(system, guided=True),
              compile_table(every_move_and_atom(system), system))
    for table in tables:
        out_t, out_l = compiled(system, c, table, columns)
        expected = ref.features(c, table.templates, columns)
        assert [int(h) for h in out_t] == expected
        assert [int(h) for h in out_l] == [expected[t] for t in table.program.label_templates]


def test_covington_base_positions_by_hand():
    ts = systems.get("covington")
    c = ts.initial(7)
    script = ["shift", "shift", "no-arc", "right-arc", "shift", "shift", "shift", "left-arc"]
    for action in script:  # arcs 1 -> 3 and 6 -> 5; now i = 4, j = 6
        c = ts.apply(c, action, 0 if action in ("left-arc", "right-arc") else -1)
    positions = np.empty(N_BASES, dtype=np.int64)
    base_positions(ids.COVINGTON, c.state, positions)
    assert positions[:8].tolist() == [4, 3, 2, 6, 7, -1, -1, -1]  # 5's head 6 is in [4, 6]
    assert positions[[IL, IR]].tolist() == [5, 5]  # the inner neighbours of 4 and 6
    for _ in range(2):
        c = ts.apply(c, "no-arc")  # i = 2: words 3, 4, 5 lie between L0 = 2 and R0 = 6
    base_positions(ids.COVINGTON, c.state, positions)
    # 3's head 1 is outside [2, 6], 4 is headless, 5's head 6 is inside: CL = 3, CR = 4
    assert positions[:8].tolist() == [2, 1, -1, 6, 7, -1, 3, 4]
    assert positions[[IL, IR]].tolist() == [3, 5]
    c = ts.apply(c, "no-arc")
    c = ts.apply(c, "no-arc")  # λ1 empty: no L0, so no CL / CR
    base_positions(ids.COVINGTON, c.state, positions)
    assert positions[:8].tolist() == [-1, -1, -1, 6, 7, -1, -1, -1]
    assert positions[[IL, IR]].tolist() == [-1, -1]


def test_head_place_tells_where_the_arc_an_arc_transition_would_replace_comes_from():
    ts = systems.get("covington-nm")
    c = ts.initial(5)
    for action in ["shift", "right-arc", "shift", "no-arc", "shift", "left-arc"]:
        c = ts.apply(c, action, 0 if action in ("left-arc", "right-arc") else -1)
    # arcs 1 -> 2 and 4 -> 3; L0 = 2, R0 = 4, IL = 3, L1 = 1
    heads = c.system.heads(c)
    places = [head_place(heads[w], 2, 4) for w in (2, 4, 3, 1)]
    assert places == [2, 0, 5, 0]  # left of L0, none, R0, none
    assert [head_place(h, 2, 4) for h in (0, 2, 3, 5)] == [1, 3, 4, 6]  # root, L0, between, beyond
    table = compile_table("L0.hr\nR0.hr\nIL.hr\nL1.hr\nL0.hr + R0.hr", "covington-nm")
    columns = random_columns(5, np.random.default_rng(0))
    out_t, _ = compiled("covington-nm", c, table, columns)
    assert out_t.tolist() == ref.features(c, table.templates, columns)
    assert len(set(out_t[:4].tolist())) == 4  # distinct templates hash apart


def test_missing_words_still_fire_with_distinct_values():
    system = "covington"
    table = compile_table("L0.w\nR0.w\nL0.w + R0.w", system)
    columns = random_columns(2, np.random.default_rng(0))
    c0 = systems.get(system).initial(2)  # λ1 empty: L0 missing
    out_t, _ = compiled(system, c0, table, columns)
    assert len(set(out_t.tolist())) == 3 and 0 not in out_t.tolist()


DETERMINISM = """
import numpy as np
from arcwise import systems
from arcwise.features.extract import extract, new_outputs
from arcwise.features.templates import default_table
from arcwise.systems import ids
table = default_table("{system}", guided=True)
ts = systems.get("{system}")
c = ts.initial(6)
for action, label in {script}:
    c = ts.apply(c, action, label)
words = np.arange(7 * 9, dtype=np.int32).reshape(7, 9) % 7
out_t, out_l = new_outputs(table.program)
system_id = ids.system_id("{system}")
extract(system_id, c.state.copy(), table.program, words, out_t, out_l)
print(",".join(str(int(h)) for h in out_t))
"""


@pytest.mark.parametrize(
    "system,script",
    [
        ("covington-nm", [("shift", -1), ("shift", -1), ("left-arc", 2), ("shift", -1)]),
        ("two-planar", [("shift", -1), ("right-arc", 1), ("switch", -1), ("shift", -1)]),
    ],
)
def test_same_hashes_in_another_process(system, script):
    program = DETERMINISM.format(system=system, script=script)
    env = dict(os.environ, PYTHONHASHSEED="123")
    other = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, env=env, check=True
    )
    namespace: dict = {}
    from contextlib import redirect_stdout
    from io import StringIO

    buffer = StringIO()
    with redirect_stdout(buffer):
        exec(program, namespace)
    assert other.stdout == buffer.getvalue()
    assert len(other.stdout.split(",")) == default_table(system, guided=True).n_features
