"""The published advice run (docs/advice-run/, issue 25) meets the bars the README's
headlines rest on: it is the run its command makes, every knock cell of deadwood 1 to 10
with 7 or more cards in the stock and every take cell holds at least 100 positions, every
knock line has an interval with width, and the rule sets compared are the four the README
names. Republishing a thinner or different run fails here."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gin_sim.reports.advice import PUBLISHED_COMMAND, PUBLISHED_DEALS, PUBLISHED_RUN
from gin_sim.reports.build import DefaultSet

RUN = Path(__file__).resolve().parents[1] / Path(PUBLISHED_RUN).parent
LEAST = 100  # positions per cell (issue 25, item 4)


def _table(name: str) -> pd.DataFrame:
    return pd.read_csv(RUN / f"{name}.csv")


def test_the_published_run_is_the_one_its_command_makes():
    made = json.loads((RUN / "report.json").read_text())["command"]
    assert made == PUBLISHED_COMMAND
    assert f"--deals {PUBLISHED_DEALS}" in made
    assert PUBLISHED_COMMAND in (RUN / "report.md").read_text()


def test_every_knock_cell_with_7_or_more_cards_holds_100_positions():
    cells = _table("knock-cells")
    deep = cells[(cells["deadwood"].between(1, 10)) & (cells["stock_band"] != "0-6")]
    assert set(deep["stock_band"]) == {"25-31", "19-24", "13-18", "7-12"}
    assert len(deep) == 40
    thin = deep[deep["positions"] < LEAST]
    assert thin.empty, thin[["stock_band", "deadwood", "positions"]].to_string()


@pytest.mark.parametrize("name", ["take-cells", "take-cells-by-stock"])
def test_every_take_cell_holds_100_positions(name):
    cells = _table(name)
    assert len(cells) and (cells["positions"] >= LEAST).all(), cells.to_string()


@pytest.mark.parametrize("name", ["knock-line", "knock-line-by-rules"])
def test_every_knock_line_has_an_interval_with_width_around_it(name):
    lines = _table(name)
    assert np.isfinite(lines["slope"]).all()  # every band has a line
    assert (lines["low"] < lines["high"]).all(), lines.to_string()  # never "6 to 6"
    assert ((lines["low"] <= lines["line"]) & (lines["line"] <= lines["high"])).all()


def test_the_four_rule_sets_are_compared():
    rules = set(_table("knock-line-by-rules")["rules"])
    assert rules == {"hollywood", "hollywood-gin20", "standard", "oklahoma"}


def test_a_smaller_run_points_to_the_published_one_and_its_command():
    from gin_sim.reports.advice import _scale_note

    small = _scale_note(600)
    assert PUBLISHED_RUN in small and PUBLISHED_COMMAND in small and "600 deals" in small
    published = _scale_note(PUBLISHED_DEALS)
    assert PUBLISHED_COMMAND not in published and "24,000 deals" in published
    made = (RUN.parents[1] / "reports/advice-hollywood/report.md").read_text()
    assert f"Size: {DefaultSet().advice_deals} deals" in made
