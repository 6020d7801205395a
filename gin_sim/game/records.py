"""The record of one hand: an aligned structured dtype that kernels fill and pandas reads.

Field meanings are documented in ``docs/engine.md`` (the record table). Players are 0
and 1 in the order of ``players=(...)``; -1 means none.
"""

from __future__ import annotations

import numpy as np

HAND_RECORD = np.dtype(
    [
        ("deal", np.int64),
        ("hand0", np.uint64),
        ("hand1", np.uint64),
        ("dealer", np.int8),
        ("upcard", np.int8),
        ("knock_limit", np.int8),
        ("first_upcard_taker", np.int8),
        ("knocker", np.int8),
        ("gin", np.bool_),
        ("big_gin", np.bool_),
        ("undercut", np.bool_),
        ("draw", np.bool_),
        ("draw_reason", np.int8),
        ("winner", np.int8),
        ("stock_left", np.int8),
        ("knocker_deadwood", np.int16),
        ("defender_deadwood", np.int16),
        ("defender_deadwood_after", np.int16),
        ("laid_off_points", np.int16),
        ("points", np.int16),
        ("turns", np.int16),
        ("upcard_takes", np.int16),
    ],
    align=True,
)

HAND_FIELDS: tuple[str, ...] = tuple(HAND_RECORD.names or ())

# One row per Hollywood match (R19 to R23). Games are numbered 1 to 3 as at the table;
# ``points{p}_game{g}`` is player p's running total in game g, ``tally`` the final figure
# with the R23 bonuses when they are on (else equal to the points), ``boxes`` the hands
# won that were credited to the game. Winners are -1 while undecided (an unfinished match
# stopped by the hand cap, see docs/engine.md).
_GAME_FIELDS = [
    (f"{kind}{player}_game{game}", dtype)
    for kind, dtype in (("points", np.int32), ("tally", np.int32), ("boxes", np.int16))
    for player in (0, 1)
    for game in (1, 2, 3)
]
MATCH_RECORD = np.dtype(
    [
        ("match", np.int64),
        ("first_dealer", np.int8),
        ("winner", np.int8),
        ("games_won0", np.int8),
        ("games_won1", np.int8),
        ("game1_winner", np.int8),
        ("game2_winner", np.int8),
        ("game3_winner", np.int8),
        ("hands", np.int32),
        ("draws", np.int32),
        *_GAME_FIELDS,
    ],
    align=True,
)
MATCH_FIELDS: tuple[str, ...] = tuple(MATCH_RECORD.names or ())


def record_to_dict(record: np.void) -> dict[str, int | bool]:
    """One structured record as plain Python values (ints and bools)."""
    out: dict[str, int | bool] = {}
    for name in HAND_FIELDS:
        value = record[name]
        out[name] = bool(value) if isinstance(value, np.bool_) else int(value)
    return out
