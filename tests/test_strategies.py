"""The strategy family: validation of specs, and the kernel's helper quantities against
their plain definitions in docs/strategies.md."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from named import FAMILY_STYLES

from gin_sim.experiments.simulate import head_to_head, simulate_deals
from gin_sim.game.config import ConfigError
from gin_sim.game.rules import load_rules, named_rules
from gin_sim.kernels.deadwood import min_deadwood_nb
from gin_sim.kernels.decisions import (
    danger_nb,
    discard_cost_nb,
    disinterest_nb,
    knock_threshold_nb,
    least_deadwood_drop_from_nb,
    least_deadwood_drop_nb,
    live_nb,
    pair_value_nb,
    takes_top_nb,
    tie_key_nb,
    weighted_discard_from_nb,
    weighted_discard_nb,
)
from gin_sim.kernels.enums import FAMILY_PARAMS, PanelMemory, Phase, PositionSlot, StrategyParam
from gin_sim.kernels.tables import MELDS
from gin_sim.players.strategies import (
    Strategy,
    load_strategy,
    named_strategies,
    parse_players,
    strategies_to_kernel,
)

NAMED = [*FAMILY_STYLES, "gin-hunter-strong"]
# the 97.5% normal quantile, from the standard library rather than gin_sim.experiments.summary
Z95 = NormalDist().inv_cdf(0.975)
THREE_CARD_MELDS = [int(m) for m in MELDS if int(m).bit_count() == 3]


def test_named_strategies_exist_with_descriptions():
    assert set(NAMED) <= set(named_strategies())
    for name in NAMED:
        strategy = load_strategy(name)
        assert strategy.kind == "family" and strategy.description


def test_simple_is_the_family_default():
    simple = load_strategy("simple")
    assert np.array_equal(simple.to_kernel(), Strategy(name="simple").to_kernel())


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["knock_threshold=11"], "knock_threshold = 11 .* allowed 0 to 10"),
        (["undercut_risk=1.5"], "undercut_risk = 1.5 .* allowed 0 to 1"),
        (["keep_weight=-1"], "keep_weight = -1.0 .* >= 0"),
        (["knock_schedule=10:6,5:2"], "last phase must start at min_stock 0"),
        (["knock_schedule=10:6,12:2,0:1"], "must fall strictly"),
        (["knock_schedule=10:12,0:1"], "threshold 12 .* allowed 0 to 10"),
        (["knock_schedule=ten"], "expected \\[\\[min_stock, threshold\\]"),
        (
            ["take_schedule=10:true:0,5:false:2"],
            "last phase must start at min_stock 0 .* take rule",
        ),
        (["take_schedule=10:true:0,12:false:2,0:true:0"], "take_schedule .* must fall strictly"),
        (["take_schedule=32:true:0,0:true:0"], "take_schedule .* from at most 31 to 0"),
        (["take_schedule=0:true:-1"], "take_schedule take_min_gain -1.0 .* finite number >= 0"),
        (["take_schedule=0:true:inf"], "take_schedule take_min_gain inf .* finite number >= 0"),
        (
            ["take_schedule=20:true:0,15:true:0,10:true:0,5:true:0,0:true:0"],
            "take_schedule .* has 5 phases: allowed 1 to 4",
        ),
        (
            ["take_schedule=0:yes:1"],
            "take_schedule = '0:yes:1' .* expected \\[\\[min_stock, take_melds, take_min_gain\\]",
        ),
        (["take_schedule=0:1"], "min_stock:take_melds:take_min_gain,... on the command line"),
        (["kind=clever"], "kind = 'clever' .* allowed family, random"),
        (["knock_treshold=3"], "unknown key 'knock_treshold'"),
    ],
)
def test_bad_parameters_name_the_parameter_and_range(overrides, message):
    with pytest.raises(ConfigError, match=message):
        load_strategy("simple", overrides)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (
            ["opponent_panel=simple,mc"],
            "opponent_panel model 'mc' .* allowed named family or random",
        ),
        (["opponent_panel=simple,nobody"], "opponent_panel model 'nobody'"),
        (["opponent_panel=simple,expert,simple"], "names a model twice"),
        (["opponent_panel=" + ",".join(["simple"] * 9)], "has 9 models: allowed 1 to 8"),
        (["panel_prior=1,2"], "panel_prior .* does nothing without opponent_panel"),
        (["panel_memory=match"], "panel_memory .* does nothing without opponent_panel"),
        (["panel_worlds=true"], "panel_worlds .* does nothing without opponent_panel"),
        (["panel_infer=true"], "panel_infer .* does nothing without opponent_panel"),
        (["panel_knock_turn=true"], "panel_knock_turn .* does nothing without opponent_panel"),
        (["panel_offer=true"], "panel_offer .* does nothing without opponent_panel"),
        (
            ["opponent_panel=simple,expert", "panel_offer=2"],
            "panel_offer = '2' .* allowed values are true or false",
        ),
        (
            ["opponent_panel=simple,expert", "infer=false", "panel_infer=true"],
            "panel_infer .* does nothing without infer",
        ),
        (
            ["opponent_panel=simple,expert", "panel_worlds=maybe"],
            "panel_worlds = 'maybe' .* allowed values are true or false",
        ),
        (
            ["opponent_panel=simple,expert", "panel_worlds=1"],
            "panel_worlds = '1' .* allowed values are true or false",
        ),
        (
            ["opponent_panel=simple,expert", "panel_memory=game"],
            "panel_memory = 'game' .* allowed hand, match",
        ),
        (["opponent_panel=simple,expert", "panel_prior=1"], "1 weights for 2 models"),
        (
            ["opponent_panel=simple,expert", "panel_prior=1,0"],
            "weight 0.0 .* above 0 up to 1e\\+06",
        ),
        (
            ["opponent_panel=simple,expert", "panel_prior=1,x"],
            "panel_prior = 'x' .* expected a number",
        ),
        (
            ["opponent_panel=simple,expert", "opponent_model=expert"],
            "opponent_model .* does nothing with opponent_panel",
        ),
    ],
)
def test_bad_opponent_panels_name_the_problem(overrides, message):
    with pytest.raises(ConfigError, match=message):
        load_strategy("mc-fast", overrides)


def test_a_family_strategy_refuses_a_panel():
    with pytest.raises(
        ConfigError, match=r"opponent_panel .* does nothing: strategy kind 'family'"
    ):
        load_strategy("simple", ["opponent_panel=simple,expert"])


def test_the_panel_goes_into_the_kernel_vector_in_order():
    rules = load_rules("standard")
    strategy = load_strategy("mc")
    vector = strategy.to_kernel(rules)
    panel = strategy.opponent_panel
    assert vector[StrategyParam.MC_PANEL_SIZE] == len(panel) == 7
    assert vector[StrategyParam.MC_PANEL_MEMORY] == PanelMemory.MATCH
    assert list(vector[StrategyParam.MC_PANEL_PRIOR : StrategyParam.MC_PANEL_PRIOR + 7]) == list(
        strategy.panel_prior
    )
    for i, name in enumerate(panel):  # each model as played under the rules ([[adapt]])
        slot = StrategyParam.MC_PANEL + i * FAMILY_PARAMS
        model = load_strategy(name).for_rules(rules).to_kernel()[:FAMILY_PARAMS]
        assert np.array_equal(vector[slot : slot + FAMILY_PARAMS], model)
    assert load_strategy("mc-fixed").to_kernel(rules)[StrategyParam.MC_PANEL_SIZE] == 0


def test_mc_rolls_out_with_the_family_strategy_that_leads_its_scoring():
    """mc's own later moves in its rollouts: gin-hunter-strong where the undercut bonus is
    20 or more (standard; the strongest family strategy of the standard tournament) and
    expert elsewhere (hollywood's strongest); the adaptation reaches the kernel vector by
    every way a player is built (docs/strength.md, "The rollout policy")."""
    for rules_name, rollout in (("standard", "gin-hunter-strong"), ("hollywood", "expert")):
        rules = load_rules(rules_name)
        expected = load_strategy(rollout).for_rules(rules).to_kernel()[:FAMILY_PARAMS]
        slots = slice(StrategyParam.MC_ROLLOUT, StrategyParam.MC_ROLLOUT + FAMILY_PARAMS)
        played = load_strategy("mc").for_rules(rules)
        assert played.rollout == rollout
        assert np.array_equal(played.to_kernel(rules)[slots], expected)
        pair = strategies_to_kernel((load_strategy("mc"), load_strategy("simple")), rules)
        assert np.array_equal(pair[0][slots], expected)
    assert not np.array_equal(
        load_strategy("gin-hunter-strong").for_rules(load_rules("standard")).to_kernel(),
        load_strategy("expert").for_rules(load_rules("standard")).to_kernel(),
    )


def test_mc_values_its_knocks_by_holding_out_for_gin_under_every_rule_set():
    """mc's knock decisions take gin-hunter-pure as their continuation under every named rule
    set (docs/strength.md, "Knock decisions under hollywood too"); the flag and the policy
    reach the kernel vector. Its baseline file has it under standard only, and differs only
    there (and, under standard, by the screening's first cut and paired draws, kept after
    it)."""
    flag = StrategyParam.MC_KNOCK_ROLLOUT_ON
    block = slice(StrategyParam.MC_KNOCK_ROLLOUT, StrategyParam.MC_KNOCK_ROLLOUT + FAMILY_PARAMS)
    levers = Path(__file__).resolve().parents[1] / "bench" / "levers"
    before = load_strategy(str(levers / "mc-no-hollywood-knock-rollout.toml"))
    for rules_name in ("standard", "hollywood", "hollywood-gin20", "oklahoma"):
        rules = load_rules(rules_name)
        played = load_strategy("mc").for_rules(rules)
        assert played.knock_rollout == "gin-hunter-pure", rules_name
        vector = played.to_kernel(rules)
        pure = load_strategy("gin-hunter-pure").for_rules(rules).to_kernel()[:FAMILY_PARAMS]
        assert vector[flag] == 1.0 and np.array_equal(vector[block], pure), rules_name
        old = before.for_rules(rules)
        assert old.knock_rollout == ("gin-hunter-pure" if rules_name == "standard" else "")
        unnamed = {"knock_rollout": "", "name": "x", "description": "x", "early_screen": 0}
        unnamed["early_keep"] = 0
        unnamed["paired_draws"] = False
        assert replace(old, **unnamed) == replace(played, **unnamed), rules_name


def test_mc_pairs_its_draws_under_standard_only_and_its_baseline_differs_only_there():
    """paired_draws (docs/strength.md, "Paired draws"): on in mc where the undercut bonus is
    20 or more, off elsewhere; bench/levers/mc-no-paired-draws.toml, the baseline the older
    levers' commands name, is mc without it and plays exactly as mc under hollywood."""
    levers = Path(__file__).resolve().parents[1] / "bench" / "levers"
    baseline = load_strategy(str(levers / "mc-no-paired-draws.toml"))
    for rules_name, paired in (("standard", True), ("hollywood", False), ("oklahoma", False)):
        rules = load_rules(rules_name)
        played = load_strategy("mc").for_rules(rules)
        assert played.paired_draws is paired, rules_name
        assert played.to_kernel(rules)[StrategyParam.MC_PAIRED_DRAWS] == float(paired)
        unnamed = {"name": "x", "description": "x", "paired_draws": False}
        assert replace(baseline.for_rules(rules), **unnamed) == replace(played, **unnamed)


def test_the_pair_hunter_knocks_only_in_its_first_turns():
    pairs = load_strategy("gin-hunter-pairs")
    assert [pairs.threshold_at(stock) for stock in (31, 27, 26, 10, 0)] == [10, 10, 0, 0, 0]


def searchers_models():
    """(searcher, rule set, the models it learns from) for every named search player under
    every named rule set (an [[adapt]] table may change them): its opponent panel, fixed
    opponent model and rollout policies (its knock decisions' too, where it has one)."""
    for name in named_strategies():
        if load_strategy(name).kind != "mc":
            continue
        for rules in named_rules():
            searcher = load_strategy(name).for_rules(load_rules(rules))
            rollouts = [searcher.rollout]
            if searcher.knock_rollout:
                rollouts.append(searcher.knock_rollout)
            yield name, rules, [*searcher.opponent_panel, searcher.opponent_model, *rollouts]


@pytest.mark.parametrize("hunter", ["gin-hunter-pairs", "gin-hunter-tuned"])
def test_the_unseen_hunters_are_not_in_the_adaptive_panel(hunter):
    """Issues 26 and 46: mc (the adaptive searcher) is measured against gin-hunter-pairs and
    gin-hunter-tuned (bench/strength.py) without tuning on them, so no search player's
    panel, fixed model or rollout policy may hold them."""
    checked = list(searchers_models())
    assert "mc" in [name for name, _, _ in checked]
    for name, rules, models in checked:
        assert hunter not in models, (name, rules)


def test_the_tuned_hunter_is_the_strong_hunter_with_other_weights():
    """gin-hunter-tuned (docs/tuning.md) keeps gin-hunter-strong's knocks, at the limit while
    25 or more cards are in the stock and then only with gin, and differs in its weights."""
    tuned = load_strategy("gin-hunter-tuned")
    strong = load_strategy("gin-hunter-strong")
    stocks = (31, 26, 25, 24, 10, 0)
    assert [tuned.threshold_at(s) for s in stocks] == [strong.threshold_at(s) for s in stocks]
    assert [tuned.threshold_at(s) for s in stocks] == [10, 10, 10, 0, 0, 0]
    assert tuned.take_min_gain != strong.take_min_gain and tuned.pair_weight > 0


def test_no_searcher_learns_from_the_sparring_partners():
    """Issue 46: the sparring partners were tuned to beat mc and stand in for strong
    opponents it has never seen, so the measure stays honest only while no search player's
    opponent panel, fixed model or rollout policy holds one of them, under any rule set."""
    sparring = [n for n in named_strategies() if n.startswith("sparring-")]
    assert len(sparring) >= 2
    for name in sparring:
        assert load_strategy(name).kind == "family" and load_strategy(name).description
    for name, rules, models in searchers_models():
        assert not [m for m in models if m.startswith("sparring-")], (name, rules)


def test_a_pair_weight_keeps_a_high_pair_that_the_deadwood_rule_breaks():
    """Discard, step 4: with no melds, the least-deadwood discard throws a king of the pair
    K-K; ``pair(K, h) = 10`` per king held with it, so a pair weight of 1 makes each king
    cost as much as the deadwood it sheds, and the highest unpaired card goes instead."""
    from gin_sim.game.cards import parse_card, parse_cards

    hand = np.uint64(parse_cards("KS KH 9D 7C 5S 3H AD QC 2S 8H 6D", 11))
    zero = np.uint64(0)
    unseen = np.uint64(((1 << 52) - 1) & ~int(hand))
    plain = load_strategy("simple").to_kernel()
    keeper = load_strategy("simple", ["pair_weight=1"]).to_kernel()
    assert weighted_discard_nb(plain, hand, -1, unseen, zero, zero) == parse_card("KS")
    assert weighted_discard_nb(keeper, hand, -1, unseen, zero, zero) == parse_card("QC")


def test_the_strong_gin_hunter_knocks_only_while_the_stock_is_deep():
    strong = load_strategy("gin-hunter-strong")
    assert [strong.threshold_at(stock) for stock in (31, 25, 24, 10, 0)] == [10, 10, 0, 0, 0]


def test_bad_parameter_in_a_file_names_the_file(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text('description = "x"\nsafety_weight = -2\n')
    with pytest.raises(ConfigError, match=r"safety_weight = -2.0 in .*mine.toml"):
        load_strategy(path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "take_schedule = [[20, true, 0], [5, false, 2]]",
            "the last phase must start at min_stock 0",
        ),
        ("take_schedule = [[20, true, -3], [0, false, 2]]", "take_min_gain -3.0 in .*mine.toml"),
        (
            "take_schedule = [[20, 1, 0], [0, false, 2]]",
            "take_schedule = .* in .*mine.toml: expected",
        ),
        ('take_schedule = [["20", true, 0], [0, false, 2]]', "take_schedule = .* in .*mine.toml"),
        ("take_schedule = [[20, true], [0, false]]", "expected \\[\\[min_stock, take_melds"),
        ("take_schedule = [[0, false, true]]", "take_schedule = .* in .*mine.toml: expected"),
        ("take_schedule = 3", "take_schedule = 3 in .*mine.toml: expected"),
    ],
)
def test_a_bad_take_schedule_in_a_file_names_the_key_and_the_file(tmp_path, text, message):
    path = tmp_path / "mine.toml"
    path.write_text(f'description = "x"\n{text}\n')
    with pytest.raises(ConfigError, match=message):
        load_strategy(path)


def test_take_schedules_from_toml_the_command_line_and_adapt_tables(tmp_path):
    """The same schedule three ways; a file's schedule survives a manifest (to_config), and
    a strategy without one keeps the manifest it had (no take_schedule key)."""
    import json

    from gin_sim.players.strategies import strategy_from_dict

    path = tmp_path / "mine.toml"
    path.write_text(
        'description = "x"\ntake_schedule = [[25, true, 0], [0, false, 6]]\n'
        "[[adapt]]\nwhen = { undercut_bonus = [20, 30] }\n"
        "take_schedule = [[10, false, 2.5], [0, true, 0.0]]\n"
    )
    from_file = load_strategy(path)
    expected = ((25, True, 0.0), (0, False, 6.0))
    assert from_file.take_schedule == expected
    assert all(isinstance(gain, float) for _, _, gain in from_file.take_schedule)
    assert load_strategy("simple", ["take_schedule=25:true:0,0:false:6"]).take_schedule == expected
    assert (
        load_strategy("simple", ["take_schedule=25:TRUE:0.0, 0:false:6"]).take_schedule == expected
    )
    standard = from_file.for_rules(load_rules("standard"))
    assert standard.take_schedule == ((10, False, 2.5), (0, True, 0.0))
    assert from_file.for_rules(load_rules("hollywood")).take_schedule == expected
    document = json.loads(json.dumps(from_file.to_config()))
    assert document["take_schedule"] == [[25, True, 0.0], [0, False, 6.0]]
    assert document["adapt"][0]["take_schedule"] == [[10, False, 2.5], [0, True, 0.0]]
    assert strategy_from_dict(document, "manifest") == from_file
    assert "take_schedule" not in load_strategy("expert").to_config()
    cleared = load_strategy(path, ["take_schedule="])
    assert cleared.take_schedule == () and "take_schedule" not in cleared.to_config()
    with pytest.raises(ConfigError, match=r"take_schedule in .* does nothing: strategy kind 'mc'"):
        load_strategy("mc-fixed", ["take_schedule=0:true:1"])


def test_threshold_above_the_rules_knock_limit_is_an_error():
    rules = load_rules("hollywood", ["knock_limit=7"])
    eager = load_strategy("simple", ["knock_threshold=8"])
    with pytest.raises(
        ConfigError, match="knock threshold 8 of strategy 'simple' is above knock_limit = 7"
    ):
        simulate_deals(rules, (eager, eager), 10, seed=1)
    with pytest.raises(ConfigError, match="knock threshold 10 of strategy 'gin-hunter'"):
        simulate_deals(rules, parse_players("gin-hunter,simple"), 10, seed=1)
    # without a threshold of its own a strategy knocks at the rule set's limit
    assert len(simulate_deals(rules, parse_players("simple,expert"), 10, seed=1)) == 10
    assert load_strategy("simple").threshold_at(20, knock_limit=7) == 7
    assert load_strategy("simple", ["knock_threshold=limit"]).knock_threshold is None


def test_schedule_lookup():
    strategy = load_strategy("simple", ["knock_schedule=20:10,10:6,0:2"])
    vector = strategy.to_kernel()
    for stock, expected in [(31, 10), (20, 10), (19, 6), (10, 6), (9, 2), (0, 2)]:
        assert strategy.threshold_at(stock) == expected
        assert knock_threshold_nb(vector, stock, 10) == expected
    assert knock_threshold_nb(vector, 25, 7) == 7  # capped by the hand's limit (R14a)


def test_take_schedule_lookup():
    """The phase of the first min_stock <= stock_left, in the kernel and the reference;
    without a schedule the plain take_melds and take_min_gain at every stock size."""
    from gin_sim.kernels.decisions import take_rule_nb
    from gin_sim.reference.engine import View, take_rule

    def view(stock: int) -> View:
        rules = load_rules("hollywood")
        return View(0, 0, -1, 0, 0, stock, 0, 10, rules)

    strategy = load_strategy("simple", ["take_schedule=20:false:3.5,10:true:0,0:false:7"])
    vector = strategy.to_kernel()
    assert vector[StrategyParam.TAKE_PHASES] == 3
    for stock, expected in [(31, (False, 3.5)), (20, (False, 3.5)), (19, (True, 0.0)),
                            (10, (True, 0.0)), (9, (False, 7.0)), (0, (False, 7.0))]:  # fmt: skip
        assert take_rule_nb(vector, stock) == expected
        assert take_rule(strategy, view(stock)) == expected
    plain = load_strategy("early-knocker", ["take_melds=false"])
    for stock in range(32):
        assert take_rule_nb(plain.to_kernel(), stock) == (False, plain.take_min_gain)
        assert take_rule(plain, view(stock)) == (False, plain.take_min_gain)


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(["simple", "expert", "early-knocker", "defensive"]),
    st.booleans(),
    st.sampled_from([0.0, 0.5, 3.0, 8.19]),
    st.sets(st.integers(1, 31), max_size=3),
    st.booleans(),
    st.integers(0, 2**32),
)
def test_a_constant_take_schedule_plays_as_the_plain_parameters(
    name, take_melds, take_min_gain, starts, decoy_melds, seed
):
    """Property: a take schedule whose every phase holds the same (take_melds,
    take_min_gain) plays every deal exactly as those plain parameters, whatever the phases
    and whatever the (overridden) plain values beside it."""
    rules = load_rules("hollywood")
    plain = load_strategy(name, [f"take_melds={take_melds}", f"take_min_gain={take_min_gain}"])
    phases = tuple((start, take_melds, take_min_gain) for start in sorted(starts, reverse=True))
    scheduled = replace(
        plain,
        take_melds=decoy_melds,
        take_min_gain=take_min_gain + 5.0,  # never played: the schedule overrides it
        take_schedule=(*phases, (0, take_melds, take_min_gain)),
    )
    opponent = load_strategy("expert")
    expected = simulate_deals(rules, (plain, opponent), 300, seed=seed % 1000)
    got = simulate_deals(rules, (scheduled, opponent), 300, seed=seed % 1000)
    assert np.array_equal(expected, got)


def live_by_definition(card: int, hand: int, unseen: int) -> int:
    """docs/strategies.md: unseen x != card with {card, x, y} a 3-card meld, y in hand."""
    found = set()
    for meld in THREE_CARD_MELDS:
        if not meld >> card & 1:
            continue
        others = [c for c in range(52) if meld >> c & 1 and c != card]
        for x, y in (others, others[::-1]):
            if unseen >> x & 1 and hand >> y & 1 and y != card:
                found.add(x)
    return len(found)


def near(card: int, other: int, distance: int) -> bool:
    return card // 13 == other // 13 and 1 <= abs(card % 13 - other % 13) <= distance


@settings(max_examples=400, deadline=None)
@given(st.permutations(range(52)), st.integers(0, 51), st.integers(0, 12), st.integers(0, 12))
def test_helper_quantities_match_their_definitions(order, card_pick, n_unseen, n_opp):
    card = order[card_pick % 11]
    hand = sum(1 << c for c in order[:11]) & ~(1 << card)
    unseen = sum(1 << c for c in order[11 : 11 + n_unseen + 10])
    opp = sum(1 << c for c in order[30 : 30 + n_opp])
    assert live_nb(card, np.uint64(hand), np.uint64(unseen)) == live_by_definition(
        card, hand, unseen
    )
    expected_danger = sum(
        1 for t in range(52) if opp >> t & 1 and (t % 13 == card % 13 or near(card, t, 2))
    )
    assert danger_nb(card, np.uint64(opp)) == expected_danger
    expected_disinterest = sum(
        1
        for t in range(52)
        if opp >> t & 1 and t != card and (t % 13 == card % 13 or near(card, t, 1))
    )
    assert disinterest_nb(card, np.uint64(opp)) == expected_disinterest
    with_card = hand | 1 << card
    mates = sum(1 for t in range(52) if with_card >> t & 1 and t != card and t % 13 == card % 13)
    assert pair_value_nb(card, np.uint64(with_card)) == min(card % 13 + 1, 10) * mates


def test_duplicate_deals_mirror_identical_strategies():
    """Two identical strategies on mirrored seats: every deck's pair of hands nets zero."""
    df = head_to_head(load_rules("hollywood"), parse_players("basic,basic"), 2_000, seed=4)
    assert len(df) == 4_000 and df["swapped"].sum() == 2_000
    seat_of_first = np.where(df["swapped"], 1, 0)
    net = np.where(df["winner"] == seat_of_first, df["points"], 0) - np.where(
        df["winner"] == 1 - seat_of_first, df["points"], 0
    )
    assert (net.reshape(-1, 2).sum(axis=1) == 0).all()


def direct_player_figures(df: pd.DataFrame, player: int, paired: bool = True) -> dict:
    """``players[player]``'s figures straight from the records with pandas, not through
    ``gin_sim.experiments.summary``: {figure: (mean, 95% half-width)}. Paired, the deck is the unit
    (its hands averaged); else the hand. The per-knock rate is a ratio of sums, whose
    half-width is the textbook delta-method one: Z * sqrt(s² / n) / mean(knocks per unit),
    with s² the sample variance of (undercuts - rate * knocks) per unit."""
    seat = np.where(df["swapped"], 1 - player, player)
    won = df["winner"].to_numpy() == seat
    lost = df["winner"].to_numpy() == 1 - seat
    knocked = df["knocker"].to_numpy() == seat
    per_hand = pd.DataFrame(
        {
            "hands won": won,
            "knock rate": knocked,
            "gin rate": knocked & df["gin"],
            "undercuts made": won & df["undercut"],
            "points per hand": np.where(won, df["points"], 0),
            "net points per hand": np.where(won, df["points"], 0) - np.where(lost, df["points"], 0),
            "upcard taken on offer": df["first_upcard_taker"] == seat,
            "draws": df["draw"],
            "turns": df["turns"],
            # numerator and denominator of the per-knock rate
            "undercut knocks": knocked & df["undercut"],
            "knocks": knocked,
        }
    ).astype(float)
    unit = df["deal"] if paired else pd.RangeIndex(len(df))
    sums = per_hand.groupby(np.asarray(unit)).sum()
    means = per_hand.groupby(np.asarray(unit)).mean()
    n = len(sums)
    out = {
        name: (means[name].mean(), Z95 * means[name].std(ddof=1) / np.sqrt(n))
        for name in means.columns
        if name not in ("undercut knocks", "knocks")
    }
    rate = sums["undercut knocks"].sum() / sums["knocks"].sum()
    residual = sums["undercut knocks"] - rate * sums["knocks"]
    out["undercut rate (per knock)"] = (
        rate,
        Z95 * np.sqrt(residual.var(ddof=1) / n) / sums["knocks"].mean(),
    )
    return out


def test_summaries_equal_a_direct_pandas_computation():
    """Every figure of ``HeadToHead`` (paired) and ``player_summary`` (paired or not)
    against the same figure computed from the records with plain pandas."""
    from gin_sim.experiments.summary import HeadToHead, player_summary

    df = head_to_head(load_rules("hollywood"), parse_players("expert,simple"), 2_000, seed=12)
    summary = HeadToHead.of(df)
    for player in (0, 1):
        for paired in (True, False):
            direct = direct_player_figures(df, player, paired)
            figures = player_summary(df, player, paired)
            if paired:  # the summary of a duplicate run is paired
                assert figures == summary.player(player)
            for name, estimate in figures.items():
                mean, half_width = direct[name]
                assert estimate.mean == pytest.approx(mean, rel=1e-12, abs=1e-12), name
                assert estimate.half_width == pytest.approx(half_width, rel=1e-9), name
                assert estimate.n == (2_000 if paired else 4_000)
        # player 1's net points are player 0's, negated
        assert direct_player_figures(df, 1)["net points per hand"][0] == pytest.approx(
            -direct_player_figures(df, 0)["net points per hand"][0]
        )
    overall = summary.overall()
    direct = direct_player_figures(df, 0)
    for name in ("draws", "turns"):
        assert overall[name].mean == pytest.approx(direct[name][0], rel=1e-12)
        assert overall[name].half_width == pytest.approx(direct[name][1], rel=1e-9)
    assert overall["wall draws (R18)"].mean == pytest.approx((df["draw_reason"] == 1).mean())
    # the variance the pairing removed: per-deck means against single hands as units
    net_paired = direct_player_figures(df, 0)["net points per hand"][1]
    net_single = direct_player_figures(df, 0, paired=False)["net points per hand"][1]
    assert summary.variance_reduction() == pytest.approx(
        1 - (net_paired / net_single) ** 2, rel=1e-9
    )


def test_common_random_numbers_pair_two_runs():
    """Two runs that differ only in a strategy parameter play the same decks; their paired
    difference is the mean and interval of the per-deck differences of net points."""
    from gin_sim.experiments.summary import paired_difference

    rules = load_rules("hollywood")
    simple = load_strategy("simple")
    base = head_to_head(rules, (simple, simple), 3_000, seed=8)
    keeper = head_to_head(
        rules, (load_strategy("simple", ["keep_weight=1"]), simple), 3_000, seed=8
    )
    assert (base["deal"].to_numpy() == keeper["deal"].to_numpy()).all()
    assert (base["upcard"].to_numpy() == keeper["upcard"].to_numpy()).all()  # the same decks

    def net_by_deck(df: pd.DataFrame) -> pd.Series:
        seat = np.where(df["swapped"], 1, 0)
        net = np.where(df["winner"] == seat, df["points"], 0) - np.where(
            df["winner"] == 1 - seat, df["points"], 0
        )
        return pd.Series(net, index=df["deal"]).groupby(level=0).mean()

    per_deck = net_by_deck(keeper) - net_by_deck(base)
    assert len(per_deck) == 3_000 and per_deck.abs().sum() > 0  # the parameter changes play
    difference = paired_difference(keeper, base)
    assert difference.mean == pytest.approx(per_deck.mean(), rel=1e-12, abs=1e-12)
    assert difference.half_width == pytest.approx(
        Z95 * per_deck.std(ddof=1) / np.sqrt(len(per_deck)), rel=1e-9
    )
    unpaired = direct_player_figures(keeper, 0, paired=False)["net points per hand"][1]
    assert difference.half_width < unpaired  # pairing by deck removes the luck of the deal
    with pytest.raises(ValueError, match="same decks"):
        paired_difference(keeper, head_to_head(rules, (simple, simple), 2_000, seed=8))


def test_summaries_add_up_chunk_by_chunk():
    """A run's summary accumulated per chunk equals the summary of all its records."""
    from gin_sim.experiments.summary import HeadToHead

    rules = load_rules("hollywood")
    pair = parse_players("expert,simple")
    whole = head_to_head(rules, pair, 3_000, seed=12)
    parts = [
        head_to_head(rules, pair, 1_000, seed=12, first_deal=start) for start in (0, 1_000, 2_000)
    ]
    total = HeadToHead.of(parts[0]) + HeadToHead.of(parts[1]) + HeadToHead.of(parts[2])
    assert (total.hands, total.decks, total.duplicate) == (6_000, 3_000, True)
    direct = direct_player_figures(whole, 0)
    for name, estimate in total.player(0).items():
        assert estimate.mean == pytest.approx(direct[name][0], rel=1e-9, abs=1e-12), name
        assert estimate.half_width == pytest.approx(direct[name][1], rel=1e-6), name
    assert total.variance_reduction() == pytest.approx(HeadToHead.of(whole).variance_reduction())


def test_oklahoma_allows_any_threshold_up_to_10():
    """R14a: under Oklahoma the upcard sets each hand's limit, so knock_limit does not bind."""
    rules = load_rules("oklahoma", ["knock_limit=5"])
    records = simulate_deals(rules, parse_players("gin-hunter,simple"), 200, seed=2)
    assert (records["knock_limit"] <= 10).all() and len(records) == 200


def test_adaptations_follow_the_rules():
    expert = load_strategy("expert")
    standard = expert.for_rules(load_rules("standard"))  # undercut_bonus 25
    hollywood = expert.for_rules(load_rules("hollywood"))  # undercut_bonus 10
    assert standard.knock_schedule == ((6, 0), (0, 10)) and standard.knock_threshold == 0
    assert hollywood.knock_schedule == () and hollywood.knock_threshold is None
    assert standard.adapt == () and hollywood.take_melds == standard.take_melds  # not adapted
    assert hollywood.safety_weight == expert.safety_weight != standard.safety_weight == 2.0
    on_boundary = expert.for_rules(load_rules("hollywood", ["undercut_bonus=20"]))
    assert on_boundary.knock_threshold == 0  # the range is inclusive


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[[adapt]]\nknock_threshold = 0\n", "needs when"),
        ("[[adapt]]\nwhen = { colour = [1, 2] }\n", "when-key 'colour'"),
        ("[[adapt]]\nwhen = { wall = 3 }\n", "expected \\[low, high\\] or true/false"),
        ("[[adapt]]\nwhen = { wall = [0, 2] }\nname = 'x'\n", "may not change 'name'"),
        (
            "[[adapt]]\nwhen = { wall = [0, 2] }\nkeep_weight = -3\n",
            "keep_weight = -3.0 in .*adapt",
        ),
    ],
)
def test_bad_adaptations(tmp_path, text, message):
    path = tmp_path / "adaptive.toml"
    path.write_text('description = "x"\n' + text)
    with pytest.raises(ConfigError, match=message):
        load_strategy(path)


def test_adapted_strategies_survive_a_manifest():
    import json

    from gin_sim.players.strategies import strategy_from_dict

    expert = load_strategy("expert")
    assert strategy_from_dict(json.loads(json.dumps(expert.to_config())), "manifest") == expert


def test_expert_beats_simple_under_hollywood_rules():
    """Paired duplicate deals: expert's net points per hand against simple, interval above 0."""
    from gin_sim.experiments.summary import player_summary

    df = head_to_head(load_rules("hollywood"), parse_players("expert,simple"), 200_000, seed=21)
    net = player_summary(df, 0)["net points per hand"]
    assert net.mean - net.half_width > 0, net


def test_scoreless_ties_are_not_draws():
    """R17 with undercut_on_tie = false: a tie scores nothing but is no draw (R18, R18a);
    hand summaries count it apart."""
    from gin_sim.experiments.summary import HeadToHead

    rules = load_rules("hollywood", ["undercut_on_tie=false"])
    df = head_to_head(rules, parse_players("simple,simple"), 3_000, seed=3)
    overall = HeadToHead.of(df).overall()
    scoreless = (df["knocker"] >= 0) & (df["winner"] < 0)
    assert scoreless.sum() > 0 and not (scoreless & df["draw"]).any()
    assert overall["scoreless ties (R17)"].mean == pytest.approx(scoreless.mean(), rel=1e-12)
    assert overall["draws"].mean == pytest.approx(df["draw"].mean(), rel=1e-12)
    seed_rules = head_to_head(load_rules("hollywood"), parse_players("simple,simple"), 500, 3)
    assert HeadToHead.of(seed_rules).overall()["scoreless ties (R17)"].mean == 0


def test_the_weighted_discard_seeded_with_the_least_deadwood_card_chooses_the_same():
    """discard_or_knock_nb costs the least-deadwood card first, its deadwood already known
    (fewer evaluations), and takes a hand's deadwood less a card by two lookups where the
    hand has no set (deadwood_without_nb): on random hands and views the choices are the
    unseeded one's and those of the definitions (every card's cost, ``discard_cost_nb``,
    evaluated in full)."""
    rng = np.random.default_rng(23)
    params = load_strategy("expert").to_kernel()
    for _ in range(3000):
        cards = rng.permutation(52)
        hand = np.uint64(sum(1 << int(c) for c in cards[:11]))
        taken = np.uint64(sum(1 << int(c) for c in cards[11 : 11 + rng.integers(0, 4)]))
        passed = np.uint64(sum(1 << int(c) for c in cards[15 : 15 + rng.integers(0, 12)]))
        forbidden = int(cards[rng.integers(0, 11)]) if rng.random() < 0.5 else -1
        unseen = np.uint64((1 << 52) - 1) & ~hand & ~passed & ~taken
        allowed = hand & ~np.uint64(1 << forbidden) if forbidden >= 0 else hand
        whole = min_deadwood_nb(hand)
        best, deadwood = least_deadwood_drop_from_nb(hand, allowed, whole)
        assert (best, deadwood) == least_deadwood_drop_nb(hand, allowed)
        legal = [c for c in range(52) if allowed >> np.uint64(c) & np.uint64(1)]
        # By definition, each card's deadwood evaluated whole (no bound, no fast path):
        by_definition = min(
            legal, key=lambda c: (min_deadwood_nb(hand & ~np.uint64(1 << c)), -tie_key_nb(c))
        )
        assert (best, deadwood) == (by_definition, min_deadwood_nb(hand & ~np.uint64(1 << best)))
        plain = weighted_discard_nb(params, hand, forbidden, unseen, taken, passed)
        seeded, left = weighted_discard_from_nb(
            params, hand, forbidden, unseen, taken, passed, whole, best, deadwood
        )
        assert left == min_deadwood_nb(hand & ~np.uint64(1 << seeded))
        cheapest = min(
            legal,
            key=lambda c: (discard_cost_nb(params, hand, c, unseen, taken, passed), -tie_key_nb(c)),
        )
        assert seeded == plain == cheapest


@pytest.mark.parametrize(
    "overrides",
    [
        [],
        ["take_melds=false"],
        ["take_min_gain=3"],
        ["improve_weight=0", "take_min_gain=1"],
        ["take_schedule=22:false:2,11:true:0,0:false:9.5"],
    ],
)
@pytest.mark.first_case
def test_the_take_decision_is_its_definition(overrides):
    """takes_top_nb's shortcuts (a card that melds nothing: the 10-card drop, a bound that
    rejects before any search) choose as the definition does: take when it melds (if
    take_melds) or when ``gain + improve_weight * live`` reaches take_min_gain, the gain
    from every other card's drop evaluated in full; with a take schedule, the take_melds
    and take_min_gain of the stock size's phase."""
    rng = np.random.default_rng(29)
    params = load_strategy("expert", overrides).to_kernel()
    strategy = load_strategy("expert", overrides)
    streams = np.zeros(2, np.uint64)
    takes = 0
    for _ in range(2000):
        stock_left = int(rng.integers(0, 32))
        take_melds, take_min_gain = strategy.take_melds, strategy.take_min_gain
        for min_stock, melds_then, gain_then in strategy.take_schedule:
            if min_stock <= stock_left:
                take_melds, take_min_gain = melds_then, gain_then
                break
        cards = rng.permutation(52)
        hand = np.uint64(sum(1 << int(c) for c in cards[:10]))
        card = int(cards[10])
        pile = np.uint64(sum(1 << int(c) for c in cards[10 : 12 + rng.integers(0, 6)]))
        taken = np.uint64(sum(1 << int(c) for c in cards[20 : 20 + rng.integers(0, 4)]))
        with_card = hand | np.uint64(1 << card)
        drops = [
            min_deadwood_nb(with_card & ~np.uint64(1 << c))
            for c in range(52)
            if hand >> np.uint64(c) & np.uint64(1)
        ]
        gain = min_deadwood_nb(hand) - min(drops)
        unseen = np.uint64((1 << 52) - 1) & ~hand & ~pile & ~taken
        score = float(gain) + strategy.improve_weight * live_nb(card, hand, unseen)
        melds = any(int(m) >> card & 1 and int(m) & ~(1 << card) & ~int(hand) == 0 for m in MELDS)
        expected = (take_melds and melds) or (take_min_gain > 0 and score >= take_min_gain)
        got = takes_top_nb(params, hand, card, pile, taken, stock_left, streams, 0)
        assert got == expected, (hex(hand), card, gain, score)
        takes += got
    assert 20 < takes < 1980  # both answers are exercised


@pytest.mark.parametrize(
    ("rule_set", "overrides", "players"),
    [
        ("standard", [], ("expert", "simple")),
        ("hollywood", ["big_gin_bonus=31"], ("gin-hunter", "defensive")),
        ("oklahoma", [], ("random", "expert")),
    ],
)
def test_rollouts_carrying_known_deadwood_play_as_single_decisions(rule_set, overrides, players):
    """play_out_with_family_nb carries each player's deadwood from decision to decision
    (family_action_from_nb): from deals and from positions a few turns in, it plays the
    same actions, with the same random numbers, as family_action_nb decision by decision."""
    from gin_sim.kernels.playout import scratch_nb
    from gin_sim.kernels.position import (
        apply_nb,
        deal_nb,
        family_action_nb,
        play_out_with_family_nb,
    )
    from gin_sim.players.calibration import load_undercut_table
    from gin_sim.players.strategies import strategies_to_kernel

    rules = load_rules(rule_set, overrides)
    vector = rules.to_kernel()
    table = load_undercut_table()
    policies = strategies_to_kernel(tuple(load_strategy(p) for p in players), rules)
    streams, masks, state = scratch_nb()[:3]
    rng = np.random.default_rng(37)
    for deck in range(120):
        deal_nb(rng.permutation(52).astype(np.int8), deck % 2, vector, masks, state)
        streams[:] = (deck, deck + 1000)
        for _ in range(rng.integers(0, 6)):  # a few decisions in, maybe at a discard
            if state[PositionSlot.PHASE] == Phase.OVER:
                break
            p = state[PositionSlot.PLAYER]
            action = family_action_nb(policies[p], masks, state, vector, table, streams, p)
            apply_nb(masks, state, vector, action)
        fast_masks, fast_state, fast_streams = masks.copy(), state.copy(), streams.copy()
        play_out_with_family_nb(fast_masks, fast_state, vector, policies, table, fast_streams)
        while state[PositionSlot.PHASE] != Phase.OVER:
            p = state[PositionSlot.PLAYER]
            action = family_action_nb(policies[p], masks, state, vector, table, streams, p)
            apply_nb(masks, state, vector, action)
        assert np.array_equal(fast_masks, masks) and np.array_equal(fast_state, state)
        assert np.array_equal(fast_streams, streams)


def test_the_old_name_of_the_adaptive_searcher_says_what_it_is_called_now():
    """Issue 26: mc-adaptive became the default mc; a program that still asks for it gets
    one line naming mc and mc-fixed, and the list of known strategies."""
    with pytest.raises(ConfigError, match=r"'mc-adaptive' \(called mc since .* mc-fixed\): known"):
        load_strategy("mc-adaptive")
    assert load_strategy("mc").opponent_panel and not load_strategy("mc-fixed").opponent_panel
