"""The `arcwise` command line: one module per command group."""
