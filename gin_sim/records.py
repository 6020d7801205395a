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


def record_to_dict(record: np.void) -> dict[str, int | bool]:
    """One structured record as plain Python values (ints and bools)."""
    out: dict[str, int | bool] = {}
    for name in HAND_FIELDS:
        value = record[name]
        out[name] = bool(value) if isinstance(value, np.bool_) else int(value)
    return out
