"""Hollywood matches (R5, R19 to R23) played out of the hand kernel.

Match ``m`` under ``seed`` has its own key ``mk`` (docs/engine.md, "Matches"): hand
``h`` of the match is deal ``h`` under the seed ``mk`` (its deck and the players'
random streams), and the first dealer is drawn from ``mk``. So a match depends only on
(seed, m), however matches are split over threads or calls.

A match starts from the state in its int64 ``start`` vector (``MatchStartSlot``,
``gin_sim.game.match_start``): each column's points and hands, the first dealer (or -1 to
draw it) and the number of games (3, or 1 for a plain game to the target). The decks do
not depend on the start: hand ``h`` is always deal ``h`` under ``mk``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gin_sim.kernels.enums import MatchStartSlot, RuleParam
from gin_sim.kernels.playout import play_hand_nb, scratch_nb
from gin_sim.kernels.position import set_score_nb
from gin_sim.kernels.rng import (
    STREAM_DOMAINS,
    bounded_nb,
    player_key_nb,
    shuffle_deck_nb,
    splitmix64_nb,
)
from gin_sim.kernels.search import forget_nb
from gin_sim.kernels.work import claimed_nb, run_workers

MATCH_DOMAIN = np.uint64(STREAM_DOMAINS["match"])
MAX_HANDS = 10_000  # a guard against rule sets where hands can score 0 for ever
BOX_BONUS = 25  # R23
GAME_BONUS = 100  # R23
_BLOCK = 16  # the most matches a worker claims at a time (kernels/work.py)


@njit(cache=True)
def match_key_nb(seed, match):
    return splitmix64_nb(splitmix64_nb(np.uint64(seed) ^ MATCH_DOMAIN) + np.uint64(match))


@njit(cache=True)
def credit_nb(totals, boxes, entered, game_winner, player, points, target, games=3):
    """R19, R20: credit a won hand. totals/boxes int64[2, 3], entered bool[2, 3], game_winner
    int64[3]; only the first ``games`` columns are played (1: a plain game to the target)."""
    for game in range(games):
        if entered[player, game] and game_winner[game] < 0:
            totals[player, game] += points
            boxes[player, game] += 1
    for game in range(games):  # R19: also enter the first open game not yet entered
        if not entered[player, game] and game_winner[game] < 0:
            entered[player, game] = True
            totals[player, game] += points
            boxes[player, game] += 1
            break
    for game in range(games):  # R20: several games may end on the same hand
        if game_winner[game] < 0 and totals[player, game] >= target:
            game_winner[game] = player


@njit(cache=True)
def load_start_nb(start, mk, target, totals, boxes, entered, game_winner):
    """Set the columns (zeroed by the caller) from the start vector and return the first
    dealer: the start's, or drawn from the match key ``mk`` (R5)."""
    for player in range(2):
        for game in range(start[MatchStartSlot.GAMES]):
            totals[player, game] = start[MatchStartSlot.POINTS + 3 * player + game]
            boxes[player, game] = start[MatchStartSlot.BOXES + 3 * player + game]
            entered[player, game] = boxes[player, game] > 0  # R19: a credited hand enters
            if totals[player, game] >= target:  # R20: a game that has ended
                game_winner[game] = player
    first_dealer = start[MatchStartSlot.FIRST_DEALER]
    if first_dealer < 0:
        first_dealer = bounded_nb(splitmix64_nb(mk), 2)  # R5: the first dealer at random
    return first_dealer


@njit(cache=True)
def final_tallies_nb(totals, boxes, game_winner, bonuses, tallies):
    """Each game's final tally per player into ``tallies`` (int64[2, 3]); with ``bonuses``
    R23 applies to ended games: 25 a box, 100 to the winner, the winner's whole tally
    doubled when the loser scored no points in the game."""
    for game in range(3):
        tally0 = totals[0, game]
        tally1 = totals[1, game]
        winner = game_winner[game]
        if bonuses and winner >= 0:  # R23, on the final tally only
            tally0 += BOX_BONUS * boxes[0, game]
            tally1 += BOX_BONUS * boxes[1, game]
            if winner == 0:
                tally0 += GAME_BONUS
                if totals[1, game] == 0:
                    tally0 *= 2
            else:
                tally1 += GAME_BONUS
                if totals[0, game] == 0:
                    tally1 *= 2
        tallies[0, game] = tally0
        tallies[1, game] = tally1


@njit(cache=True, inline="always")
def play_match_nb(
    mk,
    rules,
    strategies,
    undercut_table,
    equity,
    start,
    deck,
    state,
    scratch,
    hand_out,
    record_hands,
    out,
):
    """Play one match keyed by ``mk`` from the state ``start`` (int64[N_MATCH_START_SLOTS])
    into the MATCH_RECORD ``out``. Each hand's position carries the score before it, for
    score-aware searchers and their value vectors ``equity`` (``kernels/search.py``).

    ``hand_out`` is a HAND_RECORD array with room for every hand of the match when
    ``record_hands`` (else one scratch row); its ``deal`` field is the hand number.
    Returns the number of hands played.
    """
    target = rules[RuleParam.GAME_TARGET]
    games = start[MatchStartSlot.GAMES]
    totals = np.zeros((2, 3), np.int64)
    boxes = np.zeros((2, 3), np.int64)
    entered = np.zeros((2, 3), np.bool_)
    game_winner = np.full(3, -1, np.int64)
    first_dealer = load_start_nb(start, mk, target, totals, boxes, entered, game_winner)
    dealer = first_dealer
    hand = 0
    draws = 0
    forget_nb(scratch[5])  # a new opponent: no opponent panel remembers the last match's
    while (game_winner[:games] < 0).any() and hand < MAX_HANDS:
        shuffle_deck_nb(mk, hand, deck, state)
        scratch[0][0] = player_key_nb(mk, hand, 0)
        scratch[0][1] = player_key_nb(mk, hand, 1)
        row = hand if record_hands else 0
        record = hand_out[row]
        set_score_nb(scratch[2], totals, entered, games)
        play_hand_nb(deck, dealer, rules, strategies, undercut_table, equity, scratch, record)
        record["deal"] = hand
        winner = record["winner"]
        if winner >= 0:
            points = np.int64(record["points"])
            credit_nb(totals, boxes, entered, game_winner, winner, points, target, games)
            dealer = winner  # R5: the winner deals next
        else:
            draws += 1  # R5, R18: a drawn (or scoreless) hand is dealt again by the same dealer
        hand += 1

    out["first_dealer"] = first_dealer
    out["hands"] = hand
    out["draws"] = draws
    won = np.zeros(2, np.int64)
    for game in range(3):
        if game_winner[game] >= 0:
            won[game_winner[game]] += 1
    out["games_won0"] = won[0]
    out["games_won1"] = won[1]
    if games == 1:  # a plain game: its winner wins
        out["winner"] = game_winner[0]
    else:
        out["winner"] = 0 if won[0] >= 2 else (1 if won[1] >= 2 else -1)  # R21
    out["game1_winner"] = game_winner[0]
    out["game2_winner"] = game_winner[1]
    out["game3_winner"] = game_winner[2]
    tallies = np.empty((2, 3), np.int64)
    final_tallies_nb(totals, boxes, game_winner, rules[RuleParam.HOLLYWOOD_BONUSES] != 0, tallies)
    for game in range(3):
        _store_game_nb(
            out, game, totals[0, game], totals[1, game], tallies[0, game], tallies[1, game],
            boxes[0, game], boxes[1, game],
        )  # fmt: skip
    return hand


@njit(cache=True)
def _store_game_nb(out, game, points0, points1, tally0, tally1, boxes0, boxes1):
    # Record fields need constant names in numba, hence one branch per game.
    if game == 0:
        out["points0_game1"] = points0
        out["points1_game1"] = points1
        out["tally0_game1"] = tally0
        out["tally1_game1"] = tally1
        out["boxes0_game1"] = boxes0
        out["boxes1_game1"] = boxes1
    elif game == 1:
        out["points0_game2"] = points0
        out["points1_game2"] = points1
        out["tally0_game2"] = tally0
        out["tally1_game2"] = tally1
        out["boxes0_game2"] = boxes0
        out["boxes1_game2"] = boxes1
    else:
        out["points0_game3"] = points0
        out["points1_game3"] = points1
        out["tally0_game3"] = tally0
        out["tally1_game3"] = tally1
        out["boxes0_game3"] = boxes0
        out["boxes1_game3"] = boxes1


@njit(cache=True, nogil=True)
def play_matches_nb(
    seed, first_match, rules, strategies, undercut_table, equity, start, hand_offsets,
    hand_out, record_hands, out, counter, block,
):  # fmt: skip
    """Matches ``first_match ..`` into ``out`` (MATCH_RECORD[n]), each from ``start``.

    The hands of match ``i`` go to ``hand_out[hand_offsets[i]:hand_offsets[i + 1]]``.
    With ``record_hands`` those rows hold every hand (offsets from a first run that
    counted them: the play is deterministic); without, one scratch row per match.
    One worker of ``play_matches_parallel``: it plays the blocks of matches it claims from
    ``counter`` (``kernels/work.py``); a match depends only on its key, so which worker
    plays it does not matter.
    """
    n = out.shape[0]
    scratch = scratch_nb()
    deck = np.empty(52, np.int8)
    state = np.empty(1, np.uint64)
    for i in claimed_nb(counter, block, n):
        match = first_match + i
        rows = hand_out[hand_offsets[i] : hand_offsets[i + 1]]
        play_match_nb(
            match_key_nb(seed, match), rules, strategies, undercut_table, equity, start,
            deck, state, scratch, rows, record_hands, out[i],
        )  # fmt: skip
        out[i]["match"] = match


def play_matches_parallel(
    seed, first_match, rules, strategies, undercut_table, equity, start, hand_offsets,
    hand_out, record_hands, out,
):  # fmt: skip
    """``play_matches_nb`` on every thread (``kernels/work.py``): fills ``out`` and the
    hand rows."""
    run_workers(
        play_matches_nb, out.shape[0], _BLOCK, seed, first_match, rules, strategies,
        undercut_table, equity, start, hand_offsets, hand_out, record_hands, out,
    )  # fmt: skip
