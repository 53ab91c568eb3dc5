"""Evaluation: attachment scores and significance tests."""

from arcwise.eval.metrics import Scores, evaluate

__all__ = ["Scores", "evaluate"]
