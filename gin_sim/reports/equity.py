"""The equity report: what a score is worth in a game to the target and in a Hollywood
match, for two named players (``gin_sim.experiments.equity`` computes; this module lays it out)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from gin_sim.experiments.equity import (
    GAME_REPLICATES,
    HEAT_MATCHES,
    HEAT_PHASES,
    MODEL_REPLICATES,
    STATE_MATCHES,
    EquityStudy,
)
from gin_sim.players.search_value import lattice_step
from gin_sim.reports import figures
from gin_sim.reports.document import Report, Section

# A match heat-map cell is coloured only when this many model matches reached it (its
# Monte Carlo interval is then at most about 4 points wide); thinner cells are grey.
MIN_CELL_MATCHES = 500


def _percent(value: float, low: float | None = None, high: float | None = None) -> str:
    if value != value:  # NaN
        return "n/a"
    if low is None or high is None:
        return f"{100 * value:.1f}%"
    return f"{100 * value:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"


def _grid(game: pd.DataFrame, dealer: str, column: str = "equity") -> np.ndarray:
    cells = game[game["dealer"] == dealer]
    return cells.pivot(index="me", columns="opponent", values=column).to_numpy()


def _coarse(game: pd.DataFrame, dealer: str, target: int) -> pd.DataFrame:
    """Equity in tenths of the target: rows my score, columns the opponent's."""
    steps = sorted({round(target * f / 10) for f in range(10)} | {target - 5, target - 1})
    steps = [s for s in steps if 0 <= s < target]
    grid = _grid(game, dealer)
    table = pd.DataFrame(
        [[f"{100 * grid[a, b]:.1f}" for b in steps] for a in steps],
        columns=[f"opp {b}" for b in steps],
    )
    table.insert(0, "me", [str(a) for a in steps])
    return table


def _disagreements(study: EquityStudy) -> list[str]:
    """The first finding when any checked cell disagrees with direct simulation: which
    cells, by how much; the tables rest on an assumption those cells contradict."""

    def figures(row: dict) -> str:
        return (
            f"model {_percent(row['model'])}, played {_percent(row['direct'])}, "
            f"{100 * row['difference']:+.1f} ± {100 * row['difference half width']:.1f} points"
        )

    cells = [
        f"game {row['start']} with {'me' if row['dealer'] == 'me' else 'the opponent'} to "
        f"deal ({figures(row)})"
        for row in study.game_validation.to_dict("records")
        if not row["agrees"]
    ]
    cells += [
        f"match state {row['state']} ({row['start']}; {figures(row)})"
        for row in study.match_validation.to_dict("records")
        if not row["agrees"]
    ]
    if not cells:
        return []
    checked = len(study.game_validation) + len(study.match_validation)
    return [
        f"**The model disagrees with play at {len(cells)} of {checked} checked cells**: "
        + "; ".join(cells)
        + ". Each differs from direct simulation by more than the 95% interval of the "
        "difference: there the tables' assumption (hands independent given the dealer, "
        "nobody playing by the score) fails, or a 1-in-20 chance struck. Read the tables "
        "below with that in mind."
    ]


def _answer(study: EquityStudy) -> list[str]:
    """The report's opening (issue 43): what a lead is worth, what the deal is worth, and what
    game 1 of a match is worth, each a chance of winning with its 95% interval."""
    rules, target = study.rules, study.rules.game_target
    me, opponent = study.players[0].name, study.players[1].name
    game = study.game.set_index(["me", "opponent", "dealer"])
    both = (_grid(study.game, "me") + _grid(study.game, "opponent")) / 2
    lead = max(1, round(target / 5))
    late = round(0.7 * target)
    answer = []
    if late + lead < target:
        answer.append(
            f"Under `{rules.name}`, `{me}` against `{opponent}`: a lead of {lead} points adds "
            f"{100 * (both[lead, 0] - both[0, 0]):.1f} percentage points to your chance of "
            f"winning a game to {target} at 0:0, and "
            f"{100 * (both[late + lead, late] - both[late, late]):.1f} at {late}:{late}."
        )
    first_me, first_opp = game.loc[(0, 0, "me")], game.loc[(0, 0, "opponent")]
    answer.append(
        f"Dealing first, you win {_percent(first_me.equity, first_me.low, first_me.high)} of "
        f"games; when the opponent deals first, "
        f"{_percent(first_opp.equity, first_opp.low, first_opp.high)}."
    )
    near = target - max(1, round(target / 10))
    answer.append(
        f"Needing {target - near} points against an opponent on 0, you win "
        f"{_percent(both[near, 0])} of games."
    )
    states = study.match_states.set_index(["state", "dealer"])
    won = states.loc[("I won game 1, games 2 and 3 level", "me")]
    lost = states.loc[("I lost game 1, games 2 and 3 level", "me")]
    answer.append(
        f"In a Hollywood match, winning game 1 lifts your chance of the match to "
        f"{_percent(won.equity, won.low, won.high)}; losing it drops it to "
        f"{_percent(lost.equity, lost.low, lost.high)}."
    )
    return answer


def _findings(study: EquityStudy) -> list[str]:
    rules, target = study.rules, study.rules.game_target
    names = f"`{study.players[0].name}` (me) against `{study.players[1].name}`"
    game = study.game.set_index(["me", "opponent", "dealer"])

    def cell(a: int, b: int, dealer: str) -> pd.Series:
        return game.loc[(a, b, dealer)]

    both = (_grid(study.game, "me") + _grid(study.game, "opponent")) / 2
    first_me, first_opp = cell(0, 0, "me"), cell(0, 0, "opponent")
    findings = _disagreements(study)
    findings += [
        f"**The deal** in a game to {target} under `{rules.name}`, {names}: from 0:0 I win "
        f"{_percent(first_me.equity, first_me.low, first_me.high)} of games when I deal first "
        f"and {_percent(first_opp.equity, first_opp.low, first_opp.high)} when the opponent "
        f"does: dealing first is worth {100 * (first_me.equity - first_opp.equity):+.1f} "
        f"percentage points of game equity (95% bootstrap intervals over the decks)."
    ]
    lead = max(1, round(target / 5))
    worths = []
    for level in (0, round(0.4 * target), round(0.7 * target)):
        if level + lead < target:
            worths.append((level, both[level + lead, level] - both[level, level]))
    change = worths[-1][1] - worths[0][1] if len(worths) > 1 else 0.0
    trend = (
        "the same lead weighs more the nearer the target is"
        if change > 0.02
        else "the same lead weighs less the nearer the target is"
        if change < -0.02
        else "about the same at every stage"
    )
    findings.append(
        f"**A lead of {lead} points** (averaged over who deals) is worth "
        + ", ".join(f"{100 * w:+.1f} percentage points at {v}:{v}" for v, w in worths)
        + f": {trend}."
    )
    near = target - max(1, round(target / 10))
    findings.append(
        f"**Near the end**: at {near}:{near} I win {_percent(cell(near, near, 'me').equity)} "
        f"of games when I deal and {_percent(cell(near, near, 'opponent').equity)} when the "
        f"opponent deals; needing {target - near} points "
        f"against an opponent on 0, I win {_percent(both[near, 0])} (averaged over the dealer)."
    )
    validation = study.game_validation
    if len(validation):
        agree = int(validation["agrees"].sum())
        worst = validation["difference"].abs().max()
        findings.append(
            f"**Checked against play**: {agree} of {len(validation)} game cells agree with "
            f"direct simulation from the state ({study.games:,} games each, cards played) "
            f"within the 95% interval of the difference; the largest difference is "
            f"{100 * worst:.1f} percentage points."
        )
    states = study.match_states.set_index(["state", "dealer"])
    start = states.loc[("start of the match", "me")]
    start_opp = states.loc[("start of the match", "opponent")]
    findings.append(
        f"**Hollywood match**: from the start I win {_percent(start.equity, start.low, start.high)} "
        f"of matches when I deal first and {_percent(start_opp.equity, start_opp.low, start_opp.high)} "
        "when the opponent does."
    )
    won = states.loc[("I won game 1, games 2 and 3 level", "me")]
    lost = states.loc[("I lost game 1, games 2 and 3 level", "me")]
    findings.append(
        f"**Game 1**: winning it (games 2 and 3 level) takes my match "
        f"equity to {_percent(won.equity, won.low, won.high)}; losing it drops it to "
        f"{_percent(lost.equity, lost.low, lost.high)}."
    )
    decided = study.match_states[
        (study.match_states["low"] >= 0.9) | (study.match_states["high"] <= 0.1)
    ]
    if len(decided):
        listed = "; ".join(
            f"{row.state} ({row.dealer} to deal): {_percent(row.equity)}"
            for row in decided.itertuples()
        )
        findings.append(f"**Effectively decided** (equity beyond 90% or below 10%): {listed}.")
    heat = study.match_heat[study.match_heat["phase"] == HEAT_PHASES[1]]
    solid = heat[heat["matches"] >= MIN_CELL_MATCHES]
    if len(solid):
        share = (solid["equity"] >= 0.9).mean()
        findings.append(
            f"After winning game 1, {100 * share:.0f}% of the game-2 score cells that matches "
            "reach give me 90% or more of the match."
        )
    both = study.match_states.dropna(subset=["joint table"])
    if len(both):
        gap = (both["joint table"] - both["equity"]).abs()
        inside = (
            (both["joint table"] >= both["low"]) & (both["joint table"] <= both["high"])
        ).sum()
        findings.append(
            f"**The joint table** (dynamic programming over the three columns) is within "
            f"{100 * gap.mean():.1f} percentage points of the model matches on average and "
            f"{100 * gap.max():.1f} at most over {len(both)} states and dealers; {inside} of "
            "them inside the model's 95% interval."
        )
    if len(study.match_validation):
        agree = int(study.match_validation["agrees"].sum())
        findings.append(
            f"**Match model checked against play**: {agree} of {len(study.match_validation)} "
            f"states agree with direct simulation ({study.matches:,} matches each) within the "
            "95% interval of the difference."
        )
    if rules.hollywood_bonuses:
        findings.append(
            f"**R23 bonuses are on**: from the start my expected net tally per match is "
            f"{start['net tally']:+.1f} [{start['net low']:+.1f}, {start['net high']:+.1f}] "
            "points when I deal first (box, game and shutout bonuses on every game)."
        )
    else:
        findings.append(
            f"R23 bonuses are off under `{rules.name}`; match equity does not depend on them "
            "(they never decide a game), and the net tally column counts points only."
        )
    return findings


def _validation_table(table: pd.DataFrame, first: list[str]) -> pd.DataFrame:
    shown = table[first].copy()
    shown["model"] = [
        _percent(r["model"], r["model low"], r["model high"]) for _, r in table.iterrows()
    ]
    shown["direct simulation"] = [
        _percent(r["direct"], r["direct low"], r["direct high"]) for _, r in table.iterrows()
    ]
    shown["difference"] = [
        f"{100 * d:+.1f} ± {100 * h:.1f}"
        for d, h in zip(table["difference"], table["difference half width"], strict=True)
    ]
    shown["agrees"] = ["yes" if a else "no" for a in table["agrees"]]
    return shown


def equity_report(study: EquityStudy, command: str) -> Report:
    rules, target = study.rules, study.rules.game_target
    me, opponent = study.players[0].name, study.players[1].name
    outcomes = study.outcomes.summary()
    setup = [
        f'Players: `{me}` (player 1, "me") against `{opponent}`, rules `{rules.name}` '
        f"(game target {target}, R20), seed {study.seed}.",
        f"Hand outcomes: {study.deals:,} decks, each played once with each player dealing "
        "(duplicate deals), give the distribution of who wins how many points, by dealer.",
        "**Assumption**: hands are independent given the dealer, and nobody plays "
        "differently by the score. Players that play by the score or learn from earlier "
        'hands (`closing_distance`, `value = "game"` or `"match"`, `panel_memory = "match"`) '
        "are refused; for the others the assumption is tested by the cells checked against "
        "direct simulation (cards played from the state), and a cell that disagrees is the "
        "first finding.",
        f"Game to {target}: exact dynamic programming over every score pair and dealer "
        f"(the winner deals next, a drawn hand is dealt again, R5); 95% intervals are "
        f"percentiles of {GAME_REPLICATES} bootstrap resamples of the decks.",
        f"Hollywood match: Monte Carlo under the same model from each state "
        f"({STATE_MATCHES:,} model matches per state and dealer, {HEAT_MATCHES:,} for the "
        "heat maps, from the start of a match), scored by the match kernel's own crediting (R19 to R23). "
        "Beside it, the joint table of the three columns that score-aware searchers read "
        "(dynamic programming over the columns' joint state on a lattice of "
        f'{lattice_step(target)} points, interpolated; docs/strategies.md, "Playing for the score") '
        "from the same hand outcomes. The first of these model matches (the same random "
        f"numbers) are played again under {MODEL_REPLICATES} bootstrap resamples of the "
        "decks; the spread between them is the measured distribution's uncertainty, added to the "
        "Monte Carlo error in each 95% interval.",
    ]
    if study.games or study.matches:
        setup.append(
            f"Direct simulation (`gin-sim match --format game|hollywood --start ...`): "
            f"{study.games:,} games per checked game cell, {study.matches:,} matches per checked "
            "match state, each cell on its own matches."
        )
    hands = outcomes.copy()
    for column in hands.columns[1:]:
        if "points" in column:
            hands[column] = hands[column].map(lambda v: f"{v:.2f}")
        else:
            hands[column] = hands[column].map(lambda v: f"{100 * v:.2f}%")
    game_figure = "game-equity"
    states = study.match_states
    state_table = pd.DataFrame(
        {
            "state": states["state"],
            "--start": states["start"],
            "dealer": states["dealer"],
            "match equity": [_percent(r.equity, r.low, r.high) for r in states.itertuples()],
            "joint table": [_percent(v) for v in states["joint table"]],
            "net tally": [
                f"{r['net tally']:+.1f} [{r['net low']:+.1f}, {r['net high']:+.1f}]"
                for _, r in states.iterrows()
            ],
        }
    )
    sections = [
        Section("Hand outcomes by dealer", "Per hand; the rest of the hands score nothing.", hands),
        Section(
            f"Game to {target}: equity by score",
            f"The probability that I (`{me}`) win the game from each score, my score down the "
            "rows, the opponent's across; every score pair and its interval is in "
            "`game-equity.csv` (`dealer`: who deals the next hand).",
            None,
            [game_figure],
        ),
        Section("When I deal (%)", "", _coarse(study.game, "me", target)),
        Section("When the opponent deals (%)", "", _coarse(study.game, "opponent", target)),
    ]
    if len(study.game_validation):
        sections.append(
            Section(
                "Game cells against direct simulation",
                "The table's cell beside games played with cards from the same state "
                "(`gin-sim match --format game --start ME:OPP --first-dealer 1|2`).",
                _validation_table(study.game_validation, ["start", "dealer"]),
            )
        )
    sections.append(
        Section(
            "Hollywood match: equity from states people meet",
            "Scores per game as `--start` takes them (me first); `net tally`: my expected "
            "final tally minus the opponent's, summed over the three games (R23 bonuses "
            "when the rules have them).",
            state_table,
        )
    )
    heat_names = []
    for index, phase in enumerate(HEAT_PHASES):
        name = f"match-equity-{['game1', 'game2-won-game1', 'game2-lost-game1'][index]}"
        heat_names.append((name, phase))
    sections.append(
        Section(
            "Hollywood match: equity by the score of the game in play",
            f"Matches from the start under the model; each cell is the share of the matches "
            f"that reached those scores (in steps of {max(1, -(-target // 10))}, whatever the "
            "other columns) and went on to win, so the other columns are as they are met in "
            "play. Rows: my score in that game; columns: the opponent's.",
            None,
            [name for name, _ in heat_names],
        )
    )
    if len(study.match_validation):
        sections.append(
            Section(
                "Match states against direct simulation",
                "Model matches beside matches played with cards from the same state "
                "(`gin-sim match --start ... --first-dealer 1`).",
                _validation_table(study.match_validation, ["state", "start"]),
            )
        )
    game_grids = [
        ("I deal", _grid(study.game, "me")),
        ("the opponent deals", _grid(study.game, "opponent")),
    ]
    answer = _answer(study)
    figure_functions = {
        game_figure: lambda path: figures.equity_maps(
            path,
            game_grids,
            figures.finding_title(answer[0].replace("`", ""), 90)
            + f"\nyour chance of winning a game to {target} by the score",
            f"my score ({me})",
            f"opponent's score ({opponent})",
        ),
    }
    for name, phase in heat_names:
        table = study.match_heat[study.match_heat["phase"] == phase]
        figure_functions[name] = lambda path, table=table, phase=phase: figures.heat_map(
            path, table, "me", "opponent", "equity", "matches",
            f"match equity, {phase} ({me} against {opponent})",
            "my score in that game", "opponent's score", MIN_CELL_MATCHES,
            count_label="model matches",
        )  # fmt: skip
    return Report(
        kind="equity",
        title=f"Game and match equity: {me} against {opponent} under {rules.name}",
        command=command,
        setup=setup,
        findings=_findings(study),
        sections=sections,
        tables={
            "game-equity": study.game,
            "hand-outcomes": outcomes,
            "game-validation": study.game_validation,
            "match-states": study.match_states,
            "match-heat": study.match_heat,
            "match-validation": study.match_validation,
        },
        figures=figure_functions,
        answer=answer,
        answer_figure=game_figure,
    )
