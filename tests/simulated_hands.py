"""Simulated hands and matches step by step, one seat's decisions and hand ends seen (a
helper of the tests that replay them through ``Decider``, ``serve`` and the OpenSpiel bot)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gin_sim.game.hollywood import HollywoodScore
from gin_sim.game.match_start import MatchStart
from gin_sim.game.records import HAND_RECORD, MATCH_RECORD
from gin_sim.game.rules import Rules
from gin_sim.kernels.enums import Phase, PositionSlot, StrategyParam
from gin_sim.kernels.match import credit_nb, load_start_nb, match_key_nb, play_match_nb
from gin_sim.kernels.playout import decide_nb, scratch_nb
from gin_sim.kernels.position import apply_nb, deal_nb, record_nb, set_score_nb
from gin_sim.kernels.rng import player_key_nb, shuffle_deck_nb
from gin_sim.kernels.search import forget_nb, new_hand_nb, showdown_update_nb
from gin_sim.players.calibration import load_undercut_table
from gin_sim.players.decide import (
    _drawn,
    action_words,
    hand_end_of_position,
    score_field,
    view_of_position,
)
from gin_sim.players.search_value import equity_tables
from gin_sim.players.strategies import Strategy, strategies_to_kernel

SEED = 26_2026


@dataclass
class SimulatedHand:
    """One hand of a simulation as the adaptive seat saw it: its decisions (view, action
    in words, numbers drawn before it, its candidates' mean values when it searched), its
    end as plain data, its posterior after."""

    deck: np.ndarray
    dealer: int
    stream_deal: int
    decisions: list[tuple[dict, str, int, list[float]]] = field(default_factory=list)
    end: dict = field(default_factory=dict)
    posterior: list[float] = field(default_factory=list)
    record: np.ndarray | None = None


def play_hand(rules_vector, strategies, table, equity, scratch, deck, dealer, seat, score):
    """``kernels.playout.play_hand_nb`` step by step, the adaptive ``seat``'s decisions seen."""
    streams, masks, state, chains, result, search = scratch
    keys = streams.copy()
    deal_nb(deck, dealer, rules_vector, masks, state)
    new_hand_nb(search, strategies)
    decisions = []
    while state[PositionSlot.PHASE] != Phase.OVER:
        player = int(state[PositionSlot.PLAYER])
        view = draws = None
        if player == seat:
            view = view_of_position(masks, state) | score
            draws = _drawn(int(keys[seat]), streams[seat])
        phase = int(state[PositionSlot.PHASE])
        action = decide_nb(masks, state, rules_vector, strategies, table, equity, streams, search)
        if player == seat:
            means = []
            n, worlds = int(search[13][0]), int(search[13][1])
            if worlds:  # it searched: the figures Decision.candidates reports
                means = [float(search[6][c]) / worlds for c in range(n)]
            decisions.append((view, action_words(int(action), phase), draws, means))
        apply_nb(masks, state, rules_vector, action)
    end = hand_end_of_position(masks, state, seat)
    if end["knocker"] != "none":
        end |= score
    showdown_update_nb(masks, state, rules_vector, strategies, table, search)
    record = np.zeros(1, HAND_RECORD)
    record_nb(masks, state, rules_vector, chains, result, record[0])
    panel = int(strategies[seat, StrategyParam.MC_PANEL_SIZE])
    return decisions, end, list(search[17][seat, :panel]), record[0]


def simulated_match(rules: Rules, pair: tuple[Strategy, Strategy], match: int, seat: int):
    """Match ``match`` of SEED as ``kernels.match.play_match_nb`` plays it (checked against
    it), with the adaptive ``seat``'s decisions, hand ends and posteriors: (match key, hands)."""
    rules_vector, table = rules.to_kernel(), load_undercut_table()
    strategies = strategies_to_kernel(pair, rules)
    equity = equity_tables(pair, rules)
    mk = np.uint64(match_key_nb(np.uint64(SEED), match))
    target = rules.game_target
    totals, boxes = np.zeros((2, 3), np.int64), np.zeros((2, 3), np.int64)
    entered, game_winner = np.zeros((2, 3), np.bool_), np.full(3, -1, np.int64)
    start = MatchStart().to_kernel()
    dealer = load_start_nb(start, mk, target, totals, boxes, entered, game_winner)
    score = HollywoodScore(target=target)
    scratch = scratch_nb()
    forget_nb(scratch[5])
    deck, deck_state = np.empty(52, np.int8), np.empty(1, np.uint64)
    hands = []
    with np.errstate(over="ignore"):
        while (game_winner < 0).any():
            number = len(hands)
            shuffle_deck_nb(mk, number, deck, deck_state)
            for p in (0, 1):
                scratch[0][p] = player_key_nb(mk, number, p)
            set_score_nb(scratch[2], totals, entered, 3)
            hand = SimulatedHand(deck.copy(), dealer, number)
            hand.decisions, hand.end, hand.posterior, hand.record = play_hand(
                rules_vector, strategies, table, equity, scratch, deck, dealer, seat,
                {"score": score_field(score, seat)},
            )  # fmt: skip
            hands.append(hand)
            winner = int(hand.record["winner"])
            if winner >= 0:
                points = int(hand.record["points"])
                credit_nb(totals, boxes, entered, game_winner, winner, points, target)
                score.credit(winner, points)
                dealer = winner
        # The kernel's own match: the same hands (so the steps above are its steps).
        records = np.zeros(len(hands) + 1, HAND_RECORD)
        out = np.zeros(1, MATCH_RECORD)[0]
        played = play_match_nb(
            mk, rules_vector, strategies, table, equity, start, deck, deck_state, scratch_nb(),
            records, True, out,
        )  # fmt: skip
    assert played == len(hands)
    for hand, record in zip(hands, records, strict=False):
        saved = hand.record.copy()
        saved["deal"] = record["deal"]
        assert saved == record
    return int(mk), hands


if __name__ == "__main__":
    # tests/conftest.py runs this once, in the warm-up the tests that call kernels wait for:
    # the kernels this helper calls from Python (decide_nb, play_match_nb) are not called so
    # by gin-sim, so no warm-up group of gin_sim.reports.warmup compiles them, and each
    # worker would.
    from gin_sim.game.rules import load_rules
    from gin_sim.players.strategies import load_strategy

    pair = (load_strategy("expert"), load_strategy("simple"))
    simulated_match(load_rules("standard"), pair, 0, 0)
