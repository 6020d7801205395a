"""Tournament tables pinned by hand-computed cases and by the head-to-head runs they
summarise (issue 27, part 1; docs/testing.md): the cells, field rates and cross table of a
hand-made round robin, the runs a tournament consists of, and a two-player tournament
small enough to play under every mutant."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from gin_sim.experiments.simulate import head_to_head, head_to_head_matches
from gin_sim.experiments.summary import match_summary, player_summary
from gin_sim.experiments.tournament import (
    CHUNK_DECKS,
    CHUNK_MATCHES,
    GAME1_WON,
    MATCHES_WON,
    NET,
    PairResult,
    Tournament,
    check_entrants,
    play_tournament,
    run_configs,
    run_folder,
    tournament_runs,
)
from gin_sim.game.config import ConfigError
from gin_sim.game.rules import load_rules
from gin_sim.players.strategies import load_strategy

PLAYERS = ("simple", "expert", "gin-hunter")


def _ratio_variance(num, den) -> float:
    """The delta-method variance of sum(num) / sum(den) over independent units, written
    out: n / (n - 1) * sum((num - ratio den)^2) / sum(den)^2."""
    num, den = np.asarray(num, float), np.asarray(den, float)
    ratio = num.sum() / den.sum()
    return len(num) / (len(num) - 1) * ((num - ratio * den) ** 2).sum() / den.sum() ** 2


def _hand_made(matches: int = 2) -> Tournament:
    """Three players, one rule set, 3 decks and 2 matches per pairing, results made up:
    for each pairing (a, b) the net points of a per deck (two hands each) and a's match
    and game-1 wins and losses per match (two plays each)."""
    tournament = Tournament(
        [load_rules("hollywood")], [load_strategy(p) for p in PLAYERS], 3, matches, 1
    )
    played = matches > 0

    def pair(net, mw, ml, gw, gl):
        arrays = [np.array(x, np.int64) if played else None for x in (mw, ml, gw, gl)]
        return PairResult(np.array(net, np.int64), *arrays)

    tournament.results = {
        ("hollywood", 0, 1): pair([4, -2, 10], [2, 1], [0, 1], [1, 2], [1, 0]),
        ("hollywood", 0, 2): pair([-6, 0, 3], [0, 1], [2, 0], [0, 0], [2, 1]),
        ("hollywood", 1, 2): pair([1, 1, -5], [1, 2], [1, 0], [2, 1], [0, 1]),
    }
    return tournament


def test_a_cell_is_the_pairings_ratio_seen_from_either_side():
    """Player 0 against player 1: net 4 - 2 + 10 = 12 over 6 hands, 2 per deck; player 1
    against player 0 the same negated with the same interval. Matches: 3 won of 4 plays,
    1 lost; game 1: 3 won, 1 lost."""
    tournament = _hand_made()
    assert tournament.names == list(PLAYERS)
    assert tournament.pairs() == [(0, 1), (0, 2), (1, 2)]
    mine = tournament.cell("hollywood", 0, 1)
    assert mine.mean == 2.0 and mine.n == 3
    assert mine.variance == pytest.approx(_ratio_variance([4, -2, 10], [2, 2, 2]))
    theirs = tournament.cell("hollywood", 1, 0, NET)
    assert theirs.mean == -2.0 and theirs.variance == pytest.approx(mine.variance)
    assert tournament.cell("hollywood", 0, 1, MATCHES_WON).mean == 0.75
    assert tournament.cell("hollywood", 1, 0, MATCHES_WON).mean == 0.25
    assert tournament.cell("hollywood", 0, 1, GAME1_WON).mean == 0.75
    assert tournament.cell("hollywood", 1, 0, GAME1_WON).mean == 0.25
    # player 2 against player 0: player 0's losses, matches 2 + 0 and games 1 2 + 1, of 4
    assert tournament.cell("hollywood", 2, 0, MATCHES_WON).mean == 0.5
    assert tournament.cell("hollywood", 2, 0, GAME1_WON).mean == 0.75
    won = tournament.cell("hollywood", 1, 2, MATCHES_WON)
    assert won.n == 2 and won.variance == pytest.approx(_ratio_variance([1, 2], [2, 2]))
    assert tournament.per_deck("hollywood").tolist() == [[4, -2, 10], [-6, 0, 3], [1, 1, -5]]
    assert tournament.per_deck("hollywood").dtype == np.float64


def test_a_tournament_without_matches_has_no_match_cells():
    tournament = _hand_made(matches=0)
    for figure in (MATCHES_WON, GAME1_WON):
        with pytest.raises(ConfigError, match="played no matches"):
            tournament.cell("hollywood", 0, 1, figure)
    cross = tournament.cross_table()
    assert len(cross) == 6 and set(cross["figure"]) == {NET}


def test_a_players_field_rate_averages_its_rates_against_each_other_player():
    """Player 1 against 0 won the plays 0, 1 (player 0's losses) and against 2 won 1, 2:
    per match (0 + 1) / 2 and (1 + 2) / 2 out of 2 plays: 1 / 4 and 3 / 4, mean 1 / 2.
    Game 1: losses of 0 (1, 0) and wins against 2 (2, 1): mean (3 / 4 + 1 / 4) / 2."""
    tournament = _hand_made()
    field = tournament.field_win_rate("hollywood", 1)
    assert field.mean == pytest.approx(0.5) and field.n == 2
    per_match = np.array([0 + 1, 1 + 2]) / 2  # wins per match, averaged over the two others
    assert field.variance == pytest.approx(_ratio_variance(per_match, [2, 2]))
    assert tournament.field_win_rate("hollywood", 1, GAME1_WON).mean == pytest.approx(0.5)
    # player 0: wins against 1 (2, 1) and 2 (0, 1), game 1: (1, 2) and (0, 0)
    assert tournament.field_win_rate("hollywood", 0).mean == pytest.approx(4 / 8)
    assert tournament.field_win_rate("hollywood", 0, GAME1_WON).mean == pytest.approx(3 / 8)
    # player 2: losses of 0 (2, 0) and of 1 (1, 0)
    assert tournament.field_win_rate("hollywood", 2).mean == pytest.approx(3 / 8)
    # the field rates of a round robin average to one half (every play has one winner
    # here, each counted once for it and once against the loser)
    rates = [tournament.field_win_rate("hollywood", p).mean for p in range(3)]
    assert np.mean(rates) == pytest.approx((4 + 4 + 3) / 24)


def test_the_cross_table_has_both_orders_of_every_pairing_and_figure():
    tournament = _hand_made()
    cross = tournament.cross_table()
    assert len(cross) == 6 * 3
    assert list(cross.columns) == ["rules", "player", "opponent", "figure", "mean",
                                   "half_width", "low", "high", "n"]  # fmt: skip
    assert set(cross["rules"]) == {"hollywood"}
    assert not (cross["player"] == cross["opponent"]).any()
    indexed = cross.set_index(["player", "opponent", "figure"])
    for row, column in ((0, 1), (1, 0), (2, 0), (1, 2)):
        for figure in (NET, MATCHES_WON, GAME1_WON):
            cell = indexed.loc[(PLAYERS[row], PLAYERS[column], figure)]
            estimate = tournament.cell("hollywood", row, column, figure)
            assert cell["mean"] == estimate.mean and cell["n"] == estimate.n
            assert cell["half_width"] == pytest.approx(estimate.half_width)
            assert cell["low"] == pytest.approx(estimate.mean - estimate.half_width)
            assert cell["high"] == pytest.approx(estimate.mean + estimate.half_width)
    assert indexed.loc[(PLAYERS[2], PLAYERS[1], NET), "mean"] == pytest.approx(3 / 6)


def test_entrants_are_two_distinct_players_under_distinct_legal_rule_sets():
    rules = [load_rules("hollywood")]
    simple, expert = load_strategy("simple"), load_strategy("expert")
    check_entrants(rules, [simple, expert])
    with pytest.raises(ConfigError, match="two or more strategies"):
        check_entrants(rules, [simple])
    with pytest.raises(ConfigError, match="same name"):
        check_entrants(rules, [simple, expert, simple])
    with pytest.raises(ConfigError, match="one or more different rule sets"):
        check_entrants([], [simple, expert])
    with pytest.raises(ConfigError, match="one or more different rule sets"):
        check_entrants(rules * 2, [simple, expert])
    # R12: a threshold above the knock limit of any rule set is refused
    tight = load_rules("standard", ["knock_limit=7"])
    eager = load_strategy("simple", ["knock_threshold=8"])
    with pytest.raises(ConfigError, match="above knock_limit = 7"):
        check_entrants([load_rules("hollywood"), tight], [expert, eager])


def test_a_tournament_is_one_duplicate_run_per_pairing_rule_set_and_kind(tmp_path):
    tournament = Tournament(
        [load_rules("hollywood"), load_rules("standard")],
        [load_strategy(p) for p in PLAYERS], 60_000, 40, 9,
    )  # fmt: skip
    configs = run_configs(tournament)
    assert len(configs) == 2 * 3 * 2 == tournament_runs(2, 3, 40)
    assert tournament_runs(2, 3, 0) == 6 and tournament_runs(1, 4, 1) == 12
    # a count (a progress bar's total): a whole number, not a float that equals one
    assert all(type(tournament_runs(r, p, m)) is int for r, p, m in ((2, 3, 0), (1, 4, 1)))
    for (rules, a, b, kind), config in configs.items():
        assert config.kind == kind and config.rules.name == rules
        assert [p.name for p in config.players] == [PLAYERS[a], PLAYERS[b]]
        assert config.seed == 9 and config.duplicate is True
        count, chunk = (60_000, CHUNK_DECKS) if kind == "hands" else (40, 40)
        assert (config.count, config.chunk_size) == (count, chunk)
    assert CHUNK_MATCHES > 40
    no_matches = Tournament(tournament.rules, tournament.players, 30, 0, 9)
    assert {key[3] for key in run_configs(no_matches)} == {"hands"}
    assert len(run_configs(no_matches)) == tournament_runs(2, 3, 0)
    folder = run_folder(tmp_path, tournament, ("standard", 0, 2, "matches"))
    assert folder == tmp_path / "standard" / "simple_vs_gin-hunter" / "matches"


@pytest.fixture(scope="module")
def small():
    rules, pair = load_rules("hollywood"), [load_strategy("simple"), load_strategy("expert")]
    return rules, pair, play_tournament([rules], pair, 40, 6, 5)


def test_a_small_tournament_equals_its_head_to_head_runs(small):
    """Two players, 40 decks and 6 matches: each cell is the figure of the same runs'
    records summarised by ``summary`` (net by deck from every hand, wins per match)."""
    rules, pair, tournament = small
    hands = head_to_head(rules, tuple(pair), 40, 5)
    matches, _ = head_to_head_matches(rules, tuple(pair), 6, 5)
    for player, (row, column) in enumerate(((0, 1), (1, 0))):
        expected = {
            NET: player_summary(hands, player)[NET],
            MATCHES_WON: match_summary(matches, player)[MATCHES_WON],
            GAME1_WON: match_summary(matches, player)[GAME1_WON],
        }
        for figure, estimate in expected.items():
            cell = tournament.cell("hollywood", row, column, figure)
            assert cell.mean == pytest.approx(estimate.mean, abs=1e-12), figure
            assert cell.n == estimate.n
            assert cell.half_width == pytest.approx(estimate.half_width, rel=1e-9)
    result = tournament.results[("hollywood", 0, 1)]
    # losses are wins of the other player, counted separately (unfinished matches count in neither)
    assert (result.match_wins + result.match_losses <= 2).all()
    assert result.net.size == 40 and not math.isnan(tournament.cell("hollywood", 0, 1).mean)


def test_a_small_tournament_reports_each_run_and_resumes_from_its_folder(tmp_path, small):
    rules, pair, tournament = small
    finished = []
    played = play_tournament([rules], pair, 40, 6, 5, tmp_path, on_run=finished.append)
    assert finished == [1, 1]
    assert (tmp_path / "hollywood" / "simple_vs_expert" / "hands").is_dir()
    pd.testing.assert_frame_equal(played.cross_table(), tournament.cross_table())
    again = play_tournament([rules], pair, 40, 6, 5, tmp_path)
    pd.testing.assert_frame_equal(again.cross_table(), tournament.cross_table())


def test_a_tournament_resumes_without_playing_and_refuses_a_folder_not_its_own(
    tmp_path, small, monkeypatch
):
    """Played again into its runs folder, a finished tournament reads every chunk back
    (playing one is an error here); a runs folder that holds a user's file or another
    kind of gin-sim output is refused, the error naming what the folder was wanted for."""
    import gin_sim.experiments.runs
    from gin_sim.experiments.outputs import FolderError, claim_folder

    rules, pair, tournament = small
    play_tournament([rules], pair, 40, 6, 5, tmp_path / "runs")

    def no_play(*args, **kwargs):
        raise AssertionError("a finished chunk was played again")

    with monkeypatch.context() as patch:
        patch.setattr(gin_sim.experiments.runs, "play_chunk", no_play)
        again = play_tournament([rules], pair, 40, 6, 5, tmp_path / "runs")
    pd.testing.assert_frame_equal(again.cross_table(), tournament.cross_table())
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("a user's file")
    with pytest.raises(FolderError, match="did not write"):
        play_tournament([rules], pair, 40, 6, 5, mine)
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"]
    other = tmp_path / "other"
    with claim_folder(other, "some report", {}, lambda name: False) as claim:
        claim.finish()
    with pytest.raises(FolderError, match="not a tournament runs"):
        play_tournament([rules], pair, 40, 6, 5, other)
