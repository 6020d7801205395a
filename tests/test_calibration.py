"""The undercut-risk table (docs/strategies.md, "Undercut risk estimate"): the file in
configs/models loads as the kernels need it, and a malformed table is refused with an
error that says what is wrong before any kernel indexes it without bounds checks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gin_sim.game.config import ConfigError
from gin_sim.kernels.enums import UNDERCUT_TABLE_DEADWOOD, UNDERCUT_TABLE_TURNS
from gin_sim.players.calibration import (
    check_undercut_table,
    load_undercut_table,
    read_undercut_table,
    undercut_table_from_records,
    undercut_table_path,
    write_undercut_table,
)


def test_the_shipped_table_loads_as_the_kernels_need_it():
    table = load_undercut_table()
    assert table.shape == (UNDERCUT_TABLE_TURNS, UNDERCUT_TABLE_DEADWOOD) == (21, 11)
    assert table.dtype == np.float64 and table.flags["C_CONTIGUOUS"]
    assert np.isfinite(table).all() and (table >= 0).all() and (table <= 1).all()
    assert (np.diff(table, axis=1) >= 0).all()
    # exactly the numbers of the CSV
    frame = pd.read_csv(undercut_table_path())
    assert np.array_equal(table, frame.drop(columns="opponent_turns").to_numpy())


def test_a_written_table_reads_back(tmp_path: Path):
    table = np.round(np.cumsum(np.full((21, 11), 0.01), axis=1), 6)
    write_undercut_table(table, tmp_path / "undercut.csv")
    assert np.array_equal(read_undercut_table(tmp_path / "undercut.csv"), table)
    assert np.array_equal(load_undercut_table(tmp_path / "undercut.csv"), table)


def test_a_table_measured_from_records_passes_the_check():
    from gin_sim.experiments.simulate import records_to_frame, simulate_deals
    from gin_sim.game.rules import load_rules
    from gin_sim.players.strategies import parse_players

    records = simulate_deals(load_rules("hollywood"), parse_players("simple,simple"), 3_000, 5)
    table = undercut_table_from_records(records_to_frame(records))
    assert np.array_equal(check_undercut_table(table), table)


def _good() -> pd.DataFrame:
    table = np.round(np.cumsum(np.full((21, 11), 0.01), axis=1), 6)
    frame = pd.DataFrame(table, columns=[f"k{k}" for k in range(11)])
    frame.insert(0, "opponent_turns", range(21))
    return frame


def _edit(frame: pd.DataFrame, row: int, column: str, value) -> pd.DataFrame:
    frame = frame.astype({column: object})
    frame.loc[row, column] = value
    return frame


MALFORMED = [
    ("a row short", lambda f: f.iloc[:20], r"expected shape \(21, 11\) .* got \(20, 11\)"),
    (
        "a row too many",
        lambda f: pd.concat([f, f.iloc[[20]].assign(opponent_turns=21)]),
        r"got \(22, 11\)",
    ),
    ("a column short", lambda f: f.drop(columns="k10"), "expected the columns opponent_turns, k0"),
    (
        "columns misnamed",
        lambda f: f.rename(columns={"k3": "k03"}),
        "got opponent_turns, k0, .*k03",
    ),
    (
        "rows out of order",
        lambda f: f.iloc[::-1],
        r"opponent_turns must be 0, 1, 2, ... in order",
    ),
    ("above 1", lambda f: _edit(f, 4, "k10", 1.5), "got 1.5 at opponent_turns 4, k10"),
    ("negative", lambda f: _edit(f, 0, "k0", -0.01), "got -0.01 at opponent_turns 0, k0"),
    ("missing", lambda f: _edit(f, 7, "k2", None), "got nan at opponent_turns 7, k2"),
    ("infinite", lambda f: _edit(f, 7, "k2", "inf"), "got inf at opponent_turns 7, k2"),
    ("text", lambda f: _edit(f, 3, "k5", "high"), "'high' at opponent_turns 3, k5 is not a number"),
    (
        "falling along a row",
        lambda f: _edit(f, 2, "k6", 0.0),
        "row opponent_turns 2 falls from k5 .* to k6",
    ),
]


@pytest.mark.parametrize(("name", "damage", "message"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_a_malformed_table_file_is_refused(tmp_path: Path, name, damage, message):
    path = tmp_path / "undercut.csv"
    damage(_good()).to_csv(path, index=False)
    with pytest.raises(ConfigError, match=message) as error:
        read_undercut_table(path)
    assert str(path) in str(error.value)


def test_unreadable_or_missing_files_are_refused(tmp_path: Path):
    with pytest.raises(ConfigError, match=r"undercut model not found: .*regenerate"):
        read_undercut_table(tmp_path / "none.csv")
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(ConfigError, match="not a readable CSV table"):
        read_undercut_table(empty)


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (np.zeros((11, 21)), r"expected shape \(21, 11\)"),
        (np.zeros(231), r"expected shape \(21, 11\)"),
        (np.full((21, 11), "x"), "expected real numbers"),
        (np.full((21, 11), np.nan), "got nan at opponent_turns 0, k0 \\(231 bad values\\)"),
    ],
)
def test_check_undercut_table_refuses_arrays_the_kernels_cannot_use(table, message):
    with pytest.raises(ConfigError, match=message):
        check_undercut_table(table)


def test_check_undercut_table_makes_the_kernels_layout():
    fortran = np.asfortranarray(np.zeros((21, 11), dtype=np.float32))
    checked = check_undercut_table(fortran)
    assert checked.dtype == np.float64 and checked.flags["C_CONTIGUOUS"]
