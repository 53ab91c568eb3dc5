"""Tree utilities: projectivity, planarity, measures, pseudo-projective parsing."""

ENCODINGS = ("head", "path", "head+path")  # pseudo-projective encodings (`pseudoprojective`)
