"""Static and dynamic oracles, one module per transition system."""
