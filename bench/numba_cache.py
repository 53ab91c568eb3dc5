"""The benches' own numba cache, one folder per version of the package's source.

numba checks a cached function only against its own file, not against the
kernels it calls from other files, so a cache kept across edits can run stale
machine code (a changed array layout then crashes a worker).  The benches
therefore put their cache in ``BASE/<fingerprint of every source file>``: an
edit anywhere in ``src/arcwise`` starts a fresh cache, and unchanged sources
share it between runs and scripts.  ``inherit`` instead of BASE keeps the
caller's cache (numba's default, beside the sources, unless NUMBA_CACHE_DIR
is set): the test suite's smoke runs share the kernels it compiled already.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1] / "src" / "arcwise"


def source_fingerprint(source: Path = SOURCE) -> str:
    """A short hash of the path and bytes of every .py file under `source`."""
    digest = hashlib.sha256()
    for path in sorted(source.rglob("*.py")):
        digest.update(str(path.relative_to(source)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def cache_dir(base: Path) -> Path:
    """BASE/<source fingerprint>: the numba cache folder for the current source."""
    return Path(base) / source_fingerprint()


INHERIT = "inherit"


def child_environment(base: str | Path) -> dict[str, str]:
    """os.environ for a child process, with NUMBA_CACHE_DIR = `cache_dir(base)`, or
    unchanged when `base` is INHERIT."""
    if str(base) == INHERIT:
        return dict(os.environ)
    return {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir(Path(base)))}


def use_for_children(base: str | Path) -> None:
    """Give the child processes started from now on `cache_dir(base)` as their numba cache
    (unless NUMBA_CACHE_DIR is set already, or `base` is INHERIT: then the caller's)."""
    if str(base) != INHERIT:
        os.environ.setdefault("NUMBA_CACHE_DIR", str(cache_dir(Path(base))))
