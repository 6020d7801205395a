"""A reviewed game as a report folder (``gin-sim review --out``): the figure of the loss per
decision across the game and the report's pages, from the review's tables (computing
nothing new: the values and marks are ``gin_sim.experiments.review``'s)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from gin_sim.reports.document import Report, Section
from gin_sim.reports.figures import _pyplot, _save

MARK_COLOURS = {"fine": "C0", "inaccuracy": "C1", "mistake": "C3", "blunder": "C4"}


def loss_figure(path: Path, rows: pd.DataFrame, title: str) -> None:
    """Each decision's loss (points per hand) with its 95% interval, in the order of play,
    coloured by its mark; a dotted line between hands; one panel per player."""
    plt = _pyplot()
    players = sorted(rows["player"].unique())
    fig, axes = plt.subplots(
        len(players), 1, figsize=(9.0, 2.6 * len(players) + 0.8), squeeze=False
    )
    for ax, player in zip(axes[:, 0], players, strict=True):
        own = rows[rows["player"] == player].reset_index(drop=True)
        x = range(1, len(own) + 1)
        low = (own["loss"] - own["loss_low"]).fillna(0.0).clip(lower=0.0)
        high = (own["loss_high"] - own["loss"]).fillna(0.0).clip(lower=0.0)
        colours = [MARK_COLOURS[m] for m in own["mark"]]
        ax.errorbar(x, own["loss"], yerr=[low, high], fmt="none", ecolor="grey", elinewidth=0.7)
        ax.scatter(x, own["loss"], c=colours, s=14, zorder=3)
        starts = own.index[own["hand"].ne(own["hand"].shift())].tolist()[1:]
        for start in starts:
            ax.axvline(start + 0.5, color="grey", linestyle=":", linewidth=0.8)
        ax.axhline(0.0, color="grey", linewidth=0.6)
        ax.set_ylabel("loss (points per hand)")
        ax.set_title(f"player {player}: {own['name'].iloc[0]}", fontsize=9)
        ax.grid(axis="y", alpha=0.3)
    axes[-1, 0].set_xlabel("decision, in the order of play (dotted: a new hand)")
    handles = [
        plt.Line2D([], [], marker="o", linestyle="", color=c, label=m)
        for m, c in MARK_COLOURS.items()
    ]
    axes[0, 0].legend(handles=handles, fontsize=7, loc="upper right", ncol=4)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    _save(fig, path)


def review_report(
    title: str,
    command: str,
    answer: list[str],
    setup: list[str],
    findings: list[str],
    rows: pd.DataFrame,
    candidates: pd.DataFrame,
    summaries: pd.DataFrame,
    marked: list[tuple[str, pd.DataFrame]],
) -> Report:
    """The report: the answer, the figure, the summaries per player and hand, the marked
    decisions with their candidates, and every decision; ``decisions``, ``candidates`` and
    ``summaries`` saved as tables."""
    shown = rows[["hand", "decision", "player", "phase", "played", "best", "loss", "mark"]].copy()
    shown["loss"] = shown["loss"].map(lambda v: f"{v:.2f}")
    summary_shown = summaries.copy()
    for column in ("error_rate", "low", "high"):
        summary_shown[column] = summary_shown[column].map(lambda v: f"{v:.2f}")
    sections = [
        Section("Summaries", "Per player, the game and each hand.", summary_shown),
    ]
    for heading, table in marked:
        sections.append(Section(heading, "", table))
    sections.append(Section("Every decision", "", shown))
    return Report(
        kind="review",
        title=title,
        command=command,
        setup=setup,
        findings=findings,
        sections=sections,
        tables={"decisions": rows, "candidates": candidates, "summaries": summaries},
        figures={"loss": lambda path: loss_figure(path, rows, title)},
        answer=answer,
        answer_figure="loss",
    )
