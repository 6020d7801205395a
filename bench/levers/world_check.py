"""Are the search's worlds right? The opponent hands `mc` samples against the real ones, at
its own decisions (docs/strength.md, "Where the worlds are off").

    .venv/bin/python bench/levers/world_check.py --seed 49601 --deals 5000 \
        --opponent gin-hunter-strong --player bench/levers/mc-no-late-undercut.toml

The player (seat 0) plays the deals against the opponent under standard. At each of its
decisions kept (every knock, a quarter of its other discards), the hand is replayed to
that decision so the player's opponent posterior is as it played, and ``--worlds`` worlds
are drawn as its search draws them (``kernels.search.search_world_nb``: each world's panel
model from the posterior, the hand built by that model, with ``panel_worlds`` drawn given
the opponent's last turn), on the position's own world stream
(``positions.evaluation_keys``). Five tables:

- at its knocks without gin with at most ``--late`` cards left: the knock's points in the
  worlds (its showdown against each world's hand, R12-R15, unweighted by any undercut
  weight) against its real points, by the knock's deadwood; a positive bias is a knock
  valued above what it scored, each row its own deal;
- at the same knocks, where the showdown's points come from: the opponent's deadwood
  before and the points it laid off (R14), in the worlds and in truth;
- at the same knocks, the player's mean posterior over its panel and the mean deadwood of
  the hands each model built there, beside the real mean;
- at all its discard decisions: the opponent's deadwood in the worlds less its real
  deadwood, by cards left, each row weighted as it was kept and clustered by deal
  (``advice.per_decision``);
- at its sampled decisions with a knock open and at most ``--late`` cards left: the
  worlds' and the real opponent deadwood by fifths of the worlds' reading, and the slope
  of the real on the worlds' (1: the worlds read no more into a position than there is).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from gin_sim.experiments.advice import per_decision, weights
from gin_sim.experiments.positions import (
    KINDS,
    evaluation_keys,
    positions_frame,
    sample_positions,
)
from gin_sim.experiments.summary import Estimate
from gin_sim.game.config import ConfigError
from gin_sim.game.rules import Rules, load_rules
from gin_sim.kernels.advice import INFO_ACTION, replay_to_nb
from gin_sim.kernels.deadwood import min_deadwood_nb
from gin_sim.kernels.enums import (
    ACTION_CARD,
    ACTION_KNOCK,
    FAMILY_PARAMS,
    PositionMask,
    PositionSlot,
    StrategyParam,
)
from gin_sim.kernels.playout import scratch_nb
from gin_sim.kernels.position import (
    apply_nb,
    copy_position_nb,
    hand_value_nb,
    points_to_close_nb,
)
from gin_sim.kernels.search import (
    pass_weight_nb,
    record_history_nb,
    search_world_nb,
    world_evidence_nb,
)
from gin_sim.players.calibration import load_undercut_table
from gin_sim.players.search_value import equity_tables
from gin_sim.players.strategies import Strategy, strategies_to_kernel

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/, for strength.py
from strength import checked_players

KEEP = {"discard": 0.25, "knock": 1.0}  # other kinds: the smallest rate, then dropped
STOCK_BANDS = ((25, 31), (19, 24), (13, 18), (0, 12))  # cards left in the stock
DEADWOOD_GROUPS = ((1, 3), (4, 6), (7, 10))


def sampled_rows(
    rules: Rules,
    players: tuple[Strategy, Strategy],
    seed: int,
    deals: int,
    worlds: int,
    share: float,
    infer_weight: float | None = None,
    turns_factor: float = 1.0,
) -> pd.DataFrame:
    """The player's kept discard decisions (seat 0): every knock it made, and of the rest
    a ``share`` (``deadwood_sample``, its ``weight`` divided by ``share``; the choice a
    function of the position's stream), each with its worlds' figures:
    ``world_deadwood`` (the opponent's mean deadwood over the worlds), ``real_deadwood``,
    and at a knock ``world_points`` (the knock's mean points over the worlds),
    ``undercut_share`` (the share of worlds that undercut it), the opponent's deadwood
    before laying off and the points it laid off, over the worlds
    (``world_defender_deadwood``, ``world_laid_off``) and in the real showdown
    (``real_defender_deadwood``, ``real_laid_off``, ``real_showdown_points``)."""
    names = players[0].for_rules(rules).opponent_panel
    if not names:
        raise ConfigError(f"{players[0].name} has no opponent panel: its worlds read no posterior")
    keep = tuple(KEEP.get(kind, 1 / 1024) for kind in KINDS)
    masks, states, info = sample_positions(rules, players, seed, 0, deals, keep)
    frame = positions_frame(players, masks, states, info)
    mine = frame["kind"].isin(list(KEEP)) & (frame["seat"] == 0)
    kept = mine.to_numpy()
    frame, masks, states, info = frame[mine], masks[kept], states[kept], info[kept]
    frame = frame.reset_index(drop=True)
    strategies = strategies_to_kernel(players, rules)
    params = strategies[0].copy()
    if infer_weight is not None:
        params[StrategyParam.MC_INFER_WEIGHT] = infer_weight
    panel = len(names)
    kernel_rules, undercuts = rules.to_kernel(), load_undercut_table()
    equity = equity_tables(players, rules)
    keys = evaluation_keys(seed, frame["deal"].to_numpy(), frame["decision"].to_numpy())
    world_masks, world_state = np.zeros_like(masks[0]), np.zeros_like(states[0])
    roll_masks, roll_state = np.zeros_like(masks[0]), np.zeros_like(states[0])
    idle = np.zeros(2, np.uint64)  # a random model's streams (its turn likelihood reads none)
    cards, chains, result = (
        np.zeros(52, np.int64),
        np.empty((16, 2), np.int64),
        np.empty(8, np.int64),
    )
    started = time.time()
    chosen = (keys >> np.uint64(11)).astype(np.float64) * 2.0**-53 < share
    open_knock = frame["kind"].eq("knock").to_numpy()
    knocked = open_knock & (info[:, INFO_ACTION] & ACTION_KNOCK != 0)
    # Every knock row was kept with probability 1: its weight is the same for all of them,
    # so the knock table's means are the plain ones.
    frame = frame.assign(deadwood_sample=chosen, weight=frame["weight"] / share)
    figures = {}
    # One scratch for every replay: replay_to_nb starts each from nothing (forget_nb).
    scratch, deck, deck_state = scratch_nb(), np.empty(52, np.int8), np.empty(1, np.uint64)
    for i in np.flatnonzero(chosen | knocked):
        reached = replay_to_nb(
            np.uint64(seed), int(frame.at[i, "deal"]), int(frame.at[i, "decision"]),
            kernel_rules, strategies, undercuts, equity, scratch, deck, deck_state,
            masks[i], states[i],
        )  # fmt: skip
        if not reached:
            raise RuntimeError(f"row {i}: the replay did not reach the stored position")
        memory = scratch[5][17]  # the search's panel memory as the player left it there
        if params[StrategyParam.MC_INFER_TIMED] != 0:  # as the search dates passes first
            record_history_nb(masks[i], states[i], 0, memory[0])
        action = int(info[i, INFO_ACTION])
        knock = bool(knocked[i])
        rng = np.array([keys[i]], np.uint64)
        built = states[i].copy()  # the build reads the opponent's turns from the state
        built[PositionSlot.TURNS_BY + 1] = round(built[PositionSlot.TURNS_BY + 1] * turns_factor)
        deadwood, points, undercut, defender, laid_off = [], [], [], [], []
        by_model = [[] for _ in names]  # the knock's worlds' defender deadwood, per model
        # a contradicted pass weighs as at the search ("knock" rows: a knock was open)
        weight = pass_weight_nb(params, 52 - states[i][PositionSlot.STOCK_POS], open_knock[i])
        evidence = world_evidence_nb(params, states[i], 0, memory[0])
        to_close = points_to_close_nb(states[i], kernel_rules, 1)
        for world in range(worlds):
            base = search_world_nb(
                params, masks[i], built, kernel_rules, undercuts, 0, world_masks, world_state,
                cards, rng, idle, memory[0], panel, world, weight, evidence, to_close,
            )  # fmt: skip
            drawn = (base - StrategyParam.MC_PANEL) // FAMILY_PARAMS
            world_state[PositionSlot.TURNS_BY + 1] = states[i][PositionSlot.TURNS_BY + 1]
            deadwood.append(min_deadwood_nb(world_masks[PositionMask.HAND + 1]))
            if knock:
                copy_position_nb(world_masks, world_state, roll_masks, roll_state)
                apply_nb(roll_masks, roll_state, kernel_rules, action)
                points.append(
                    hand_value_nb(roll_masks, roll_state, kernel_rules, chains, result, 0)
                )
                undercut.append(result[3] != 0)
                defender.append(result[5])  # its deadwood before laying off (R14)
                by_model[drawn].append(result[5])
                laid_off.append(result[7])
        real = {}
        if knock:  # the real showdown of the same knock, read as the worlds' are
            copy_position_nb(masks[i], states[i], roll_masks, roll_state)
            apply_nb(roll_masks, roll_state, kernel_rules, action)
            real_points = hand_value_nb(roll_masks, roll_state, kernel_rules, chains, result, 0)
            real = {
                "real_showdown_points": int(real_points),
                "world_defender_deadwood": float(np.mean(defender)),
                "real_defender_deadwood": int(result[5]),
                "world_laid_off": float(np.mean(laid_off)),
                "real_laid_off": int(result[7]),
                # per panel model: the mean over the worlds it played (none: NaN)
                **{
                    f"world_deadwood {name}": float(np.mean(found)) if found else np.nan
                    for name, found in zip(names, by_model, strict=True)
                },
            }
        hand = masks[i][PositionMask.HAND]
        figures[i] = {
            "world_deadwood": float(np.mean(deadwood)),
            "real_deadwood": int(min_deadwood_nb(masks[i][PositionMask.HAND + 1])),
            "knock": knock,
            "knock_deadwood": int(
                min_deadwood_nb(hand & ~(np.uint64(1) << np.uint64(action & ACTION_CARD)))
            )
            if knock
            else -1,
            "world_points": float(np.mean(points)) if knock else np.nan,
            "undercut_share": float(np.mean(undercut)) if knock else np.nan,
            # the posterior the worlds' models were drawn from (the panel's order)
            **{f"posterior {name}": float(memory[0, m]) for m, name in enumerate(names)},
            **real,
        }
        if len(figures) % 500 == 0:
            done = len(figures)
            print(f"  {done:,} decisions, {time.time() - started:.0f} s", flush=True)
    frame["stock_left"] = 52 - states[:, PositionSlot.STOCK_POS]
    found = pd.DataFrame.from_dict(figures, orient="index")
    return frame.loc[found.index].join(found)


def shown(rows: pd.DataFrame, values) -> str:
    found = per_decision(rows, values)
    low, high = found.mean - found.half_width, found.mean + found.half_width
    return f"{found.mean:+.2f} [{low:+.2f}, {high:+.2f}]"


def late_knocks(rows: pd.DataFrame, late: int) -> pd.DataFrame:
    """The knocks without gin with at most ``late`` cards left: the rows every knock
    table reads."""
    return rows[rows["knock"] & (rows["knock_deadwood"] > 0) & (rows["stock_left"] <= late)]


def knock_cells(rows: pd.DataFrame, late: int):
    """(label, rows) of the late knocks without gin per deadwood group, then all of them
    ("all"); a group without a knock is left out."""
    knocks = late_knocks(rows, late)
    for low, high in (*DEADWOOD_GROUPS, (1, 10)):
        cell = knocks[knocks["knock_deadwood"].between(low, high)]
        if len(cell):
            yield (f"{low}-{high}" if (low, high) != (1, 10) else "all"), cell


def knock_table(rows: pd.DataFrame, late: int) -> pd.DataFrame:
    """Per deadwood group of the late knocks without gin: the knocks, the worlds' mean
    points, the real mean points, the bias (worlds less real, 95% interval by deal), the
    worlds' undercut share and the real one."""
    lines = []
    for label, cell in knock_cells(rows, late):
        real = cell["hand_points"].to_numpy(np.float64)
        lines.append(
            (
                label,
                len(cell),
                f"{cell['world_points'].mean():+.2f}",
                f"{real.mean():+.2f}",
                shown(cell, cell["world_points"].to_numpy() - real),
                f"{cell['undercut_share'].mean():.0%}",
                f"{(real < 0).mean():.0%}",
            )
        )
    columns = ["deadwood", "knocks", "worlds' points", "real points", "bias", "worlds undercut", "undercut"]  # fmt: skip
    return pd.DataFrame(lines, columns=columns)


def showdown_table(rows: pd.DataFrame, late: int) -> pd.DataFrame:
    """Per deadwood group of the late knocks without gin: the opponent's deadwood before
    laying off and the points it laid off (R14), in the worlds (mean over each knock's
    worlds) and in truth, and each difference (worlds less real, 95% interval by deal).
    An undercut needs the defender's deadwood after laying off at most the knocker's
    (R15), so these say which of the two the worlds get wrong."""
    lines = []
    for label, cell in knock_cells(rows, late):
        line = [label, len(cell)]
        for what in ("defender_deadwood", "laid_off"):
            world = cell[f"world_{what}"].to_numpy(np.float64)
            real = cell[f"real_{what}"].to_numpy(np.float64)
            line += [f"{world.mean():.2f}", f"{real.mean():.2f}", shown(cell, world - real)]
        lines.append(tuple(line))
    columns = [
        "deadwood", "knocks",
        "worlds' deadwood", "real deadwood", "worlds less real",
        "worlds laid off", "real laid off", "laid off, worlds less real",
    ]  # fmt: skip
    return pd.DataFrame(lines, columns=columns)


def posterior_table(rows: pd.DataFrame, late: int) -> pd.DataFrame:
    """The player's mean posterior over its panel at its late knocks without gin: which
    models built the worlds it knocked on, and the mean deadwood (before laying off) of
    the hands each built there, beside the real mean."""
    knocks = late_knocks(rows, late)
    columns = [c for c in rows.columns if c.startswith("posterior ")]
    names = [c.removeprefix("posterior ") for c in columns]
    built = [
        knocks[f"world_deadwood {name}"].mean() if f"world_deadwood {name}" in knocks else np.nan
        for name in names
    ]
    real = knocks["real_defender_deadwood"].mean() if "real_defender_deadwood" in knocks else np.nan
    return pd.DataFrame(
        {
            "model": names,
            "posterior": knocks[columns].mean().round(3).to_numpy(),
            "worlds' deadwood": np.round(built, 2),
            "real deadwood": round(float(real), 2),
        }
    )


def deadwood_line(label, cell: pd.DataFrame) -> tuple:
    """A row of the deadwood tables: ``label``, the decisions of ``cell``, the opponent's
    mean deadwood in the worlds and in truth (weighted as kept) and the difference (95%
    interval by deal)."""
    world = per_decision(cell, cell["world_deadwood"]).mean
    real = per_decision(cell, cell["real_deadwood"]).mean
    difference = cell["world_deadwood"].to_numpy() - cell["real_deadwood"].to_numpy()
    return label, len(cell), f"{world:.2f}", f"{real:.2f}", shown(cell, difference)


def deadwood_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Per band of cards left: the decisions, the opponent's mean deadwood in the worlds
    and in truth (weighted as kept), and the difference (95% interval by deal)."""
    lines = []
    rows = rows[rows["deadwood_sample"]]
    for low, high in STOCK_BANDS:
        cell = rows[rows["stock_left"].between(low, high)]
        if len(cell):
            lines.append(deadwood_line(f"{low}-{high}", cell))
    columns = ["cards left", "decisions", "worlds' deadwood", "real deadwood", "worlds less real"]
    return pd.DataFrame(lines, columns=columns)


def calibration_table(
    rows: pd.DataFrame, late: int, parts: int = 5
) -> tuple[pd.DataFrame, Estimate | None]:
    """Are the worlds' readings of the opponent worth what they say where a knock is open?
    The player's sampled decisions with a knock open and at most ``late`` cards left, in
    ``parts`` equal groups by the worlds' mean opponent deadwood: the worlds' and the real
    mean in each (weighted as kept, 95% interval of the difference by deal). Then the
    slope of the real deadwood on the worlds' (weighted least squares, its interval by
    deal from the ratio of sums ``sum w(x - mean x)(y - mean y) / sum w(x - mean x)^2``):
    1 where the worlds read as much into a position as there is, below 1 where they read
    more, so that a knock chosen where they read a weak hand meets a stronger one."""
    cell = rows[rows["deadwood_sample"] & rows["kind"].eq("knock") & (rows["stock_left"] <= late)]
    if len(cell) < parts:
        return pd.DataFrame(), None
    x = cell["world_deadwood"].to_numpy(np.float64)
    y = cell["real_deadwood"].to_numpy(np.float64)
    part = pd.qcut(pd.Series(x).rank(method="first"), parts, labels=False).to_numpy()
    lines = [deadwood_line(k + 1, cell[part == k]) for k in range(parts)]
    columns = ["fifth" if parts == 5 else "part", "decisions", "worlds' deadwood",
               "real deadwood", "worlds less real"]  # fmt: skip
    w = weights(cell)
    dx = x - np.average(x, weights=w)
    dy = y - np.average(y, weights=w)
    slope = Estimate.of(w * dx * dy, w * dx * dx, groups=cell["deal"].to_numpy())
    return pd.DataFrame(lines, columns=columns), slope


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--deals", type=int, default=5000)
    parser.add_argument("--opponent", default="gin-hunter-strong")
    parser.add_argument("--player", default="mc", help="a search player with an opponent panel")
    parser.add_argument("--worlds", type=int, default=96, help="worlds per decision")
    parser.add_argument("--late", type=int, default=18, help="the knocks' most cards left")
    parser.add_argument(
        "--share", type=float, default=0.1, help="the share of other decisions checked"
    )
    parser.add_argument(
        "--infer-weight", type=float, help="what if: this infer_weight in the worlds"
    )
    parser.add_argument(
        "--turns-factor", type=float, default=1.0, help="what if: the hand built over more turns"
    )
    args = parser.parse_args()
    rules = load_rules("standard")
    players = tuple(checked_players("world_check.py", [args.player, args.opponent], rules))
    try:
        rows = sampled_rows(
            rules, players, args.seed, args.deals, args.worlds, args.share, args.infer_weight,
            args.turns_factor,
        )  # fmt: skip
    except ConfigError as error:  # raised before any play
        print(f"world_check.py: {error}", file=sys.stderr)
        sys.exit(2)
    print(
        f"{args.player} against {args.opponent}, standard, seed {args.seed}, {args.deals:,} deals"
    )
    print(f"\nits knocks without gin, {args.late} or fewer cards left:")
    print(knock_table(rows, args.late).to_string(index=False))
    print("\nthe opponent's deadwood before laying off, and the points laid off, at those knocks:")
    print(showdown_table(rows, args.late).to_string(index=False))
    print("\nits mean posterior at those knocks:")
    print(posterior_table(rows, args.late).to_string(index=False))
    print("\nthe opponent's deadwood at its discard decisions:")
    print(deadwood_table(rows).to_string(index=False))
    print(
        f"\nwith a knock open and {args.late} or fewer cards left, by fifths of the worlds'"
        " reading:"
    )
    table, slope = calibration_table(rows, args.late)
    if slope is None:
        print("too few decisions with a knock open")
    else:
        low, high = slope.mean - slope.half_width, slope.mean + slope.half_width
        print(table.to_string(index=False))
        print(
            f"slope of the real deadwood on the worlds': {slope.mean:.2f} [{low:.2f}, {high:.2f}]"
        )


if __name__ == "__main__":
    main()
