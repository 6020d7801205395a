"""Distill's decisions pinned by properties, not by today's output (issue 27, part 1;
docs/testing.md): each proposal's gain interval is Bonferroni-adjusted for the number of
proposals checked, so that all of them cover at once with 95% probability."""

from __future__ import annotations

from dataclasses import replace
from statistics import NormalDist

import pytest
from test_distill import _line, _report_folder, _takes

from gin_sim.experiments.distill import Proposal, check, distill
from gin_sim.experiments.simulate import head_to_head
from gin_sim.experiments.summary import player_summary
from gin_sim.game.rules import load_rules
from gin_sim.players.strategies import load_strategy

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
    proposal = Proposal("hollywood", (), (("knock_schedule", [[0, 10]]),), "test")
    changed = replace(base.for_rules(HOLLYWOOD), name="changed", knock_schedule=((0, 10),))
    plain = player_summary(head_to_head(HOLLYWOOD, (changed, base), 400, 17), 0)[
        "net points per hand"
    ]
    for comparisons in (1, 5):
        gain = check(base, proposal, HOLLYWOOD, 400, 17, comparisons).gain
        assert gain.mean == pytest.approx(plain.mean)
        assert gain.half_width == pytest.approx(plain.half_width * _widening(comparisons))
    assert _widening(5) == pytest.approx(1.314, abs=1e-3)


def test_distill_adjusts_for_every_proposal_it_checks(tmp_path):
    """Two proposals (the knock line and the take rule): each is checked as one of two."""
    tables = {"knock-line": _line([10, 8, 0, 0, 0]), "take-cells": _takes(high=-0.5)}
    folder = _report_folder(tmp_path, tables, {"rules": "hollywood", "compare": "none"})
    _, checked, text = distill(folder, 300, 19)
    assert len(checked) == 2
    base = load_strategy("expert")
    for each in checked:
        alone = check(base, each.proposal, HOLLYWOOD, 300, 19, 1).gain
        assert each.gain.mean == pytest.approx(alone.mean)
        assert each.gain.half_width == pytest.approx(alone.half_width * _widening(2))
        assert each.kept == (each.gain.mean - each.gain.half_width > 0)
    assert "Bonferroni-adjusted for 2 proposals" in text
