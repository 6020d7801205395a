"""The Hollywood match equity a score-aware searcher reads (``value = "match"``).

The three columns of a match move together: every hand a player wins is credited to each
open game they have entered (R19), so the columns are far from independent. This module
computes the chance of winning the match by dynamic programming over the joint state of
the three columns, under the model of ``kernels/equity.py`` (hands independent given the
dealer; ``win_points``, ``win_prob`` as there), on a lattice of scores:

- Scores are multiples of ``step`` (the lattice); a won hand of ``x`` points moves every
  column it credits by ``x // step`` steps, or one step more with probability
  ``(x % step) / step``: the mean move is exact, and since all the columns a hand credits
  move by the same number of steps, the columns still move together.
- The match passes through three phases, always in this order (a player's later column
  never exceeds an earlier open one, so game 1 ends first, then game 2): **A**, game 1 open
  (each player: how many games entered, 0 to 3, and the entered columns, non-increasing);
  **B**, game 1 won by ``w1``, games 2 and 3 open (games 2 and 3 entered, 0 to 2, and
  their columns); **C**, game 3 alone, whose chance is the exact game table.
- A hand changes only its winner's columns, so each player's own moves are tabulated once
  (``player_moves_nb``); a state depends only on states where some player has moved on,
  except through hands that move nobody (nothing scored, or a 0-step win by a player who
  has entered every open game), which make a 2-by-2 system in the dealer, solved exactly.

The lookup (``match_equity_nb``) takes real scores: it interpolates multilinearly between
the lattice points around each entered open column (a column in the lattice's last step
reads its last point). ``bench/match_value_check.py`` compares the result with the Monte
Carlo match model (``kernels.equity.model_matches_nb``), which credits real points.

All the tables of one searcher travel in one flat float64 vector (``VALUE_HEADER`` slots,
then the parts at the offsets the header gives), so the kernels' ``equity`` argument is
float64[2, N]: one such vector per seat (zeros for a seat that reads none).
"""

from __future__ import annotations

import numpy as np
from numba import njit

# Header slots of a value vector.
H_TARGET = 0  # the game target T
H_STEP = 1  # lattice step
H_CELLS = 2  # G: lattice points per column, 0 .. G-1 (G * step >= T)
H_STATES_A = 3  # per-player states in phase A
H_STATES_B = 4  # per-player states in phase B
H_GAME = 5  # offset of the game table float64[T, T, 2]: [mine, theirs, 0 when I deal]
H_INDEX_A = 6  # offset of phase A's state index float64[4, G, G, G] (-1: no state)
H_INDEX_B = 7  # offset of phase B's state index float64[3, G, G]
H_VALUE_A = 8  # offset of phase A's values float64[2 side, nA mine, nA theirs]
H_VALUE_B = 9  # offset of phase B's values float64[2 w1, 2 side, nB mine, nB theirs]
VALUE_HEADER = 16
STAYS, ENDS_ONE, ENDS_TWO = 0, 1, 2  # a player's move: same phase, ends a game, ends two


@njit(cache=True)
def lattice_states_nb(cells, columns):
    """A player's states with ``columns`` open columns (3 in phase A, 2 in phase B): rows
    (entered, lattice point of each column), entered columns non-increasing, the rest 0,
    and the index float64[columns + 1, G, ...] of each (-1 elsewhere)."""
    count = 0
    for entered in range(columns + 1):
        count += _combinations(cells, entered)
    states = np.zeros((count, 4), np.int64)
    index = -np.ones((columns + 1) * cells**columns)
    n = 0
    for entered in range(columns + 1):
        for i in range(cells if entered >= 1 else 1):
            for j in range(i + 1 if entered >= 2 else 1):
                for k in range(j + 1 if entered >= 3 else 1):
                    states[n, 0] = entered
                    states[n, 1] = i
                    states[n, 2] = j
                    states[n, 3] = k
                    index[_flat(entered, i, j, k, cells, columns)] = n
                    n += 1
    return states, index


@njit(cache=True)
def _combinations(cells, entered):
    """How many non-increasing ``entered``-tuples of lattice points 0 .. cells-1."""
    count = 1
    for j in range(entered):
        count = count * (cells + j) // (j + 1)
    return count


@njit(cache=True, inline="always")
def _flat(entered, i, j, k, cells, columns):
    if columns == 3:
        return ((entered * cells + i) * cells + j) * cells + k
    return (entered * cells + i) * cells + j


@njit(cache=True)
def player_moves_nb(states, index, cells, columns):
    """Where a win of ``q`` steps (0 .. G) takes each state: ``kind`` int64[n, G + 1]
    (STAYS, ENDS_ONE: the first open game ends, ENDS_TWO: two end, the match's next phase
    decided for this player) and ``to`` int64[n, G + 1]: the new state (STAYS), the
    winner's state in the next phase (ENDS_ONE; in phase B: its game 3 lattice point).
    R19: the win credits every entered column, then enters the next one with the same
    points; R20: a column at G or beyond has ended (every later one is below it)."""
    n = states.shape[0]
    kind = np.zeros((n, cells + 1), np.int64)
    to = np.zeros((n, cells + 1), np.int64)
    column = np.zeros(3, np.int64)
    for s in range(n):
        for q in range(cells + 1):
            entered = states[s, 0]
            for c in range(3):
                column[c] = states[s, 1 + c] + q if c < entered else 0
            if entered < columns:
                column[entered] = q
                entered += 1
            if column[0] < cells:
                kind[s, q] = STAYS
                to[s, q] = index[_flat(entered, column[0], column[1], column[2], cells, columns)]
            elif entered >= 2 and column[1] >= cells:
                kind[s, q] = ENDS_TWO
            else:
                kind[s, q] = ENDS_ONE
                if columns == 3:
                    to[s, q] = next_phase_state_nb(entered, column[1], column[2], cells)
                else:
                    to[s, q] = column[1] if entered >= 2 else 0
    return kind, to


@njit(cache=True)
def next_phase_state_nb(entered, second, third, cells):
    """A phase A player's state once game 1 has ended: its phase B state index (the
    layout of ``lattice_states_nb(cells, 2)``), from games 2 and 3 as they stand."""
    if entered <= 1:
        return 0
    if entered == 2:
        return 1 + second
    # entered == 3: after the one state with none and the G with game 2 only
    return 1 + cells + second * (second + 1) // 2 + third


@njit(cache=True)
def step_probabilities_nb(win_points, win_prob, step, cells):
    """float64[2, 2, G + 1]: [dealer, winner, q] the chance that ``winner`` wins and moves
    ``q`` lattice steps (``q = G``: G or more) when ``dealer`` deals."""
    out = np.zeros((2, 2, cells + 1))
    for dealer in range(2):
        for winner in range(2):
            for k in range(win_points.shape[0]):
                p = win_prob[dealer, winner, k]
                if p <= 0.0:
                    continue
                low = win_points[k] // step
                up = (win_points[k] % step) / step
                out[dealer, winner, min(low, cells)] += p * (1.0 - up)
                out[dealer, winner, min(low + 1, cells)] += p * up
    return out


@njit(cache=True)
def _solve_nb(c, z, s):
    """V_d = c_d + s_d V_d + z_d0 V_0 + z_d1 V_1 for the two dealers (NaN if singular)."""
    m00 = 1.0 - s[0] - z[0, 0]
    m01 = -z[0, 1]
    m10 = -z[1, 0]
    m11 = 1.0 - s[1] - z[1, 1]
    det = m00 * m11 - m01 * m10
    if det <= 1e-15:
        return np.nan, np.nan
    return (c[0] * m11 - m01 * c[1]) / det, (m00 * c[1] - m10 * c[0]) / det


@njit(cache=True)
def _potential_order(states):
    """States by decreasing (entered + lattice points): a win moves its winner to a state
    of higher potential unless it moves nobody."""
    potential = states[:, 0] + states[:, 1] + states[:, 2] + states[:, 3]
    return np.argsort(-potential, kind="mergesort")


@njit(cache=True)
def phase_b_values_nb(moves, game, step, out):
    """``out`` float64[2 w1, 2 side, nB, nB]: my chance of winning the match in phase B
    (game 1 won by ``w1``: 0 me), with ``side`` 0 when I deal next. ``moves`` =
    (states, kind, to, probabilities), ``game`` the game table at real scores."""
    states, kind, to, prob = moves
    n = states.shape[0]
    cells = prob.shape[2] - 1
    order = _potential_order(states)
    scoreless = 1.0 - prob.sum(axis=2).sum(axis=1)
    c = np.zeros(2)
    z = np.zeros((2, 2))
    for w1 in range(2):
        for a in range(n):
            mine = order[a]
            for b in range(n):
                theirs = order[b]
                for dealer in range(2):
                    c[dealer] = 0.0
                    z[dealer, 0] = 0.0
                    z[dealer, 1] = 0.0
                    for winner in range(2):
                        mover = mine if winner == 0 else theirs
                        for q in range(cells + 1):
                            p = prob[dealer, winner, q]
                            if p <= 0.0:
                                continue
                            k = kind[mover, q]
                            if k == STAYS:
                                moved = to[mover, q]
                                if moved == mover:
                                    z[dealer, winner] += p
                                elif winner == 0:
                                    c[dealer] += p * out[w1, 0, moved, theirs]
                                else:
                                    c[dealer] += p * out[w1, 1, mine, moved]
                            elif k == ENDS_TWO or winner == w1:
                                c[dealer] += p * (1.0 if winner == 0 else 0.0)
                            else:  # one game each: game 3 decides (the winner deals)
                                third = to[mover, q]
                                other = states[theirs if winner == 0 else mine, 2]
                                mine3 = third if winner == 0 else other
                                theirs3 = other if winner == 0 else third
                                c[dealer] += p * game[mine3 * step, theirs3 * step, winner]
                v0, v1 = _solve_nb(c, z, scoreless)
                out[w1, 0, mine, theirs] = v0
                out[w1, 1, mine, theirs] = v1


@njit(cache=True)
def phase_a_values_nb(moves, to_b, values_b, out):
    """``out`` float64[2 side, nA, nA]: my chance of winning the match from phase A;
    ``to_b`` int64[nA] each state's phase B state when the other player ends game 1."""
    states, kind, to, prob = moves
    n = states.shape[0]
    cells = prob.shape[2] - 1
    order = _potential_order(states)
    scoreless = 1.0 - prob.sum(axis=2).sum(axis=1)
    c = np.zeros(2)
    z = np.zeros((2, 2))
    for a in range(n):
        mine = order[a]
        for b in range(n):
            theirs = order[b]
            for dealer in range(2):
                c[dealer] = 0.0
                z[dealer, 0] = 0.0
                z[dealer, 1] = 0.0
                for winner in range(2):
                    mover = mine if winner == 0 else theirs
                    for q in range(cells + 1):
                        p = prob[dealer, winner, q]
                        if p <= 0.0:
                            continue
                        k = kind[mover, q]
                        if k == STAYS:
                            moved = to[mover, q]
                            if moved == mover:
                                z[dealer, winner] += p
                            elif winner == 0:
                                c[dealer] += p * out[0, moved, theirs]
                            else:
                                c[dealer] += p * out[1, mine, moved]
                        elif k == ENDS_TWO:
                            c[dealer] += p * (1.0 if winner == 0 else 0.0)
                        elif winner == 0:
                            c[dealer] += p * values_b[0, 0, to[mover, q], to_b[theirs]]
                        else:
                            c[dealer] += p * values_b[1, 1, to_b[mine], to[mover, q]]
            v0, v1 = _solve_nb(c, z, scoreless)
            out[0, mine, theirs] = v0
            out[1, mine, theirs] = v1


@njit(cache=True)
def match_values_nb(target, step, win_points, win_prob, game):
    """(index A, index B, values A, values B) for game target ``target`` on a lattice of
    ``step`` points, from the hand-outcome model and its game table ``game``."""
    cells = -(-target // step)
    prob = step_probabilities_nb(win_points, win_prob, step, cells)
    states_a, index_a = lattice_states_nb(cells, 3)
    states_b, index_b = lattice_states_nb(cells, 2)
    kind_a, to_a = player_moves_nb(states_a, index_a, cells, 3)
    kind_b, to_b3 = player_moves_nb(states_b, index_b, cells, 2)
    n_a = states_a.shape[0]
    n_b = states_b.shape[0]
    to_b = np.zeros(n_a, np.int64)
    for s in range(n_a):
        to_b[s] = next_phase_state_nb(states_a[s, 0], states_a[s, 2], states_a[s, 3], cells)
    values_b = np.zeros((2, 2, n_b, n_b))
    phase_b_values_nb((states_b, kind_b, to_b3, prob), game, step, values_b)
    values_a = np.zeros((2, n_a, n_a))
    phase_a_values_nb((states_a, kind_a, to_a, prob), to_b, values_b, values_a)
    return index_a, index_b, values_a, values_b


def value_vector(target: int, step: int, win_points, win_prob, game) -> np.ndarray:
    """The flat value vector (module docstring): header, the game table ``game``
    float64[T, T, 2], then the match tables of ``match_values_nb``."""
    parts = [np.ascontiguousarray(game, dtype=np.float64)]
    parts += list(match_values_nb(target, step, win_points, win_prob, parts[0]))
    header = np.zeros(VALUE_HEADER)
    header[H_TARGET] = target
    header[H_STEP] = step
    header[H_CELLS] = -(-target // step)
    header[H_STATES_A] = parts[3].shape[1]
    header[H_STATES_B] = parts[4].shape[2]
    offset = VALUE_HEADER
    for slot, part in enumerate(parts):
        header[H_GAME + slot] = offset
        offset += part.size
    return np.concatenate([header] + [part.ravel() for part in parts])


# -- lookups ---------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def game_chance_nb(vector, mine, theirs, side):
    """The game table: my chance of winning a game from (mine, theirs), both below T."""
    target = np.int64(vector[H_TARGET])
    return vector[np.int64(vector[H_GAME]) + (mine * target + theirs) * 2 + side]


@njit(cache=True, _nrt=False)
def match_equity_nb(vector, score, player, side):
    """``player``'s chance of winning the Hollywood match at ``score`` int64[12] (points,
    then entered; player * 3 + game, as ``kernels.search.credit_score_nb``) with ``side``
    0 when it deals next; -1.0 for a score the phases do not hold (an entered column after
    one not entered, or a later open column above an earlier one): the caller falls back."""
    target = np.int64(vector[H_TARGET])
    opponent = 1 - player
    mine_won = theirs_won = 0
    first_open = 3
    for game in range(3):
        if score[3 * player + game] >= target:
            mine_won += 1
        elif score[3 * opponent + game] >= target:
            theirs_won += 1
        elif first_open == 3:
            first_open = game
    if mine_won >= 2:
        return 1.0
    if theirs_won >= 2:
        return 0.0
    if first_open == 3:
        return -1.0  # every game ended, none won twice: cannot happen (R21)
    for game in range(first_open, 3):  # the open games are the last ones (R19, R20)
        if score[3 * player + game] >= target or score[3 * opponent + game] >= target:
            return -1.0
    if first_open == 2:  # game 3 alone
        return game_chance_nb(vector, score[3 * player + 2], score[3 * opponent + 2], side)
    columns = 3 - first_open
    w1 = 0
    if first_open == 1:
        w1 = 0 if score[3 * player] >= target else 1
    return _interpolate_nb(vector, score, player, side, first_open, columns, w1)


@njit(cache=True, _nrt=False)
def _entered_nb(score, who, first_open, columns):
    """How many of the open columns ``who`` has entered, or -1 if the phases do not hold
    them (entered after one not entered, or above the column before)."""
    count = 0
    for c in range(columns):
        game = first_open + c
        if score[6 + 3 * who + game]:
            if count < c:
                return -1
            if c > 0 and score[3 * who + game] > score[3 * who + game - 1]:
                return -1
            count += 1
    return count


@njit(cache=True, _nrt=False, inline="always")
def _corner_nb(points, step, cells, upper):
    """A column of ``points``: its lattice point below (``upper`` 0) or above (1) and that
    point's interpolation weight; a column in the lattice's last step reads its last point."""
    point = points // step
    if point >= cells - 1:
        return cells - 1, 1.0 - upper
    fraction = (points - point * step) / step
    if upper:
        return point + 1, fraction
    return point, 1.0 - fraction


@njit(cache=True, _nrt=False)
def _interpolate_nb(vector, score, player, side, first_open, columns, w1):
    """Multilinear interpolation of phase A (``columns`` 3) or B (2) between the lattice
    points around each entered open column of both players."""
    step = np.int64(vector[H_STEP])
    cells = np.int64(vector[H_CELLS])
    n_a = np.int64(vector[H_STATES_A])
    n_b = np.int64(vector[H_STATES_B])
    mine_entered = _entered_nb(score, player, first_open, columns)
    theirs_entered = _entered_nb(score, 1 - player, first_open, columns)
    if mine_entered < 0 or theirs_entered < 0:
        return -1.0
    total = 0.0
    for corner in range(1 << (mine_entered + theirs_entered)):
        weight = 1.0
        bit = 0
        mine_state = 0
        theirs_state = 0
        for side_index in range(2):
            who = player if side_index == 0 else 1 - player
            entered = mine_entered if side_index == 0 else theirs_entered
            first = second = third = 0
            for c in range(entered):
                point, w = _corner_nb(
                    score[3 * who + first_open + c], step, cells, (corner >> bit) & 1
                )
                bit += 1
                weight *= w
                if c == 0:
                    first = point
                elif c == 1:
                    second = min(point, first)  # keep the columns non-increasing
                else:
                    third = min(point, second)
            if columns == 3:
                flat = ((entered * cells + first) * cells + second) * cells + third
                state = np.int64(vector[np.int64(vector[H_INDEX_A]) + flat])
            else:
                flat = (entered * cells + first) * cells + second
                state = np.int64(vector[np.int64(vector[H_INDEX_B]) + flat])
            if side_index == 0:
                mine_state = state
            else:
                theirs_state = state
        if weight == 0.0:
            continue
        if columns == 3:
            at = np.int64(vector[H_VALUE_A]) + (side * n_a + mine_state) * n_a + theirs_state
        else:
            at = np.int64(vector[H_VALUE_B])
            at += ((w1 * 2 + side) * n_b + mine_state) * n_b + theirs_state
        total += weight * vector[at]
    return total
