"""Evaluation: attachment scores and significance tests."""
