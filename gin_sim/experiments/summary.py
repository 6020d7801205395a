"""Head-to-head summaries of hand records, every rate and mean with a 95% interval.

Computed from the record DataFrame only (``simulate.head_to_head``), so a summary can be
redone from saved records. Every figure is a ratio of sums over hands (a mean is a ratio
over a count of 1 per hand); its interval comes from the delta method with hands grouped
by deck, so duplicate deals (the same deck twice, seats swapped) are paired.
"""

from __future__ import annotations

import math
from dataclasses import asdict, astuple, dataclass, field

import numpy as np
import pandas as pd

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Estimate:
    """A ratio of sums with the half-width of its 95% interval and its sampling variance."""

    mean: float
    half_width: float
    n: int  # independent units (decks when paired, else hands)
    variance: float  # of the estimate

    @classmethod
    def of(cls, numerator, denominator=None, groups=None) -> Estimate:
        """``sum(numerator) / sum(denominator)`` with the hands in ``groups`` treated as one unit."""
        return Moments.of(numerator, denominator, groups).estimate()

    def format(self, scale: float = 1.0, digits: int = 2, suffix: str = "") -> str:
        if math.isnan(self.mean):
            return "n/a"
        mean = self.mean * scale
        if math.isnan(self.half_width):
            return f"{mean:.{digits}f}{suffix}"
        return f"{mean:.{digits}f}{suffix} ± {self.half_width * scale:.{digits}f}"


@dataclass(frozen=True)
class Moments:
    """Sufficient statistics of a ratio estimate over independent units (decks or hands).

    They add up, so a run's summary can be accumulated chunk by chunk without holding
    its records: the delta-method variance needs only these five sums.
    """

    n: int = 0
    num: float = 0.0
    den: float = 0.0
    num2: float = 0.0
    num_den: float = 0.0
    den2: float = 0.0

    @classmethod
    def of(cls, numerator, denominator=None, groups=None) -> Moments:
        num = np.asarray(numerator, dtype=np.float64)
        den = (
            np.ones_like(num) if denominator is None else np.asarray(denominator, dtype=np.float64)
        )
        if groups is not None:
            _, inverse = np.unique(np.asarray(groups), return_inverse=True)
            num = np.bincount(inverse, weights=num)
            den = np.bincount(inverse, weights=den)
        return cls(
            int(num.size), float(num.sum()), float(den.sum()),
            float((num * num).sum()), float((num * den).sum()), float((den * den).sum()),
        )  # fmt: skip

    def __add__(self, other: Moments) -> Moments:
        return Moments(*(a + b for a, b in zip(astuple(self), astuple(other), strict=True)))

    def estimate(self) -> Estimate:
        if self.n == 0 or self.den == 0:
            return Estimate(math.nan, math.nan, self.n, math.nan)
        ratio = self.num / self.den
        if self.n < 2:
            return Estimate(ratio, math.nan, self.n, math.nan)
        # sum over units of (num - ratio * den)^2, expanded into the stored sums
        squares = max(0.0, self.num2 - 2 * ratio * self.num_den + ratio * ratio * self.den2)
        variance = self.n / (self.n - 1) * squares / self.den**2
        return Estimate(ratio, Z95 * math.sqrt(variance), self.n, variance)


def wilson_interval(successes: float, trials: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion, ``successes`` of ``trials`` (effective,
    possibly fractional counts): always inside [0, 1], where mean ± z·se leaves it on thin
    cells (3 of 7: 42.9% ± 36.7 by Wald, 15.8% to 75.0% by Wilson). NaN for no trials.

    >>> [round(x, 4) for x in wilson_interval(81, 263)]  # Newcombe (1998), Table I
    [0.2553, 0.3662]
    """
    if not trials > 0:
        return math.nan, math.nan
    p = min(max(successes / trials, 0.0), 1.0)
    spread = z * z / trials
    centre = (p + spread / 2) / (1 + spread)
    half = z * math.sqrt(p * (1 - p) / trials + spread / (4 * trials)) / (1 + spread)
    # At a rate of 0 (1) the lower (upper) end is exactly 0 (1); rounding would move it.
    low = 0.0 if p == 0.0 else max(0.0, centre - half)
    return low, 1.0 if p == 1.0 else min(1.0, centre + half)


def rate_interval(estimate: Estimate, trials: float) -> tuple[float, float]:
    """The Wilson interval of a rate estimated as a ratio of sums (hands grouped by deck,
    or weighted): its trials are the effective ones, ``p(1 - p) / variance``, those of a
    plain binomial rate as precise as the estimate (so grouping and weights count as they
    do in ``Estimate``); ``trials`` where the variance says nothing (a rate of 0 or 1)."""
    p = estimate.mean
    if not math.isfinite(p):
        return math.nan, math.nan
    effective = trials
    if 0 < p < 1 and estimate.variance > 0:
        effective = p * (1 - p) / estimate.variance
    return wilson_interval(p * effective, effective)


# The columns of an estimate's row (``estimate_row``) and of a rate's (``rate_row``).
ESTIMATE_COLUMNS = ["mean", "half_width", "low", "high", "n"]
# Rates (undercuts per knock) carry a Wilson interval (``rate_interval``), which stays inside
# [0, 1] on thin cells; ``low`` and ``high`` are its ends.
RATE_COLUMNS = ["mean", "low", "high", "n"]


def estimate_row(estimate: Estimate) -> dict[str, float | int]:
    """An estimate's row: its mean, the half-width and ends of its 95% interval, and its
    independent units."""
    return {
        "mean": estimate.mean,
        "half_width": estimate.half_width,
        "low": estimate.mean - estimate.half_width,
        "high": estimate.mean + estimate.half_width,
        "n": estimate.n,
    }


def rate_row(estimate: Estimate, trials: float) -> dict[str, float | int]:
    """A rate's row: its mean, Wilson interval (``rate_interval`` with ``trials``) and units."""
    low, high = rate_interval(estimate, trials)
    return {"mean": estimate.mean, "low": low, "high": high, "n": estimate.n}


def seat_of(df: pd.DataFrame, player: int) -> np.ndarray:
    """Seat of ``players[player]`` in each hand (they swap in the duplicate replay)."""
    swapped = df["swapped"].to_numpy() if "swapped" in df else np.zeros(len(df), bool)
    return np.where(swapped, 1 - player, player)


def player_moments(df: pd.DataFrame, player: int, paired: bool = True) -> dict[str, Moments]:
    """Figures for ``players[player]``: per hand, except undercut rate (per knock made)."""
    seat = seat_of(df, player)
    groups = df["deal"].to_numpy() if paired else None
    won = df["winner"].to_numpy() == seat
    lost = df["winner"].to_numpy() == 1 - seat
    knocked = df["knocker"].to_numpy() == seat
    points = df["points"].to_numpy()
    undercut = df["undercut"].to_numpy()
    return {
        "hands won": Moments.of(won, groups=groups),
        "knock rate": Moments.of(knocked, groups=groups),
        "gin rate": Moments.of(knocked & df["gin"].to_numpy(), groups=groups),
        "undercut rate (per knock)": Moments.of(knocked & undercut, knocked, groups=groups),
        "undercuts made": Moments.of(won & undercut, groups=groups),
        "points per hand": Moments.of(np.where(won, points, 0), groups=groups),
        "net points per hand": Moments.of(
            np.where(won, points, 0) - np.where(lost, points, 0), groups=groups
        ),
        "upcard taken on offer": Moments.of(
            df["first_upcard_taker"].to_numpy() == seat, groups=groups
        ),
    }


def player_summary(df: pd.DataFrame, player: int, paired: bool = True) -> dict[str, Estimate]:
    return {k: m.estimate() for k, m in player_moments(df, player, paired).items()}


def hand_moments(df: pd.DataFrame, paired: bool = True) -> dict[str, Moments]:
    """Figures over all hands. ``draws`` are the drawn hands of R18 and R18a only; a knock
    that ties without ``undercut_on_tie`` scores nothing but is no draw: it is counted
    under ``scoreless ties (R17)`` (always 0 under the seed rules)."""
    groups = df["deal"].to_numpy() if paired else None
    return {
        "draws": Moments.of(df["draw"], groups=groups),
        "scoreless ties (R17)": Moments.of(
            (df["knocker"].to_numpy() >= 0) & (df["winner"].to_numpy() < 0), groups=groups
        ),
        "wall draws (R18)": Moments.of(df["draw_reason"] == 1, groups=groups),
        "upcard-cap draws (R18a)": Moments.of(df["draw_reason"] == 2, groups=groups),
        "turns": Moments.of(df["turns"], groups=groups),
        "stock left": Moments.of(df["stock_left"], groups=groups),
    }


def hand_summary(df: pd.DataFrame, paired: bool = True) -> dict[str, Estimate]:
    return {k: m.estimate() for k, m in hand_moments(df, paired).items()}


@dataclass(frozen=True)
class HeadToHead:
    """The summary of a head-to-head run, accumulated chunk by chunk (``+``)."""

    hands: int = 0
    decks: int = 0
    duplicate: bool = False
    players: tuple[dict[str, Moments], dict[str, Moments]] = field(default_factory=lambda: ({}, {}))
    all_hands: dict[str, Moments] = field(default_factory=dict)
    unpaired_net: Moments = Moments()

    @classmethod
    def of(cls, df: pd.DataFrame) -> HeadToHead:
        duplicate = is_duplicate(df)
        return cls(
            hands=len(df),
            decks=int(df["deal"].nunique()),
            duplicate=duplicate,
            players=(player_moments(df, 0, duplicate), player_moments(df, 1, duplicate)),
            all_hands=hand_moments(df, duplicate),
            unpaired_net=player_moments(df, 0, paired=False)["net points per hand"],
        )

    def __add__(self, other: HeadToHead) -> HeadToHead:
        def merge(a: dict[str, Moments], b: dict[str, Moments]) -> dict[str, Moments]:
            return {k: a.get(k, Moments()) + b.get(k, Moments()) for k in a.keys() | b.keys()}

        return HeadToHead(
            self.hands + other.hands,
            self.decks + other.decks,
            self.duplicate or other.duplicate,
            (merge(self.players[0], other.players[0]), merge(self.players[1], other.players[1])),
            merge(self.all_hands, other.all_hands),
            self.unpaired_net + other.unpaired_net,
        )

    def player(self, player: int) -> dict[str, Estimate]:
        return {k: self.players[player][k].estimate() for k in PLAYER_ROWS}

    def overall(self) -> dict[str, Estimate]:
        return {k: self.all_hands[k].estimate() for k in HAND_ROWS}

    def variance_reduction(self) -> float:
        """1 - var(paired estimate) / var(the same hands as independent), for net points."""
        paired = self.players[0]["net points per hand"].estimate().variance
        unpaired = self.unpaired_net.estimate().variance
        return 1.0 - paired / unpaired if unpaired > 0 else math.nan

    def to_json(self, player_names: tuple[str, str]) -> dict:
        document = {
            "hands": self.hands,
            "decks": self.decks,
            "duplicate": self.duplicate,
            "players": [
                {"player": p, "strategy": player_names[p]}
                | {k: asdict(v) for k, v in self.player(p).items()}
                for p in (0, 1)
            ],
            "all hands": {k: asdict(v) for k, v in self.overall().items()},
        }
        if self.duplicate:
            document["variance_reduction"] = self.variance_reduction()
        return document


PLAYER_ROWS = (
    "hands won", "knock rate", "gin rate", "undercut rate (per knock)", "undercuts made",
    "points per hand", "net points per hand", "upcard taken on offer",
)  # fmt: skip
HAND_ROWS = (
    "draws", "wall draws (R18)", "upcard-cap draws (R18a)", "scoreless ties (R17)", "turns",
    "stock left",
)  # fmt: skip


def paired_difference(first: pd.DataFrame, second: pd.DataFrame, player: int = 0) -> Estimate:
    """Net points per hand of ``players[player]`` in run ``first`` minus run ``second``.

    Runs with the same seed play the same decks (common random numbers), so the
    difference is paired deck by deck: only what changed between the runs remains.
    """

    def net_by_deck(df: pd.DataFrame) -> pd.DataFrame:
        seat = seat_of(df, player)
        winner = df["winner"].to_numpy()
        net = np.where(winner == seat, df["points"], 0) - np.where(
            winner == 1 - seat, df["points"], 0
        )
        return pd.Series(net, index=df["deal"].to_numpy()).groupby(level=0).agg(["sum", "count"])

    a, b = net_by_deck(first), net_by_deck(second)
    if not a.index.equals(b.index) or not (a["count"] == b["count"]).all():
        raise ValueError(
            "paired comparison needs two runs over the same decks with the same play mode"
        )
    return Estimate.of(a["sum"].to_numpy() - b["sum"].to_numpy(), a["count"].to_numpy())


RATE_ROWS = {
    "hands won",
    "knock rate",
    "gin rate",
    "undercut rate (per knock)",
    "undercuts made",
    "upcard taken on offer",
    "draws",
    "wall draws (R18)",
    "upcard-cap draws (R18a)",
    "scoreless ties (R17)",
}


def format_estimate(name: str, estimate: Estimate) -> str:
    if name in RATE_ROWS:
        return estimate.format(scale=100.0, digits=2, suffix="%")
    return estimate.format(digits=3)


def is_duplicate(df: pd.DataFrame) -> bool:
    return "swapped" in df and bool(df["swapped"].any())


def match_summary(df: pd.DataFrame, player: int, paired: bool = True) -> dict[str, Estimate]:
    """Figures for ``players[player]`` over match records (``simulate.head_to_head_matches``)."""
    seat = seat_of(df, player)
    groups = df["match"].to_numpy() if paired else None
    figures = {"matches won": Estimate.of(df["winner"].to_numpy() == seat, groups=groups)}
    for game in (1, 2, 3):
        figures[f"game {game} won"] = Estimate.of(
            df[f"game{game}_winner"].to_numpy() == seat, groups=groups
        )
    figures["games won per match"] = Estimate.of(
        np.where(seat == 0, df["games_won0"], df["games_won1"]), groups=groups
    )
    shutouts = sum(
        (df[f"game{g}_winner"].to_numpy() == seat)
        & (np.where(seat == 0, df[f"points1_game{g}"], df[f"points0_game{g}"]) == 0)
        for g in (1, 2, 3)
    )
    figures["shutouts per match"] = Estimate.of(shutouts, groups=groups)
    for game in (1, 2, 3):
        figures[f"game {game} margin"] = Estimate.of(game_margin(df, seat, game), groups=groups)
    return figures


def game_margin(df: pd.DataFrame, seat: np.ndarray, game: int) -> np.ndarray:
    """Final tally of the player in ``seat`` minus the opponent's, in one game."""
    mine = np.where(seat == 0, df[f"tally0_game{game}"], df[f"tally1_game{game}"])
    theirs = np.where(seat == 0, df[f"tally1_game{game}"], df[f"tally0_game{game}"])
    return (mine - theirs).astype(np.int64)


def margin_quantiles(
    df: pd.DataFrame, player: int, quantiles=(0.1, 0.25, 0.5, 0.75, 0.9)
) -> pd.DataFrame:
    """The distribution of ``players[player]``'s final margins, one row per game."""
    seat = seat_of(df, player)
    rows = {f"game {g}": np.quantile(game_margin(df, seat, g), quantiles) for g in (1, 2, 3)}
    return pd.DataFrame(rows, index=[f"{q:.0%}" for q in quantiles]).T


# The match record's ``draws`` counts the hands dealt again by the same dealer (R5): drawn
# hands (R18, R18a) and ties that score nothing (R17 without ``undercut_on_tie``), so its
# label says both. JSON summaries before this label used the key below; it is kept, with
# the same figure, for old readers (docs/engine.md, "Matches").
DRAWN_OR_SCORELESS = "drawn or scoreless hands per match"
OLD_DRAWN_KEY = "drawn hands per match"


def match_length(df: pd.DataFrame, paired: bool = True) -> dict[str, Estimate]:
    groups = df["match"].to_numpy() if paired else None
    return {
        "hands per match": Estimate.of(df["hands"], groups=groups),
        DRAWN_OR_SCORELESS: Estimate.of(df["draws"], groups=groups),
        "unfinished matches": Estimate.of(df["winner"] < 0, groups=groups),
    }


MATCH_RATE_ROWS = {"matches won", "game 1 won", "game 2 won", "game 3 won", "unfinished matches"}


def match_summary_json(df: pd.DataFrame, player_names: tuple[str, str]) -> dict:
    return {
        "matches": int(df["match"].nunique()),
        "played": len(df),
        "duplicate": is_duplicate(df),
        "players": [
            {"player": p, "strategy": player_names[p]}
            | {k: asdict(v) for k, v in match_summary(df, p).items()}
            | {"margin quantiles": margin_quantiles(df, p).to_dict(orient="index")}
            for p in (0, 1)
        ],
        "length": _with_old_keys({k: asdict(v) for k, v in match_length(df).items()}),
    }


def _with_old_keys(length: dict) -> dict:
    return length | {OLD_DRAWN_KEY: length[DRAWN_OR_SCORELESS]}
