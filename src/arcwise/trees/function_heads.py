"""Function words as heads: UD's content-head attachment of adpositions and subordinators
turned round, as most of the CoNLL-X treebanks of the 2012 paper attach them.

UD hangs a case marker or a subordinator (``case``, ``mark``) under the content word it
introduces: "in the house" is in <- house.  Prague-, Tiger- and Talbanken-style treebanks
make the function word the head: in -> house.  Which way they point changes the share of
short leftward and rightward arcs (the 2012 paper's Table 2), and so what its buffer
transitions are used for; `to_function_heads` converts a UD tree so that the same grid can
be run on both annotations (issue #42, item 4).

For a content word h with dependents F of those relations, the one farthest from h, f,
becomes the head: f takes h's head and label, h hangs from f with f's former label, and
h's dependents beyond f (a word such as "only" in "only in the house") move to f, so that
a projective tree stays projective.  The other members of F stay under h.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

FUNCTION_RELATIONS = ("case", "mark")


def base_relation(deprel: str) -> str:
    """A UD label without its subtype: ``case`` of ``case:loc``."""
    return deprel.split(":", 1)[0]


def to_function_heads(heads: np.ndarray, deprels: Sequence[str],
                      relations: Sequence[str] = FUNCTION_RELATIONS
                      ) -> tuple[np.ndarray, tuple[str, ...]]:
    """The tree (heads over words 0..n, 0 the root; deprels) with the function words of
    `relations` as heads of the words they depend on (see the module docstring)."""
    heads = np.array(heads, dtype=np.int32)
    deprels = list(deprels)
    marked_of: dict[int, list[int]] = {}  # content word -> its function-word dependents
    for d in range(1, len(heads)):
        if heads[d] > 0 and base_relation(deprels[d]) in relations:
            marked_of.setdefault(int(heads[d]), []).append(d)
    for h, marked in sorted(marked_of.items()):
        f = max(marked, key=lambda d: (abs(d - h), -d))
        beyond = [d for d in range(1, len(heads)) if heads[d] == h and d != f
                  and (d < f if f < h else d > f)]
        heads[f], heads[h] = heads[h], f
        deprels[f], deprels[h] = deprels[h], deprels[f]
        for d in beyond:
            heads[d] = f
    return heads, tuple(deprels)
