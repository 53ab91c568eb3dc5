"""One root per tree: what a UD treebank demands of every sentence.

The parsers here may attach several words to the artificial root 0 (a
transition system ends with headless words, which go to 0); `single_rooted`
keeps one and attaches the others to it.  Which output formats get one root
by default is `arcwise.io.one_root_by_default`.
"""

from __future__ import annotations

import numpy as np


def single_rooted(
    head: np.ndarray,
    deprel: tuple[str, ...],
    made: np.ndarray | None = None,
    root_label: str | None = None,
    reattach_label: str | None = None,
) -> tuple[np.ndarray, tuple[str, ...]]:
    """The tree (head, deprel) with exactly one word attached to 0.

    The root kept is the leftmost word attached to 0 by a transition
    (`made[d]` tells whether a transition made word d's arc): the first root
    arc the parser made, since every system here but arc-hybrid+swap builds
    arcs to 0 from left to right (greedy parsing keeps no score to compare
    roots by).  If no transition attached a word to 0 (or `made` is None),
    the leftmost word attached to 0 is kept.  Every other root is attached
    to the kept one: each heads its own subtree, so the result is a tree.
    With `root_label` given, the kept root gets that label, and a
    re-attached word labeled `root_label` becomes `reattach_label` (when
    not None); other labels stay.
    """
    roots = np.flatnonzero(head == 0)
    if len(roots) == 0:
        return head, deprel
    chosen = roots[made[roots]] if made is not None else roots[:0]
    keep = int(chosen[0] if len(chosen) else roots[0])
    deprel = list(deprel)
    if root_label is not None:
        deprel[keep] = root_label
    if len(roots) > 1:
        head = head.copy()
        for r in roots.tolist():
            if r != keep:
                head[r] = keep
                if deprel[r] == root_label and reattach_label is not None:
                    deprel[r] = reattach_label
    return head, tuple(deprel)
