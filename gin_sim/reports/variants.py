"""The rule-variant report: the same knock-threshold sweep under several rule sets, side by side."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields

import pandas as pd

from gin_sim.experiments.outputs import safe_name
from gin_sim.game.rules import Rules
from gin_sim.players.strategies import Strategy
from gin_sim.reports import figures, tables
from gin_sim.reports.document import Report, Section, format_value
from gin_sim.reports.knock import knock_action, points, run_setup, value
from gin_sim.reports.sweeps import Sweep
from gin_sim.reports.tables import MATCHES_WON, NET

# Figures of the play itself (not of the points): equal under rule sets that change only scoring.
PLAY_FIGURES = (
    "hands won",
    "knock rate",
    "gin rate",
    "undercut rate (per knock)",
    "deadwood when knocking",
    "turns per hand",
)


def rule_differences(first: Rules, second: Rules) -> list[str]:
    """``key = value`` of ``second`` for every rule where it differs from ``first``."""
    return [
        f"{f.name} = {getattr(second, f.name)}"
        for f in fields(Rules)
        if f.name != "name" and getattr(first, f.name) != getattr(second, f.name)
    ]


def combined_figures(sweeps: Mapping[str, Sweep]) -> pd.DataFrame:
    return pd.concat(
        [sweep.figures.assign(rules=name) for name, sweep in sweeps.items()], ignore_index=True
    )[["rules", *next(iter(sweeps.values())).figures.columns]]


def best_thresholds(sweeps: Mapping[str, Sweep]) -> pd.DataFrame:
    rows = []
    for name, sweep in sweeps.items():
        lead = sweep.lead()
        best_row = sweep.ranking().iloc[0]
        rows.append(
            {
                "rules": name,
                "gin_bonus": sweep.rules.gin_bonus,
                "undercut_bonus": sweep.rules.undercut_bonus,
                "knock_limit": sweep.rules.knock_limit,
                "oklahoma": sweep.rules.oklahoma,
                "best_threshold": int(lead["best"]),
                "net_points": best_row["mean"],
                "net_points_half_width": best_row["half_width"],
                "next_best": int(lead["next"]),
                "lead": lead["mean"],
                "lead_half_width": lead["half_width"],
                "lead_low": lead["low"],
                "lead_high": lead["high"],
                "lead_significant": lead["significant"],
            }
        )
    return pd.DataFrame.from_records(rows)


def differences_from(sweeps: Mapping[str, Sweep], reference: str) -> pd.DataFrame:
    """Net points per hand under each rule set minus the ``reference`` set, per threshold,
    paired deck by deck (every rule set plays the same decks)."""
    frames = []
    base = sweeps[reference]
    for name, sweep in sweeps.items():
        if name == reference:
            continue
        for threshold in sweep.runs:
            if threshold not in base.runs:
                continue
            pair = {name: sweep.runs[threshold], reference: base.runs[threshold]}
            row = tables.paired_differences(pair, reference, "rules").iloc[[0]]
            frames.append(row.assign(reference=reference, threshold=threshold))
    if not frames:
        return pd.DataFrame(columns=["rules", "reference", "threshold", *tables.ESTIMATE_COLUMNS])
    out = pd.concat(frames, ignore_index=True)
    return out[["rules", "reference", "threshold", *tables.ESTIMATE_COLUMNS, "significant"]]


def side_by_side(table: pd.DataFrame, figure: str) -> pd.DataFrame:
    """One figure as threshold rows by rule-set columns of ``mean ± half_width``."""
    rows = table[table["figure"] == figure] if "figure" in table else table
    out = {"threshold": sorted(rows["threshold"].unique())}
    for name, group in rows.groupby("rules", sort=False):
        by_threshold = group.set_index("threshold")
        out[name] = [
            format_value(figure, by_threshold.loc[t, "mean"], by_threshold.loc[t, "half_width"])
            if t in by_threshold.index
            else ""
            for t in out["threshold"]
        ]
    return pd.DataFrame(out)


def same_play(sweeps: Mapping[str, Sweep]) -> list[str]:
    """The rule sets whose play figures equal the first set's exactly (only scoring differs)."""
    names = list(sweeps)
    first = sweeps[names[0]].figures
    play = first[first["figure"].isin(PLAY_FIGURES)].reset_index(drop=True)
    same = [names[0]]
    for name in names[1:]:
        other = sweeps[name].figures
        other_play = other[other["figure"].isin(PLAY_FIGURES)].reset_index(drop=True)
        if other_play[["mean"]].equals(play[["mean"]]):
            same.append(name)
    return same


def variant_findings(
    sweeps: Mapping[str, Sweep], best: pd.DataFrame, differences: pd.DataFrame
) -> list[str]:
    names = list(sweeps)
    reference = names[0]
    findings = []
    for row in best.itertuples():
        sweep = sweeps[row.rules]
        significance = "significant" if row.lead_significant else "not significant"
        findings.append(
            f"`{row.rules}`: best knock threshold against `{sweep.opponent.name}` "
            f"**{row.best_threshold}**, "
            f"{format_value(NET, row.net_points, row.net_points_half_width)} net points per "
            f"hand; lead over threshold {row.next_best}: "
            f"{format_value(NET, row.lead, row.lead_half_width)} ({significance} at 95%)"
            + (
                f"; match win rate at the best threshold {value(sweep, row.best_threshold, MATCHES_WON)}."
                if sweep.matches
                else "."
            )
        )
    same = same_play(sweeps)
    if len(same) > 1:
        findings.append(
            f"{', '.join(f'`{n}`' for n in same)} give exactly the same play figures on the "
            "same decks (hands won, knock, gin and undercut rates, deadwood when knocking and "
            "hand length, to the last digit), as rule sets that differ only in scoring should; "
            "only the points change, and with them the best threshold and the matches."
        )
    best_by_rules = best.set_index("rules")
    for name in names[1:]:
        rows = differences[differences["rules"] == name].set_index("threshold")
        if rows.empty:
            continue
        changes = ", ".join(rule_differences(sweeps[reference].rules, sweeps[name].rules))
        low, high = rows["mean"].idxmin(), rows["mean"].idxmax()
        moved, was = (
            best_by_rules.loc[name, "best_threshold"],
            best_by_rules.loc[reference, "best_threshold"],
        )
        where = f"stays at {was}" if moved == was else f"is {moved} instead of {was}"
        sentence = (
            f"`{name}` against `{reference}` ({changes}): the best threshold {where}. "
            "Net points per hand change by "
            f"{format_value(NET, rows.loc[low, 'mean'], rows.loc[low, 'half_width'])} at "
            f"threshold {low} to {format_value(NET, rows.loc[high, 'mean'], rows.loc[high, 'half_width'])} "
            f"at threshold {high} (paired on the same decks)."
        )
        if sweeps[name].matches and sweeps[reference].matches:
            t = int(best_by_rules.loc[reference, "best_threshold"])
            sentence += (
                f" Match win rate at threshold {t}: {value(sweeps[name], t, MATCHES_WON)} "
                f"against {value(sweeps[reference], t, MATCHES_WON)}."
            )
        findings.append(sentence)
    return findings


def variant_answer(sweeps: Mapping[str, Sweep], best: pd.DataFrame) -> list[str]:
    """The report's opening (issue 43): the knock threshold to play under each rule set, by
    how much it leads, and whether the rule sets change play or only its scoring."""
    rows = list(best.itertuples())
    shown = rows if len(rows) <= 4 else rows[:3]
    answer = []
    for row in shown:
        sweep = sweeps[row.rules]
        lead = (
            f"{points(row.lead, row.lead_half_width)} more than threshold {row.next_best}"
            if row.lead_significant
            else f"not told apart from threshold {row.next_best} on {sweep.deals:,} decks"
        )
        answer.append(
            f"Under `{row.rules}` against `{sweep.opponent.name}`, "
            f"{knock_action(row.best_threshold, sweep.rules.knock_limit)}: it scores "
            f"{points(row.net_points, row.net_points_half_width)} points a hand, {lead}."
        )
    if len(rows) > len(shown):
        answer.append(
            f"The other {len(rows) - len(shown)} rule sets are in the table of best thresholds below."
        )
    same = same_play(sweeps)
    if len(answer) < 5 and len(same) > 1:
        answer.append(
            f"{', '.join(f'`{n}`' for n in same)} differ only in scoring: the same play, "
            "scored differently, moves the best threshold."
        )
    return answer


def variants_report(sweeps: Mapping[str, Sweep], strategy: Strategy, command: str) -> Report:
    """The rule-variant report of knock sweeps played on the same decks under each rule set."""
    names = list(sweeps)
    reference = names[0]
    first = sweeps[reference]
    combined = combined_figures(sweeps)
    best = best_thresholds(sweeps)
    differences = differences_from(sweeps, reference)
    title = f"Rule variants against {first.opponent.name}: {', '.join(names)}"
    changes = "; ".join(
        f"`{n}`: {', '.join(rule_differences(first.rules, sweeps[n].rules)) or 'nothing'}"
        for n in names[1:]
    )
    shared = run_setup(
        first,
        strategy,
        f"Under each rule set, `{strategy.name}` with each knock threshold 0 (gin only) to the "
        "knock limit",
    )
    setup = [
        f"Rule sets: {', '.join(f'`{n}`' for n in names)}. `{reference}` is "
        f"{shared[0].split(': ', 1)[1]} Against it the others change {changes}.",
        *shared[1:],
    ]
    setup[-1] += " The decks and matches are the same under every rule set too."
    marks = {row.rules: float(row.best_threshold) for row in best.itertuples()}
    best_shown = pd.DataFrame(
        {
            "rules": best["rules"],
            "gin bonus": best["gin_bonus"],
            "undercut bonus": best["undercut_bonus"],
            "best threshold": best["best_threshold"],
            "net points per hand": [
                format_value(NET, m, h)
                for m, h in zip(best["net_points"], best["net_points_half_width"], strict=True)
            ],
            "next best": best["next_best"],
            "lead (paired)": [
                format_value(NET, m, h)
                for m, h in zip(best["lead"], best["lead_half_width"], strict=True)
            ],
            "significant": ["yes" if s else "no" for s in best["lead_significant"]],
        }
    )
    sections = [
        Section("Best knock threshold by rule set", "", best_shown, ["net-points-by-rules"]),
        Section(
            "Net points per hand by threshold",
            "The strategy's points minus its opponent's, per hand, under each rule set.",
            side_by_side(combined, NET),
        ),
    ]
    figure_draws = {
        "net-points-by-rules": lambda path: figures.lines_with_bands(
            path,
            combined,
            "threshold",
            [NET],
            hue="rules",
            title=figures.finding_title(
                "Best knock threshold: "
                + ", ".join(f"{row.best_threshold} under {row.rules}" for row in best.itertuples())
                + f" ({strategy.name} against {first.opponent.name}; dashed: the best)",
                55,
            ),
            x_label="knock threshold (the most deadwood you knock with)",
            mark=marks,
        ),
    }
    if first.matches:
        sections.append(
            Section(
                "Hollywood match win rate by threshold",
                "",
                side_by_side(combined, MATCHES_WON),
                ["matches-won-by-rules"],
            )
        )
        figure_draws["matches-won-by-rules"] = lambda path: figures.lines_with_bands(
            path,
            combined,
            "threshold",
            [MATCHES_WON],
            hue="rules",
            title=figures.finding_title(
                "Most Hollywood matches won at threshold "
                + ", ".join(
                    f"{sweeps[name].ranking(MATCHES_WON)['threshold'].iloc[0]} under {name}"
                    for name in names
                )
                + f" ({strategy.name} against {first.opponent.name})",
                55,
            ),
            x_label="knock threshold (the most deadwood you knock with)",
        )
    if not differences.empty:
        shown = side_by_side(differences, NET)
        sections.append(
            Section(
                f"Net points per hand against `{reference}`, paired",
                f"Each rule set's net points per hand minus `{reference}`'s at the same threshold, "
                "on the same decks.",
                shown,
                [f"difference-from-{reference}"],
            )
        )
        panels = differences.assign(
            figure=differences["rules"] + f" minus {reference}: points a hand"
        )
        spans = []
        for name, rows in differences.groupby("rules", sort=False):
            rows = rows.set_index("threshold")["mean"]
            spans.append(
                f"{name} scores {rows.min():+.2f} (threshold {rows.idxmin()}) to "
                f"{rows.max():+.2f} (threshold {rows.idxmax()}) points a hand against {reference}"
            )
        difference_title = figures.finding_title(
            "; ".join(spans) + " (the same decks, 95% intervals)", 110
        )
        figure_draws[f"difference-from-{safe_name(reference)}"] = lambda path: (
            figures.lines_with_bands(
                path,
                panels,
                "threshold",
                list(dict.fromkeys(panels["figure"])),
                title=difference_title,
                x_label="knock threshold (the most deadwood you knock with)",
            )
        )
    sections.append(
        Section(
            "How the play changes",
            "Hands won, knocks, gins and undercuts per threshold under each rule set.",
            None,
            ["play-by-rules"],
        )
    )
    figure_draws["play-by-rules"] = lambda path: figures.lines_with_bands(
        path,
        combined,
        "threshold",
        list(PLAY_FIGURES[:4]),
        hue="rules",
        title=(
            f"The same play under {', '.join(same_play(sweeps))}: they differ only in scoring "
            f"({strategy.name} against {first.opponent.name})"
            if len(same_play(sweeps)) == len(sweeps)
            else f"How the play changes by rule set ({strategy.name} against {first.opponent.name})"
        ),
        x_label="knock threshold (the most deadwood you knock with)",
    )
    return Report(
        kind="variants",
        title=title,
        command=command,
        setup=setup,
        findings=variant_findings(sweeps, best, differences),
        sections=sections,
        tables={
            "figures": combined,
            "best-thresholds": best,
            f"differences-from-{reference}": differences,
        },
        figures=figure_draws,
        answer=variant_answer(sweeps, best),
        answer_figure="net-points-by-rules",
    )
