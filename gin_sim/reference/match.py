"""The reference Hollywood match: hands from the reference engine, scored by
``gin_sim.game.hollywood`` (R5, R19 to R23), keyed as docs/engine.md ("Matches") says.

>>> from gin_sim.game.rules import Rules
>>> record = play_match_reference(seed=3, match=0, rules=Rules())
>>> record["winner"] in (0, 1) and record["hands"] >= 3
True
"""

from __future__ import annotations

import copy
from typing import Any

from gin_sim.game.hollywood import N_GAMES, HollywoodScore
from gin_sim.game.match_start import MatchStart
from gin_sim.game.rng import MASK64, bounded, deck_for_deal, splitmix64
from gin_sim.game.rules import Rules, load_rules
from gin_sim.kernels.rng import STREAM_DOMAINS
from gin_sim.reference.engine import play_hand_reference

MATCH_KEY = STREAM_DOMAINS["match"]
MAX_HANDS = 10_000  # docs/engine.md: the guard against matches that could never end


def match_key(seed: int, match: int) -> int:
    return splitmix64((splitmix64((seed & MASK64) ^ MATCH_KEY) + match) & MASK64)


def starting_score(start: MatchStart, target: int) -> HollywoodScore:
    """The columns of a start state: a credited hand has entered its game (R19), a score
    at the target has ended it (R20)."""
    score = HollywoodScore(target=target, games=start.games)
    for player in (0, 1):
        for game in range(N_GAMES):
            score.totals[player][game] = start.points[player][game]
            score.boxes[player][game] = start.boxes[player][game]
            score.entered[player][game] = start.boxes[player][game] > 0
        for game in range(start.games):
            if start.points[player][game] >= target:
                score.game_winner[game] = player
    return score


def play_match_reference(
    seed: int,
    match: int,
    rules: Rules | str,
    players: tuple[Any, Any] = ("simple", "simple"),
    hands: list[dict[str, int | bool]] | None = None,
    start: MatchStart | None = None,
) -> dict[str, int]:
    """One match as a dict of MATCH_RECORD fields; ``hands`` (a list) receives each hand's
    record. ``start``: the score state it plays on from (None: a whole match from 0)."""
    rule_set = load_rules(rules)
    key = match_key(seed, match)
    state = start if start is not None else MatchStart()
    state.validate(rule_set)
    score = starting_score(state, rule_set.game_target)
    first_dealer = state.first_dealer
    if first_dealer is None:
        first_dealer = bounded(splitmix64(key), 2)  # R5: the first dealer at random
    dealer = first_dealer
    played = draws = 0
    panels: list[Any] = [None, None]  # opponent panels kept across the hands (panel_memory)
    while not score.finished and played < MAX_HANDS:
        # Hand h of the match is deal h under the match's key (deck and random streams).
        record = play_hand_reference(
            deck_for_deal(key, played),
            rule_set,
            players,
            dealer,
            seed=key,
            deal=played,
            score=copy.deepcopy(score),  # the players see the score; they cannot change it
            panels=panels,
        )
        if hands is not None:
            hands.append(record)
        if record["winner"] >= 0:
            score.credit(int(record["winner"]), int(record["points"]))
            dealer = int(record["winner"])  # R5: the winner deals the next hand
        else:
            draws += 1  # R5, R18: the same dealer deals again
        played += 1
    tallies = score.tallies(rule_set.hollywood_bonuses)
    result: dict[str, int] = {
        "match": match,
        "first_dealer": first_dealer,
        "winner": score.match_winner,
        "games_won0": score.games_won(0),
        "games_won1": score.games_won(1),
        "hands": played,
        "draws": draws,
    }
    for game in range(N_GAMES):
        result[f"game{game + 1}_winner"] = score.game_winner[game]
        for player in (0, 1):
            result[f"points{player}_game{game + 1}"] = score.totals[player][game]
            result[f"tally{player}_game{game + 1}"] = tallies[player][game]
            result[f"boxes{player}_game{game + 1}"] = score.boxes[player][game]
    return result
