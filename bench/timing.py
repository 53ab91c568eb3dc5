"""Timing shared by the bench scripts."""

from __future__ import annotations

import time


def best_of(repeats: int, function) -> tuple[float, float]:
    """The least wall-clock and the least CPU seconds (this process's) of `repeats` calls."""
    wall, cpu = [], []
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        function()
        wall.append(time.perf_counter() - w)
        cpu.append(time.process_time() - c)
    return min(wall), min(cpu)
