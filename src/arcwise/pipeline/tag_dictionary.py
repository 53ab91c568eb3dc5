"""A tag dictionary: the tags each frequent word had in training (its *ambiguity class*).

The tagger's features (`arcwise.pipeline.stages.tagger`, features version 2) read, for the word
and the two words after it, the set of tags the lowercased form was seen with in the
training data -- per column (UPOS, XPOS, FEATS) -- as one hashed atom: what Honnibal's
and Collins's perceptron taggers read from a tag dictionary and UDPipe 1's MorphoDiTa
from its morphological analyser.  Forms seen fewer than `MIN_COUNT` times are left out
(atom 0, as an unknown word at test time), so that training also meets words without one.

In a model file: the keys (the forms' LOWER atoms, sorted) and a [keys, 3] array of the
classes' hashes; looking words up is one `np.searchsorted`.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence

import numpy as np

from arcwise.core.corpus import Sentence
from arcwise.core.errors import ArcwiseError, MissingArray
from arcwise.core.vocab import TAG_COLUMNS
from arcwise.features.hashing import text_hashes

MIN_COUNT = 2


class TagDictionary:
    """Ambiguity-class atoms of lowercased forms, keyed by their LOWER atom."""

    def __init__(self, keys: np.ndarray, classes: np.ndarray):
        self.keys = np.asarray(keys, dtype=np.uint64)
        self.classes = np.asarray(classes, dtype=np.uint64).reshape(-1, len(TAG_COLUMNS))

    def __len__(self) -> int:
        return self.keys.shape[0]

    @classmethod
    def learn(cls, sentences: Sequence[Sentence], lower_atom) -> TagDictionary:
        """From tagged sentences; lower_atom(forms) -> their LOWER atoms (uint64 array)."""
        counts: Counter[str] = Counter()
        tags: dict[str, list[set[str]]] = defaultdict(lambda: [set() for _ in TAG_COLUMNS])
        for s in sentences:
            columns = [getattr(s, c) for c in TAG_COLUMNS]
            for i in range(1, s.n + 1):
                lower = s.form[i].lower()
                counts[lower] += 1
                for j, column in enumerate(columns):
                    tags[lower][j].add(column[i])
        forms = sorted(f for f, n in counts.items() if n >= MIN_COUNT)
        names = [f"{c}\x1f" + "\x1f".join(sorted(tags[f][j]))
                 for f in forms for j, c in enumerate(TAG_COLUMNS)]
        keys = np.asarray(lower_atom(forms), dtype=np.uint64).reshape(-1)
        classes = text_hashes(names).reshape(len(forms), len(TAG_COLUMNS))
        order = np.argsort(keys, kind="stable")
        return cls(keys[order], classes[order])

    def lookup(self, lower: np.ndarray) -> np.ndarray:
        """[len(lower), 3] the class atoms of words given by their LOWER atoms (0: none)."""
        out = np.zeros((lower.shape[0], len(TAG_COLUMNS)), dtype=np.uint64)
        if not len(self):
            return out
        at = np.minimum(np.searchsorted(self.keys, lower), len(self) - 1)
        found = self.keys[at] == lower
        out[found] = self.classes[at[found]]
        return out

    def arrays(self, prefix: str = "") -> dict[str, np.ndarray]:
        return {f"{prefix}dictionary_keys": self.keys, f"{prefix}dictionary_classes": self.classes}

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray], source: str,
                    prefix: str = "") -> TagDictionary:
        keys = arrays.get(f"{prefix}dictionary_keys")
        classes = arrays.get(f"{prefix}dictionary_classes")
        for name, array in (("dictionary_keys", keys), ("dictionary_classes", classes)):
            if array is None:
                raise MissingArray(source, prefix + name)
        if keys.dtype != np.uint64 \
                or classes.dtype != np.uint64 or keys.ndim != 1 \
                or classes.shape != (keys.shape[0], len(TAG_COLUMNS)) \
                or not (keys[1:] > keys[:-1]).all():
            raise ArcwiseError(f"{source}: corrupt model file (bad tag dictionary)")
        return cls(keys, classes)
