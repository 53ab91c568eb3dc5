"""Features of the graph-based parser's arcs and sibling pairs: Table 3 (a)-(c) of the 2011 paper.

McDonald & Nivre 2011, §3.2: first-order features of a head-modifier pair
(h, m) -- head-modifier conjunctions of form, PoS, 3-gram prefix / suffix and
single FEATS values with all their back-offs (Table 3a), the PoS of every word
between them and the PoS context around them (Table 3b) -- and second-order
features of adjacent siblings s, m of h (Table 3c).  Every feature comes twice:
as it is, and conjoined with the arc's direction and bucketed distance (0 =
adjacent, 1, 2, 3, 4, 5-9, 10+).

A sentence's words are the rows of an int64 array `atoms` [n + 1, ATOMS]
(`token_atoms`): FORM, UPOS, XPOS ids of the model's vocabularies, hashes of
the prefix and suffix 3-grams, and up to MAX_MORPH hashes of single FEATS
values (0 = none).  A guided parser (stacking, §5) appends two columns, each
word's head and label id in the guide parser's tree (`with_guide`), and its
arcs and labels get Table 5's guide features.  Features are hashed (`arcwise.features.hashing`) into the
rows of one weight vector of n_buckets entries; each function writes bucket
indices into `out` and returns how many it wrote, so scoring (sum the
weights) and updating (add to them) read the same features.
"""

from __future__ import annotations

import numpy as np

from arcwise.core.jit import njit
from arcwise.features.hashing import bucket, combine, text_hash

FORM, UPOS, XPOS, PREFIX, SUFFIX, MORPH = range(6)
MAX_MORPH = 6
ATOMS = MORPH + MAX_MORPH
AFFIX_LENGTH = 3
LINE = 16  # buckets of a feature and its direction + distance versions (n_buckets >= LINE)

# PoS before word 0 / after word n; the missing sibling (numpy scalars: plain Python hashes them too)
START, END, NONE = np.int64(-2), np.int64(-3), np.int64(-4)

# Template ids (each group of back-offs takes 16 ids: one per subset of four atoms).
_HEAD_MODIFIER, _PREFIX, _SUFFIX, _XPOS_PAIR = 1, 2, 3, 4
_CONTEXT_UPOS, _CONTEXT_XPOS = 8, 16  # 4 context templates each
_BETWEEN, _MORPH_PAIR, _MORPH_POS_PAIR, _MORPH_HEAD, _MORPH_MODIFIER = 24, 25, 26, 27, 28
_SIBLING = 40

# Subset masks of four atoms (bit k = atom k).
ALL_SUBSETS = np.arange(1, 16)  # "†": every back-off
FULL_AND_DROP_ONE = np.array([15, 14, 13, 11, 7])  # "‡": the conjunction and each back-off missing one atom
WITH_AFFIX = np.array([1, 3, 4, 5, 6, 7, 9, 11, 12, 13, 14, 15])  # † minus the PoS-only ones
_FORM_XPOS = np.array([2, 8, 10])
_ATOMS_0_2, _ATOMS_0_1_3, _ATOMS_1_2_3, _ATOMS_ALL, _ATOMS_0_1_2 = (
    np.array([5]), np.array([11]), np.array([14]), np.array([15]), np.array([7]))
_SIBLING_PAIRS = np.array([3, 9, 6, 12])
# Columns of the per-word hash prefixes (`token_prefixes`) after the ATOMS atoms.
_P_HEAD_MODIFIER = ATOMS
_P_PREFIX = _P_HEAD_MODIFIER + len(ALL_SUBSETS)
_P_SUFFIX = _P_PREFIX + len(WITH_AFFIX)
_P_XPOS_PAIR = _P_SUFFIX + len(WITH_AFFIX)
_P_CONTEXT = _P_XPOS_PAIR + len(_FORM_XPOS)  # + 4 * len(FULL_AND_DROP_ONE) per PoS column
PREFIXES = _P_CONTEXT + 2 * 4 * len(FULL_AND_DROP_ONE) - ATOMS
# Columns a guided parser appends after the prefixes (`with_guide`).
GUIDE_HEAD = ATOMS + PREFIXES
GUIDE_LABEL = GUIDE_HEAD + 1
_GUIDE_ARC, _LABEL_GUIDE = 60, 61
# Guide atoms: in_guide (1 = the guide has the arc, 2 = not), the guide's label of the
# modifier, PoS of head, PoS of modifier.  Arcs: in_guide alone, with the guide label
# (that of the arc when the guide has it), each also with both PoS; labels: the guide
# label of the modifier with in_guide, each also with both PoS.
_GUIDE_ARC_SUBSETS = np.array([1, 3, 13, 15])
_LABEL_GUIDE_SUBSETS = np.array([2, 3, 14, 15])
GUIDE_FEATURES = 2 * len(_GUIDE_ARC_SUBSETS)
MAX_ARC_FEATURES = (2 * (15 + 3 * 12 + 3 + 2 * 4 * 5 + 2 * MAX_MORPH * MAX_MORPH + 2 * 2 * MAX_MORPH)
                    + GUIDE_FEATURES)
SIBLING_FEATURES = 2 * 5


def max_arc_features(n_upos: int) -> int:
    """Size of an `out` array that holds any arc's buckets (in-between PoS add one per tag)."""
    return MAX_ARC_FEATURES + 2 * n_upos


def with_guide(atoms: np.ndarray, guide_head: np.ndarray, guide_label: np.ndarray) -> np.ndarray:
    """A guided parser's atoms: `atoms` plus the guide tree's head and label id of every
    word (entry 0, the root, gets -1 and -1)."""
    if len(guide_head) != atoms.shape[0] or len(guide_label) != atoms.shape[0]:
        raise ValueError(f"the guide tree has {len(guide_head) - 1} words, "
                         f"the sentence {atoms.shape[0] - 1}")
    guide = np.stack((np.asarray(guide_head, dtype=np.int64),
                      np.asarray(guide_label, dtype=np.int64)), axis=1)
    guide[0] = -1
    return np.concatenate((atoms, guide), axis=1)


@njit(cache=True)
def is_guided(atoms):
    """Whether the sentence's atoms carry a guide tree (`with_guide`)."""
    return atoms.shape[1] > GUIDE_HEAD


@njit(cache=True)
def _guide_atoms(atoms, h, m):
    """in_guide (1: the guide has h -> m, 2: not) and the guide's label of m."""
    return (1 if atoms[m, GUIDE_HEAD] == h else 2), atoms[m, GUIDE_LABEL]


def token_atoms(form_ids: np.ndarray, upos: np.ndarray, xpos: np.ndarray,
                forms: tuple[str, ...], feats: tuple[str, ...]) -> np.ndarray:
    """The [n + 1, ATOMS + PREFIXES] int64 atoms of a sentence: ids from the encoded columns,
    strings hashed, then the word's hash prefixes (`token_prefixes`)."""
    n1 = len(forms)
    atoms = np.zeros((n1, ATOMS), dtype=np.int64)  # the prefix columns are appended below
    atoms[:, FORM] = form_ids
    atoms[:, UPOS] = upos
    atoms[:, XPOS] = xpos
    for k in range(n1):
        form = forms[k]
        atoms[k, PREFIX] = _string_atom("<" + form[:AFFIX_LENGTH])
        atoms[k, SUFFIX] = _string_atom(">" + form[-AFFIX_LENGTH:])
        if k and feats[k] not in ("_", ""):
            for slot, value in enumerate(feats[k].split("|")[:MAX_MORPH]):
                atoms[k, MORPH + slot] = _string_atom(value)
    return np.concatenate((atoms, token_prefixes(atoms).view(np.int64)), axis=1)


_STRING_ATOMS: dict[str, int] = {}


def _string_atom(text: str) -> int:
    atom = _STRING_ATOMS.get(text)
    if atom is None:
        atom = _STRING_ATOMS[text] = int(np.int64(text_hash(text).view(np.int64))) or 1
    return atom


def between_counts(atoms: np.ndarray, n_upos: int) -> np.ndarray:
    """[n + 2, n_upos] prefix counts of UPOS ids: counts[k, t] = #words before k tagged t."""
    n1 = atoms.shape[0]
    counts = np.zeros((n1 + 1, n_upos), dtype=np.int32)
    tags = np.clip(atoms[:, UPOS], 0, n_upos - 1)
    counts[1:][np.arange(n1), tags] = 1
    return np.cumsum(counts, axis=0, dtype=np.int32)


@njit(cache=True)
def direction_distance(h, m):
    """Direction (1 = the head is left) and the distance bucket 0 (adjacent) .. 6 (10+), as one atom."""
    d = abs(h - m) - 1
    if d >= 10:
        b = 6
    elif d >= 4:
        b = 5 if d > 4 else 4
    else:
        b = d
    return (8 if h < m else 0) + b


@njit(cache=True)
def _emit(out, count, h, dd, n_buckets):
    """The feature h and its version conjoined with direction + distance dd (0..14).

    The conjoined version takes slot 1 + dd after h's bucket within h's line of LINE
    buckets (one 64-byte cache line of float32 weights): it is still a hashed
    feature of its own, and scoring an arc costs one cache miss per feature, not two.
    """
    b = bucket(h, n_buckets)
    out[count] = b
    out[count + 1] = (b & ~(LINE - 1)) | ((b + 1 + dd) & (LINE - 1))
    return count + 2


@njit(cache=True)
def _conjunction(template, s, a0, a1, a2, a3):
    """The hash of the back-off `s` (bit k set = atom k included) of a four-atom template."""
    h = combine(0, template * 16 + s)
    if s & 1:
        h = combine(h, a0)
    if s & 2:
        h = combine(h, a1)
    if s & 4:
        h = combine(h, a2)
    if s & 8:
        h = combine(h, a3)
    return h


@njit(cache=True)
def _conjunctions(out, count, template, a0, a1, a2, a3, subsets, dd, n_buckets):
    """One feature per subset mask of the four atoms, each also with direction + distance."""
    for s in subsets:
        count = _emit(out, count, _conjunction(template, s, a0, a1, a2, a3), dd, n_buckets)
    return count


@njit(cache=True)
def _tag(atoms, k, column):
    if k < 0:
        return START
    if k >= atoms.shape[0]:
        return END
    return atoms[k, column]


@njit(cache=True)
def token_prefixes(atoms):
    """[n + 1, PREFIXES] uint64 hashes of the first two atoms of every two-word template
    of `arc_features` (the head's, or the left word's for PoS context), per subset mask:
    scoring an arc then folds in only the other word's atoms (`_completions`)."""
    n1 = atoms.shape[0]
    prefixes = np.zeros((n1, PREFIXES), dtype=np.uint64)
    for k in range(n1):
        j = _prefix_group(prefixes[k], 0, _HEAD_MODIFIER, atoms[k, FORM], atoms[k, UPOS],
                          ALL_SUBSETS)
        j = _prefix_group(prefixes[k], j, _PREFIX, atoms[k, PREFIX], atoms[k, UPOS], WITH_AFFIX)
        j = _prefix_group(prefixes[k], j, _SUFFIX, atoms[k, SUFFIX], atoms[k, UPOS], WITH_AFFIX)
        j = _prefix_group(prefixes[k], j, _XPOS_PAIR, atoms[k, FORM], atoms[k, XPOS], _FORM_XPOS)
        for c in range(2):
            column = UPOS if c == 0 else XPOS
            base = _CONTEXT_UPOS if c == 0 else _CONTEXT_XPOS
            tag, prev, nxt = atoms[k, column], _tag(atoms, k - 1, column), _tag(atoms, k + 1, column)
            j = _prefix_group(prefixes[k], j, base, prev, tag, FULL_AND_DROP_ONE)
            j = _prefix_group(prefixes[k], j, base + 1, prev, tag, FULL_AND_DROP_ONE)
            j = _prefix_group(prefixes[k], j, base + 2, tag, nxt, FULL_AND_DROP_ONE)
            j = _prefix_group(prefixes[k], j, base + 3, tag, nxt, FULL_AND_DROP_ONE)
    return prefixes


@njit(cache=True)
def _prefix_group(row, j, template, a0, a1, subsets):
    for s in subsets:
        h = combine(0, template * 16 + s)
        if s & 1:
            h = combine(h, a0)
        if s & 2:
            h = combine(h, a1)
        row[j] = h
        j += 1
    return j


@njit(cache=True)
def _completions(out, count, row, j, a2, a3, subsets, dd, n_buckets):
    """`_conjunctions` from the prefixes row[j:] of atoms 0, 1 (`token_prefixes`)."""
    for s in subsets:
        h = np.uint64(row[j])
        if s & 4:
            h = combine(h, a2)
        if s & 8:
            h = combine(h, a3)
        count = _emit(out, count, h, dd, n_buckets)
        j += 1
    return count


@njit(cache=True)
def arc_features(atoms, counts, h, m, n_buckets, out):
    """Buckets of the first-order features of the arc h -> m (Table 3a, 3b); returns their number."""
    dd = direction_distance(h, m)
    count = 0
    # (a) head-modifier: w_h ∧ PoS_h ∧ w_m ∧ PoS_m and all back-offs (†); prefix and suffix
    # versions keep only the back-offs with an affix (the others are the PoS ones above).
    ph, pm = atoms[h, UPOS], atoms[m, UPOS]
    head = atoms[h]
    count = _completions(out, count, head, _P_HEAD_MODIFIER, atoms[m, FORM], pm, ALL_SUBSETS, dd,
                         n_buckets)
    count = _completions(out, count, head, _P_PREFIX, atoms[m, PREFIX], pm, WITH_AFFIX, dd,
                         n_buckets)
    count = _completions(out, count, head, _P_SUFFIX, atoms[m, SUFFIX], pm, WITH_AFFIX, dd,
                         n_buckets)
    count = _completions(out, count, head, _P_XPOS_PAIR, atoms[m, FORM], atoms[m, XPOS],
                         _FORM_XPOS, dd, n_buckets)
    # (a) single FEATS values of both words, each pair alone and with both PoS
    for a in range(MORPH, ATOMS):
        fh = atoms[h, a]
        if fh == 0:
            break
        count = _conjunctions(out, count, _MORPH_HEAD, fh, ph, 0, pm, _ATOMS_0_1_3, dd, n_buckets)
        for b in range(MORPH, ATOMS):
            fm = atoms[m, b]
            if fm == 0:
                break
            count = _conjunctions(out, count, _MORPH_PAIR, fh, 0, fm, 0, _ATOMS_0_2, dd,
                                  n_buckets)
            count = _conjunctions(out, count, _MORPH_POS_PAIR, fh, ph, fm, pm, _ATOMS_ALL, dd,
                                  n_buckets)
    for b in range(MORPH, ATOMS):
        fm = atoms[m, b]
        if fm == 0:
            break
        count = _conjunctions(out, count, _MORPH_MODIFIER, 0, ph, fm, pm, _ATOMS_1_2_3, dd,
                              n_buckets)
    # (b) PoS context of the left word l and the right word r of the arc (‡), UPOS and XPOS
    left, right = min(h, m), max(h, m)
    # (templates: l_prev ∧ l ∧ r_prev ∧ r, l_prev ∧ l ∧ r ∧ r_next, l ∧ l_next ∧ r_prev ∧ r,
    # l ∧ l_next ∧ r ∧ r_next; the left word's half is its prefix)
    row, width = atoms[left], len(FULL_AND_DROP_ONE)
    for c in range(2):
        column = UPOS if c == 0 else XPOS
        j = _P_CONTEXT + 4 * width * c
        tr = atoms[right, column]
        r_prev, r_next = _tag(atoms, right - 1, column), _tag(atoms, right + 1, column)
        count = _completions(out, count, row, j, r_prev, tr, FULL_AND_DROP_ONE, dd, n_buckets)
        count = _completions(out, count, row, j + width, tr, r_next, FULL_AND_DROP_ONE, dd,
                             n_buckets)
        count = _completions(out, count, row, j + 2 * width, r_prev, tr, FULL_AND_DROP_ONE, dd,
                             n_buckets)
        count = _completions(out, count, row, j + 3 * width, tr, r_next, FULL_AND_DROP_ONE, dd,
                             n_buckets)
    # (b) PoS_l ∧ PoS_k ∧ PoS_r for every word k between them (each distinct tag once)
    tl, tr = atoms[left, UPOS], atoms[right, UPOS]
    for t in range(counts.shape[1]):
        if counts[right, t] - counts[left + 1, t] > 0:
            count = _conjunctions(out, count, _BETWEEN, tl, t, tr, 0, _ATOMS_0_1_2, dd,
                                  n_buckets)
    if is_guided(atoms):  # Table 5, MST guided by a transition parser
        in_guide, guide_label = _guide_atoms(atoms, h, m)
        count = _conjunctions(out, count, _GUIDE_ARC, in_guide, guide_label, ph, pm,
                              _GUIDE_ARC_SUBSETS, dd, n_buckets)
    return count


@njit(cache=True)
def sibling_pair_features(atoms, h, s, m, n_buckets, out):
    """Buckets of Table 3c's features of siblings s, m (no head): w_s ∧ w_m, w_s ∧ PoS_m,
    PoS_s ∧ w_m, PoS_s ∧ PoS_m; s == h: m is h's first child on its side (no sibling).
    They do not depend on h (but for the distance h-m of a first child)."""
    ws, ps, dd = _sibling_atoms(atoms, h, s, m)
    return _conjunctions(out, 0, _SIBLING, ws, atoms[m, FORM], ps, atoms[m, UPOS],
                         _SIBLING_PAIRS, dd, n_buckets)


@njit(cache=True)
def sibling_triple_features(atoms, h, s, m, n_buckets, out):
    """Buckets of Table 3c's PoS_h ∧ PoS_s ∧ PoS_m."""
    _, ps, dd = _sibling_atoms(atoms, h, s, m)
    return _conjunctions(out, 0, _SIBLING + 1, atoms[h, UPOS], ps, atoms[m, UPOS], 0,
                         _ATOMS_0_1_2, dd, n_buckets)


@njit(cache=True)
def _sibling_atoms(atoms, h, s, m):
    if s == h:
        return NONE, NONE, direction_distance(h, m)
    return atoms[s, FORM], atoms[s, UPOS], direction_distance(s, m)


@njit(cache=True)
def sibling_features(atoms, h, s, m, n_buckets, out):
    """Buckets of the features of adjacent siblings s, m of h (Table 3c); s == h: m is h's first child on its side."""
    count = sibling_pair_features(atoms, h, s, m, n_buckets, out)
    return count + sibling_triple_features(atoms, h, s, m, n_buckets, out[count:])


@njit(cache=True)
def arc_scores(atoms, counts, weights, out):
    """[n + 1, n + 1] first-order scores: scores[h, m] = Σ weights over arc_features(h, m)."""
    n1 = atoms.shape[0]
    n_buckets = weights.shape[0]
    scores = np.full((n1, n1), -np.inf)
    for h in range(n1):
        for m in range(1, n1):
            if h != m:
                scores[h, m] = _sum(weights, out, arc_features(atoms, counts, h, m, n_buckets, out))
    return scores


@njit(cache=True)
def _sum(weights, out, k):
    total = 0.0
    for q in range(k):
        total += weights[out[q]]
    return total


@njit(cache=True)
def sibling_scores(atoms, weights, out):
    """[n + 1, n + 1, n + 1] second-order scores sib[h, s, m] of adjacent siblings s, m of h
    on the same side, s between h and m (s == h: m is the first child); other cells 0.

    The sibling-pair features do not depend on the head: scored once per (s, m)
    (per (h, m) for first children), only PoS_h ∧ PoS_s ∧ PoS_m per (h, s, m).
    """
    n1 = atoms.shape[0]
    n_buckets = weights.shape[0]
    pair = np.zeros((n1, n1))  # pair[s, m], s != m; pair[m, m] unused
    first = np.zeros((n1, n1))  # first[h, m]: m first child of h
    for a in range(n1):
        for m in range(1, n1):
            if a != m:
                pair[a, m] = _sum(weights, out, sibling_pair_features(atoms, -1, a, m, n_buckets, out))
                first[a, m] = _sum(weights, out, sibling_pair_features(atoms, a, a, m, n_buckets, out))
    sib = np.zeros((n1, n1, n1))
    for h in range(n1):
        for m in range(1, n1):
            if m == h:
                continue
            step = 1 if m > h else -1
            s = h
            while s != m:
                k = sibling_triple_features(atoms, h, s, m, n_buckets, out)
                sib[h, s, m] = (first[h, m] if s == h else pair[s, m]) + _sum(weights, out, k)
                s += step
    return sib


_LABEL_HEAD_MODIFIER, _LABEL_BETWEEN, _LABEL_HEAD_CONTEXT, _LABEL_MODIFIER_CONTEXT = 48, 49, 50, 51
_CONTEXT_BACKOFFS = np.array([7, 3, 6, 2])  # PoS_{k-1} ∧ PoS_k ∧ PoS_{k+1} and the back-offs keeping PoS_k (†)


@njit(cache=True)
def _emit_directed(out, count, h, direction, n_buckets):
    out[count] = bucket(h, n_buckets)
    out[count + 1] = bucket(combine(h, direction + 2000), n_buckets)
    return count + 2


@njit(cache=True)
def _label_conjunctions(out, count, template, a0, a1, a2, a3, subsets, direction, n_buckets):
    """One feature per subset mask of the four atoms, each also with the direction."""
    for s in subsets:
        h = _conjunction(template, s, a0, a1, a2, a3)
        count = _emit_directed(out, count, h, direction, n_buckets)
    return count


@njit(cache=True)
def label_features(atoms, counts, h, m, n_buckets, out):
    """Buckets of the arc-label features of h -> m (Table 3d), each also conjoined with the
    direction; the label itself is the column of the labeler's weight table."""
    direction = 1 if h < m else 0
    ph, pm = atoms[h, UPOS], atoms[m, UPOS]
    count = _label_conjunctions(out, 0, _LABEL_HEAD_MODIFIER, atoms[h, FORM], ph, atoms[m, FORM],
                                pm, ALL_SUBSETS, direction, n_buckets)
    left, right = min(h, m), max(h, m)
    for t in range(counts.shape[1]):
        if counts[right, t] - counts[left + 1, t] > 0:
            count = _label_conjunctions(out, count, _LABEL_BETWEEN, ph, t, pm, 0, _ATOMS_0_1_2,
                                        direction, n_buckets)
    count = _label_conjunctions(out, count, _LABEL_HEAD_CONTEXT, _tag(atoms, h - 1, UPOS), ph,
                                _tag(atoms, h + 1, UPOS), 0, _CONTEXT_BACKOFFS, direction,
                                n_buckets)
    if is_guided(atoms):  # Table 5: the guide's label of m, with whether it has the arc
        in_guide, guide_label = _guide_atoms(atoms, h, m)
        count = _label_conjunctions(out, count, _LABEL_GUIDE, in_guide, guide_label, ph, pm,
                                    _LABEL_GUIDE_SUBSETS, direction, n_buckets)
    return _label_conjunctions(out, count, _LABEL_MODIFIER_CONTEXT, _tag(atoms, m - 1, UPOS), pm,
                               _tag(atoms, m + 1, UPOS), 0, _CONTEXT_BACKOFFS, direction,
                               n_buckets)


def max_label_features(n_upos: int) -> int:
    """Size of an `out` array that holds any arc's label-feature buckets."""
    return 2 * (15 + n_upos + 2 * len(_CONTEXT_BACKOFFS) + len(_LABEL_GUIDE_SUBSETS))
