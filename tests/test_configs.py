"""Every file in configs/ loads; named rule sets match RULES.md; bad values name key and range."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

from gin_sim.game.config import ConfigError, configs_dir
from gin_sim.game.rules import Rules, load_rules, named_rules
from gin_sim.kernels.enums import (
    FAMILY_PARAMS,
    MAX_PANEL,
    MAX_SCHEDULE_PHASES,
    N_STRATEGY_PARAMS,
    RuleParam,
    StrategyParam,
)
from gin_sim.players.strategies import (
    PANEL_MEMORIES,
    SEARCH_VALUES,
    Strategy,
    load_strategy,
    named_strategies,
    parse_players,
)


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


# Each Rules field and the RuleParam position the kernels read it from, written out here
# rather than derived from the enum's names (as Rules.to_kernel does).
RULE_POSITIONS = {
    "knock_limit": RuleParam.KNOCK_LIMIT,
    "gin_bonus": RuleParam.GIN_BONUS,
    "undercut_bonus": RuleParam.UNDERCUT_BONUS,
    "undercut_on_tie": RuleParam.UNDERCUT_ON_TIE,
    "big_gin_bonus": RuleParam.BIG_GIN_BONUS,
    "oklahoma": RuleParam.OKLAHOMA,
    "wall": RuleParam.WALL,
    "max_upcard_takes": RuleParam.MAX_UPCARD_TAKES,
    "may_discard_drawn_upcard": RuleParam.MAY_DISCARD_DRAWN_UPCARD,
    "game_target": RuleParam.GAME_TARGET,
    "hollywood_bonuses": RuleParam.HOLLYWOOD_BONUSES,
}
# Every numeric field different from the others, and one rule set per boolean field with
# only that boolean on, so a field read from another's position cannot go unnoticed.
DISTINCT_RULES = [
    "knock_limit=7", "gin_bonus=31", "undercut_bonus=17", "big_gin_bonus=41", "wall=3",
    "max_upcard_takes=55", "game_target=150", "undercut_on_tie=false",
]  # fmt: skip
BOOLEAN_RULES = ["undercut_on_tie", "oklahoma", "may_discard_drawn_upcard", "hollywood_bonuses"]


def rule_sets_to_check() -> list[Rules]:
    checked = [load_rules(path) for path in sorted((configs_dir() / "rules").glob("*.toml"))]
    checked.append(load_rules("hollywood", DISTINCT_RULES))
    for on in BOOLEAN_RULES:
        checked.append(
            load_rules(
                "hollywood", DISTINCT_RULES + [f"{b}={str(b == on).lower()}" for b in BOOLEAN_RULES]
            )
        )
    return checked


def test_rule_positions_cover_every_field_once():
    assert set(RULE_POSITIONS) == {f.name for f in fields(Rules)} - {"name"}
    assert sorted(RULE_POSITIONS.values()) == list(range(len(RuleParam)))


@pytest.mark.parametrize("rules", rule_sets_to_check(), ids=lambda r: r.describe())
def test_rules_vector_has_each_field_at_its_position(rules: Rules):
    vector = rules.to_kernel()
    assert vector.dtype == np.int64 and vector.shape == (len(RULE_POSITIONS),)
    for key, index in RULE_POSITIONS.items():
        assert vector[index] == int(getattr(rules, key)), (key, index, vector)


def test_distinct_rules_really_are_distinct():
    numeric = [v for k, v in RULE_POSITIONS.items() if k not in BOOLEAN_RULES]
    values = load_rules("hollywood", DISTINCT_RULES).to_kernel()[numeric]
    assert len(set(values.tolist())) == len(numeric)


# The same for Strategy fields and StrategyParam positions.
FLOAT_POSITIONS = {
    "undercut_risk": StrategyParam.UNDERCUT_RISK,
    "take_melds": StrategyParam.TAKE_MELDS,
    "take_min_gain": StrategyParam.TAKE_MIN_GAIN,
    "improve_weight": StrategyParam.IMPROVE_WEIGHT,
    "keep_weight": StrategyParam.KEEP_WEIGHT,
    "safety_weight": StrategyParam.SAFETY_WEIGHT,
    "disinterest_weight": StrategyParam.DISINTEREST_WEIGHT,
    "pair_weight": StrategyParam.PAIR_WEIGHT,
    "closing_distance": StrategyParam.CLOSING_DISTANCE,
}
DISTINCT_STRATEGY = [
    "knock_threshold=3", "knock_schedule=20:9,11:6,5:4,0:2", "undercut_risk=0.35",
    "take_melds=false", "take_min_gain=1.5", "improve_weight=2.5", "keep_weight=3.5",
    "safety_weight=4.5", "disinterest_weight=5.5", "closing_distance=25", "pair_weight=6.25",
    "take_schedule=24:true:6.5,0:false:7.5",
]  # fmt: skip


# Search players (kind mc): their own slots, then two family vectors (rollout, opponent model).
SEARCH_POSITIONS = {
    "samples": StrategyParam.MC_SAMPLES,
    "candidates": StrategyParam.MC_CANDIDATES,
    "screen": StrategyParam.MC_SCREEN,
    "infer": StrategyParam.MC_INFER,
    "infer_weight": StrategyParam.MC_INFER_WEIGHT,
    "confidence": StrategyParam.MC_CONFIDENCE,
    "late_stock": StrategyParam.MC_LATE_STOCK,
    "late_samples": StrategyParam.MC_LATE_SAMPLES,
    "undercut_weight": StrategyParam.MC_UNDERCUT_WEIGHT,
    "undercut_stock": StrategyParam.MC_UNDERCUT_STOCK,
    "late_infer_stock": StrategyParam.MC_LATE_INFER_STOCK,
    "late_infer_weight": StrategyParam.MC_LATE_INFER_WEIGHT,
    "infer_lowering": StrategyParam.MC_INFER_LOWERING,
    "infer_timed": StrategyParam.MC_INFER_TIMED,
    "extend_samples": StrategyParam.MC_EXTEND_SAMPLES,
    "knock_samples": StrategyParam.MC_KNOCK_SAMPLES,
    "screen_discards": StrategyParam.MC_SCREEN_DISCARDS,
    "early_screen": StrategyParam.MC_EARLY_SCREEN,
    "early_keep": StrategyParam.MC_EARLY_KEEP,
    "paired_draws": StrategyParam.MC_PAIRED_DRAWS,
    "draw_samples": StrategyParam.MC_DRAW_SAMPLES,
}
VALUE_POSITION = {"value": StrategyParam.MC_VALUE}  # a SearchValue code, from the name
POLICY_BLOCKS = {"rollout": StrategyParam.MC_ROLLOUT, "opponent_model": StrategyParam.MC_OPPONENT}
# knock_rollout: a flag, then a family vector (all zero when off)
KNOCK_ROLLOUT_SLOTS = (StrategyParam.MC_KNOCK_ROLLOUT_ON, StrategyParam.MC_KNOCK_ROLLOUT)
# The opponent panel: its size and memory, MAX_PANEL prior weights, MAX_PANEL family vectors.
PANEL_POSITIONS = {
    "opponent_panel": StrategyParam.MC_PANEL_SIZE,
    "panel_memory": StrategyParam.MC_PANEL_MEMORY,
    "panel_prior": StrategyParam.MC_PANEL_PRIOR,
    "panel_worlds": StrategyParam.MC_PANEL_WORLDS,
    "panel_infer": StrategyParam.MC_PANEL_INFER,
    "panel_knock_turn": StrategyParam.MC_PANEL_KNOCK_TURN,
    "panel_offer": StrategyParam.MC_PANEL_OFFER,
}
DISTINCT_SEARCH = [
    "samples=7", "candidates=5", "screen=3", "infer=true", "infer_weight=0.125", "confidence=1.75",
    "rollout=defensive", "opponent_model=gin-hunter", "value=game", "late_stock=9",
    "late_samples=11", "undercut_weight=1.625", "undercut_stock=17", "late_infer_stock=19", "late_infer_weight=0.375", "infer_lowering=true", "extend_samples=13", "knock_samples=15", "screen_discards=6", "early_screen=2", "early_keep=4", "knock_rollout=basic", "paired_draws=true", "draw_samples=17",
]  # fmt: skip
HOLLYWOOD = load_rules("hollywood")
STANDARD = load_rules("standard")
# The take schedule's slots, MAX_SCHEDULE_PHASES each: min_stock, take_melds, take_min_gain.
TAKE_SCHEDULE_SLOTS = (
    StrategyParam.TAKE_MIN_STOCK,
    StrategyParam.TAKE_MELDS_AT,
    StrategyParam.TAKE_MIN_GAIN_AT,
)


def strategies_to_check() -> list[tuple[str, Strategy, Rules]]:
    """Every strategy file as played under every rule file (adaptations applied), and
    strategies whose every parameter differs from the others."""
    checked = []
    for path in sorted((configs_dir() / "strategies").glob("*.toml")):
        for rules_path in sorted((configs_dir() / "rules").glob("*.toml")):
            rules = load_rules(rules_path)
            played = load_strategy(path).for_rules(rules)
            checked.append((f"{path.stem}-under-{rules_path.stem}", played, rules))
    # The benches' strategy files (levers measured against mc): each must still load and
    # build its vector, or the commands in docs/strength.md no longer reproduce its rows.
    bench = Path(__file__).resolve().parent.parent / "bench"
    for path in sorted([*bench.glob("*.toml"), *bench.glob("levers/*.toml")]):
        for rules in (STANDARD, HOLLYWOOD):
            played = load_strategy(path).for_rules(rules)
            checked.append((f"bench-{path.stem}-under-{rules.name}", played, rules))
    checked.append(("distinct", load_strategy("simple", DISTINCT_STRATEGY), HOLLYWOOD))
    checked.append(("schedule-of-one", load_strategy("simple", ["knock_schedule=0:4"]), HOLLYWOOD))
    one_take = load_strategy("simple", ["take_schedule=0:false:2"])
    checked.append(("take-schedule-of-one", one_take, HOLLYWOOD))
    four = load_strategy("simple", ["take_schedule=31:true:6.5,12:false:7.5,6:true:0,0:false:9"])
    checked.append(("take-schedule-of-four", four, HOLLYWOOD))
    checked.append(("distinct-search", load_strategy("mc-fixed", DISTINCT_SEARCH), HOLLYWOOD))
    return checked


def test_strategy_positions_cover_every_slot_once():
    singles = [
        StrategyParam.KIND, StrategyParam.KNOCK_THRESHOLD, StrategyParam.SCHEDULE_PHASES,
        *FLOAT_POSITIONS.values(), *SEARCH_POSITIONS.values(), *VALUE_POSITION.values(),
        StrategyParam.MC_PANEL_SIZE, StrategyParam.MC_PANEL_MEMORY, StrategyParam.MC_PANEL_WORLDS,
        StrategyParam.MC_PANEL_INFER, StrategyParam.MC_PANEL_KNOCK_TURN, StrategyParam.MC_PANEL_OFFER,
        StrategyParam.TAKE_PHASES, StrategyParam.MC_KNOCK_ROLLOUT_ON,
    ]  # fmt: skip
    slots = [StrategyParam.SCHEDULE_MIN_STOCK + i for i in range(MAX_SCHEDULE_PHASES)]
    for start in TAKE_SCHEDULE_SLOTS:
        slots += [start + i for i in range(MAX_SCHEDULE_PHASES)]
    slots += [StrategyParam.MC_PANEL_PRIOR + i for i in range(MAX_PANEL)]
    slots += [StrategyParam.MC_PANEL + i for i in range(MAX_PANEL * FAMILY_PARAMS)]
    slots += [StrategyParam.SCHEDULE_THRESHOLD + i for i in range(MAX_SCHEDULE_PHASES)]
    for start in [*POLICY_BLOCKS.values(), StrategyParam.MC_KNOCK_ROLLOUT]:
        slots += [start + i for i in range(FAMILY_PARAMS)]
    assert sorted(singles + slots) == list(range(N_STRATEGY_PARAMS))
    assert set(FLOAT_POSITIONS) | set(SEARCH_POSITIONS) | set(POLICY_BLOCKS) | set(
        VALUE_POSITION
    ) | set(PANEL_POSITIONS) | {
        "knock_threshold",
        "knock_schedule",
        "take_schedule",
        "kind",
        "knock_rollout",
    } == {f.name for f in fields(Strategy)} - {"name", "description", "adapt"}


@pytest.mark.parametrize(
    ("label", "strategy", "rules"), strategies_to_check(), ids=lambda x: str(x)[:40]
)
def test_strategy_vector_has_each_field_at_its_position(
    label: str, strategy: Strategy, rules: Rules
):
    vector = strategy.to_kernel(rules)
    assert vector.dtype == np.float64 and vector.shape == (N_STRATEGY_PARAMS,)
    assert vector[StrategyParam.KIND] == {"family": 0, "random": 1, "mc": 2}[strategy.kind]
    if strategy.kind == "mc":
        for key, index in SEARCH_POSITIONS.items():
            assert vector[index] == float(getattr(strategy, key)), (label, key)
        assert vector[StrategyParam.MC_VALUE] == SEARCH_VALUES[strategy.value], label
        for key, start in POLICY_BLOCKS.items():
            policy = load_strategy(getattr(strategy, key)).for_rules(rules).to_kernel(rules)
            block = vector[start : start + FAMILY_PARAMS]
            assert np.array_equal(block, policy[:FAMILY_PARAMS]), (label, key)
        flag, start = KNOCK_ROLLOUT_SLOTS
        block = vector[start : start + FAMILY_PARAMS]
        assert vector[flag] == float(bool(strategy.knock_rollout)), label
        if strategy.knock_rollout:
            policy = load_strategy(strategy.knock_rollout).for_rules(rules).to_kernel(rules)
            assert np.array_equal(block, policy[:FAMILY_PARAMS]), (label, "knock_rollout")
        else:
            assert not block.any(), label
        panel = strategy.opponent_panel
        assert vector[StrategyParam.MC_PANEL_SIZE] == len(panel), label
        assert vector[StrategyParam.MC_PANEL_MEMORY] == PANEL_MEMORIES[strategy.panel_memory]
        assert vector[StrategyParam.MC_PANEL_WORLDS] == float(strategy.panel_worlds), label
        assert vector[StrategyParam.MC_PANEL_INFER] == float(strategy.panel_infer), label
        knock_turn = vector[StrategyParam.MC_PANEL_KNOCK_TURN]
        assert knock_turn == float(strategy.panel_knock_turn), label
        assert vector[StrategyParam.MC_PANEL_OFFER] == float(strategy.panel_offer), label
        prior = strategy.panel_prior or (1.0,) * len(panel)
        weights = vector[StrategyParam.MC_PANEL_PRIOR : StrategyParam.MC_PANEL_PRIOR + MAX_PANEL]
        assert list(weights) == [*prior, *[0.0] * (MAX_PANEL - len(panel))], label
        for i in range(MAX_PANEL):
            start = StrategyParam.MC_PANEL + i * FAMILY_PARAMS
            block = vector[start : start + FAMILY_PARAMS]
            if i < len(panel):
                model = load_strategy(panel[i]).for_rules(rules).to_kernel()[:FAMILY_PARAMS]
                assert np.array_equal(block, model), (label, i)
            else:
                assert not block.any(), (label, i)
    else:
        assert not vector[FAMILY_PARAMS:].any(), label
    # no threshold of its own: 10, which the kernel caps by each hand's knock limit
    expected_threshold = 10 if strategy.knock_threshold is None else strategy.knock_threshold
    assert vector[StrategyParam.KNOCK_THRESHOLD] == expected_threshold
    schedule = strategy.knock_schedule
    assert vector[StrategyParam.SCHEDULE_PHASES] == len(schedule)
    for i in range(MAX_SCHEDULE_PHASES):
        min_stock, threshold = schedule[i] if i < len(schedule) else (0, 0)
        assert vector[StrategyParam.SCHEDULE_MIN_STOCK + i] == min_stock, (label, i)
        assert vector[StrategyParam.SCHEDULE_THRESHOLD + i] == threshold, (label, i)
    takes = strategy.take_schedule
    assert vector[StrategyParam.TAKE_PHASES] == len(takes), label
    for i in range(MAX_SCHEDULE_PHASES):
        phase = takes[i] if i < len(takes) else (0, False, 0.0)
        got = [vector[start + i] for start in TAKE_SCHEDULE_SLOTS]
        assert got == [float(value) for value in phase], (label, i)
    for key, index in FLOAT_POSITIONS.items():
        assert vector[index] == float(getattr(strategy, key)), (label, key)


def test_the_distinct_strategy_is_distinct_and_adaptations_reach_the_vector():
    distinct = load_strategy("simple", DISTINCT_STRATEGY).to_kernel()
    scalars = [
        StrategyParam.KNOCK_THRESHOLD, StrategyParam.SCHEDULE_PHASES, *FLOAT_POSITIONS.values(),
        StrategyParam.TAKE_PHASES,
    ]  # fmt: skip
    assert len({distinct[i] for i in scalars}) == len(scalars)
    # expert's adaptation to standard scoring shows in its vector (docs/strategies.md)
    expert = load_strategy("expert")
    standard = expert.for_rules(load_rules("standard")).to_kernel()
    hollywood = expert.for_rules(load_rules("hollywood")).to_kernel()
    assert (standard[StrategyParam.KNOCK_THRESHOLD], hollywood[StrategyParam.KNOCK_THRESHOLD]) == (
        0,
        10,
    )
    assert (
        standard[StrategyParam.SCHEDULE_PHASES] == 2
        and hollywood[StrategyParam.SCHEDULE_PHASES] == 0
    )
