"""The compiled dispatch by system id, generated from `arcwise.systems.REGISTRY` (`python -m arcwise.dispatch.generate`), and the static-oracle walk over it."""
