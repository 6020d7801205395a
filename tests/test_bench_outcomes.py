"""bench/levers/outcomes.py: every hand ends one way, each way's points have the sign the
rules give them (R12 to R17), the ways' points add up to the net, and bad input is one line."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from bench_scripts import load_bench_script

from gin_sim.experiments.simulate import simulate_deals
from gin_sim.game.rules import load_rules
from gin_sim.players.strategies import load_strategy


@pytest.fixture(scope="module")
def module():
    return load_bench_script("levers/outcomes.py", "bench_outcomes")


@pytest.fixture(scope="module")
def records():
    """Hands that end every way: a late knocker (undercut often) against a gin hunter."""
    players = (load_strategy("sparring-standard"), load_strategy("gin-hunter-strong"))
    return simulate_deals(load_rules("standard"), players, 3000, 5)


def test_each_way_is_what_the_hand_shows(module, records):
    way = module.ways_of(records)
    points = module.seat0_points(records)
    names = np.array(module.WAYS)[way]
    gin = records["gin"].astype(bool)
    assert set(names) == set(module.WAYS)  # every way occurs in these hands
    assert np.array_equal(names == "dead hand", records["knocker"] < 0)
    assert np.array_equal(names == "own gin", (records["knocker"] == 0) & gin)
    assert np.array_equal(names == "opponent's gin", (records["knocker"] == 1) & gin)
    # R17: a won knock scores more than 0 (a tie is an undercut under standard), an
    # undercut scores for the defender, gin at least its bonus, a dead hand nothing.
    assert np.all(points[names == "own knock won"] > 0)
    assert np.all(points[names == "own knock undercut"] < 0)
    assert np.all(points[names == "own gin"] >= 25)
    assert np.all(points[names == "opponent's knock won"] < 0)
    assert np.all(points[names == "opponent's knock undercut"] > 0)
    assert np.all(points[names == "opponent's gin"] <= -25)
    assert np.all(points[names == "dead hand"] == 0)


def test_the_ways_add_up_to_every_hand_and_the_net(module, records):
    shares, points = module.breakdown(records)
    assert np.array_equal(shares.sum(axis=1), np.ones(len(records)))
    assert np.allclose(points.sum(axis=1), module.seat0_points(records))
    lines = module.table(["expert", "simple"], {"expert": records, "simple": records[::-1]})
    assert len(lines) == 2 + len(module.WAYS) + 1
    assert lines[-1].startswith("| all hands (net points a hand) |")


def test_a_bad_seed_is_one_line_with_exit_code_2(module, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["outcomes.py", "--seed", "7,x", "--players", "simple"])
    with pytest.raises(SystemExit) as stop:
        module.main()
    assert stop.value.code == 2
    assert (
        capsys.readouterr().err
        == "outcomes.py: --seed 7,x: allowed whole numbers, comma-separated\n"
    )
