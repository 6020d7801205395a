"""Write the smallest table the published advice figures are recomputed from:
docs/advice-run/rows.parquet, one row per kept position of the published run (mc against
mc under hollywood), with only the columns the headline tables read, in the narrowest
types that hold them exactly, zstd-compressed (docs/advice.md, "The published
run"; tests/test_published_rows.py recomputes the figures from it).

The run folder's own positions (``positions/``, ``positions-RULES/evaluated.parquet``) are
ignored by git: hundreds of MB with every evaluated action's value. This keeps, per
position, what the cells, the knock line, the undercut rates, the rule-set differences and
the search-against-real-play gaps use:

- ``deal``, ``decision``: the position's key (``advice.ROW_KEY``); ``kind``; ``weight``
  (the decisions it stands for); ``stock_left``, ``deadwood``, ``knock_limit``,
  ``opp_takes``, ``card_melds``, ``card_lowers``: what the cells group by;
- ``gain``: the search's gain of the cell's move (knock, take) over the best other;
- ``gain_<rules>``: the same position's gain under each compared rule set of the same
  deal (``positions-<rules>/evaluated.parquet``; missing where it was not re-evaluated);
- ``knocked`` (the player knocked: ``played`` starts with ``knock``), ``hand_points`` (the
  hand's real points for the player), ``played_value`` (the search's value of the move the
  player made, missing where it was not among the evaluated actions);
- ``play_gain``: at a knock position, the gain of knocking in the players' own play (the
  mean over the run's continuations, ``knock-play/part-*.parquet``: the strategy card's
  knock cells, ``knock-cells-by-play``); missing at the other kinds.

    .venv/bin/python tools/publish_advice_rows.py RUN_FOLDER [OUT]
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
COLUMNS = [
    "deal", "decision", "kind", "weight", "stock_left", "deadwood", "knock_limit",
    "opp_takes", "card_melds", "card_lowers", "played", "hand_points", "gain", "actions",
    "values",
]  # fmt: skip
COMPARED = ("hollywood-gin20", "standard")  # re-evaluated on the same positions


def _played_value(actions, values, played) -> float:
    actions = list(actions)
    return float(values[actions.index(played)]) if played in actions else np.nan


def compact_rows(run: Path) -> pd.DataFrame:
    files = sorted((run / "positions").glob("positions-*.parquet"))
    if not files:
        raise SystemExit(f"{run}: no positions/positions-*.parquet (is it an advice run folder?)")
    rows = pd.concat(
        [pq.read_table(f, columns=COLUMNS).to_pandas() for f in files], ignore_index=True
    )
    out = pd.DataFrame(
        {
            "deal": rows["deal"].astype(np.int32),
            "decision": rows["decision"].astype(np.int32),
            "kind": pd.Categorical(rows["kind"], categories=["offer", "draw", "discard", "knock"]),
            "weight": rows["weight"].astype(np.float32),
            "stock_left": rows["stock_left"].astype(np.int8),
            "deadwood": rows["deadwood"].astype(np.int8),
            "knock_limit": rows["knock_limit"].astype(np.int8),
            "opp_takes": rows["opp_takes"].astype(np.int8),
            "card_melds": rows["card_melds"].astype(bool),
            "card_lowers": rows["card_lowers"].astype(np.int8),
            "gain": rows["gain"].astype(np.float64),
        }
    )
    for rules in COMPARED:
        other = pq.read_table(
            run / f"positions-{rules}" / "evaluated.parquet", columns=["deal", "decision", "gain"]
        ).to_pandas()
        key = other.set_index(["deal", "decision"])["gain"]
        joined = key.reindex(pd.MultiIndex.from_frame(rows[["deal", "decision"]]))
        out[f"gain_{rules}"] = joined.to_numpy(np.float64)
    out["knocked"] = rows["played"].astype(str).str.startswith("knock").to_numpy()
    out["hand_points"] = rows["hand_points"].astype(np.int16)
    out["played_value"] = [
        _played_value(a, v, p)
        for a, v, p in zip(rows["actions"], rows["values"], rows["played"], strict=True)
    ]
    played = pd.concat(
        [pd.read_parquet(f) for f in sorted((run / "knock-play").glob("part-*.parquet"))],
        ignore_index=True,
    )
    gains = played.set_index(["deal", "decision"])["play_gain"]
    out["play_gain"] = gains.reindex(pd.MultiIndex.from_frame(rows[["deal", "decision"]])).to_numpy(
        np.float64
    )
    knocks = (rows["kind"] == "knock") & rows["gain"].notna()
    if out["play_gain"][knocks.to_numpy()].isna().any() or len(played) != knocks.sum():
        raise SystemExit(f"{run}: knock-play/ does not hold every knock position's play")
    # exactly what the run holds: every narrowed column reads back to the same numbers
    for name in ("deal", "decision", "weight", "stock_left", "deadwood", "knock_limit",
                 "opp_takes", "card_lowers", "hand_points"):  # fmt: skip
        if not np.array_equal(out[name].to_numpy(np.float64), rows[name].to_numpy(np.float64)):
            raise SystemExit(f"{name}: does not fit its narrow type")
    return out


def main(argv: list[str]) -> int:
    if not 1 <= len(argv) <= 2:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    run = Path(argv[0])
    out_path = Path(argv[1]) if len(argv) == 2 else ROOT / "docs" / "advice-run" / "rows.parquet"
    table = pa.Table.from_pandas(compact_rows(run), preserve_index=False)
    pq.write_table(table, out_path, compression="zstd", compression_level=19)
    print(f"{out_path}: {table.num_rows} rows, {out_path.stat().st_size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
