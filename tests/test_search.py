"""Search players (kind mc, docs/strategies.md "Search players") on the kernels.

What a searcher may know is tested on the kernels themselves, by the shared probe of
tests/hidden_info.py: changing every field of the position it cannot see (the opponent's
unseen cards, the stock's order, the deal, the cards drawn from the stock, the opponent's
last stock draw) leaves each decision and each figure of the search unchanged (plain,
screening, score-aware, with an opponent panel's posterior), while a peeking variant that
reads any one of those fields is caught.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import numba
import numpy as np
import pytest
from hidden_info import SHOWDOWN, SHOWDOWN_FIELDS, decision_positions, probe, same
from typer.testing import CliRunner

from gin_sim.experiments.simulate import (
    head_to_head,
    load_undercut_table,
    play_hand,
    simulate_deals,
    simulate_matches,
)
from gin_sim.game.config import ConfigError
from gin_sim.game.rules import load_rules
from gin_sim.interfaces.cli import app
from gin_sim.kernels.enums import MAX_PANEL, Phase, PositionMask, PositionSlot, StrategyParam
from gin_sim.kernels.playout import decide_nb, scratch_nb
from gin_sim.kernels.position import (
    apply_nb,
    deal_nb,
    family_action_nb,
    hand_value_nb,
    play_out_drawing_nb,
    set_score_nb,
)
from gin_sim.kernels.search import (
    MEMORY_DISCARD,
    MEMORY_TURN,
    forget_nb,
    new_hand_nb,
    offer_seen_nb,
    offer_update_nb,
    prior_nb,
    search_nb,
    search_scratch_nb,
    search_worlds_nb,
    showdown_update_nb,
)
from gin_sim.players.search_value import NO_TABLES, equity_tables
from gin_sim.players.strategies import load_strategy, strategies_to_kernel

HOLLYWOOD = load_rules("hollywood")
STANDARD = load_rules("standard")
TINY = ["samples=3", "candidates=2"]  # cheap searchers for tests of mechanics, not strength


def tiny(name: str = "mc-fast", *more: str):
    return load_strategy(name, [*TINY, *more])


def _search(params, masks, state, rules, leak=0, equity=NO_TABLES):
    """Seat 0's search at a position: (action, counts, then the value sums, their squares,
    the gains and their squares per candidate). ``leak`` is mixed into its random stream
    (a peeking variant, tests/hidden_info.py); ``equity``: the seats' game tables
    (score-aware searchers)."""
    streams = np.array([12345 ^ leak, 678], np.uint64)
    search = search_scratch_nb()
    action = search_nb(
        params,
        masks,
        state,
        rules.to_kernel(),
        load_undercut_table(),
        equity,
        streams,
        0,
        search,
    )
    n = int(search[13][0])
    figures = [search[i][:n].copy() for i in (6, 7, 14, 15)]
    return (int(action), tuple(int(x) for x in search[13]), *figures)


PROBE_SETTINGS = [
    (HOLLYWOOD, ["infer=true"]),
    (STANDARD, ["infer=true"]),
    # screening: which candidates go on, and early stops, come from the worlds alone
    (STANDARD, ["infer=true", "samples=6", "screen=3", "candidates=1"]),
    # panel_infer: each world's hand built by its model's discard (issue 26)
    (
        STANDARD,
        ["infer=true", "opponent_panel=simple,expert,gin-hunter-pairs,random", "panel_infer=true"],
    ),
    # mc's rollout policy under standard, and a choice that looks again (issue 46): whether
    # to play more worlds comes from the worlds alone
    (STANDARD, ["infer=true", "rollout=gin-hunter-strong", "extend_samples=5"]),
    # paired_draws (issue 46): the rollouts' stock read from both ends, of the world's stock
    (STANDARD, ["infer=true", "samples=6", "screen=3", "paired_draws=true"]),
]


def _probe_positions(rules):
    """Positions where seat 0 (the searcher) decides, reached by expert playing both seats."""
    expert = load_strategy("expert")
    return decision_positions(rules, (expert, expert), 120, seed=3)


@pytest.mark.parametrize(("rules", "settings"), PROBE_SETTINGS)
def test_hidden_fields_never_change_a_search(rules, settings):
    """The probe of tests/hidden_info.py (every hidden field varied, a peeking variant for
    each caught) on the search's action and every figure."""
    pair = (tiny("mc-fixed", *settings), load_strategy("simple"))
    searcher = strategies_to_kernel(pair, rules)[0]

    def searched(position, leak):
        return _search(searcher, *position, rules, leak)

    probed = probe(searched, _probe_positions(rules), seed=5)
    assert sum(answer[1][1] > 0 for answer in probed.answers) > 50  # most positions searched


def _with_score(state, totals, entered):
    """The position with a Hollywood score before the hand (the score is public)."""
    state = state.copy()
    set_score_nb(state, np.array(totals, np.int64), np.array(entered, np.bool_), 3)
    return state


def test_hidden_fields_never_change_a_score_aware_search():
    """The probe with a searcher playing for the match from a Hollywood score (its values
    are changes of match equity, players/search_value.py): the score reaches its search
    (another score changes some searches), the hidden fields never do."""
    rules = HOLLYWOOD
    strategy = tiny("mc-fixed", "infer=true", "value=match")
    searcher = strategies_to_kernel((strategy, load_strategy("simple")), rules)[0]
    equity = equity_tables((strategy, load_strategy("simple")), rules)
    scores = [
        (((90, 40, 0), (85, 70, 20)), ((1, 1, 0), (1, 1, 1))),
        (((20, 0, 0), (95, 60, 0)), ((1, 0, 0), (1, 1, 0))),
    ]

    def searched(position, leak, score=scores[0]):
        masks, state = position
        return _search(searcher, masks, _with_score(state, *score), rules, leak, equity)

    probed = probe(searched, _probe_positions(rules), seed=5)
    moved = sum(
        not same(answer, searched(position, 0, scores[1]))
        for position, answer in zip(probed.positions, probed.answers, strict=True)
    )
    searched_at = sum(answer[1][1] > 0 for answer in probed.answers)
    assert searched_at > 50 and moved > 20, (searched_at, moved)


def test_permuting_undrawn_stock_cards_never_changes_a_record():
    rng = np.random.default_rng(8)
    pairs = [
        (tiny(), load_strategy("simple")),
        (load_strategy("expert"), tiny("mc-fixed", "infer=true")),
    ]
    for deal in range(40):
        deck = [int(c) for c in rng.permutation(52)]
        players = pairs[deal % 2]
        record = play_hand(deck, HOLLYWOOD, players, dealer=deal % 2, seed=4, deal=deal)
        drawn = 52 - record["stock_left"]
        if drawn >= 51:
            continue
        rest = deck[drawn:]
        rng.shuffle(rest)
        again = play_hand(
            deck[:drawn] + rest, HOLLYWOOD, players, dealer=deal % 2, seed=4, deal=deal
        )
        assert again == record


def test_searches_do_not_depend_on_threads_or_chunks():
    pair = (tiny(), load_strategy("expert"))
    whole = simulate_deals(HOLLYWOOD, pair, 300, seed=21, threads=numba.config.NUMBA_NUM_THREADS)
    pieces = simulate_deals(HOLLYWOOD, pair, 300, seed=21, chunk=77, threads=1)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert np.array_equal(whole, pieces)
    tail = simulate_deals(HOLLYWOOD, pair, 100, seed=21, first_deal=200)
    assert np.array_equal(whole[200:], tail)


def test_matches_with_searchers_are_whole_and_repeatable():
    pair = (tiny(), load_strategy("simple"))
    matches, hands = simulate_matches(STANDARD, pair, 20, seed=2, with_hands=True)
    again, _ = simulate_matches(STANDARD, pair, 20, seed=2)
    assert np.array_equal(matches, again)
    assert (matches["winner"] >= 0).all()
    assert len(hands) == matches["hands"].sum()


def test_the_searcher_records_hold_the_invariants():
    records = simulate_deals(STANDARD, (tiny("mc-fixed", "infer=true"), tiny()), 300, seed=9)
    for name in ("hand0", "hand1"):
        sizes = [bin(int(h)).count("1") for h in records[name]]
        assert set(sizes) <= {10, 11}
    scored = records[records["winner"] >= 0]
    assert (scored["points"] > 0).all() or not len(scored)


def test_mc_fast_beats_simple():
    """Cheap and honest: the paired 95% interval of mc-fast's net points per hand against
    simple under standard rules lies above 0 (300 duplicate deals, seed 1)."""
    frame = head_to_head(STANDARD, (load_strategy("mc-fast"), load_strategy("simple")), 300, 1)
    seat = np.where(frame["swapped"], 1, 0)
    points = frame["points"].to_numpy()
    signed = np.where(frame["winner"] == seat, points, np.where(frame["winner"] < 0, 0, -points))
    per_deck = signed.reshape(-1, 2).mean(axis=1)
    low = per_deck.mean() - 1.96 * per_deck.std(ddof=1) / np.sqrt(len(per_deck))
    assert low > 0


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("samples=0", "samples = 0"),
        ("candidates=12", "candidates = 12"),
        ("screen=1", "screen = 1"),
        ("screen=5000", "screen = 5000"),
        ("rollout=mc", "rollout = 'mc'"),
        ("opponent_model=nobody", "opponent_model = 'nobody'"),
        ("infer_weight=2", "infer_weight = 2.0"),
        ("confidence=-1", "confidence = -1.0"),
        ("value=points", "value = 'points'"),
        ("late_stock=32", "late_stock = 32"),
        ("late_stock=5", "late_samples = 0"),
        ("late_samples=64", "late_samples in"),
        ("undercut_weight=0.5", "undercut_weight = 0.5"),
        ("undercut_weight=4.5", "undercut_weight = 4.5"),
        ("undercut_stock=32", "undercut_stock = 32"),
        ("undercut_stock=12", "undercut_stock in"),
        ("late_infer_stock=32", "late_infer_stock = 32"),
        ("late_infer_weight=1.5", "late_infer_weight = 1.5"),
        ("late_infer_weight=0.5", "late_infer_weight in"),
        ("extend_samples=-1", "extend_samples = -1"),
        ("extend_samples=4097", "extend_samples = 4097"),
        ("knock_samples=-1", "knock_samples = -1"),
        ("knock_samples=4097", "knock_samples = 4097"),
        ("draw_samples=-1", "draw_samples = -1"),
        ("draw_samples=4097", "draw_samples = 4097"),
        ("screen_discards=12", "screen_discards = 12"),
        ("screen_discards=5", "screen_discards in"),
        ("early_screen=1", "early_screen = 1"),
        ("early_keep=4", "early_keep in"),
    ],
)
def test_bad_search_settings_are_one_line_errors(override, message):
    with pytest.raises(ConfigError, match=message):
        load_strategy("mc-fast", [override])
    result = CliRunner().invoke(
        app, ["simulate", "--players", "mc-fast,simple", "--param1", override, "--deals", "2"]
    )
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["early_screen=1", "early_keep=4"], "early_screen = 1 .* allowed 0 .off. or 2 to 4096"),
        (["early_screen=4097", "early_keep=4"], "early_screen = 4097 .*a cut only below screen"),
        (["early_screen=8"], "early_keep = 0 .* allowed 1 to 11"),
        (["early_screen=8", "early_keep=12"], "early_keep = 12"),
    ],
)
def test_the_screenings_first_cut_is_checked(overrides, message):
    """early_screen is a number of worlds and needs early_keep. It cuts only inside the
    screening: mc made without one (screen = 0) under standard, where its [[adapt]] table
    sets the cut, is a valid strategy that makes none."""
    with pytest.raises(ConfigError, match=message):
        load_strategy("mc", overrides)
    assert load_strategy("mc", ["early_screen=8", "early_keep=4"]).early_keep == 4
    plain = load_strategy("mc", ["screen=0"]).for_rules(load_rules("standard"))
    assert (plain.screen, plain.early_screen) == (0, 8)


@pytest.mark.parametrize("key", ["infer_lowering", "infer_timed"])
def test_which_passes_tell_needs_inference(key):
    """infer_lowering (which passes tell against a built hand) and infer_timed (against
    which hand a pass tells) read passes: without infer there is none to read."""
    with pytest.raises(ConfigError, match=rf"{key} in .* without infer"):
        load_strategy("mc-fast", ["infer=false", f"{key}=true"])
    result = CliRunner().invoke(
        app,
        ["simulate", "--players", "mc-fast,simple", "--param1", "infer=false",
         "--param1", f"{key}=true", "--deals", "2"],
    )  # fmt: skip
    assert result.exit_code == 2
    assert f"{key} in" in result.output and "without infer" in result.output
    assert "Traceback" not in result.output


def test_passes_are_read_one_way_at_a_time():
    """infer_timed and infer_lowering would read the same passes two ways."""
    with pytest.raises(ConfigError, match=r"infer_timed and infer_lowering in .* allowed one"):
        load_strategy("mc-fast", ["infer=true", "infer_timed=true", "infer_lowering=true"])


def test_late_inference_needs_inference():
    """late_infer_stock reads passes otherwise late: without infer there is nothing to read."""
    with pytest.raises(ConfigError, match=r"late_infer_stock in .* without infer"):
        load_strategy("mc-fast", ["infer=false", "late_infer_stock=12"])


def _search_run(kind: str, count: int, chunk: int):
    from gin_sim.experiments.runs import RunConfig

    pair = (tiny(), load_strategy("simple"))
    return RunConfig(kind, STANDARD, pair, 5, count, True, chunk)


def test_runs_with_searchers_resume_to_identical_records(tmp_path):
    import pandas as pd

    from gin_sim.experiments.runs import execute

    run = _search_run("hands", 300, 100)
    whole = pd.concat(execute(run, tmp_path / "whole"), ignore_index=True)
    partial = execute(run, tmp_path / "partial")
    next(partial)  # one chunk saved, then the run stops
    partial.close()
    resumed = pd.concat(execute(run, tmp_path / "partial"), ignore_index=True)
    pd.testing.assert_frame_equal(whole, resumed)
    from gin_sim.experiments.runs import read_manifest

    assert read_manifest(tmp_path / "partial").players == run.players  # mc settings round-trip


@pytest.mark.full
def test_searchers_on_dask_workers_play_the_same_records(tmp_path):
    import pandas as pd
    from distributed import Client, LocalCluster

    from gin_sim.experiments.runs import execute

    run = _search_run("matches", 24, 8)
    local = pd.concat(execute(run, tmp_path / "local"), ignore_index=True)
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        remote = pd.concat(execute(run, tmp_path / "remote", client=client), ignore_index=True)
    pd.testing.assert_frame_equal(local, remote)


# ------------------------------------------------------------ the opponent panel
PANEL = "opponent_panel=simple,expert,gin-hunter,early-knocker,random"


def _answered_positions(rules, n_deals, seed):
    """Positions where seat 0 (expert here) is to draw after the opponent (expert) answered
    its discard, each with that discard: what a panel searcher remembers there."""
    family = strategies_to_kernel((load_strategy("expert"), load_strategy("expert")), rules)
    table = load_undercut_table()
    rules_vector = rules.to_kernel()
    streams, masks, state = scratch_nb()[:3]
    rng = np.random.default_rng(seed)
    found = []
    for _ in range(n_deals):
        deal_nb(
            rng.permutation(52).astype(np.int8), int(rng.integers(2)), rules_vector, masks, state
        )
        stop = int(rng.integers(1, 8))
        discard = -1
        draws = 0
        while state[PositionSlot.PHASE] != Phase.OVER:
            player = state[PositionSlot.PLAYER]
            if player == 0 and state[PositionSlot.PHASE] == Phase.DRAW and discard >= 0:
                draws += 1
                if draws == stop:
                    found.append((masks.copy(), state.copy(), discard))
                    break
            action = family_action_nb(
                family[player], masks, state, rules_vector, table, streams, player
            )
            if player == 0 and state[PositionSlot.PHASE] == Phase.DISCARD:
                discard = action & 63
            apply_nb(masks, state, rules_vector, action)
    return found


def _panel_search(params, masks, state, rules, discard, leak=0):
    """Seat 0's turn as a panel searcher that remembers ``discard`` from its last turn
    (its posterior at the prior): its search at the draw, the posterior after it, and
    then, after it takes the pile's top (public, so the views stay the same), its search
    at the discard decision that follows with the same memory (-1 where it has one
    candidate): each search's figures."""
    streams = np.array([12345 ^ leak, 678], np.uint64)
    search = search_scratch_nb()
    memory = search[17]
    memory[0, MEMORY_DISCARD] = discard
    memory[0, MEMORY_TURN] = state[PositionSlot.TURNS_BY] + 1
    rules_vector, table = rules.to_kernel(), load_undercut_table()
    figures = []
    masks, state = masks.copy(), state.copy()
    for phase in (Phase.DRAW, Phase.DISCARD):
        if phase == Phase.DISCARD:
            apply_nb(masks, state, rules_vector, 1)
        action = search_nb(params, masks, state, rules_vector, table, NO_TABLES, streams, 0, search)
        n = int(search[13][0])
        figures += [int(action), tuple(int(x) for x in search[13])]
        figures += [search[i][:n].copy() for i in (6, 7, 14, 15)]
        if phase == Phase.DRAW:
            figures.append(memory[0, :MAX_PANEL].copy())
    return tuple(figures)


@pytest.mark.parametrize(
    ("rules", "settings"),
    [
        (HOLLYWOOD, ["panel_worlds=false"]),
        (STANDARD, ["panel_worlds=false"]),
        (STANDARD, ["panel_worlds=true"]),
        # panel_infer: the worlds' hands built by each world's model (issue 26)
        (HOLLYWOOD, ["panel_worlds=true", "panel_infer=true"]),
    ],
)
def test_hidden_fields_never_change_the_opponent_panels_posterior(rules, settings):
    """The probe of tests/hidden_info.py for a panel searcher after the opponent's turn:
    its posterior moves (the opponent's public turn reaches it) and, like the searches of
    that turn (the draw and the discard; with ``panel_worlds`` their worlds drawn from the
    posterior; with ``panel_infer`` built by their models), is the same whatever the hidden
    fields hold; a peeking variant for each hidden field is caught."""
    searcher = strategies_to_kernel(
        (tiny("mc-fixed", "infer=true", PANEL, *settings), load_strategy("simple")), rules
    )[0]

    def turn(position, leak):
        masks, state, discard = position
        return _panel_search(searcher, masks, state, rules, discard, leak)

    positions = _answered_positions(rules, 80, seed=11)
    probed = probe(turn, positions, seed=7, least_varied=10)
    moved = sum(not np.allclose(answer[6][:5], 0.2) for answer in probed.answers)
    assert len(positions) > 30 and moved > 0.9 * len(positions), (len(positions), moved)


def _opponent_showdowns(rules, searcher, opponents, n_deals, seed):
    """Hands of a panel searcher (seat 0) against ``opponents`` in turn, from random decks
    and dealers, that the opponent ended by a knock, gin or big gin: (masks, state, the
    seats' strategies, the searcher's memory row before the showdown's update)."""
    table, rules_vector = load_undercut_table(), rules.to_kernel()
    rng = np.random.default_rng(seed)
    found = []
    for deal in range(n_deals):
        opponent = load_strategy(opponents[deal % len(opponents)])
        strategies = strategies_to_kernel((searcher, opponent), rules)
        streams, masks, state, _, _, search = scratch_nb()
        streams[:] = rng.integers(1, 2**62, 2, dtype=np.uint64)
        forget_nb(search)
        deck = rng.permutation(52).astype(np.int8)
        deal_nb(deck, int(rng.integers(2)), rules_vector, masks, state)
        new_hand_nb(search, strategies)
        with np.errstate(over="ignore"):
            while state[PositionSlot.PHASE] != Phase.OVER:
                action = decide_nb(
                    masks, state, rules_vector, strategies, table, NO_TABLES, streams, search
                )
                apply_nb(masks, state, rules_vector, action)
        if state[PositionSlot.KNOCKER] == 1:
            found.append((masks.copy(), state.copy(), strategies, search[17][0].copy()))
    return found


def _showdown_posterior(position, leak, rules):
    """The searcher's posterior after the showdown's update (and ``leak``: a peeking
    variant's answer depends on the field it reads; the update draws no random number)."""
    masks, state, strategies, row = position
    search = search_scratch_nb()
    search[17][0] = row
    with np.errstate(over="ignore"):
        showdown_update_nb(
            masks, state, rules.to_kernel(), strategies, load_undercut_table(), search
        )
    return search[17][0, :MAX_PANEL].copy(), leak


def test_hidden_fields_never_change_the_knocking_turns_reading():
    """``panel_knock_turn`` (issue 26): the showdown's update reads the knocker's shown
    cards, its take, the pile in order and the searcher's memory, never which of its cards
    it drew from the stock at its knocking turn (nor the deck's order): the probe of
    tests/hidden_info.py at the hands' ends (the knocker's cards shown, so only those fields
    vary), with its peeking variants caught; and the reading moves the posterior at most
    of those ends (the same ends without it)."""
    searcher = tiny("mc-fixed", "infer=true", PANEL, "panel_knock_turn=true", "panel_memory=match")
    plain = replace(searcher, panel_knock_turn=False)
    positions = _opponent_showdowns(
        STANDARD, searcher, ("gin-hunter", "gin-hunter-pairs", "simple"), 90, seed=17
    )
    probed = probe(
        lambda position, leak: _showdown_posterior(position, leak, STANDARD),
        positions, seed=5, access=SHOWDOWN, least_varied=10, least_caught=5,
        fields=SHOWDOWN_FIELDS,
    )  # fmt: skip
    moved = 0
    for position, (posterior, _) in zip(positions, probed.answers, strict=True):
        masks, state, strategies, row = position
        without = strategies.copy()
        without[0] = plain.to_kernel(STANDARD)
        before, _ = _showdown_posterior((masks, state, without, row), 0, STANDARD)
        moved += not np.array_equal(before, posterior)
    assert len(positions) > 20 and moved > 0.5 * len(positions), (len(positions), moved)


def test_the_probe_catches_a_showdown_update_that_reads_the_knockers_stock_draw():
    """The control of the test above: an update that takes the knocker's stock draw at
    its knocking turn for a public take (the position's TAKEN_CARD read as if from the
    pile) changes with the hidden draw, and the probe says so."""
    searcher = tiny("mc-fixed", "infer=true", PANEL, "panel_knock_turn=true", "panel_memory=match")
    positions = _opponent_showdowns(STANDARD, searcher, ("gin-hunter", "simple"), 40, seed=19)

    def peeking(position, leak):
        masks, state, strategies, row = position
        state = state.copy()
        state[PositionSlot.FROM_PILE] = 1
        return _showdown_posterior((masks, state, strategies, row), leak, STANDARD)

    with pytest.raises(AssertionError, match="a field hidden from the player changed"):
        probe(peeking, positions, seed=5, access=SHOWDOWN, least_varied=5, fields=SHOWDOWN_FIELDS)


def _offer_positions(rules, n_deals, seed):
    """Seat 0's first or second decision (expert against gin-hunter, then simple; random
    decks and dealers) where it sees the opponent's choice at the opening offer
    (``offer_seen_nb`` status 1): at its offer as the dealer, at its draw after the
    opponent's first turn, at its discard after both declined."""
    found = []
    for i, opponent in enumerate(("gin-hunter", "simple")):
        players = (load_strategy("expert"), load_strategy(opponent))
        for masks, state in decision_positions(rules, players, n_deals, seed + i, last_decision=2):
            if offer_seen_nb(masks, state, 0)[0] == 1:
                found.append((masks, state))
    return found


def _offer_posterior(params, position, leak):
    """Seat 0's posterior after reading the opening offer from its prior (and ``leak``: a
    peeking variant's answer depends on the field it reads; the reading takes no number
    from the search's stream)."""
    masks, state = position
    search = search_scratch_nb()
    panel = int(params[StrategyParam.MC_PANEL_SIZE])
    prior_nb(params, panel, search[17][0])
    with np.errstate(over="ignore"):
        offer_update_nb(params, masks, state, 0, search, panel)
    return search[17][0, :MAX_PANEL].copy(), leak


def test_hidden_fields_never_change_the_opening_offers_reading():
    """``panel_offer`` (issue 26, gap c): the reading of the opponent's choice at the
    opening offer marginalizes over its hand then and reads nothing hidden: the probe of
    tests/hidden_info.py (the opponent's unseen cards, the stock's order, the deal, the
    cards drawn, its last stock draw), with its peeking variants caught; the reading
    moves the posterior at every such position, taken and declined offers both met."""
    params = tiny("mc-fixed", "infer=true", PANEL, "panel_offer=true").to_kernel(STANDARD)
    positions = _offer_positions(STANDARD, 120, seed=23)
    probed = probe(
        lambda position, leak: _offer_posterior(params, position, leak),
        positions, seed=9, least_varied=10, least_caught=5,
    )  # fmt: skip
    took = {bool(offer_seen_nb(m, s, 0)[2]) for m, s in positions}
    moved = sum(not np.allclose(answer[0][:5], 0.2) for answer in probed.answers)
    assert len(positions) > 60 and moved == len(positions) and took == {True, False}


def test_the_probe_catches_an_offer_reading_that_looks_at_the_opponents_hand():
    """The control of the test above: a reading that takes the opponent's real hand for
    its sampled ones (each model's likelihood of the choice with the cards it held)
    changes with the hidden cards, and the probe says so."""
    from gin_sim.kernels.decisions import takes_top_nb
    from gin_sim.kernels.enums import FAMILY_PARAMS, PositionMask, StrategyKind

    params = tiny("mc-fixed", "infer=true", PANEL, "panel_offer=true").to_kernel(STANDARD)
    positions = _offer_positions(STANDARD, 80, seed=29)
    idle = np.zeros(2, np.uint64)

    def peeking(position, leak):
        masks, state = position
        _, upcard, took = offer_seen_nb(masks, state, 0)
        hand = masks[PositionMask.HAND + 1]  # what it holds now: hidden but for its takes
        likes = []
        for m in range(5):
            base = StrategyParam.MC_PANEL + m * FAMILY_PARAMS
            model = params[base : base + FAMILY_PARAMS]
            if model[StrategyParam.KIND] == StrategyKind.RANDOM:
                likes.append(0.5)
                continue
            takes = takes_top_nb(
                model, hand, upcard, np.uint64(1 << int(upcard)), np.uint64(0), 31, idle, 1
            )
            likes.append(1.0 if takes == took else 0.1)
        return np.array(likes), leak

    with pytest.raises(AssertionError, match="a field hidden from the player changed"):
        probe(peeking, positions, seed=9, least_varied=5)


def test_panel_worlds_change_the_searches_of_an_answered_turn():
    """``panel_worlds`` draws the worlds of the draw and the discard after the opponent's
    answered turn from the posterior: on the same positions some of those searches differ
    from the ones without it (and the posterior does not)."""
    searchers = [
        strategies_to_kernel(
            (tiny("mc-fixed", "infer=true", PANEL, f"panel_worlds={w}"), load_strategy("simple")),
            STANDARD,
        )[0]
        for w in ("false", "true")
    ]
    changed = {Phase.DRAW: 0, Phase.DISCARD: 0}
    for masks, state, discard in _answered_positions(STANDARD, 40, seed=13):
        plain, drawn = (_panel_search(p, masks, state, STANDARD, discard) for p in searchers)
        assert np.array_equal(plain[6], drawn[6])
        changed[Phase.DRAW] += not same(plain[:6], drawn[:6])
        changed[Phase.DISCARD] += not same(plain[7:], drawn[7:])
    assert min(changed.values()) >= 5, changed


def test_panel_infer_changes_the_worlds_but_not_the_posterior():
    """``panel_infer`` builds each world's hidden hand by the world's model (issue 26):
    on the same positions some searches differ from those with the least-deadwood build,
    and the posterior (its evidence worlds keep that build) does not; a panel of
    ``simple`` alone builds as without it (every weight 0: the same card at every drop)."""

    def searcher(panel, infer):
        strategy = tiny("mc-fixed", "infer=true", panel, f"panel_infer={infer}")
        return strategies_to_kernel((strategy, load_strategy("simple")), STANDARD)[0]

    plain, built = searcher(PANEL, "false"), searcher(PANEL, "true")
    lone = [searcher("opponent_panel=simple", w) for w in ("false", "true")]
    changed = 0
    for masks, state, discard in _answered_positions(STANDARD, 30, seed=17):
        before, after = (_panel_search(p, masks, state, STANDARD, discard) for p in (plain, built))
        assert np.array_equal(before[6], after[6])
        changed += not same(before, after)
        alone = [_panel_search(p, masks, state, STANDARD, discard) for p in lone]
        assert same(alone[0], alone[1])
    assert changed >= 5, changed


def test_a_search_without_its_rollouts_draws_the_searchs_worlds():
    """``search_worlds_nb`` (bench/levers/world_time.py) does a search's work but its
    rollouts: where the search screens nothing (3 worlds, screened on 16), the worlds it
    draws end where the search's do (the last world, the world stream), its posterior moves
    as the search's does, and it plays no rollout."""
    searcher = strategies_to_kernel(
        (tiny("mc-fixed", "infer=true", PANEL, "panel_infer=true"), load_strategy("simple")),
        STANDARD,
    )[0]
    rules_vector, table = STANDARD.to_kernel(), load_undercut_table()
    searched = 0
    for masks, state, discard in _answered_positions(STANDARD, 30, seed=19):
        ends = []
        for kernel in (search_nb, search_worlds_nb):
            streams = np.array([12345, 678], np.uint64)
            search = search_scratch_nb()
            search[17][0, MEMORY_DISCARD] = discard
            search[17][0, MEMORY_TURN] = state[PositionSlot.TURNS_BY] + 1
            kernel(searcher, masks, state, rules_vector, table, NO_TABLES, streams, 0, search)
            # the rollouts' position (search[3]) is still the scratch's zeros where none ran
            ends.append((search[0].copy(), search[1].copy(), search[9].copy(), search[17].copy(),
                         streams.copy(), int(search[13][2]) + int(search[3].any())))  # fmt: skip
        (*whole, rollouts), (*drawn, none) = ends
        assert same(tuple(whole), tuple(drawn))
        assert none == 0
        searched += rollouts > 0
    assert searched >= 10, searched


def _stock_endings(rules, policies, masks, state, bottom):
    """Every order of the stock left at (masks, state), played to the end by the family
    ``policies`` with seat ``bottom`` drawing from the stock's bottom (-1: neither): the
    sorted list of (seat 0's points, the final hands) over the orders, and the list in
    order of the permutations."""
    top = int(state[PositionSlot.STOCK_POS])
    stock = [int(c) for c in state[PositionSlot.DECK + top : PositionSlot.DECK + 52]]
    table = load_undercut_table()
    chains, result = np.empty((16, 2), np.int64), np.empty(8, np.int64)
    endings = []
    for order in itertools.permutations(stock):
        m, s = masks.copy(), state.copy()
        s[PositionSlot.DECK + top : PositionSlot.DECK + 52] = order
        play_out_drawing_nb(m, s, rules, policies, table, np.zeros(2, np.uint64), bottom)
        left = [
            int(c)
            for c in s[PositionSlot.DECK + s[PositionSlot.STOCK_POS] : PositionSlot.DECK + 52]
        ]
        # The cards not drawn are a run of the order: the top seat's cards came off one
        # end, the bottom seat's off the other, and the rest kept their order.
        starts = [
            i for i in range(len(order) - len(left) + 1) if list(order[i:][: len(left)]) == left
        ]
        assert starts, (order, left)
        hands = (int(m[PositionMask.HAND]), int(m[PositionMask.HAND + 1]))
        value = int(hand_value_nb(m, s, rules, chains, result, 0))
        endings.append((value, hands, starts[-1] + len(left) < len(order)))
    return sorted(e[:2] for e in endings), endings


def test_paired_draws_leave_a_playouts_law_unchanged():
    """paired_draws (issue 46): one seat draws from the stock's bottom. Over every order
    of a short stock the playouts end exactly as often in each way (points and both final
    hands) as with every draw from the top, since each order is matched by one other that
    deals every player the same cards; yet order by order they differ (the pairing moves
    cards), so a bottom draw that were not one would fail the first check or the second."""
    rules_vector = STANDARD.to_kernel()
    policies = strategies_to_kernel(
        (load_strategy("gin-hunter-strong"), load_strategy("expert")), STANDARD
    )
    rng = np.random.default_rng(46)
    table = load_undercut_table()
    checked = moved = from_bottom = 0
    for deal in range(40):
        masks, state = scratch_nb()[1:3]  # zeroed, as deal_nb expects
        deal_nb(rng.permutation(52).astype(np.int8), deal % 2, rules_vector, masks, state)
        while state[PositionSlot.PHASE] != Phase.OVER:
            left = 52 - state[PositionSlot.STOCK_POS]
            if state[PositionSlot.PHASE] == Phase.DRAW and left == 6:
                break
            player = state[PositionSlot.PLAYER]
            streams = np.zeros(2, np.uint64)
            action = family_action_nb(
                policies[player], masks, state, rules_vector, table, streams, player
            )
            apply_nb(masks, state, rules_vector, action)
        if state[PositionSlot.PHASE] == Phase.OVER:
            continue
        plain, plain_orders = _stock_endings(rules_vector, policies, masks, state, -1)
        for bottom in (0, 1):
            paired, paired_orders = _stock_endings(rules_vector, policies, masks, state, bottom)
            assert paired == plain, (deal, bottom)
            moved += [e[:2] for e in paired_orders] != [e[:2] for e in plain_orders]
            assert not any(e[2] for e in plain_orders)  # from the top: the rest is the end
            from_bottom += sum(e[2] for e in paired_orders)
        checked += 1
    assert checked >= 5 and moved >= checked and from_bottom > 0, (checked, moved, from_bottom)
