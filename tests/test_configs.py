"""Every file in configs/ loads; named rule sets match RULES.md; bad values name key and range."""

from __future__ import annotations

from pathlib import Path

import pytest

from gin_sim.config import ConfigError, configs_dir
from gin_sim.rules import Rules, load_rules, named_rules
from gin_sim.strategies import load_strategy, named_strategies, parse_players


def test_every_config_file_loads():
    rule_files = sorted((configs_dir() / "rules").glob("*.toml"))
    strategy_files = sorted((configs_dir() / "strategies").glob("*.toml"))
    assert rule_files and strategy_files
    for path in rule_files:
        assert load_rules(path).name == path.stem
    for path in strategy_files:
        assert load_strategy(path).name == path.stem


def test_named_rule_sets_match_rules_md():
    assert set(named_rules()) >= {"hollywood", "hollywood-gin20", "standard", "oklahoma"}
    hollywood = load_rules("hollywood")
    assert hollywood == Rules()  # the dataclass defaults are the seed rules
    assert (
        hollywood.gin_bonus,
        hollywood.undercut_bonus,
        hollywood.knock_limit,
        hollywood.wall,
    ) == (25, 10, 10, 2)
    assert load_rules("hollywood-gin20").gin_bonus == 20
    standard = load_rules("standard")
    assert (
        standard.gin_bonus,
        standard.undercut_bonus,
        standard.undercut_on_tie,
        standard.big_gin_bonus,
    ) == (25, 25, True, 0)
    assert load_rules("oklahoma").oklahoma


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("gin_bonus=-1", "gin_bonus = -1 .* allowed 0 to 1000"),
        ("knock_limit=11", "knock_limit = 11 .* allowed 0 to 10"),
        ("knock_limit=-1", "knock_limit = -1 .* allowed 0 to 10"),
        ("wall=-1", "wall = -1 .* allowed 0 to 30"),
        ("max_upcard_takes=0", "max_upcard_takes = 0 .* allowed 1 to 1000"),
        ("undercut_on_tie=maybe", "undercut_on_tie .* true or false"),
        ("gin_bonus=x", "gin_bonus .* whole number"),
        ("colour=red", "unknown key 'colour'.*allowed keys are"),
        ("gin_bonus", "expected key=value"),
    ],
)
def test_bad_rule_values(override, message):
    with pytest.raises(ConfigError, match=message):
        load_rules("hollywood", [override])


def test_bad_toml_file_names_file_and_key(tmp_path: Path):
    path = tmp_path / "mine.toml"
    path.write_text("knock_limit = 12\n")
    with pytest.raises(ConfigError, match=r"knock_limit = 12 in .*mine.toml.* allowed 0 to 10"):
        load_rules(path)
    path.write_text("knock_limt = 5\n")
    with pytest.raises(ConfigError, match=r"unknown key 'knock_limt' in .*mine.toml"):
        load_rules(path)


def test_unknown_names_list_the_known_ones():
    with pytest.raises(ConfigError, match="known rule sets are hollywood"):
        load_rules("holywood")
    with pytest.raises(ConfigError, match=r"known strategies are .*simple"):
        load_strategy("expret")
    with pytest.raises(ConfigError, match="two strategy names"):
        parse_players("simple")
    assert {"simple", "random"} <= set(named_strategies())


def test_rules_vector_follows_fields():
    vector = load_rules("standard", ["big_gin_bonus=31"]).to_kernel()
    assert 31 in vector and 25 in vector
