"""The knock-threshold report: every threshold from gin only to the knock limit, side by side."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from gin_sim.game.rules import Rules
from gin_sim.players.strategies import Strategy
from gin_sim.reports import figures
from gin_sim.reports.document import Report, Section, display, format_value
from gin_sim.reports.sweeps import Sweep
from gin_sim.reports.tables import FIGURES, MATCHES_WON, NET


def _lower(text: str) -> str:
    text = text.rstrip(".")
    return text[:1].lower() + text[1:]


def run_setup(sweep: Sweep, strategy: Strategy, what: str) -> list[str]:
    """The 'what was run' bullets every sweep-based report shares."""
    rules, opponent = sweep.rules, sweep.opponent
    setup = [
        f"Rule set `{rules.name}`: {rules.describe().split(': ', 1)[1]} (RULES.md).",
        f"{what}, against `{opponent.name}` ({_lower(opponent.description)}).",
        f"Strategy `{strategy.name}` as configured: {_lower(strategy.description)}."
        + (
            " Its `[[adapt]]` tables for this rule set are applied, then the knocking is "
            "replaced by the swept one."
            if strategy.adapt
            else ""
        ),
        f"{sweep.deals:,} decks (seed {sweep.seed}, decks {sweep.first_deal:,} to "
        f"{sweep.first_deal + sweep.deals - 1:,}), each played twice with the seats swapped "
        f"(duplicate deals, so {2 * sweep.deals:,} hands per variant), the same decks for every "
        "variant (common random numbers); the dealer alternates with the deck number.",
    ]
    if sweep.matches:
        setup.append(
            f"{sweep.matches:,} Hollywood matches per variant (R19 to R21), each played twice with "
            "the strategies' seats swapped (the first dealer's seat stays, so the other strategy "
            "deals the first hand), the same deck sequences for every variant."
        )
    setup.append(
        "Every figure is for the swept strategy (player 1) and comes with its 95% interval "
        "(delta method, the two plays of a deck or a match counted as one unit). Differences "
        "between variants are paired deck by deck."
    )
    return setup


def lead_sentence(sweep: Sweep, describe) -> str:
    """Plain words on whether the best variant's lead over the next best is significant."""
    lead = sweep.lead()
    verdict = (
        "statistically significant at the 95% level"
        if lead["significant"]
        else f"not statistically significant: with {sweep.deals:,} decks the two cannot be told apart"
    )
    return (
        f"Its lead over the next best, {describe(lead['next'])}, is "
        f"{format_value(NET, lead['mean'], lead['half_width'])} points per hand (paired on the "
        f"same decks), {verdict}."
    )


def value(sweep: Sweep, label, figure: str) -> str:
    row = sweep.figures[(sweep.figures[sweep.key] == label) & (sweep.figures["figure"] == figure)]
    if row.empty:
        return "n/a"
    return format_value(figure, row["mean"].iloc[0], row["half_width"].iloc[0])


def threshold_words(threshold: int) -> str:
    return "threshold 0 (gin only)" if threshold == 0 else f"threshold {threshold}"


def points(mean: float, half_width: float | None = None) -> str:
    """Points a hand for a report's opening: 2 decimals, with the 95% half-width."""
    text = f"{mean:.2f}"
    return text + (f" ± {half_width:.2f}" if half_width is not None else "")


def knock_action(threshold: int, knock_limit: int) -> str:
    """What a knock threshold tells a player to do, in plain words."""
    if threshold == 0:
        return "knock only with gin"
    if threshold >= knock_limit:
        return f"knock as soon as you may (deadwood {knock_limit} or less)"
    return f"knock with deadwood {threshold} or less"


def _net(sweep: Sweep, label, figure: str = NET) -> tuple[float, float]:
    row = sweep.figures[(sweep.figures[sweep.key] == label) & (sweep.figures["figure"] == figure)]
    return float(row["mean"].iloc[0]), float(row["half_width"].iloc[0])


def knock_answer(sweep: Sweep) -> list[str]:
    """The report's opening: the threshold to play, by how much, and what waiting costs
    (issue 43: short sentences a player can act on, each figure with its 95% interval)."""
    best, limit = sweep.best(), sweep.rules.knock_limit
    opponent, rules = sweep.opponent.name, sweep.rules.name
    lead = sweep.lead()
    mean, half = _net(sweep, best)
    answer = [
        f"Against `{opponent}` under `{rules}`, {knock_action(best, limit)}: "
        f"{threshold_words(best)} scores {points(mean, half)} points a hand, the best of "
        f"thresholds 0 to {limit}."
    ]
    if lead["significant"]:
        answer.append(
            f"It beats the next best, {threshold_words(lead['next'])}, by "
            f"{points(lead['mean'], lead['half_width'])} points a hand on the same decks."
        )
    else:
        answer.append(
            f"It cannot be told apart from {threshold_words(lead['next'])} on "
            f"{sweep.deals:,} decks (lead {points(lead['mean'], lead['half_width'])} points a hand)."
        )
    worst = sweep.ranking()[sweep.key].iloc[-1]
    if best != 0:
        gin_mean, gin_half = _net(sweep, 0)
        answer.append(
            f"Waiting for gin (threshold 0) scores {points(gin_mean, gin_half)} points a hand; "
            f"the worst, {threshold_words(worst)}, scores {points(*_net(sweep, worst))}."
        )
    else:
        answer.append(
            f"The worst, {threshold_words(worst)}, scores {points(*_net(sweep, worst))} points a hand."
        )
    if sweep.matches:
        win, win_half = _net(sweep, best, MATCHES_WON)
        top = sweep.ranking(MATCHES_WON)[sweep.key].iloc[0]
        answer.append(
            f"At {threshold_words(best)} you win {100 * win:.1f}% ± {100 * win_half:.1f} of "
            f"Hollywood matches"
            + (
                ", the most of any threshold."
                if top == best
                else f"; {threshold_words(top)} wins the most, {100 * _net(sweep, top, MATCHES_WON)[0]:.1f}%."
            )
        )
    return answer


def knock_findings(sweep: Sweep) -> list[str]:
    best = sweep.best()
    opponent = sweep.opponent.name
    findings = [
        f"Best knock threshold against `{opponent}` under `{sweep.rules.name}`: **{best}** "
        f"(knock when the deadwood left is {best} or less), "
        f"{value(sweep, best, NET)} net points per hand. " + lead_sentence(sweep, threshold_words)
    ]
    ranking = sweep.ranking()
    worst = ranking[sweep.key].iloc[-1]
    gin_only = sweep.differences().set_index(sweep.key).loc[0]
    findings.append(
        f"The worst is threshold {worst} ({value(sweep, worst, NET)}). Knocking only with gin "
        f"(threshold 0) gives {value(sweep, 0, NET)}; the difference from the best, paired on "
        f"the same decks, is {format_value(NET, gin_only['mean'], gin_only['half_width'])} points "
        "per hand."
    )
    findings.append(
        f"At the best threshold the strategy wins {value(sweep, best, 'hands won')} of hands, "
        f"knocks in {value(sweep, best, 'knock rate')} (gin in {value(sweep, best, 'gin rate')}) "
        f"and is undercut on {value(sweep, best, 'undercut rate (per knock)')} of its knocks; "
        f"a hand lasts {value(sweep, best, 'turns per hand')} turns."
    )
    if sweep.matches:
        by_match = sweep.ranking(MATCHES_WON)
        top = by_match[sweep.key].iloc[0]
        where = (
            "which is also the threshold with the highest match win rate"
            if top == best
            else f"the highest match win rate is at threshold {top} ({value(sweep, top, MATCHES_WON)})"
        )
        findings.append(
            f"Hollywood matches: at threshold {best} the strategy wins "
            f"{value(sweep, best, MATCHES_WON)} of matches; {where}."
        )
    return findings


def knock_report(sweep: Sweep, strategy: Strategy, command: str) -> Report:
    """The report of a knock-threshold sweep (``sweeps.knock_sweep``)."""
    rules: Rules = sweep.rules
    differences = sweep.differences()
    shown = [f for f in FIGURES if f in set(sweep.figures["figure"])]
    best = sweep.best()
    table = display(sweep.figures, "threshold")
    difference_table = pd.DataFrame(
        {
            "threshold": differences["threshold"],
            "net points vs best": [
                format_value(NET, m, h)
                for m, h in zip(differences["mean"], differences["half_width"], strict=True)
            ],
            "significant": [
                "best" if t == best else ("yes" if s else "no")
                for t, s in zip(differences["threshold"], differences["significant"], strict=True)
            ],
        }
    )
    title = f"Knock thresholds under {rules.name} against {sweep.opponent.name}"
    answer = knock_answer(sweep)
    others = differences[differences["threshold"] != best]
    worse = int((others["significant"] & (others["mean"] < 0)).sum())
    difference_title = (
        f"{threshold_words(best).capitalize()} scores the most: {worse} of the other "
        f"{len(others)} thresholds score fewer points a hand, beyond doubt (paired 95% intervals)"
    )

    def draw_figures(path: Path) -> None:
        figures.lines_with_bands(
            path,
            sweep.figures,
            "threshold",
            shown,
            title=figures.finding_title(answer[0], 100),
            x_label="knock threshold (the most deadwood you knock with)",
            mark={"": best},
        )

    def draw_differences(path: Path) -> None:
        figures.interval_points(
            path,
            differences.assign(threshold=differences["threshold"].map(threshold_words)),
            "threshold",
            figures.finding_title(difference_title),
            f"points a hand compared with {threshold_words(best)}",
            highlight=[threshold_words(best)],
        )

    return Report(
        kind="knock",
        title=title,
        command=command,
        setup=run_setup(
            sweep,
            strategy,
            f"`{strategy.name}` with each knock threshold 0 (gin only) to {rules.knock_limit} "
            "(knock when the least deadwood after the discard is at most the threshold)",
        ),
        findings=knock_findings(sweep),
        sections=[
            Section(
                "Figures by knock threshold",
                "Net points per hand are the points the strategy scores minus the points its "
                "opponent scores, over all hands (draws included). Rates are per hand, except "
                "the undercut rate (per knock made); deadwood when knocking includes gins (0).",
                table,
                ["figures-by-threshold"],
            ),
            Section(
                "Each threshold against the best",
                f"Net points per hand of each threshold minus threshold {best}, paired on the same "
                "decks, so most of the luck of the deal cancels: an interval that excludes 0 "
                "means a real difference.",
                difference_table,
                ["difference-from-best"],
            ),
        ],
        tables={"figures": sweep.figures, "differences": differences},
        figures={"figures-by-threshold": draw_figures, "difference-from-best": draw_differences},
        answer=answer,
        answer_figure="difference-from-best",
    )
