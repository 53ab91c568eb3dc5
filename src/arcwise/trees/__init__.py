"""Tree utilities: projectivity, planarity, measures, pseudo-projective parsing."""
