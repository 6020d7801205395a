"""The players: a strategy as a frozen, validated spec (``strategies``), the models they
consult (the undercut table of ``calibration``, the equity tables of ``search_value``) and
any strategy's decision for a view given as plain data (``decide``, the one way in, over
``view``, ``decision``, ``prepared``, ``memory`` and ``hand_end``).

Layer 3 of 7. May import: ``gin_sim.game``, ``gin_sim.kernels``.
"""
