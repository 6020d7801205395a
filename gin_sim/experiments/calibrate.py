"""Measure the undercut-risk model (``configs/models/undercut.csv``) that
``gin_sim.players.calibration`` loads: ``python -m gin_sim.experiments.calibrate`` (fixed seed
and deal count, so it is reproducible)."""

from __future__ import annotations

from gin_sim.experiments.simulate import records_to_frame, simulate_deals
from gin_sim.game.rules import load_rules
from gin_sim.players.calibration import (
    CALIBRATION_DEALS,
    CALIBRATION_SEED,
    undercut_table_from_records,
    undercut_table_path,
    write_undercut_table,
)
from gin_sim.players.strategies import parse_players


def main() -> None:
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
