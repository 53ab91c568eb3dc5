"""Tree properties straight from their definitions, for checking arcwise.trees.

Slow and obvious on purpose: explicit ancestor sets, no numbering tricks.
"""

from __future__ import annotations


def ancestors(heads, w) -> set[int] | None:
    """Proper ancestors of w (0 included), or None if w does not reach 0."""
    seen: list[int] = []
    while w != 0:
        w = heads[w]
        if w < 0 or w >= len(heads) or w in seen:
            return None
        seen.append(w)
    return set(seen)


def is_well_formed(heads) -> bool:
    return (
        len(heads) > 0
        and heads[0] == -1
        and all(ancestors(heads, d) is not None for d in range(1, len(heads)))
    )


def nonprojective_arcs(heads) -> list[bool]:
    """Arc h -> d is non-projective iff some word strictly between them does not descend from h."""
    result = [False]
    for d in range(1, len(heads)):
        h = heads[d]
        between = range(min(h, d) + 1, max(h, d))
        result.append(any(h not in ancestors(heads, k) for k in between))
    return result


def lift_nonprojective_arcs(heads):
    """PROJECTIVIZE of Nivre & Nilsson (2005), literally: (heads, syntactic heads, lifts)."""
    heads = list(heads)
    syntactic = [-1] * len(heads)
    lifts = 0
    while any(nonprojective_arcs(heads)):
        candidates = [d for d, bad in enumerate(nonprojective_arcs(heads)) if bad]
        d = min(candidates, key=lambda d: (abs(heads[d] - d), min(heads[d], d)))
        if syntactic[d] == -1:
            syntactic[d] = heads[d]
        heads[d] = heads[heads[d]]
        lifts += 1
    return heads, syntactic, lifts


def arc_lengths(heads) -> list[int]:
    return [0] + [abs(heads[d] - d) for d in range(1, len(heads))]


def root_distances(heads) -> list[int]:
    """Arcs on the path from d to 0 = number of proper ancestors; -1 when d does not reach 0."""
    result = [0]
    for d in range(1, len(heads)):
        up = ancestors(heads, d)
        result.append(-1 if up is None else len(up))
    return result


def sibling_counts(heads) -> list[int]:
    n = len(heads) - 1
    return [0] + [
        sum(1 for e in range(1, n + 1) if e != d and heads[e] == heads[d]) for d in range(1, n + 1)
    ]


def arc_directions(heads) -> list[int]:
    return [0] + [1 if heads[d] < d else -1 for d in range(1, len(heads))]
