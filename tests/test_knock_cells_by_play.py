"""The strategy card's knock cells valued by play (issue 47: the check against play finds the
search undervaluing knocking against the players' own play, so the card's knock cells under
the report's own rules are measured in that play; docs/advice.md, "The knock cells by play").

By hand: ``knock_cells_by_play`` is ``knock_cells`` of the play gains beside the search's
over the same positions and their paired difference; ``play_caveat`` says how far and which
way play moved the cells and how many change verdict; ``card_knock_cells`` takes play's cells
only for the report's own rule set; ``play_in_parts`` keeps each part and reads it back."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import gin_sim.experiments.positions as positions
from gin_sim.experiments.advice import knock_cells, knock_cells_by_play, knock_positions
from gin_sim.reports.card import card_knock_cells, play_caveat


def _knocks(cells: list[tuple[int, int, int, float, float]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Knock positions, one per deal, weight 1, and their play gains: for each (stock left,
    deadwood, count, search gain, play gain) ``count`` deals; gains alternate by ±1 about
    the given means so that every cell has a spread."""
    rows, played, deal = [], [], 0
    for stock, deadwood, count, search, play in cells:
        for i in range(count):
            wobble = 1.0 if i % 2 else -1.0
            rows.append(
                {"deal": deal, "decision": 3, "kind": "knock", "deadwood": deadwood,
                 "knock_limit": 10, "stock_left": stock, "opp_takes": 0, "weight": 1.0,
                 "gain": search + wobble}
            )  # fmt: skip
            played.append({"deal": deal, "decision": 3, "play_gain": play + 2 * wobble})
            deal += 1
    return knock_positions(pd.DataFrame(rows)), pd.DataFrame(played)


def test_the_cells_by_play_are_the_play_gains_beside_the_search_and_their_difference():
    """40 positions at deadwood 8 with 15 cards left (band 13-18): search -4 ± 1, play
    +1 ± 2 by position, so play's cell is +1, the search's -4 and the paired difference
    +5 (its spread 1 per position); 40 at deadwood 2 with 28 left (25-31): search +1,
    play +1, difference 0. Every other cell is empty in all three."""
    knocks, played = _knocks([(15, 8, 40, -4.0, 1.0), (28, 2, 40, 1.0, 1.0)])
    table = knock_cells_by_play(knocks, played).set_index(["stock_band", "deadwood"])
    by_play = knock_cells(
        knocks.assign(gain=played.set_index("deal").loc[knocks["deal"], "play_gain"].to_numpy())
    ).set_index(["stock_band", "deadwood"])
    assert len(table) == 5 * 11
    late = table.loc[("13-18", 8)]
    assert late["positions"] == 40 and late["mean"] == pytest.approx(1.0)
    assert late["search_mean"] == pytest.approx(-4.0)
    assert late["difference_mean"] == pytest.approx(5.0)
    assert late["difference_low"] < 5.0 < late["difference_high"]
    assert late["difference_high"] - late["difference_low"] < late["high"] - late["low"]
    for column in ("mean", "half_width", "low", "high", "positions", "n"):
        assert table[column].equals(by_play[column]), column
    early = table.loc[("25-31", 2)]
    assert early["difference_mean"] == pytest.approx(0.0, abs=1e-12)
    empty = table.loc[("19-24", 5)]
    assert empty["positions"] == 0 and np.isnan(empty["search_mean"])
    assert np.isnan(empty["difference_mean"])


def test_a_position_without_its_play_is_refused_not_dropped():
    """Every knock position needs its play: a ``played`` with a row missing or twice is a
    merge error, never a table over fewer positions than the search's."""
    knocks, played = _knocks([(15, 8, 4, -4.0, 1.0)])
    assert knock_cells_by_play(knocks, played)["positions"].sum() == 4
    twice = pd.concat([played, played.iloc[:1]], ignore_index=True)
    with pytest.raises(pd.errors.MergeError):
        knock_cells_by_play(knocks, twice)


def test_the_play_caveat_says_how_far_and_which_way_play_moved_the_cells():
    """Two cells: 13-18 at 8 (40 positions, search -4 close to nothing: PLAY ON; play +1:
    its interval about ±0.6, KNOCK) and 25-31 at 2 (40 positions, both +1: KNOCK): the
    mean move weighted by positions is (40 × 5 + 40 × 0) / 80 = 2.5 more, and 1 of 2 cells
    reads otherwise by the search."""
    knocks, played = _knocks([(15, 8, 40, -4.0, 1.0), (28, 2, 40, 1.0, 1.0)])
    cells = knock_cells_by_play(knocks, played)
    text = play_caveat(cells, "mc")
    assert text == (
        "The knock cells are valued by mc's own play, not by the search: in that play "
        "knocking was worth 2.5 points a decision more than the search says (the mean over "
        "the cells), and 1 of 2 cells would read otherwise by the search (knock-cells-by-play)."
    )
    lower, _ = _knocks([(15, 8, 40, 3.0, 1.0)])
    flipped = knock_cells_by_play(lower, played.iloc[:40])
    assert "worth 2.0 points a decision less than" in play_caveat(flipped, "mc")
    assert "0 of 1 cells" in play_caveat(flipped, "mc")
    assert play_caveat(cells.iloc[:0], "mc") == ""


def test_the_card_takes_plays_cells_only_under_the_reports_own_rules():
    """``card_knock_cells``: the own rule set with play's table gets its cells and the
    play caveat; a compared rule set gets the search's cells and the check's caveat under
    the rule set the check played; without play's table the own rule set gets the search's
    cells and the check's own caveat."""
    knocks, played = _knocks([(15, 8, 40, -4.0, 1.0)])
    by_play = knock_cells_by_play(knocks, played).assign(rules="hollywood")
    search = pd.concat(
        [knock_cells(knocks).assign(rules=r) for r in ("hollywood", "standard")], ignore_index=True
    )
    check = pd.DataFrame(
        {"cell": ["knock, deadwood 6 to 10"], "difference_mean": [3.1], "difference_low": [2.3],
         "difference_high": [4.0], "flagged": [True]}
    )  # fmt: skip
    tables = {"knock-cells-by-rules": search, "knock-cells-by-play": by_play,
              "check-against-play": check}  # fmt: skip
    cells, how, caveat = card_knock_cells("hollywood", "hollywood", "mc", "searched", 4, tables)
    assert cells["mean"].equals(by_play["mean"]) and "search_mean" in cells
    assert how.startswith("searched; its knock cells by mc's own play instead") and "4 times" in how
    assert caveat.startswith("The knock cells are valued by mc's own play")
    cells, how, caveat = card_knock_cells("standard", "hollywood", "mc", "paired", 4, tables)
    assert (cells["rules"] == "standard").all() and how == "paired"
    assert caveat.startswith("Under hollywood, in mc's own play, knocking was worth more than")
    assert "the search's cells said" in caveat
    del tables["knock-cells-by-play"]
    cells, how, caveat = card_knock_cells("hollywood", "hollywood", "mc", "searched", 4, tables)
    assert (cells["rules"] == "hollywood").all() and "search_mean" not in cells
    assert caveat.startswith("In mc's own play, knocking was worth more than these cells say")


def test_play_in_parts_keeps_each_part_and_reads_it_back(tmp_path, monkeypatch):
    """Parts of PLAY_PART_ROWS rows: each played once and kept; the same call again reads
    every part back and plays nothing; a kept part whose positions are not the frame's is
    played again; the rows come back in the frame's order with their deal and decision."""
    calls = []

    def fake(rows, rules, players, continuations, seed, threads=None):
        assert (rules, players) == ("RULES", "PLAYERS")  # passed on as given
        calls.append(len(rows))
        gains = rows["deal"].to_numpy(np.float64) * 10 + continuations + seed
        return pd.DataFrame({"play_gain": gains, "play_gain_se": 0.5}, index=rows.index)

    monkeypatch.setattr(positions, "play_headline", fake)
    monkeypatch.setattr(positions, "PLAY_PART_ROWS", 3)
    frame = pd.DataFrame({"deal": [5, 6, 7, 8, 9, 10, 11], "decision": [1] * 7},
                         index=[40, 41, 42, 43, 44, 45, 46])  # fmt: skip
    seen = []
    got = positions.play_in_parts(
        frame, "RULES", "PLAYERS", 2, 1, tmp_path / "new" / "kp", lambda d, n: seen.append((d, n))
    )
    assert calls == [3, 3, 1] and seen == [(3, 7), (6, 7), (7, 7)]
    assert got["deal"].tolist() == frame["deal"].tolist()
    assert got["play_gain"].tolist() == [d * 10 + 3.0 for d in frame["deal"]]
    assert sorted(p.name for p in (tmp_path / "new" / "kp").iterdir()) == [
        "part-000.parquet",
        "part-001.parquet",
        "part-002.parquet",
    ]
    calls.clear()
    again = positions.play_in_parts(frame, "RULES", "PLAYERS", 2, 1, tmp_path / "new" / "kp")
    assert calls == [] and again.equals(got)
    other = frame.assign(deal=frame["deal"] + 100)
    moved = positions.play_in_parts(other, "RULES", "PLAYERS", 2, 1, tmp_path / "new" / "kp")
    assert calls == [3, 3, 1] and moved["play_gain"].tolist()[0] == 1053.0
    columns = ["deal", "decision", "play_gain", "play_gain_se"]
    assert got.columns.tolist() == columns and got.index.equals(pd.RangeIndex(7))
    empty = positions.play_in_parts(frame.iloc[:0], "RULES", "PLAYERS", 2, 1)
    assert empty.empty and empty.columns.tolist() == columns
    calls.clear()
    unkept = positions.play_in_parts(frame, "RULES", "PLAYERS", 2, 1)  # no folder: nothing kept
    assert calls == [3, 3, 1] and unkept.equals(got)
