"""Numba kernels: only NumPy arrays, scalars and Numba-compatible types cross this line.

Each module imports only numpy, numba and the table/enum modules. Kernel names end in
``_nb``; the Python API in ``gin_sim`` validates input and calls them.
"""
