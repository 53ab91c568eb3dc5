"""What every model kind's training shares: the epoch loop with dev selection, and data helpers."""
