"""Property tests of the review's numbers (``gin_sim.experiments.review``), fast enough to
run for every mutant of ``make mutate``: the best and the loss from worlds apart, the marks,
the summaries, the scale and its rank correlation, each against a computation by hand."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from gin_sim.experiments.review import (
    MARKS,
    PUBLISHED_STRENGTH,
    THRESHOLDS,
    Z95,
    Decision,
    ReviewSettings,
    action_code,
    judge,
    mark_of,
    place_on_scale,
    scale_table,
    summary,
    value_format,
)
from gin_sim.game.cards import parse_card
from gin_sim.kernels.enums import ACTION_BIG_GIN, ACTION_KNOCK
from gin_sim.reference.engine import BIG_GIN, Discard

VIEW = {"decision": "discard", "hand": "AS 2S 3S 4H 4D 4C 9H TH JH QH KD"}
HAND = sum(1 << parse_card(c) for c in VIEW["hand"].split())


def _decision(played: int, phase: str = "discard") -> Decision:
    return Decision(2, 5, 0, VIEW | {"decision": phase}, played)


def test_the_best_is_chosen_on_the_first_worlds_and_the_loss_measured_on_the_others():
    codes = np.array([parse_card("KD"), parse_card("9H"), parse_card("KD") | ACTION_KNOCK])
    worlds = 8
    points = np.zeros((worlds, 3))
    points[:2] = [0.0, 5.0, 1.0]  # the selection worlds: 9H looks best
    points[2:] = np.array([[0.0, 1.0, 9.0], [0.0, 3.0, 7.0]] * 3)  # the gin is best after
    judged = judge(_decision(int(codes[0])), codes, points, None, 2, HAND)
    assert judged.best == 1 and judged.played == 0  # chosen on worlds 0 and 1 only
    diffs = points[2:, 1] - points[2:, 0]
    half = Z95 * diffs.std(ddof=1) / math.sqrt(6)
    assert judged.loss == pytest.approx(2.0)
    assert (judged.loss_low, judged.loss_high) == pytest.approx((2.0 - half, 2.0 + half))
    assert judged.mark == mark_of(2.0, 2.0 - half) == "inaccuracy"
    # The candidates' figures are over every world.
    assert judged.candidates[2].mean == pytest.approx(points[:, 2].mean())
    assert judged.candidates[2].action == "gin KD"  # a knock leaving no deadwood (R13)
    assert judged.candidates[1].action == "discard 9H" and judged.worlds == worlds
    assert math.isnan(judged.equity_loss) and judged.equity_best == -1


def test_playing_the_best_loses_nothing_and_equity_has_its_own_best():
    codes = np.array([0, 1])
    points = np.array([[1.0, 0.0], [3.0, 0.0], [2.0, 1.0], [4.0, 0.0]])
    equity = np.array([[0.0, 0.1], [0.0, 0.3], [0.0, 0.2], [0.0, 0.4]])
    judged = judge(_decision(0, "draw"), codes, points, equity, 2, HAND)
    assert judged.best == judged.played == 0
    assert (judged.loss, judged.loss_low, judged.loss_high, judged.mark) == (0, 0, 0, "fine")
    assert judged.equity_best == 1
    assert judged.equity_loss == pytest.approx(0.3)
    assert judged.equity_low < 0.3 < judged.equity_high
    assert judged.candidates[1].equity == pytest.approx(0.25)
    assert [c.action for c in judged.candidates] == ["draw", "take"]


def test_a_tie_on_the_selection_worlds_goes_to_the_first_candidate():
    codes = np.array([0, 1])
    points = np.array([[1.0, 1.0], [2.0, 2.0], [0.0, 5.0], [0.0, 7.0]])
    judged = judge(_decision(1, "offer"), codes, points, None, 2, HAND)
    assert judged.best == 0 and judged.loss == pytest.approx(-6.0)


@pytest.mark.parametrize(
    ("loss", "low", "mark"),
    [
        (0.99, 0.5, "fine"),
        (1.0, 0.5, "inaccuracy"),
        (2.99, 0.5, "inaccuracy"),
        (3.0, 0.5, "mistake"),
        (5.99, 0.5, "mistake"),
        (6.0, 0.5, "blunder"),
        (60.0, 1e-9, "blunder"),
        (60.0, 0.0, "fine"),
        (60.0, -0.1, "fine"),
    ],
)
def test_marks_follow_the_thresholds_and_need_the_interval_above_zero(loss, low, mark):
    assert THRESHOLDS == (1.0, 3.0, 6.0) and MARKS[0] == "fine"
    assert mark_of(loss, low) == mark


def _judged(loss: float, half: float, hand: int = 0, number: int = 0):
    codes = np.array([0, 1])
    # Two selection worlds make candidate 1 the best; the others give the loss exactly.
    points = np.array([[0.0, 1.0], [0.0, 1.0], [0.0, loss - half], [0.0, loss + half]])
    decision = Decision(hand, number, 0, VIEW | {"decision": "draw"}, 0)
    return judge(decision, codes, points, None, 2, HAND)


def test_the_summary_counts_marks_and_pools_the_losses():
    judged = [_judged(8.0, 0.5, 0, 1), _judged(4.0, 0.5, 0, 2), _judged(0.5, 0.1, 1, 0)]
    judged.append(_judged(8.0, 0.5, 1, 3))
    s = summary(judged)
    assert s.decisions == 4
    assert s.marks == {"fine": 1, "inaccuracy": 0, "mistake": 1, "blunder": 2}
    assert s.error_rate == pytest.approx((8 + 4 + 0.5 + 8) / 4)
    errors = [(j.loss_high - j.loss) / Z95 for j in judged]
    half = Z95 * math.sqrt(sum(e * e for e in errors)) / 4
    assert (s.error_low, s.error_high) == pytest.approx((s.error_rate - half, s.error_rate + half))
    # The costliest marked decisions, costliest first; ties by hand then decision.
    assert [(j.decision.hand, j.decision.number) for j in s.costliest] == [(0, 1), (1, 3), (0, 2)]
    assert math.isnan(s.equity_rate)


def test_the_scale_places_a_rate_in_words():
    scale = [("mc", 0.10), ("expert", 0.50), ("simple", 1.00), ("random", 5.00)]
    assert place_on_scale(0.75, scale) == "between `expert` (0.50) and `simple` (1.00)"
    assert place_on_scale(0.54, scale) == place_on_scale(0.46, scale) == "about `expert` (0.50)"
    assert place_on_scale(0.56, scale) == "between `expert` (0.50) and `simple` (1.00)"
    assert place_on_scale(0.01, scale).startswith("fewer errors than `mc` (0.10)")
    assert place_on_scale(5.06, scale) == "more errors than `random` (5.00)"
    assert place_on_scale(1.0, []) == "" and place_on_scale(float("nan"), scale) == ""


def test_the_scale_table_pools_by_deal_and_ranks_against_strength():
    rows = []
    rates = {"random": 4.0, "simple": 1.0, "basic": 0.8, "expert": 0.5, "mc": 0.1}
    for name, rate in rates.items():
        for deal in range(10):
            n = 5 + deal % 3
            rows.append(
                {
                    "strategy": name,
                    "deal": deal,
                    "decisions": n,
                    "loss": rate * n + (0.01 if deal % 2 else -0.01),
                    "blunders": 1 if name == "random" else 0,
                    "points": -10.0 * rate + deal % 4,
                    "deal_loss": 0.5 * rate * n + (0.2 if deal % 3 else -0.1),
                }
            )
    frame = pd.DataFrame(rows)
    table, agreement = scale_table(frame, replicates=200, seed=1)
    assert list(table["strategy"]) == ["mc", "expert", "basic", "simple", "random"]
    pooled = frame.groupby("strategy")[["loss", "decisions"]].sum()
    expected = (pooled["loss"] / pooled["decisions"]).loc[table["strategy"]].to_numpy()
    assert table["error_rate"].to_numpy() == pytest.approx(expected)
    assert (table["low"] <= table["error_rate"]).all() and (
        table["error_rate"] <= table["high"]
    ).all()
    assert table["decisions"].sum() == frame["decisions"].sum() and (table["deals"] == 10).all()
    random_row = table[table["strategy"] == "random"].iloc[0]
    assert random_row["blunders_per_decision"] == pytest.approx(
        10 / pooled.loc["random", "decisions"]
    )
    assert random_row["points_per_hand"] == pytest.approx(
        -40.0 + np.mean([d % 4 for d in range(10)])
    )
    deal_pooled = frame.groupby("strategy")[["deal_loss", "decisions"]].sum()
    expected = (deal_pooled["deal_loss"] / deal_pooled["decisions"]).loc[table["strategy"]]
    assert table["deal_rate"].to_numpy() == pytest.approx(expected.to_numpy())
    assert (table["deal_low"] <= table["deal_rate"]).all()
    assert (table["deal_rate"] <= table["deal_high"]).all()
    assert (table["deal_low"] < table["deal_high"]).all()
    # The steps: each strategy against the next, fewest errors first, paired.
    steps = agreement["steps"]
    assert [(s["better"], s["worse"]) for s in steps] == [
        ("mc", "expert"),
        ("expert", "basic"),
        ("basic", "simple"),
        ("simple", "random"),
    ]
    by_name = table.set_index("strategy")
    for step in steps:
        for key, column in (("error", "error_rate"), ("deal", "deal_rate")):
            gap = by_name.loc[step["worse"], column] - by_name.loc[step["better"], column]
            assert step[key] == pytest.approx(gap)
            low, high = step[key + "_interval"]
            assert low <= step[key] <= high and low < high
    assert (table.loc[table["strategy"] != "random", "blunders_per_decision"] == 0).all()
    assert agreement["spearman_published"] == pytest.approx(1.0)
    assert agreement["spearman_deal"] == pytest.approx(1.0)
    assert agreement["spearman_points"] == pytest.approx(1.0)
    low, high = agreement["spearman_published_interval"]
    assert low <= 1.0 <= high + 1e-12 and agreement["replicates"] == 200
    # Reversed, the order disagrees completely.
    frame["loss"] = frame["loss"].max() - frame["loss"]
    frame["deal_loss"] = frame["deal_loss"].max() - frame["deal_loss"]
    _, reversed_agreement = scale_table(frame, replicates=50, seed=1)
    assert reversed_agreement["spearman_published"] == pytest.approx(-1.0)
    assert reversed_agreement["spearman_deal"] == pytest.approx(-1.0)
    # A strategy outside the published order counts in the points' correlation only.
    extra = frame[frame["strategy"] == "mc"].assign(strategy="mc-fast", points=-100.0)
    _, with_extra = scale_table(pd.concat([frame, extra]), replicates=50, seed=1)
    assert with_extra["spearman_published"] == pytest.approx(-1.0)
    assert with_extra["spearman_points"] != pytest.approx(reversed_agreement["spearman_points"])


def test_moves_formats_and_settings():
    assert action_code(True) == 1 and action_code(False) == 0
    assert action_code(BIG_GIN) == ACTION_BIG_GIN
    assert action_code(Discard(parse_card("7H"), True)) == parse_card("7H") | ACTION_KNOCK
    assert action_code(Discard(parse_card("7H"), False)) == parse_card("7H")
    assert [value_format(f) for f in ("hand", "game", "hollywood")] == ["hand", "game", "match"]
    settings = ReviewSettings(depth=100)
    assert settings.select == 25 and settings.searcher("game").value == "game"
    assert settings.searcher("hand").samples == 100
    for depth in (7, 4097, True, 8.0):
        with pytest.raises(ValueError, match="--depth"):
            ReviewSettings(depth=depth)
    ReviewSettings(depth=8)
    ReviewSettings(depth=4096)


def test_the_summary_of_nothing_and_of_decisions_with_equity():
    empty = summary([])
    assert (empty.decisions, empty.marks, empty.costliest) == (0, dict.fromkeys(MARKS, 0), [])
    assert all(math.isnan(v) for v in (empty.error_rate, empty.error_low, empty.error_high))
    codes = np.array([0, 1])
    points = np.array([[0.0, 1.0], [0.0, 1.0], [0.0, 0.2], [0.0, 0.4]])
    equity = np.array([[0.0, 0.1], [0.0, 0.1], [0.0, 0.02], [0.0, 0.06]])
    scored = judge(_decision(0, "draw"), codes, points, equity, 2, HAND)
    best = judge(_decision(1, "draw"), codes, points, None, 2, HAND)  # no loss, no equity
    s = summary([scored, best])
    assert s.equity_rate == pytest.approx(0.04)  # the decisions with an equity figure only
    assert s.error_rate == pytest.approx(0.15) and s.costliest == []  # nothing marked
    # A loss without an interval (one measuring world) adds no error.
    lone = judge(_decision(0, "draw"), codes, points[:3], None, 2, HAND)
    assert math.isnan(lone.loss_high) and lone.loss == pytest.approx(0.2)
    alone = summary([lone])
    assert alone.error_low == alone.error_high == pytest.approx(0.2)


def test_a_position_and_a_decision_read_as_their_player_saw_them():
    from gin_sim.experiments.review import candidates_of, judged_row, view_line

    discard = VIEW | {"taken": "KD", "taken_from_pile": True, "pile": "7C", "stock_left": 28}
    assert view_line(discard) == f"hand {VIEW['hand']}, took KD from the pile, stock 28"
    stock = discard | {"taken_from_pile": False, "opp_taken": "QS QC"}
    assert view_line(stock) == (
        f"hand {VIEW['hand']}, took KD from the stock, stock 28, opponent took QS QC"
    )
    draw = {"decision": "draw", "hand": "AS 2S", "pile": "7C 5D", "stock_left": 20}
    assert view_line(draw) == "hand AS 2S, pile top 5D, stock 20"
    assert view_line(draw | {"pile": ""}) == "hand AS 2S, pile top none, stock 20"
    codes = np.array([0, 1])
    points = np.array([[0.0, 1.0], [0.0, 1.0], [0.0, 7.0], [0.0, 9.0]])
    judged = judge(Decision(2, 5, 1, draw, 0), codes, points, None, 2, HAND)
    row = judged_row(judged)
    assert row == {
        "hand": 3, "decision": 6, "player": 2, "phase": "draw",
        "position": "hand AS 2S, pile top 5D, stock 20", "played": "draw", "best": "take",
        "loss": 8.0, "loss_low": row["loss_low"], "loss_high": row["loss_high"],
        "mark": "blunder", "equity_loss": row["equity_loss"],
        "equity_loss_low": row["equity_loss_low"], "equity_loss_high": row["equity_loss_high"],
        "worlds": 4,
    }  # fmt: skip
    assert row["loss_low"] < 8.0 < row["loss_high"] and math.isnan(row["equity_loss"])
    assert math.isnan(row["equity_loss_low"]) and math.isnan(row["equity_loss_high"])
    first, second = candidates_of(judged)
    assert (first["action"], first["played"], first["best"]) == ("draw", True, False)
    assert (second["action"], second["played"], second["best"]) == ("take", False, True)
    assert second["mean"] == pytest.approx(4.5) and second["low"] < 4.5 < second["high"]
    assert math.isnan(second["equity"]) and set(second) == {
        "action", "mean", "low", "high", "equity", "equity_low", "equity_high", "played", "best",
    }  # fmt: skip


def test_a_decision_line_says_best_loss_or_close_call_by_the_interval():
    """docs/review.md, "Marks": a loss whose interval excludes 0 is shown as the best
    move and the loss; one whose interval holds 0 is a close call, never "best"."""
    from gin_sim.experiments.review import Candidate, Decision, Judged
    from gin_sim.interfaces.review import decision_lines

    view = {"decision": "draw", "hand": "AC 2C 3C 4D 5D 6D 7H 8H 9H KS", "pile": "QS",
            "stock_left": 30}  # fmt: skip
    decision = Decision(0, 3, 0, view, 0)
    candidates = (Candidate("draw", 0, 1.0, 0.0, 2.0), Candidate("take", 1, 3.0, 2.0, 4.0))

    def line(low: float, high: float) -> str:
        j = Judged(decision, candidates, 0, 1, 2.0, low, high, mark_of(2.0, low))
        return decision_lines(j, "hand")[1]

    assert "played draw; best take: loss 2.00 points [0.50, 3.50]" in line(0.5, 3.5)
    assert line(0.5, 3.5).endswith("-> inaccuracy")
    close = line(-0.5, 4.5)
    assert "a close call with take (loss +2.00 points [-0.50, 4.50], 0 inside)" in close
    assert "best" not in close and close.endswith("-> fine")
    same = Judged(decision, candidates, 1, 1, 0.0, 0.0, 0.0, "fine")
    assert "played take: the best (3.0 points)" in decision_lines(same, "hand")[1]


def _bootstrap_by_hand(frame: pd.DataFrame, replicates: int, seed: int) -> dict:
    """The scale's figures and their bootstrap intervals recomputed apart from
    ``scale_table``: the deals resampled with the same generator, each figure pooled by
    pivoting the rows, the rank correlations as the ranks' Pearson correlation by pandas."""
    names = list(dict.fromkeys(frame["strategy"]))
    deals = sorted(frame["deal"].unique())

    def pivot(column):
        table = frame.pivot(index="strategy", columns="deal", values=column)
        return table.loc[names, deals].to_numpy(dtype=float)

    loss, count, blunders, points, deal = (
        pivot(c) for c in ("loss", "decisions", "blunders", "points", "deal_loss")
    )
    strength = pd.Series([PUBLISHED_STRENGTH[n] for n in names])

    def rho(a, b):
        return pd.Series(a).rank().corr(pd.Series(b).rank())  # Spearman: ranks' Pearson

    rng = np.random.default_rng(seed)
    reps = {k: [] for k in ("rate", "blunders", "points", "deal", "rho_pub", "rho_pts", "rho_deal")}
    for _ in range(replicates):
        take = rng.integers(0, len(deals), len(deals))
        n = count[:, take].sum(axis=1)
        rate = loss[:, take].sum(axis=1) / n
        reps["rate"].append(rate)
        reps["blunders"].append(blunders[:, take].sum(axis=1) / n)
        reps["points"].append(points[:, take].mean(axis=1))
        reps["deal"].append(deal[:, take].sum(axis=1) / n)
        reps["rho_pub"].append(rho(-rate, strength))
        reps["rho_pts"].append(rho(-rate, reps["points"][-1]))
        reps["rho_deal"].append(rho(-reps["deal"][-1], strength))
    out = {"names": names}
    for key, values in reps.items():
        values = np.array(values, dtype=float)
        if values.ndim == 1:
            values = values[~np.isnan(values)]
        out[key] = (np.percentile(values, 2.5, axis=0), np.percentile(values, 97.5, axis=0))
    return out


def test_the_scale_tables_intervals_are_the_bootstrap_recomputed_by_hand():
    rng = np.random.default_rng(7)
    rows = []
    for name, rate in {"random": 3.0, "simple": 0.45, "basic": 0.42, "expert": 0.4}.items():
        for deal in range(12):
            n = int(rng.integers(8, 20))
            rows.append(
                {
                    "strategy": name, "deal": deal, "decisions": n,
                    "loss": rate * n * rng.uniform(0.2, 1.8),
                    "blunders": int(rng.integers(0, 3)),
                    "points": float(rng.normal(-5 * rate, 8)),
                    "deal_loss": rate * n * rng.uniform(-0.5, 2.0),
                }
            )  # fmt: skip
    frame = pd.DataFrame(rows)
    table, agreement = scale_table(frame, replicates=300, seed=5)
    expected = _bootstrap_by_hand(frame, 300, 5)
    by_name = table.set_index("strategy").loc[expected["names"]]
    for key, (low, high) in (
        ("rate", ("low", "high")),
        ("points", ("points_low", "points_high")),
        ("deal", ("deal_low", "deal_high")),
    ):
        assert by_name[low].to_numpy() == pytest.approx(expected[key][0])
        assert by_name[high].to_numpy() == pytest.approx(expected[key][1])
    for key, name in (
        ("rho_pub", "spearman_published_interval"),
        ("rho_pts", "spearman_points_interval"),
        ("rho_deal", "spearman_deal_interval"),
    ):
        assert agreement[name] == pytest.approx(list(expected[key]))
    assert list(table.columns) == [
        "strategy", "error_rate", "low", "high", "blunders_per_decision", "points_per_hand",
        "points_low", "points_high", "deal_rate", "deal_low", "deal_high", "decisions", "deals",
    ]  # fmt: skip
    assert list(table.index) == list(range(len(table)))
    assert table["decisions"].dtype.kind == "i"
    # The defaults: 2,000 replicates from seed 0.
    default_table, default_agreement = scale_table(frame)
    assert default_agreement["replicates"] == 2000
    seeded = scale_table(frame, replicates=2000, seed=0)[0]
    pd.testing.assert_frame_equal(default_table, seeded)
