"""The knock cells of a finished advice run valued by play instead of by the search
(issue 47): every knock position of the run's own dataset, the knock (least-deadwood
discard) and the search's best discard without knocking each forced from the position as it
was, and the run's players playing the hand out, each from what it knew there
(``positions.play_headline``: searchers replayed from the deal, the stock reshuffled,
paired), ``CONTINUATIONS`` times. Per card cell (stock band by deadwood, as
``knock-cells-by-rules``), the search's gain and play's over the same positions, both per
decision with 95% intervals clustered by deal, their paired difference, and the card's
verdict from each (``gin_sim.reports.card.verdict``).

    .venv/bin/python tools/knock_cells_by_play.py RUN_FOLDER WORK_FOLDER [CONTINUATIONS]

RUN_FOLDER is a finished ``gin-sim report advice`` folder (read only). WORK_FOLDER (created;
never inside RUN_FOLDER) keeps the played chunks (``knock-play-NNN.parquet``, 2,000
positions each, so an interrupted run resumes) and writes ``knock-cells-by-play.csv``.
About 70 minutes with 4 continuations for the 41,482 knock positions of docs/advice-run on
two cores.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

from gin_sim.experiments.advice import knock_cells, stock_band
from gin_sim.experiments.outputs import read_owner
from gin_sim.experiments.positions import load_positions, play_headline
from gin_sim.game.rules import load_rules
from gin_sim.players.strategies import parse_players
from gin_sim.reports.card import build_card, verdict

CHUNK = 2000
KEPT = ["deal", "decision", "weight", "gain", "deadwood", "stock_left"]


def played(run: Path, work: Path, continuations: int) -> pd.DataFrame:
    """Every knock position of ``run`` with its play gain, chunk by chunk into ``work``."""
    options = read_owner(run)["options"]
    rules = load_rules(options["rules"])
    players = parse_players(options["players"])
    seed = int(options["seed"])
    frame = load_positions(run / "positions")
    frame["kind"] = frame["kind"].astype(str)
    knocks = frame[(frame["kind"] == "knock") & frame["gain"].notna()]
    parts = []
    for start in range(0, len(knocks), CHUNK):
        path = work / f"knock-play-{start // CHUNK:03d}.parquet"
        if not path.exists():
            rows = knocks.iloc[start : start + CHUNK]
            found = play_headline(rows, rules, players, continuations, seed)
            rows[KEPT].join(found).to_parquet(path)
            print(f"{start + len(rows):,} of {len(knocks):,} knock positions played", flush=True)
        parts.append(pd.read_parquet(path))
    limits = knocks[["deal", "decision", "knock_limit"]]
    return pd.concat(parts, ignore_index=True).merge(limits, on=["deal", "decision"])


def cells(rows: pd.DataFrame) -> pd.DataFrame:
    """Per card cell: the search's gain, play's and their difference, and both verdicts."""
    rows = rows.assign(stock_band=stock_band(rows["stock_left"]))
    search = knock_cells(rows)
    play = knock_cells(rows.assign(gain=rows["play_gain"]))
    difference = knock_cells(rows.assign(gain=rows["play_gain"] - rows["gain"]))
    table = search[["stock_band", "deadwood", "positions"]].copy()
    for name, part in (("search", search), ("play", play), ("difference", difference)):
        for column in ("mean", "low", "high"):
            table[f"{name}_{column}"] = part[column].to_numpy()
    for name in ("search", "play"):
        table[f"{name}_verdict"] = [
            verdict("knock", m, lo, hi, n) if n else ""
            for m, lo, hi, n in zip(
                table[f"{name}_mean"], table[f"{name}_low"], table[f"{name}_high"],
                table["positions"], strict=True,
            )
        ]  # fmt: skip
    return table[table["deadwood"] <= 10]


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print(__doc__.split("\n\n")[1].strip())
        return 2
    run, work = Path(argv[0]), Path(argv[1])
    continuations = int(argv[2]) if len(argv) == 3 else 2
    if work.resolve().is_relative_to(run.resolve()):
        print(f"error: {work} is inside the run folder {run}: allowed a folder of its own")
        return 2
    work.mkdir(parents=True, exist_ok=True)
    table = cells(played(run, work, continuations))
    table.to_csv(work / "knock-cells-by-play.csv", index=False)
    changed = table[table["search_verdict"] != table["play_verdict"]]
    moved = np.average(table["difference_mean"].fillna(0), weights=table["positions"])
    print(f"{len(changed)} of {len(table)} cells change verdict; mean move {moved:+.2f} points")
    print(changed.to_string(index=False))
    # The card both ways: its knock grid from the search (as published) and from play, its
    # take grids as published.
    options = read_owner(run)["options"]
    rules = load_rules(options["rules"]).name
    take = pd.read_csv(run / "take-cells-by-rules.csv")
    take = take[take["rules"] == rules]
    rows = played(run, work, continuations)
    rows = rows.assign(stock_band=stock_band(rows["stock_left"]))
    for name, gains in (("search", rows["gain"]), ("play", rows["play_gain"])):
        card = build_card(
            rules, "", "", int(options["deals"]), int(options["seed"]), str(run), name,
            knock_cells(rows.assign(gain=gains)), take,
        )  # fmt: skip
        print(f"rules of thumb, knock cells by {name}:")
        for rule in card.rules_of_thumb:
            print(f"  {rule.text}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
