"""Game and match equity from a distribution of hand outcomes by dealer (issue 17, part 2).

The model: each hand's outcome (who wins, how many points, or nobody) is drawn from a
distribution that depends only on who deals, independently of the score and of earlier
hands. That holds for every gin-sim player today (they play each hand for its points) up
to the sampling error of the measured distribution. Arrays:

- ``win_points`` int64[K]: the point values a won hand can score (0 allowed);
- ``win_prob`` float64[2, 2, K]: [dealer, winner, k] the probability that ``winner`` wins
  ``win_points[k]`` when ``dealer`` deals; the rest of each dealer's mass scores nothing
  (a drawn hand, R18, or a scoreless tie), after which the same player deals (R5).

Player 0 is "me" (player 1 of the command line). Only numpy and numba here.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gin_sim.kernels.enums import MatchStartSlot
from gin_sim.kernels.match import credit_nb, final_tallies_nb, load_start_nb
from gin_sim.kernels.rng import STREAM_DOMAINS, next_nb, splitmix64_nb

MODEL_DOMAIN = np.uint64(STREAM_DOMAINS["model"])
_UNIT = 1.0 / 9007199254740992.0  # 2**-53: a uint64's top 53 bits as a float in [0, 1)
_S11 = np.uint64(11)
MAX_MODEL_HANDS = 10_000  # as the match kernel: a guard against hands that never score


@njit(cache=True)
def game_equity_nb(target, win_points, win_prob, out):
    """``out`` float64[target, target, 2]: the probability that player 0 wins a game to
    ``target`` from scores (a, b) with ``dealer`` to deal, by exact dynamic programming.

    A state depends only on states with a higher score, except through hands that score
    nothing (the same state) or 0 points (the same scores, the winner deals): those make a
    2-by-2 linear system in the two dealers at each (a, b), solved exactly. NaN where no
    hand ever scores.
    """
    n = win_points.shape[0]
    for a in range(target - 1, -1, -1):
        for b in range(target - 1, -1, -1):
            # V_d = c_d + s_d V_d + z_d0 V_0 + z_d1 V_1: c from hands that move the score,
            # s the scoreless mass, z_dw the mass of 0-point wins by w (w deals next).
            c = np.zeros(2)
            z = np.zeros((2, 2))
            s = np.ones(2)
            for dealer in range(2):
                for k in range(n):
                    x = win_points[k]
                    for winner in range(2):
                        p = win_prob[dealer, winner, k]
                        if p <= 0.0:
                            continue
                        s[dealer] -= p
                        if x == 0:
                            z[dealer, winner] += p
                        elif winner == 0:
                            c[dealer] += p * (1.0 if a + x >= target else out[a + x, b, 0])
                        elif b + x < target:
                            c[dealer] += p * out[a, b + x, 1]
            m00 = 1.0 - s[0] - z[0, 0]
            m01 = -z[0, 1]
            m10 = -z[1, 0]
            m11 = 1.0 - s[1] - z[1, 1]
            det = m00 * m11 - m01 * m10
            if det <= 1e-15:
                out[a, b, 0] = np.nan
                out[a, b, 1] = np.nan
            else:
                out[a, b, 0] = (c[0] * m11 - m01 * c[1]) / det
                out[a, b, 1] = (m00 * c[1] - m10 * c[0]) / det


@njit(cache=True)
def _outcome_nb(states, cumulative, dealer):
    """Draw one hand's outcome for ``dealer``: an index into [winner * K + k], or -1 for
    a hand that scores nothing. ``cumulative`` float64[2, 2K] (per dealer, ascending)."""
    u = np.float64(next_nb(states, 0) >> _S11) * _UNIT
    row = cumulative[dealer]
    if u >= row[row.shape[0] - 1]:
        return -1
    return np.searchsorted(row, u, side="right")


@njit(cache=True)
def model_matches_nb(
    seed, first, start, target, bonuses, win_points, cumulative, step, out, visits
):
    """Matches ``first ..`` under the hand-outcome model, each from ``start``
    (int64[N_MATCH_START_SLOTS]); match m's outcomes depend only on (seed, m).

    ``out`` int64[n, 3]: per match the winner (-1 if unfinished), then player 0's and
    player 1's summed final tallies over the games played (R23 bonuses with ``bonuses``).
    ``visits`` int64[3, 2, G, G] counts each match once per cell of the game it reaches
    (first visit, before a hand): [0] game 1 open, scores bucketed by ``step`` as (mine,
    theirs); [1] game 1 won by player 0 and game 2 open (game 2's scores); [2] game 1 won
    by player 1, game 2 open. The second index: 0 visits, 1 of them won by player 0.
    """
    n = out.shape[0]
    games = start[MatchStartSlot.GAMES]
    cells = visits.shape[2]
    states = np.empty(1, np.uint64)
    seen = np.zeros((3, cells, cells), np.bool_)
    tallies = np.empty((2, 3), np.int64)
    half = win_points.shape[0]
    for i in range(n):
        key = splitmix64_nb(splitmix64_nb(np.uint64(seed) ^ MODEL_DOMAIN) + np.uint64(first + i))
        states[0] = key
        totals = np.zeros((2, 3), np.int64)
        boxes = np.zeros((2, 3), np.int64)
        entered = np.zeros((2, 3), np.bool_)
        game_winner = np.full(3, -1, np.int64)
        dealer = load_start_nb(start, key, target, totals, boxes, entered, game_winner)
        seen[:] = False
        hands = 0
        while (game_winner[:games] < 0).any() and hands < MAX_MODEL_HANDS:
            game = 0 if game_winner[0] < 0 else 1
            if game == 0 or game_winner[1] < 0:
                phase = 0 if game == 0 else 1 + game_winner[0]
                row = min(totals[0, game] // step, cells - 1)
                column = min(totals[1, game] // step, cells - 1)
                seen[phase, row, column] = True
            hands += 1
            outcome = _outcome_nb(states, cumulative, dealer)
            if outcome < 0:
                continue  # R5, R18: the same dealer deals again
            winner = outcome // half
            points = win_points[outcome % half]
            credit_nb(totals, boxes, entered, game_winner, winner, points, target, games)
            dealer = winner  # R5
        won = np.zeros(2, np.int64)
        for game in range(3):
            if game_winner[game] >= 0:
                won[game_winner[game]] += 1
        if games == 1:
            match_winner = game_winner[0]
        else:
            match_winner = 0 if won[0] >= 2 else (1 if won[1] >= 2 else -1)  # R21
        final_tallies_nb(totals, boxes, game_winner, bonuses, tallies)
        out[i, 0] = match_winner
        out[i, 1] = tallies[0, :games].sum()
        out[i, 2] = tallies[1, :games].sum()
        for phase in range(3):
            for r in range(cells):
                for c in range(cells):
                    if seen[phase, r, c]:
                        visits[phase, 0, r, c] += 1
                        if match_winner == 0:
                            visits[phase, 1, r, c] += 1
