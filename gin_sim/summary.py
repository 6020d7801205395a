"""Per-player summaries of hand records, every rate and mean with a 95% interval.

Computed from the record DataFrame only (``simulate.records_to_frame``), so a summary
can be redone from saved records.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Estimate:
    """A mean with the half-width of its normal-approximation 95% interval."""

    mean: float
    half_width: float
    n: int

    @classmethod
    def of(cls, values: np.ndarray | pd.Series) -> Estimate:
        array = np.asarray(values, dtype=np.float64)
        n = int(array.size)
        if n == 0:
            return cls(math.nan, math.nan, 0)
        sd = float(array.std(ddof=1)) if n > 1 else math.nan
        return cls(float(array.mean()), Z95 * sd / math.sqrt(n) if n > 1 else math.nan, n)

    def format(self, scale: float = 1.0, digits: int = 2, suffix: str = "") -> str:
        if self.n == 0 or math.isnan(self.mean):
            return "n/a"
        mean = self.mean * scale
        if math.isnan(self.half_width):
            return f"{mean:.{digits}f}{suffix}"
        return f"{mean:.{digits}f}{suffix} ± {self.half_width * scale:.{digits}f}"


def player_summary(df: pd.DataFrame, player: int) -> dict[str, Estimate]:
    """Rates per hand unless named otherwise; undercut rate is per knock made."""
    won = df["winner"] == player
    knocked = df["knocker"] == player
    points_won = np.where(won, df["points"], 0)
    points_lost = np.where((df["winner"] == 1 - player), df["points"], 0)
    undercut_suffered = knocked & df["undercut"]
    return {
        "hands won": Estimate.of(won),
        "knock rate": Estimate.of(knocked),
        "gin rate": Estimate.of(knocked & df["gin"]),
        "undercut rate (per knock)": Estimate.of(undercut_suffered[knocked]),
        "undercuts made": Estimate.of((df["winner"] == player) & df["undercut"]),
        "points per hand": Estimate.of(points_won),
        "net points per hand": Estimate.of(points_won - points_lost),
        "upcard taken on offer": Estimate.of(df["first_upcard_taker"] == player),
    }


def hand_summary(df: pd.DataFrame) -> dict[str, Estimate]:
    return {
        "draws": Estimate.of(df["draw"]),
        "draws at the wall (R18)": Estimate.of(df["draw_reason"] == 1),
        "draws at the upcard cap (R18a)": Estimate.of(df["draw_reason"] == 2),
        "turns": Estimate.of(df["turns"]),
        "stock left": Estimate.of(df["stock_left"]),
    }


RATE_ROWS = {
    "hands won",
    "knock rate",
    "gin rate",
    "undercut rate (per knock)",
    "undercuts made",
    "upcard taken on offer",
    "draws",
    "draws at the wall (R18)",
    "draws at the upcard cap (R18a)",
}


def format_estimate(name: str, estimate: Estimate) -> str:
    if name in RATE_ROWS:
        return estimate.format(scale=100.0, digits=2, suffix="%")
    return estimate.format(digits=3)


def summary_json(df: pd.DataFrame, player_names: tuple[str, str]) -> dict:
    return {
        "deals": len(df),
        "players": [
            {"seat": p, "strategy": player_names[p]}
            | {k: asdict(v) for k, v in player_summary(df, p).items()}
            for p in (0, 1)
        ],
        "hands": {k: asdict(v) for k, v in hand_summary(df).items()},
    }
