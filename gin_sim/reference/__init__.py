"""The plain-Python reference: the engine and random numbers of docs/engine.md, no numba.

Slow but literal; the numba kernels are tested against it record for record. Search
players (kind ``mc``) are ``gin_sim.reference.search``; the plain Python random streams it
deals with are ``gin_sim.game.rng``.

Layer 4 of 7. May import: ``gin_sim.players``, ``gin_sim.game``, ``gin_sim.kernels``.
"""

from gin_sim.game.rng import deck_for_deal, player_stream_state
from gin_sim.reference import search  # noqa: F401  (puts the search player in the engine)
from gin_sim.reference.engine import play_deal_reference, play_hand_reference

__all__ = ["deck_for_deal", "play_deal_reference", "play_hand_reference", "player_stream_state"]
