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

import numba
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
    """A stable 64-bit hash of a string (BLAKE2b of its UTF-8), for atoms that are words;
    `blake2b_64` computes the same in compiled code."""
    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest()
    return np.uint64(int.from_bytes(digest, "little"))


# --- BLAKE2b (RFC 7693) compiled, for `text_hash` of many strings at once ----------------

_IV = np.array([0x6A09E667F3BCC908, 0xBB67AE8584CAA73B, 0x3C6EF372FE94F82B,
                0xA54FF53A5F1D36F1, 0x510E527FADE682D1, 0x9B05688C2B3E6C1F,
                0x1F83D9ABFB41BD6B, 0x5BE0CD19137E2179], dtype=np.uint64)
_SIGMA = np.array([
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
    [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
    [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
    [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
    [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
    [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
    [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
    [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
    [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
    [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
], dtype=np.int64)
_G_LANES = np.array([[0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15],
                     [0, 5, 10, 15], [1, 6, 11, 12], [2, 7, 8, 13], [3, 4, 9, 14]],
                    dtype=np.int64)


@njit(cache=True)
def _rotr(x, n):
    return (x >> np.uint64(n)) | (x << np.uint64(64 - n))


@njit(cache=True)
def _compress(h, m, t, last):
    v = np.empty(16, dtype=np.uint64)
    for i in range(8):  # not v[:8] = h: a slice assignment compiles its shape error's message
        v[i] = h[i]
        v[i + 8] = _IV[i]
    v[12] ^= np.uint64(t)
    if last:
        v[14] = ~v[14]
    for r in range(12):
        s = _SIGMA[r % 10]
        for g in range(8):
            a, b, c, d = _G_LANES[g, 0], _G_LANES[g, 1], _G_LANES[g, 2], _G_LANES[g, 3]
            v[a] = np.add(np.add(v[a], v[b]), m[s[2 * g]])
            v[d] = _rotr(v[d] ^ v[a], 32)
            v[c] = np.add(v[c], v[d])
            v[b] = _rotr(v[b] ^ v[c], 24)
            v[a] = np.add(np.add(v[a], v[b]), m[s[2 * g + 1]])
            v[d] = _rotr(v[d] ^ v[a], 16)
            v[c] = np.add(v[c], v[d])
            v[b] = _rotr(v[b] ^ v[c], 63)
    for i in range(8):
        h[i] ^= v[i] ^ v[i + 8]


@njit(cache=True)
def blake2b_64(data, start, end):
    """`text_hash` of the UTF-8 bytes data[start:end] (a uint8 array): BLAKE2b, unkeyed,
    an 8-byte digest read little-endian."""
    h = _IV.copy()
    h[0] ^= np.uint64(0x01010008)  # parameter block: digest length 8, fanout 1, depth 1
    m = np.zeros(16, dtype=np.uint64)
    at = start
    while True:
        n = min(end - at, 128)
        m[:] = 0
        for i in range(n):
            m[i >> 3] |= np.uint64(data[at + i]) << np.uint64(8 * (i & 7))
        at += n
        if at >= end:  # the last block (the only one for an empty string), zero-padded
            _compress(h, m, at - start, True)
            return h[0]
        _compress(h, m, at - start, False)


@njit(cache=True)
def _utf8_hashes(points, offsets):
    """blake2b_64 of the UTF-8 of each string: string k is the code points
    points[offsets[k]:offsets[k + 1]]."""
    out = np.empty(offsets.shape[0] - 1, dtype=np.uint64)
    scratch = np.empty(4 * (points.shape[0] + 1), dtype=np.uint8)
    for k in range(out.shape[0]):
        n = 0
        for i in range(offsets[k], offsets[k + 1]):
            c = np.int64(points[i])
            if c < 0x80:
                scratch[n] = c
                n += 1
            elif c < 0x800:
                scratch[n], scratch[n + 1] = 0xC0 | (c >> 6), 0x80 | (c & 0x3F)
                n += 2
            elif c < 0x10000:
                scratch[n], scratch[n + 1] = 0xE0 | (c >> 12), 0x80 | ((c >> 6) & 0x3F)
                scratch[n + 2] = 0x80 | (c & 0x3F)
                n += 3
            else:
                scratch[n], scratch[n + 1] = 0xF0 | (c >> 18), 0x80 | ((c >> 12) & 0x3F)
                scratch[n + 2], scratch[n + 3] = 0x80 | ((c >> 6) & 0x3F), 0x80 | (c & 0x3F)
                n += 4
        out[k] = blake2b_64(scratch, 0, n)
    return out


def text_hashes(strings: Sequence[str]) -> np.ndarray:
    """[text_hash(s) for s in strings] as a uint64 array, computed in one compiled pass
    (with numba's JIT disabled, by hashlib: the compiled loop would take ~10 ms a string)."""
    if numba.config.DISABLE_JIT:
        return np.array([text_hash(s) for s in strings], dtype=np.uint64)
    offsets = np.zeros(len(strings) + 1, dtype=np.int64)
    np.cumsum([len(s) for s in strings], out=offsets[1:])
    points = np.frombuffer("".join(strings).encode("utf-32-le"), dtype="<u4")
    return _utf8_hashes(points, offsets)


def is_power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0
