"""A report folder: ``report.md``, its figures as PNG, every table as CSV and Parquet.

A ``Report`` is assembled by the report modules from tables that are already computed; this
module only lays them out. Nothing here depends on the time or the machine, so running the
same command twice writes the same files. ``write_index`` lists the report folders next to
each other in ``index.md``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from gin_sim.reports.tables import RATE_FIGURES

META = "report.json"


@dataclass
class Section:
    """A heading, plain-words text, then (optionally) a table shown as markdown and figures."""

    heading: str
    text: str = ""
    table: pd.DataFrame | None = None  # what report.md shows (already formatted)
    figures: list[str] = field(default_factory=list)  # names of PNG files in the folder


@dataclass
class Report:
    kind: str  # knock, undercut, schedule, variants
    title: str
    command: str  # the gin-sim command that reproduces the report
    setup: list[str]  # what was run, one bullet each
    findings: list[str]  # in plain words, one bullet each
    sections: list[Section] = field(default_factory=list)
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)  # saved as CSV + Parquet
    figures: dict[str, Callable[[Path], None]] = field(default_factory=dict)  # name -> draw


def command_line(subcommand: str, options: dict[str, object]) -> str:
    """The ``gin-sim report`` command that reproduces a report, options in the given order."""
    parts = ["gin-sim report", subcommand]
    parts += [f"--{key.replace('_', '-')} {value}" for key, value in options.items()]
    return " ".join(parts)


def write_report(report: Report, folder: str | Path) -> Path:
    """Write the report into ``folder`` (created), then refresh the parent's ``index.md``."""
    directory = Path(folder)
    directory.mkdir(parents=True, exist_ok=True)
    for name, table in report.tables.items():
        table.to_csv(directory / f"{name}.csv", index=False)
        table.to_parquet(directory / f"{name}.parquet", index=False)
    for name, draw in report.figures.items():
        draw(directory / f"{name}.png")
    (directory / "report.md").write_text(render_markdown(report))
    meta = {
        "kind": report.kind,
        "title": report.title,
        "command": report.command,
        "headline": report.findings[0] if report.findings else "",
    }
    (directory / META).write_text(json.dumps(meta, indent=2) + "\n")
    write_index(directory.parent)
    return directory


def render_markdown(report: Report) -> str:
    lines = [f"# {report.title}", "", "## What was run", ""]
    lines += [f"- {item}" for item in report.setup]
    lines += ["", "Reproduce with:", "", "```sh", report.command, "```", ""]
    lines += ["## Findings", ""] + [f"- {item}" for item in report.findings] + [""]
    for section in report.sections:
        lines += [f"## {section.heading}", ""]
        if section.text:
            lines += [section.text, ""]
        if section.table is not None:
            lines += [markdown_table(section.table), ""]
        for figure in section.figures:
            lines += [f"![{figure}]({figure}.png)", ""]
    saved = ", ".join(f"`{name}.csv`" for name in report.tables)
    lines += [
        "## Data",
        "",
        f"Every table is saved as CSV and Parquet next to this file ({saved}; the same names "
        "with `.parquet`), with each figure's mean, the half-width of its 95% interval, its "
        "bounds (`low`, `high`) and `n`, the independent units behind it (decks; matches for "
        "the match win rate), so any figure can be redrawn from them.",
        "",
    ]
    return "\n".join(lines)


def markdown_table(table: pd.DataFrame) -> str:
    """A DataFrame of already formatted values as a markdown pipe table (index dropped);
    columns of numbers are right-aligned, text left-aligned."""
    header = [str(c) for c in table.columns]
    rows = [[str(v) for v in row] for row in table.itertuples(index=False)]
    numeric = [
        all(_NUMBER.match(row[i]) or row[i] in ("", "n/a") for row in rows)
        for i in range(len(header))
    ]
    lines = ["| " + " | ".join(header) + " |"]
    lines.append("|" + "|".join("---:" if n else "---" for n in numeric) + "|")
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


_NUMBER = re.compile(r"^[-+]?[0-9][0-9,.]*( ± [0-9.]+)?%?$")


def format_value(figure: str, mean: float, half_width: float | None = None) -> str:
    """``mean ± half_width`` in the figure's unit: percent for rates (2 decimals), else points
    (3 decimals), deadwood and turns (2 decimals)."""
    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return "n/a"
    scale, digits, suffix = (100.0, 2, "%") if figure in RATE_FIGURES else (1.0, 3, "")
    if figure in ("deadwood when knocking", "turns per hand"):
        digits = 2
    text = f"{mean * scale:.{digits}f}"
    if half_width is not None and not math.isnan(half_width):
        text += f" ± {half_width * scale:.{digits}f}"
    return text + suffix


def display(table: pd.DataFrame, key: str, key_label: str | None = None) -> pd.DataFrame:
    """A tidy figure table as a readable one-row-per-key table of ``mean ± half_width``."""
    order = list(dict.fromkeys(table["figure"]))
    out: dict[str, list[str]] = {key_label or key: []}
    for label, group in table.groupby(key, sort=False):
        out[key_label or key].append(str(label))
        by_figure = group.set_index("figure")
        for figure in order:
            row = by_figure.loc[figure]
            out.setdefault(figure, []).append(format_value(figure, row["mean"], row["half_width"]))
    return pd.DataFrame(out)


def write_index(root: str | Path) -> Path:
    """``root/index.md``: every report folder under ``root``, with its headline finding."""
    directory = Path(root)
    entries = []
    for meta_file in sorted(directory.glob(f"*/{META}")):
        meta = json.loads(meta_file.read_text())
        entries.append((meta_file.parent.name, meta))
    lines = [
        "# Reports",
        "",
        "Generated by `gin-sim report` (the default set: `make run`); each folder holds "
        "`report.md`, its figures (PNG) and its tables (CSV and Parquet).",
        "",
    ]
    for name, meta in entries:
        lines += [f"- [{meta['title']}]({name}/report.md): {meta['headline']}"]
    path = directory / "index.md"
    path.write_text("\n".join(lines) + "\n")
    return path
