"""Distill's decisions pinned by properties, not by today's output (issue 27, part 1;
docs/testing.md): each proposal's gain interval is Bonferroni-adjusted for the number of
proposals checked, so that all of them cover at once with 95% probability."""

from __future__ import annotations

from dataclasses import replace
from statistics import NormalDist

import pandas as pd
import pytest
from test_distill import _report_folder, _takes

from gin_sim.experiments.advice import CARD_DOES
from gin_sim.experiments.distill import (
    Proposal,
    _conditions,
    check,
    distill,
    distilled_schedule,
    distilled_take_schedule,
)
from gin_sim.experiments.simulate import head_to_head
from gin_sim.experiments.summary import player_summary
from gin_sim.game.rules import load_rules
from gin_sim.players.strategies import Strategy, load_strategy

HOLLYWOOD = load_rules("hollywood")


def _widening(comparisons: int) -> float:
    """How much wider a Bonferroni interval is than a single 95% one: the normal quantile
    at 1 - 0.05 / (2 m) over the one at 0.975 (about 1.314 for m = 5)."""
    quantile = NormalDist().inv_cdf
    return quantile(1 - 0.05 / (2 * comparisons)) / quantile(0.975)


def test_a_checked_gain_is_the_paired_gain_with_a_bonferroni_interval():
    """The gain of a proposal, checked as one of m, is the base-with-the-change's net points
    per hand against the base on the same duplicate decks, with the plain 95% half width
    times the Bonferroni widening for m."""
    base = load_strategy("expert")
    proposal = Proposal("hollywood", (), (("knock_schedule", [[0, 0]]),), "test")  # gin only
    changed = replace(base.for_rules(HOLLYWOOD), name="changed", knock_schedule=((0, 0),))
    plain = player_summary(head_to_head(HOLLYWOOD, (changed, base), 400, 17), 0)[
        "net points per hand"
    ]
    assert plain.half_width > 0.1  # the change plays differently: the paired gain varies
    for comparisons in (1, 5):
        gain = check(base, proposal, HOLLYWOOD, 400, 17, comparisons).gain
        assert gain.mean == pytest.approx(plain.mean)
        assert gain.half_width == pytest.approx(plain.half_width * _widening(comparisons))
    assert _widening(5) == pytest.approx(1.314, abs=1e-3)


def test_distill_adjusts_for_every_proposal_it_checks(tmp_path):
    """Two proposals (the knock line and the take rule): each is checked as one of two."""
    tables = {"knock-line": _line([10, 8, 0, 0, 0], (200, 200, 100, 100, 50)),
              "take-cells": _takes(high=-0.5)}  # fmt: skip
    folder = _report_folder(tmp_path, tables, {"rules": "hollywood", "compare": "none"})
    _, checked, text = distill(folder, 300, 19)
    assert len(checked) == 2
    assert all(each.gain.half_width > 0.1 for each in checked)  # both change the play
    base = load_strategy("expert")
    for each in checked:
        alone = check(base, each.proposal, HOLLYWOOD, 300, 19, 1).gain
        assert each.gain.mean == pytest.approx(alone.mean)
        assert each.gain.half_width == pytest.approx(alone.half_width * _widening(2))
        assert each.kept == (each.gain.mean - each.gain.half_width > 0)
    assert "Bonferroni-adjusted for 2 proposals" in text


BANDS = ["25-31", "19-24", "13-18", "7-12", "0-6"]


def _line(thresholds, positions=(200,) * 5):
    return pd.DataFrame(
        {"stock_band": BANDS, "threshold": list(thresholds), "positions": list(positions)}
    )


def test_knock_schedules_from_lines_by_hand():
    """Hand-computed: equal neighbours merge into the earlier band's phase that ends at
    the later band's lowest stock; a thin band (fewer than 30 positions) or one without a
    fit (-1) keeps the band before it; a fifth phase merges into the fourth; the last phase
    runs to stock 0; no bands: knock at 10."""
    assert distilled_schedule(_line([10, 8, 8, 3, 0])) == [[25, 10], [13, 8], [7, 3], [0, 0]]
    thin = _line([10, 2, 6, 4, 0], positions=(200, 29, 200, 200, 200))
    assert distilled_schedule(thin) == [[19, 10], [13, 6], [7, 4], [0, 0]]
    assert distilled_schedule(_line([9, -1, 6, 6, 6])) == [[19, 9], [0, 6]]
    assert distilled_schedule(_line([-1, 7, 7, 7, 7])) == [[25, 0], [0, 7]]
    assert distilled_schedule(_line([10, 8, 6, 4, 2])) == [[25, 10], [19, 8], [13, 6], [0, 4]]
    assert distilled_schedule(_line([5] * 5)) == [[0, 5]]
    assert distilled_schedule(_line([0] * 5)[:0]) == [[0, 10]]
    assert distilled_schedule(_line([12, 0, 0, 0, 0], positions=(30,) * 5)) == [[25, 12], [0, 0]]


def _cells(by_band: dict[str, tuple]) -> pd.DataFrame:
    """Take cells by stock band: per band (meld, by 5 or more, by 1 to 4) as (mean,
    positions) pairs."""
    rows = []
    for band, cells in by_band.items():
        for card_does, (mean, positions) in zip(CARD_DOES[:3], cells, strict=True):
            rows.append(
                {"stock_band": band, "card_does": card_does, "mean": mean, "positions": positions}
            )
    return pd.DataFrame(rows)


def test_take_schedules_from_cells_by_hand():
    """Hand-computed, base take_melds False and take_min_gain 3:
    25-31 every card gains: take melds, and any lowering (1);
    19-24 and 13-18 only the larger lowering gains: the base's own 3, merged;
    7-12 nothing gains (the 1-to-4 cell is thin but the 5-or-more one says no): off (0);
    0-6 every cell thin: as before, merged."""
    base = replace(Strategy(), take_melds=False, take_min_gain=3.0)
    cells = _cells(
        {
            "25-31": ((2.0, 100), (1.0, 100), (0.5, 100)),
            "19-24": ((1.0, 100), (1.0, 100), (-1.0, 100)),
            "13-18": ((1.0, 100), (1.0, 100), (-1.0, 100)),
            "7-12": ((-1.0, 100), (-1.0, 100), (1.0, 5)),
            "0-6": ((5.0, 10), (5.0, 10), (5.0, 10)),
        }
    )
    assert distilled_take_schedule(cells, base) == [
        [25, True, 1.0], [13, True, 3.0], [0, False, 0.0],
    ]  # fmt: skip
    # a base without a score of its own takes at 5 where only the larger lowering gains
    no_score = replace(base, take_min_gain=0.0)
    assert distilled_take_schedule(cells, no_score)[1] == [13, True, 5.0]
    # every cell thin: the base's own rule throughout
    thin = _cells({band: ((1.0, 29), (1.0, 29), (1.0, 29)) for band in BANDS})
    assert distilled_take_schedule(thin, base) == [[0, False, 3.0]]


def test_adapt_conditions_name_every_rule_that_differs():
    own = load_rules("hollywood")
    other = replace(
        own, name="other", gin_bonus=20, oklahoma=True, undercut_bonus=own.undercut_bonus
    )
    assert _conditions(other, own) == (("gin_bonus", (20, 20)), ("oklahoma", True))
    assert _conditions(replace(own, name="renamed"), own) == ()
