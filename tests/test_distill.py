"""``gin-sim distill`` (issue 16, part 4): the changes an advice report's tables propose to
a family strategy, each played against the base and kept only when it wins there."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from gin_sim.experiments.advice import CARD_DOES
from gin_sim.experiments.distill import (
    Proposal,
    check,
    distill,
    distilled_schedule,
    distilled_take_schedule,
    proposals,
)
from gin_sim.game.rules import load_rules
from gin_sim.interfaces.cli import app
from gin_sim.players.strategies import load_strategy

BANDS = ["25-31", "19-24", "13-18", "7-12", "0-6"]


def _line(lines, positions=(200, 200, 100, 100, 50)):
    return pd.DataFrame({"stock_band": BANDS, "threshold": lines, "positions": list(positions)})


def _takes(high: float) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "kind": ["draw", "draw"],
            "card_does": ["completes a meld", "lowers deadwood by 5 or more"],
            "positions": [100, 40],
            "mean": [8.0, high - 1.0],
            "low": [7.0, high - 2.0],
            "high": [9.0, high],
        }
    )


def test_the_distilled_schedule_follows_the_knock_line():
    """Thin bands and bands without a fit (-1) keep the band before them, equal neighbours
    merge, 0 means gin only."""
    line = _line([10, 10, 0, 8, 3], (200, 200, 100, 100, 5))
    assert distilled_schedule(line) == [[19, 10], [13, 0], [0, 8]]
    assert distilled_schedule(_line([10, -1, 0, 8, 8])) == [[19, 10], [13, 0], [0, 8]]
    line["positions"] = [200, 200, 100, 5, 5]
    assert distilled_schedule(line) == [[19, 10], [0, 0]]


def test_the_tables_propose_only_changes_to_how_the_base_plays():
    """A knock line the base already plays and a take cell that does not lose propose
    nothing; a line that differs proposes a schedule (for a compared rule set, under an
    [[adapt]] condition on the rule keys where it differs); a losing take cell proposes
    the gain rule off."""
    hollywood, standard = load_rules("hollywood"), load_rules("standard")
    expert = load_strategy("expert")
    same = {  # expert knocks at 10 under hollywood: a line of 10 everywhere changes nothing
        "knock-line": _line([10] * 5),
        "take-cells": _takes(high=0.5),
        "knock-line-by-rules": _line([10] * 5).assign(rules="standard").iloc[:0],
    }
    assert proposals(same, hollywood, [standard], expert) == []
    tables = {
        "knock-line": _line([10, 10, 0, 0, 0]),
        "take-cells": _takes(high=-0.5),
        "knock-line-by-rules": _line([10, 0, 0, 0, 6]).assign(rules="standard"),
    }
    made = proposals(tables, hollywood, [standard], expert)
    assert [(p.rules, p.when, dict(p.changes)) for p in made] == [
        ("hollywood", (), {"knock_schedule": [[19, 10], [0, 0]]}),
        ("hollywood", (), {"take_min_gain": 0.0}),
        ("standard", (("undercut_bonus", (25, 25)),), {"knock_schedule": [[25, 10], [7, 0], [0, 6]]}),
    ]  # fmt: skip


def test_a_change_is_kept_only_when_it_wins_in_play():
    """Holding out for gin all hand long loses to expert's knocking under hollywood; a
    gin hunter that knocks at 10 from the start beats its own holding out. A change that
    plays as the base gains exactly 0 (the same decks) and is not kept."""
    hollywood = load_rules("hollywood")
    gin_only = Proposal("hollywood", (), (("knock_schedule", [[0, 0]]),), "test")
    knock_early = Proposal("hollywood", (), (("knock_schedule", [[0, 10]]),), "test")
    lost = check(load_strategy("expert"), gin_only, hollywood, 3000, 11, 2)
    assert not lost.kept and lost.gain.mean + lost.gain.half_width < 0
    won = check(load_strategy("gin-hunter"), knock_early, hollywood, 3000, 11, 2)
    assert won.kept and won.gain.mean - won.gain.half_width > 0
    nothing = Proposal("hollywood", (), (("knock_threshold", None),), "test")
    same = check(load_strategy("expert"), nothing, hollywood, 500, 11, 2)
    assert same.gain.mean == 0 and not same.kept


def _report_folder(tmp_path, tables, options):
    """A finished advice report's folder with ``tables``; take cells by stock that propose
    nothing (expert's own take rule in every band) unless ``tables`` has its own."""
    folder = tmp_path / "advice"
    folder.mkdir()
    as_played = _takes_by_stock(dict.fromkeys(BANDS, (8.0, 1.0, -0.5)))
    for name, table in ({"take-cells-by-stock": as_played} | tables).items():
        table.to_csv(folder / f"{name}.csv", index=False)
    record = {"format": 1, "kind": "report advice", "options": options, "finished": True}
    (folder / ".gin-sim.json").write_text(json.dumps(record))
    return folder


def test_the_distilled_file_is_the_base_with_the_kept_changes(tmp_path):
    """The written strategy plays as the base (its own [[adapt]] tables kept) where no kept
    change applies, and with the kept change under its rule set."""
    tables = {
        "knock-line": _line([10] * 5),
        "take-cells": _takes(high=0.5),
        "knock-line-by-rules": _line([10, 0, 0, 0, 0]).assign(rules="standard"),
    }
    folder = _report_folder(tmp_path, tables, {"rules": "hollywood", "compare": "standard"})
    _, checked, text = distill(folder, 2000, 13)
    # expert holds out for gin under standard (its [[adapt]]); knocking at 10 while 25 or
    # more cards are in the stock, then only for gin, wins there.
    assert [c.kept for c in checked] == [True]
    path = tmp_path / "advised.toml"
    path.write_text(text)
    loaded = load_strategy(path)
    expert = load_strategy("expert")
    for name in ("hollywood", "hollywood-gin20", "oklahoma"):
        rules = load_rules(name)
        assert (
            loaded.for_rules(rules).to_kernel().tolist()
            == expert.for_rules(rules).to_kernel().tolist()
        )
    played = loaded.for_rules(load_rules("standard"))
    assert played.knock_schedule == ((25, 10), (0, 0))
    assert played.take_min_gain == expert.for_rules(load_rules("standard")).take_min_gain


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ("missing", "is not a folder"),
        ("foreign", "is not a finished report advice folder"),
        ("columns", "lacks the columns"),
        ("exists", "exists: give --overwrite"),
        ("base", "allowed a family strategy"),
    ],
)
def test_bad_distill_input_is_a_one_line_error(tmp_path, setup, message):
    tables = {"knock-line": _line([10] * 5), "take-cells": _takes(high=0.5)}
    folder = _report_folder(tmp_path, tables, {"rules": "hollywood", "compare": "none"})
    out = tmp_path / "advised.toml"
    extra = []
    if setup == "missing":
        folder = tmp_path / "nowhere"
    elif setup == "foreign":
        (folder / ".gin-sim.json").write_text(
            json.dumps({"format": 1, "kind": "report knock", "options": {}, "finished": True})
        )
    elif setup == "columns":
        (folder / "knock-line.csv").write_text("a,b\n1,2\n")
    elif setup == "exists":
        out.write_text("mine")
    elif setup == "base":
        extra = ["--base", "mc"]
    result = CliRunner().invoke(
        app, ["distill", str(folder), "--out", str(out), "--deals", "10", "--quiet", *extra]
    )
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
    if setup == "exists":
        assert out.read_text() == "mine"


def _takes_by_stock(means: dict[str, tuple[float, float, float]], positions: int = 100):
    """Take cells by stock band: per band the mean gain of a card that completes a meld,
    lowers the deadwood by 5 or more, and by 1 to 4 ("lowers nothing" is never taken)."""
    rows = []
    for band, (meld, five, one) in means.items():
        for card_does, mean in zip(CARD_DOES, (meld, five, one, -3.0), strict=True):
            rows.append(
                {"stock_band": band, "card_does": card_does, "positions": positions, "mean": mean}
            )
    return pd.DataFrame(rows)


def test_the_take_schedule_follows_the_take_cells_by_stock():
    """Per band: take melds where they gain; take_min_gain 1 when both lowering cells gain,
    the base's own when only the larger does, 0 when neither; thin cells keep the band
    before; equal neighbours merge; at most four phases, the last from stock 0."""
    base = load_strategy("expert")
    own = base.take_min_gain
    cells = _takes_by_stock(
        {
            "25-31": (8.0, 1.0, 0.5),
            "19-24": (4.0, 1.0, -0.5),
            "13-18": (2.0, -1.0, -2.0),
            "7-12": (-1.0, -2.0, -3.0),
            "0-6": (-2.0, -2.0, -3.0),
        }
    )
    assert distilled_take_schedule(cells, base) == [
        [25, True, 1.0],
        [19, True, own],
        [13, True, 0.0],
        [0, False, 0.0],
    ]
    thin = cells.assign(positions=[100] * 8 + [5] * 12)  # 13-18 and later too thin to read
    assert distilled_take_schedule(thin, base) == [[25, True, 1.0], [0, True, own]]
    # the base's own rule where the first band is thin
    first_thin = cells.assign(positions=[5] * 4 + [100] * 16)
    assert distilled_take_schedule(first_thin, base)[0] == [19, True, own]


def test_a_take_schedule_is_proposed_only_where_it_changes_the_take():
    hollywood, expert = load_rules("hollywood"), load_strategy("expert")
    played = (expert.take_melds, expert.take_min_gain)
    gains = (8.0, 1.0, -0.5)  # what expert plays: melds, and its own take_min_gain
    tables = {"knock-line": _line([10] * 5), "take-cells": _takes(high=0.5)}
    same = tables | {"take-cells-by-stock": _takes_by_stock(dict.fromkeys(BANDS, gains))}
    assert proposals(same, hollywood, [], expert) == []
    late = dict.fromkeys(BANDS, gains) | {"7-12": (-1.0, -1.0, -1.0), "0-6": (-1.0, -1.0, -1.0)}
    made = proposals(tables | {"take-cells-by-stock": _takes_by_stock(late)}, hollywood, [], expert)
    assert [dict(p.changes) for p in made] == [
        {"take_schedule": [[13, True, played[1]], [0, False, 0.0]]}
    ]
