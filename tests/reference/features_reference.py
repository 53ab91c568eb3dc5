"""Feature values straight from the definitions, in plain Python, for checking the extractor.

Base positions come from the configuration's lists (`describe`), dependents
from explicit lists, atoms from the sentence columns; nothing is shared with
the compiled extractor but the parsed templates and the hash function.
"""

from __future__ import annotations

import numpy as np

from arcwise.features.hashing import combine, text_hash
from arcwise.features.templates import Template
from arcwise.systems import Configuration
from arcwise.systems import state as st

MISSING = 0


def base_positions(c: Configuration) -> dict[str, int | None]:
    """{base name: word or None} from the configuration's lists."""
    fields = c.system.kernels.describe(c.state)
    heads = c.system.heads(c)

    def at(seq, k):
        return seq[k] if 0 <= k < len(seq) else None

    if "λ1" in fields:  # Covington: λ1 = [1..i], λ2 = the words between i and j, B = [j..n]
        l1, l2, b = fields["λ1"], fields["λ2"], fields["B"]
        out = {f"L{k}": at(l1[::-1], k) for k in range(3)}
        out |= {f"R{k}": at(b, k) for k in range(3)}
        between = []
        if l1 and b:
            i, j = l1[-1], b[0]
            between = [k for k in l2 if not (i <= heads[k] <= j)]
        out["CL"] = between[0] if between else None
        out["CR"] = between[-1] if between else None
        return out | inner_neighbours(out["L0"], out["R0"])
    if "Σ1" in fields:  # 2-Planar
        stack, buffer = fields["Σ1"], fields["B"]
        out = {f"T{k}": at(fields["Σ2"][::-1], k) for k in range(2)}
    else:
        stack, buffer, out = fields["σ"], fields["β"], {}
    out |= {f"S{k}": at(stack[::-1], k) for k in range(3)}
    out |= {f"B{k}": at(buffer, k) for k in range(4)}
    return out | inner_neighbours(out["S0"], out["B0"])


def inner_neighbours(left, right) -> dict[str, int | None]:
    """IL, IR = left + 1 and right - 1 when both lie strictly between the focus words."""
    inner = left is not None and right is not None and left + 1 < right
    return {"IL": left + 1 if inner else None, "IR": right - 1 if inner else None}


def distance_value(c: Configuration, positions) -> int:
    """Signed bucketed distance left focus -> right focus, + 8 (8 when one is missing)."""
    if "L0" in positions:
        left, right = positions["L0"], positions["R0"]
    else:
        left, right = positions["S0"], positions["B0"]
        if c.system.name.startswith("arc-hybrid") and right == 0:
            right = c.n + 1
    if left is None or right is None:
        return 8
    size = abs(right - left)
    bucket = {1: 1, 2: 2, 3: 3, 4: 4}.get(size, 5 if size < 10 else 6)
    return 8 + (bucket if right > left else -bucket)


def label_set_hash(labels) -> int:
    words = [0, 0, 0, 0]
    for label in labels:
        bit = (label + 1) % 256
        words[bit // 64] |= 1 << (bit % 64)
    h = np.uint64(0)
    for w in words:
        h = np.uint64(combine(h, np.uint64(w)))
    return int(h)


def focus_pair(positions) -> tuple[int | None, int | None]:
    """The system's two focus words: (L0, R0) for Covington, else (S0, B0)."""
    if "L0" in positions:
        return positions["L0"], positions["R0"]
    return positions["S0"], positions["B0"]


def head_place_value(head: int, positions) -> int:
    """Where a word's head lies relative to the focus words + 2: 2 none, 3 the root,
    4 left of the left one, 5 it, 6 between, 7 the right one, 8 beyond."""
    left, right = focus_pair(positions)
    if head == -1:
        return 2
    if head == 0:
        return 3
    if left is not None and head < left:
        return 4
    if head == left:
        return 5
    if right is None or head < right:
        return 6
    return 7 if head == right else 8


def guide_arc_value(positions, guide_head) -> int:
    """The guide arc between the focus words + 2: 3 left -> right, 4 right -> left, 5 none."""
    left, right = focus_pair(positions)
    if left is None or right is None:
        return 2
    if guide_head[right] == left:
        return 3
    if guide_head[left] == right:
        return 4
    return 5


def features(c: Configuration, templates: tuple[Template, ...], columns: dict) -> list[int]:
    """The hash of every template in c; columns: id lists named as the words matrix's
    (`arcwise.features.words.WORD_COLUMNS`: form, upos, ..., guide_head, guide_label)."""
    heads = c.system.heads(c)
    labels = [int(x) for x in st.region(c.state, st.LABELS)]
    positions = base_positions(c)
    n = c.n

    def left_deps(w):
        return [d for d in range(1, n + 1) if heads[d] == w and d < w]

    def right_deps(w):
        return [d for d in range(1, n + 1) if heads[d] == w and d > w]

    def at(seq, k):
        return seq[k] if -len(seq) <= k < len(seq) else None

    def step(w, move):
        if w is None:
            return None
        if move in ("h", "h2"):
            for _ in range(1 if move == "h" else 2):
                w = heads[w] if w is not None and heads[w] != -1 else None
            return w
        left, right = left_deps(w), right_deps(w)
        return {
            "l": at(left, 0), "l2": at(left, 1), "l'": at(left, -1),
            "r": at(right, -1), "r2": at(right, -2), "r'": at(right, 0),
        }[move]

    def atom(w, name):
        if w is None:
            return MISSING
        names = {"w": "form", "u": "upos", "x": "xpos", "m": "feats", "lc": "lower",
                 "sf": "suffix", "sh": "shape", "gl": "guide_label"}
        if name in names:
            return columns[names[name]][w] + 2
        if name == "gd":
            g = columns["guide_head"][w]
            return 2 if g < 0 else 3 if g == 0 else 4 if g < w else 5
        if name == "ga":
            return guide_arc_value(positions, columns["guide_head"])
        if name == "hr":
            return head_place_value(heads[w], positions)
        if name == "l":
            return labels[w] + 2
        if name == "d":
            return distance_value(c, positions)
        if name == "v_l":
            return len(left_deps(w)) + 2
        if name == "v_r":
            return len(right_deps(w)) + 2
        deps = left_deps(w) if name == "s_l" else right_deps(w)
        return label_set_hash(labels[d] for d in deps)

    hashes = []
    for template in templates:
        h = text_hash(template.text)
        for part in template.parts:
            w = positions[part.base]
            for move in part.moves:
                w = step(w, move)
            for name in part.atoms:
                h = np.uint64(combine(h, np.uint64(atom(w, name))))
        hashes.append(int(h))
    return hashes
