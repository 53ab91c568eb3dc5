"""Test-wide settings: CI runs hypothesis derandomised, so a red build is reproducible; the
NUMBA_DISABLE_JIT=1 run skips the end-to-end tests (marker `end_to_end`)."""

import os

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev"))


def _drop_stale_numba_caches() -> None:
    """numba checks a cached function only against its own file, not the kernels it calls
    from other modules: after any source edit, drop every cache so nothing stale runs."""
    import pathlib

    if os.environ.get("NUMBA_DISABLE_JIT") == "1":
        return  # nothing is compiled; and `make test` runs this suite beside the compiled one

    def mtime(path: pathlib.Path) -> float:
        try:
            return path.stat().st_mtime
        except FileNotFoundError:  # removed meanwhile by another process
            return float("inf")

    src = pathlib.Path(__file__).resolve().parents[1] / "src" / "arcwise"
    caches = list(src.rglob("__pycache__/*.nbi"))
    if not caches:
        return
    newest_source = max(mtime(p) for p in src.rglob("*.py"))
    if min(mtime(p) for p in caches) < newest_source:
        for p in src.rglob("__pycache__/*.nb[ic]"):
            p.unlink(missing_ok=True)


_drop_stale_numba_caches()


PURE_PYTHON = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "end_to_end: a test of the command line, the service, files or a bench "
        "script; the NUMBA_DISABLE_JIT=1 run skips it (the unit tests check the kernels it "
        "calls without JIT, and the compiled run covers its plumbing)")
    config.addinivalue_line(
        "markers", "neural: an end-to-end test that trains torch models; `make test` runs it "
        "after the compiled unit tests, whose numba cache it then finds filled")
    config.addinivalue_line(
        "markers", "docs: an end-to-end test of the documentation (the Sphinx build, the "
        "guides' code); `make test` runs it with the neural ones, on the less busy core")
    config.addinivalue_line(
        "markers", "packaging: an end-to-end test of model packages (wheels, pip installs, "
        "the make models builder); `make test` runs it with the docs' tests")
    config.addinivalue_line(
        "markers", "stress: signals at random moments of the commands that write files "
        "(tests/test_stress.py), end to end; short by default, ARCWISE_STRESS=long for the "
        "long run (`make stress`)")


def pytest_collection_modifyitems(config, items):
    if not PURE_PYTHON:
        return
    skip = pytest.mark.skip(reason="end to end: run by the compiled suite")
    for item in items:
        if item.get_closest_marker("end_to_end"):
            item.add_marker(skip)
