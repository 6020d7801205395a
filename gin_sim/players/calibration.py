"""The undercut-risk model that undercut-aware strategies consult (docs/strategies.md).

``UNDERCUT_TABLE[t, k]`` estimates the chance that a defender who has played ``t`` turns
(rows 0..20, the last for 20 or more) ends with deadwood after layoffs at most ``k``
(columns 0..10) when the other player knocks. It is measured on simulated
``simple``-versus-``simple`` hands under ``hollywood`` rules and kept in
``configs/models/undercut.csv``, which both engines read. Regenerate it with
``python -m gin_sim.experiments.calibrate`` (fixed seed and deal count, so it is reproducible).
"""

from __future__ import annotations

import functools
import io
from pathlib import Path

import numpy as np
import pandas as pd

from gin_sim.game.config import ConfigError, configs_dir, read_user_file
from gin_sim.kernels.enums import UNDERCUT_TABLE_DEADWOOD, UNDERCUT_TABLE_TURNS

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


def check_undercut_table(table: np.ndarray, where: str = "undercut table") -> np.ndarray:
    """The table as the kernels need it, or a ConfigError that says what is wrong.

    The kernels index ``undercut_table[min(opp_turns, 20), k]`` with ``k`` up to 10 and no
    bounds check (``gin_sim.kernels.decisions``), so every table that reaches them passes
    here first: a float64 array of shape (21, 11), C-contiguous, every value a finite
    probability in [0, 1], each row not decreasing in ``k`` (a cumulative chance).
    """
    shape = (UNDERCUT_TABLE_TURNS, UNDERCUT_TABLE_DEADWOOD)
    array = np.asarray(table)
    if array.shape != shape:
        raise ConfigError(
            f"{where}: expected shape {shape} (opponent turns 0..{shape[0] - 1} by "
            f"deadwood 0..{shape[1] - 1}), got {array.shape}"
        )
    if not np.issubdtype(array.dtype, np.number) or np.issubdtype(array.dtype, np.complexfloating):
        raise ConfigError(f"{where}: expected real numbers, got dtype {array.dtype}")
    array = np.ascontiguousarray(array, dtype=np.float64)
    bad = ~np.isfinite(array) | (array < 0) | (array > 1)
    if bad.any():
        t, k = (int(x) for x in np.argwhere(bad)[0])
        raise ConfigError(
            f"{where}: every value must be a probability in 0 to 1, got {array[t, k]} at "
            f"opponent_turns {t}, k{k} ({int(bad.sum())} bad values)"
        )
    falls = np.diff(array, axis=1) < 0
    if falls.any():
        t, k = (int(x) for x in np.argwhere(falls)[0])
        raise ConfigError(
            f"{where}: row opponent_turns {t} falls from k{k} ({array[t, k]}) to k{k + 1} "
            f"({array[t, k + 1]}); the chance of deadwood at most k cannot fall as k grows"
        )
    return array


def read_undercut_table(path: Path) -> np.ndarray:
    """Read and check a table file in the layout ``write_undercut_table`` writes."""
    try:
        frame = pd.read_csv(io.BytesIO(read_user_file(path)))  # a FIFO cannot block it
    except FileNotFoundError:
        raise ConfigError(
            f"undercut model not found: {path} (regenerate with python -m gin_sim.players.calibration)"
        ) from None
    except OSError as error:
        raise ConfigError(
            f"cannot read the undercut model {path}: {error.strerror or error}"
        ) from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: not a readable CSV table ({error})") from None
    expected = ["opponent_turns", *(f"k{k}" for k in range(UNDERCUT_TABLE_DEADWOOD))]
    if list(frame.columns) != expected:
        raise ConfigError(
            f"{path}: expected the columns {', '.join(expected)}, got {', '.join(map(str, frame.columns))}"
        )
    if frame["opponent_turns"].tolist() != list(range(len(frame))):
        raise ConfigError(
            f"{path}: opponent_turns must be 0, 1, 2, ... in order (rows 0 to "
            f"{UNDERCUT_TABLE_TURNS - 1}), got {frame['opponent_turns'].tolist()}"
        )
    values = frame[expected[1:]].apply(pd.to_numeric, errors="coerce")
    text = values.isna() & frame[expected[1:]].notna()
    if text.any().any():
        row, column = next((r, c) for c in text.columns for r in text.index if text.loc[r, c])
        raise ConfigError(
            f"{path}: {frame.loc[row, column]!r} at opponent_turns {row}, {column} is not a number"
        )
    return check_undercut_table(values.to_numpy(dtype=np.float64), str(path))


@functools.cache
def load_undercut_table(path: Path | None = None) -> np.ndarray:
    """The table as float64[21, 11], exactly as written in the CSV (by default
    ``configs/models/undercut.csv``), checked by ``check_undercut_table``."""
    return read_undercut_table(undercut_table_path() if path is None else Path(path))
