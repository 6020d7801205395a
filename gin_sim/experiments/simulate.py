"""The simulation driver: configs in, kernel arguments out, records back as DataFrames.

>>> record = play_hand(list(range(52)))
>>> record["dealer"], record["draw"] or record["knocker"] in (0, 1)
(0, True)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numba
import numpy as np
import pandas as pd

from gin_sim.game.cards import parse_deck
from gin_sim.game.config import ConfigError, shown
from gin_sim.game.environment import check_environment
from gin_sim.game.limits import MAX_SEED, check_count, check_seed  # noqa: F401  (MAX_SEED: API)
from gin_sim.game.match_start import MatchStart
from gin_sim.game.records import HAND_RECORD, MATCH_RECORD, record_to_dict
from gin_sim.game.rules import Rules, load_rules
from gin_sim.kernels.match import play_matches_parallel
from gin_sim.kernels.playout import play_deals_parallel, play_deck
from gin_sim.players.calibration import load_undercut_table
from gin_sim.players.search_value import equity_tables
from gin_sim.players.strategies import Strategy, parse_players, strategies_to_kernel


def _wrapping_arithmetic() -> np.errstate:
    # The random-number kernels rely on uint64 wrap-around; compiled code wraps silently,
    # NumPy scalars (NUMBA_DISABLE_JIT=1, for debugging) would warn on every deal.
    return np.errstate(over="ignore")


def play_hand(
    deck: str | Iterable[int | str],
    rules: str | Rules = "hollywood",
    players: str | Sequence[str | Strategy] = ("simple", "simple"),
    dealer: int = 0,
    seed: int = 0,
    deal: int = 0,
) -> dict[str, int | bool]:
    """Play one hand from an explicit 52-card order (card 0 to the non-dealer first).

    ``deck`` is a card string or a sequence of 52 card indices or strings; the hands are
    dealt one card at a time, the 21st card is the upcard. Returns the hand's record as a
    dict (its fields: docs/engine.md). ``seed`` and ``deal`` key the random streams of the
    ``random`` strategy only.

    Examples:
        >>> record = play_hand(list(range(52)), rules="hollywood", players=("expert", "simple"))
        >>> record["knocker"], record["winner"], record["points"]
        (1, 1, 7)
    """
    order = np.array(parse_deck(deck), dtype=np.int8)
    if dealer not in (0, 1):
        raise ConfigError(f"dealer {dealer!r}: allowed 0 or 1")
    rule_set = load_rules(rules)
    pair = parse_players(players if isinstance(players, str) else tuple(players))  # type: ignore[arg-type]
    out = np.zeros(1, dtype=HAND_RECORD)
    with _wrapping_arithmetic():
        play_deck(
            order,
            dealer,
            rule_set.to_kernel(),
            strategies_to_kernel(pair, rule_set),
            load_undercut_table(),
            np.uint64(check_seed(seed)),
            deal,
            out,
        )
    return record_to_dict(out[0])


def use_threads(threads: int | None) -> None:
    """Limit numba to ``threads`` (all cores when None); results never depend on it."""
    check_environment()  # a bad NUMBA_NUM_THREADS was set aside at import: refuse it here
    if threads is None:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    elif not 1 <= threads <= numba.config.NUMBA_NUM_THREADS:
        raise ConfigError(f"threads = {threads}: allowed 1 to {numba.config.NUMBA_NUM_THREADS}")
    else:
        numba.set_num_threads(threads)


def _kernel_arguments(
    rules: Rules,
    players: tuple[Strategy, Strategy],
    what: str,
    count: int,
    seed: int,
    chunk: int,
    threads: int | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate a run's settings and turn its configs into the kernels' arguments."""
    check_count(count, what)
    if chunk < 1:
        raise ConfigError(f"chunk = {chunk}: allowed 1 or more")
    check_seed(seed)
    use_threads(threads)  # a bad environment variable is said before the configs
    if not isinstance(rules, Rules):
        raise TypeError(f"rules = {shown(rules)}: expected a gin_sim.Rules (load_rules)")
    if (
        not isinstance(players, tuple | list)
        or len(players) != 2
        or not all(isinstance(p, Strategy) for p in players)
    ):
        raise TypeError(
            f"players = {shown(players)}: expected two gin_sim.Strategy (load_strategy)"
        )
    return rules.to_kernel(), strategies_to_kernel(players, rules), load_undercut_table()


def simulate_deals(
    rules: Rules,
    players: tuple[Strategy, Strategy],
    deals: int,
    seed: int,
    first_deal: int = 0,
    chunk: int = 1_000_000,
    threads: int | None = None,
    on_chunk: Callable[[int], None] | None = None,
) -> np.ndarray:
    """Play deals ``first_deal ..`` and return their HAND_RECORD array.

    Deal ``i``'s deck depends only on ``(seed, i)``, and the dealer alternates with the deal
    index, so runs that differ only in a rule or a strategy play the same decks. Work goes
    to the kernel in chunks (so ``on_chunk`` can report progress); the result does not
    depend on ``chunk`` or ``threads``. ``records_to_frame`` turns it into a DataFrame.

    Examples:
        >>> from gin_sim import load_rules, load_strategy
        >>> pair = (load_strategy("expert"), load_strategy("simple"))
        >>> records = simulate_deals(load_rules("standard"), pair, deals=1000, seed=7)
        >>> len(records), records["deal"][:3].tolist()
        (1000, [0, 1, 2])
    """
    rule_vector, strategy_matrix, undercut_table = _kernel_arguments(
        rules, players, "deals", deals, seed, chunk, threads
    )
    out = np.zeros(deals, dtype=HAND_RECORD)
    for start in range(0, deals, chunk):
        stop = min(deals, start + chunk)
        with _wrapping_arithmetic():
            play_deals_parallel(
                np.uint64(seed),
                first_deal + start,
                rule_vector,
                strategy_matrix,
                undercut_table,
                out[start:stop],
            )
        if on_chunk is not None:
            on_chunk(stop - start)
    return out


def records_to_frame(records: np.ndarray, swapped: bool = False) -> pd.DataFrame:
    """Hand records as a DataFrame, plus ``swapped``: seat 0 played ``players[1]``.

    One row per hand, a column per field of the record (docs/engine.md: the hands dealt,
    the dealer, the knocker, gin, undercut, the winner and points, the stock left, ...).

    Examples:
        >>> from gin_sim import load_rules, load_strategy, simulate_deals
        >>> pair = (load_strategy("expert"), load_strategy("simple"))
        >>> frame = records_to_frame(simulate_deals(load_rules("hollywood"), pair, 100, seed=1))
        >>> len(frame), "winner" in frame.columns, bool(frame["swapped"].any())
        (100, True, False)
    """
    frame = pd.DataFrame.from_records(records)
    frame["swapped"] = swapped
    return frame


def head_to_head(
    rules: Rules,
    players: tuple[Strategy, Strategy],
    deals: int,
    seed: int,
    duplicate: bool = True,
    first_deal: int = 0,
    chunk: int = 1_000_000,
    threads: int | None = None,
    on_chunk: Callable[[int], None] | None = None,
) -> pd.DataFrame:
    """Play ``deals`` decks between two strategies; with ``duplicate`` each deck twice.

    Duplicate deals replay every deck with the seats swapped (``swapped`` is True in the
    replay: seat 0 then plays ``players[1]``), so statistics can be paired by deck and
    most of the luck of the deal cancels. The hands of one deck are adjacent rows.
    """
    straight = simulate_deals(rules, players, deals, seed, first_deal, chunk, threads, on_chunk)
    if not duplicate:
        return records_to_frame(straight)
    reverse = simulate_deals(
        rules, (players[1], players[0]), deals, seed, first_deal, chunk, threads, on_chunk
    )
    both = pd.concat([records_to_frame(straight), records_to_frame(reverse, swapped=True)])
    return both.sort_values(["deal", "swapped"], kind="stable").reset_index(drop=True)


def simulate_matches(
    rules: Rules,
    players: tuple[Strategy, Strategy],
    matches: int,
    seed: int,
    first_match: int = 0,
    with_hands: bool = False,
    chunk: int = 100_000,
    threads: int | None = None,
    on_chunk: Callable[[int], None] | None = None,
    start: MatchStart | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Play Hollywood matches ``first_match ..``: (MATCH_RECORD array, HAND_RECORD array).

    Each match starts from ``start`` (``gin_sim.game.match_start``; None: a whole match from
    0, the first dealer drawn), whose format may also be a plain game to the target.
    The hand records (only ``with_hands``) are in match order; their ``deal`` field is
    the hand number within the match. Results do not depend on ``chunk`` or ``threads``.
    """
    rule_vector, strategy_matrix, undercut_table = _kernel_arguments(
        rules, players, "matches", matches, seed, chunk, threads
    )
    state = start if start is not None else MatchStart()
    state.validate(rules)
    start_vector = state.to_kernel()
    equity = equity_tables(players, rules)  # score-aware searchers' game tables
    out = np.zeros(matches, dtype=MATCH_RECORD)
    hand_parts = []
    for begin in range(0, matches, chunk):
        stop = min(matches, begin + chunk)
        part = out[begin:stop]
        args = (
            np.uint64(seed), first_match + begin, rule_vector, strategy_matrix, undercut_table,
            equity, start_vector,
        )  # fmt: skip
        with _wrapping_arithmetic():
            scratch_rows = np.zeros(stop - begin, dtype=HAND_RECORD)
            play_matches_parallel(*args, np.arange(stop - begin + 1), scratch_rows, False, part)
            if with_hands:  # a second, identical play now that the hand counts are known
                offsets = np.concatenate([[0], np.cumsum(part["hands"], dtype=np.int64)])
                hands = np.zeros(int(offsets[-1]), dtype=HAND_RECORD)
                play_matches_parallel(*args, offsets, hands, True, part)
                hand_parts.append(hands)
        if on_chunk is not None:
            on_chunk(stop - begin)
    hands = np.concatenate(hand_parts) if hand_parts else np.zeros(0, dtype=HAND_RECORD)
    return out, hands


def head_to_head_matches(
    rules: Rules,
    players: tuple[Strategy, Strategy],
    matches: int,
    seed: int,
    duplicate: bool = True,
    with_hands: bool = False,
    first_match: int = 0,
    chunk: int = 100_000,
    threads: int | None = None,
    on_chunk: Callable[[int], None] | None = None,
    start: MatchStart | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """Matches between two strategies; with ``duplicate`` each match is replayed over the
    same deck sequence with the strategies' seats swapped. The first dealer's seat comes from
    the match key and stays, so in the replay the other strategy deals the first hand.

    ``start`` (``gin_sim.game.match_start``) belongs to the players, not the seats: in the
    replay each strategy keeps its scores (and, when ``start`` names one, the first dealer
    stays the same strategy, so the replay deals every strategy the same cards again).

    Returns the match frame (plus ``swapped``) and, ``with_hands``, the hand frame (plus
    ``match``, ``swapped``; ``deal`` is the hand number within its match).
    """
    state = start if start is not None else MatchStart()
    orders = [(players, state, False)]
    if duplicate:
        orders.append(((players[1], players[0]), state.swapped(), True))
    match_frames, hand_frames = [], []
    for pair, seat_state, swapped in orders:
        match_records, hand_records = simulate_matches(
            rules, pair, matches, seed, first_match, with_hands, chunk, threads, on_chunk,
            seat_state,
        )  # fmt: skip
        frame = pd.DataFrame.from_records(match_records)
        frame["swapped"] = swapped
        match_frames.append(frame)
        if with_hands:
            hands = records_to_frame(hand_records, swapped)
            hands.insert(0, "match", np.repeat(match_records["match"], match_records["hands"]))
            hand_frames.append(hands)
    matches_df = (
        pd.concat(match_frames)
        .sort_values(["match", "swapped"], kind="stable")
        .reset_index(drop=True)
    )
    hands_df = None
    if with_hands:
        hands_df = pd.concat(hand_frames).sort_values(["match", "swapped", "deal"], kind="stable")
        hands_df = hands_df.reset_index(drop=True)
    return matches_df, hands_df
