"""bench/levers/paired_deals.py: seeds pooled deal by deal, and bad seeds or counts refused."""

from __future__ import annotations

import argparse
import re

import numpy as np
import pytest
from bench_scripts import load_bench_script


@pytest.fixture(scope="module")
def module():
    return load_bench_script("levers/paired_deals.py", "bench_paired_deals")


def test_seeds_take_one_count_of_deals_or_one_each(module):
    assert module.seeds_and_deals("7", "30") == [(7, 30)]
    assert module.seeds_and_deals("7,8", "30") == [(7, 30), (8, 30)]
    assert module.seeds_and_deals("7,8", "30,40") == [(7, 30), (8, 40)]
    for seeds, deals, named in (
        ("7,x", "30", "--seed 7,x"),
        ("7,8", "30,y", "--deals 30,y"),
        ("7,8", "30,40,50", "one per seed (2 seeds)"),
        ("7", "1", "2 or more"),
        ("7,7", "30", "would count its deals twice"),
    ):
        with pytest.raises(ValueError, match=re.escape(named)):
            module.seeds_and_deals(seeds, deals)


def test_pooled_seeds_are_each_seeds_deals_one_after_the_other(module, tmp_path, capsys):
    """Two seeds pooled give the gains of each seed alone, in order, so a deal keeps its
    place against every opponent (the mean over opponents is clustered by deal); a
    seed's saved records are read back, not played again."""

    def gains(seed: str, deals: str) -> np.ndarray:
        args = argparse.Namespace(
            runs=module.seeds_and_deals(seed, deals),
            comparisons=1,
            seed=seed,
            save=tmp_path,
            rules="standard",
        )
        return module.compare(args, "simple", ["expert"], "simple")["expert"]

    first, second = gains("3", "12"), gains("4", "9")
    saved = sorted(path.name for path in tmp_path.iterdir())
    assert len(saved) == 4  # two players, two seeds
    pooled = gains("3,4", "12,9")
    assert sorted(path.name for path in tmp_path.iterdir()) == saved
    assert np.array_equal(pooled, np.concatenate([first, second]))
    assert len(pooled) == 21 and np.any(pooled != 0)
    printed = capsys.readouterr().out
    assert "seed 3,4, 21 deals" in printed


def test_a_bad_seed_is_one_line_with_exit_code_2(module, monkeypatch, capsys):
    monkeypatch.setattr(
        "sys.argv", ["paired_deals.py", "--seed", "5,z", "--players", "simple,expert"]
    )
    with pytest.raises(SystemExit) as stopped:
        module.main()
    assert stopped.value.code == 2
    error = capsys.readouterr().err
    assert error == "paired_deals.py: --seed 5,z: allowed whole numbers, comma-separated\n"


def test_the_rules_are_those_given_and_kept_apart(module, tmp_path, capsys):
    """--rules plays the deals under that rule set (R17's scoring differs, so the points
    do), and its saved records are kept under their own name beside standard's."""
    standard = module.hand_records("expert", "simple", 3, 12, tmp_path, "standard")
    hollywood = module.hand_records("expert", "simple", 3, 12, tmp_path, "hollywood")
    assert not np.array_equal(standard["points"], hollywood["points"])
    names = sorted(path.name for path in tmp_path.iterdir())
    assert len(names) == 2 and sum("-simple-hollywood-3-12-" in name for name in names) == 1
    assert capsys.readouterr().out.count("expert against simple") == 2  # both played
    again = module.hand_records("expert", "simple", 3, 12, tmp_path, "hollywood")
    assert np.array_equal(again, hollywood)
    assert capsys.readouterr().out == ""  # read back, not played again


def test_unknown_rules_are_one_line_with_exit_code_2(module, monkeypatch, capsys):
    monkeypatch.setattr(
        "sys.argv",
        ["paired_deals.py", "--seed", "5", "--players", "simple,expert", "--rules", "nosuch"],
    )
    with pytest.raises(SystemExit) as stopped:
        module.main()
    assert stopped.value.code == 2
    error = capsys.readouterr().err
    assert error == (
        "paired_deals.py: unknown rule set 'nosuch': known rule sets are hollywood, "
        "hollywood-gin20, oklahoma, standard\n"
    )
