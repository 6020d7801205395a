"""``gin-sim review`` (issue 45; docs/review.md): every decision valued from its player's view,
the loss against the best, marks, summaries.

- Known best moves: a gin on offer is the best and a discard that breaks a made meld is
  marked; where the loss is exact (big gin against gin: the bonuses' difference in every
  world, R14, R17) the review finds it with its interval.
- The kernel's values are the plain reference evaluation's, number for number, for the
  actions both value (``reference.advice.evaluate``, the same worlds).
- A game of ``random`` is full of blunders, one of ``mc`` against itself has few.
- A game played through ``play`` with a pipe, saved and reviewed twice (threads differing),
  gives the same values; ``--out`` writes a report that opens with its answer and refuses a
  folder holding anything else.
- The shared hidden-information probe (tests/hidden_info.py) on the review: changing the
  opponent's unseen cards, the stock order or any other hidden field changes no value.
- Bad input is one line, exit 2, and the record is never written.
"""

from __future__ import annotations

import copy
import json
import os

import numpy as np
import pytest
from hidden_info import REFERENCE, probe, view_decision
from tiers import size
from typer.testing import CliRunner

from gin_sim.experiments.review import (
    MARKS,
    Decision,
    ReviewSettings,
    action_code,
    action_of_code,
    deal_valued_actions,
    mark_of,
    place_on_scale,
    simulated_hands,
    summary,
    value_decisions,
)
from gin_sim.game.rng import deck_for_deal
from gin_sim.game.rules import load_rules
from gin_sim.interfaces.advise import complete_view
from gin_sim.interfaces.cli import app
from gin_sim.interfaces.play import parse_move
from gin_sim.players.strategies import load_strategy
from gin_sim.reference.advice import evaluate
from gin_sim.reference.engine import DISCARD, Hand, decisions_reference, start_hand
from gin_sim.reference.search import rollout_value

runner = CliRunner()
HOLLYWOOD = load_rules("hollywood")
QUICK = ReviewSettings(depth=64)
CARDS = [f"{r}{s}" for s in "CDHS" for r in "A23456789TJQK"]
DULL = ("p\nd\n" + "\n".join(CARDS) + "\n") * 400  # pass, draw, the lowest card allowed


def _judged(view: dict, played: str, rules=HOLLYWOOD, settings=QUICK, key: int = 11):
    view = complete_view(view)
    code = action_code(parse_move(played, view["decision"]))
    return value_decisions([Decision(0, 0, 0, view, code)], rules, settings, 0, keys=[key])[0]


def _action(judged, index: int) -> str:
    return judged.candidates[index].action


GIN_ON_OFFER = {
    "decision": "discard",
    "hand": "AS 2S 3S 4H 4D 4C 9H TH JH QH KD",
    "taken": "KD",
    "taken_from_pile": False,
    "pile": "7C 5D 8C",
    "dealer": "opponent",
}


def test_a_gin_on_offer_is_the_best_and_breaking_a_run_instead_is_a_blunder():
    judged = _judged(GIN_ON_OFFER, "9h")  # breaks the run 9H TH JH QH
    assert _action(judged, judged.best) == "gin KD"
    assert judged.mark == "blunder" and judged.loss_low > 6.0, judged
    # Every legal action is a candidate (R11, R12): 11 discards, and a knock with each
    # card that leaves deadwood 10 or less: KD (gin), and 9H or QH of the run (KD left).
    actions = {c.action for c in judged.candidates}
    assert {f"discard {c}" for c in GIN_ON_OFFER["hand"].split()} <= actions
    assert {"gin KD", "knock 9H", "knock QH"} <= actions
    assert len(actions) == len(judged.candidates) == 11 + 3
    # The gin played is the best: no loss, nothing marked.
    best = _judged(GIN_ON_OFFER, "k kd")
    assert best.loss == 0.0 and best.mark == "fine"


def test_a_discard_from_a_made_set_is_marked_and_the_best_keeps_the_melds():
    view = {
        "decision": "discard",
        "hand": "AS 2S 3S 4H 4D 4C 9H TH JH KD QC",
        "taken": "QC",
        "taken_from_pile": False,
        "pile": "7C",
        "dealer": "opponent",
    }
    judged = _judged(view, "4h")  # breaks the set of fours
    best = _action(judged, judged.best)
    assert best.split()[-1] in ("KD", "QC"), best  # the deadwood goes (with or without a knock)
    assert judged.mark in ("mistake", "blunder") and judged.loss_low > 0, judged


def test_the_loss_of_gin_against_big_gin_is_exact():
    """Big gin and gin end the hand at once with the same defender's cards, no layoffs
    (R13 to R15): in every world the difference is big_gin_bonus - gin_bonus (R17)."""
    rules = load_rules("hollywood", ["big_gin_bonus=31"])
    view = {
        "decision": "discard",
        "hand": "AS 2S 3S 4S 4H 4D 4C 9H TH JH QH",
        "taken": "QH",
        "taken_from_pile": False,
        "pile": "7C",
        "dealer": "me",
    }
    exact = rules.big_gin_bonus - rules.gin_bonus
    judged = _judged(view, "k qh", rules)
    assert _action(judged, judged.best) == "big gin"
    assert judged.loss_low <= exact <= judged.loss_high
    assert judged.loss == pytest.approx(exact, abs=1e-9) and judged.mark == mark_of(exact, exact)
    # With the big gin bonus at 0 (hollywood), big gin is not a candidate (R14).
    assert "big gin" not in {c.action for c in _judged(view, "k qh").candidates}


def test_review_values_are_the_reference_evaluations():
    """``reference.advice.evaluate`` values a position's knock and plain discards (or its
    two choices at an offer or a draw) in the same worlds of the same stream: its sums are
    the review's means times the worlds, action for action."""
    settings = ReviewSettings(depth=12)
    searcher = settings.searcher("hand")
    compared = 0
    for deal in range(size(fast=2, full=6)):
        for number, (situation, action) in enumerate(
            decisions_reference(5, deal, HOLLYWOOD, ("expert", "simple"))
        ):
            if number % 5 != 1:  # a few decisions of each hand: the reference is slow
                continue
            from gin_sim.reference.views import view_from_situation

            view = view_from_situation(situation)
            key = 1000 * deal + number
            decision = Decision(deal, number, situation.player, view, action_code(action))
            judged = value_decisions([decision], HOLLYWOOD, settings, 0, keys=[key])[0]
            means = {c.code: c.mean for c in judged.candidates}
            expected = evaluate(situation, searcher, settings.select, key, HOLLYWOOD)
            for act, total in zip(expected.actions, expected.sums, strict=True):
                assert means[action_code(act)] * settings.depth == pytest.approx(total, abs=1e-9)
                compared += 1
    assert compared >= 20


def test_deal_values_play_the_deals_own_cards_as_the_reference_engine():
    """The scale's check on the deal's own cards (docs/review.md, "The scale"): its first
    order plays the opponent's real hand and the real stock, so each action's points are
    the reference engine's playout of those cards; the other orders play the same stock
    cards in other orders (some value differs)."""
    expert = load_strategy("expert").for_rules(HOLLYWOOD)
    rollout = load_strategy("simple").for_rules(HOLLYWOOD)  # the player's later moves
    settings = ReviewSettings(depth=8, rollout="simple")
    compared, moved = 0, False
    for hand in simulated_hands(7, 0, size(fast=2, full=5), HOLLYWOOD, (expert, expert)):
        played = start_hand(deck_for_deal(7, hand.hand), HOLLYWOOD, hand.dealer, deal=hand.hand)
        for decision, codes, points in deal_valued_actions(
            hand, 7, HOLLYWOOD, settings, orders=3, opponent="expert"
        ):
            phase = DISCARD if decision.phase == "discard" else ""
            situation = played.situation(played.view())
            table = played.table
            stock = list(table.deck[table.stock_pos :])
            policies = [expert, expert]
            policies[decision.seat] = rollout
            for c, code in enumerate(codes):
                expected = rollout_value(
                    situation, table.hands[1 - decision.seat], stock,
                    action_of_code(int(code), phase), (policies[0], policies[1]),
                )  # fmt: skip
                assert points[0, c] == expected
                compared += 1
            moved = moved or bool((points[1:] != points[0]).any())
            assert action_code(action_of_code(decision.played, phase)) == decision.played
            played.apply(action_of_code(decision.played, phase))
    assert compared >= 50 and moved


def _game_review(players: tuple[str, str], deals: int, depth: int = 64):
    pair = (load_strategy(players[0]), load_strategy(players[1]))
    hands = list(simulated_hands(3, 0, deals, HOLLYWOOD, pair))
    decisions = [d for h in hands for d in h.decisions if d.seat == 0]
    return summary(value_decisions(decisions, HOLLYWOOD, ReviewSettings(depth=depth), 3))


def test_random_play_is_full_of_blunders_and_mc_makes_few():
    deals = size(fast=2, full=8)
    wild = _game_review(("random", "random"), deals)
    strong = _game_review(("mc", "mc"), deals)
    assert wild.marks["blunder"] >= 0.1 * wild.decisions, wild.marks
    assert strong.marks["blunder"] <= 0.02 * strong.decisions, strong.marks
    assert wild.error_low > strong.error_high, (wild, strong)


def test_a_piped_game_reviewed_twice_gives_the_same_values_and_a_report(tmp_path):
    record = tmp_path / "hand.json"
    played = runner.invoke(
        app, ["play", "--opponent", "simple", "--format", "game", "--seed", "5", "--save",
              str(record)], input=DULL,
    )  # fmt: skip
    assert played.exit_code == 0, played.output
    saved = record.read_bytes()
    first = runner.invoke(app, ["review", str(record), "--json", "--depth", "32"])
    again = runner.invoke(app, ["review", str(record), "--json", "--depth", "32", "--threads", "1"])
    assert first.exit_code == 0, first.output
    assert first.stdout == again.stdout
    document = json.loads(first.stdout)
    assert [p["player"] for p in document["players"]] == [1]  # the person, by default
    assert document["format"] == "game" and len(document["decisions"]) > 20
    # A game has a score: each loss has its game-equity figure too.
    assert all(d["equity_loss"] is not None for d in document["decisions"])
    text = runner.invoke(app, ["review", str(record), "--depth", "32", "--player", "both"])
    assert text.exit_code == 0 and "player 2 (simple):" in text.stdout
    out = tmp_path / "review"
    written = runner.invoke(app, ["review", str(record), "--depth", "32", "--out", str(out)])
    assert written.exit_code == 0, written.output
    report = (out / "report.md").read_text()
    assert report.startswith("# Review: ") and "lost" in report.split("\n")[2]
    assert (out / "loss.png").stat().st_size > 0 and (out / "decisions.csv").exists()
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    refused = runner.invoke(app, ["review", str(record), "--depth", "32", "--out", str(foreign)])
    _assert_one_line_error(refused, "notes.txt")
    assert (foreign / "notes.txt").read_text() == "mine"
    assert record.read_bytes() == saved


def _reviewed_view(view: dict, seat: int, played: int, leak: int) -> tuple:
    decision = Decision(0, 0, seat, view, played)
    judged = value_decisions([decision], HOLLYWOOD, ReviewSettings(depth=8), 0, keys=[7 ^ leak])
    j = judged[0]
    return (
        tuple((c.action, c.mean, c.low, c.high) for c in j.candidates),
        j.best, j.loss, j.loss_low, j.loss_high, j.mark,
    )  # fmt: skip


def _review_positions() -> list[Hand]:
    """Copies of the hands of a few deals at each decision of seat 0 (``expert`` against
    ``simple``)."""
    pair = (load_strategy("expert"), load_strategy("simple"))
    positions = []
    for deal in range(size(fast=3, full=8)):
        hand = Hand.dealt(deck_for_deal(9, deal), HOLLYWOOD, pair, deal % 2, 9, deal, None)
        while hand.phase != "over":
            if hand.to_move == 0:
                positions.append(copy.deepcopy(hand))
            hand.apply(hand.decide())
    return positions


def test_hidden_cards_and_the_stock_order_change_no_value_of_a_review():
    """The probe of tests/hidden_info.py on the review (through the view, as the review
    reads a record): every field hidden from the player varied, no figure changes; a
    peeking review (the field's content mixed into its worlds' stream) is caught."""
    probed = probe(
        view_decision(_reviewed_view), _review_positions(), 5, REFERENCE, least_varied=10,
        least_caught=5,
    )  # fmt: skip
    assert len(probed.answers) >= 20


def _assert_one_line_error(result, *fragments: str) -> None:
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    stderr = result.stderr
    assert stderr.startswith("error: ") and stderr.count("\n") == 1, stderr
    for fragment in fragments:
        assert fragment in stderr, stderr


@pytest.fixture(scope="module")
def hand_record(tmp_path_factory):
    path = tmp_path_factory.mktemp("record") / "hand.json"
    played = runner.invoke(
        app, ["play", "--opponent", "simple", "--format", "hand", "--seed", "4", "--save",
              str(path)], input=DULL,
    )  # fmt: skip
    assert played.exit_code == 0, played.output
    return path


def _edited(document: dict) -> dict:
    moves = document["hands"][0]["moves"]
    i = next(k for k, m in enumerate(moves) if m.startswith("discard"))
    moves[i] = "discard " + next(c for c in CARDS if f"discard {c}" not in moves)
    return document


@pytest.mark.parametrize(
    ("make", "args", "message"),
    [
        (lambda d, t: t.write_text("hello"), [], "is not a game record: not JSON"),
        (lambda d, t: t.write_text('{"kind": "x"}'), [], "is not a game record of gin-sim play"),
        (lambda d, t: t.write_text(json.dumps(d)[:200]), [], "is not a game record: not JSON"),
        (lambda d, t: t.write_text(json.dumps(_edited(d))), [], "hand 1"),
        (
            lambda d, t: t.write_text(json.dumps(d | {"points": [[99], [0]]})),
            [],
            "the record was edited",
        ),
        (None, ["--player", "3"], "--player '3': no such player"),
        (None, ["--player", "bob"], "no such player: allowed 1, 2, both"),
        (None, ["--depth", "2"], "--depth 2: allowed 8 to"),
        (None, ["--seed", "1"], "a record holds its own game"),
        (
            lambda d, t: t.write_text(
                json.dumps(
                    d
                    | {"hands": [], "finished": False, "points": [[0, 0, 0], [0, 0, 0]]}
                    | {"unfinished": d["hands"][0] | {"moves": []}}
                )
            ),
            [],
            "player 1 made no decision in this game: nothing to review",
        ),
    ],
)
def test_bad_records_and_options_are_one_line_errors(hand_record, tmp_path, make, args, message):
    path = hand_record
    before = path.read_bytes(), os.stat(path).st_mtime_ns
    if make is not None:
        path = tmp_path / "other.json"
        make(json.loads(before[0]), path)
    _assert_one_line_error(runner.invoke(app, ["review", str(path), *args]), message)
    assert (hand_record.read_bytes(), os.stat(hand_record).st_mtime_ns) == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seed", "1", "--deal", "-1"], "--deal -1 out of range"),
        (["--seed", "1", "--deal", str(10**19)], "out of range"),
        (["--seed", "-3", "--deal", "0"], "seed"),
        (["--seed", "1"], "review needs a record"),
        (["--seed", "1", "--deal", "0", "--players", "simple,nobody"], "nobody"),
        (["--seed", "1", "--deal", "0", "--player", "3"], "no such player"),
        (["--seed", "1", "--deal", "0", "--hands", "0"], "--hands = 0"),
    ],
)
def test_bad_deals_are_one_line_errors(args, message):
    _assert_one_line_error(runner.invoke(app, ["review", *args, "--depth", "8"]), message)


def test_marks_need_an_interval_that_excludes_zero_and_the_scale_reads_in_words():
    assert [mark_of(loss, 0.1) for loss in (0.5, 1.0, 3.0, 6.0, 40.0)] == [
        "fine", "inaccuracy", "mistake", "blunder", "blunder",
    ]  # fmt: skip
    assert mark_of(40.0, 0.0) == mark_of(40.0, -1.0) == MARKS[0]  # a close call
    assert mark_of(40.0, float("nan")) == "fine"
    scale = [("mc", 0.2), ("expert", 0.6), ("simple", 1.4), ("random", 9.0)]
    assert place_on_scale(1.0, scale) == "between `expert` (0.60) and `simple` (1.40)"
    assert place_on_scale(0.62, scale) == "about `expert` (0.60)"
    assert place_on_scale(0.05, scale).startswith("fewer errors than `mc`")
    assert place_on_scale(12.0, scale).startswith("more errors than `random`")
    assert np.isnan(summary([]).error_rate)


def test_the_tutor_stops_a_blunder_through_a_pipe_and_plays_it_when_confirmed(tmp_path):
    """``play --tutor``: breaking the run 4S 5S 6S 7S is named with the better move and the
    loss, and asked again; ``n`` chooses again (5H, the best, passes without a word);
    ``y`` plays the move named. Without --tutor the same input plays at once."""
    args = ["play", "--format", "hand", "--seed", "4", "--opponent", "simple", "--tutor"]
    result = runner.invoke(app, args, input="p\n4s\nn\n5h\nq\n")
    lines = result.stdout.splitlines()
    tutor = [line for line in lines if "tutor:" in line]
    assert len(tutor) == 1 and "discard 4S looks like a blunder: discard 5H is worth" in tutor[0]
    assert "You discard 5H." in lines and "You discard 4S." not in lines
    record = tmp_path / "hand.json"
    confirmed = runner.invoke(app, [*args, "--save", str(record)], input="p\n4s\ny\nq\n")
    assert "You discard 4S." in confirmed.stdout.splitlines()
    assert json.loads(record.read_text())["unfinished"]["moves"][:3] == [
        "decline", "decline", "discard 4S",
    ]  # fmt: skip
    plain = runner.invoke(app, args[:-1], input="p\n4s\nq\n")
    assert "tutor:" not in plain.stdout and "You discard 4S." in plain.stdout.splitlines()


def test_the_published_scale_ranks_random_last_and_the_review_reads_it(tmp_path):
    """configs/models/review-scale.csv (``gin-sim review --scale``, docs/review.md): every
    named strategy once, ``random`` with the most errors, the searchers below the family's
    weakest; a review prints where a rate falls on it."""
    from gin_sim.experiments.review import SCALE_STRATEGIES, load_scale

    scale = load_scale()
    names = [name for name, _ in scale]
    assert sorted(names) == sorted(SCALE_STRATEGIES)
    rates = dict(scale)
    assert names[-1] == "random" and rates["random"] > 3 * rates["simple"]
    assert max(rates["mc"], rates["mc-fixed"]) < min(rates["simple"], rates["basic"])
    # the family in the order of its head-to-head strength, advised playing as expert
    assert rates["simple"] > rates["basic"] > rates["expert"] == rates["advised"]
    assert rates["expert"] > max(rates["mc"], rates["mc-fixed"])
    result = runner.invoke(
        app, ["review", "--seed", "3", "--deal", "0", "--players", "random,mc", "--depth", "32",
              "--player", "1"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    placed = [line for line in result.stdout.splitlines() if line.startswith("  error rate ")]
    assert len(placed) == 1 and "points per decision: " in placed[0] and "`" in placed[0]


def test_batches_keys_and_scores_change_nothing_they_should_not():
    """Decisions valued together in batches are valued as each alone with its own key; a
    view with a score gets equity figures in a game or a match (from different tables),
    none in a single hand or without a score."""
    pair = (load_strategy("simple"), load_strategy("expert"))
    hands = list(simulated_hands(8, 0, 4, HOLLYWOOD, pair))
    decisions = [d for h in hands for d in h.decisions][:40]
    assert len(decisions) == 40  # more than a batch of 32
    keys = list(range(100, 140))
    settings = ReviewSettings(depth=8)
    together = value_decisions(decisions, HOLLYWOOD, settings, 0, keys=keys)
    steps = []
    by_seed = value_decisions(decisions, HOLLYWOOD, settings, 0, progress=steps.append)
    assert sum(steps) == 40 and len(steps) == 2
    for i in (0, 31, 32, 39):
        alone = value_decisions([decisions[i]], HOLLYWOOD, settings, 0, keys=[keys[i]])[0]
        assert alone == together[i]
        again = value_decisions([decisions[i]], HOLLYWOOD, settings, 0)[0]
        assert again == by_seed[i]
    view = complete_view(
        GIN_ON_OFFER | {"score": {"format": "hollywood", "columns": "60:40,20:0,0:0"}}
    )
    decision = Decision(0, 0, 0, view, action_code(parse_move("9h", "discard")))
    game, match, hand = (
        value_decisions([decision], HOLLYWOOD, settings, 0, f, keys=[5])[0]
        for f in ("game", "hollywood", "hand")
    )
    assert not np.isnan(game.equity_loss) and not np.isnan(match.equity_loss)
    assert game.candidates[0].equity != match.candidates[0].equity
    assert np.isnan(hand.equity_loss) and np.isnan(hand.candidates[0].equity)
    plain = Decision(0, 0, 0, complete_view(GIN_ON_OFFER), decision.played)
    assert np.isnan(
        value_decisions([plain], HOLLYWOOD, settings, 0, "game", keys=[5])[0].equity_loss
    )
    assert game.loss == hand.loss  # the points do not depend on the format


@pytest.mark.parametrize("rules", ["hollywood", "standard"])
def test_the_scale_judges_every_strategy_at_the_same_positions(rules):
    """``measure_scale``: the positions are every decision of `expert` against `expert`
    on the deals, both seats, valued once; each strategy's move there (a fresh
    ``Decider`` memory) is judged as the review judges a move, so every strategy has the
    same positions per deal. `expert` asked at `expert`'s own positions plays what was
    played (a family player decides by its cards alone), so its losses are the review of
    those hands; the points are each strategy's own hands against `expert`."""
    from dataclasses import replace

    from gin_sim.experiments.review import _action_of, action_code, measure_scale
    from gin_sim.players.decide import Decider

    rule_set = load_rules(rules)  # expert adapts to standard's undercut bonus ([[adapt]])
    settings = ReviewSettings(depth=8)
    steps = []
    names = ("random", "simple", "expert", "mc-fixed")
    frame = measure_scale(rule_set, names, "expert", 4, 3, settings, progress=steps.append)
    assert list(frame["strategy"]) == [n for n in names for _ in range(3)]
    assert list(frame["deal"]) == [0, 1, 2] * len(names) and sum(steps) == 3 * (1 + len(names))
    experts = (load_strategy("expert"), load_strategy("expert"))
    hands = list(simulated_hands(4, 0, 3, rule_set, experts))
    on_deal = {
        h.hand: [p for _, _, p in deal_valued_actions(h, 4, rule_set, settings, opponent="expert")]
        for h in hands
    }
    for row in frame.itertuples(index=False):
        hand = hands[row.deal]
        assert row.decisions == len(hand.decisions)  # both seats, the same for every strategy
        if row.strategy == "expert":
            judged = value_decisions(hand.decisions, rule_set, settings, 4)
        else:
            decider = Decider(load_strategy(row.strategy), rule_set)
            judged = []
            for d in hand.decisions:
                chosen = decider.decide(
                    d.view, 4, deal=d.hand, seat=d.seat, memory=decider.memory(),
                    hand_number=d.hand,
                )  # fmt: skip
                move = action_code(_action_of(chosen, "discard" if d.phase == "discard" else ""))
                (j,) = value_decisions([replace(d, played=move)], rule_set, settings, 4)
                judged.append(j)
        assert row.loss == pytest.approx(sum(j.loss for j in judged))
        # On the deal's own cards: the review's best less the move, the same moves.
        truth = on_deal[row.deal]
        expected = sum(
            p[:, j.best].mean() - p[:, j.played].mean() for p, j in zip(truth, judged, strict=True)
        )
        assert row.deal_loss == pytest.approx(expected)
        assert row.blunders == sum(j.mark == "blunder" for j in judged)
        pair = (load_strategy(row.strategy), load_strategy("expert"))
        (own,) = simulated_hands(4, row.deal, 1, rule_set, pair)
        winner, points = own.record["winner"], own.record["points"]
        assert row.points == (0 if winner < 0 else points if winner == 0 else -points)
    losses = frame.groupby("strategy")["loss"].sum()
    assert losses["random"] > losses["expert"]
