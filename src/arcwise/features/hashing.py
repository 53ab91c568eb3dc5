"""Deterministic 64-bit feature hashing, usable inside numba code.

A feature is a template id conjoined with a few atom values (word ids, tag
ids, a distance, ...).  The extractor folds them into one 64-bit value,

    h = combine(combine(combine(0, template), atom1), atom2)

and a model table reads row ``bucket(h, n_buckets)``.  The values depend
only on the integers given, never on Python's per-process `hash` seed, so a
feature has the same bucket in every run, on every machine.

`mix` is the splitmix64 finaliser (Steele, Lea & Flood 2014; constants of
Stafford's "Mix13"): a bijection on 64-bit words in which every input bit
flips each output bit with probability close to 1/2.  `combine(h, x)` is
``mix(h * GOLDEN + x + GOLDEN)`` with GOLDEN = 2^64 / φ (odd): for a fixed h
it is a bijection of x, for a fixed x a bijection of h, and it depends on the
order of the atoms.  All arithmetic wraps modulo 2^64; it is written with
``np.multiply``/``np.add`` so that plain numpy (``NUMBA_DISABLE_JIT=1``) wraps
silently as compiled code does.  Called from Python, compiled functions return
uint64 values as Python ints: wrap them in ``np.uint64`` before passing them
back (numba reads a Python int as int64).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from arcwise.core.jit import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True)
def mix(x):
    """The splitmix64 finaliser of x (an integer taken modulo 2^64), as uint64."""
    x = np.uint64(x)
    x = np.multiply(x ^ (x >> np.uint64(30)), _MIX1)
    x = np.multiply(x ^ (x >> np.uint64(27)), _MIX2)
    return x ^ (x >> np.uint64(31))


@njit(cache=True)
def combine(h, x):
    """Fold the integer x (int64, e.g. -1 for "none", or uint64) into the hash h."""
    return mix(np.add(np.add(np.multiply(np.uint64(h), GOLDEN), np.uint64(x)), GOLDEN))


@njit(cache=True)
def bucket(h, n_buckets):
    """Row of hash h in a table of n_buckets rows (a power of two): its low bits."""
    return np.intp(np.uint64(h) & np.uint64(n_buckets - 1))


def text_hash(text: str) -> np.uint64:
    """A stable 64-bit hash of a string (BLAKE2b of its UTF-8), for atoms that are words."""
    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest()
    return np.uint64(int.from_bytes(digest, "little"))


def text_hashes(strings: Sequence[str]) -> np.ndarray:
    """[text_hash(s) for s in strings] as a uint64 array."""
    digests = b"".join(hashlib.blake2b(s.encode("utf-8"), digest_size=8).digest()
                       for s in strings)
    return np.frombuffer(digests, dtype="<u8").astype(np.uint64)


def is_power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0
