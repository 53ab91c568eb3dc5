"""Static-oracle coverage on real trees: every buildable tree is rebuilt."""

import numpy as np
import pytest

from arcwise import systems
from arcwise.analysis.oracle_coverage import oracle_coverage, static_oracle_tree
from arcwise.io import read_treebank
from arcwise.trees.planarity import is_two_planar
from arcwise.trees.projectivity import is_projective

DEV = "data/en_ewt/dev.conllu.gz"

# (system, the trees it can build)
CASES = [
    ("covington", lambda h: True),
    ("covington-nm", lambda h: True),
    ("covington-nl", lambda h: True),
    ("covington-nl-nm", lambda h: True),
    ("arc-eager", is_projective),
    ("arc-eager-nm", is_projective),
    ("arc-hybrid", is_projective),
    ("arc-hybrid+swap", lambda h: True),
    ("two-planar", is_two_planar),
]


@pytest.fixture(scope="module")
def dev_trees():
    trees = [s.head for s in read_treebank(DEV)]
    # the first 400 sentences plus every non-projective one
    nonprojective = [h for h in trees if not is_projective(h)]
    return trees[:400] + nonprojective


@pytest.mark.parametrize("name,buildable", CASES, ids=[c[0] for c in CASES])
def test_static_oracle_rebuilds_every_buildable_tree(name, buildable, dev_trees):
    ts = systems.get(name)
    cov = oracle_coverage(ts, dev_trees)
    assert cov.sentences == len(dev_trees)
    assert cov.buildable == sum(bool(buildable(h)) for h in dev_trees)
    assert cov.oracle_failures == 0
    assert cov.rebuilt >= cov.buildable


def test_projective_systems_miss_nonprojective_arcs(dev_trees):
    ts = systems.get("arc-eager")
    nonprojective = [h for h in dev_trees if not is_projective(h)]
    assert nonprojective, "EWT dev has non-projective trees"
    built = [static_oracle_tree(ts, h) for h in nonprojective]
    assert all(not np.array_equal(b, h) for b, h in zip(built, nonprojective))
