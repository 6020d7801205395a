"""A family strategy distilled from an advice report's tables (issue 16, part 4;
docs/advice.md, "The distilled strategy").

The tables propose; the family's own play decides. The tables measure what a decision is
worth in the strong players' play (rollouts by ``expert`` against ``simple`` after the
decision), not in a family member's, so a change they propose can lose when a family
member makes it. Each proposal is therefore one change to the base strategy (``expert``),
read from one table:

- the knock line of the report's own rule set (``knock-line``) as a knock schedule, for
  every rule set (top level);
- the take rule of the take-or-draw cells (``take-cells``): the take-for-gain rule off when
  taking a discard that lowers the deadwood by 5 or more without a meld is clearly worse
  than drawing (top level);
- the take rule by stock depth of the take-or-draw cells by stock band
  (``take-cells-by-stock``) as a ``take_schedule`` (``distilled_take_schedule``: per band,
  take a card that completes a meld, or that lowers the deadwood, where doing so gains
  there) (top level);
- the knock line of each compared rule set (``knock-line-by-rules``) as that rule set's
  knock schedule, in an ``[[adapt]]`` table that holds where the rule set differs from the
  report's own.

A proposal that would not change how the base plays is not made. Each one is played, base
with the change against the base, paired on duplicate decks of a development seed, under
the rule set whose table proposed it; it is kept only when its gain's interval,
Bonferroni-adjusted for the number of proposals, lies above 0. The strategy written is the
base (its own ``[[adapt]]`` tables included) with the kept changes. Its strength must then
be confirmed on decks of another seed: the development decks chose what is kept.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import pandas as pd

from gin_sim.experiments.advice import CARD_DOES, MIN_CELL_POSITIONS, STOCK_BANDS
from gin_sim.experiments.holdout import adjusted
from gin_sim.experiments.outputs import read_owner
from gin_sim.experiments.simulate import head_to_head
from gin_sim.experiments.summary import Estimate, player_summary
from gin_sim.experiments.tuner import strategy_toml, toml_value
from gin_sim.game.config import ConfigError, read_user_file, shown
from gin_sim.game.rules import Rules, load_rules
from gin_sim.players.strategies import (
    FAMILY_KEYS,
    Strategy,
    conditions_hold,
    load_strategy,
    strategy_from_dict,
)

DISTILLED_BASE = "expert"
DISTILLED_NAME = "advised"
# The take-or-draw cell behind the take rule: a later discard (not the first upcard) that
# lowers the deadwood by 5 or more without completing a meld.
TAKE_RULE_CELL = ("draw", CARD_DOES[1])
# Table files read from an advice report folder (CSV, as the report writes them).
_TABLES = ("knock-line", "take-cells", "take-cells-by-stock", "knock-line-by-rules")
_TABLE_BYTES = 1 << 20


@dataclass(frozen=True)
class Proposal:
    """One change to the base strategy read from one table: ``changes`` (family
    parameters) under ``when`` (an ``[[adapt]]`` condition, rule key to ``[low, high]`` or a
    boolean; empty: every rule set), checked under the rule set ``rules``."""

    rules: str
    when: tuple[tuple[str, Any], ...]
    changes: tuple[tuple[str, Any], ...]
    source: str

    def describe(self) -> str:
        # A top-level change holds wherever no [[adapt]] table of the base sets the key.
        where = "top level" if not self.when else _when_text(self.when)
        changes = ", ".join(f"{k} = {toml_value(v)}" for k, v in self.changes)
        return f"{changes} ({where}; from {self.source})"


@dataclass(frozen=True)
class Checked:
    """A proposal and its gain in the family's play (net points per hand of the base with
    the change against the base, paired), its interval Bonferroni-adjusted."""

    proposal: Proposal
    gain: Estimate
    kept: bool


def distilled_schedule(line: pd.DataFrame) -> list[list[int]]:
    """A family ``knock_schedule`` from a knock line by stock band (``knock_line`` by
    ``stock_band``): each band from the start of the hand gets the knock threshold its
    fitted line says (``threshold``: the line rounded down, within 0 and the knock limit;
    0: gin only), a band resting on fewer than MIN_CELL_POSITIONS positions or without a
    fit (-1) the band before it; equal neighbours merge, and a schedule longer than the
    family's 4 phases merges its last phases into the fourth's threshold. Pairs are
    ``[lowest stock of the band, threshold]``, the last one's stock 0."""
    lows = {f"{low}-{high}": low for low, high in STOCK_BANDS}
    phases: list[list[int]] = []
    for row in line.itertuples():
        threshold = int(row.threshold)
        if (row.positions < MIN_CELL_POSITIONS or threshold < 0) and phases:
            threshold = phases[-1][1]
        threshold = max(threshold, 0)
        if phases and phases[-1][1] == threshold:
            phases[-1][0] = lows[str(row.stock_band)]
        else:
            phases.append([lows[str(row.stock_band)], threshold])
    phases = phases[:4] if phases else [[0, 10]]
    phases[-1][0] = 0
    return phases


def _thresholds(strategy: Strategy, rules: Rules) -> list[int]:
    """The knock threshold ``strategy`` plays under ``rules`` at every stock size."""
    played = strategy.for_rules(rules)
    return [played.threshold_at(stock, rules.knock_limit) for stock in range(32)]


def distilled_take_schedule(cells: pd.DataFrame, base: Strategy) -> list[list[Any]]:
    """A family ``take_schedule`` from the take-or-draw cells by stock band
    (``take_cells`` by ``stock_band``): in each band from the start of the hand,
    ``take_melds`` when taking a card that completes a meld gains on average there, and
    ``take_min_gain`` from the cells of cards that lower the deadwood: 1 when both ("by 5
    or more", "by 1 to 4") gain, the base's own (5 if it has none) when only "by 5 or
    more" does, 0 (off) when neither does. A cell resting on fewer than MIN_CELL_POSITIONS positions keeps the band
    before it (the first band: ``base``'s own rule); equal neighbours merge, and a
    schedule longer than the family's 4 phases merges its last phases into the fourth.
    Phases are ``[lowest stock of the band, take_melds, take_min_gain]``, the last one's
    stock 0."""
    lows = {f"{low}-{high}": low for low, high in STOCK_BANDS}
    gains = {
        (str(row.stock_band), str(row.card_does)): (float(row.mean), int(row.positions))
        for row in cells.itertuples()
    }
    melds, by_five, by_one = CARD_DOES[0], CARD_DOES[1], CARD_DOES[2]
    take_melds, take_min_gain = base.take_melds, float(base.take_min_gain)
    phases: list[list[Any]] = []

    def gains_in(band: str, card_does: str) -> bool | None:  # None: too thin to say
        mean, positions = gains.get((band, card_does), (float("nan"), 0))
        return None if positions < MIN_CELL_POSITIONS else bool(mean > 0)

    for band in lows:
        melding = gains_in(band, melds)
        take_melds = take_melds if melding is None else melding
        five, one = gains_in(band, by_five), gains_in(band, by_one)
        if five is not None:  # the base's own score where only the larger lowering gains
            take_min_gain = (1.0 if one else float(base.take_min_gain or 5.0)) if five else 0.0
        phase = [lows[band], take_melds, take_min_gain]
        if phases and phases[-1][1:] == phase[1:]:
            phases[-1][0] = lows[band]
        else:
            phases.append(phase)
    phases = phases[:4]
    phases[-1][0] = 0
    return phases


def _take_rules(strategy: Strategy, rules: Rules) -> list[tuple[bool, float]]:
    """The take rule (take_melds, take_min_gain) ``strategy`` plays under ``rules`` at every
    stock size."""
    played = strategy.for_rules(rules)
    rule = []
    for stock in range(32):
        phase = next((p[1:] for p in played.take_schedule if p[0] <= stock), None)
        rule.append(phase or (played.take_melds, float(played.take_min_gain)))
    return [(bool(m), float(g)) for m, g in rule]


def _conditions(rules: Rules, own: Rules) -> tuple[tuple[str, Any], ...]:
    """An ``[[adapt]]`` condition that holds for ``rules``' values of every rule key where
    they differ from ``own``'s (so it does not hold under ``own``)."""
    conditions = []
    for field in fields(Rules):
        key = field.name
        value = getattr(rules, key)
        if key == "name" or value == getattr(own, key):
            continue
        conditions.append((key, value if isinstance(value, bool) else (value, value)))
    return tuple(sorted(conditions))


def proposals(
    tables: dict[str, pd.DataFrame], own: Rules, compared: list[Rules], base: Strategy
) -> list[Proposal]:
    """The changes to ``base`` that the tables of an advice report under ``own`` (compared
    with ``compared``) propose (module docstring), in the order: own knock line, take
    rule, take schedule by stock band, each compared rule set's knock line."""
    made = []
    schedule = distilled_schedule(tables["knock-line"])
    candidate = replace(base, adapt=(), knock_schedule=tuple(map(tuple, schedule)))
    if _thresholds(candidate, own) != _thresholds(base, own):
        made.append(
            Proposal(own.name, (), (("knock_schedule", schedule),), f"{own.name}'s knock line")
        )
    takes = tables["take-cells"]
    cell = takes[(takes["kind"] == TAKE_RULE_CELL[0]) & (takes["card_does"] == TAKE_RULE_CELL[1])]
    loses = bool(len(cell) and cell["positions"].iloc[0] > 0 and cell["high"].iloc[0] < 0)
    if loses and base.for_rules(own).take_min_gain > 0:
        made.append(
            Proposal(
                own.name,
                (),
                (("take_min_gain", 0.0),),
                f"{own.name}'s take or draw: a discard lowering the deadwood by 5 or more "
                f"without a meld, {cell['mean'].iloc[0]:+.2f} ({cell['low'].iloc[0]:+.2f} to "
                f"{cell['high'].iloc[0]:+.2f}) over drawing",
            )
        )
    if "take-cells-by-stock" in tables:
        take_schedule = distilled_take_schedule(tables["take-cells-by-stock"], base.for_rules(own))
        candidate = replace(base, adapt=(), take_schedule=tuple(map(tuple, take_schedule)))
        if _take_rules(candidate, own) != _take_rules(base, own):
            made.append(
                Proposal(
                    own.name,
                    (),
                    (("take_schedule", take_schedule),),
                    f"{own.name}'s take-or-draw cells by stock band",
                )
            )
    by_rules = tables.get("knock-line-by-rules")
    for rules in compared:
        when = _conditions(rules, own)
        if by_rules is None or not when:
            continue
        line = by_rules[by_rules["rules"] == rules.name]
        if not len(line):
            continue
        schedule = distilled_schedule(line)
        candidate = replace(base, adapt=(), knock_schedule=tuple(map(tuple, schedule)))
        if _thresholds(candidate, rules) != _thresholds(base, rules):
            made.append(
                Proposal(
                    rules.name,
                    when,
                    (("knock_schedule", schedule),),
                    f"{rules.name}'s knock line",
                )
            )
    return made


def check(
    base: Strategy,
    proposal: Proposal,
    rules: Rules,
    deals: int,
    seed: int,
    comparisons: int,
    threads: int | None = None,
) -> Checked:
    """Play the base with ``proposal``'s changes (on top of how the base plays under
    ``rules``) against the base, ``deals`` duplicate decks of ``seed``; kept when the
    paired gain's interval, adjusted for ``comparisons``, lies above 0."""
    changes = {
        k: tuple(map(tuple, v)) if k in ("knock_schedule", "take_schedule") else v
        for k, v in proposal.changes
    }
    changed = replace(base.for_rules(rules), name=f"{base.name} changed", **changes)
    frame = head_to_head(rules, (changed, base), deals, seed, threads=threads)
    gain = adjusted(player_summary(frame, 0)["net points per hand"], comparisons)
    return Checked(proposal, gain, bool(gain.mean - gain.half_width > 0))


def read_report_tables(
    folder: str | Path, tables_read: tuple[str, ...] = _TABLES, optional: tuple[str, ...] = ()
) -> tuple[dict[str, pd.DataFrame], Rules, list[Rules]]:
    """The tables ``tables_read`` (by default those ``proposals`` reads; the strategy card reads
    its own) from a finished ``report advice`` folder, each checked against what the report
    writes, with the report's rule set and the compared ones; a table of ``optional`` may
    be missing. Anything else is a one-line error."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ConfigError(f"advice report {folder} is not a folder: give a report advice folder")
    owner = read_owner(folder)
    if owner is None or owner["kind"] != "report advice" or not owner["finished"]:
        raise ConfigError(
            f"{folder} is not a finished report advice folder: give one that "
            "`gin-sim report advice --out` wrote"
        )
    options = owner["options"]
    mark = folder / ".gin-sim.json"
    if not isinstance(options.get("rules"), str) or not isinstance(options.get("compare"), str):
        raise ConfigError(f"{mark} lacks the report's rules: write it again")
    compare = options["compare"]  # as the command line spells it: "none" or names by commas
    names = [] if compare == "none" else [n for n in compare.split(",") if n]
    try:
        own = load_rules(options["rules"])
        compared = [load_rules(name) for name in names]
    except ConfigError as error:  # a rule set unknown here (renamed, or the mark edited)
        raise ConfigError(f"{mark}: {error}") from None
    tables = {}
    for name in tables_read:
        path = folder / f"{name}.csv"
        if name == "knock-line-by-rules" and not compared:
            continue
        if name == "take-cells-by-stock" and not path.exists():
            continue  # a report without it proposes no take schedule
        if name in _CARD_TABLES and not path.exists():
            raise ConfigError(
                f"{path} is missing: the report was written before strategy cards; write it "
                "again with this gin-sim (gin-sim report advice, the same options, a new --out)"
            )
        if name in optional and not path.exists():
            continue
        try:
            data = read_user_file(path, _TABLE_BYTES)
            tables[name] = pd.read_csv(io.BytesIO(data))
        except FileNotFoundError:
            raise ConfigError(f"{path} is missing: the advice report is incomplete") from None
        except ConfigError:
            raise
        except (OSError, ValueError) as error:
            raise ConfigError(f"cannot read {path}: {' '.join(str(error).split())}") from None
    for name, table in tables.items():  # the by-rules table holds the report's own line too
        _check_table(folder / f"{name}.csv", name, table, [own.name] + [r.name for r in compared])
    return tables, own, compared


# What each table read holds (as ``reports.advice`` writes it): its columns, and the whole
# numbers in each column with their range (None: no bound), or "number" for any number.
_TABLE_COLUMNS: dict[str, dict[str, Any]] = {
    "knock-line": {"stock_band": "band", "threshold": (-1, 10), "positions": (0, None)},
    "take-cells": {
        "kind": "text", "card_does": "text", "positions": (0, None),
        "mean": "number", "low": "number", "high": "number",
    },
    "take-cells-by-stock": {
        "stock_band": "band", "card_does": "text", "positions": (0, None), "mean": "number",
    },
    "knock-line-by-rules": {
        "stock_band": "band", "threshold": (-1, 10), "positions": (0, None), "rules": "text",
    },
    # The strategy card's (gin_sim.reports.card): every cell of every rule set.
    "knock-cells-by-rules": {
        "rules": "text", "stock_band": "band", "deadwood": (0, 10), "positions": (0, None),
        "mean": "number", "half_width": "number", "low": "number", "high": "number",
        "n": (0, None),
    },
    "take-cells-by-rules": {
        "rules": "text", "kind": "text", "stock_band": "band", "card_does": "text",
        "positions": (0, None), "mean": "number", "half_width": "number", "low": "number",
        "high": "number", "n": (0, None),
    },
    "check-against-play": {
        "cell": "text", "flagged": "text", "difference_mean": "number",
        "difference_low": "number", "difference_high": "number",
    },
    # The card's knock cells under the report's own rules, by play (reports.card).
    "knock-cells-by-play": {
        "rules": "text", "stock_band": "band", "deadwood": (0, 10), "positions": (0, None),
        "mean": "number", "half_width": "number", "low": "number", "high": "number",
        "n": (0, None), "search_mean": "number", "search_low": "number",
        "search_high": "number", "difference_mean": "number",
    },
}  # fmt: skip
_CARD_TABLES = ("knock-cells-by-rules", "take-cells-by-rules")


def _check_table(path: Path, name: str, table: pd.DataFrame, compared: list[str]) -> None:
    """One table of an advice report, refused (naming the file, the column and the value)
    unless it holds what the report writes: its columns, rows, numbers where numbers
    belong (a knock threshold a whole number from -1, none, to 10; counts whole and not
    negative), known stock bands, and only the report's rule sets (``compared``: its
    own and those it compares)."""
    columns = _TABLE_COLUMNS[name]
    missing = set(columns) - set(table.columns)
    if missing:
        raise ConfigError(
            f"{path} lacks the columns {', '.join(sorted(missing))}: not an advice report's table"
        )
    if table.empty:
        raise ConfigError(f"{path} has no rows: not a finished advice report's table")
    bands = {f"{low}-{high}" for low, high in STOCK_BANDS}
    for column, kind in columns.items():
        values = table[column]
        if kind == "band":
            unknown = values[~values.astype(str).isin(bands)]
            if len(unknown):
                raise ConfigError(
                    f"{path} has an unknown stock band {shown(unknown.iloc[0])} in column {column!r}: allowed {', '.join(sorted(bands))}"
                )
            continue
        if kind == "text":
            continue
        numbers = pd.to_numeric(values, errors="coerce")
        bad = numbers.isna() & values.notna() if kind == "number" else numbers.isna()
        if kind != "number":
            low, high = kind
            bad |= (numbers % 1 != 0) | (numbers < low)
            if high is not None:
                bad |= numbers > high
        if bad.any():
            row = int(bad.to_numpy().nonzero()[0][0])
            allowed = (
                "a number"
                if kind == "number"
                else f"a whole number {kind[0]} to {kind[1]}"
                if kind[1] is not None
                else f"a whole number {kind[0]} or more"
            )
            raise ConfigError(
                f"{path}: row {row + 1}, column {column!r} = {shown(values.iloc[row])}: allowed {allowed}"
            )
        table[column] = numbers  # as numbers from here on, whatever the file's spelling
    if "rules" in columns:
        unknown = sorted(set(table["rules"].astype(str)) - set(compared))
        if unknown:
            raise ConfigError(
                f"{path} has the rule set {shown(unknown[0])}, which the report neither plays nor compares: allowed {', '.join(compared)}"
            )


def family_base(name: str) -> Strategy:
    base = load_strategy(name)
    if base.kind != "family":
        raise ConfigError(
            f"base {base.name!r} is a {base.kind} strategy: allowed a family strategy"
        )
    return base


def proposals_of_report(folder: str | Path, base_name: str = DISTILLED_BASE) -> list[Proposal]:
    """The proposals of an advice report folder's tables for the base ``base_name``."""
    tables, own, compared = read_report_tables(folder)
    return proposals(tables, own, compared, family_base(base_name))


def distill(
    folder: str | Path,
    deals: int,
    seed: int,
    base_name: str = DISTILLED_BASE,
    threads: int | None = None,
    on_check=None,
) -> tuple[Strategy, list[Checked], str]:
    """The distilled strategy of an advice report folder: the proposals of its tables,
    each checked in play (``check``), and the base with the kept ones; also its TOML text,
    whose comments say what was proposed, measured and kept."""
    tables, own, compared = read_report_tables(folder)
    base = family_base(base_name)
    made = proposals(tables, own, compared, base)
    by_name = {rules.name: rules for rules in [own, *compared]}
    checked = []
    for proposal in made:
        checked.append(
            check(base, proposal, by_name[proposal.rules], deals, seed, len(made), threads)
        )
        if on_check is not None:
            on_check(1)
    values = _distilled_values(base, [c.proposal for c in checked if c.kept], own)
    strategy = strategy_from_dict(values, "the distilled strategy")
    text = strategy_toml(strategy, _comment(folder, base, checked, deals, seed).splitlines())
    return strategy, checked, text


def _distilled_values(base: Strategy, kept: list[Proposal], own: Rules) -> dict[str, Any]:
    """The distilled strategy's values: the base's, the kept top-level changes, the base's
    [[adapt]] tables, then the kept changes under a condition. A top-level change was
    checked under the report's own rule set ``own`` on top of how the base plays there
    (``check``), so a base table that holds under ``own`` and sets the same key, which would
    hide the change there, is followed by a table of its condition with the kept value."""
    config, defaults = base.to_config(), Strategy().to_config()
    values: dict[str, Any] = {
        "name": DISTILLED_NAME,
        "description": f"{base.name} with the changes of report advice's tables that won in its own play.",
    }
    # to_config leaves out keys at defaults that came later (closing_distance): read them so.
    values |= {
        key: config.get(key, defaults.get(key))
        for key in FAMILY_KEYS
        if config.get(key) != defaults.get(key)
    }
    top: dict[str, Any] = {}
    for proposal in kept:
        if not proposal.when:
            top |= dict(proposal.changes)
    values |= top
    adapt = [dict(table) for table in config["adapt"]]
    for (conditions, overrides), table in zip(base.adapt, config["adapt"], strict=True):
        hidden = {key: top[key] for key, _ in overrides if key in top}
        if hidden and conditions_hold(conditions, own):
            adapt.append({"when": table["when"]} | hidden)
    for proposal in kept:
        if proposal.when:
            when = {k: list(v) if isinstance(v, tuple) else v for k, v in proposal.when}
            adapt.append({"when": when} | dict(proposal.changes))
    if adapt:
        values["adapt"] = adapt
    return values


# The first words of every strategy distill writes (a TOML comment): what --overwrite may replace.
DISTILLED_HEADER = "# Distilled from the tables of the advice report "


def _comment(folder, base: Strategy, checked: list[Checked], deals: int, seed: int) -> str:
    lines = [
        f"{DISTILLED_HEADER[2:]}{folder} by",
        f"  gin-sim distill {folder} --deals {deals} --seed {seed}",
        f"Base: {base.name}. Each proposal of the tables was played, {base.name} with the change",
        f"against {base.name}, on {deals:,} duplicate decks of seed {seed} (net points per hand,",
        f"paired; intervals Bonferroni-adjusted for {len(checked)} proposals), and kept only when",
        "its interval lies above 0. Confirm on decks of another seed: these chose what is kept.",
    ]
    for c in checked:
        verdict = "kept" if c.kept else "not kept"
        lines.append(
            f"- {c.proposal.describe()}: under {c.proposal.rules} "
            f"{c.gain.mean:+.3f} ± {c.gain.half_width:.3f}, {verdict}"
        )
    if not checked:
        lines.append("- the tables proposed no change to how the base plays")
    return "\n".join(lines)


def _when_text(when: tuple[tuple[str, Any], ...]) -> str:
    return "when " + ", ".join(
        f"{k} = {str(v).lower()}" if isinstance(v, bool) else f"{k} = {v[0]}"
        if v[0] == v[1] else f"{k} in {v[0]} to {v[1]}"
        for k, v in when
    )  # fmt: skip


# What the strategy card says the shipped ``advised`` gains against ``expert``: duplicate
# decks of a seed used for nothing else (no table, no choice of what advised keeps).
ADVISED_CHECK_DECKS = 100_000
ADVISED_CHECK_SEED = 4301


def advised_against_expert(
    rules: Rules, decks: int = ADVISED_CHECK_DECKS, seed: int = ADVISED_CHECK_SEED
) -> tuple[Estimate, bool]:
    """The shipped ``advised`` against ``expert`` under ``rules``: net points per hand on
    ``decks`` duplicate decks of ``seed``, paired by deck, and whether it played as
    ``expert`` there (each deck's two plays, seats swapped, mirror each other: the
    difference is 0 on every deck, as when both make the same moves)."""
    frame = head_to_head(
        rules, (load_strategy(DISTILLED_NAME), load_strategy(DISTILLED_BASE)), decks, seed
    )
    gain = player_summary(frame, 0)["net points per hand"]
    return gain, gain.mean == 0.0 and gain.half_width == 0.0
