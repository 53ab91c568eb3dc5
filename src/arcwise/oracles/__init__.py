"""Static and dynamic oracles, one module per transition system."""

NONE, MONOTONIC = "none", "monotonic"
PRIORITIES = (NONE, MONOTONIC)  # how covington-nm's oracle ranks zero-cost actions (`priority`)
