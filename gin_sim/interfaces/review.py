"""A game reviewed in words (``gin-sim review``): what to review (a ``play --save`` record
or a run's deals), and the review as text, JSON or a report folder.

The values, the marks and the summaries are ``gin_sim.experiments.review``'s; this module
reads the record (``interfaces.play``: a record is replayed and checked whole first, so a
record that is not the game its seed and moves make is refused before anything is valued),
chooses the players and lays out what was found.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gin_sim.experiments.review import (
    DEAL_ORDERS,
    MARKS,
    THRESHOLDS,
    GameReview,
    HandPlayed,
    Judged,
    Summary,
    candidates_of,
    decisions_of_hand,
    judged_row,
    load_scale,
    place_on_scale,
    simulated_hands,
    view_line,
)
from gin_sim.game.cards import parse_deck
from gin_sim.game.config import ConfigError, shown
from gin_sim.game.hollywood import N_GAMES, HollywoodScore
from gin_sim.game.rules import Rules
from gin_sim.interfaces.play import (
    _record_fields,
    load_record,
    parse_move,
    replay_record,
)
from gin_sim.players.strategies import Strategy
from gin_sim.reference.engine import OVER, start_hand

BOTH = "both"


@dataclass
class Source:
    """What is reviewed: its hands with every decision's view and move, the players'
    names, the rules, the format (hand, game, hollywood), the seed that keys the worlds,
    and the seat of the person who played (a ``play`` record), if any."""

    title: str
    names: tuple[str, str]
    rules: Rules
    game_format: str
    seed: int
    hands: list[HandPlayed]
    person: int | None = None


def record_source(path: str | Path) -> Source:
    """A ``play --save`` record as hands to review; a record that is not a game of gin-sim
    play, is damaged, truncated or edited is a one-line ``ConfigError`` (``replay_record``
    checks it whole), and the record is only read."""
    path = Path(path)
    replay_record(path)  # refuses anything that is not the game its seed and moves make
    document = load_record(path)
    fields = _record_fields(document, str(path))
    rules, game_format = fields.rules, fields.format
    games = N_GAMES if game_format == "hollywood" else 1
    score = HollywoodScore(target=rules.game_target, games=games)
    saved = list(fields.hands) + ([fields.unfinished] if fields.unfinished is not None else [])
    hands = []
    for number, hand in enumerate(saved):
        before = None if game_format == "hand" else copy.deepcopy(score)
        moves = _actions(hand, number, rules, before)
        played = decisions_of_hand(
            parse_deck(hand["deck"]), rules, int(hand["dealer"]), moves, number, before
        )
        hands.append(played)
        if played.record and int(played.record["winner"]) >= 0:
            score.credit(int(played.record["winner"]), int(played.record["points"]))
    title = (
        f"a game of gin-sim play ({game_format}, rules {rules.name}, seed {fields.seed}):"
        f" {fields.players[0]} v {fields.players[1]}"
    )
    return Source(title, fields.players, rules, game_format, fields.seed, hands, person=0)


def _actions(hand: dict[str, Any], number: int, rules: Rules, score: Any) -> list[Any]:
    """A recorded hand's moves as the engine's actions (the record is already checked)."""
    played = start_hand(parse_deck(hand["deck"]), rules, int(hand["dealer"]), deal=number,
                        score=copy.deepcopy(score))  # fmt: skip
    actions = []
    for move in hand["moves"]:
        if played.phase == OVER:
            break
        action = parse_move(str(move), played.phase)
        actions.append(action)
        played.apply(action)
    return actions


def simulated_source(
    seed: int, deal: int, hands: int, rules: Rules, players: tuple[Strategy, Strategy]
) -> Source:
    """Deals ``deal`` to ``deal + hands - 1`` of a run with ``seed``, played by
    ``players`` (``experiments.review.simulated_hands``)."""
    played = list(simulated_hands(seed, deal, hands, rules, players))
    which = f"deal {deal}" if hands == 1 else f"deals {deal} to {deal + hands - 1}"
    title = (
        f"{which} of seed {seed}, rules {rules.name}:"
        f" {players[0].name} (player 1) v {players[1].name} (player 2)"
    )
    return Source(title, (players[0].name, players[1].name), rules, "hand", seed, played)


def parse_player(text: str | None, source: Source) -> tuple[int, ...]:
    """``--player``: 1, 2, both, or a player's name (unique in the game); by default the
    person of a ``play`` record, else both."""
    if text is None:
        return (source.person,) if source.person is not None else (0, 1)
    word = text.strip()
    if word.lower() == BOTH:
        return (0, 1)
    if word in ("1", "2"):
        return (int(word) - 1,)
    named = [seat for seat in (0, 1) if source.names[seat] == word]
    if len(named) == 1:
        return (named[0],)
    if len(named) == 2:
        raise ConfigError(f"--player {shown(word)}: both players are {word}: say 1 or 2 (or both)")
    raise ConfigError(
        f"--player {shown(word)}: no such player: allowed 1, 2, both,"
        f" or a player's name ({source.names[0]}, {source.names[1]})"
    )


def player_name(source: Source, seat: int) -> str:
    return f"player {seat + 1} ({source.names[seat]})"


# --------------------------------------------------------------------- the text
def _figure(value: float, digits: int = 1) -> str:
    return "n/a" if math.isnan(value) else f"{value:.{digits}f}"


def _interval(low: float, high: float, digits: int = 1) -> str:
    if math.isnan(low):
        return "n/a"
    return f"[{low:.{digits}f}, {high:.{digits}f}]"


def equity_unit(game_format: str) -> str:
    return "match equity" if game_format == "hollywood" else "game equity"


def decision_lines(j: Judged, game_format: str, every: bool = False) -> list[str]:
    """One decision: the position as its player saw it, the move played against the best
    with the loss and its interval, and (marked, or ``every``) its candidates."""
    d, played, best = j.decision, j.candidates[j.played], j.candidates[j.best]
    head = f"  {d.number + 1:3d}. {d.phase:<7} {view_line(d.view)}"
    if j.best == j.played:
        verdict = f"played {played.action}: the best ({_figure(played.mean)} points)"
    elif j.loss_low > 0:
        verdict = (
            f"played {played.action}; best {best.action}: loss {_figure(j.loss, 2)} points"
            f" {_interval(j.loss_low, j.loss_high, 2)}"
        )
    else:  # the interval holds 0 (or is unknown): the two cannot be told apart
        verdict = (
            f"played {played.action}: a close call with {best.action} (loss {j.loss:+.2f}"
            f" points {_interval(j.loss_low, j.loss_high, 2)}, 0 inside)"
        )
    if not math.isnan(j.equity_loss):
        verdict += f", {100 * j.equity_loss:.2f}% {equity_unit(game_format)}"
    lines = [head, f"       {verdict}  -> {j.mark}"]
    if every or j.mark != MARKS[0]:
        lines.append(
            f"       {'candidate':<14}{'points':>8}  {'95% interval':<17}"
            + ("  equity %" if not math.isnan(played.equity) else "")
        )
        order = sorted(range(len(j.candidates)), key=lambda c: -j.candidates[c].mean)
        for c in order:
            cand = j.candidates[c]
            tag = "*" if c == j.played else ("+" if c == j.best else " ")
            line = f"     {tag} {cand.action:<14}{cand.mean:8.2f}  {_interval(cand.low, cand.high, 2):<17}"
            if not math.isnan(cand.equity):
                line += f"  {100 * cand.equity:7.2f}"
            lines.append(line.rstrip())
    return lines


def marks_text(s: Summary) -> str:
    plural = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}
    parts = [f"{s.marks[m]} {m if s.marks[m] == 1 else plural[m]}" for m in reversed(MARKS[1:])]
    return ", ".join(parts)


def summary_lines(s: Summary, who: str, game_format: str, scale: list | None) -> list[str]:
    """A player's summary: decisions, marks, the error rate and where it falls on the
    scale, the costliest decisions with the better move and its worth."""
    lines = [
        f"{who}: {s.decisions} decisions; {marks_text(s)}; error rate"
        f" {_figure(s.error_rate, 2)} points per decision {_interval(s.error_low, s.error_high, 2)}"
    ]
    if not math.isnan(s.equity_rate):
        lines[-1] += f" ({100 * s.equity_rate:.2f}% {equity_unit(game_format)} per decision)"
    where = place_on_scale(s.error_rate, scale or [])
    if where:
        lines.append(f"  error rate {s.error_rate:.2f} points per decision: {where}")
    for j in s.costliest:
        d, best = j.decision, j.candidates[j.best]
        lines.append(
            f"  costly: hand {d.hand + 1}, decision {d.number + 1} ({d.phase}): played"
            f" {j.candidates[j.played].action}, better {best.action}, worth"
            f" {j.loss:.2f} points more {_interval(j.loss_low, j.loss_high, 2)} ({j.mark})"
        )
    return lines


def review_lines(review: GameReview, source: Source, every: bool = False) -> list[str]:
    """The review as text for the terminal: each hand's decisions, then the summaries."""
    scale = load_scale()
    lines = [
        f"Review of {source.title}",
        f"Each decision valued by {review.settings.name}.",
        "Marks where the loss's 95% interval excludes 0: inaccuracy from"
        f" {THRESHOLDS[0]:g}, mistake from {THRESHOLDS[1]:g}, blunder from"
        f" {THRESHOLDS[2]:g} points per hand (docs/review.md).",
    ]
    for hand in review.hands:
        for seat in review.seats:
            judged = review.of_seat(seat, hand.hand)
            if not judged:
                continue
            lines += ["", f"Hand {hand.hand + 1}, {player_name(source, seat)}:"]
            for j in judged:
                lines += decision_lines(j, review.game_format, every)
            s = review.hand_summary(seat, hand.hand)
            lines.append(
                f"  hand {hand.hand + 1}: {s.decisions} decisions; {marks_text(s)};"
                f" mean loss {_figure(s.error_rate, 2)} points per decision"
            )
    lines.append("")
    for seat in review.seats:
        lines += summary_lines(
            review.game_summary(seat), player_name(source, seat), review.game_format, scale
        )
    return lines


def _plain(value: Any) -> Any:
    return None if isinstance(value, float) and math.isnan(value) else value


def summary_json(s: Summary) -> dict[str, Any]:
    return {
        "decisions": s.decisions,
        "marks": s.marks,
        "error_rate": _plain(s.error_rate),
        "error_rate_low": _plain(s.error_low),
        "error_rate_high": _plain(s.error_high),
        "equity_rate": _plain(s.equity_rate),
        "costliest": [judged_row(j) for j in s.costliest],
    }


def review_json(review: GameReview, source: Source) -> dict[str, Any]:
    """The review as one JSON document: every decision with its candidates, the
    summaries per hand and per player, and the scale's verdict."""
    scale = load_scale()
    players = []
    for seat in review.seats:
        s = review.game_summary(seat)
        players.append(
            {
                "player": seat + 1,
                "name": source.names[seat],
                "game": summary_json(s),
                "scale": place_on_scale(s.error_rate, scale),
                "hands": [
                    {"hand": h.hand + 1} | summary_json(review.hand_summary(seat, h.hand))
                    for h in review.hands
                    if review.of_seat(seat, h.hand)
                ],
            }
        )
    return {
        "reviewed": source.title,
        "rules": source.rules.name,
        "format": source.game_format,
        "seed": source.seed,
        "valued_by": review.settings.name,
        "thresholds": dict(zip(MARKS[1:], THRESHOLDS, strict=True)),
        "players": players,
        "decisions": [judged_row(j) | {"candidates": candidates_of(j)} for j in review.judged],
    }


# -------------------------------------------------------------------- the report
def write_review(review: GameReview, source: Source, out: str | Path, command: str) -> Path:
    """The review as a report folder ``out`` (``report.md`` opening with the answer, the
    figure of the loss per decision, the tables as CSV and Parquet). The folder is gin-sim's:
    new, empty, or a review it wrote; anything else is refused (``claim_report``)."""
    import pandas as pd

    from gin_sim.reports.document import claim_report, write_report
    from gin_sim.reports.review import review_report

    scale = load_scale()
    rows = pd.DataFrame([judged_row(j) for j in review.judged])
    rows.insert(3, "name", [source.names[j.decision.seat] for j in review.judged])
    candidates = pd.DataFrame(
        [
            {"hand": j.decision.hand + 1, "decision": j.decision.number + 1} | c
            for j in review.judged
            for c in candidates_of(j)
        ]
    )
    summaries, answer, findings = [], [], []
    for seat in review.seats:
        s = review.game_summary(seat)
        who = player_name(source, seat)
        summaries.append(_summary_row(who, "game", s))
        for h in review.hands:
            if review.of_seat(seat, h.hand):
                summaries.append(
                    _summary_row(who, str(h.hand + 1), review.hand_summary(seat, h.hand))
                )
        answer.append(
            f"{who[0].upper()}{who[1:]} lost {s.error_rate:.2f} points per decision over"
            f" {s.decisions} decisions, with {marks_text(s)}."
        )
        where = place_on_scale(s.error_rate, scale)
        if where:
            findings.append(f"{who}: error rate {s.error_rate:.2f}: {where}.")
        if s.costliest:
            j = s.costliest[0]
            answer.append(
                f"Costliest: hand {j.decision.hand + 1}, decision {j.decision.number + 1}:"
                f" {j.candidates[j.best].action} instead of {j.candidates[j.played].action},"
                f" worth {j.loss:.1f} points."
            )
        for j in s.costliest:
            findings.append(
                f"{who}, hand {j.decision.hand + 1}, decision {j.decision.number + 1}"
                f" ({j.decision.phase}, {view_line(j.decision.view)}): played"
                f" {j.candidates[j.played].action}; {j.candidates[j.best].action} was worth"
                f" {j.loss:.2f} points more {_interval(j.loss_low, j.loss_high, 2)} ({j.mark})."
            )
    answer = answer[:5]
    if not findings:
        findings.append("No decision was marked: every loss was small or a close call.")
    marked = []
    for j in review.judged:
        if j.mark == MARKS[0]:
            continue
        table = pd.DataFrame(candidates_of(j))
        table = table.sort_values("mean", ascending=False)
        table = pd.DataFrame(
            {
                "candidate": table["action"]
                + table["played"].map({True: " (played)", False: ""})
                + table["best"].map({True: " (best)", False: ""}),
                "points": table["mean"].map(lambda v: f"{v:.2f}"),
                "low": table["low"].map(lambda v: f"{v:.2f}"),
                "high": table["high"].map(lambda v: f"{v:.2f}"),
            }
        )
        d = j.decision
        marked.append(
            (
                f"Hand {d.hand + 1}, decision {d.number + 1}, {player_name(source, d.seat)}:"
                f" {j.mark}, loss {j.loss:.2f} points",
                table,
            )
        )
    setup = [
        f"Reviewed: {source.title}.",
        f"Each decision's actions valued by {review.settings.name}, from the view of the"
        " player to move alone.",
        f"Marks where the loss's 95% interval excludes 0: inaccuracy from {THRESHOLDS[0]:g},"
        f" mistake from {THRESHOLDS[1]:g}, blunder from {THRESHOLDS[2]:g} points per hand.",
    ]
    report = review_report(
        f"Review: {source.title}", command, answer, setup, findings, rows, candidates,
        pd.DataFrame(summaries), marked,
    )  # fmt: skip
    with claim_report(out, "review", {"command": command}) as claim:
        if claim.finished:
            return claim.folder
        return write_report(report, claim)


def _summary_row(who: str, hand: str, s: Summary) -> dict[str, Any]:
    return {
        "player": who,
        "hand": hand,
        "decisions": s.decisions,
        **{m: s.marks[m] for m in MARKS},
        "error_rate": s.error_rate,
        "low": s.error_low,
        "high": s.error_high,
    }


# ------------------------------------------------------------------------ the scale
def scale_lines(table: Any, agreement: dict[str, Any], opponent: str) -> list[str]:
    """The scale as text: each strategy's error rate, blunders and points against the
    opponent, fewest errors first; then how well the order agrees with strength."""
    lines = [
        f"{'strategy':<10}{'error rate':>11}  {'95% interval':<16}{'blunders':>9}"
        f"  {'on the deal':>12}  {'95% interval':<16}"
        f"  {'points v ' + opponent:>17}  {'95% interval':<16}{'decisions':>10}"
    ]
    for row in table.itertuples(index=False):
        lines.append(
            f"{row.strategy:<10}{row.error_rate:11.3f}  {_interval(row.low, row.high, 3):<16}"
            f"{row.blunders_per_decision:9.3f}  {row.deal_rate:12.3f}"
            f"  {_interval(row.deal_low, row.deal_high, 3):<16}  {row.points_per_hand:17.2f}"
            f"  {_interval(row.points_low, row.points_high, 2):<16}{row.decisions:10d}"
        )
    p, q = agreement["spearman_published_interval"], agreement["spearman_points_interval"]
    r = agreement["spearman_deal_interval"]
    lines.append(
        f"Rank correlation of fewer errors with the published strength order:"
        f" {agreement['spearman_published']:.2f} [{p[0]:.2f}, {p[1]:.2f}]; of fewer errors"
        f" on the deal's own cards: {agreement['spearman_deal']:.2f} [{r[0]:.2f}, {r[1]:.2f}];"
        f" of fewer errors with the points against {opponent} measured here:"
        f" {agreement['spearman_points']:.2f} [{q[0]:.2f}, {q[1]:.2f}] (95% bootstrap over"
        " the deals)."
    )
    return lines


def scale_steps(agreement: dict[str, Any]) -> Any:
    """Each step of the scale as a table: the next strategy's error rate less this one's,
    by the review and on the deal's own cards, paired at the same positions."""
    import pandas as pd

    return pd.DataFrame(
        [
            {
                "step": f"`{s['worse']}` less `{s['better']}`",
                "by the review": f"{s['error']:+.3f} {_interval(*s['error_interval'], 3)}",
                "on the deal's own cards": f"{s['deal']:+.3f} {_interval(*s['deal_interval'], 3)}",
            }
            for s in agreement["steps"]
        ]
    )


# The scale table's columns as a report shows them.
SCALE_HEADINGS = {
    "error_rate": "error rate, points per decision",
    "low": "95% low",
    "high": "95% high",
    "blunders_per_decision": "blunders per decision",
    "points_per_hand": "points per hand against the opponent",
    "points_low": "points 95% low",
    "points_high": "points 95% high",
    "deal_rate": "error rate on the deal's own cards",
    "deal_low": "on the deal 95% low",
    "deal_high": "on the deal 95% high",
}


def write_scale(
    table: Any,
    agreement: dict[str, Any],
    frame: Any,
    out: str | Path,
    command: str,
    settings: Any,
    opponent: str,
) -> Path:
    """The scale as a report folder: ``review-scale.csv`` (the file the review reads, to be
    copied to configs/models/), the rows per strategy and deal, and the agreement."""
    import json

    from gin_sim.reports.document import Report, Section, claim_report, write_report

    best, worst = table.iloc[0], table.iloc[-1]
    rho = agreement["spearman_published"]
    p = agreement["spearman_published_interval"]
    d = agreement["spearman_deal_interval"]
    answer = [
        f"Fewest errors: `{best.strategy}`, {best.error_rate:.2f} points per decision;"
        f" most: `{worst.strategy}`, {worst.error_rate:.2f}.",
        f"Rank correlation of fewer errors with the published strength order: {rho:.2f}"
        f" [{p[0]:.2f}, {p[1]:.2f}] (1: the same order).",
        "Judged instead on the deal's own cards (the opponent's real hand and stock):"
        f" {agreement['spearman_deal']:.2f} [{d[0]:.2f}, {d[1]:.2f}].",
    ]
    shown = table.copy()
    for column in (
        "error_rate",
        "low",
        "high",
        "blunders_per_decision",
        "deal_rate",
        "deal_low",
        "deal_high",
    ):
        shown[column] = shown[column].map(lambda v: f"{v:.3f}")
    for column in ("points_per_hand", "points_low", "points_high"):
        shown[column] = shown[column].map(lambda v: f"{v:.2f}")
    shown = shown.rename(columns=SCALE_HEADINGS)
    report = Report(
        kind="review-scale",
        title="The review's scale: the error rates of the named strategies",
        command=command,
        setup=[
            f"Positions: every decision of both players of `{opponent}` against `{opponent}`"
            " on the deals; each strategy was asked its move at each (a fresh memory) and"
            " judged there, so every strategy is judged at the same positions.",
            f"Points per hand: each strategy's own hands as player 1 against `{opponent}` on"
            " the same deals.",
            f"Each decision valued by {settings.name}.",
            "On the deal's own cards (the check): the same moves, the review's best less the"
            " move, each played out with the opponent's real hand and the real stock (and"
            f" {DEAL_ORDERS - 1} fresh orders of the stock), expert rollouts, `{opponent}` for"
            " the opponent: no searcher's model of the hidden cards.",
        ],
        findings=scale_lines(table, agreement, opponent)[-1:],
        sections=[
            Section("The scale", "Fewest errors first.", shown),
            Section(
                "Each step, paired",
                "The next strategy's error rate less this one's at the same positions, with"
                " 95% bootstrap intervals over the deals.",
                scale_steps(agreement),
            ),
        ],
        tables={"review-scale": table, "deals": frame},
        answer=answer,
        files={"agreement.json": json.dumps(agreement, indent=2) + "\n"},
    )
    with claim_report(out, "review-scale", {"command": command}) as claim:
        if claim.finished:
            return claim.folder
        return write_report(report, claim)
