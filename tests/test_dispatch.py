"""The compiled dispatchers agree with every system's and oracle's own kernels,
and the walk built on them is loaded from numba's cache in a fresh process."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from arcwise import systems
from arcwise.dispatch import oracles as oracle_dispatch
from arcwise.dispatch import systems as system_dispatch
from arcwise.dispatch.walk import final_heads, follow_static_oracle
from arcwise.systems.base import GOLD_ARRAYS, pack_gold
from tests.reference.random_trees import trees

VARIANTS = [
    ("arc-eager", {}),
    ("arc-eager+lba", {}),
    ("arc-eager+rba", {}),
    ("arc-eager+lnba", {}),
    ("arc-eager+rnba", {}),
    ("arc-eager+lba+rba+lnba+rnba", {}),
    ("arc-eager-nm", {}),
    ("arc-eager-nm", {"priority": "none"}),
    ("arc-hybrid", {}),
    ("arc-hybrid+swap", {"swap": "lazy"}),
    ("arc-hybrid+swap", {"swap": "eager"}),
    ("covington", {}),
    ("covington+root", {}),
    ("covington-nm", {}),
    ("covington-nm", {"priority": "monotonic"}),
    ("covington-nm+root", {}),
    ("covington-nl", {}),
    ("covington-nl+root", {}),
    ("covington-nl-nm", {}),
    ("covington-nl-nm+root", {}),
    ("two-planar", {}),
    ("two-planar", {"regularize": False}),
]
IDS = [name + "".join(f"-{v}" for v in options.values()) for name, options in VARIANTS]
SYSTEMS = {key: systems.get(name, **options) for key, (name, options) in zip(IDS, VARIANTS)}


def test_generated_dispatch_is_current():
    """ids.py and both dispatch.py files are what the registry generates now
    (`python -m arcwise.dispatch.generate`, or `make dispatch`, rewrites them)."""
    from arcwise.dispatch.generate import stale

    assert stale() == []


def test_generated_dispatch_groups_shared_kernels_and_variants():
    from arcwise.dispatch.generate import generated

    texts = {path.name + path.parent.name: text for path, text in generated().items()}
    systems_text, oracles_text = texts["systems.pydispatch"], texts["oracles.pydispatch"]
    assert ("if (system == COVINGTON or system == COVINGTON_NM or system == COVINGTON_NL\n"
            "           or system == COVINGTON_NL_NM):\n"
            "        return covington.initial(n, options)") in systems_text
    assert "if system == COVINGTON_NL:\n        return covington_nonlocal.n_actions(n)" in \
        systems_text  # a system whose actions carry k counts them per sentence
    assert "return two_planar.initial(n)\n" in systems_text  # a system without variants
    assert "if variant == two_planar.UNREGULARIZED:" in oracles_text


def test_a_new_registry_entry_is_all_the_dispatch_needs():
    """A system registered under a new name gets its id and its branches; one whose
    kernels are another's shares that system's branches."""
    import dataclasses

    from arcwise.dispatch.generate import generated
    from arcwise.systems.base import Registry

    entries = dict(systems.REGISTRY.entries)
    entries["arc-eager-copy"] = dataclasses.replace(entries["arc-eager"])
    texts = {path.parent.name + "/" + path.name: text
             for path, text in generated(Registry(entries)).items()}
    assert '"arc-eager-copy": ARC_EAGER_COPY,' in texts["systems/ids.py"]
    assert "ARC_EAGER_COPY = 8" in texts["systems/ids.py"]
    assert ("if system == ARC_EAGER or system == ARC_EAGER_NM or system == ARC_EAGER_COPY:\n"
            "        return arc_eager.initial(n, options)") in texts["dispatch/systems.py"]
    assert "if system == ARC_EAGER_COPY:\n        return ARC_EAGER_COPY_ACTIONS" in \
        texts["dispatch/systems.py"]
    assert "system == ARC_EAGER or system == ARC_EAGER_COPY:\n        arc_eager.costs(" in \
        texts["dispatch/oracles.py"]


def test_pack_gold_gives_one_tuple_type():
    packed = pack_gold(np.array([-1, 0], dtype=np.int64), np.array([True, False]), 3)
    assert len(packed) == GOLD_ARRAYS
    assert all(a.dtype == np.int32 and a.ndim == 1 and a.flags.c_contiguous for a in packed)
    assert [a.tolist() for a in packed[:3]] == [[-1, 0], [1, 0], [3]]
    assert all(len(a) == 0 for a in packed[3:])
    with pytest.raises(ValueError):
        pack_gold(*([1] * (GOLD_ARRAYS + 1)))


@pytest.mark.parametrize("key", IDS)
def test_every_prepare_is_packed(key):
    prepared = SYSTEMS[key].oracle.prepare(np.array([-1, 2, 0, 2], dtype=np.int32))
    assert len(prepared) == GOLD_ARRAYS
    assert all(a.dtype == np.int32 and a.ndim == 1 for a in prepared)


@pytest.mark.parametrize("key", IDS)
@settings(max_examples=40, deadline=None)
@given(gold=trees(1, 7), seed=hs.integers(0, 2**32 - 1))
def test_dispatch_equals_module_kernels(key, gold, seed):
    ts = SYSTEMS[key]
    k, oracle = ts.kernels, ts.oracle
    system, variant = k.system_id, oracle.variant
    n = len(gold) - 1
    prepared = oracle.prepare(np.asarray(gold, dtype=np.int32))
    state = k.initial(n)
    assert np.array_equal(system_dispatch.initial(system, n, k.options), state)
    assert system_dispatch.n_actions(system, n) == k.action_count(n)
    twin = state.copy()  # the state driven through the dispatcher
    rng = np.random.default_rng(seed)
    for _ in range(4 * (n + 1) * (n + 1)):
        assert bool(system_dispatch.is_terminal(system, twin)) == bool(k.is_terminal(state))
        if k.is_terminal(state):
            break
        mask = np.zeros(k.action_count(n), dtype=np.bool_)
        k.legal(state, mask)
        twin_mask = np.zeros(k.action_count(n), dtype=np.bool_)
        system_dispatch.legal(system, twin, twin_mask)
        assert np.array_equal(twin_mask, mask)
        assert oracle_dispatch.static(system, variant, twin, prepared) == oracle.static(
            state, prepared
        )
        for bound in range(max(len(oracle.bounds), 1)):
            expected = oracle.loss(state, prepared, bound)
            assert oracle_dispatch.loss(system, variant, twin, prepared, bound) == expected
            out = np.zeros(k.action_count(n), dtype=np.int64)
            oracle.costs(state, prepared, bound, out)
            twin_out = np.zeros(k.action_count(n), dtype=np.int64)
            oracle_dispatch.costs(system, variant, twin, prepared, bound, twin_out)
            assert np.array_equal(twin_out[mask], out[mask])
        action = int(rng.choice(np.flatnonzero(mask)))
        label = int(rng.integers(-1, 3)) if k.takes_label(action) else -1
        k.apply(state, action, label)
        system_dispatch.apply(system, twin, action, label)
        assert np.array_equal(twin, state)


@pytest.mark.parametrize("key", IDS)
@settings(max_examples=25, deadline=None)
@given(gold=trees(1, 8))
def test_walk_follows_the_modules_static_oracle(key, gold):
    ts = SYSTEMS[key]
    k, oracle = ts.kernels, ts.oracle
    n = len(gold) - 1
    prepared = oracle.prepare(np.asarray(gold, dtype=np.int32))
    expected = k.initial(n)
    taken = 0
    mask = np.zeros(k.action_count(n), dtype=np.bool_)
    while not k.is_terminal(expected):
        mask[:] = False
        k.legal(expected, mask)
        action = oracle.static(expected, prepared)
        if not mask[action]:
            pytest.skip("the static oracle leaves the system here (covered by the module tests)")
        k.apply(expected, action, -1)
        taken += 1
    state = system_dispatch.initial(k.system_id, n, k.options)
    max_steps = 4 * (n + 1) * (n + 1) + 16
    assert follow_static_oracle(k.system_id, oracle.variant, state, prepared, max_steps) == taken
    assert np.array_equal(state, expected)
    assert final_heads(state)[0] == -1


WALK_SCRIPT = """
import numpy as np
from arcwise.oracles import covington_nonmonotonic
from arcwise.dispatch.walk import follow_static_oracle
from arcwise.systems import dispatch
from arcwise.systems.ids import COVINGTON_NM

state = dispatch.initial(COVINGTON_NM, 3, 0)
gold = covington_nonmonotonic.prepare(np.array([-1, 2, 0, 2], dtype=np.int32))
assert follow_static_oracle(COVINGTON_NM, 0, state, gold, 100) > 0
stats = follow_static_oracle.stats
print(sum(stats.cache_hits.values()), sum(stats.cache_misses.values()))
"""


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="no compiled code to cache")
def test_a_fresh_process_loads_the_walk_from_cache():
    root = Path(__file__).resolve().parents[1]

    def run():
        command = [sys.executable, "-c", WALK_SCRIPT]
        done = subprocess.run(command, cwd=root, capture_output=True, text=True, check=True)
        hits, misses = map(int, done.stdout.split())
        return hits, misses

    run()  # compiles and writes the cache if it is not there yet
    assert run() == (1, 0)


ONE_SYSTEM_PARSE = """
import sys
from numba.core.registry import CPUDispatcher
from arcwise.dispatch.generate import registry_modules
from arcwise.io import read_treebank
from arcwise.models import kinds

parser = kinds.load(sys.argv[1])
parser.parse(list(read_treebank(sys.argv[2])))
modules = {m for kind in registry_modules() for m in kind.values()}
names = {m.__name__ for m in modules}
compiled = {f"{f.py_func.__module__}.{f.__name__}" for m in modules for f in vars(m).values()
            if isinstance(f, CPUDispatcher) and f.signatures and f.py_func.__module__ in names}
print(" ".join(sorted(compiled)))
"""


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="nothing compiles")
def test_a_first_parse_compiles_the_models_system_alone(tmp_path):
    """The parse loop takes its system id as a literal (`numba.literally`) and the dispatch
    keeps that system's branch, so a first parse with an arc-eager model compiles arc-eager's
    kernels and no other system's: a cold start pays for the model's system only (issue
    #40, item 4)."""
    from arcwise.io import conllu
    from tests.ewt import train_and_dev
    from tests.tiny_model import tiny_parser

    model, sentences = tmp_path / "arc-eager.model", tmp_path / "two.conllu"
    tiny_parser().save(model)
    conllu.write(sentences, train_and_dev(12, 0)[0][10:])
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", ONE_SYSTEM_PARSE, str(model), str(sentences)],
                          cwd=root, check=True, capture_output=True, text=True,
                          env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")})
    compiled = set(done.stdout.split())
    assert {"arcwise.systems.arc_eager.legal", "arcwise.systems.arc_eager.apply"} <= compiled
    others = {name for name in compiled if name.split(".")[2] != "arc_eager"}
    assert others == set(), others
