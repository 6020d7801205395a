"""Hollywood matches (R5, R19 to R23): scoring cases, kernel against reference, determinism."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest
from tiers import size

from gin_sim.experiments.simulate import head_to_head_matches, simulate_matches
from gin_sim.game.hollywood import HollywoodScore
from gin_sim.game.records import HAND_FIELDS, MATCH_FIELDS, record_to_dict
from gin_sim.game.rules import load_rules
from gin_sim.kernels.match import credit_nb
from gin_sim.players.strategies import parse_players
from gin_sim.reference.match import play_match_reference

ALEXANDRA, BOB = 0, 1
MATCHES = size(fast=100, full=500)  # kernel against reference, per case


class KernelScore:
    """The kernel's crediting (credit_nb) behind the HollywoodScore interface."""

    def __init__(self, target: int = 100) -> None:
        self.target = target
        self.totals_array = np.zeros((2, 3), np.int64)
        self.boxes = np.zeros((2, 3), np.int64)
        self.entered = np.zeros((2, 3), np.bool_)
        self.winners = np.full(3, -1, np.int64)

    def credit(self, player: int, points: int) -> None:
        credit_nb(
            self.totals_array, self.boxes, self.entered, self.winners, player, points, self.target
        )

    @property
    def totals(self) -> list[list[int]]:
        return self.totals_array.tolist()

    @property
    def game_winner(self) -> list[int]:
        return self.winners.tolist()


@pytest.fixture(params=[HollywoodScore, KernelScore], ids=["python", "kernel"])
def score_class(request):
    return request.param


def play(score_class, wins, target=100):
    score = score_class(target=target)
    for player, points in wins:
        score.credit(player, points)
    return score


def test_r22_worked_example(score_class):
    """R22: Bob 10, Alexandra 18, Bob 30, Bob 4 -> Alexandra 18/0/0, Bob 44/34/4."""
    score = play(score_class, [(BOB, 10), (ALEXANDRA, 18), (BOB, 30), (BOB, 4)])
    assert score.totals == [[18, 0, 0], [44, 34, 4]]
    assert score.game_winner == [-1, -1, -1]


def test_r19_shut_out_of_game_1_enters_game_2(score_class):
    score = play(score_class, [(BOB, 60), (BOB, 45)])  # game 1 ends at 105 with Bob's 2nd win
    assert score.game_winner == [BOB, -1, -1] and score.totals[BOB] == [105, 45, 0]
    score.credit(ALEXANDRA, 20)  # her first win: game 1 has ended, so it enters game 2
    assert score.totals[ALEXANDRA] == [0, 20, 0]
    score.credit(ALEXANDRA, 5)  # second win: game 2 again and enters game 3
    assert score.totals[ALEXANDRA] == [0, 25, 5]


def test_r19_ended_games_take_no_credit(score_class):
    score = play(score_class, [(BOB, 100), (BOB, 10), (BOB, 10)])
    assert score.game_winner[0] == BOB
    assert score.totals[BOB] == [100, 20, 10]  # no credit after game 1 ended


def test_r20_simultaneous_endings_and_other_targets(score_class):
    score = play(score_class, [(BOB, 20), (BOB, 20), (BOB, 30)], target=50)
    # Bob: game 1 20+20+30=70, game 2 20+30=50, game 3 30: games 1 and 2 end on one hand
    assert score.game_winner == [BOB, BOB, -1] and score.totals[BOB] == [70, 50, 30]


def test_r21_match_ends_3_0_and_2_1():
    sweep = play(HollywoodScore, [(BOB, 40)] * 6)
    assert sweep.finished and sweep.match_winner == BOB and sweep.games_won(BOB) == 3
    close = play(
        HollywoodScore, [(ALEXANDRA, 110), (BOB, 60), (BOB, 60), (ALEXANDRA, 30), (BOB, 60)]
    )
    assert close.game_winner == [ALEXANDRA, BOB, BOB] and close.match_winner == BOB
    assert close.games_won(ALEXANDRA) == 1 and close.finished


def test_r23_bonuses_on_and_off():
    score = play(
        HollywoodScore, [(ALEXANDRA, 110), (BOB, 60), (BOB, 60), (ALEXANDRA, 30), (BOB, 60)]
    )
    assert score.tallies(bonuses=False) == score.totals
    with_bonuses = score.tallies(bonuses=True)
    # game 1: Alexandra won with 110 in one box, Bob scored 0 there: (110 + 25 + 100) * 2
    assert with_bonuses[ALEXANDRA][0] == (110 + 25 + 100) * 2 and with_bonuses[BOB][0] == 0
    # Bob's first win enters game 2 (game 1 has ended); his second ends it at 120 in 2 boxes,
    # with Alexandra on 0 there (her 30 went to game 3): (120 + 50 + 100) * 2
    assert score.totals == [[110, 0, 30], [0, 120, 120]]
    assert with_bonuses[BOB][1] == (120 + 50 + 100) * 2 and with_bonuses[ALEXANDRA][1] == 0
    # game 3: Bob 120 in 2 boxes + 100; Alexandra 30 in one box, so no shutout
    assert with_bonuses[BOB][2] == 120 + 50 + 100 and with_bonuses[ALEXANDRA][2] == 30 + 25


def _reference_matches(args):
    seed, start, stop, rules, players = args
    return [play_match_reference(seed, m, rules, players) for m in range(start, stop)]


@pytest.mark.parametrize(
    ("rule_set", "players", "overrides"),
    [
        ("hollywood", "simple,simple", []),
        ("standard", "expert,simple", ["hollywood_bonuses=true", "game_target=150"]),
    ],
)
@pytest.mark.first_case
def test_kernel_matches_equal_reference(rule_set, players, overrides):
    """MATCHES whole matches (500 in the full tier, 100 in the fast one), field for field."""
    rules = load_rules(rule_set, overrides)
    pair = parse_players(players)
    kernel, _ = simulate_matches(rules, pair, MATCHES, seed=17)
    names = (pair[0].name, pair[1].name)
    jobs = [(17, s, min(MATCHES, s + 100), rules, names) for s in range(0, MATCHES, 100)]
    with ProcessPoolExecutor(min(4, os.cpu_count() or 1)) as pool:
        expected = [row for block in pool.map(_reference_matches, jobs) for row in block]
    for m, reference in enumerate(expected):
        got = {f: int(kernel[m][f]) for f in MATCH_FIELDS}
        assert got == reference, {f: (got[f], reference[f]) for f in got if got[f] != reference[f]}
    assert (kernel["winner"] >= 0).all()


def test_match_hands_are_recorded_and_add_up():
    rules = load_rules("hollywood")
    matches, hands = simulate_matches(
        rules, parse_players("simple,expert"), 300, seed=2, with_hands=True
    )
    assert len(hands) == matches["hands"].sum()
    reference_hands: list = []
    play_match_reference(2, 7, rules, ("simple", "expert"), hands=reference_hands)
    start = int(matches["hands"][:7].sum())
    recorded = [record_to_dict(r) for r in hands[start : start + matches["hands"][7]]]
    assert recorded == [{f: r[f] for f in HAND_FIELDS} for r in reference_hands]
    # the points of won hands add up over the three games' boxes: every win credits 1 to 3 games
    offset = 0
    for m in matches:
        own = hands[offset : offset + m["hands"]]
        offset += m["hands"]
        for player in (0, 1):
            won = own[own["winner"] == player]
            boxes = sum(m[f"boxes{player}_game{g}"] for g in (1, 2, 3))
            assert len(won) <= boxes <= 3 * len(won)
            assert m[f"points{player}_game1"] <= won["points"].sum()


def test_matches_do_not_depend_on_threads_or_chunks():
    rules = load_rules("hollywood")
    pair = parse_players("expert,simple")
    whole, _ = simulate_matches(rules, pair, 400, seed=9)
    pieces, _ = simulate_matches(rules, pair, 400, seed=9, chunk=37, threads=1)
    tail, _ = simulate_matches(rules, pair, 100, seed=9, first_match=300)
    assert np.array_equal(whole, pieces) and np.array_equal(whole[300:], tail)


def test_duplicate_matches_swap_seats_over_the_same_decks():
    rules = load_rules("hollywood")
    df, hands = head_to_head_matches(
        rules, parse_players("basic,basic"), 200, seed=6, with_hands=True
    )
    assert len(df) == 400 and df["swapped"].sum() == 200
    # identical strategies on swapped seats play identical matches, mirrored
    straight, swapped = df[~df["swapped"]].reset_index(), df[df["swapped"]].reset_index()
    assert (straight["first_dealer"] == swapped["first_dealer"]).all()
    assert (straight["hands"] == swapped["hands"]).all()
    assert (straight["winner"] == swapped["winner"]).all()  # the same seat wins: the other strategy
    assert set(hands.columns) >= {"match", "swapped", "deal"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["match", "--matches", "0"], "matches = 0"),
        (["match", "--rule", "game_target=0"], "game_target = 0"),
        (["match", "--rule", "game_target=-5"], "game_target = -5"),
    ],
)
@pytest.mark.first_case
def test_bad_match_input(args, message):
    result = subprocess.run(
        [sys.executable, "-m", "gin_sim", *args], capture_output=True, text=True
    )
    assert result.returncode == 2 and message in result.stderr and result.stderr.count("\n") == 1


def test_expert_wins_60_percent_of_game_1s_under_standard_rules():
    """The yardstick of the 2021 gin rummy AI competition (game 1 is a plain game to 100):
    the best bots won about 55% to 73% of games against a simple baseline."""
    from gin_sim.experiments.summary import match_summary

    df, _ = head_to_head_matches(
        load_rules("standard"), parse_players("expert,simple"), 5_000, seed=31
    )
    game_1 = match_summary(df, 0)["game 1 won"]
    assert game_1.mean - game_1.half_width > 0.60, game_1


def test_duplicate_matches_keep_the_first_dealer_seat_and_swap_the_strategies():
    """docs/engine.md, docs/command-line.md and ``match --help``: the replay plays the same
    deck sequence with the strategies' seats swapped; the first dealer's seat stays, so the
    other strategy deals the first hand."""
    names = ("expert", "simple")
    df, hands = head_to_head_matches(
        load_rules("hollywood"), parse_players(",".join(names)), 100, seed=6, with_hands=True
    )
    straight, swapped = df[~df["swapped"]].reset_index(), df[df["swapped"]].reset_index()
    assert (straight["first_dealer"] == swapped["first_dealer"]).all()
    first_hands = hands[hands["deal"] == 0]
    a, b = first_hands[~first_hands["swapped"]], first_hands[first_hands["swapped"]]
    assert (a["upcard"].to_numpy() == b["upcard"].to_numpy()).all()  # the same first deck
    assert (a["dealer"].to_numpy() == straight["first_dealer"].to_numpy()).all()
    assert (b["dealer"].to_numpy() == straight["first_dealer"].to_numpy()).all()
    # the strategy in the first dealer's seat: players[seat] straight, players[1 - seat] swapped
    seat = straight["first_dealer"].to_numpy()
    dealt_first = np.array(names)[seat], np.array(names)[1 - seat]
    assert (dealt_first[0] != dealt_first[1]).all()
    assert set(dealt_first[0]) == set(names)  # both strategies deal first in some match


def test_scoreless_ties_are_counted_with_draws_and_labelled_so():
    """R17 with undercut_on_tie = false: a tie scores nothing and the same player deals again
    (R5), so the match record's draws count it; summaries say "drawn or scoreless"."""
    import json

    from gin_sim.experiments.summary import match_length, match_summary_json

    rules = load_rules("hollywood", ["undercut_on_tie=false"])
    df, hands = head_to_head_matches(
        rules, parse_players("simple,simple"), 300, seed=4, with_hands=True
    )
    scoreless = (hands["knocker"] >= 0) & (hands["winner"] < 0)
    assert scoreless.any() and hands["draw"].any()
    per_match = (hands["draw"] | scoreless).groupby([hands["match"], hands["swapped"]]).sum()
    assert (per_match.to_numpy() == df.set_index(["match", "swapped"])["draws"].to_numpy()).all()
    length = match_length(df)
    assert "drawn hands per match" not in length
    assert length["drawn or scoreless hands per match"].mean == pytest.approx(df["draws"].mean())
    document = json.loads(json.dumps(match_summary_json(df, ("simple", "simple"))))["length"]
    # the key of earlier versions stays, with the same figure
    assert document["drawn hands per match"] == document["drawn or scoreless hands per match"]


def test_r23_kernel_tallies_double_the_whole_shutout_tally():
    """R23 (hollywood_bonuses): each game's final tally is points + 25 per box, + 100 for
    the game's winner, and the winner's whole tally (points, box and game bonuses) doubles
    when the loser scored nothing in that game; without bonuses the tally is the points.
    Checked on every game of the kernel's match records, shutouts included."""
    pair = parse_players("expert,simple")
    for bonuses in (True, False):
        rules = load_rules("hollywood", [f"hollywood_bonuses={str(bonuses).lower()}"])
        matches, _ = simulate_matches(rules, pair, 2_000, seed=23)
        shutouts = 0
        for g in (1, 2, 3):
            winner = matches[f"game{g}_winner"].astype(np.int64)
            for p in (0, 1):
                points = matches[f"points{p}_game{g}"].astype(np.int64)
                other = matches[f"points{1 - p}_game{g}"].astype(np.int64)
                boxes = matches[f"boxes{p}_game{g}"].astype(np.int64)
                tally = matches[f"tally{p}_game{g}"].astype(np.int64)
                if not bonuses:
                    assert (tally == points).all()
                    continue
                won = winner == p
                expected = points + 25 * boxes + 100 * won
                shutout = won & (other == 0)
                expected = np.where(shutout, 2 * expected, expected)
                assert (tally == expected).all(), (g, p)
                shutouts += int(shutout.sum())
        assert shutouts > 0 or not bonuses  # the doubling itself is exercised


@pytest.mark.parametrize(
    ("game_format", "text", "rule_set"),
    [("game", "70:85", "standard"), ("hollywood", "85:60,60:30,20:0", "standard")],
)
@pytest.mark.first_case
def test_closing_distance_family_kernel_equals_reference_hand_by_hand(game_format, text, rule_set):
    """``closing_distance`` (knock whenever allowed near a game's end) reads the score in
    the kernel (position slots) and in the reference (the view), and it changes the play."""
    from gin_sim.game.match_start import parse_start
    from gin_sim.players.strategies import load_strategy

    rules = load_rules(rule_set)
    start = parse_start(text, game_format, None, rules)
    closer = load_strategy("expert", ["closing_distance=30", "name=expert-closer"])
    expert = load_strategy("expert")
    kernel, hands = simulate_matches(
        rules, (closer, expert), 30, seed=41, start=start, with_hands=True
    )
    row = 0
    for m in range(30):
        reference_hands: list[dict] = []
        reference = play_match_reference(
            41, m, rules, (closer, expert), hands=reference_hands, start=start
        )
        assert {f: int(kernel[m][f]) for f in MATCH_FIELDS} == reference
        for hand in reference_hands:
            assert record_to_dict(hands[row]) == hand
            row += 1
    _, plain = simulate_matches(rules, (expert, expert), 30, seed=41, start=start, with_hands=True)
    assert len(hands) != len(plain) or not np.array_equal(hands, plain)
