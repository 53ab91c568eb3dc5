"""`arcwise.features.hashing.text_hashes` gives `text_hash`'s digests for every kind of
string: empty, ASCII, 2-, 3- and 4-byte UTF-8 characters, and lengths around BLAKE2b's
128-byte block."""

import random

import numpy as np

from arcwise.features.hashing import text_hash, text_hashes


def strings() -> list[str]:
    rng = random.Random(1)
    some = ["", "a", "Příliš žluťoučký kůň", "x" * 127, "y" * 128, "z" * 129, "é" * 64,
            "é" * 65, "😀ab", "日本語"]
    for _ in range(100):
        some.append("".join(chr(rng.choice([rng.randrange(32, 127), rng.randrange(160, 0xD7FF),
                                             rng.randrange(0x10000, 0x1FFFF)]))
                            for _ in range(rng.randrange(0, 300))))
    return some


def test_text_hashes_are_hashlibs():
    some = strings()
    assert text_hashes(some).dtype == np.uint64
    assert text_hashes(some).tolist() == [int(text_hash(s)) for s in some]
    assert text_hashes([]).shape == (0,)

