"""The plain-Python reference: the engine and random numbers of docs/engine.md, no numba.

Slow but literal; the numba kernels are tested against it record for record. Search
players (kind ``mc``) are ``gin_sim.reference.search``.
"""

from gin_sim.reference.engine import play_deal_reference, play_hand_reference
from gin_sim.reference.rng import deck_for_deal, player_stream_state

__all__ = ["deck_for_deal", "play_deal_reference", "play_hand_reference", "player_stream_state"]
