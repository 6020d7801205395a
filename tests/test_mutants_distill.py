"""Distill's decisions pinned by properties, not by today's output (issue 27, part 1;
docs/testing.md): each proposal's gain interval is Bonferroni-adjusted for the number of
proposals checked, so that all of them cover at once with 95% probability."""

from __future__ import annotations

import io
from dataclasses import fields, replace
from statistics import NormalDist

import pandas as pd
import pytest
from test_distill import _report_folder, _takes

from gin_sim.experiments.advice import CARD_DOES
from gin_sim.experiments.distill import (
    Proposal,
    _conditions,
    check,
    distill,
    distilled_schedule,
    distilled_take_schedule,
    proposals,
    proposals_of_report,
    read_report_tables,
)
from gin_sim.experiments.simulate import head_to_head
from gin_sim.experiments.summary import player_summary
from gin_sim.game.config import ConfigError
from gin_sim.game.rules import load_rules
from gin_sim.players.strategies import Strategy, load_strategy, strategy_from_dict

HOLLYWOOD = load_rules("hollywood")


def _widening(comparisons: int) -> float:
    """How much wider a Bonferroni interval is than a single 95% one: the normal quantile
    at 1 - 0.05 / (2 m) over the one at 0.975 (about 1.314 for m = 5)."""
    quantile = NormalDist().inv_cdf
    return quantile(1 - 0.05 / (2 * comparisons)) / quantile(0.975)


def test_a_checked_gain_is_the_paired_gain_with_a_bonferroni_interval():
    """The gain of a proposal, checked as one of m, is the base-with-the-change's net points
    per hand against the base on the same duplicate decks, with the plain 95% half width
    times the Bonferroni widening for m."""
    base = load_strategy("expert")
    proposal = Proposal("hollywood", (), (("knock_schedule", [[0, 0]]),), "test")  # gin only
    changed = replace(base.for_rules(HOLLYWOOD), name="changed", knock_schedule=((0, 0),))
    plain = player_summary(head_to_head(HOLLYWOOD, (changed, base), 400, 17), 0)[
        "net points per hand"
    ]
    assert plain.half_width > 0.1  # the change plays differently: the paired gain varies
    for comparisons in (1, 5):
        gain = check(base, proposal, HOLLYWOOD, 400, 17, comparisons).gain
        assert gain.mean == pytest.approx(plain.mean)
        assert gain.half_width == pytest.approx(plain.half_width * _widening(comparisons))
    assert _widening(5) == pytest.approx(1.314, abs=1e-3)


def test_distill_adjusts_for_every_proposal_it_checks(tmp_path):
    """Two proposals (the knock line and the take rule): each is checked as one of two."""
    tables = {"knock-line": _line([10, 8, 0, 0, 0], (200, 200, 100, 100, 50)),
              "take-cells": _takes(high=-0.5)}  # fmt: skip
    folder = _report_folder(tmp_path, tables, {"rules": "hollywood", "compare": "none"})
    _, checked, text = distill(folder, 300, 19)
    assert len(checked) == 2
    assert all(each.gain.half_width > 0.1 for each in checked)  # both change the play
    base = load_strategy("expert")
    for each in checked:
        alone = check(base, each.proposal, HOLLYWOOD, 300, 19, 1).gain
        assert each.gain.mean == pytest.approx(alone.mean)
        assert each.gain.half_width == pytest.approx(alone.half_width * _widening(2))
        assert each.kept == (each.gain.mean - each.gain.half_width > 0)
    assert "Bonferroni-adjusted for 2 proposals" in text


BANDS = ["25-31", "19-24", "13-18", "7-12", "0-6"]


def _line(thresholds, positions=(200,) * 5):
    return pd.DataFrame(
        {"stock_band": BANDS, "threshold": list(thresholds), "positions": list(positions)}
    )


def test_knock_schedules_from_lines_by_hand():
    """Hand-computed: equal neighbours merge into the earlier band's phase that ends at
    the later band's lowest stock; a thin band (fewer than 30 positions) or one without a
    fit (-1) keeps the band before it; a fifth phase merges into the fourth; the last phase
    runs to stock 0; no bands: knock at 10."""
    assert distilled_schedule(_line([10, 8, 8, 3, 0])) == [[25, 10], [13, 8], [7, 3], [0, 0]]
    thin = _line([10, 2, 6, 4, 0], positions=(200, 29, 200, 200, 200))
    assert distilled_schedule(thin) == [[19, 10], [13, 6], [7, 4], [0, 0]]
    assert distilled_schedule(_line([9, -1, 6, 6, 6])) == [[19, 9], [0, 6]]
    assert distilled_schedule(_line([-1, 7, 7, 7, 7])) == [[25, 0], [0, 7]]
    assert distilled_schedule(_line([10, 8, 6, 4, 2])) == [[25, 10], [19, 8], [13, 6], [0, 4]]
    assert distilled_schedule(_line([5] * 5)) == [[0, 5]]
    assert distilled_schedule(_line([0] * 5)[:0]) == [[0, 10]]
    assert distilled_schedule(_line([12, 0, 0, 0, 0], positions=(30,) * 5)) == [[25, 12], [0, 0]]


def _cells(by_band: dict[str, tuple]) -> pd.DataFrame:
    """Take cells by stock band: per band (meld, by 5 or more, by 1 to 4) as (mean,
    positions) pairs."""
    rows = []
    for band, cells in by_band.items():
        for card_does, (mean, positions) in zip(CARD_DOES[:3], cells, strict=True):
            rows.append(
                {"stock_band": band, "card_does": card_does, "mean": mean, "positions": positions}
            )
    return pd.DataFrame(rows)


def test_take_schedules_from_cells_by_hand():
    """Hand-computed, base take_melds False and take_min_gain 3:
    25-31 every card gains: take melds, and any lowering (1);
    19-24 and 13-18 only the larger lowering gains: the base's own 3, merged;
    7-12 nothing gains (the 1-to-4 cell is thin but the 5-or-more one says no): off (0);
    0-6 every cell thin: as before, merged."""
    base = replace(Strategy(), take_melds=False, take_min_gain=3.0)
    cells = _cells(
        {
            "25-31": ((2.0, 100), (1.0, 100), (0.5, 100)),
            "19-24": ((1.0, 100), (1.0, 100), (-1.0, 100)),
            "13-18": ((1.0, 100), (1.0, 100), (-1.0, 100)),
            "7-12": ((-1.0, 100), (-1.0, 100), (1.0, 5)),
            "0-6": ((5.0, 10), (5.0, 10), (5.0, 10)),
        }
    )
    assert distilled_take_schedule(cells, base) == [
        [25, True, 1.0], [13, True, 3.0], [0, False, 0.0],
    ]  # fmt: skip
    # a base without a score of its own takes at 5 where only the larger lowering gains
    no_score = replace(base, take_min_gain=0.0)
    assert distilled_take_schedule(cells, no_score)[1] == [13, True, 5.0]
    # every cell thin: the base's own rule throughout
    thin = _cells({band: ((1.0, 29), (1.0, 29), (1.0, 29)) for band in BANDS})
    assert distilled_take_schedule(thin, base) == [[0, False, 3.0]]


def test_adapt_conditions_name_every_rule_that_differs():
    own = load_rules("hollywood")
    other = replace(
        own, name="other", gin_bonus=20, oklahoma=True, undercut_bonus=own.undercut_bonus
    )
    assert _conditions(other, own) == (("gin_bonus", (20, 20)), ("oklahoma", True))
    assert _conditions(replace(own, name="renamed"), own) == ()


def test_a_proposal_describes_its_change_and_where_it_holds():
    """The line the user reads for each proposal (``gin-sim distill``'s output and the
    strategy file's comment): the change as TOML, then where it holds: the top level, or
    the [[adapt]] condition key by key (a boolean as TOML spells it, a range as its two
    ends, a single value once), then the table it comes from."""
    top = Proposal("hollywood", (), (("take_min_gain", 0.0),), "hollywood's take or draw")
    assert top.describe() == "take_min_gain = 0.0 (top level; from hollywood's take or draw)"
    two = Proposal("hollywood", (), (("take_melds", False), ("take_min_gain", 2.5)), "mine")
    assert two.describe() == "take_melds = false, take_min_gain = 2.5 (top level; from mine)"
    when = (("gin_bonus", (20, 20)), ("knock_limit", (7, 9)), ("oklahoma", True))
    adapted = Proposal("other", when, (("knock_schedule", [[25, 10], [0, 0]]),), "other's line")
    assert adapted.describe() == (
        "knock_schedule = [[25, 10], [0, 0]] (when gin_bonus = 20, knock_limit in 7 to 9, "
        "oklahoma = true; from other's line)"
    )


def _three_proposals(tmp_path):
    """A report under hollywood comparing standard whose tables propose three changes to
    expert (``test_distill``'s case): hollywood's knock line, the take rule off, and
    standard's knock line under standard's one differing rule (undercut 25)."""
    tables = {
        "knock-line": _line([10, 10, 0, 0, 0], (200, 200, 100, 100, 50)),
        "take-cells": _takes(high=-0.5),
        "knock-line-by-rules": _line([10, 0, 0, 0, 6], (200, 200, 100, 100, 50)).assign(
            rules="standard"
        ),
    }
    return _report_folder(tmp_path, tables, {"rules": "hollywood", "compare": "standard"})


def test_a_reports_proposals_are_those_of_its_tables_for_the_base_named(tmp_path):
    """``proposals_of_report`` (what ``gin-sim distill`` counts before it plays) reads the
    report's tables, rule set and compared rule sets: for expert, the three changes worked
    out by hand; for another base, the proposals made to that base."""
    folder = _three_proposals(tmp_path)
    made = proposals_of_report(folder)
    assert [(p.rules, p.when, dict(p.changes)) for p in made] == [
        ("hollywood", (), {"knock_schedule": [[19, 10], [0, 0]]}),
        ("hollywood", (), {"take_min_gain": 0.0}),
        ("standard", (("undercut_bonus", (25, 25)),), {"knock_schedule": [[25, 10], [7, 0], [0, 6]]}),
    ]  # fmt: skip
    # each names its table; the take rule's with the cell's gain and interval (_takes: the
    # lowering cell's mean is its high - 1, its low its high - 2)
    assert [p.source for p in made] == [
        "hollywood's knock line",
        "hollywood's take or draw: a discard lowering the deadwood by 5 or more without a "
        "meld, -1.50 (-2.50 to -0.50) over drawing",
        "standard's knock line",
    ]
    assert proposals_of_report(folder, "expert") == made
    # gin-hunter takes no discard for its score alone (take_min_gain 0): no take rule to
    # turn off, but the take cells by stock band (a lowering by 5 or more gains in every
    # band) propose taking at 5, the score of a base without one
    hunter = proposals_of_report(folder, "gin-hunter")
    assert [(p.rules, dict(p.changes)) for p in hunter] == [
        ("hollywood", {"knock_schedule": [[19, 10], [0, 0]]}),
        ("hollywood", {"take_schedule": [[0, True, 5.0]]}),
        ("standard", {"knock_schedule": [[25, 10], [7, 0], [0, 6]]}),
    ]
    assert hunter[1] == Proposal(
        "hollywood", (), (("take_schedule", [[0, True, 5.0]]),),
        "hollywood's take-or-draw cells by stock band",
    )  # top level (no condition), named after its table  # fmt: skip
    tables, own, compared = read_report_tables(folder)
    assert hunter == proposals(tables, own, compared, load_strategy("gin-hunter"))


def test_the_take_rule_is_turned_off_only_when_its_cell_has_positions_and_loses():
    """R-independent reading of the take cell: its interval lies below 0 on at least one
    position: a cell with no positions proposes nothing, one with a single position does."""
    expert, tables = load_strategy("expert"), {"knock-line": _line([10] * 5)}

    def made(positions: int) -> list:
        takes = _takes(high=-0.5).assign(positions=[100, positions])
        return [
            dict(p.changes)
            for p in proposals(tables | {"take-cells": takes}, HOLLYWOOD, [], expert)
        ]

    assert made(0) == []
    assert made(1) == [{"take_min_gain": 0.0}]


def test_a_knock_line_is_compared_with_how_the_base_plays_under_the_rule_set():
    """The line is proposed at the top level, so it is compared with the base as it plays
    under the report's rule set ([[adapt]] tables applied) and capped by its knock limit
    (R12): under standard, expert's [[adapt]] holds out for gin until 6 cards are left,
    so a line of 10 everywhere is a change; under hollywood with a knock limit of 7
    expert (no threshold of its own: the limit) knocks at 7, and a line of 7 everywhere
    is no change."""
    expert = load_strategy("expert")
    takes = {"take-cells": _takes(high=0.5)}
    standard = proposals(
        {"knock-line": _line([10] * 5)} | takes, load_rules("standard"), [], expert
    )
    assert [dict(p.changes) for p in standard] == [{"knock_schedule": [[0, 10]]}]
    limit_7 = load_rules("hollywood", ["knock_limit=7"])
    assert proposals({"knock-line": _line([7] * 5)} | takes, limit_7, [], expert) == []
    assert proposals({"knock-line": _line([7] * 5)} | takes, HOLLYWOOD, [], expert) != []


def _take_proposals(by_band: dict[str, tuple], own=HOLLYWOOD) -> list:
    """The take schedules proposed to expert by take cells per band (melds, by 5 or more,
    by 1 to 4) as mean gains on 100 positions each."""
    tables = {
        "knock-line": _line([10] * 5),
        "take-cells": _takes(high=0.5),
        "take-cells-by-stock": _cells(
            {b: tuple((m, 100) for m in cell) for b, cell in by_band.items()}
        ),
    }
    made = proposals(tables, own, [], load_strategy("expert"))
    return [dict(p.changes)["take_schedule"] for p in made if "take_schedule" in dict(p.changes)]


def test_a_take_schedule_is_proposed_exactly_when_it_changes_the_take_at_some_stock():
    """Expert takes melds and lowerings by 8.19 or more (8.0 under standard's [[adapt]]),
    with no take schedule. Cells that say what it plays propose nothing, also under
    standard (where the schedule, [[0, true, 8.0]], replaces the [[adapt]] value at every
    stock); melds that lose everywhere change only take_melds; a take rule as played while
    25 or more cards are left and off below changes the take only below 25."""
    as_played = (8.0, 1.0, -0.5)  # melds gain, only the larger lowering gains
    assert _take_proposals(dict.fromkeys(BANDS, as_played)) == []
    assert _take_proposals(dict.fromkeys(BANDS, as_played), load_rules("standard")) == []
    assert _take_proposals(dict.fromkeys(BANDS, (-1.0, 1.0, -0.5))) == [[[0, False, 8.19]]]
    later_off = dict.fromkeys(BANDS, (8.0, -1.0, -1.0)) | {"25-31": as_played}
    assert _take_proposals(later_off) == [[[25, True, 8.19], [0, True, 0.0]]]


def test_take_cells_missing_thin_or_even_are_read_as_the_rule_says():
    """A cell the table lacks is as thin as one under 30 positions (the band before it
    holds); 30 positions are enough; a mean gain of exactly 0 is no gain; five different
    bands make the family's four phases, the last one's from stock 0."""
    base = replace(Strategy(), take_melds=False, take_min_gain=3.0)
    no_small = _cells(dict.fromkeys(BANDS, ((2.0, 100), (1.0, 100), (1.0, 100))))
    no_small = no_small[no_small["card_does"] != CARD_DOES[2]]  # no "by 1 to 4" cells at all
    assert distilled_take_schedule(no_small, base) == [[0, True, 3.0]]
    at_30 = _cells(dict.fromkeys(BANDS, ((2.0, 30), (1.0, 30), (1.0, 30))))
    assert distilled_take_schedule(at_30, base) == [[0, True, 1.0]]
    even = _cells(dict.fromkeys(BANDS, ((0.0, 100), (0.0, 100), (0.0, 100))))
    assert distilled_take_schedule(even, base) == [[0, False, 0.0]]
    five = _cells(
        {
            "25-31": ((1.0, 100), (1.0, 100), (1.0, 100)),
            "19-24": ((1.0, 100), (1.0, 100), (-1.0, 100)),
            "13-18": ((1.0, 100), (-1.0, 100), (-1.0, 100)),
            "7-12": ((-1.0, 100), (-1.0, 100), (-1.0, 100)),
            "0-6": ((1.0, 100), (1.0, 100), (1.0, 100)),
        }
    )
    assert distilled_take_schedule(five, base) == [
        [25, True, 1.0], [19, True, 3.0], [13, True, 0.0], [0, False, 0.0],
    ]  # fmt: skip


def test_the_distilled_file_says_what_was_played_measured_and_kept(tmp_path, monkeypatch):
    """``distill`` with play replaced by made-up gains: each proposal is checked once, as one
    of all the proposals, under its own rule set, on the decks, seed and threads given, and
    counted once for the progress bar. The file's comment starts with the header that
    ``--overwrite`` looks for, gives the command that reproduces it, and each proposal's
    gain and verdict; the strategy is named ``advised``, keeps expert's own values and
    [[adapt]] tables, and adds the kept changes (top level, or under their condition)."""
    import gin_sim.experiments.distill as module
    from gin_sim.experiments.distill import DISTILLED_HEADER, Checked
    from gin_sim.experiments.summary import Estimate

    folder = _three_proposals(tmp_path)
    gains = {"hollywood's knock line": (1.5, 0.25), "standard's knock line": (3.0, 0.5)}
    calls = []

    def made_up(base, proposal, rules, deals, seed, comparisons, threads=None):
        calls.append((base.name, proposal.source, rules.name, deals, seed, comparisons, threads))
        mean, half = gains.get(proposal.source, (-0.5, 0.125))
        return Checked(proposal, Estimate(mean, half, deals, (half / 1.96) ** 2), mean > half)

    monkeypatch.setattr(module, "check", made_up)
    advances = []
    strategy, checked, text = distill(folder, 123, 45, threads=3, on_check=advances.append)
    made = proposals_of_report(folder)
    assert [c.proposal for c in checked] == made and advances == [1, 1, 1]
    assert calls == [("expert", p.source, p.rules, 123, 45, 3, 3) for p in made]
    lines = text.splitlines()
    assert lines[0] == f"{DISTILLED_HEADER}{folder} by"
    assert lines[1] == f"#   gin-sim distill {folder} --deals 123 --seed 45"
    assert "Bonferroni-adjusted for 3 proposals" in text
    # the rule that decided, and what is left to the user, in the file's own words
    assert (
        "# its interval lies above 0. Confirm on decks of another seed: these chose what is kept."
        in lines
    )
    verdicts = [line for line in lines if line.startswith("# - ")]
    assert verdicts == [
        f"# - {made[0].describe()}: under hollywood +1.500 ± 0.250, kept",
        f"# - {made[1].describe()}: under hollywood -0.500 ± 0.125, not kept",
        f"# - {made[2].describe()}: under standard +3.000 ± 0.500, kept",
    ]
    path = tmp_path / "advised.toml"
    path.write_text(text)
    assert load_strategy(path) == strategy
    expert = load_strategy("expert")
    assert strategy.name == "advised" and strategy.description.startswith("expert with")
    assert strategy.knock_schedule == ((19, 10), (0, 0))  # kept, top level
    assert strategy.take_min_gain == expert.take_min_gain == 8.19  # not kept
    assert strategy.undercut_risk == expert.undercut_risk  # expert's own values
    assert strategy.adapt[:-1] == expert.adapt  # its [[adapt]] tables, then the kept one
    assert strategy.for_rules(load_rules("standard")).knock_schedule == ((25, 10), (7, 0), (0, 6))
    assert strategy.for_rules(load_rules("oklahoma")).knock_schedule == ((19, 10), (0, 0))


def test_a_change_kept_under_a_boolean_condition_and_a_report_proposing_nothing(
    tmp_path, monkeypatch
):
    """A knock line kept for oklahoma (a boolean rule, R-oklahoma) is written under
    ``when = { oklahoma = true }``; a report whose tables propose no change plays nothing
    and says so, and its strategy plays as expert under every rule set."""
    import gin_sim.experiments.distill as module
    from gin_sim.experiments.distill import Checked
    from gin_sim.experiments.summary import Estimate

    def made_up(base, proposal, rules, deals, seed, comparisons, threads=None):
        return Checked(proposal, Estimate(2.0, 0.5, deals, 0.06), True)

    monkeypatch.setattr(module, "check", made_up)
    tables = {
        "knock-line": _line([10] * 5),
        "take-cells": _takes(high=0.5),
        "knock-line-by-rules": _line([10, 10, 10, 0, 0]).assign(rules="oklahoma"),
    }
    oklahoma = _report_folder(tmp_path, tables, {"rules": "hollywood", "compare": "oklahoma"})
    strategy, checked, text = distill(oklahoma, 10, 1)
    assert [c.proposal.when for c in checked] == [(("oklahoma", True),)]
    assert strategy.for_rules(load_rules("oklahoma")).knock_schedule == ((13, 10), (0, 0))
    assert "when = { oklahoma = true }" in text

    def no_play(*args, **kwargs):
        raise AssertionError("a proposal was played")

    monkeypatch.setattr(module, "check", no_play)
    (tmp_path / "none").mkdir()
    nothing = _report_folder(tmp_path / "none", {"knock-line": _line([10] * 5),
                             "take-cells": _takes(high=0.5)}, {"rules": "hollywood", "compare": "none"})  # fmt: skip
    strategy, checked, text = distill(nothing, 10, 1)
    assert checked == []
    assert "# - the tables proposed no change to how the base plays" in text.splitlines()
    expert = load_strategy("expert")
    for name in ("hollywood", "standard", "oklahoma", "hollywood-gin20"):
        rules = load_rules(name)
        assert (
            strategy.for_rules(rules).to_kernel().tolist()
            == expert.for_rules(rules).to_kernel().tolist()
        )


def _edit(folder, name: str, **columns) -> None:
    """Rewrite the table ``name`` of ``folder`` with ``columns`` replaced (as text)."""
    table = pd.read_csv(folder / f"{name}.csv", dtype=str, keep_default_na=False)
    for column, values in columns.items():
        table[column] = values
    table.to_csv(folder / f"{name}.csv", index=False)


# case -> (edit of the three-proposal report folder, the error's text after its path)
_REFUSED = {
    "above 10": (("knock-line", "threshold", ["10", "11", "0", "0", "0"]),
                 ": row 2, column 'threshold' = 11: allowed a whole number -1 to 10"),
    "below -1": (("knock-line", "threshold", ["10", "10", "-2", "0", "0"]),
                 ": row 3, column 'threshold' = -2: allowed a whole number -1 to 10"),
    "fraction": (("knock-line", "threshold", ["10", "10", "0", "3.5", "0"]),
                 ": row 4, column 'threshold' = 3.5: allowed a whole number -1 to 10"),
    "count": (("knock-line", "positions", ["200", "200", "100", "100", "2.5"]),
              ": row 5, column 'positions' = 2.5: allowed a whole number 0 or more"),
    "text": (("take-cells", "mean", ["8.0", "many"]),
             ": row 2, column 'mean' = 'many': allowed a number"),
    "band": (("knock-line", "stock_band", ["25-31", "20-24", "13-18", "7-12", "0-6"]),
             " has an unknown stock band '20-24' in column 'stock_band': allowed "
             "0-6, 13-18, 19-24, 25-31, 7-12"),
    "rules": (("knock-line-by-rules", "rules", ["standard"] * 4 + ["oklahoma"]),
              " has the rule set 'oklahoma', which the report neither plays nor compares: "
              "allowed hollywood, standard"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(_REFUSED))
def test_a_table_holding_what_the_report_never_writes_is_refused_by_row_and_column(tmp_path, case):
    """One-line errors that name the file, the row (counted from 1 below the header), the
    column, the value and what is allowed."""
    (name, column, values), text = _REFUSED[case]
    folder = _three_proposals(tmp_path)
    _edit(folder, name, **{column: values})
    with pytest.raises(ConfigError) as error:
        read_report_tables(folder)
    assert str(error.value) == f"{folder / name}.csv{text}"  # 11, not np.int64(11)


def test_a_report_folder_missing_a_part_is_refused_by_name(tmp_path):
    """A table without its columns or rows, a missing or unreadable table, a mark without
    the report's rule sets or naming one unknown here: each refused in one line that names
    the file (``report advice`` leaves none of these)."""
    import json

    folder = _three_proposals(tmp_path)
    mark = folder / ".gin-sim.json"
    record = json.loads(mark.read_text())

    def refused() -> str:
        with pytest.raises(ConfigError) as error:
            read_report_tables(folder)
        return str(error.value)

    line = folder / "knock-line.csv"
    kept = line.read_text()
    line.write_text("stock_band\n25-31\n")
    assert (
        refused() == f"{line} lacks the columns positions, threshold: not an advice report's table"
    )
    line.write_text("stock_band,threshold,positions\n")
    assert refused() == f"{line} has no rows: not a finished advice report's table"
    damaged = b'stock_band,threshold\n"25-31,\x00\xff'
    line.write_bytes(damaged)
    try:
        pd.read_csv(io.BytesIO(damaged))
    except ValueError as error:  # pandas' own words, on one line
        said = " ".join(str(error).split())
    assert refused() == f"cannot read {line}: {said}"
    line.write_text(kept)
    takes = folder / "take-cells.csv"
    takes.unlink()
    assert refused() == f"{takes} is missing: the advice report is incomplete"
    _takes(high=-0.5).to_csv(takes, index=False)
    for options in ({"rules": "hollywood"}, {"compare": "none"}):
        mark.write_text(json.dumps(record | {"options": options}))
        assert refused() == f"{mark} lacks the report's rules: write it again"
    mark.write_text(json.dumps(record | {"options": {"rules": "hollywood", "compare": "nosuch"}}))
    with pytest.raises(ConfigError) as unknown:
        load_rules("nosuch")
    assert refused() == f"{mark}: {unknown.value}"
    mark.write_text(json.dumps(record | {"kind": "report knock"}))
    assert refused() == (
        f"{folder} is not a finished report advice folder: give one that "
        "`gin-sim report advice --out` wrote"
    )


def test_a_report_folder_read_as_the_report_writes_it(tmp_path):
    """What the report may write is read: odd counts and thresholds, -1 (no fit) and 0
    positions, an empty interval end, several compared rule sets (``--compare`` by
    commas), and no take cells by stock band (an older report: no take schedule, the
    compared rule sets' lines still read)."""
    import json

    folder = _three_proposals(tmp_path)
    _edit(
        folder,
        "knock-line",
        threshold=["9", "-1", "7", "0", "3"],
        positions=["201", "0", "75", "31", "1"],
    )
    _edit(folder, "take-cells", low=["", "-2.5"])
    by_rules = pd.read_csv(folder / "knock-line-by-rules.csv")
    oklahoma = by_rules.assign(rules="oklahoma")
    pd.concat([by_rules, oklahoma]).to_csv(folder / "knock-line-by-rules.csv", index=False)
    mark = folder / ".gin-sim.json"
    record = json.loads(mark.read_text())
    record["options"]["compare"] = "standard,oklahoma"
    mark.write_text(json.dumps(record))
    tables, own, compared = read_report_tables(folder)
    assert own.name == "hollywood" and [r.name for r in compared] == ["standard", "oklahoma"]
    assert tables["knock-line"]["threshold"].tolist() == [9, -1, 7, 0, 3]
    assert tables["knock-line"]["positions"].tolist() == [201, 0, 75, 31, 1]
    assert set(tables) == {"knock-line", "take-cells", "take-cells-by-stock", "knock-line-by-rules"}
    (folder / "take-cells-by-stock.csv").unlink()
    tables, _, _ = read_report_tables(folder)
    assert set(tables) == {"knock-line", "take-cells", "knock-line-by-rules"}
    made = proposals_of_report(folder, "gin-hunter")
    assert [p.rules for p in made] == ["hollywood", "standard", "oklahoma"]


def test_a_kept_change_is_played_by_the_file_as_it_was_checked(tmp_path, monkeypatch):
    """What ``check`` plays for a proposal (the base as it plays under the proposal's rule
    set, with the change) is what the distilled file plays there once the change is kept:
    under every rule set that checked changes, the file's strategy is the base's there
    with each change checked there, the schedules tuples as a strategy file loads them.
    A report under standard (undercut bonus 25) is the case where expert's own [[adapt]]
    table (undercut bonuses of 20 or more) sets the same keys as the report's top-level
    changes: the file must not let that table hide them under standard. Play is replaced
    by a made-up winning gain (every proposal kept); each game runs on the threads given."""
    import gin_sim.experiments.distill as module
    from gin_sim.experiments.summary import Estimate

    played = []

    def recorded(rules, players, deals, seed, threads=None):
        played.append((rules, players, threads))
        return None

    def winning(frame, seat):
        return {"net points per hand": Estimate(2.0, 0.5, 100, (0.5 / 1.96) ** 2)}

    monkeypatch.setattr(module, "head_to_head", recorded)
    monkeypatch.setattr(module, "player_summary", winning)
    expert = load_strategy("expert")
    # under standard: the knock line (10 everywhere), the take rule off and a take
    # schedule (melds gain, no lowering does), all at the top level; under hollywood
    # comparing standard: the three proposals of _three_proposals
    by_stock = _cells(dict.fromkeys(BANDS, ((8.0, 100), (-1.0, 100), (-1.0, 100))))
    (tmp_path / "standard").mkdir()
    standard = _report_folder(
        tmp_path / "standard",
        {"knock-line": _line([10] * 5), "take-cells": _takes(high=-0.5),
         "take-cells-by-stock": by_stock},
        {"rules": "standard", "compare": "none"},
    )  # fmt: skip
    (tmp_path / "hollywood").mkdir()
    for folder, checked_under in (
        (standard, ["standard"]),
        (_three_proposals(tmp_path / "hollywood"), ["hollywood", "standard"]),
    ):
        played.clear()
        strategy, checked, _ = distill(folder, 50, 3, threads=2)
        assert all(c.kept for c in checked) and len(played) == len(checked) >= 2
        for name in checked_under:
            rules = load_rules(name)
            as_base = expert.for_rules(rules)
            expected = as_base
            for under, (changed, base), threads in played:
                assert base == expert and threads == 2
                if under == rules:  # this proposal's change, as check played it
                    differs = {
                        f.name: getattr(changed, f.name)
                        for f in fields(Strategy)
                        if f.name != "name" and getattr(changed, f.name) != getattr(as_base, f.name)
                    }
                    assert differs  # a proposal is made only where it changes the play
                    expected = replace(expected, **differs)
            assert replace(strategy.for_rules(rules), name="x", description="x") == replace(
                expected, name="x", description="x"
            )


def test_the_take_rule_cell_at_its_edges():
    """The take rule is turned off when the take cell's interval lies below 0 (R-free: a
    reading of the table): an interval whose high end is exactly 0 holds 0 and proposes
    nothing; any take score above 0 is a rule that can be turned off (a base taking for a
    lowering of 1 or more is offered ``take_min_gain = 0`` as expert is)."""
    expert, tables = load_strategy("expert"), {"knock-line": _line([10] * 5)}

    def made(high: float, base: Strategy) -> list:
        takes = {"take-cells": _takes(high=high)}
        return [dict(p.changes) for p in proposals(tables | takes, HOLLYWOOD, [], base)]

    assert made(0.0, expert) == []
    assert made(-0.01, expert) == [{"take_min_gain": 0.0}]
    for score in (1.0, 0.5):
        assert made(-0.5, replace(expert, take_min_gain=score)) == [{"take_min_gain": 0.0}]
    assert made(-0.5, replace(expert, take_min_gain=0.0)) == []  # already off


def test_a_take_schedule_is_compared_with_one_the_bases_adapt_table_sets():
    """A base whose [[adapt]] table sets a take schedule under the report's rule set
    (here: never take, under undercut bonuses of 20 or more) plays that schedule there, so
    cells that say "take melds and lowerings by the base's score" there are a change: the
    proposal is compared with the base as it plays under the rule set, and the candidate
    carries no [[adapt]] table that would hide its own schedule."""
    config = load_strategy("expert").to_config()
    never = {"when": {"undercut_bonus": [20, 1000]}, "take_schedule": [[0, False, 0.0]]}
    base = strategy_from_dict(config | {"adapt": [*config["adapt"], never]}, "test")
    standard = load_rules("standard")
    assert base.for_rules(standard).take_schedule == ((0, False, 0.0),)
    tables = {
        "knock-line": _line([10] * 5),
        "take-cells": _takes(high=0.5),
        "take-cells-by-stock": _cells(dict.fromkeys(BANDS, ((8.0, 100), (1.0, 100), (-0.5, 100)))),
    }
    made = [p for p in proposals(tables, standard, [], base) if p.changes[0][0] == "take_schedule"]
    assert made == [
        Proposal(
            "standard", (), (("take_schedule", [[0, True, 8.0]]),),
            "standard's take-or-draw cells by stock band",
        )
    ]  # fmt: skip


def test_each_compared_rule_set_is_read_on_its_own():
    """Each compared rule set is read apart from the others: one that differs from the
    report's own in no rule key (a renamed copy) gets no [[adapt]] condition that could
    hold only for it, so it proposes nothing (a line without a condition would be read as
    the report's own); one without rows in the by-rules table proposes nothing; neither
    stops the rule sets after it. Without a by-rules table no compared rule set proposes."""
    expert = load_strategy("expert")
    twin = replace(HOLLYWOOD, name="twin")
    oklahoma, standard = load_rules("oklahoma"), load_rules("standard")
    line = _line([10, 0, 0, 0, 6], (200, 200, 100, 100, 50))
    tables = {
        "knock-line": _line([10] * 5),  # as expert plays under hollywood: no change
        "take-cells": _takes(high=0.5),
        "knock-line-by-rules": pd.concat(
            [line.assign(rules="twin"), line.assign(rules="standard")]
        ),
    }
    made = proposals(tables, HOLLYWOOD, [twin, oklahoma, standard], expert)
    assert [(p.rules, p.when, dict(p.changes)) for p in made] == [
        ("standard", (("undercut_bonus", (25, 25)),), {"knock_schedule": [[25, 10], [7, 0], [0, 6]]}),
    ]  # fmt: skip
    without = {k: v for k, v in tables.items() if k != "knock-line-by-rules"}
    assert proposals(without, HOLLYWOOD, [oklahoma, standard], expert) == []


def test_a_distilled_strategy_the_loader_refuses_is_named_in_the_error(tmp_path, monkeypatch):
    """A report that compares many rule sets can keep more [[adapt]] tables than a strategy
    may hold (``MAX_ADAPTATIONS``, 64): the error is the loader's one line, naming the
    distilled strategy. Shown at a limit of 1: expert's own table and standard's kept line
    are two (play replaced by a made-up winning gain)."""
    import gin_sim.experiments.distill as module
    import gin_sim.players.strategies as strategies
    from gin_sim.experiments.distill import Checked
    from gin_sim.experiments.summary import Estimate

    def made_up(base, proposal, rules, deals, seed, comparisons, threads=None):
        return Checked(proposal, Estimate(2.0, 0.5, deals, 0.06), True)

    monkeypatch.setattr(module, "check", made_up)
    monkeypatch.setattr(strategies, "MAX_ADAPTATIONS", 1)
    with pytest.raises(ConfigError) as error:
        distill(_three_proposals(tmp_path), 10, 1)
    assert str(error.value) == "adapt in the distilled strategy has 2 tables: allowed at most 1"
