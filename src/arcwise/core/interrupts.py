"""Ctrl-C, SIGTERM and SIGHUP as an exception raised only where Python may stop.

A signal's Python handler runs whenever the interpreter checks for signals,
which numba's parallel loops also do from inside compiled code: an exception
raised there crashes the process (a segfault, or ``SystemError: ... returned
a result with an exception set``).  So the handler `install` puts in place
raises `Interrupted` at once in Python code, but inside a `deferred` block
(around a compiled call) it only records the signal, and `deferred` raises
`Interrupted` when the block ends.  Cleanup (`finally`, `atomic_write`
removing its temporary file) then runs as for any exception.

Without `install` (the Python API), `deferred` still guards Ctrl-C: it records
SIGINT during the block and raises KeyboardInterrupt after it.

Python swallows an exception raised in a finaliser or a weak reference's callback (the
garbage collector may run one at any bytecode), and a signal can land there: so the handler
also records the signal, `installed` keeps the "Exception ignored" report of such an
`Interrupted` off stderr, and `check` (at each `deferred` block, and before
`arcwise.io.atomic` renames its files into place) raises it again.

Once the `arcwise` command has ended, its exit status stands: `ignore` drops the signals
for the interpreter's exit (half a second once numba is loaded), where a signal would
otherwise kill the process after its work was done, with no line and no exit code.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


class Interrupted(BaseException):
    """A signal stopped the work (a BaseException, so `except Exception` lets it through)."""

    def __init__(self, signum: int):
        self.signum = signum
        self.name = signal.Signals(signum).name
        super().__init__(f"interrupted by {self.name}")

    @property
    def exit_code(self) -> int:
        """The shell's convention: 128 + the signal number (130 for Ctrl-C)."""
        return 128 + self.signum


_pending: list[int] = []  # signals received inside deferred blocks, in order
_depth = 0  # how many deferred blocks are open
_raised: list[int] = []  # signals raised as `Interrupted`, which Python may have swallowed


def _handler(signum: int, frame) -> None:
    if _depth:
        _pending.append(signum)
        return
    _raised.append(signum)
    raise Interrupted(signum)


def check() -> None:
    """Raise `Interrupted` again for a signal whose exception may have been swallowed (see
    above): call it where work would otherwise go on, or be committed."""
    if _raised:
        signum = _raised[0]
        _raised.clear()
        raise Interrupted(signum)


def acknowledge(error: BaseException) -> None:
    """`error`, if an `Interrupted` that is being handled, was not swallowed: `check` need
    not raise it again (so that the handler may still commit, e.g. save a record of the
    work done, before it raises `error` again)."""
    if isinstance(error, Interrupted) and error.signum in _raised:
        _raised.clear()


def _unraisable(previous: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """sys.unraisablehook that is silent on `Interrupted` (`check` raises it again)."""

    def hook(unraisable: Any) -> None:
        if not isinstance(unraisable.exc_value, Interrupted):
            previous(unraisable)

    return hook


@contextmanager
def installed() -> Iterator[None]:
    """Within the block, SIGINT, SIGTERM and SIGHUP raise `Interrupted` (deferred inside
    `deferred` blocks); the previous handlers come back after it.  A signal the process
    inherited as ignored stays ignored, as Python leaves an ignored SIGINT.  Main thread
    only."""
    previous_hook = sys.unraisablehook
    sys.unraisablehook = _unraisable(previous_hook)
    try:
        # ignored stays ignored (nohup, `&` in a script)
        with _handlers(lambda previous: previous if previous is signal.SIG_IGN else _handler):
            yield
    finally:
        sys.unraisablehook = previous_hook
        _raised.clear()


def ignore() -> None:
    """Ignore SIGINT, SIGTERM and SIGHUP from now on, one that came but was not yet handled
    included (main thread only; an `installed` block then leaves them ignored).  Python
    keeps an ignored signal ignored to the end of the interpreter's exit."""
    for s in SIGNALS:
        signal.signal(s, signal.SIG_IGN)


@contextmanager
def blocked() -> Iterator[None]:
    """Within the block, SIGINT, SIGTERM and SIGHUP wait: blocked in this thread (processes
    started in it begin with them blocked) and held by Python (another thread may take one
    in); the first one that came is delivered when the block ends."""
    held: list[int] = []

    def hold(previous: Any) -> Any:
        return previous if previous is signal.SIG_IGN else lambda signum, _: held.append(signum)

    with _handlers(hold):
        previous_mask = signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
        try:
            yield
        finally:  # those that came while blocked now reach `hold`
            signal.pthread_sigmask(signal.SIG_SETMASK, previous_mask)
    if held:
        signal.raise_signal(held[0])


@contextmanager
def _handlers(new: Callable[[Any], Any]) -> Iterator[None]:
    """Within the block each signal's handler is new(its previous one), in the main thread
    (elsewhere nothing changes: only the main thread may set handlers); the previous one
    comes back after it, unless the block set another (`ignore`)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.getsignal(s) for s in SIGNALS}
    ours = {s: new(handler) for s, handler in previous.items()}
    for s, handler in ours.items():
        signal.signal(s, handler)
    try:
        yield
    finally:
        for s, handler in previous.items():
            # None: set outside Python, cannot be put back
            if handler is not None and signal.getsignal(s) is ours[s]:
                signal.signal(s, handler)


@contextmanager
def deferred() -> Iterator[None]:
    """Hold signals back until the block ends, then raise (put it around compiled calls)."""
    global _depth
    from numba.core.config import DISABLE_JIT

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    check()
    if DISABLE_JIT:
        yield  # without the JIT the "compiled" call is Python, which may stop anywhere
        check()
        return
    if signal.getsignal(signal.SIGINT) is not _handler:  # no `installed`: guard Ctrl-C only
        caught: list[int] = []
        previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)
        if caught and previous is not signal.SIG_IGN:
            if callable(previous):
                previous(signal.SIGINT, None)
            else:
                raise KeyboardInterrupt
        return
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
    check()
    if _pending and not _depth:
        signum = _pending[0]
        _pending.clear()
        raise Interrupted(signum)
