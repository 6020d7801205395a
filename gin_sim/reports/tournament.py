"""The tournament report: a round robin's cross tables, a ranking with intervals, findings.

Tables come from ``gin_sim.experiments.tournament`` (cells with delta-method 95% intervals, the two
plays of a deck or a match as one unit) and ``gin_sim.experiments.ranking`` (least-squares ratings on
the pairwise net points, intervals by a seeded bootstrap over decks).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd

from gin_sim.experiments.holdout import bonferroni_factor
from gin_sim.experiments.outputs import safe_name
from gin_sim.experiments.ranking import Ratings, bootstrap_ratings, cycles
from gin_sim.experiments.tournament import GAME1_WON, MATCHES_WON, NET, Tournament
from gin_sim.reports import figures
from gin_sim.reports.document import Report, Section

RATE_CELLS = (MATCHES_WON, GAME1_WON)


def cell_text(figure: str, mean: float, half_width: float) -> str:
    if isinstance(mean, float) and math.isnan(mean):
        return "n/a"
    if figure in RATE_CELLS:
        return f"{100 * mean:.1f} ± {100 * half_width:.1f}%"
    return f"{mean:+.3f} ± {half_width:.3f}"


def shown_cross_table(
    cross: pd.DataFrame, rules: str, figure: str, names: list[str]
) -> pd.DataFrame:
    """One figure of one rule set as a player-by-opponent table of ``mean ± half_width``."""
    rows = cross[(cross["rules"] == rules) & (cross["figure"] == figure)]
    lookup = {(r.player, r.opponent): (r.mean, r.half_width) for r in rows.itertuples()}
    out: dict[str, list[str]] = {"player": list(names)}
    for opponent in names:
        out[opponent] = [
            "—" if player == opponent else cell_text(figure, *lookup[(player, opponent)])
            for player in names
        ]
    return pd.DataFrame(out)


def ratings_by_rules(tournament: Tournament) -> dict[str, Ratings]:
    """The ratings under each rule set; the same deck resamples under every rule set."""
    return {
        rules.name: bootstrap_ratings(
            tournament.names,
            tournament.pairs(),
            tournament.per_deck(rules.name),
            2,
            tournament.seed,
        )
        for rules in tournament.rules
    }


def ranking_table(tournament: Tournament, ratings: dict[str, Ratings]) -> pd.DataFrame:
    frames = []
    for rules, fitted in ratings.items():
        table = fitted.table()
        if tournament.matches:
            index = {name: i for i, name in enumerate(tournament.names)}
            for figure, column in ((MATCHES_WON, "match_win_rate"), (GAME1_WON, "game1_win_rate")):
                estimates = [
                    tournament.field_win_rate(rules, index[name], figure)
                    for name in table["player"]
                ]
                table[column] = [e.mean for e in estimates]
                table[f"{column}_half_width"] = [e.half_width for e in estimates]
        frames.append(table.assign(rules=rules))
    out = pd.concat(frames, ignore_index=True)
    return out[["rules", *[c for c in out.columns if c != "rules"]]]


def _cells(cross: pd.DataFrame, rules: str, figure: str) -> pd.DataFrame:
    return cross[(cross["rules"] == rules) & (cross["figure"] == figure)].set_index(
        ["player", "opponent"]
    )


def _list(names: list[str]) -> str:
    quoted = [f"`{n}`" for n in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def comparisons(tournament: Tournament) -> tuple[int, int]:
    """How many statements of each kind the findings make over all rule sets: pairings
    (head to head, and rating differences of any two strategies), and steps of a ranking
    (adjacent places). Their intervals are Bonferroni-adjusted for these numbers."""
    players, rule_sets = len(tournament.names), len(tournament.rules)
    return len(tournament.pairs()) * rule_sets, (players - 1) * rule_sets


def adjusted_cells(cells: pd.DataFrame, family: int) -> pd.DataFrame:
    """Cells (``mean``, ``half_width``) with ``low`` and ``high`` widened for ``family``
    simultaneous comparisons (Bonferroni)."""
    half_width = cells["half_width"] * bonferroni_factor(family)
    return cells.assign(low=cells["mean"] - half_width, high=cells["mean"] + half_width)


def tournament_answer(tournament: Tournament, ratings: dict[str, Ratings]) -> list[str]:
    """The report's opening (issue 43): the strongest and weakest strategy under each rule
    set, with the rating's 95% interval, and whether the rule set changes the winner."""
    count = len(tournament.names)
    answer = []
    tops = []
    names = list(ratings)
    shown = names if len(names) <= 4 else names[:3]
    for rules in shown:
        table = ratings[rules].table()
        top, bottom = table.iloc[0], table.iloc[-1]
        shared = table[table["rank_low"] <= 1]["player"].tolist()
        tops.append(top["player"])
        lead = (
            f"`{top['player']}` is the strongest of {count} strategies"
            if len(shared) == 1
            else f"{' and '.join(f'`{p}`' for p in shared)} share first place of {count} strategies"
        )
        answer.append(
            f"Under `{rules}`, {lead}: `{top['player']}` scores {top['rating']:+.2f} "
            f"[{top['low']:+.2f}, {top['high']:+.2f}] points a hand against the field's "
            f"average; `{bottom['player']}` is weakest, {bottom['rating']:+.2f}."
        )
    if len(names) > len(shown):
        answer.append(f"The other {len(names) - len(shown)} rule sets are ranked below.")
    elif len(set(tops)) > 1:
        answer.append("The rule set changes which strategy is best: choose by the rules you play.")
    return answer


def rules_findings(
    tournament: Tournament, rules: str, cross: pd.DataFrame, ratings: Ratings
) -> list[str]:
    """Findings under one rule set, in plain words; every statement of significance uses
    intervals adjusted for the number of such statements in the report (``comparisons``)."""
    names = tournament.names
    index = {name: i for i, name in enumerate(names)}
    table = ratings.table()
    pair_family, step_family = comparisons(tournament)
    net = adjusted_cells(_cells(cross, rules, NET), pair_family)
    findings = []
    order = ", ".join(
        f"{row.rank}. `{row.player}` {row.rating:+.3f} [{row.low:+.3f}, {row.high:+.3f}]"
        for row in table.itertuples()
    )
    findings.append(
        f"`{rules}` ranking (rating: net points per hand against the average of the field, "
        f"95% bootstrap interval): {order}."
    )
    # adjacent places: is each step of the order significant?
    steps = []
    for upper, lower in zip(table["player"][:-1], table["player"][1:], strict=True):
        difference, low, high = ratings.difference(index[upper], index[lower], step_family)
        significant = low > 0
        steps.append(
            f"`{upper}` over `{lower}` by {difference:.3f} [{low:.3f}, {high:.3f}]"
            + ("" if significant else " (not significant)")
        )
    certain = [f"{row.player} {row.rank_low}-{row.rank_high}" for row in table.itertuples()]
    findings.append(
        "Steps of the ranking (rating differences with 95% intervals from the bootstrap "
        f"standard error, Bonferroni-adjusted for the {step_family} steps in this report): "
        + "; ".join(steps)
        + ". 95% rank intervals: "
        + ", ".join(certain)
        + "."
    )
    beats = np.zeros((len(names), len(names)), dtype=bool)
    significant_beats = np.zeros_like(beats)
    for (player, opponent), row in net.iterrows():
        beats[index[player], index[opponent]] = row["mean"] > 0
        significant_beats[index[player], index[opponent]] = row["low"] > 0
    words = []
    for player in table["player"]:
        i = index[player]
        won = [names[j] for j in range(len(names)) if significant_beats[i, j]]
        lost = [names[j] for j in range(len(names)) if significant_beats[j, i]]
        if len(won) == len(names) - 1:
            words.append(f"`{player}` beats every other strategy")
        elif len(lost) == len(names) - 1:
            words.append(f"`{player}` loses to every other strategy")
        else:
            parts = []
            if won:
                parts.append(f"beats {_list(won)}")
            if lost:
                parts.append(f"loses to {_list(lost)}")
            words.append(
                f"`{player}` " + (" and ".join(parts) if parts else "has no significant result")
            )
    findings.append(
        f"Head to head (significant at 95% after a Bonferroni adjustment for the {pair_family} "
        "pairings in this report, ×"
        f"{bonferroni_factor(pair_family):.2f} the half-widths of the tables' per-cell "
        "intervals): " + "; ".join(words) + "."
    )
    loops = cycles(names, beats)
    upsets = []
    for player in names:
        for opponent in names:
            i, j = index[player], index[opponent]
            if beats[i, j] and ratings.rating[i] < ratings.rating[j]:
                row = net.loc[(player, opponent)]
                upsets.append(
                    f"`{player}` beats the higher-rated `{opponent}` "
                    f"({row['mean']:+.3f}, adjusted interval [{row['low']:+.3f}, {row['high']:+.3f}]"
                    + (", significant)" if row["low"] > 0 else ", not significant)")
                )
    if loops or upsets:
        sentence = (
            "Not transitive: " if loops else "The order does not hold head to head everywhere: "
        )
        if loops:
            described = []
            for a, b, c in loops:
                edges = [(a, b), (b, c), (c, a)]
                all_significant = all(significant_beats[index[x], index[y]] for x, y in edges)
                described.append(
                    f"`{a}` > `{b}` > `{c}` > `{a}`"
                    + (
                        " (every step significant after the adjustment)"
                        if all_significant
                        else " (not every step significant after the adjustment)"
                    )
                )
            sentence += "the cycle" + ("s " if len(loops) > 1 else " ") + "; ".join(described)
            sentence += ". " if upsets else "."
        if upsets:
            sentence += ("Against the rating order: " if loops else "") + "; ".join(upsets) + "."
        findings.append(sentence)
    else:
        findings.append(
            "Transitive: every head-to-head result agrees in sign with the rating order, and "
            "there is no cycle (a beats b beats c beats a)."
        )
    unclear = [
        f"`{player}`–`{opponent}` ({row['mean']:+.3f}, adjusted [{row['low']:+.3f}, {row['high']:+.3f}])"
        for (player, opponent), row in net.iterrows()
        if index[player] < index[opponent] and row["low"] <= 0 <= row["high"]
    ]
    findings.append(
        "Not significant (the adjusted 95% interval of net points per hand includes 0): "
        + ("; ".join(unclear) if unclear else "none: every pairing has a clear winner")
        + "."
    )
    if tournament.matches:
        matches = _cells(cross, rules, MATCHES_WON)
        disagree = []
        for (player, opponent), row in net.iterrows():
            if index[player] > index[opponent]:
                continue
            won = matches.loc[(player, opponent)]
            lost = matches.loc[(opponent, player)]
            if row["mean"] > 0 and won["mean"] < lost["mean"]:
                disagree.append(
                    f"`{player}` wins on points but `{opponent}` wins more matches "
                    f"({100 * lost['mean']:.1f}% to {100 * won['mean']:.1f}%)"
                )
            elif row["mean"] < 0 and won["mean"] > lost["mean"]:
                disagree.append(
                    f"`{opponent}` wins on points but `{player}` wins more matches "
                    f"({100 * won['mean']:.1f}% to {100 * lost['mean']:.1f}%)"
                )
        by_match = ranking_by_matches(tournament, rules)
        findings.append(
            f"Hollywood matches ({tournament.matches:,} per pairing, each played twice): "
            f"`{by_match[0][0]}` has the highest match win rate against the field, "
            f"{100 * by_match[0][1]:.1f}%. "
            + (
                "In every pairing the strategy with more net points per hand also wins more matches."
                if not disagree
                else "Points and matches disagree: " + "; ".join(disagree) + "."
            )
        )
    return findings


def ranking_by_matches(tournament: Tournament, rules: str) -> list[tuple[str, float]]:
    rates = [
        (name, tournament.field_win_rate(rules, i).mean) for i, name in enumerate(tournament.names)
    ]
    return sorted(rates, key=lambda item: -item[1])


def changes_between(first: str, second: str, ratings: dict[str, Ratings], family: int) -> str:
    """Plain words on how the ranking under ``second`` differs from ``first``; a swap is
    significant by rating differences adjusted for ``family`` comparisons."""
    a, b = ratings[first], ratings[second]
    order_a = list(a.table()["player"])
    order_b = list(b.table()["player"])
    if order_a == order_b:
        return f"The ranking under `{second}` is the same as under `{first}`."
    moved = [
        f"`{name}` {order_a.index(name) + 1} → {order_b.index(name) + 1}"
        for name in order_a
        if order_a.index(name) != order_b.index(name)
    ]
    index = {name: i for i, name in enumerate(a.names)}
    flips = []
    for i, upper in enumerate(order_a):
        for lower in order_a[i + 1 :]:
            if order_b.index(lower) < order_b.index(upper):
                _, low_a, _ = a.difference(index[upper], index[lower], family)
                _, low_b, _ = b.difference(index[lower], index[upper], family)
                sure = (
                    "significant under both"
                    if low_a > 0 and low_b > 0
                    else "significant under neither"
                    if low_a <= 0 and low_b <= 0
                    else f"significant only under `{first if low_a > 0 else second}`"
                )
                flips.append(f"`{upper}`/`{lower}` ({sure})")
    return (
        f"The ranking changes from `{first}` to `{second}`: places "
        + ", ".join(moved)
        + ". Pairs whose order swaps (significance adjusted for every pair of strategies under "
        "every rule set): " + "; ".join(flips) + "."
    )


def tournament_report(tournament: Tournament, command: str, runs: str | None) -> Report:
    """The report of a played tournament (``tournament.play_tournament``)."""
    names = tournament.names
    rule_names = [r.name for r in tournament.rules]
    cross = tournament.cross_table()
    ratings = ratings_by_rules(tournament)
    ranking = ranking_table(tournament, ratings)
    pairs = len(tournament.pairs())
    title = f"Round-robin tournament of {len(names)} strategies under {', '.join(rule_names)}"
    setup = [
        "Strategies: "
        + ", ".join(f"`{p.name}` ({p.description.rstrip('.')})" for p in tournament.players)
        + ".",
        "Rule sets: "
        + "; ".join(f"`{r.name}` ({r.describe().split(': ', 1)[1]})" for r in tournament.rules)
        + " (RULES.md). Strategies with `[[adapt]]` tables play their adapted form under each.",
        f"Every pair of strategies ({pairs} pairings per rule set) plays the same "
        f"{tournament.deals:,} decks (seed {tournament.seed}, decks 0 to {tournament.deals - 1:,}), "
        "each twice with the seats swapped (duplicate deals, common random numbers)"
        + (
            f", and the same {tournament.matches:,} Hollywood matches, each twice with the seats "
            "and the first dealer swapped."
            if tournament.matches
            else "."
        ),
        "Each cell is the row strategy's figure against the column strategy with its 95% "
        "interval (delta method, the two plays of a deck or a match as one unit). The ranking "
        "fits ratings r by least squares to the pairwise net points per hand (cell ≈ r_row − "
        "r_column, ratings summing to 0): a rating is the net points per hand against the "
        f"average member of the field. Its intervals come from {1000} bootstrap resamples of the "
        f"decks (seeded with {tournament.seed}; one resample applies to every pairing, so their "
        "correlation is kept).",
    ]
    if runs:
        setup.append(
            f"The records of every pairing are in the run folders under `{runs}` (one per "
            "pairing, rule set and kind; `gin_sim.load_run`); the same command resumes an "
            "interrupted tournament from them."
        )
    findings: list[str] = []
    sections: list[Section] = []
    figure_draws = {}
    for rules in rule_names:
        findings += rules_findings(tournament, rules, cross, ratings[rules])
    for first, second in itertools.pairwise(rule_names):
        findings.append(changes_between(first, second, ratings, comparisons(tournament)[0]))
    for rules in rule_names:
        fitted = ratings[rules].table()
        ranked = list(fitted["player"])  # tables and heat map rows best first
        shown = pd.DataFrame(
            {
                "rank": fitted["rank"],
                "strategy": fitted["player"],
                "rating (net points per hand vs field)": [
                    f"{r:+.3f} [{lo:+.3f}, {hi:+.3f}]"
                    for r, lo, hi in zip(
                        fitted["rating"], fitted["low"], fitted["high"], strict=True
                    )
                ],
                "rank interval": [
                    f"{lo}-{hi}" if lo != hi else str(lo)
                    for lo, hi in zip(fitted["rank_low"], fitted["rank_high"], strict=True)
                ],
            }
        )
        if tournament.matches:
            part = ranking[ranking["rules"] == rules].set_index("player")
            shown["matches won vs field"] = [
                cell_text(
                    MATCHES_WON,
                    part.loc[p, "match_win_rate"],
                    part.loc[p, "match_win_rate_half_width"],
                )
                for p in fitted["player"]
            ]
            shown["game 1 won vs field"] = [
                cell_text(
                    GAME1_WON,
                    part.loc[p, "game1_win_rate"],
                    part.loc[p, "game1_win_rate_half_width"],
                )
                for p in fitted["player"]
            ]
        heat = f"cross-table-{safe_name(rules)}"
        ranked_figure = f"ranking-{safe_name(rules)}"
        net_rows = cross[(cross["rules"] == rules) & (cross["figure"] == NET)]
        figure_draws[heat] = lambda path, rows=net_rows, rules=rules, order=ranked: (
            figures.cross_table_heat_map(
                path,
                rows,
                order,
                f"Points a hand of the row strategy against the column ({rules}), strongest first",
                "points a hand",
            )
        )
        ranking_title = figures.finding_title(
            f"Under {rules}, {fitted['player'].iloc[0]} is strongest and "
            f"{fitted['player'].iloc[-1]} weakest (points a hand against the field's average, "
            "95% bootstrap intervals)",
            75,
        )
        figure_draws[ranked_figure] = lambda path, table=fitted, title=ranking_title: (
            figures.interval_points(
                path,
                table.rename(columns={"rating": "mean"}),
                "player",
                title,
                "points a hand against the field's average",
            )
        )
        sections.append(
            Section(
                f"Ranking under `{rules}`",
                "Best first. The rank interval is the 2.5% to 97.5% range of each strategy's "
                "place over the bootstrap resamples.",
                shown,
                [ranked_figure],
            )
        )
        sections.append(
            Section(
                f"Net points per hand under `{rules}`",
                "The row strategy's points minus the column strategy's, per hand (draws included); "
                "rows and columns in ranking order.",
                shown_cross_table(cross, rules, NET, ranked),
                [heat],
            )
        )
        if tournament.matches:
            sections.append(
                Section(
                    f"Hollywood matches won under `{rules}`",
                    "Matches the row strategy won against the column strategy (unfinished "
                    "matches count for neither, so a pair's two rates may sum below 100%).",
                    shown_cross_table(cross, rules, MATCHES_WON, ranked),
                )
            )
            sections.append(
                Section(
                    f"Game 1 won under `{rules}`",
                    "The first of the three Hollywood games (the classic single game to 100).",
                    shown_cross_table(cross, rules, GAME1_WON, ranked),
                )
            )
    return Report(
        kind="tournament",
        title=title,
        command=command,
        setup=setup,
        findings=findings,
        sections=sections,
        tables={"cross-table": cross, "ranking": ranking},
        figures=figure_draws,
        answer=tournament_answer(tournament, {rules: ratings[rules] for rules in rule_names}),
        answer_figure=f"ranking-{safe_name(rule_names[0])}",
    )
