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

Compile time counts too (a fresh clone compiles every kernel: issue 28). numba turns each
kernel it compiles into machine code of its own with everything it calls linked in, so each
level of a call chain generates the code of the levels below again. The thin links of the
player's chain (``decide_nb``, ``play_on_nb``, ``search_nb``, ``sample_deal_nb``,
``play_match_nb``: a few lines around a call) are therefore ``inline="always"`` (numba inlines
them before typing, and no separate machine code is made), and the drivers that share items
among threads are serial kernels run on Python threads (``work.py``) rather than ``prange``
loops, which numba compiles three more times.
"""
