"""bench/levers/world_check.py: the worlds' figures against the real ones, by hand and on a
few deals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from bench_scripts import load_bench_script

from gin_sim.game.config import ConfigError
from gin_sim.game.rules import load_rules
from gin_sim.players.strategies import load_strategy


@pytest.fixture(scope="module")
def module():
    return load_bench_script("levers/world_check.py", "bench_world_check")


def test_the_knock_table_takes_late_knocks_without_gin_and_their_bias(module):
    """Gin (deadwood 0) and early knocks are left out; the bias is the worlds' points less
    the real ones, the real undercut share counts the knocks that lost points (R15)."""
    rows = pd.DataFrame(
        {
            "deal": [0, 1, 2, 3, 4],
            "weight": [1.0] * 5,
            "knock": [True, True, True, True, False],
            "knock_deadwood": [8, 9, 0, 8, -1],
            "stock_left": [10, 15, 10, 25, 10],
            "world_points": [4.0, 2.0, 30.0, 5.0, np.nan],
            "hand_points": [-20, 6, 25, 7, 0],
            "undercut_share": [0.25, 0.5, 0.0, 0.0, np.nan],
        }
    )
    table = module.knock_table(rows, late=18).set_index("deadwood")
    assert table.loc["7-10", "knocks"] == 2 and table.loc["all", "knocks"] == 2
    assert table.loc["7-10", "worlds' points"] == "+3.00"
    assert table.loc["7-10", "real points"] == "-7.00"
    assert table.loc["7-10", "bias"].startswith("+10.00")
    assert table.loc["7-10", "undercut"] == "50%"
    assert table.loc["7-10", "worlds undercut"] == "38%"
    assert "1-3" not in table.index


def test_the_showdown_table_splits_the_late_knocks_by_deadwood_and_layoffs(module):
    """The opponent's deadwood before laying off and the points laid off (R14), worlds
    against truth, over the same late knocks without gin as the knock table."""
    rows = pd.DataFrame(
        {
            "deal": [0, 1, 2, 3],
            "weight": [1.0] * 4,
            "knock": [True, True, True, True],
            "knock_deadwood": [8, 9, 0, 2],
            "stock_left": [10, 15, 10, 30],
            "world_defender_deadwood": [12.0, 20.0, 40.0, 5.0],
            "real_defender_deadwood": [10, 8, 3, 5],
            "world_laid_off": [1.0, 3.0, 0.0, 0.0],
            "real_laid_off": [4, 10, 0, 0],
        }
    )
    table = module.showdown_table(rows, late=18).set_index("deadwood")
    assert list(table.index) == ["7-10", "all"]  # gin and the early knock left out
    assert table.loc["7-10", "knocks"] == 2
    assert table.loc["7-10", "worlds' deadwood"] == "16.00"
    assert table.loc["7-10", "real deadwood"] == "9.00"
    assert table.loc["7-10", "worlds less real"].startswith("+7.00")
    assert table.loc["7-10", "laid off, worlds less real"].startswith("-5.00")


def test_the_posterior_table_gives_each_models_worlds_beside_the_truth(module):
    """At the late knocks without gin: the mean posterior of each model, the mean deadwood
    of the hands it built (knocks where it built none left out) and the real mean."""
    rows = pd.DataFrame(
        {
            "knock": [True, True, True],
            "knock_deadwood": [5, 6, 5],
            "stock_left": [10, 12, 25],
            "posterior simple": [0.5, 0.7, 0.9],
            "posterior expert": [0.5, 0.3, 0.1],
            "world_deadwood simple": [12.0, 8.0, 1.0],
            "world_deadwood expert": [np.nan, 20.0, 1.0],
            "real_defender_deadwood": [7, 9, 1],
        }
    )
    table = module.posterior_table(rows, late=18).set_index("model")
    assert table.loc["simple", "posterior"] == 0.6
    assert table.loc["simple", "worlds' deadwood"] == 10.0
    assert table.loc["expert", "worlds' deadwood"] == 20.0
    assert table.loc["expert", "real deadwood"] == 8.0


def test_the_deadwood_table_weights_rows_as_they_were_kept(module):
    """A row kept with probability 1/4 stands for four: (4 * 10 + 1 * 20) / 5 = 12."""
    rows = pd.DataFrame(
        {
            "deal": [0, 1],
            "weight": [4.0, 1.0],
            "deadwood_sample": [True, True],
            "stock_left": [10, 11],
            "world_deadwood": [10.0, 20.0],
            "real_deadwood": [12, 12],
        }
    )
    table = module.deadwood_table(rows).set_index("cards left")
    assert table.loc["0-12", "worlds' deadwood"] == "12.00"
    assert table.loc["0-12", "worlds less real"].startswith("+0.00")


def test_the_calibration_slope_is_one_where_the_worlds_read_the_truth(module):
    """Worlds whose reading is the truth plus noise of their own give slope 1 (the truth's
    own spread, by deal); worlds that read twice the truth's spread give 1/2, and the
    interval holds it. Only sampled decisions with a knock open, late enough, count."""
    rng = np.random.default_rng(3)
    real = rng.normal(8.0, 3.0, 2000)
    base = {
        "deal": np.repeat(np.arange(1000), 2),
        "weight": np.full(2000, 4.0),
        "deadwood_sample": np.ones(2000, bool),
        "kind": ["knock"] * 2000,
        "stock_left": np.full(2000, 10),
        "real_deadwood": real,
    }
    calibrated = pd.DataFrame({**base, "world_deadwood": real + rng.normal(0, 0.01, 2000)})
    table, slope = module.calibration_table(calibrated, late=18)
    assert abs(slope.mean - 1.0) < 0.005 and slope.n == 1000  # units: deals
    assert list(table["fifth"]) == [1, 2, 3, 4, 5] and table["decisions"].sum() == 2000
    assert all(table["worlds less real"].str.startswith(("+0.00", "-0.00")))
    noisy = real + rng.normal(0, 1.0, 2000)  # the truth less predictable than the worlds say
    spread = pd.DataFrame(
        {**base, "real_deadwood": noisy, "world_deadwood": 8.0 + 2.0 * (real - 8.0)}
    )
    table, slope = module.calibration_table(spread, late=18)
    assert abs(slope.mean - 0.5) < slope.half_width < 0.025
    assert float(table.loc[4, "worlds' deadwood"]) > float(table.loc[4, "real deadwood"])
    # an early decision, one without a knock open and one left out of the sample: not read
    extra = pd.DataFrame({**{k: v[:3] for k, v in base.items()},
                          "kind": ["knock", "discard", "knock"], "stock_left": [30, 10, 10],
                          "deadwood_sample": [True, True, False],
                          "world_deadwood": [99.0, 99.0, 99.0]})  # fmt: skip
    table, again = module.calibration_table(pd.concat([spread, extra]), late=18)
    assert again == slope
    assert module.calibration_table(extra, late=18)[1] is None


def test_a_player_without_a_panel_is_refused_before_any_play(module):
    """mc-fixed reads no posterior: refused at once (a ConfigError, which the script prints
    as one line with exit code 2), not after its deals are played."""
    rules = load_rules("standard")
    players = (load_strategy("mc-fixed"), load_strategy("gin-hunter-strong"))
    with pytest.raises(ConfigError, match="mc-fixed has no opponent panel"):
        module.sampled_rows(rules, players, 5, 100_000, 4, 0.2)


@pytest.mark.full  # a few seconds of mc's play: the fast tier's budget is thin
def test_a_small_run_checks_every_knock_and_repeats_itself(module):
    """Every knock `mc` made in seat 0 is checked whatever the share, and the figures are
    a function of the seed (the worlds on each position's own stream)."""
    rules = load_rules("standard")
    players = (load_strategy("mc"), load_strategy("gin-hunter-strong"))
    first = module.sampled_rows(rules, players, 5, 40, 4, 0.2)
    again = module.sampled_rows(rules, players, 5, 40, 4, 0.2)
    pd.testing.assert_frame_equal(first.drop(columns=["position_masks", "position_state"]),
                                  again.drop(columns=["position_masks", "position_state"]))  # fmt: skip
    knocks = first[first["knock"]]
    assert len(knocks) and (knocks["seat"] == 0).all()
    assert knocks["played"].str.startswith("knock").all()
    others = first[~first["knock"]]
    assert others["deadwood_sample"].all()  # only the sampled share besides the knocks
    assert (first["world_deadwood"] >= 0).all()
    assert first["real_deadwood"].between(0, 98).all()
    # the knock applied to the real position scores what the hand really scored (R12-R17)
    assert (knocks["real_showdown_points"] == knocks["hand_points"]).all()
    assert (knocks["real_defender_deadwood"] >= knocks["real_laid_off"]).all()
