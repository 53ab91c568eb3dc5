"""A read-only install run by an unprivileged user: numba caches in a per-user folder
instead of dying with `cannot cache function ...: no locator available`."""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.tiny_model import SRC

NOBODY = 65534
PROGRAM = """
import importlib, os, pkgutil, arcwise
assert arcwise.__file__.startswith(os.environ["PYTHONPATH"]), arcwise.__file__
for module in pkgutil.walk_packages(arcwise.__path__, "arcwise."):
    if module.name != "arcwise.__main__":
        importlib.import_module(module.name)  # numba sets up every cached function here
from arcwise.transition.kernels import max_steps
assert max_steps(3) == 80  # compiled and cached
print(os.environ.get("NUMBA_CACHE_DIR", ""))
"""
WHERE = "import os, arcwise; print(os.environ.get('NUMBA_CACHE_DIR', ''))"


def as_nobody(command, env):
    return subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
                           *command], env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture
def shared_tmp():
    """A temporary folder other users can enter (pytest's own is private to its user)."""
    path = Path(tempfile.mkdtemp(prefix="arcwise-readonly-"))
    path.chmod(0o755)
    yield path
    for root, dirs, _ in os.walk(path):
        for name in dirs:
            os.chmod(os.path.join(root, name), 0o755)
    shutil.rmtree(path)


@pytest.fixture
def readonly_package(shared_tmp):
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to run as an unprivileged user")
    site = shared_tmp / "site"
    shutil.copytree(SRC / "arcwise", site / "arcwise",
                    ignore=shutil.ignore_patterns("__pycache__", "*.nb[ic]"))
    for root, dirs, files in os.walk(site):
        for name in dirs + files:
            os.chmod(os.path.join(root, name), 0o555 if name in dirs else 0o444)
    os.chmod(site, 0o555)
    if as_nobody([sys.executable, "-c", "pass"], {}).returncode != 0:
        pytest.skip("this Python cannot be run by an unprivileged user")
    return site


def test_caches_go_to_a_per_user_folder(readonly_package, shared_tmp):
    cache = shared_tmp / "xdg"
    cache.mkdir(mode=0o777)
    cache.chmod(0o777)
    env = {"PYTHONPATH": str(readonly_package), "HOME": "/nonexistent",
           "XDG_CACHE_HOME": str(cache), "PATH": os.environ.get("PATH", "")}
    if "NUMBA_DISABLE_JIT" in os.environ:
        env["NUMBA_DISABLE_JIT"] = os.environ["NUMBA_DISABLE_JIT"]
    done = as_nobody([sys.executable, "-c", PROGRAM], env)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert done.stdout.strip() == str(cache / "arcwise" / "numba")
    if "NUMBA_DISABLE_JIT" not in env:
        assert any(name.endswith(".nbi") for _, _, files in os.walk(cache) for name in files)
    unwritable_home = {**env, "XDG_CACHE_HOME": "/proc/nowhere"}  # falls back to tmp
    done = as_nobody([sys.executable, "-c", WHERE], unwritable_home)
    assert done.returncode == 0, done.stderr
    assert os.path.basename(done.stdout.strip()) == f"arcwise-numba-{NOBODY}"
    chosen = {**env, "NUMBA_CACHE_DIR": str(cache / "mine")}  # the user's choice wins
    done = as_nobody([sys.executable, "-c", WHERE], chosen)
    assert done.returncode == 0 and done.stdout.strip() == str(cache / "mine"), done.stderr
