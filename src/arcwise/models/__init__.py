"""Scoring models of the parsers.

hashing: deterministic 64-bit feature hashing (numba);
perceptron: the factored averaged perceptron over labeled transitions;
modelfile: one-file models (arrays + JSON metadata in a zip, never a pickle).
"""
