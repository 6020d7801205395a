"""Numba kernels: only NumPy arrays, scalars and Numba-compatible types cross this line.

Each module imports only numpy, numba and this folder: the integer codes the kernels
compile to constants (``enums``) and the precomputed tables they read (``tables``) live here
too, as in vectorbt. Kernel names end in ``_nb``; the Python API above (``gin_sim.game``,
``gin_sim.players``, ``gin_sim.experiments``) validates input and calls them.

Layer 1 of 7, the bottom. May import: nothing of gin_sim outside this folder.

Kernels that allocate nothing are compiled with ``_nrt=False`` (no reference counting):
the counting of array arguments cost about a third of a playout. Kernels that allocate
(the scratch builders ``scratch_nb`` and ``search_scratch_nb``, the match kernel's tallies,
the item-claiming workers) keep it.
"""
