"""Test-wide settings: CI runs hypothesis derandomised, so a red build is reproducible."""

import os

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
