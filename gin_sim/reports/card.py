"""The strategy card (issue 43): one page per rule set, read off an advice report's cells.

A basic strategy card, as casino players know it: a grid of situations, each cell one
action, coloured, the close calls marked. Every verdict is read off one cell of
``report advice`` (``knock-cells-by-rules.csv``, ``take-cells-by-rules.csv``): the gain
of the action per decision with its 95% interval clustered by deal
(``gin_sim.experiments.advice.gain_cells``). Nothing is estimated here:

- a cell is KNOCK (TAKE) when its interval lies above 0, PLAY ON (DRAW, or PASS at the
  first upcard) when it lies below 0, and CLOSE when it holds 0 or the cell is thin
  (fewer than ``MIN_CELL_POSITIONS`` positions);
- the rules of thumb are derived from the verdicts by code (``rules_of_thumb``), never
  written by hand, and each covers a set of cells with the verdict it states:
  ``rule_holds`` checks that every covered cell that is not close has that verdict;
- a close call says how many deals would separate it (``deals_to_separate``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from gin_sim.experiments.advice import CARD_DOES, DETECTABLE_SES, MIN_CELL_POSITIONS, STOCK_BANDS
from gin_sim.experiments.summary import Z95, Estimate
from gin_sim.reports.document import Report

KNOCK, PLAY_ON = "KNOCK", "PLAY ON"
TAKE, DRAW, PASS = "TAKE", "DRAW", "PASS"
CLOSE = "CLOSE"
NO_DATA = ""  # no position in the cell (a deadwood above every hand's knock limit)

# The three grids of a card: knock or play on (deadwood by cards left), take the discard
# or draw (what the card does by cards left), and the first upcard (what it does).
KNOCK_GRID, TAKE_GRID, OFFER_GRID = "knock", "take", "first upcard"
FIRST_UPCARD = "first upcard"
BANDS = tuple(f"{low}-{high}" for low, high in STOCK_BANDS)
# Beyond this many times the run's deals a close call is a tie for any practical purpose.
MAX_SEPARATING_FACTOR = 100.0
MAX_RULES = 6


@dataclass(frozen=True)
class CardCell:
    """One situation of a card: its ``grid``, ``row`` (a deadwood, or what the card on
    offer does) and ``column`` (the stock band, or ``FIRST_UPCARD``), the ``verdict``, and
    the cell it was read from: the mean gain of the action (points per hand) with its 95%
    interval, its positions and deals. ``deals_to_separate``: for a close call that is not
    thin, the run's deals times the factor that would make its interval exclude 0 with 80%
    power if the gain were what was measured (None: thin, no data, a clear verdict, or a
    tie beyond ``MAX_SEPARATING_FACTOR`` times the run)."""

    grid: str
    row: str
    column: str
    verdict: str
    mean: float
    low: float
    high: float
    positions: int
    deals: int
    deals_to_separate: int | None = None

    @property
    def close(self) -> bool:
        return self.verdict in (CLOSE, NO_DATA)

    def situation(self) -> dict[str, object]:
        """The cell's situation as a player reads it (JSON)."""
        where: dict[str, object] = {"grid": self.grid}
        if self.column != FIRST_UPCARD:
            where["cards_left"] = self.column
        if self.grid == KNOCK_GRID:
            where["deadwood"] = int(self.row)
        else:
            where["card"] = self.row
        return where


@dataclass(frozen=True)
class RuleOfThumb:
    """A rule in plain words and the cells it covers, each with the verdict the rule
    states for it: ``(grid, row, column, verdict)``."""

    text: str
    covers: tuple[tuple[str, str, str, str], ...]


@dataclass(frozen=True)
class AdvisedGain:
    """The shipped ``advised`` strategy against ``expert`` under a rule set: net points per
    hand on duplicate decks, paired by deck (``same_play``: it made the same moves on
    every deck, so the difference is exactly 0)."""

    mean: float
    half_width: float
    decks: int
    seed: int
    same_play: bool


@dataclass
class Card:
    """One rule set's card: who was measured against whom, how much was played, the cells
    of its three grids, the rules of thumb, and what ``advised`` gains against ``expert``."""

    rules: str
    player: str
    opponent: str
    deals: int
    seed: int
    source: str  # the advice report the cells come from
    how: str  # how this rule set's positions were evaluated (own, or paired)
    cells: list[CardCell]
    rules_of_thumb: list[RuleOfThumb] = field(default_factory=list)
    advised: AdvisedGain | None = None
    caveat: str = ""  # what the check against play says about the knock cells

    def grid(self, name: str) -> list[CardCell]:
        return [cell for cell in self.cells if cell.grid == name]

    def cell(self, grid: str, row: str, column: str) -> CardCell | None:
        for cell in self.cells:
            if (cell.grid, cell.row, cell.column) == (grid, row, column):
                return cell
        return None


# ------------------------------------------------------------------------ verdicts
def verdict(grid: str, mean: float, low: float, high: float, positions: int) -> str:
    """The action of a cell: its interval above 0 says act (KNOCK, TAKE), below 0 the
    other way (PLAY ON, DRAW, PASS at the first upcard), else (or thin) CLOSE."""
    if positions == 0:
        return NO_DATA
    if positions < MIN_CELL_POSITIONS or not (math.isfinite(low) and math.isfinite(high)):
        return CLOSE
    yes, no = {KNOCK_GRID: (KNOCK, PLAY_ON), TAKE_GRID: (TAKE, DRAW), OFFER_GRID: (TAKE, PASS)}[
        grid
    ]
    if low > 0:
        return yes
    if high < 0:
        return no
    return CLOSE


def deals_to_separate(mean: float, half_width: float, deals: int) -> int | None:
    """The deals a run would need for a cell's 95% interval to exclude 0 with 80% power,
    were its gain ``mean``: its standard error shrinks as one over the square root of the
    deals, so ``deals * ((1.96 + 0.84) * se / |mean|)^2``. None for a gain of 0 or one
    that would need more than ``MAX_SEPARATING_FACTOR`` times the run (a tie)."""
    if not (math.isfinite(mean) and math.isfinite(half_width)) or mean == 0 or half_width <= 0:
        return None
    factor = (DETECTABLE_SES * (half_width / Z95) / abs(mean)) ** 2
    if factor > MAX_SEPARATING_FACTOR:
        return None
    return max(deals, math.ceil(deals * factor))


def card_cells(knock_cells: pd.DataFrame, take_cells: pd.DataFrame, deals: int) -> list[CardCell]:
    """The cells of a card from one rule set's rows of ``knock-cells-by-rules`` (stock
    band, deadwood) and ``take-cells-by-rules`` (kind, stock band, what the card does)."""
    cells = []

    def add(grid: str, row: str, column: str, r) -> None:
        positions = int(r.positions)
        mean, low, high = (float(v) for v in (r.mean, r.low, r.high))
        found = verdict(grid, mean, low, high, positions)
        separate = None
        if found == CLOSE and positions >= MIN_CELL_POSITIONS:
            separate = deals_to_separate(mean, float(r.half_width), deals)
        cells.append(
            CardCell(grid, row, column, found, mean, low, high, positions, int(r.n), separate)
        )

    for r in knock_cells.itertuples():
        if str(r.stock_band) in BANDS and 0 <= int(r.deadwood) <= 10:
            add(KNOCK_GRID, str(int(r.deadwood)), str(r.stock_band), r)
    for r in take_cells.itertuples():
        if str(r.card_does) not in CARD_DOES:
            continue
        if r.kind == "draw" and str(r.stock_band) in BANDS:
            add(TAKE_GRID, str(r.card_does), str(r.stock_band), r)
        elif r.kind == "offer" and int(r.positions) > 0:
            add(OFFER_GRID, str(r.card_does), FIRST_UPCARD, r)
    return cells


# ------------------------------------------------------------------------ rules of thumb
def _cards_left(first: int, last: int) -> str:
    """Stock bands ``first`` to ``last`` (indices into BANDS, from the start of the hand) in
    words: '25 or more', '18 or fewer', '19 to 24'."""
    high, low = STOCK_BANDS[first][1], STOCK_BANDS[last][0]
    if first == 0:
        return f"{low} or more"
    if last == len(STOCK_BANDS) - 1:
        return f"{high} or fewer"
    return f"{low} to {high}"


def _runs(patterns: Sequence[object]) -> list[tuple[int, int, object]]:
    """Consecutive equal patterns (None: no rule) as (first, last, pattern)."""
    runs: list[tuple[int, int, object]] = []
    for index, pattern in enumerate(patterns):
        if runs and runs[-1][2] == pattern and pattern is not None:
            runs[-1] = (runs[-1][0], index, pattern)
        else:
            runs.append((index, index, pattern))
    return [run for run in runs if run[2] is not None]


def _split(clear: list[tuple[int, str]], yes: str, no: str) -> tuple | None:
    """The pattern of the clear verdicts (position, verdict) along one line of cells:
    ('all', yes), ('all', no), ('from', first yes, last no) when every 'no' comes before
    every 'yes', ('until', last yes, first no) when every 'yes' comes first, else None."""
    if not clear:
        return None
    yeses = [p for p, v in clear if v == yes]
    noes = [p for p, v in clear if v == no]
    if not noes:
        return ("all", yes)
    if not yeses:
        return ("all", no)
    if max(noes) < min(yeses):
        return ("from", min(yeses), max(noes))
    if max(yeses) < min(noes):
        return ("until", max(yeses), min(noes))
    return None


def _knock_rules(card: Card) -> list[RuleOfThumb]:
    deadwoods = range(1, 11)
    patterns = []
    for band in BANDS:
        clear = []
        for d in deadwoods:
            cell = card.cell(KNOCK_GRID, str(d), band)
            if cell is not None and not cell.close:
                clear.append((d, cell.verdict))
        patterns.append(_split(clear, KNOCK, PLAY_ON))
    rules = []
    for first, last, pattern in _runs(patterns):
        bands = BANDS[first : last + 1]
        kind = pattern[0]
        if kind == "all" and pattern[1] == KNOCK:
            action = "knock whenever you can"
            wanted = {d: KNOCK for d in deadwoods}
        elif kind == "all":
            action = "knock only with gin; otherwise play on"
            wanted = {0: KNOCK} | {d: PLAY_ON for d in deadwoods}
        elif kind == "from":
            low, high = pattern[1], pattern[2]
            action = f"knock with {low} or more deadwood; with {high} or less, play on for gin"
            wanted = {d: KNOCK for d in range(low, 11)} | {d: PLAY_ON for d in range(1, high + 1)}
        else:
            high, low = pattern[1], pattern[2]
            action = f"knock with {high} or less deadwood; with {low} or more, play on"
            wanted = {d: KNOCK for d in range(1, high + 1)} | {d: PLAY_ON for d in range(low, 11)}
        covers = tuple(
            (KNOCK_GRID, str(d), band, want)
            for band in bands
            for d, want in sorted(wanted.items())
            if card.cell(KNOCK_GRID, str(d), band) is not None
        )
        rules.append(RuleOfThumb(f"With {_cards_left(first, last)} cards left, {action}.", covers))
    return rules


def _cards(does: Sequence[str], noun: str) -> str:
    """What cards a rule is about, in words."""
    if set(does) == set(CARD_DOES):
        return f"any {noun}"
    if set(does) == set(CARD_DOES[1:]):
        return f"a {noun} that completes no meld"
    if set(does) == set(CARD_DOES[1:3]):
        return f"a {noun} that only lowers your deadwood"
    words = {
        CARD_DOES[0]: "completes a meld",
        CARD_DOES[1]: "lowers your deadwood by 5 or more",
        CARD_DOES[2]: "lowers your deadwood by 1 to 4",
        CARD_DOES[3]: "lowers nothing",
    }
    return f"a {noun} that " + " or ".join(words[d] for d in does)


def _take_rules(card: Card) -> list[RuleOfThumb]:
    patterns: dict[object, list[str]] = {}
    for does in CARD_DOES:
        clear = []
        for index, band in enumerate(BANDS):
            cell = card.cell(TAKE_GRID, does, band)
            if cell is not None and not cell.close:
                clear.append((index, cell.verdict))
        pattern = _split(clear, TAKE, DRAW)
        if pattern is not None:
            patterns.setdefault(pattern, []).append(does)
    rules = []
    for pattern, does in patterns.items():
        what = _cards(does, "discard")
        kind = pattern[0]
        if kind == "all" and pattern[1] == TAKE:
            text = f"Take {what} at any point of the hand."
            wanted = {i: TAKE for i in range(len(BANDS))}
        elif kind == "all":
            text = f"Never take {what}: draw from the stock."
            wanted = {i: DRAW for i in range(len(BANDS))}
        elif kind == "from":  # drawing while many cards are left, taking late
            first, last = pattern[1], pattern[2]
            text = (
                f"Draw rather than take {what} while {_cards_left(0, last)} cards are left; "
                f"with {_cards_left(first, len(BANDS) - 1)}, take it."
            )
            wanted = {i: DRAW for i in range(last + 1)} | {
                i: TAKE for i in range(first, len(BANDS))
            }
        else:
            last, first = pattern[1], pattern[2]
            text = (
                f"Take {what} while {_cards_left(0, last)} cards are left; with "
                f"{_cards_left(first, len(BANDS) - 1)}, draw from the stock."
            )
            wanted = {i: TAKE for i in range(last + 1)} | {
                i: DRAW for i in range(first, len(BANDS))
            }
        covers = tuple(
            (TAKE_GRID, d, BANDS[i], want)
            for d in does
            for i, want in sorted(wanted.items())
            if card.cell(TAKE_GRID, d, BANDS[i]) is not None
        )
        rules.append(RuleOfThumb(text, covers))
    return rules


def _offer_rule(card: Card) -> list[RuleOfThumb]:
    clear = [c for c in card.grid(OFFER_GRID) if not c.close]
    takes = [c.row for c in clear if c.verdict == TAKE]
    passes = [c.row for c in clear if c.verdict == PASS]
    parts = []
    if takes:
        parts.append(f"take {_cards(takes, 'card')}")
    if passes:
        parts.append(f"pass on {_cards(passes, 'card')}")
    if not parts:
        return []
    covers = tuple((OFFER_GRID, c.row, FIRST_UPCARD, c.verdict) for c in clear)
    return [RuleOfThumb("On the first upcard, " + "; ".join(parts) + ".", covers)]


def _gin_rule(card: Card) -> list[RuleOfThumb]:
    gins = [c for c in card.grid(KNOCK_GRID) if c.row == "0" and c.positions]
    if not gins or any(not c.close and c.verdict != KNOCK for c in gins):
        return []
    covers = tuple((KNOCK_GRID, "0", c.column, KNOCK) for c in gins)
    return [RuleOfThumb("With no deadwood, always go gin.", covers)]


def rules_of_thumb(card: Card) -> list[RuleOfThumb]:
    """Up to MAX_RULES rules in plain words, derived from the card's verdicts: per run of
    stock bands with the same knocking pattern, per kind of card on offer with the same
    take pattern, the first upcard; 'always go gin' where fewer than 3 rules came out. A
    rule covering no cell that is not close is dropped; if more than MAX_RULES remain,
    those covering the fewest clear cells go."""
    found = _knock_rules(card) + _take_rules(card) + _offer_rule(card)
    if len(found) < 3:
        found += _gin_rule(card)

    def clear(rule: RuleOfThumb) -> int:
        cells = (card.cell(g, r, c) for g, r, c, _ in rule.covers)
        return sum(1 for cell in cells if cell is not None and not cell.close)

    found = [rule for rule in found if clear(rule) > 0 and rule_holds(rule, card)]
    if len(found) > MAX_RULES:
        keep = sorted(range(len(found)), key=lambda i: -clear(found[i]))[:MAX_RULES]
        found = [found[i] for i in sorted(keep)]
    return found


def rule_holds(rule: RuleOfThumb, card: Card) -> bool:
    """True when every cell the rule covers is close or has the verdict the rule states."""
    for grid, row, column, wanted in rule.covers:
        cell = card.cell(grid, row, column)
        if cell is None:
            return False
        if not cell.close and cell.verdict != wanted:
            return False
    return True


# ------------------------------------------------------------------------ building
def build_card(
    rules: str,
    player: str,
    opponent: str,
    deals: int,
    seed: int,
    source: str,
    how: str,
    knock_cells: pd.DataFrame,
    take_cells: pd.DataFrame,
    advised: AdvisedGain | None = None,
    caveat: str = "",
) -> Card:
    """One rule set's card from its rows of the advice report's by-rules cell tables."""
    card = Card(
        rules, player, opponent, deals, seed, source, how,
        card_cells(knock_cells, take_cells, deals), advised=advised, caveat=caveat,
    )  # fmt: skip
    card.rules_of_thumb = rules_of_thumb(card)
    for rule in card.rules_of_thumb:  # by construction; a derivation bug must not print
        if not rule_holds(rule, card):
            raise AssertionError(f"a rule of thumb its cells contradict: {rule.text}")
    return card


def advised_gain(estimate: Estimate, decks: int, seed: int, same_play: bool) -> AdvisedGain:
    return AdvisedGain(estimate.mean, estimate.half_width, decks, seed, same_play)


def check_caveat(check: pd.DataFrame, player: str, under: str | None = None) -> str:
    """What the check against play (``check-against-play.csv``) says of the knock cells:
    the flagged ones, by how much and which way real play differs from the search, and,
    where the check was split, how much of it the search's policies account for (empty if
    none is flagged). ``under``: the rule set the check played, when the card is another's
    (the search's cells there were not checked)."""
    flagged = check[check["cell"].str.startswith("knock") & check["flagged"].astype(bool)]
    if flagged.empty:
        return ""

    def said(r, label: str) -> str:
        mean, low, high = (getattr(r, f"{label}_{k}") for k in ("mean", "low", "high"))
        return f"{r.cell.removeprefix('knock, ')}: {mean:+.1f} ({low:+.1f} to {high:+.1f})"

    parts = [said(r, "difference") for r in flagged.itertuples()]
    if (flagged["difference_mean"] > 0).all():
        way, then = "more than", "a PLAY ON cell near 0 may be a knock"
    elif (flagged["difference_mean"] < 0).all():
        way, then = "less than", "a KNOCK cell near 0 may be a play on"
    else:
        way, then = "more or less than", "a cell near 0 may go either way"
    where = f"Under {under}, in {player}'s own play" if under else f"In {player}'s own play"
    these = "the search's cells said" if under else "these cells say"
    text = (
        f"{where}, knocking was worth {way} {these} (checked against play, real less "
        "search, points per hand: " + "; ".join(parts) + ")"
    )
    if "policies_mean" in flagged:
        text += (
            "; the search's rollout policies against the real players, from the same cards: "
            + "; ".join(said(r, "policies") for r in flagged.itertuples())
        )
    return text + f", so {then}."


def play_caveat(cells: pd.DataFrame, player: str) -> str:
    """What valuing the knock cells by play (``knock-cells-by-play``) changed: the mean
    move from the search's cells (play less search, weighted by positions) and the cells
    whose verdict it changes."""
    shown = cells[cells["positions"] > 0]
    if shown.empty:
        return ""
    moved = float(np.average(shown["difference_mean"].fillna(0), weights=shown["positions"]))
    changed = sum(
        verdict("knock", r.mean, r.low, r.high, int(r.positions))
        != verdict("knock", r.search_mean, r.search_low, r.search_high, int(r.positions))
        for r in shown.itertuples()
    )
    way = "more" if moved >= 0 else "less"
    return (
        f"The knock cells are valued by {player}'s own play, not by the search: in that "
        f"play knocking was worth {abs(moved):.1f} points a decision {way} than the search "
        f"says (the mean over the cells), and {changed} of {len(shown)} cells would read "
        "otherwise by the search (knock-cells-by-play)."
    )


def card_knock_cells(
    name: str, own: str, player: str, how: str, continuations: int, tables: dict
) -> tuple[pd.DataFrame, str, str]:
    """The knock cells a card of rule set ``name`` shows, with how they were valued
    (``how`` extended) and the card's caveat, from an advice report's ``tables``: under the
    report's own rule set ``own``, the cells valued by the players' own play where the
    report played them (``knock-cells-by-play``: the check against play finds the search
    undervaluing knocking against that play); otherwise the search's
    (``knock-cells-by-rules``), with the check's caveat where it flagged them."""
    by_play = tables.get("knock-cells-by-play")
    check = tables.get("check-against-play")
    if name == own and by_play is not None:
        cells = by_play[by_play["rules"] == name]
        how = (
            f"{how}; its knock cells by {player}'s own play instead: each knock position "
            f"played out {continuations} times from what the players knew there, knocking "
            "and playing on paired"
        )
        return cells, how, play_caveat(cells, player)
    search = tables["knock-cells-by-rules"]
    caveat = "" if check is None else check_caveat(check, player, None if name == own else own)
    return search[search["rules"] == name], how, caveat


# ------------------------------------------------------------------------ text
def _gain_text(cell: CardCell) -> str:
    return f"{cell.mean:+.1f}" if cell.positions else ""


def _cell_text(cell: CardCell | None) -> str:
    if cell is None or cell.verdict == NO_DATA:
        return "·"
    return f"{cell.verdict} {_gain_text(cell)}"


def advised_sentence(card: Card) -> str:
    """What the shipped ``advised`` strategy gains against ``expert`` under the card's
    rule set, in one sentence."""
    a = card.advised
    if a is None:
        return ""
    if a.same_play:
        return (
            f"Under {card.rules} the shipped `advised` strategy plays as `expert`: the same "
            f"points on every one of {a.decks:,} duplicate decks (seed {a.seed})."
        )
    return (
        f"Under {card.rules} the shipped `advised` strategy, distilled from the published "
        f"cards' run, beats `expert` by {a.mean:+.2f} ± {a.half_width:.2f} points a hand "
        f"({a.decks:,} duplicate decks, seed {a.seed}, 95% interval)."
    )


def measured_sentence(card: Card) -> str:
    return (
        f"Measured for {card.player} against {card.opponent} under {card.rules}: "
        f"{card.deals:,} deals (seed {card.seed}) of {card.source}, {card.how}."
    )


def card_markdown(card: Card, heading: str = "#", title: bool = True) -> str:
    """The card as Markdown, for the terminal and the reports (``title``: with its own
    heading; a report gives it one)."""
    lines = [f"{heading} Strategy card: {card.rules}, against {card.opponent}", ""] if title else []
    lines += [measured_sentence(card), ""]
    if card.rules_of_thumb:
        lines += [f"{heading}# Rules of thumb", ""]
        lines += [f"{n}. {rule.text}" for n, rule in enumerate(card.rules_of_thumb, 1)]
        lines += [""]
    lines += [
        f"{heading}# Knock or play on",
        "",
        "Rows: your deadwood after the discard (0 is gin). Columns: cards left in the "
        "stock. Each cell: the action and what it gains over the other, in points a hand.",
        "",
        "| deadwood | " + " | ".join(BANDS) + " |",
        "|---:|" + "---|" * len(BANDS),
    ]
    for d in range(11):
        row = [_cell_text(card.cell(KNOCK_GRID, str(d), band)) for band in BANDS]
        lines.append(f"| {d}{' (gin)' if d == 0 else ''} | " + " | ".join(row) + " |")
    columns = ([FIRST_UPCARD] if card.grid(OFFER_GRID) else []) + list(BANDS)
    lines += [
        "",
        f"{heading}# Take the discard or draw",
        "",
        "Rows: what the card on offer does for your hand. Columns: the first upcard, then "
        "cards left in the stock.",
        "",
        "| the card | " + " | ".join(columns) + " |",
        "|---|" + "---|" * len(columns),
    ]
    for does in CARD_DOES:
        row = [
            _cell_text(card.cell(OFFER_GRID if c == FIRST_UPCARD else TAKE_GRID, does, c))
            for c in columns
        ]
        lines.append(f"| {does} | " + " | ".join(row) + " |")
    lines += [
        "",
        f"A verdict holds where the cell's 95% interval (clustered by deal) excludes 0. "
        f"CLOSE: it holds 0, or the cell has fewer than {MIN_CELL_POSITIONS} positions. "
        "·: no position.",
        "",
    ]
    close = [c for c in card.cells if c.verdict == CLOSE]
    if close:
        lines += [f"{heading}# Close calls", "", close_summary(card), ""]
    notes = [s for s in (advised_sentence(card), card.caveat) if s]
    if notes:
        lines += [f"{heading}# How far to trust it", ""] + [f"- {s}" for s in notes] + [""]
    return "\n".join(lines)


def _situation_words(cell: CardCell) -> str:
    if cell.grid == KNOCK_GRID:
        return f"deadwood {cell.row} with {cell.column} cards left"
    if cell.grid == OFFER_GRID:
        return f"a first upcard that {cell.row}"
    return f"a discard that {cell.row} with {cell.column} cards left"


def close_summary(card: Card) -> str:
    """The close calls in words: how many, the thin ones, and for each other one the deals
    that would separate it."""
    close = [c for c in card.cells if c.verdict == CLOSE]
    thin = [c for c in close if c.positions < MIN_CELL_POSITIONS]
    parts = [f"{len(close)} of {sum(c.verdict != NO_DATA for c in card.cells)} cells are close."]
    if thin:
        parts.append(
            f"{len(thin)} of them have fewer than {MIN_CELL_POSITIONS} positions: a larger "
            "run fills them."
        )
    for cell in close:
        if cell in thin:
            continue
        gain = f"{cell.mean:+.2f} ({cell.low:+.2f} to {cell.high:+.2f})"
        if cell.deals_to_separate is None:
            parts.append(
                f"{_situation_words(cell).capitalize()}: {gain}, a tie (more than "
                f"{MAX_SEPARATING_FACTOR:.0f} times the deals would not separate it)."
            )
        else:
            parts.append(
                f"{_situation_words(cell).capitalize()}: {gain}; about "
                f"{cell.deals_to_separate:,} deals would separate it."
            )
    return " ".join(parts)


def card_json(card: Card) -> dict:
    """Every cell with its situation, verdict, gain and interval, and every rule of thumb
    with the cells it covers."""
    return {
        "rules": card.rules,
        "player": card.player,
        "opponent": card.opponent,
        "deals": card.deals,
        "seed": card.seed,
        "source": card.source,
        "evaluated": card.how,
        "significance": (
            f"95% interval clustered by deal excludes 0; fewer than {MIN_CELL_POSITIONS} "
            "positions: CLOSE"
        ),
        "cells": [
            c.situation()
            | {
                "verdict": c.verdict or None,
                "gain": _finite(c.mean),
                "low": _finite(c.low),
                "high": _finite(c.high),
                "positions": c.positions,
                "deals": c.deals,
                "deals_to_separate": c.deals_to_separate,
            }
            for c in card.cells
        ],
        "rules_of_thumb": [
            {
                "text": rule.text,
                "cells": [
                    card.cell(g, r, col).situation() | {"verdict": want}  # type: ignore[union-attr]
                    for g, r, col, want in rule.covers
                ],
            }
            for rule in card.rules_of_thumb
        ],
        "advised_against_expert": None if card.advised is None else asdict(card.advised),
        "caveat": card.caveat or None,
    }


def _finite(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


# ------------------------------------------------------------------------ figure
# The colours of the verdicts, as in the gain maps (blue: the action gains, red: it loses;
# grey and hatched: thin or uncertain, the same everywhere).
ACT_FACE, AVOID_FACE = "#2166ac", "#b2182b"
CLOSE_FACE, CLOSE_HATCH = "#e6e6e6", "#c2c2c2"


def _face(verdict_word: str) -> tuple[str, str, str]:
    """(face colour, hatch, text colour) of a verdict."""
    if verdict_word in (KNOCK, TAKE):
        return ACT_FACE, "", "white"
    if verdict_word in (PLAY_ON, DRAW, PASS):
        return AVOID_FACE, "", "white"
    if verdict_word == CLOSE:
        return CLOSE_FACE, "///", "#303030"
    return "white", "", "#909090"


def draw_card(card: Card, paths: Sequence[Path]) -> None:
    """The card as one printable page (A4 landscape, ``card_page``), saved to each of
    ``paths`` (PNG, SVG or PDF, by suffix)."""
    from gin_sim.reports.figures import DPI, _pyplot

    plt = _pyplot()
    fig = card_page(card)
    for path in paths:
        # No software version or date in the file, so the same cells give the same bytes.
        metadata = {"Software": None} if path.suffix == ".png" else {"Date": None}
        if path.suffix == ".svg":
            plt.rcParams["svg.hashsalt"] = "gin-sim card"
        fig.savefig(path, dpi=DPI, metadata=metadata)
    plt.close(fig)


def card_page(card: Card):
    """The card's page as a matplotlib figure: the knock grid, the take grid with the
    first upcard, the rules of thumb, and where the figures come from (the notes)."""
    from gin_sim.reports.figures import _pyplot

    plt = _pyplot()
    width, height = 11.69, 8.27  # A4 landscape, inches
    fig = plt.figure(figsize=(width, height))
    fig.text(
        0.03, 0.955, f"Strategy card: {card.rules}, against {card.opponent}",
        fontsize=18, weight="bold", va="top",
    )  # fmt: skip
    fig.text(0.03, 0.915, _wrap(measured_sentence(card), 150), fontsize=8.5, va="top")
    knock_ax = fig.add_axes((0.07, 0.19, 0.40, 0.59))
    _grid(
        knock_ax,
        [[card.cell(KNOCK_GRID, str(d), b) for b in BANDS] for d in range(11)],
        [f"{d} (gin)" if d == 0 else str(d) for d in range(11)],
        list(BANDS),
        "Knock or play on?",
        "cards left in the stock",
        "your deadwood",
    )
    columns = ([FIRST_UPCARD] if card.grid(OFFER_GRID) else []) + list(BANDS)
    take_ax = fig.add_axes((0.61, 0.49, 0.36, 0.25))
    _grid(
        take_ax,
        [
            [card.cell(OFFER_GRID if c == FIRST_UPCARD else TAKE_GRID, d, c) for c in columns]
            for d in CARD_DOES
        ],
        [d.replace("lowers deadwood", "lowers\ndeadwood") for d in CARD_DOES],
        [c.replace("first upcard", "first\nupcard") for c in columns],
        "Take the discard or draw?",
        "cards left in the stock",
        "",
    )
    text = ["Rules of thumb (derived from the cells)"]
    text += [_wrap(f"{n}. {rule.text}", 64) for n, rule in enumerate(card.rules_of_thumb, 1)] or [
        "(no cell is clear enough for a rule)"
    ]
    legend = (
        "KNOCK / TAKE (blue): the 95% interval of its gain lies above 0.   PLAY ON / DRAW / "
        "PASS (red): below 0.   CLOSE (grey, hatched): the interval holds 0, or fewer than "
        f"{MIN_CELL_POSITIONS} positions.   ·: no position.   Small type: the gain of the "
        "action in points a hand."
    )
    notes = "\n".join(_wrap(n, 175) for n in [legend, advised_sentence(card), card.caveat] if n)
    notes_bottom, notes_size, notes_spacing = 0.025, 7.5, 1.4
    fig.text(
        0.03, notes_bottom, notes, fontsize=notes_size, va="bottom", color="#303030",
        linespacing=notes_spacing, gid="notes",
    )  # fmt: skip
    # The rules fill the space between the take grid and the notes: six long rules wrap to
    # a dozen lines, which at the full size would run into the notes, so the type shrinks
    # to fit (a line takes linespacing x its size in points, 72 to the inch).
    rules_text, rules_spacing = "\n".join(text), 1.5
    page_points = height * 72
    top = 0.45
    notes_top = notes_bottom + (notes.count("\n") + 1) * notes_size * notes_spacing / page_points
    room = (top - notes_top - 0.015) * page_points  # a small gap above the notes
    size = min(9.5, room / (rules_spacing * (rules_text.count("\n") + 1)))
    fig.text(
        0.53, top, rules_text, fontsize=size, va="top", linespacing=rules_spacing, gid="rules"
    )  # fmt: skip
    return fig


def _grid(ax, cells, row_labels, column_labels, title, x_label, y_label) -> None:
    from gin_sim.reports.figures import _pyplot

    rows, columns = len(row_labels), len(column_labels)
    for i, row in enumerate(cells):
        for j, cell in enumerate(row):
            word = cell.verdict if cell is not None else NO_DATA
            face, hatch, ink = _face(word)
            ax.add_patch(
                _pyplot().Rectangle(
                    (j, rows - 1 - i), 1, 1, facecolor=face, edgecolor="white",
                    hatch=hatch, linewidth=1.5,
                )
            )  # fmt: skip
            if cell is None or word == NO_DATA:
                ax.text(j + 0.5, rows - 0.5 - i, "·", ha="center", va="center", color=ink)
                continue
            ax.text(
                j + 0.5, rows - 0.42 - i, word, ha="center", va="center", fontsize=8.5,
                weight="bold", color=ink,
            )  # fmt: skip
            ax.text(
                j + 0.5, rows - 0.78 - i, f"{cell.mean:+.1f}", ha="center", va="center",
                fontsize=6.5, color=ink,
            )  # fmt: skip
    ax.set_xlim(0, columns)
    ax.set_ylim(0, rows)
    ax.set_xticks(np.arange(columns) + 0.5, column_labels, fontsize=8)
    ax.set_yticks(np.arange(rows) + 0.5, list(reversed(row_labels)), fontsize=8)
    ax.xaxis.set_ticks_position("top")
    ax.xaxis.set_label_position("top")
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    ax.set_xlabel(x_label, fontsize=9)
    if y_label:
        ax.set_ylabel(y_label, fontsize=9)
    ax.set_title(title, fontsize=12, weight="bold", pad=28, loc="left")


def _wrap(text: str, width: int) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width))


# ------------------------------------------------------------------------ reading
CARD_TABLES = (
    "knock-cells-by-rules", "take-cells-by-rules", "check-against-play", "knock-cells-by-play",
)  # fmt: skip


def read_cards(folder: str | Path, rules: Sequence[str] = ()) -> list[Card]:
    """The cards of a finished ``report advice`` folder: one per rule set it played or
    compared (or those of ``rules``, by name or TOML path), in the report's order. The
    tables are read and checked as ``gin-sim distill`` reads them; anything wrong is a
    one-line ``ConfigError``."""
    from gin_sim.experiments.advice import shares_positions
    from gin_sim.experiments.distill import read_report_tables
    from gin_sim.experiments.outputs import read_owner
    from gin_sim.game.config import ConfigError
    from gin_sim.game.rules import load_rules

    tables, own, compared = read_report_tables(folder, CARD_TABLES, optional=CARD_TABLES[2:])
    options = read_owner(Path(folder))["options"]  # type: ignore[index]
    mark = Path(folder) / ".gin-sim.json"
    try:
        player, opponent = str(options["players"]).split(",")
        deals, seed, samples = int(options["deals"]), int(options["seed"]), int(options["samples"])
    except (KeyError, ValueError, TypeError):
        raise ConfigError(f"{mark} lacks the report's players, deals, seed or samples") from None
    names = [own.name] + [r.name for r in compared]
    chosen = names
    if rules:
        chosen = []
        for name in rules:
            found = load_rules(name).name
            if found not in names:
                raise ConfigError(
                    f"rules {name}: {folder} has no cells for it: allowed {', '.join(names)}"
                )
            if found not in chosen:
                chosen.append(found)
    continuations = int(options.get("continuations", 0) or 0)
    cards = []
    for name in chosen:
        if name == own.name:
            how = f"each position valued by a search of {samples} worlds"
        elif shares_positions(own.name, name):
            how = f"the same positions valued again under {name}'s scoring (paired)"
        else:
            how = f"its own positions (its knock limit differs), valued by {samples} worlds"
        knock, how, caveat = card_knock_cells(name, own.name, player, how, continuations, tables)
        take = tables["take-cells-by-rules"]
        card = build_card(
            name, player, opponent, deals, seed, str(folder), how, knock,
            take[take["rules"] == name], caveat=caveat,
        )  # fmt: skip
        cards.append(card)
    return cards


# ------------------------------------------------------------------------ the report
def cards_report(cards: Sequence[Card], command: str, source: str) -> Report:
    """The cards of an advice report as a report folder of their own (``gin-sim card
    --out``, and the default set's ``cards``): each card's page (PNG, SVG), text (Markdown)
    and cells (JSON); report.md opens with the first card's rules of thumb and page."""
    import json

    from gin_sim.reports.document import ANSWER_WORDS, Report, Section

    first = cards[0]
    rules = [r.text for r in first.rules_of_thumb]
    where = f"Against {first.opponent} under {first.rules}"
    answer = (
        [f"{where}: {rules[0][0].lower()}{rules[0][1:]}", *rules[1:4]]
        if rules
        else [f"{where}, {first.deals:,} deals separate no situation of the card clearly."]
    )
    if len(cards) > 1:
        answer.append("The cards for " + ", ".join(c.rules for c in cards[1:]) + " follow below.")
    findings = [f"{c.rules}: where knocking pays: {knock_summary(c.cells)}." for c in cards]
    findings += [
        f"{c.rules}: " + " ".join(r.text for r in c.rules_of_thumb)
        for c in cards
        if any(r.covers[0][0] != KNOCK_GRID for r in c.rules_of_thumb)
    ]
    return Report(
        kind="card",
        title=f"Strategy cards: against {first.opponent}, " + ", ".join(c.rules for c in cards),
        command=command,
        setup=[
            f"Cells: the advice report {source}: {first.deals:,} deals of {first.player} "
            f"against {first.opponent}, seed {first.seed} (docs/advice.md); this command only "
            "reads them.",
            "Verdicts: a cell's 95% interval, clustered by deal, above 0 (KNOCK, TAKE) or below "
            f"0 (PLAY ON, DRAW, PASS); CLOSE when it holds 0 or the cell has fewer than "
            f"{MIN_CELL_POSITIONS} positions (docs/card.md).",
            "Rules of thumb: derived from the verdicts by code, each true of every cell it "
            "covers that is not close.",
        ],
        findings=findings,
        sections=[
            Section(
                f"The strategy card: {c.rules}",
                card_markdown(c, "##", title=False),
                None,
                [f"card-{c.rules}"],
            )
            for c in cards
        ],
        figures={
            f"card-{c.rules}": (lambda path, c=c: draw_card(c, [path, path.with_suffix(".svg")]))
            for c in cards
        },
        answer=[t for t in answer if len(t.split()) <= ANSWER_WORDS][:5],
        answer_figure=f"card-{first.rules}",
        files={
            name: text
            for c in cards
            for name, text in (
                (f"card-{c.rules}.md", card_markdown(c)),
                (
                    f"card-{c.rules}.json",
                    json.dumps(card_json(c), indent=2, allow_nan=False) + "\n",
                ),
            )
        },
    )


# ------------------------------------------------------------------------ summaries
def knock_band_words(cells: Sequence[CardCell]) -> list[tuple[str, str]]:
    """Per stock band of knock cells, where knocking starts to pay, in words from the
    cells' verdicts ('at any deadwood', 'only gin', 'at 7 or more (play on at 5 or
    less)', 'mixed', 'no clear cell'): never a deadwood outside 1 to 10."""
    words = []
    for band in BANDS:
        clear = [
            (int(c.row), c.verdict)
            for c in cells
            if c.grid == KNOCK_GRID and c.column == band and c.row != "0" and not c.close
        ]
        pattern = _split(sorted(clear), KNOCK, PLAY_ON)
        if not any(c.column == band and c.positions for c in cells if c.grid == KNOCK_GRID):
            continue
        if pattern is None:
            said = "mixed" if clear else "no clear cell"
        elif pattern == ("all", KNOCK):
            said = "knock at any deadwood"
        elif pattern == ("all", PLAY_ON):
            said = "only gin"
        elif pattern[0] == "from":
            said = f"knock at {pattern[1]} or more (play on at {pattern[2]} or less)"
        else:
            said = f"knock at {pattern[1]} or less (play on at {pattern[2]} or more)"
        words.append((band, said))
    return words


def knock_summary(cells: Sequence[CardCell]) -> str:
    """``knock_band_words`` as one clause: '25-31 cards left: knock at any deadwood; ...'
    ('every stock band: ...' when all bands say the same)."""
    words = knock_band_words(cells)
    if len(words) > 1 and len({said for _, said in words}) == 1:
        return f"every stock band: {words[0][1]}"
    return "; ".join(f"{band} cards left: {said}" for band, said in words)


def knock_cells_of(table: pd.DataFrame, deals: int) -> list[CardCell]:
    """Card cells of a knock cells table (``knock-cells``: stock band, deadwood)."""
    return card_cells(table, pd.DataFrame(), deals)
