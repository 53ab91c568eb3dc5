"""Experiments: grids of treebank x configuration x seed, run locally or on Dask, reported
as contrasts with paired significance tests (`arcwise experiment GRID.toml`).

- `grid`: the TOML grid file, parsed and validated.
- `cells`: one cell (train, parse, score) and its JSON result.
- `runners`: a local process pool or a Dask distributed cluster.
- `run`: train the missing cells of a grid, keep each result as it arrives.
- `tables`, `report`: overviews, contrasts with significance, the papers' tables beside ours.
"""
