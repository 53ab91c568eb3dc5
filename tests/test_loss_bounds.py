"""The loss-bounds experiment (2017 paper Table 1) and its command."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from typer.testing import CliRunner

from arcwise import systems
from arcwise.analysis.loss_bounds import (
    COLUMNS,
    explore_while_training,
    explore_with_model,
    explore_with_oracle,
    measure_loss_bounds,
    trained_policy,
)
from arcwise.cli.main import app
from arcwise.oracles.exact_loss import exact_loss, witness_loss
from arcwise.systems import covington_nonmonotonic as system
from tests.ewt import compiled_only, train_and_dev
from tests.reference import exhaustive
from tests.reference.random_trees import examples, reachable_configurations, trees

TREES = [
    [-1, 2, 0, 2],
    [-1, 3, 4, 0, 3, 4],  # non-projective: 2 -> 4 crosses 3 -> 1... and 3 -> 4
    [-1, 0, 3, 1, 3, 4, 4],
    [-1, 2, 0, 5, 5, 2, 5, 2],
]


def conllu(trees) -> str:
    blocks = []
    for heads in trees:
        rows = [f"{d}\tw{d}\tw{d}\tX\tX\t_\t{heads[d]}\tdep\t_\t_" for d in range(1, len(heads))]
        blocks.append("\n".join(rows) + "\n\n")
    return "".join(blocks)


def test_without_exploration_the_gold_path_costs_nothing():
    table = measure_loss_bounds(TREES, 10_000, explore_with_oracle(0.0), seed=3)
    assert table.sentences == len(TREES) and table.unresolved == 0 and table.violations == 0
    expected = sum(len(h) * (len(h) + 1) for h in TREES)  # an upper limit on transitions
    assert 0 < table.configurations <= expected
    assert all(table.average(c) == 0 for c in COLUMNS)


def test_with_exploration_the_bounds_sandwich_the_loss():
    table = measure_loss_bounds(TREES * 5, 400, explore_with_oracle(0.3), seed=7)
    assert table.configurations + table.unresolved == table.transitions <= 400
    assert table.violations == 0 and table.sentences == 20
    lower, loss, pc_upper, upper = (table.average(c) for c in COLUMNS)
    assert lower <= loss <= pc_upper <= upper and upper > 0
    assert table.relative_difference("loss") == 0


def test_a_plugged_in_policy_is_followed():
    taken = []

    def always_shift_or_first(state, prepared, mask, rng):
        action = system.SHIFT if mask[system.SHIFT] else int(np.flatnonzero(mask)[0])
        taken.append(action)
        return action

    table = measure_loss_bounds([TREES[1]], 100, always_shift_or_first)
    assert taken == [system.SHIFT] * 5 and table.configurations == 5
    # focus (3, 4): 3 -> 1 is lost; (4, 5): 4 -> 2 and 3 -> 4 too, only 4 -> 5 is left
    assert table.sums["loss"] == 0 + 0 + 0 + 1 + 3


STEPS = 200


@pytest.fixture(scope="module")
def ewt():
    return train_and_dev(12, 6)


@compiled_only
def test_the_trained_policy_meets_the_configurations_of_training(ewt):
    seen, unseen = ewt
    policy = trained_policy(seen, epochs=1, p=1.0, bound="upper", seed=1,
                            system_name="covington-nm")
    assert isinstance(policy, explore_with_model)
    table = measure_loss_bounds(unseen, STEPS, policy, seed=2)
    assert table.violations == 0 and table.configurations + table.unresolved == STEPS
    assert table.average("loss") > 0  # its own mistakes, followed
    # never exploring: mistakes are not followed, the best-scoring zero-cost action is
    careful = explore_with_model(policy.parser, 0.0, "upper")
    assert measure_loss_bounds(unseen, STEPS, careful, seed=2).average("upper") == 0


@compiled_only
def test_training_step_by_step_is_the_trainer(ewt):
    from arcwise.transition.train import train

    seen, _ = ewt
    fused = explore_while_training(seen, p=0.9, explore_from=1, seed=3)
    fused.train_epochs(1)
    stepped = explore_while_training(seen, p=0.9, explore_from=1, seed=3)
    table = measure_loss_bounds(stepped.epoch_sentences(), 10**6, stepped)
    # epoch 0 does not explore: every configuration is on a zero-cost path
    assert table.sentences == len(seen) and table.average("upper") == 0
    assert stepped.step == fused.step == table.configurations
    for mine, theirs in ((stepped.perceptron.weights, fused.perceptron.weights),
                         (stepped.perceptron.totals, fused.perceptron.totals)):
        np.testing.assert_array_equal(mine.transition, theirs.transition)
        np.testing.assert_array_equal(mine.label, theirs.label)
    # and the compiled epochs are those of `arcwise train`
    parser, _ = train("covington-nm", seen, oracle="dynamic", bound="upper", epochs=2,
                      explore_from=1, explore_p=0.9, seed=3)
    fused.train_epochs(1)
    np.testing.assert_array_equal(parser.weights.transition,
                                  fused.perceptron.averaged(fused.step).transition)
    # the next epoch explores: its configurations are the trainer's own mistakes, learnt from
    before = fused.step
    exploring = measure_loss_bounds(fused.epoch_sentences(), STEPS, fused, seed=1)
    assert fused.exploring and fused.step == before + STEPS
    assert exploring.average("loss") > 0 and exploring.violations == 0


@pytest.mark.end_to_end
def test_command_prints_the_table_columns(tmp_path):
    path = tmp_path / "tiny.conllu"
    path.write_text(conllu(TREES))
    runner = CliRunner()
    arguments = ["loss-bounds", str(path), "--transitions", "60", "--explore-p", "0.2", "--json",
                 "--policy", "random"]
    result = runner.invoke(app, arguments)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["configurations"] + summary["unresolved"] == summary["transitions"] <= 60
    assert set(summary["average"]) == set(COLUMNS) | {"witness"}
    assert set(summary["relative_difference"]) == {"lower", "pc-upper", "upper", "witness"}
    assert summary["bound_violations"] == 0
    assert summary["closest"] in ("lower", "pc-upper", "tie")
    low, high = summary["loss_with_unresolved"]
    assert low <= high and (summary["unresolved"] or low == summary["average"]["loss"])
    text = runner.invoke(app, ["loss-bounds", str(path), "--transitions", "20"])
    assert text.exit_code == 0 and "pc-upper" in text.output and "training policy" in text.output
    for wrong in (["--policy", "oracle"], ["--policy", "trained", "--model-epochs", "0"]):
        assert runner.invoke(app, ["loss-bounds", str(path), *wrong]).exit_code != 0


@pytest.mark.end_to_end
def test_command_measures_the_first_transitions_of_training(tmp_path):
    path = tmp_path / "tiny.conllu"
    path.write_text(conllu(TREES * 3))
    arguments = ["loss-bounds", str(path), "--json", "--policy", "training", "--explore-from",
                 "0", "--explore-p", "1", "--transitions", "50", "--system", "covington-nm+root"]
    result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output[result.output.index("{"):])
    assert summary["model_epochs"] == 0 and summary["explore_from"] == 0
    assert summary["transitions"] == 50 and summary["bound_violations"] == 0
    # an untrained perceptron that always follows its own mistakes loses arcs
    assert summary["average"]["loss"] > 0


@pytest.mark.end_to_end
def test_command_rejects_other_systems(tmp_path):
    path = tmp_path / "tiny.conllu"
    path.write_text(conllu(TREES))
    result = CliRunner().invoke(app, ["loss-bounds", str(path), "--system", "covington"])
    assert result.exit_code != 0


ROOTED = systems.get("covington-nm+root")


@settings(max_examples=examples(120), deadline=None)
@given(hs.data())
def test_with_root_the_pruned_search_and_witness_agree_with_exhaustive_search(data):
    gold = data.draw(trees(max_words=6))
    c = data.draw(reachable_configurations(ROOTED, gold))
    loss = exhaustive.min_loss(ROOTED, c, gold)
    assert exact_loss(c.state, gold) == loss
    witness = witness_loss(c.state, np.array(gold, dtype=np.int32))
    assert ROOTED.loss(c, gold, "lower") <= loss <= witness <= ROOTED.loss(c, gold, "pc-upper")
