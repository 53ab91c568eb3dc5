"""Parses as `arcwise.io.annotate` writes them."""

from __future__ import annotations


def tree_annotations(trees: list) -> list:
    """Parses as `arcwise.io.annotate` takes them: (head, deprel), or for a traced
    parse (head, deprel, its trace's MISC attributes)."""
    return [tree if len(tree) == 2 else (*tree[:2], tree[2].misc()) for tree in trees]
