"""The projective order of a dependency tree, which parsers with Swap sort
the words into (Nivre 2009; Nivre, Kuhlmann & Hall 2009).

The projective order is the inorder traversal of the tree: each head comes
after its left dependents' subtrees and before its right dependents'
subtrees, siblings in sentence order.  Every subtree is then contiguous, so
every tree is projective once its words are reordered this way.

The maximal projective components (MPCs; Nivre, Kuhlmann & Hall 2009)
are the subtrees a projective parser can build without reordering: what is
left on the stack after running the arc-standard static oracle, without
Swap, over the sentence.  Root arcs are left out (the root is outside every
component), so the components are those of words 1..n.  The lazy swap
oracle postpones reordering a word past a component still being built.
"""

from __future__ import annotations

import numpy as np

from arcwise.core.jit import njit
from arcwise.trees.projectivity import children


@njit(cache=True)
def inorder(heads):
    """The words 0..n of the tree in projective order (0 first: it has no left dependents)."""
    size = len(heads)
    start, words = children(heads)
    order = np.empty(size, dtype=np.int32)
    emitted = np.zeros(size, dtype=np.bool_)
    cursor = start[:size].copy()
    stack = np.empty(size, dtype=np.int32)
    top, count = 0, 0
    stack[0] = 0
    while top >= 0:
        w = stack[top]
        if cursor[w] < start[w + 1]:
            c = words[cursor[w]]
            if c > w and not emitted[w]:  # left dependents done: w comes next
                emitted[w] = True
                order[count] = w
                count += 1
            cursor[w] += 1
            top += 1
            stack[top] = c
        else:
            if not emitted[w]:
                emitted[w] = True
                order[count] = w
                count += 1
            top -= 1
    return order[:count]


@njit(cache=True)
def projective_positions(heads):
    """position[w] = index of word w in the projective order (`inorder`)."""
    order = inorder(heads)
    position = np.empty(len(heads), dtype=np.int32)
    for k in range(len(order)):
        position[order[k]] = k
    return position


@njit(cache=True)
def maximal_projective_components(heads):
    """component[w] = the root word of w's MPC (component[0] = 0).

    Arc-standard without Swap over words 1..n, reducing the two top stack
    words by a gold arc whenever the dependent has all its dependents.
    """
    size = len(heads)
    missing = np.zeros(size, dtype=np.int32)  # gold dependents not yet attached
    for d in range(1, size):
        if heads[d] > 0:
            missing[heads[d]] += 1
    attached_to = np.full(size, -1, dtype=np.int32)
    stack = np.empty(size, dtype=np.int32)
    top = -1
    for w in range(1, size):
        top += 1
        stack[top] = w
        while top >= 1:
            s1, s0 = stack[top - 1], stack[top]
            if heads[s0] == s1 and missing[s0] == 0:  # RIGHT-ARC
                attached_to[s0] = s1
                missing[s1] -= 1
                top -= 1
            elif heads[s1] == s0 and missing[s1] == 0:  # LEFT-ARC
                attached_to[s1] = s0
                missing[s0] -= 1
                stack[top - 1] = s0
                top -= 1
            else:
                break
    component = np.zeros(size, dtype=np.int32)
    for w in range(1, size):
        r = w
        while attached_to[r] != -1:
            r = attached_to[r]
        component[w] = r
    return component
