"""Numba kernels: only NumPy arrays, scalars and Numba-compatible types cross this line.

Each module imports only numpy, numba and the table/enum modules. Kernel names end in
``_nb``; the Python API in ``gin_sim`` validates input and calls them.

Kernels that allocate nothing are compiled with ``_nrt=False`` (no reference counting):
the counting of array arguments cost about a third of a playout. Kernels that allocate
(the scratch builders ``scratch_nb`` and ``search_scratch_nb``, the match kernel's tallies,
the parallel drivers) keep it.
"""
