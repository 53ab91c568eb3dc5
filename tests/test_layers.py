"""The package's layering (issue #39): no import cycle between arcwise's modules, imports
inside functions included; import-linter's contracts (pyproject.toml) kept; the module
paths from before the redesign still import, with a DeprecationWarning."""

import importlib
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def import_graph():
    grimp = pytest.importorskip("grimp")  # import-linter's own graph builder
    return grimp.build_graph("arcwise", cache_dir=None)


def strongly_connected(graph) -> list[set[str]]:
    """Tarjan's strongly connected components of the module graph with more than one
    module: each is an import cycle."""
    modules = sorted(graph.modules)
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.find_modules_directly_imported_by(v)):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)

    for module in modules:
        if module not in index:
            visit(module)
    return found


def test_no_import_cycle_not_even_inside_functions():
    graph = import_graph()
    assert strongly_connected(graph) == []
    # grimp sees imports inside functions: the one in arcwise.load is an edge
    assert "arcwise.pipeline.pipeline" in graph.find_modules_directly_imported_by("arcwise")


def test_the_layers_contract_is_kept():
    pytest.importorskip("importlinter")
    lint = Path(sys.executable).with_name("lint-imports")
    command = [str(lint)] if lint.exists() else [sys.executable, "-m", "importlinter.cli"]
    run = subprocess.run([*command, "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "broken" in run.stdout and " 0 broken" in run.stdout


@pytest.mark.parametrize("old, name, new", [
    ("arcwise.parse", "Parser", "arcwise.transition.parser"),
    ("arcwise.parse", "parse_batch", "arcwise.transition.kernels"),
    ("arcwise.parse", "Batch", "arcwise.features.batch"),
    ("arcwise.train", "train", "arcwise.transition.train"),
    ("arcwise.stacking", "GuidedParser", "arcwise.combination.stacking"),
    ("arcwise.corpus", "Sentence", "arcwise.core.corpus"),
    ("arcwise.pipeline.tokenizer", "Tokenizer", "arcwise.pipeline.stages.tokenizer"),
])
def test_old_module_paths_import_with_a_warning(old, name, new):
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"{old} moved to .*{new}"):
        module = importlib.import_module(old)
    assert getattr(module, name) is getattr(importlib.import_module(new), name)


def test_a_renamed_function_keeps_its_old_name():
    from arcwise.io.annotations import tree_annotations

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from arcwise.parse import annotations
    assert annotations is tree_annotations
