"""The advice report from a dataset of evaluated positions (docs/advice.md): knock or play
on, take or draw, the knock line, undercut risk, rule sets compared, the check against play.

Every figure is computed in ``gin_sim.experiments.advice`` (weighted per decision,
intervals clustered by deal; the knock line from a model of all cells of a band); this
module lays the figures out as text, grids and figures, and says which estimator each is.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from gin_sim.experiments.advice import (  # noqa: F401 (the report's readers import them here)
    CARD_DOES,
    CHECK_CELLS,
    DETECTABLE_SES,
    LINE_RESAMPLES,
    MIN_CELL_POSITIONS,
    MIN_LINE_DEADWOODS,
    MIN_LINE_DEALS,
    STOCK_BANDS,
    check_rows,
    check_table,
    gain_cells,
    knock_cells,
    knock_cells_by_play,
    knock_line,
    knock_model,
    knock_positions,
    paired_change,
    paired_gain_differences,
    paired_gains,
    played_value_gaps,
    strong_knocks,
    strong_undercut_rates,
    take_cells,
    take_positions,
)
from gin_sim.game.rules import Rules
from gin_sim.reports import figures
from gin_sim.reports.card import (
    CLOSE,
    NO_DATA,
    AdvisedGain,
    Card,
    build_card,
    card_knock_cells,
    card_markdown,
    draw_card,
    knock_cells_of,
    knock_summary,
    play_caveat,
)
from gin_sim.reports.document import Report, Section, format_rate
from gin_sim.reports.tables import stock_band, undercut_rates

# The published advice run (docs/advice-run/, issue 25): the project's headline figures.
# A smaller run (make run's) shows the method and says where the figures are.
PUBLISHED_RUN = "docs/advice-run/report.md"
PUBLISHED_DEALS = 24_000
PUBLISHED_COMMAND = (
    "gin-sim report advice --rules hollywood --compare hollywood-gin20,standard,oklahoma "
    "--players mc,mc --deals 24000 --samples 256 --check-positions 1000 --continuations 4 "
    "--seed 2512 --keep offer=1,draw=1,discard=0.125,knock=1 --out docs/advice-run"
)


def _scale_note(deals: int) -> str:
    """What a longer run adds, and where the published figures are, for a run of
    ``deals`` deals."""
    if deals >= PUBLISHED_DEALS:
        return (
            f"Size: {deals:,} deals, the published run's size; the cell tables give each "
            "cell's count (tests/test_published_advice.py holds the published run to 100 "
            "positions per cell)."
        )
    return (
        f"Size: {deals:,} deals, a small run that shows the method: many cells are thin and "
        "the knock lines' intervals are wide. The project's headline figures come from the "
        f"published run of {PUBLISHED_DEALS:,} deals, {PUBLISHED_RUN}, where every knock "
        "cell of deadwood 1 to 10 with 7 or more cards in the stock and every take cell "
        "holds at least 100 positions; it was made by `" + PUBLISHED_COMMAND + "` (about "
        "two and a half hours on two cores, or on a Dask cluster with --scheduler)."
    )


KNOCK_GAIN = "gain of knocking over the best discard (points per hand)"
TAKE_GAIN = "gain of taking over drawing (points per hand)"
# How every per-decision figure is estimated, in the words the report uses.
PER_DECISION = (
    "a mean per decision: each position weighted by `weight` (the decisions of its kind it "
    "stands for, 1 / the probability it was kept), as a ratio of weighted sums (Hajek), with "
    "a 95% interval clustered by deal (the rows of one deal are not independent)"
)


@dataclass
class AdviceStudy:
    """What ``report advice`` measured: the positions of ``players`` under ``rules``
    (evaluated), the same positions re-evaluated under each compared rule set (or, where
    a stored position's knock limit does not apply, that rule set's own positions:
    ``paired[name]`` False), the check against play, and ``basic``'s knocks from a knock
    sweep (``tables.KNOCK_COLUMNS``) for the undercut comparison."""

    rules: str
    players: tuple[str, str]
    deals: int
    seed: int
    evaluation: str
    positions: pd.DataFrame
    compared: dict[str, pd.DataFrame]
    paired: dict[str, bool]
    checked: pd.DataFrame
    continuations: int
    basic_knocks: pd.DataFrame
    basic_label: str
    rule_sets: dict[str, Rules]  # the rule sets of ``rules`` and ``compared``, by name
    # The shipped ``advised`` against ``expert`` under each rule set (for the cards).
    advised: dict[str, AdvisedGain] = field(default_factory=dict)
    # Every knock position played out by ``players`` (``positions.play_in_parts``): the
    # card's knock cells under ``rules`` (``knock-cells-by-play``); None: the search's.
    knock_played: pd.DataFrame | None = None


# ------------------------------------------------------------------------ layout
def _gain(mean: float, half_width: float) -> str:
    if mean is None or not np.isfinite(mean):
        return "n/a"
    if not np.isfinite(half_width):
        return f"{mean:+.2f}"
    return f"{mean:+.2f} ± {half_width:.2f}"


def _cell_text(row) -> str:
    if row.positions == 0:
        return ""
    text = f"{_gain(row.mean, row.half_width)} ({row.positions})"
    return text + " thin" if row.thin else text


def _grid(cells: pd.DataFrame, row: str, column: str, row_label: str) -> pd.DataFrame:
    """A cells table (``gain_cells``) as rows by columns of 'gain ± half (positions)'."""
    shown = cells.assign(text=[_cell_text(r) for r in cells.itertuples()])
    grid = shown.pivot(index=row, columns=column, values="text")
    grid.columns = [str(c) for c in grid.columns]
    grid = grid.reset_index().rename(columns={row: row_label})
    grid[row_label] = grid[row_label].astype(str)
    return grid.fillna("")


def _deadwood(value: float) -> str:
    """A point on the deadwood scale in words: never a number outside 0 to 10."""
    if math.isnan(value):
        return "n/a"
    if value < 0:
        return "below 0"
    if value > 10:
        return "above 10"
    return f"{value:.1f}"


def _line_value(row) -> str:
    """Where a band's fitted line crosses 0, in words: the crossing (only within 0 to 10)
    and which side of it knocks, or why there is none (``experiments.advice.knock_model``)."""
    if not math.isfinite(row.slope):
        return (
            f"no line ({row.deals} deal{'' if row.deals == 1 else 's'}; it needs "
            f"{MIN_LINE_DEALS} deals and "
            f"{MIN_LINE_DEADWOODS} deadwoods)"
        )
    if not row.crossing:
        side = "above" if row.intercept > 0 else "below"
        return f"no crossing (the fitted gain is flat, {side} 0)"
    everywhere, gin_only = "knock at any deadwood", "only gin"
    if row.direction == "below":  # the gain falls with deadwood: knock below the line
        if row.line > 10:
            return f"above 10: {everywhere}"
        if row.line < 1:
            return f"{_deadwood(row.line)}: {gin_only}"
        return f"{row.line:.1f}: knock below it"
    # the gain rises with deadwood: play on for gin with little deadwood, knock above
    if row.line < 1:
        return f"{_deadwood(row.line)}: {everywhere}"
    if row.line > 10:
        return f"above 10: {gin_only}"
    return f"{row.line:.1f}: knock above it, play on for gin below it"


def _line_interval(row) -> str:
    if math.isnan(row.low):
        return ""
    low, high = _deadwood(row.low), _deadwood(row.high)
    return low if low == high and low in ("below 0", "above 10") else f"{low} to {high}"


def _line_words(row) -> str:
    """A knock line with its interval and, where it rests on few positions, 'thin'."""
    extras = [_line_interval(row)]
    if row.positions < MIN_CELL_POSITIONS:
        extras.append(f"thin: {row.positions} positions")
    extras = [e for e in extras if e]
    return _line_value(row) + (f" ({'; '.join(extras)})" if extras else "")


def _line_text(line: pd.DataFrame, by: Sequence[str]) -> str:
    return "; ".join(
        ", ".join(f"{getattr(row, c)}" for c in by) + f": {_line_words(row)}"
        for row in line.itertuples()
    )


def _line_table(line: pd.DataFrame, by: Sequence[str], labels: Sequence[str]) -> pd.DataFrame:
    out = {label: line[c].astype(str) for c, label in zip(by, labels, strict=True)}
    out["knock line (deadwood where the fitted gain is 0)"] = [
        _line_value(r) for r in line.itertuples()
    ]
    out["95% interval"] = [_line_interval(r) for r in line.itertuples()]
    out["fitted gain at deadwood 1, slope per point"] = [
        "n/a" if not math.isfinite(r.slope) else f"{r.intercept + r.slope:+.2f}, {r.slope:+.2f}"
        for r in line.itertuples()
    ]
    out["positions (deals)"] = [
        f"{n} ({d})" + (" thin" if n < MIN_CELL_POSITIONS else "")
        for n, d in zip(line["positions"], line["deals"], strict=True)
    ]
    return pd.DataFrame(out)


def _fit_grid(fit: pd.DataFrame, column: str) -> pd.DataFrame:
    """The fitted gain and the residual (cell mean less fit) by deadwood (rows) and
    ``column``, each with its bootstrap interval."""

    def text(r) -> str:
        if not math.isfinite(r.fitted):
            return ""
        words = f"{r.fitted:+.2f} ({r.fitted_low:+.2f} to {r.fitted_high:+.2f})"
        if r.positions:
            off = not r.residual_low <= 0 <= r.residual_high
            words += (
                f"; cell − fit {r.residual:+.2f} ({r.residual_low:+.2f} to "
                f"{r.residual_high:+.2f}){' *' if off else ''} [{r.positions}]"
            )
        return words

    shown = fit.assign(text=[text(r) for r in fit.itertuples()])
    grid = shown.pivot(index="deadwood", columns=column, values="text")
    grid.columns = [str(c) for c in grid.columns]
    return grid.reset_index().fillna("").astype(str)


def _misfits(fit: pd.DataFrame) -> int:
    """Cells whose residual interval excludes 0."""
    placed = fit[fit["positions"] > 0]
    return int(((placed["residual_low"] > 0) | (placed["residual_high"] < 0)).sum())


def _rate(rate: float, low: float, high: float) -> str:
    return format_rate(rate, low, high, digits=1)


def undercut_grid(rates: pd.DataFrame, count: str) -> pd.DataFrame:
    """Rates by deadwood (rows, 1 to 10: gin is never undercut) and stock band (columns,
    from the start of the hand) as 'rate (low to high) [count]', thin cells marked."""
    bands = [f"{low}-{high}" for low, high in STOCK_BANDS]
    shown = rates.assign(stock_band=rates["stock_band"].astype(str))
    shown = shown[shown["knocker_deadwood"] > 0]
    shown = shown.assign(
        text=[
            ""
            if not r[count]
            else f"{_rate(r['rate'], r['low'], r['high'])} [{r[count]:,}]"
            + (" thin" if r[count] < MIN_CELL_POSITIONS else "")
            for _, r in shown.iterrows()
        ]
    )
    grid = shown.pivot(index="knocker_deadwood", columns="stock_band", values="text")
    grid = grid.reindex(columns=[b for b in bands if b in grid.columns]).fillna("")
    grid.columns = [str(c) for c in grid.columns]
    return grid.reset_index().rename(columns={"knocker_deadwood": "deadwood"}).astype(str)


def _undercut_side_by_side(
    strong: pd.DataFrame, basic: pd.DataFrame, key: str, label: str
) -> pd.DataFrame:
    merged = strong.merge(basic, on=key, how="outer", suffixes=("_strong", "_basic"))
    if key == "stock_band":  # from the start of the hand to its end
        order = {f"{low}-{high}": i for i, (low, high) in enumerate(STOCK_BANDS)}
        merged = merged.sort_values(key, key=lambda c: c.astype(str).map(order))
    merged = merged[
        (merged["knocks_strong"].fillna(0) > 0) | (merged["knocks_basic"].fillna(0) > 0)
    ]
    return pd.DataFrame(
        {
            label: merged[key].astype(str),
            "strong: undercut rate": [
                _rate(r, lo, hi)
                for r, lo, hi in zip(
                    merged["rate_strong"], merged["low_strong"], merged["high_strong"], strict=True
                )
            ],
            "strong: knock positions": merged["knocks_strong"].fillna(0).astype(int).astype(str),
            "basic: undercut rate": [
                _rate(r, lo, hi)
                for r, lo, hi in zip(
                    merged["rate_basic"], merged["low_basic"], merged["high_basic"], strict=True
                )
            ],
            "basic: knocks": merged["knocks_basic"].fillna(0).astype(int).astype(str),
        }
    )


def _check_shown(check: pd.DataFrame) -> pd.DataFrame:
    def pair(prefix: str, count: str | None = None) -> list[str]:
        means, halves = check[f"{prefix}_mean"], check[f"{prefix}_half_width"]
        counts = check[count] if count else [None] * len(check)
        return [
            _gain(m, h) + (f" ({n})" if n is not None else "")
            for m, h, n in zip(means, halves, counts, strict=True)
        ]

    def tested(flagged: str, detectable: str) -> list[str]:
        return [
            ("flagged" if f else "not flagged")
            + ("" if not np.isfinite(d) else f", detectable {d:.2f}")
            for f, d in zip(check[flagged], check[detectable], strict=True)
        ]

    shown = {
        "cell": check["cell"],
        "table (whole cell)": pair("table", "cell_positions"),
        "search (checked positions)": pair("search", "checked"),
        "play (checked positions)": pair("play"),
    }
    split = "policies_mean" in check
    if split:
        shown["search's policies, real cards"] = pair("rollout")
    shown |= {
        "play less search (paired)": pair("difference"),
        "flagged (interval excludes 0)": ["yes" if f else "no" for f in check["flagged"]],
        "detectable difference (80% power)": [
            "n/a" if not np.isfinite(d) else f"{d:.2f}" for d in check["detectable"]
        ],
    }
    if split:
        shown |= {
            "policies: play less search's policies": pair("policies"),
            "policies tested": tested("policies_flagged", "policies_detectable"),
            "worlds: real cards less search's worlds": pair("worlds"),
            "worlds tested": tested("worlds_flagged", "worlds_detectable"),
        }
    return pd.DataFrame(shown)


def _part_verdict(row, label: str, what: str) -> str:
    estimate = _gain(getattr(row, f"{label}_mean"), getattr(row, f"{label}_half_width"))
    detectable = getattr(row, f"{label}_detectable")
    if getattr(row, f"{label}_flagged"):
        return f"{what} flagged ({estimate})"
    return f"{what} not flagged ({estimate}; {detectable:.2f} detectable)"


def _check_findings(check: pd.DataFrame, players: tuple[str, str]) -> str:
    parts = []
    split = "policies_mean" in check
    for row in check.itertuples():
        if row.checked < 2 or not np.isfinite(row.detectable):
            parts.append(f"{row.cell}: too few positions to check ({row.checked})")
            continue
        verdict = (
            f"flagged: play differs from the search by {_gain(row.difference_mean, row.difference_half_width)}"
            if row.flagged
            else f"not flagged (play less search {_gain(row.difference_mean, row.difference_half_width)})"
        )
        text = (
            f"{row.cell}: search {row.search_mean:+.2f}, play {row.play_mean:+.2f}, {verdict}; "
            f"the check could have detected a difference of {row.detectable:.2f} points"
        )
        if split:
            text += (
                f" ({_part_verdict(row, 'policies', 'the policies')}, "
                f"{_part_verdict(row, 'worlds', 'the worlds')})"
            )
        parts.append(text)
    return (
        f"Checked against play ({players[0]} against {players[1]} playing the hands out, "
        "each from what it knew at the position; per decision, paired position by position; "
        "a difference is detectable with 80% power at (1.96 + 0.84) standard errors): "
        + "; ".join(parts)
        + "."
    )


def _by_play_section(parts: dict[str, pd.DataFrame], study: AdviceStudy) -> list[Section]:
    """The knock cells valued by the players' own play, the card's (none without them)."""
    if "knock-cells-by-play" not in parts:
        return []
    a, b = study.players
    cells = parts["knock-cells-by-play"]
    bands = [f"{low}-{high}" for low, high in STOCK_BANDS]  # the hand's order, not the labels'
    ordered = cells.assign(stock_band=pd.Categorical(cells["stock_band"], bands, ordered=True))
    return [
        Section(
            "Knock or play on, by play",
            f"The strategy card's knock cells. Every knock position above, from the position "
            f"as it was, knocked (least-deadwood discard) and played on (the search's best "
            f"discard), each then played out by {a} and {b} {study.continuations} times on "
            "the same stocks (each searcher from what it knew there, as in the check against "
            f"play below); each cell the gain of knocking in that play, {PER_DECISION} "
            "(`knock-cells-by-play.csv`, which also has the search's gain over the same "
            f"positions and the paired difference, play less search). " + play_caveat(cells, a),
            _grid(ordered, "deadwood", "stock_band", "deadwood"),
            [],
        )
    ]


def _gap_findings(gaps: pd.DataFrame, study: AdviceStudy) -> str:
    words = [
        f"{r.kind} {_gain(r.gap_mean, r.gap_half_width)} ({r.positions})"
        for r in gaps.itertuples()
        if r.positions
    ]
    return (
        f"The search's values against real play: the hand's real points less the search's "
        f"value of the move {study.players[0]} and {study.players[1]} made, per decision "
        "(points per hand; below 0: the search's values are above the real outcomes), by "
        "kind: " + "; ".join(words) + "."
    )


# ------------------------------------------------------------------------ tables
def advice_tables(study: AdviceStudy) -> dict[str, pd.DataFrame]:
    """Every table of the advice report, by file name."""
    knocks = knock_positions(study.positions)
    takes = take_positions(study.positions)
    strong = strong_knocks(study.positions)
    basic = study.basic_knocks.assign(
        stock_band=stock_band(study.basic_knocks["stock_left"]).to_numpy()
    )
    line, fit = knock_model(knocks, seed=study.seed)
    by_opponent = ("opponent_took", "stock_band")
    line_by_opponent, fit_by_opponent = knock_model(knocks, by_opponent, study.seed)
    parts = {
        "knock-cells": knock_cells(knocks),
        "knock-cells-by-opponent": knock_cells(knocks, by_opponent),
        "knock-line": line,
        "knock-fit": fit,
        "knock-line-by-opponent": line_by_opponent,
        "knock-fit-by-opponent": fit_by_opponent,
        "take-cells": take_cells(takes, ("kind",)),
        "take-cells-by-stock": take_cells(takes, ("stock_band",)),
        "undercut-strong-by-deadwood": strong_undercut_rates(strong, "knocker_deadwood"),
        "undercut-strong-by-stock": strong_undercut_rates(strong, "stock_band"),
        "undercut-strong-cells": strong_undercut_rates(strong, ["knocker_deadwood", "stock_band"]),
        "undercut-basic-by-deadwood": undercut_rates(basic, ["knocker_deadwood"]),
        "undercut-basic-by-stock": undercut_rates(basic, ["stock_band"]),
        "undercut-basic-cells": undercut_rates(basic, ["knocker_deadwood", "stock_band"]),
        "check-against-play": check_table(study.positions, study.checked),
        "played-value-gaps": played_value_gaps(study.positions),
    }
    # The strategy card's cells (gin_sim.reports.card): every rule set's knock cells and
    # take cells (the first upcard apart) by stock band.
    knock_by_rules = [knock_cells(knocks).assign(rules=study.rules)]
    take_by_rules = [take_cells(takes, ("kind", "stock_band")).assign(rules=study.rules)]
    lines, fits = [], []
    for name, frame in study.compared.items():
        other_knocks = knock_positions(frame)
        knock_by_rules.append(knock_cells(other_knocks).assign(rules=name))
        take_by_rules.append(
            take_cells(take_positions(frame), ("kind", "stock_band")).assign(rules=name)
        )
        other_line, other_fit = knock_model(other_knocks, seed=study.seed)
        lines.append(other_line.assign(rules=name))
        fits.append(other_fit.assign(rules=name))
        if study.paired[name]:
            highest = int(knocks["knock_limit"].max()) if len(knocks) else 10
            parts[f"knock-difference-{name}"] = paired_gain_differences(
                knocks, other_knocks, "deadwood", range(highest + 1)
            )
            parts[f"take-difference-{name}"] = paired_gain_differences(
                takes, take_positions(frame), "card_does", CARD_DOES
            )
    parts["knock-cells-by-rules"] = _rules_first(knock_by_rules)
    if study.knock_played is not None:
        parts["knock-cells-by-play"] = _rules_first(
            [knock_cells_by_play(knocks, study.knock_played).assign(rules=study.rules)]
        )
    parts["take-cells-by-rules"] = _rules_first(take_by_rules)
    if lines:
        parts["knock-line-by-rules"] = pd.concat(
            [line.assign(rules=study.rules), *lines], ignore_index=True
        )
        parts["knock-fit-by-rules"] = pd.concat(
            [fit.assign(rules=study.rules), *fits], ignore_index=True
        )
    return parts


def _rules_first(tables: list[pd.DataFrame]) -> pd.DataFrame:
    """Tables of several rule sets as one, the rule set as its first column."""
    table = pd.concat([t.astype({c: str for c in t.columns if c in ("stock_band", "card_does")})
                       for t in tables], ignore_index=True)  # fmt: skip
    return table[["rules", *[c for c in table.columns if c != "rules"]]]


def study_cards(study: AdviceStudy, parts: dict[str, pd.DataFrame]) -> list[Card]:
    """The strategy card of the study's rule set and of each compared one, from the
    tables the report writes (``gin-sim card`` reads the same tables back)."""
    from gin_sim.experiments.advice import shares_positions

    a, b = study.players
    takes = parts["take-cells-by-rules"]
    cards = []
    for name in [study.rules, *study.compared]:
        if name == study.rules:
            how = "each position valued by the search under What was run"
        elif shares_positions(study.rules, name):
            how = f"the same positions valued again under {name}'s scoring (paired)"
        else:
            how = "its own positions (its knock limit differs), valued by the same search"
        knocks, how, caveat = card_knock_cells(
            name, study.rules, a, how, study.continuations, parts
        )
        card = build_card(
            name, a, b, study.deals, study.seed, "this report", how, knocks,
            takes[takes["rules"] == name], study.advised.get(name), caveat,
        )  # fmt: skip
        cards.append(card)
    return cards


def _answer(card: Card) -> list[str]:
    """The report's opening: the card's rules of thumb, the first with who and where,
    then how many cells are close calls (and, for a small run, where the published cards
    are); at most five sentences of at most 40 words."""
    from gin_sim.reports.document import ANSWER_WORDS

    rules = [r.text for r in card.rules_of_thumb]
    where = f"Against {card.opponent} under {card.rules}"
    if rules:
        sentences = [f"{where}: {rules[0][0].lower()}{rules[0][1:]}", *rules[1:4]]
    else:
        sentences = [f"{where}, {card.deals:,} deals separate no situation of the card clearly."]
    shown = sum(c.verdict != NO_DATA for c in card.cells)
    close = sum(c.verdict == CLOSE for c in card.cells)
    if card.deals < PUBLISHED_DEALS:
        sentences.append(
            f"This run has {card.deals:,} deals, so {close} of {shown} cells are close "
            f"calls; the published cards in docs/cards/ come from {PUBLISHED_DEALS:,}."
        )
    else:
        sentences.append(
            f"{close} of {shown} cells are close calls: the card marks them and says how "
            "many deals would separate them."
        )
    return [t for t in sentences if len(t.split()) <= ANSWER_WORDS][:5]


# ------------------------------------------------------------------------ report
def advice_report(study: AdviceStudy, command: str) -> Report:
    """The advice report: knock or play on, take or draw, undercut risk of the strong
    player beside ``basic``'s, the rule sets compared, and the check against play."""
    parts = advice_tables(study)
    a, b = study.players
    line = parts["knock-line"]
    fit = parts["knock-fit"]
    by_opponent = parts["knock-line-by-opponent"]
    takes = parts["take-cells"]
    strong_rates = parts["undercut-strong-by-deadwood"]
    check = parts["check-against-play"]
    knocks_of_study = knock_positions(study.positions)
    n_knock = len(knocks_of_study)
    n_take = int(study.positions["kind"].isin(["offer", "draw"]).sum())
    n_deals = study.positions["deal"].nunique()

    cards = study_cards(study, parts)
    card = cards[0]
    cell_rule = (
        "a verdict where the cell's 95% interval, clustered by deal, excludes 0; thin cells "
        f"(fewer than {MIN_CELL_POSITIONS} positions) and those holding 0 are close"
    )
    findings = [
        f"Where knocking pays for {a} against {b} under {study.rules}, by cards left in the "
        f"stock ({cell_rule}): {knock_summary(card.cells)}.",
    ]
    split = parts["knock-cells-by-opponent"]
    said = []
    for took, words in ((True, "has taken from the pile"), (False, "has not")):
        rows = split[split["opponent_took"].astype(str) == str(took)]
        said.append(
            f"when the opponent {words}: {knock_summary(knock_cells_of(rows, study.deals))}"
        )
    findings.append("The same " + "; ".join(said) + ".")
    draws = takes[takes["kind"] == "draw"]
    take_words = []
    for row in draws.itertuples():
        if row.positions:
            verdict = "take" if row.low > 0 else ("draw" if row.high < 0 else "close")
            take_words.append(f"{row.card_does}: {_gain(row.mean, row.half_width)} ({verdict})")
    findings.append(
        "Take the discard or draw, by what the card does for the hand (gain of taking per "
        "decision, points per hand): " + "; ".join(take_words) + "."
    )
    knocked = strong_rates[strong_rates["knocks"] > 0]
    findings.append(
        f"Undercut risk of {a}'s own knocks by deadwood (per knock): "
        + ", ".join(
            f"{int(r.knocker_deadwood)}: {_rate(r.rate, r.low, r.high)}"
            for r in knocked.itertuples()
        )
        + "; beside those of basic against simple in the undercut section."
    )
    if len(cards) > 1:
        findings.append(
            "Where knocking pays, by rule set: "
            + "; ".join(f"{c.rules}: {knock_summary(c.cells)}" for c in cards)
            + "."
        )
    if study.compared:
        for name in study.compared:
            if f"knock-difference-{name}" in parts:
                change = paired_change(knocks_of_study, knock_positions(study.compared[name]))
                findings.append(
                    f"Under {name} the gain of knocking over playing on changes by "
                    f"{_gain(change.mean, change.half_width)} points per knock decision "
                    f"against {study.rules}, on the same positions and worlds (by deadwood in "
                    "the rule-set section)."
                )
    findings.append(_check_findings(check, study.players))
    findings.append(_gap_findings(parts["played-value-gaps"], study))

    knock_grid = _grid(parts["knock-cells"], "deadwood", "stock_band", "deadwood")
    sections = [
        Section(
            f"The strategy card: {study.rules}",
            card_markdown(card, "##", title=False)
            + "\n`gin-sim card` prints this card, or writes it for print (PNG, SVG) and as "
            "JSON, for any advice report folder (docs/card.md).",
        ),
        Section(
            "Knock or play on",
            f"Each cell: the gain of knocking over the best way to play on (points per hand), "
            f"{PER_DECISION}; then the positions behind it; over {n_knock:,} knock positions "
            f"of {n_deals:,} deals (`knock-cells.csv`, which also has the decisions the cell "
            f"stands for and its deals). Cells of fewer than {MIN_CELL_POSITIONS} positions "
            "are marked thin (grey in the figure). Positive: knock.",
            knock_grid,
            ["knock-gain-map"],
        ),
        *_by_play_section(parts, study),
        Section(
            "The fitted line (a detail)",
            "Per stock band, the gain of knocking is also fitted on the deadwood 1 to 10 (0 "
            "is gin) by weighted least squares, each position weighted by `weight`: gain = "
            "a + b × deadwood, with a 95% interval from "
            f"{LINE_RESAMPLES:,} bootstrap resamples of the band's deals (seeded). The table "
            "says where the fitted gain crosses 0 and which side of it knocks; a crossing "
            "outside 0 to 10 is given in words (`knock-line.csv` has the numbers). The "
            "verdicts above come from the cells, not from this line, which the next table "
            "shows does not describe every cell.",
            _line_table(line, ["stock_band"], ["cards in the stock"]),
            ["knock-fit"],
        ),
        Section(
            "Does a line fit?",
            "Per deadwood (rows) and stock band (columns): the fitted gain of knocking with "
            "its 95% bootstrap interval, then the cell's mean gain per decision less the fit "
            "(the residual) with its interval, marked * where that interval excludes 0 (the "
            "line does not describe the cell), and the cell's positions in square brackets "
            f"(`knock-fit.csv`). {_misfits(fit)} of {int((fit['positions'] > 0).sum())} cells "
            "are marked; with 95% intervals about 1 in 20 would be by chance alone.",
            _fit_grid(fit, "stock_band"),
            [],
        ),
        Section(
            "The fitted line when the opponent has taken from the pile, or not",
            "The same fit per stock band, the knock positions split by whether the "
            "opponent has taken a card from the discard pile (`knock-fit-by-opponent.csv` "
            "has its fit).",
            _line_table(
                by_opponent,
                ["opponent_took", "stock_band"],
                ["opponent took", "cards in the stock"],
            ),
            [],
        ),
        Section(
            "Take or draw",
            f"Each cell: the gain of taking the card on offer over drawing (declining at the "
            f"first upcard), by what the card does for the hand, {PER_DECISION}; over "
            f"{n_take:,} offer and draw positions (`take-cells.csv`). Positive: take.",
            _grid(parts["take-cells"], "card_does", "kind", "the card"),
            ["take-gain-map"],
        ),
        Section(
            "Take or draw by cards in the stock",
            "The same estimator by stock band.",
            _grid(parts["take-cells-by-stock"], "card_does", "stock_band", "the card"),
            [],
        ),
        Section(
            "Undercut risk of strong knockers",
            f"{a}'s knocks at its kept knock positions, each weighted by `weight` (the knock "
            "decisions it stands for), so the rates are per knock; clustered by deal, Wilson "
            f"intervals. Beside them {study.basic_label}'s knocks (all thresholds pooled, as "
            "`report undercut`). The opponents differ, so the comparison is of the two "
            "settings, not of the knockers alone.",
            _undercut_side_by_side(
                parts["undercut-strong-by-deadwood"],
                parts["undercut-basic-by-deadwood"],
                "knocker_deadwood",
                "deadwood",
            ),
            [],
        ),
        Section(
            "Undercut risk by cards in the stock",
            "",
            _undercut_side_by_side(
                parts["undercut-strong-by-stock"],
                parts["undercut-basic-by-stock"],
                "stock_band",
                "cards in the stock",
            ),
            [],
        ),
        Section(
            "Undercut risk of strong knockers by deadwood and cards in the stock",
            f"{a}'s knocks as above, by deadwood (rows) and cards left in the stock (columns, "
            "from the start of the hand): each cell the rate per knock, its 95% Wilson "
            f"interval and, in square brackets, its knock positions; cells of fewer than "
            f"{MIN_CELL_POSITIONS} are marked thin (`undercut-strong-cells.csv`).",
            undercut_grid(parts["undercut-strong-cells"], "knocks"),
            [],
        ),
        Section(
            f"Undercut risk of {study.basic_label.split(' (')[0]} by deadwood and cards in "
            "the stock",
            f"The same grid for {study.basic_label} (`undercut-basic-cells.csv`; knocks in "
            "square brackets).",
            undercut_grid(parts["undercut-basic-cells"], "knocks"),
            [],
        ),
    ]
    knock_rule = next((r.text for r in card.rules_of_thumb if r.covers[0][0] == "knock"), "")
    take_rule = next((r.text for r in card.rules_of_thumb if r.covers[0][0] != "knock"), "")
    figures_drawn = {
        f"card-{c.rules}": (lambda path, c=c: draw_card(c, [path, path.with_suffix(".svg")]))
        for c in cards
    }
    figures_drawn |= {
        "knock-gain-map": lambda path: figures.gain_map(
            path,
            parts["knock-cells"],
            "deadwood",
            "stock_band",
            (knock_rule or "No clear knock rule in these cells")
            + f"\ngain of knocking over playing on, points a hand ({a} against {b}, {study.rules})",
            "your deadwood after the discard",
            "cards left in the stock (the hand goes on to the right)",
            MIN_CELL_POSITIONS,
        ),
        "knock-fit": lambda path: figures.knock_fits(
            path,
            fit,
            line,
            "stock_band",
            f"Gain of knocking by deadwood, the cells and a fitted line ({a} against {b}, "
            f"{study.rules})",
            MIN_CELL_POSITIONS,
        ),
        "take-gain-map": lambda path: figures.gain_map(
            path,
            parts["take-cells"],
            "card_does",
            "kind",
            (take_rule or "No clear take rule in these cells")
            + f"\ngain of taking over drawing, points a hand ({a} against {b}, {study.rules})",
            "what the card does for your hand",
            "decision (offer: the first upcard)",
            MIN_CELL_POSITIONS,
        ),
    }
    for other in cards[1:]:
        sections.append(
            Section(
                f"The strategy card: {other.rules}",
                (
                    f"{other.how[0].upper()}{other.how[1:]}. Rules of thumb: "
                    + " ".join(r.text for r in other.rules_of_thumb)
                    if other.rules_of_thumb
                    else f"{other.how[0].upper()}{other.how[1:]}. No cell is clear enough "
                    "for a rule of thumb."
                ),
                None,
                [f"card-{other.rules}"],
            )
        )
    if "knock-line-by-rules" in parts:
        by_rules = parts["knock-line-by-rules"]
        sections.append(
            Section(
                "The fitted line by rule set (a detail)",
                "The fitted line of each rule set, as above (`knock-fit-by-rules.csv` has "
                "the fits, `knock-line-by-rules.csv` the crossings).",
                _line_table(by_rules, ["rules", "stock_band"], ["rules", "cards in the stock"]),
                [],
            )
        )
        for name in study.compared:
            if f"knock-difference-{name}" in parts:
                diff = parts[f"knock-difference-{name}"]
                sections.append(
                    Section(
                        f"{name} against {study.rules}, paired",
                        f"The gain of knocking under {name} less under {study.rules}, on the "
                        f"same positions and worlds, by deadwood, {PER_DECISION} "
                        "(`knock-difference-*.csv`; take or draw in `take-difference-*.csv`).",
                        pd.DataFrame(
                            {
                                "deadwood": diff["deadwood"].astype(str),
                                "change in the gain of knocking": [
                                    _cell_text(r) for r in diff.itertuples()
                                ],
                            }
                        ),
                        [],
                    )
                )
    sections.append(
        Section(
            "Check against play",
            "For each cell, its first positions in deal order, up to the check's size (their "
            "number in brackets beside the search's gain): from the position as it was (the opponent's real hidden cards; the stock reshuffled, "
            "since neither player has seen it), the headline action and its baseline are "
            f"forced and {a} and {b} play the hand out, {study.continuations} times per "
            "position on the same stocks for both actions. The search's gains use rollout "
            "policies and worlds drawn from the player's view, not the real players and "
            "cards; this measures what the advice is worth in the players' own play. Every "
            f"figure is {PER_DECISION}. The test is the paired difference, play less search "
            "position by position: 'flagged' when its 95% interval excludes 0. 'Detectable' "
            "is the smallest true difference the check would detect with 80% power in a "
            "two-sided test at 5%, (1.96 + 0.84) times the difference's standard error: a "
            "cell not flagged says only that the difference is probably smaller than that, "
            "not that search and play agree. The whole cell's mean (first column) differs "
            "from the checked positions' by which positions were checked. A searcher plays "
            "each continuation from what it knew at the position (its opponent posterior, "
            "replayed from the deal). The difference is split in two, each tested alike: "
            "the policies (play less the search's own rollout policies and opponent model "
            "playing from the same real cards on the same stocks: a wrong opponent model "
            "shows here) and the worlds (those rollouts less the search: the real hidden "
            "cards against the worlds the search draws from the player's view).",
            _check_shown(check),
            [],
        )
    )
    gaps = parts["played-value-gaps"]
    sections.append(
        Section(
            "The search's values against the hands' real outcomes",
            f"For every kind: the search's value of the move the player made, the real "
            f"points of those hands, and the gap (real less search, per position), each "
            f"{PER_DECISION} (`played-value-gaps.csv`). The search draws the hidden cards "
            f"from the player's view and plays the rest of the hand with its rollout policies "
            f"({study.evaluation}); the hands were played by {a} and {b} from the real cards. "
            "A gap that is not 0 says the search's values differ from the real outcomes, "
            "through its policies, its worlds or both. Gains are differences between "
            "actions' values on the same worlds, so a gap shared alike by every action "
            "leaves them unchanged; the check against play above tests the gains themselves.",
            pd.DataFrame(
                {
                    "kind": gaps["kind"],
                    "positions": gaps["positions"].astype(str),
                    "search's value of the move made": [f"{v:+.2f}" for v in gaps["search_value"]],
                    "real points": [f"{v:+.2f}" for v in gaps["real_points"]],
                    "gap (real less search)": [
                        _gain(m, h)
                        for m, h in zip(gaps["gap_mean"], gaps["gap_half_width"], strict=True)
                    ],
                }
            ),
            [],
        )
    )
    from gin_sim.experiments.distill import DISTILLED_BASE, family_base, proposals

    made = proposals(
        parts, study.rule_sets[study.rules], [study.rule_sets[n] for n in study.compared],
        family_base(DISTILLED_BASE),
    )  # fmt: skip
    sections.append(
        Section(
            "A distilled strategy",
            f"The changes to {DISTILLED_BASE} these tables propose (`gin_sim.experiments.distill`): "
            "each rule set's knock line as its knock schedule (the fit's threshold: the line "
            f"rounded down, within 0 and the knock limit; a band of fewer than "
            f"{MIN_CELL_POSITIONS} positions keeps the band before it) and "
            "the take rule of the take-or-draw cells. The tables measure what a decision is "
            f"worth in {a}'s play, not in a family member's, so `gin-sim distill OUT --deals "
            f"N --seed S --out advised.toml` plays each change against {DISTILLED_BASE} and "
            "keeps only those that win there; confirm the result on decks of another seed "
            '(docs/advice.md, "The distilled strategy").',
            pd.DataFrame(
                {
                    "rule set": [p.rules for p in made],
                    "proposed change": [p.describe() for p in made],
                }
            ),
        )
    )
    parts["distill-proposals"] = pd.DataFrame(
        {
            "rules": [p.rules for p in made],
            "when": [str(dict(p.when)) for p in made],
            "changes": [str(dict(p.changes)) for p in made],
            "source": [p.source for p in made],
        }
    )
    return Report(
        kind="advice",
        title=f"Advice from strong play: {a} against {b} under {study.rules}",
        command=command,
        setup=[
            f"Positions: {study.deals:,} deals of {a} against {b} under {study.rules}, seed "
            f"{study.seed}; each decision of a kind kept with its kind's probability and "
            "weighted by its inverse (docs/advice.md).",
            _scale_note(study.deals),
            f"Evaluation: {study.evaluation}.",
            f"Check against play: {study.continuations} continuations per checked position.",
            f"Undercut comparison: {study.basic_label}.",
            "Estimators: every mean over decisions is weighted by `weight` (Hajek), its "
            "interval clustered by deal; the knock line is a weighted least-squares fit per "
            f"stock band with a {LINE_RESAMPLES:,}-resample bootstrap over deals.",
        ],
        findings=findings,
        sections=sections,
        tables={name: frame for name, frame in parts.items()},
        figures=figures_drawn,
        answer=_answer(card),
        answer_figure=f"card-{card.rules}",
    )
