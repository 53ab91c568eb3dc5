"""Graph-based decoding over dense arc-score matrices (scores[h, m], 0 = root).

- `eisner`: best projective tree, first order, O(n^3).
- `chu_liu_edmonds`: best tree, first order, O(n^2).
- `second_order_eisner`: best projective tree with adjacent-sibling scores, O(n^3).
- `second_order_nonprojective`: that parse improved by greedy head changes
  (McDonald & Pereira 2006, approximate).
- `second_order_score`: the score of a tree under arc and sibling scores.

Every decoder takes `single_root` (exactly one dependent of 0) and returns
int32 heads of length n + 1 with heads[0] = -1.
"""

from arcwise.graph.chu_liu_edmonds import chu_liu_edmonds
from arcwise.graph.eisner import eisner
from arcwise.graph.second_order import (
    SIBLING_MAX_WORDS,
    second_order_eisner,
    second_order_nonprojective,
    second_order_score,
)

__all__ = [
    "SIBLING_MAX_WORDS",
    "chu_liu_edmonds",
    "eisner",
    "second_order_eisner",
    "second_order_nonprojective",
    "second_order_score",
]
