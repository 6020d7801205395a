"""A hand told move by move, as a person would follow it at the table.

The reference engine plays the hand and records its events; this module turns them into
text: both hands sorted and grouped into melds, the upcard offer, each draw and discard,
the knock, both arrangements at the showdown, each layoff, and the score with the rule
that produced it.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field

from gin_sim.game.cards import N_RANKS, cards_of, format_card, format_cards
from gin_sim.game.hollywood import HollywoodScore
from gin_sim.game.limits import check_index, check_seed
from gin_sim.game.melds import Arrangement, best_arrangement, defender_layoffs
from gin_sim.game.rng import deck_for_deal
from gin_sim.game.rules import Rules
from gin_sim.players.decide import Candidate, candidate_table, interval95
from gin_sim.players.strategies import Strategy
from gin_sim.reference.engine import play_hand_reference
from gin_sim.reference.search import SearchFigures, describe_action

REASONS = {1: "the wall: 2 cards left in the stock (R18)", 2: "the cap on upcard takes (R18a)"}


@dataclass(frozen=True)
class Replay:
    lines: list[str]
    record: dict[str, int | bool]
    # With a score (``--score``): its columns before and after the hand, player 1 first.
    score: dict[str, list[str]] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def show_arrangement(arrangement: Arrangement) -> str:
    melds = " ".join("[" + format_cards(m) + "]" for m in arrangement.melds)
    unmatched = format_cards(arrangement.unmatched)
    parts = [p for p in (melds, unmatched) if p]
    return f"{'  '.join(parts) or '(no cards)'}   deadwood {arrangement.deadwood}"


def show_hand(hand: int) -> str:
    return show_arrangement(best_arrangement(hand))


def layoff_targets(laid: int, knocker: Arrangement) -> list[str]:
    """Which knocker meld each laid-off card goes on, in the order it can be laid (R15)."""
    lines = []
    for meld in knocker.melds:
        cards = cards_of(meld)
        if len({c % N_RANKS for c in cards}) == 1:  # a set: its missing fourth card
            fourth = [c for c in cards_of(laid) if c % N_RANKS == cards[0] % N_RANKS]
            lines += [f"{format_card(c)} on [{format_cards(meld)}]" for c in fourth]
            continue
        grown = meld
        for direction in (1, -1):
            edge = max(cards) if direction == 1 else min(cards)
            card = edge + direction
            # no wrap-around (R1): the chain stops at the suit's ace or king
            while 0 <= card < 52 and card // N_RANKS == edge // N_RANKS and laid >> card & 1:
                lines.append(f"{format_card(card)} on [{format_cards(grown)}]")
                grown |= 1 << card
                card += direction
    return lines


def replay_hand(
    deck: Sequence[int],
    rules: Rules,
    players: tuple[Strategy, Strategy],
    dealer: int,
    seed: int = 0,
    deal: int = 0,
    heading: str = "",
    score: HollywoodScore | None = None,
) -> Replay:
    """The hand's lines and record. ``score``: the score before the hand in a game or a
    Hollywood match, which score-aware players read (``closing_distance``, ``value``);
    the lines then end with it before and after the hand (R19, R20)."""
    events: list = []
    record = play_hand_reference(
        list(deck), rules, players, dealer, seed=seed, deal=deal, trace=events,
        score=copy.deepcopy(score),  # the engine's players must not change the caller's
    )  # fmt: skip
    names = [f"player {p + 1} ({players[p].name})" for p in (0, 1)]
    lines = describe_events(events, record, names, rules, dealer, heading)
    if score is None:
        return Replay(lines, record)
    after = copy.deepcopy(score)
    if int(record["winner"]) >= 0:
        after.credit(int(record["winner"]), int(record["points"]))
    columns = {"before": score_columns(score), "after": score_columns(after)}
    lines.append(
        f"Score (player 1 first, games to {score.target}): {', '.join(columns['before'])} "
        f"before the hand, {', '.join(columns['after'])} after (R19, R20)"
    )
    return Replay(lines, record, columns)


def score_columns(score: HollywoodScore) -> list[str]:
    """Each game's column as P1:P2, a game's winner marked ``*`` (R20)."""
    return [
        f"{score.totals[0][g]}{'*' if score.game_winner[g] == 0 else ''}:"
        f"{score.totals[1][g]}{'*' if score.game_winner[g] == 1 else ''}"
        for g in range(score.games)
    ]


def describe_events(
    events: Sequence[tuple],
    record: dict[str, int | bool],
    names: list[str],
    rules: Rules,
    dealer: int,
    heading: str = "",
) -> list[str]:
    """The lines of a hand from the reference engine's trace (``events``) and its record;
    ``names[p]`` names player ``p``."""
    hands = [0, 0]
    lines = [heading] if heading else []
    turn = 0
    for kind, player, *details in events:
        if kind == "deal":
            dealer_seat, nondealer_hand, dealer_hand, upcard, limit = details
            hands[dealer_seat], hands[1 - dealer_seat] = dealer_hand, nondealer_hand
            lines.append(
                f"Dealer: {names[dealer_seat]}. Knock limit this hand: {limit}"
                + (" (Oklahoma, R14a)" if rules.oklahoma else " (R12)")
            )
            for p in (0, 1):
                lines.append(f"  {names[p]:<28} {show_hand(hands[p])}")
            lines.append(f"  upcard: {format_card(upcard)}")
        elif kind == "offer":
            card, taken = details
            rule = "R7" if player != dealer else "R8"
            lines.append(
                f"     {names[player]} {'takes' if taken else 'declines'} the upcard {format_card(card)} ({rule})"
            )
        elif kind in ("take_pile", "take_stock"):
            (card,) = details
            turn += 1
            source = "takes the discard" if kind == "take_pile" else "draws from the stock"
            hands[player] |= 1 << card
            lines.append(f"{turn:3d}. {names[player]} {source}: {format_card(card)}")
        elif kind == "discard":
            card, deadwood = details
            hands[player] &= ~(1 << card)
            lines.append(
                f"     discards {format_card(card)}, deadwood {deadwood}:  {show_hand(hands[player])}"
            )
        elif kind == "knock":
            card, deadwood = details
            hands[player] &= ~(1 << card)
            what = "gin (R13)" if deadwood == 0 else f"knocks with deadwood {deadwood} (R12)"
            lines.append(f"     discards {format_card(card)} and {what}")
        elif kind == "big_gin":
            lines.append(f"     {names[player]} has big gin: all 11 cards in melds (R14)")
        elif kind == "search":
            _, figures = details
            lines.append(
                f"     {names[player]} {search_worlds(figures)}"
                " (mean points from its side, 95% interval, gain over the first):"
            )
            lines += candidate_table(search_candidates(figures), figures.chosen, indent=7)
        elif kind == "draw":
            (reason,) = details
            lines.append(
                f"The hand is a draw at {REASONS[reason]}: nobody scores, the same dealer deals again."
            )
        elif kind == "showdown":
            arrangement, before, after, laid_points, _winner, _points = details
            knocker, defender = player, 1 - player
            lines.append("Showdown:")
            if arrangement is None:  # gin or big gin: no layoffs (R15)
                lines.append(f"  {names[knocker]} lays out  {show_hand(hands[knocker])}")
                lines.append(
                    f"  {names[defender]} lays out  {show_hand(hands[defender])}  (no layoffs after gin, R15)"
                )
            else:
                lines.append(
                    f"  {names[knocker]} lays out  {show_arrangement(arrangement)}  (fewest layoff spots, R16)"
                )
                final, _, laid = defender_layoffs(hands[defender], arrangement)
                assert final == after, "the layoffs shown must be the ones the engine scored"
                lines.append(f"  {names[defender]} melds     {show_hand(hands[defender] & ~laid)}")
                for layoff in layoff_targets(laid, arrangement):
                    lines.append(f"    lays off {layoff} (R15)")
                lines.append(
                    f"  {names[defender]} deadwood {before} before layoffs, {after} after ({laid_points} laid off)"
                )
            lines.append(score_line(record, names, rules))
    return lines


def search_worlds(figures: SearchFigures) -> str:
    """Which worlds a search's figures are over (docs/strategies.md, steps 4b and 5): the
    screening's where it ran at this decision (its worlds there may be ``late_samples``,
    ``knock_samples`` or ``draw_samples`` rather than ``samples``)."""
    screen = figures.screened_on
    if len(figures.candidates) == 1:  # the screening (or its first cut) left one: stopped
        return f"searches {screen or figures.early_screen_worlds} screening worlds and stops"
    if not screen:
        return f"searches {figures.worlds} worlds"
    return f"searches {screen} screening worlds, then {figures.worlds} more for the choice"


def search_candidates(figures: SearchFigures) -> tuple[Candidate, ...]:
    """A reference search's candidates with their estimated values (as ``decide`` gives
    the kernels' figures)."""
    candidates = []
    for c, action in enumerate(figures.candidates):
        n = figures.worlds
        mean, low, high = interval95(figures.sums[c], figures.squares[c], n)
        gain = figures.gains[c] / n
        candidates.append(Candidate(describe_action(action, figures.phase), mean, low, high, gain))
    return tuple(candidates)


def score_line(record: dict, names: list[str], rules: Rules) -> str:
    k, d = record["knocker_deadwood"], record["defender_deadwood_after"]
    winner, points = record["winner"], record["points"]
    if record["big_gin"]:
        why = f"big gin: {rules.big_gin_bonus} + the defender's {d} (R14, R17)"
    elif record["gin"]:
        why = f"gin: bonus {rules.gin_bonus} + the defender's deadwood {d} (R17)"
    elif record["undercut"]:
        why = f"undercut: {k} >= {d}, bonus {rules.undercut_bonus} + {k} - {d} (R17)"
    elif winner < 0:
        return f"Result: a tie at {k}, no undercut under these rules: nobody scores (R17)"
    else:
        why = f"knocker's {k} < defender's {d}: {d} - {k} (R17)"
    return f"Result: {names[winner]} scores {points} — {why}"


def replay_deal(
    seed: int,
    deal: int,
    rules: Rules,
    players: tuple[Strategy, Strategy],
    score: HollywoodScore | None = None,
) -> Replay:
    """Deal ``deal`` of a hand-level run with ``seed`` (dealer ``deal % 2``), from
    ``score`` if one is given."""
    check_seed(seed)
    check_index(deal, "deal")
    heading = f"Deal {deal} of seed {seed}, rules {rules.name}: {players[0].name} (player 1) v {players[1].name} (player 2)"
    return replay_hand(
        deck_for_deal(seed, deal), rules, players, deal % 2, seed, deal, heading, score
    )
