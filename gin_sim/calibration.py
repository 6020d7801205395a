"""The undercut-risk model that undercut-aware strategies consult (docs/strategies.md).

``UNDERCUT_TABLE[t, k]`` estimates the chance that a defender who has played ``t`` turns
(rows 0..20, the last for 20 or more) ends with deadwood after layoffs at most ``k``
(columns 0..10) when the other player knocks. It is measured on simulated
``simple``-versus-``simple`` hands under ``hollywood`` rules and kept in
``configs/models/undercut.csv``, which both engines read. Regenerate it with
``python -m gin_sim.calibration`` (fixed seed and deal count, so it is reproducible).
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pandas as pd

from gin_sim.config import ConfigError, configs_dir
from gin_sim.enums import UNDERCUT_TABLE_DEADWOOD, UNDERCUT_TABLE_TURNS

CALIBRATION_SEED = 20261129
CALIBRATION_DEALS = 2_000_000


def undercut_table_path() -> Path:
    return configs_dir() / "models" / "undercut.csv"


def undercut_table_from_records(df: pd.DataFrame) -> np.ndarray:
    """Measure the table from hand records (knocks that are not gin)."""
    knocks = df[(df["knocker"] >= 0) & ~df["gin"]]
    # The knocker plays the last turn and the players alternate, so the defender has
    # played turns // 2 of them whoever began.
    turns = np.minimum(knocks["turns"].to_numpy() // 2, UNDERCUT_TABLE_TURNS - 1)
    after = knocks["defender_deadwood_after"].to_numpy()
    table = np.full((UNDERCUT_TABLE_TURNS, UNDERCUT_TABLE_DEADWOOD), np.nan)
    for t in range(UNDERCUT_TABLE_TURNS):
        sample = after[turns == t]
        if sample.size >= 50:  # too few hands say nothing; borrow the neighbouring row below
            table[t] = [(sample <= k).mean() for k in range(UNDERCUT_TABLE_DEADWOOD)]
    for t in range(UNDERCUT_TABLE_TURNS):
        if np.isnan(table[t, 0]):
            filled = [u for u in range(UNDERCUT_TABLE_TURNS) if not np.isnan(table[u, 0])]
            if not filled:
                raise ConfigError("no knocks in the records: cannot measure the undercut table")
            table[t] = table[min(filled, key=lambda u: (abs(u - t), u))]
    return np.round(table, 6)


def write_undercut_table(table: np.ndarray, path: Path) -> None:
    frame = pd.DataFrame(table, columns=[f"k{k}" for k in range(table.shape[1])])
    frame.insert(0, "opponent_turns", range(table.shape[0]))
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, index=False, float_format="%.6f")


@functools.cache
def load_undercut_table() -> np.ndarray:
    """The table as float64[21, 11], exactly as written in the CSV."""
    path = undercut_table_path()
    try:
        frame = pd.read_csv(path)
    except FileNotFoundError:
        raise ConfigError(
            f"undercut model not found: {path} (regenerate with python -m gin_sim.calibration)"
        ) from None
    expected = ["opponent_turns", *(f"k{k}" for k in range(UNDERCUT_TABLE_DEADWOOD))]
    if list(frame.columns) != expected or len(frame) != UNDERCUT_TABLE_TURNS:
        raise ConfigError(
            f"{path}: expected columns {', '.join(expected)} and {UNDERCUT_TABLE_TURNS} rows"
        )
    table = frame[expected[1:]].to_numpy(dtype=np.float64)
    if not ((table >= 0) & (table <= 1)).all():
        raise ConfigError(f"{path}: probabilities must lie in 0 to 1")
    return np.ascontiguousarray(table)


def main() -> None:
    from gin_sim.rules import load_rules
    from gin_sim.simulate import records_to_frame, simulate_deals
    from gin_sim.strategies import parse_players

    records = simulate_deals(
        load_rules("hollywood"), parse_players("simple,simple"), CALIBRATION_DEALS, CALIBRATION_SEED
    )
    table = undercut_table_from_records(records_to_frame(records))
    write_undercut_table(table, undercut_table_path())
    print(
        f"wrote {undercut_table_path()} from {CALIBRATION_DEALS:,} deals (seed {CALIBRATION_SEED})"
    )


if __name__ == "__main__":
    main()
