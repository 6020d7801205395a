"""Experiments that play many hands and what they estimate: the simulation driver
(``simulate``), run folders and their ownership (``runs``, ``outputs``), Dask scale-out
(``cluster``), tournaments, the tuner and its hold-out, equity tables, datasets of evaluated
positions and the strategy distilled from them, rankings and the estimates with their
intervals (``summary``).

Layer 5 of 7. May import: ``gin_sim.reference``, ``gin_sim.players``, ``gin_sim.game``,
``gin_sim.kernels``. Computes every figure a report shows; writes only folders it owns.
"""
