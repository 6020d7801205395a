"""Matplotlib figures drawn from report tables, computing nothing new.

Lines with their 95% interval as a band, points with interval bars, and heat maps. Each
function takes tidy tables (``gin_sim.reports.tables``) and a PNG path. The Agg backend is
chosen here, so figures work without a display. matplotlib is imported at the first figure,
not with this module: every command imports the report modules, and pyplot took about a
second of each command's start (``gin-sim deadwood`` draws nothing).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from gin_sim.game.environment import check_figures
from gin_sim.reports.tables import RATE_FIGURES

if TYPE_CHECKING:
    import matplotlib.pyplot as plt


@functools.cache
def _pyplot():
    """matplotlib's pyplot on the Agg backend, imported once, at the first figure."""
    check_figures()  # an unusable MPLCONFIGDIR: one line, not matplotlib's warnings
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot

    return matplotlib.pyplot


DPI = 110
# No software version or date in the PNG, so the same tables give the same bytes.
METADATA = {"Software": None}


def _scale(figure: str) -> tuple[float, str]:
    return (100.0, f"{figure} (%)") if figure in RATE_FIGURES else (1.0, figure)


def _save(fig: plt.Figure, path: Path) -> None:
    # savefig draws a figure that has a layout engine once more before it prints it (for
    # constrained layout, which lays out at draw time). fig.tight_layout() has already laid
    # the figure out and leaves a placeholder engine behind, whose extra draw lays out
    # nothing and took about a third of the figures' drawing time: it is dropped. The PNG is
    # the same bytes either way (tests/test_reports.py).
    from matplotlib.layout_engine import PlaceHolderLayoutEngine

    if isinstance(fig.get_layout_engine(), PlaceHolderLayoutEngine):
        fig.set_layout_engine(None)
    fig.savefig(path, dpi=DPI, metadata=METADATA)
    _pyplot().close(fig)


def finding_title(sentence: str, width: int = 80) -> str:
    """A figure's title that states its finding (a computed sentence of the report's
    answer), without its full stop, wrapped to lines of at most ``width`` characters."""
    import textwrap

    return textwrap.fill(sentence.rstrip(".").replace("`", ""), width)


def lines_with_bands(
    path: Path,
    table: pd.DataFrame,
    x: str,
    figures: Sequence[str],
    hue: str | None = None,
    title: str = "",
    x_label: str | None = None,
    columns: int = 2,
    mark: dict[str, float] | None = None,
    reverse_x: bool = False,
) -> None:
    """One panel per figure of a tidy table: mean against ``x``, the 95% interval as a band.

    ``hue`` draws one line per value of that column (rule sets); ``mark`` draws a
    dashed vertical line at an ``x`` per label (a best threshold).
    """
    rows = -(-len(figures) // columns)
    width = columns if len(figures) > 1 else 1
    fig, axes = _pyplot().subplots(rows, width, figsize=(5.2 * width, 3.6 * rows), squeeze=False)
    groups = [(None, table)] if hue is None else list(table.groupby(hue, sort=False))
    for index, figure in enumerate(figures):
        ax = axes[index // width][index % width]
        scale, label = _scale(figure)
        for number, (name, group) in enumerate(groups):
            rows_of = group[group["figure"] == figure].sort_values(x)
            color = f"C{number}"
            ax.plot(
                rows_of[x],
                rows_of["mean"] * scale,
                marker="o",
                ms=3,
                color=color,
                label=None if name is None else str(name),
            )
            ax.fill_between(
                rows_of[x],
                rows_of["low"] * scale,
                rows_of["high"] * scale,
                alpha=0.25,
                color=color,
                linewidth=0,
            )
        for number, (name, _) in enumerate(groups):
            if mark is not None and (str(name) if name is not None else "") in mark:
                ax.axvline(
                    mark[str(name) if name is not None else ""],
                    color=f"C{number}",
                    linestyle="--",
                    linewidth=0.8,
                )
        ax.set_title(figure, fontsize=10)
        ax.set_xlabel(x_label or x)
        ax.set_ylabel(label, fontsize=9)
        ax.grid(alpha=0.3)
        if reverse_x:
            ax.invert_xaxis()
        if hue is not None:
            ax.legend(fontsize=8)
    for index in range(len(figures), rows * width):
        axes[index // width][index % width].set_visible(False)
    if title:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    _save(fig, path)


def interval_points(
    path: Path,
    table: pd.DataFrame,
    label: str,
    title: str,
    y_label: str,
    highlight: Sequence[str] = (),
    reference_line: float | None = 0.0,
) -> None:
    """Each row of ``table`` (``label``, ``mean``, ``low``, ``high``) as a point with its interval,
    one row per line, top to bottom in table order."""
    labels = [str(v) for v in table[label]]
    positions = np.arange(len(labels))[::-1]
    fig, ax = _pyplot().subplots(figsize=(7.0, 0.32 * len(labels) + 1.4))
    colors = ["C3" if name in highlight else "C0" for name in labels]
    ax.hlines(positions, table["low"], table["high"], colors=colors, linewidth=1.5)
    ax.scatter(table["mean"], positions, c=colors, s=14, zorder=3)
    if reference_line is not None:
        ax.axvline(reference_line, color="grey", linewidth=0.8)
    ax.set_yticks(positions, labels, fontsize=8)
    ax.set_xlabel(y_label)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    _save(fig, path)


# Heat-map cells backed by too few records: a light grey face with a darker hatch, outside
# the colour scale, so a rate from a few dozen records never looks like a firm one.
THIN_FACE = "#e6e6e6"
THIN_HATCH = "#c2c2c2"
THIN_TEXT = "#404040"


def heat_map_cells(
    table: pd.DataFrame,
    row: str,
    column: str,
    value: str,
    count: str,
    min_count: int,
    scale: float = 100.0,
    descending_columns: bool = False,
) -> pd.DataFrame:
    """The cells of ``heat_map`` as it lays them out, one per (row, column) of the grid:
    ``i`` and ``j`` (grid position), ``value`` (scaled), ``count`` and ``style``: ``"solid"``
    (at least ``min_count`` records: coloured, value printed), ``"thin"`` (1 to
    ``min_count - 1`` records: grey, value and count printed) or ``"blank"`` (none)."""
    grid = table.pivot(index=row, columns=column, values=value) * scale
    counts = table.pivot(index=row, columns=column, values=count).reindex_like(grid).fillna(0)
    if descending_columns:
        grid, counts = grid[grid.columns[::-1]], counts[counts.columns[::-1]]
    cells = []
    for i, row_value in enumerate(grid.index):
        for j, column_value in enumerate(grid.columns):
            n = int(counts.iloc[i, j])
            cell = float(grid.iloc[i, j])
            if n <= 0 or not np.isfinite(cell):
                style = "blank"
            else:
                style = "solid" if n >= min_count else "thin"
            cells.append(
                {"i": i, "j": j, row: row_value, column: column_value}
                | {"value": cell, "count": n, "style": style}
            )
    return pd.DataFrame(cells)


def heat_map(
    path: Path,
    table: pd.DataFrame,
    row: str,
    column: str,
    value: str,
    count: str,
    title: str,
    row_label: str,
    column_label: str,
    min_count: int,
    count_label: str = "records",
    scale: float = 100.0,
    value_label: str = "%",
    descending_columns: bool = False,
) -> None:
    """``value`` of a long table as a grid of ``row`` by ``column``, each cell annotated.

    Cells backed by at least ``min_count`` records are coloured by value. Cells with fewer
    (but some) are grey and hatched, outside the colour scale, and show their value with
    their count in brackets: too uncertain to colour like the others. Cells without
    records are blank. The layout is ``heat_map_cells``.
    """
    cells = heat_map_cells(table, row, column, value, count, min_count, scale, descending_columns)
    rows = list(dict.fromkeys(cells[row]))
    columns = list(dict.fromkeys(cells[column]))
    solid = np.full((len(rows), len(columns)), np.nan)
    for cell in cells[cells["style"] == "solid"].itertuples():
        solid[cell.i, cell.j] = cell.value
    fig, ax = _pyplot().subplots(
        figsize=(max(6.0, 0.36 * len(columns) + 2.0), 0.4 * len(rows) + 2.0)
    )
    image = ax.imshow(np.ma.masked_invalid(solid), aspect="auto", cmap="viridis", origin="lower")
    top = np.nanmax(solid) if np.isfinite(solid).any() else 1.0
    for cell in cells.itertuples():
        if cell.style == "solid":
            ax.text(
                cell.j,
                cell.i,
                f"{cell.value:.0f}",
                ha="center",
                va="center",
                fontsize=6,
                color="white" if cell.value < 0.6 * top else "black",
            )
        elif cell.style == "thin":
            ax.add_patch(
                _pyplot().Rectangle(
                    (cell.j - 0.5, cell.i - 0.5),
                    1,
                    1,
                    facecolor=THIN_FACE,
                    edgecolor=THIN_HATCH,
                    hatch="///",
                    linewidth=0,
                )
            )
            ax.text(
                cell.j,
                cell.i,
                f"{cell.value:.0f}\n({cell.count})",
                ha="center",
                va="center",
                fontsize=4.5,
                color=THIN_TEXT,
                linespacing=0.9,
            )
    ax.set_xticks(range(len(columns)), [str(c) for c in columns], fontsize=7)
    ax.set_yticks(range(len(rows)), [str(r) for r in rows], fontsize=8)
    ax.set_xlabel(column_label)
    ax.set_ylabel(row_label)
    ax.set_title(
        f"{title}\ngrey, hatched = thin: fewer than {min_count:,} {count_label} (the value, "
        f"then the {count_label} in brackets); blank: no {count_label}",
        fontsize=9,
    )
    fig.colorbar(image, ax=ax, label=value_label)
    fig.tight_layout()
    _save(fig, path)


def heat_map_panels(
    path: Path,
    table: pd.DataFrame,
    panel: str,
    row: str,
    column: str,
    value: str,
    title: str,
    panel_label: str,
    row_label: str,
    column_label: str,
) -> None:
    """One small annotated heat map of ``value`` (row by column) per value of ``panel``,
    on one shared colour scale."""
    panels = list(table.groupby(panel, sort=True))
    columns = min(3, len(panels))
    rows = -(-len(panels) // columns)
    fig, axes = _pyplot().subplots(
        rows, columns, figsize=(4.0 * columns, 3.4 * rows), squeeze=False, layout="constrained"
    )
    low, high = float(table[value].min()), float(table[value].max())
    image = None
    for index, (name, group) in enumerate(panels):
        ax = axes[index // columns][index % columns]
        grid = group.pivot(index=row, columns=column, values=value)
        image = ax.imshow(
            grid.to_numpy(dtype=float),
            origin="lower",
            cmap="viridis",
            vmin=low,
            vmax=high,
            aspect="auto",
        )
        ax.set_xticks(range(grid.shape[1]), [str(c) for c in grid.columns], fontsize=7)
        ax.set_yticks(range(grid.shape[0]), [str(r) for r in grid.index], fontsize=7)
        ax.set_title(f"{panel_label} {name}", fontsize=9)
        ax.set_xlabel(column_label, fontsize=8)
        ax.set_ylabel(row_label, fontsize=8)
        for (i, j), cell in np.ndenumerate(grid.to_numpy(dtype=float)):
            ax.text(
                j,
                i,
                f"{cell:.2f}",
                ha="center",
                va="center",
                fontsize=5.5,
                color="white" if cell < low + 0.6 * (high - low) else "black",
            )
    for index in range(len(panels), rows * columns):
        axes[index // columns][index % columns].set_visible(False)
    if image is not None:
        fig.colorbar(image, ax=axes.ravel().tolist(), label=value, shrink=0.8)
    fig.suptitle(title, fontsize=11)
    _save(fig, path)


def cross_table_heat_map(
    path: Path,
    table: pd.DataFrame,
    players: Sequence[str],
    title: str,
    value_label: str,
    scale: float = 1.0,
    center: float = 0.0,
    digits: int = 2,
) -> None:
    """A tournament cross table (tidy rows ``player``, ``opponent``, ``mean``, ``half_width``)
    as a player-by-opponent grid in ``players`` order, coloured around ``center`` (red: the
    row player wins), each cell annotated with its mean and 95% half-width."""
    means = table.pivot(index="player", columns="opponent", values="mean")
    means = means.reindex(index=players, columns=players).to_numpy(dtype=float) * scale
    widths = table.pivot(index="player", columns="opponent", values="half_width")
    widths = widths.reindex(index=players, columns=players).to_numpy(dtype=float) * scale
    size = len(players)
    fig, ax = _pyplot().subplots(figsize=(1.25 * size + 2.6, 0.85 * size + 1.6))
    finite = means[np.isfinite(means)]
    reach = float(np.max(np.abs(finite - center))) if finite.size else 1.0
    image = ax.imshow(
        np.ma.masked_invalid(means),
        cmap="RdBu_r",
        vmin=center - reach,
        vmax=center + reach,
        aspect="auto",
    )
    for (i, j), cell in np.ndenumerate(means):
        if np.isfinite(cell):
            ax.text(
                j,
                i,
                f"{cell:+.{digits}f}\n± {widths[i, j]:.{digits}f}"
                if center == 0
                else f"{cell:.{digits}f}\n± {widths[i, j]:.{digits}f}",
                ha="center",
                va="center",
                fontsize=7,
                color="white" if abs(cell - center) > 0.6 * reach else "black",
            )
        else:
            ax.text(j, i, "—", ha="center", va="center", fontsize=8, color="grey")
    ax.set_xticks(range(size), list(players), fontsize=8, rotation=30, ha="right")
    ax.set_yticks(range(size), list(players), fontsize=8)
    ax.set_xlabel("opponent")
    ax.set_ylabel("player (row)")
    ax.set_title(title, fontsize=10)
    fig.colorbar(image, ax=ax, label=value_label)
    fig.tight_layout()
    _save(fig, path)


def optimisation_history(path: Path, trials: pd.DataFrame, title: str, value_label: str) -> None:
    """Each trial's objective by trial number (completed as points, pruned as crosses at
    their last reported value) and the best completed value so far as a step line."""
    fig, ax = _pyplot().subplots(figsize=(7.5, 3.8))
    complete = trials[trials["state"] == "COMPLETE"]
    pruned = trials[trials["state"] == "PRUNED"]
    ax.scatter(complete["number"], complete["value"], s=12, color="C0", label="completed")
    if not pruned.empty:
        ax.scatter(
            pruned["number"],
            pruned["value"],
            s=12,
            marker="x",
            color="C7",
            label="pruned (last block)",
        )
    if not complete.empty:
        best = complete.sort_values("number")["value"].cummax()
        ax.step(
            complete.sort_values("number")["number"],
            best,
            where="post",
            color="C3",
            label="best so far",
        )
    ax.set_xlabel("trial")
    ax.set_ylabel(value_label)
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    _save(fig, path)


def bars(
    path: Path, labels: Sequence[str], values: Sequence[float], title: str, x_label: str
) -> None:
    """Horizontal bars, top to bottom in the given order."""
    positions = np.arange(len(labels))[::-1]
    fig, ax = _pyplot().subplots(figsize=(6.5, 0.35 * len(labels) + 1.4))
    ax.barh(positions, values, color="C0")
    ax.set_yticks(positions, list(labels), fontsize=8)
    ax.set_xlabel(x_label)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    _save(fig, path)


def equity_maps(
    path: Path,
    grids: Sequence[tuple[str, np.ndarray]],
    title: str,
    row_label: str,
    column_label: str,
) -> None:
    """Dense probability maps side by side (rows and columns: scores from 0), with
    contours at every 10% and one colour scale from 0 to 100%."""
    fig, axes = _pyplot().subplots(
        1, len(grids), figsize=(5.0 * len(grids), 5.0), squeeze=False, layout="constrained"
    )
    image = None
    levels = np.arange(10, 100, 10)
    for ax, (name, grid) in zip(axes[0], grids, strict=True):
        percent = 100.0 * grid
        image = ax.imshow(percent, origin="lower", cmap="viridis", vmin=0, vmax=100)
        lines = ax.contour(percent, levels=levels, colors="white", linewidths=0.6)
        ax.clabel(lines, fmt="%d%%", fontsize=6)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel(column_label)
        ax.set_ylabel(row_label)
    if image is not None:
        fig.colorbar(image, ax=axes.ravel().tolist(), label="%", shrink=0.85)
    fig.suptitle(title, fontsize=10)
    _save(fig, path)


def gain_map(
    path: Path,
    table: pd.DataFrame,
    row: str,
    column: str,
    title: str,
    row_label: str,
    column_label: str,
    min_count: int,
) -> None:
    """Mean gains (``gain_cells``: ``mean``, ``half_width``, ``positions``) as a grid of
    ``row`` by ``column`` on a scale centred at 0 (blue: the action gains, red: it loses),
    each cell with its gain and the half-width of its 95% interval. Cells with fewer than
    ``min_count`` positions are grey and hatched with their count in brackets; cells
    without positions are blank (the layout is ``heat_map_cells``)."""
    cells = heat_map_cells(table, row, column, "mean", "positions", min_count, 1.0)
    halves = heat_map_cells(table, row, column, "half_width", "positions", min_count, 1.0)
    rows = list(dict.fromkeys(cells[row]))
    columns = list(dict.fromkeys(cells[column]))
    solid = np.full((len(rows), len(columns)), np.nan)
    for cell in cells[cells["style"] == "solid"].itertuples():
        solid[cell.i, cell.j] = cell.value
    reach = np.nanmax(np.abs(solid)) if np.isfinite(solid).any() else 1.0
    fig, ax = _pyplot().subplots(
        figsize=(max(6.0, 1.1 * len(columns) + 2.5), 0.42 * len(rows) + 2.2)
    )
    image = ax.imshow(
        np.ma.masked_invalid(solid), aspect="auto", cmap="RdBu", origin="lower",
        vmin=-reach, vmax=reach,
    )  # fmt: skip
    for cell, half in zip(cells.itertuples(), halves["value"], strict=True):
        if cell.style == "blank":
            continue
        text = f"{cell.value:+.1f}" + (f"\n±{half:.1f}" if np.isfinite(half) else "")
        if cell.style == "thin":
            ax.add_patch(
                _pyplot().Rectangle(
                    (cell.j - 0.5, cell.i - 0.5), 1, 1, facecolor=THIN_FACE,
                    edgecolor=THIN_HATCH, hatch="///", linewidth=0,
                )
            )  # fmt: skip
            text += f" ({cell.count})"
        strong = cell.style == "solid" and abs(cell.value) > 0.6 * reach
        ax.text(
            cell.j, cell.i, text, ha="center", va="center", fontsize=6, linespacing=0.9,
            color=THIN_TEXT if cell.style == "thin" else ("white" if strong else "black"),
        )  # fmt: skip
    ax.set_xticks(range(len(columns)), [str(c) for c in columns], fontsize=7)
    ax.set_yticks(range(len(rows)), [str(r) for r in rows], fontsize=8)
    ax.set_xlabel(column_label)
    ax.set_ylabel(row_label)
    ax.set_title(
        f"{title}\ngrey, hatched: fewer than {min_count} positions (count in brackets); "
        "blank: none",
        fontsize=9,
    )
    fig.colorbar(image, ax=ax, label="points per hand")
    fig.tight_layout()
    _save(fig, path)


def knock_fits(
    path: Path, fit: pd.DataFrame, line: pd.DataFrame, panel: str, title: str, thin: int = 0
) -> None:
    """Per value of ``panel`` (a stock band), the cells' mean gains of knocking by deadwood
    1 to 10 (points; hollow on fewer than ``thin`` positions) and the fitted line with its
    95% bootstrap band (``experiments.advice.knock_model``'s fit), the line's crossing of 0
    marked where it lies within the deadwoods shown."""
    panels = list(dict.fromkeys(fit[panel].astype(str)))
    fig, axes = _pyplot().subplots(
        1, max(len(panels), 1), figsize=(2.6 * max(len(panels), 1) + 0.8, 3.4), sharey=True,
        squeeze=False,
    )  # fmt: skip
    for ax, name in zip(axes[0], panels, strict=False):
        cells = fit[fit[panel].astype(str) == name]
        deadwood = cells["deadwood"].to_numpy()
        ax.axhline(0, color="0.5", linewidth=0.8)
        ax.fill_between(deadwood, cells["fitted_low"], cells["fitted_high"], alpha=0.25)
        ax.plot(deadwood, cells["fitted"], linewidth=1.5)
        firm = (cells["positions"] >= thin).to_numpy()
        placed = (cells["positions"] > 0).to_numpy()
        ax.plot(deadwood[firm & placed], cells["cell_mean"].to_numpy()[firm & placed], "o",
                color="black", markersize=4)  # fmt: skip
        ax.plot(deadwood[~firm & placed], cells["cell_mean"].to_numpy()[~firm & placed], "o",
                markerfacecolor="white", markeredgecolor="black", markersize=4)  # fmt: skip
        row = line[line[panel].astype(str) == name]
        if len(row) and np.isfinite(row["line"].iloc[0]) and 1 <= row["line"].iloc[0] <= 10:
            ax.axvline(row["line"].iloc[0], color="C3", linestyle="--", linewidth=1)
        ax.set_title(f"{name} cards left", fontsize=9)
        ax.set_xlabel("your deadwood")
        ax.set_xticks(range(1, 11, 3))
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("gain of knocking (points per hand)")
    hollow = f"; hollow: fewer than {thin} positions" if thin else ""
    fig.suptitle(
        f"{title}\ndots: cell means per decision; line and band: weighted least-squares fit "
        f"with its 95% bootstrap interval; dashed: where the fit crosses 0{hollow}",
        fontsize=9,
    )
    fig.tight_layout()
    _save(fig, path)
