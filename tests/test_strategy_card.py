"""The strategy card (issue 43): verdicts read off the cells, rules of thumb derived by
code and true of every cell they cover, close calls with the deals that would separate
them, the published cards against the published run's CSV files, and ``gin-sim card``."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from gin_sim.experiments.advice import CARD_DOES, DETECTABLE_SES, MIN_CELL_POSITIONS
from gin_sim.experiments.summary import Z95
from gin_sim.interfaces.cli import app
from gin_sim.reports.card import (
    BANDS,
    CLOSE,
    DRAW,
    KNOCK,
    NO_DATA,
    PASS,
    PLAY_ON,
    TAKE,
    build_card,
    card_json,
    card_markdown,
    deals_to_separate,
    knock_summary,
    rule_holds,
    verdict,
)

ROOT = Path(__file__).resolve().parents[1]
PUBLISHED = ROOT / "docs" / "advice-run"
CARDS = ROOT / "docs" / "cards"
RULE_SETS = ("hollywood", "hollywood-gin20", "standard", "oklahoma")


def _knock_table(gain, positions=400, half=0.5) -> pd.DataFrame:
    """Knock cells of every band and deadwood 0 to 10 with gain(band index, deadwood)."""
    rows = []
    for b, band in enumerate(BANDS):
        for d in range(11):
            mean = gain(b, d)
            rows.append(
                dict(stock_band=band, deadwood=d, positions=positions, mean=mean,
                     half_width=half, low=mean - half, high=mean + half, n=positions)
            )  # fmt: skip
    return pd.DataFrame(rows)


def _take_table(gain, offer=None, positions=400, half=0.5) -> pd.DataFrame:
    rows = []
    for b, band in enumerate(BANDS):
        for does in CARD_DOES:
            mean = gain(b, does)
            rows.append(
                dict(kind="draw", stock_band=band, card_does=does, positions=positions,
                     mean=mean, half_width=half, low=mean - half, high=mean + half, n=positions)
            )  # fmt: skip
    for does in CARD_DOES:
        mean = (offer or (lambda d: -2.0))(does)
        rows.append(
            dict(kind="offer", stock_band=BANDS[0], card_does=does, positions=positions,
                 mean=mean, half_width=half, low=mean - half, high=mean + half, n=positions)
        )  # fmt: skip
    return pd.DataFrame(rows)


def _card(knock, take, offer=None, deals=20_000):
    return build_card(
        "hollywood", "mc", "mc", deals, 1, "a test", "test cells",
        _knock_table(knock), _take_table(take, offer),
    )  # fmt: skip


# The published run's shape: knock early, a rising line mid-hand, gin only late; take a
# meld card until the last cards, nothing else.
def _published_like_knock(band: int, deadwood: int) -> float:
    if deadwood == 0:
        return 20.0
    if band == 0:
        return 1.0 + 0.3 * deadwood
    if band == 1:
        return -2.0 if deadwood <= 5 else (0.0 if deadwood == 6 else 0.7)
    return -3.0 - band


def _published_like_take(band: int, does: str) -> float:
    if does == CARD_DOES[0]:
        return 7.0 if band < 4 else -2.4
    return -2.0


# ---------------------------------------------------------------------------- verdicts
def test_a_verdict_holds_only_where_the_interval_excludes_0():
    assert verdict("knock", 1.0, 0.1, 1.9, 100) == KNOCK
    assert verdict("knock", -1.0, -1.9, -0.1, 100) == PLAY_ON
    assert verdict("knock", 0.5, -0.1, 1.1, 100) == CLOSE
    assert verdict("knock", 0.5, 0.0, 1.0, 100) == CLOSE  # 0 on the edge is held
    assert verdict("take", 1.0, 0.1, 1.9, 100) == TAKE
    assert verdict("take", -1.0, -1.9, -0.1, 100) == DRAW
    assert verdict("first upcard", -1.0, -1.9, -0.1, 100) == PASS


def test_a_thin_cell_is_close_whatever_its_interval():
    assert verdict("knock", 9.0, 8.0, 10.0, MIN_CELL_POSITIONS - 1) == CLOSE
    assert verdict("knock", 9.0, 8.0, 10.0, MIN_CELL_POSITIONS) == KNOCK
    assert verdict("knock", 9.0, math.nan, math.nan, 100) == CLOSE
    assert verdict("knock", math.nan, math.nan, math.nan, 0) == NO_DATA


def test_the_deals_that_separate_a_close_call():
    # se = 1 at 1,000 deals, gain 1: (2.80 * 1 / 1)^2 = 7.84 times the deals
    assert deals_to_separate(1.0, Z95, 1000) == math.ceil(1000 * DETECTABLE_SES**2)
    assert deals_to_separate(-1.0, Z95, 1000) == deals_to_separate(1.0, Z95, 1000)
    # a gain twice as large needs a quarter of the deals
    assert deals_to_separate(2.0, Z95, 1000) == math.ceil(1000 * DETECTABLE_SES**2 / 4)
    assert deals_to_separate(0.0, Z95, 1000) is None  # a tie
    assert deals_to_separate(0.01, Z95, 1000) is None  # beyond 100 times the run
    assert deals_to_separate(1.0, math.nan, 1000) is None


# ---------------------------------------------------------------------------- rules
def test_rules_of_thumb_of_the_published_shape():
    card = _card(_published_like_knock, _published_like_take)
    texts = [rule.text for rule in card.rules_of_thumb]
    assert texts == [
        "With 25 or more cards left, knock whenever you can.",
        "With 19 to 24 cards left, knock with 7 or more deadwood; with 5 or less, play on for gin.",
        "With 18 or fewer cards left, knock only with gin; otherwise play on.",
        "Take a discard that completes a meld while 7 or more cards are left; with 6 or "
        "fewer, draw from the stock.",
        "Never take a discard that completes no meld: draw from the stock.",
        "On the first upcard, pass on any card.",
    ]
    assert all(rule_holds(rule, card) for rule in card.rules_of_thumb)
    assert card.cell("knock", "6", "19-24").verdict == CLOSE
    assert knock_summary(card.cells) == (
        "25-31 cards left: knock at any deadwood; 19-24 cards left: knock at 7 or more "
        "(play on at 5 or less); 13-18 cards left: only gin; 7-12 cards left: only gin; "
        "0-6 cards left: only gin"
    )


def test_a_rule_that_a_cell_contradicts_does_not_hold():
    card = _card(_published_like_knock, _published_like_take)
    rule = card.rules_of_thumb[0]  # knock whenever you can with 25 or more cards left
    flipped = _card(
        lambda b, d: -1.0 if (b, d) == (0, 4) else _published_like_knock(b, d),
        _published_like_take,
    )
    assert not rule_holds(rule, flipped)
    # ... and that band gets no 'whenever' rule of its own: it is mixed now
    assert all("25 or more" not in r.text for r in flipped.rules_of_thumb)


def test_rules_never_cover_a_cell_with_another_verdict_and_mixed_bands_get_none():
    def zigzag(band, deadwood):
        return 1.0 if deadwood % 2 else -1.0

    card = _card(zigzag, _published_like_take)
    assert not any(r.covers[0][0] == "knock" for r in card.rules_of_thumb)
    assert knock_summary(card.cells) == "every stock band: mixed"


def test_a_card_of_close_cells_says_so():
    card = _card(lambda b, d: 0.0, lambda b, d: 0.0, lambda d: 0.0)
    assert card.rules_of_thumb == []
    assert all(c.verdict == CLOSE for c in card.cells)
    text = card_markdown(card)
    assert "cells are close" in text and "a tie" in text


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from([1.0, -1.0, 0.0]), min_size=len(BANDS) * 11,
             max_size=len(BANDS) * 11),
    st.lists(st.sampled_from([1.0, -1.0, 0.0]), min_size=len(BANDS) * 4,
             max_size=len(BANDS) * 4),
    st.lists(st.sampled_from([1.0, -1.0, 0.0]), min_size=4, max_size=4),
)  # fmt: skip
def test_every_derived_rule_holds_for_every_clear_cell_it_covers(knock, take, offer):
    # An independent reading of the cells: a gain of +-1 with half width 0.5 is clear,
    # 0 is close; the rule must state the clear cell's own sign.
    card = _card(
        lambda b, d: knock[b * 11 + d],
        lambda b, does: take[b * 4 + CARD_DOES.index(does)],
        lambda does: offer[CARD_DOES.index(does)],
    )
    assert len(card.rules_of_thumb) <= 6
    acting = {KNOCK, TAKE}
    for rule in card.rules_of_thumb:
        clear = 0
        for grid, row, column, wanted in rule.covers:
            if grid == "knock":
                gain = knock[BANDS.index(column) * 11 + int(row)]
            elif grid == "take":
                gain = take[BANDS.index(column) * 4 + CARD_DOES.index(row)]
            else:
                gain = offer[CARD_DOES.index(row)]
            if gain != 0.0:
                clear += 1
                assert (gain > 0) == (wanted in acting), (rule.text, grid, row, column)
        assert clear > 0


# ---------------------------------------------------------------------------- output
def test_the_json_has_every_cell_and_every_rule_with_its_cells():
    card = _card(_published_like_knock, _published_like_take)
    document = json.loads(json.dumps(card_json(card), allow_nan=False))
    assert len(document["cells"]) == len(BANDS) * 11 + len(BANDS) * 4 + 4
    knock = [c for c in document["cells"] if c["grid"] == "knock"]
    assert {(c["cards_left"], c["deadwood"]) for c in knock} == {
        (b, d) for b in BANDS for d in range(11)
    }
    for rule in document["rules_of_thumb"]:
        assert rule["cells"], rule["text"]
        for covered in rule["cells"]:
            match = [
                c for c in document["cells"]
                if all(c.get(k) == v for k, v in covered.items() if k != "verdict")
            ]  # fmt: skip
            assert len(match) == 1
            assert match[0]["verdict"] in (covered["verdict"], CLOSE)


# ---------------------------------------------------------------------------- published
def _recomputed_verdicts(rules: str) -> dict[tuple[str, str, str], str]:
    """The verdict of every cell of the published run, recomputed from its CSV files by
    this test's own reading of the significance rule: the knock cells of the run's own rule
    set (hollywood) from ``knock-cells-by-play`` (valued by play, issue 47), the others'
    from ``knock-cells-by-rules``."""
    verdicts = {}
    by = "play" if rules == "hollywood" else "rules"
    knock = pd.read_csv(PUBLISHED / f"knock-cells-by-{by}.csv")
    take = pd.read_csv(PUBLISHED / "take-cells-by-rules.csv")
    for r in knock[knock["rules"] == rules].itertuples():
        clear = r.positions >= MIN_CELL_POSITIONS and (r.low > 0 or r.high < 0)
        word = "" if r.positions == 0 else (KNOCK if r.low > 0 else PLAY_ON) if clear else CLOSE
        verdicts[("knock", str(r.deadwood), r.stock_band)] = word
    for r in take[take["rules"] == rules].itertuples():
        if r.kind == "offer" and r.positions == 0:
            continue
        clear = r.positions >= MIN_CELL_POSITIONS and (r.low > 0 or r.high < 0)
        no = PASS if r.kind == "offer" else DRAW
        word = "" if r.positions == 0 else (TAKE if r.low > 0 else no) if clear else CLOSE
        grid, column = (
            ("first upcard", "first upcard") if r.kind == "offer" else ("take", r.stock_band)
        )
        verdicts[(grid, r.card_does, column)] = word
    return verdicts


def _key(cell: dict) -> tuple[str, str, str]:
    if cell["grid"] == "knock":
        return ("knock", str(cell["deadwood"]), cell["cards_left"])
    if cell["grid"] == "take":
        return ("take", cell["card"], cell["cards_left"])
    return ("first upcard", cell["card"], "first upcard")


@pytest.mark.parametrize("rules", RULE_SETS)
def test_each_published_card_agrees_with_the_published_cells(rules):
    document = json.loads((CARDS / f"card-{rules}.json").read_text())
    recomputed = _recomputed_verdicts(rules)
    cells = {_key(c): (c["verdict"] or "") for c in document["cells"]}
    assert cells == recomputed
    assert 3 <= len(document["rules_of_thumb"]) <= 6
    for rule in document["rules_of_thumb"]:
        for covered in rule["cells"]:
            found = recomputed[_key(covered)]
            assert found in (covered["verdict"], CLOSE, ""), (rule["text"], covered)
        assert len(rule["text"].split()) <= 40


@pytest.mark.parametrize("rules", RULE_SETS)
def test_each_published_card_has_its_pages(rules):
    for suffix in ("png", "svg", "md"):
        assert (CARDS / f"card-{rules}.{suffix}").stat().st_size > 1000


def test_the_readme_shows_the_published_cards():
    readme = (ROOT / "README.md").read_text()
    assert "docs/cards/card-hollywood.png" in readme
    for rules in RULE_SETS:
        assert f"docs/cards/card-{rules}" in readme
    # the README's rules of thumb are the hollywood card's, word for word
    between = readme.split("<!-- advice-headlines:start -->")[1].split(
        "<!-- advice-headlines:end -->"
    )[0]
    shown = [line[4:-2] for line in between.strip().splitlines()]
    card = json.loads((CARDS / "card-hollywood.json").read_text())
    assert shown == [rule["text"] for rule in card["rules_of_thumb"]]


# ---------------------------------------------------------------------------- command
runner = CliRunner()


def test_card_prints_the_published_card():
    result = runner.invoke(
        app, ["card", str(PUBLISHED), "--rules", "hollywood", "--advised-decks", "0"]
    )
    assert result.exit_code == 0, result.output
    assert result.output.startswith("# Strategy card: hollywood, against mc")
    assert "## Rules of thumb" in result.output and "## Knock or play on" in result.output


def test_card_json_lists_every_rule_set():
    result = runner.invoke(app, ["card", str(PUBLISHED), "--json", "--advised-decks", "0"])
    assert result.exit_code == 0, result.output
    assert [c["rules"] for c in json.loads(result.output)] == list(RULE_SETS)


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        (["--rules", "no-such-rules"], "no-such-rules"),
        (["--rules", "hollywood,,standard"], "single commas"),
        (["--rules", "hollywood,hollywood"], "named twice"),
        (["--advised-decks", "1"], "advised decks"),
    ],
)
def test_card_refuses_bad_options_in_one_line(arguments, words):
    result = runner.invoke(app, ["card", str(PUBLISHED), *arguments])
    assert result.exit_code == 2
    assert words in result.output and result.output.count("\n") == 1


def test_card_refuses_a_folder_that_is_not_an_advice_report(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    result = runner.invoke(app, ["card", str(tmp_path), "--advised-decks", "0"])
    assert result.exit_code == 2 and "not a finished report advice folder" in result.output
    assert result.output.count("\n") == 1


def test_card_out_writes_the_pages_and_never_into_a_users_folder(tmp_path):
    out = tmp_path / "cards"
    args = ["card", str(PUBLISHED), "--rules", "standard", "--advised-decks", "0"]
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    written = sorted(p.name for p in out.iterdir() if not p.name.startswith("."))
    assert written == [f"card-standard.{s}" for s in ("json", "md", "png", "svg")] + [
        "report.json", "report.md"
    ]  # fmt: skip
    text = (out / "report.md").read_text()
    assert text.startswith("# Strategy cards: against mc, standard\n\nAgainst mc under standard: ")
    assert text.index("![card-standard](card-standard.png)") < text.index("## What was run")
    first = {p.name: p.read_bytes() for p in out.iterdir()}
    again = runner.invoke(app, [*args, "--out", str(out)])
    assert again.exit_code == 0
    assert {p.name: p.read_bytes() for p in out.iterdir()} == first
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "keep.txt").write_text("mine")
    refused = runner.invoke(app, [*args, "--out", str(mine)])
    assert refused.exit_code == 2 and (mine / "keep.txt").read_text() == "mine"
    assert sorted(p.name for p in mine.iterdir()) == ["keep.txt"]


def test_the_card_page_is_the_same_bytes_from_the_same_cells(tmp_path):
    card = _card(_published_like_knock, _published_like_take)
    from gin_sim.reports.card import draw_card

    draw_card(card, [tmp_path / "a.png", tmp_path / "a.svg"])
    draw_card(card, [tmp_path / "b.png", tmp_path / "b.svg"])
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()
    assert (tmp_path / "a.svg").read_bytes() == (tmp_path / "b.svg").read_bytes()
    assert np.frombuffer((tmp_path / "a.png").read_bytes()[:8], np.uint8)[1] == ord("P")


# ------------------------------------------------------------- the check's caveat
def _check(means: list[float], flags: list[bool], policies: bool = False) -> pd.DataFrame:
    cells = ["knock, deadwood 1 to 5", "knock, deadwood 6 to 10", "take or draw, x"]
    frame = pd.DataFrame(
        {
            "cell": cells[: len(means)],
            "difference_mean": means,
            "difference_low": [m - 0.5 for m in means],
            "difference_high": [m + 0.5 for m in means],
            "flagged": flags,
        }
    )
    if policies:
        frame = frame.assign(
            policies_mean=[m / 2 for m in means],
            policies_low=[m / 2 - 0.25 for m in means],
            policies_high=[m / 2 + 0.25 for m in means],
        )
    return frame


def test_the_check_caveat_says_which_way_play_differs():
    """``check_caveat``: only flagged knock cells, the way real play differs from the
    search (a take cell or an unflagged knock cell never counts), and the policies' part
    where the check was split (issue 47)."""
    from gin_sim.reports.card import check_caveat

    assert check_caveat(_check([1.3, 3.4, 9.0], [False, False, True]), "mc") == ""
    more = check_caveat(_check([1.3, 3.4], [True, True]), "mc")
    assert more == (
        "In mc's own play, knocking was worth more than these cells say (checked against "
        "play, real less search, points per hand: deadwood 1 to 5: +1.3 (+0.8 to +1.8); "
        "deadwood 6 to 10: +3.4 (+2.9 to +3.9)), so a PLAY ON cell near 0 may be a knock."
    )
    less = check_caveat(_check([-1.3, 3.4], [True, False]), "mc")
    assert "worth less than" in less and "6 to 10" not in less
    assert less.endswith("so a KNOCK cell near 0 may be a play on.")
    mixed = check_caveat(_check([-1.3, 3.4], [True, True], policies=True), "mc")
    assert "worth more or less than" in mixed and mixed.endswith("may go either way.")
    assert "the search's rollout policies against the real players, from the same cards: " in mixed
    assert "deadwood 1 to 5: -0.7 (-0.9 to -0.4); deadwood 6 to 10: +1.7 (+1.4 to +1.9)" in mixed


def test_the_rules_of_thumb_fit_between_the_take_grid_and_the_notes():
    """The published hollywood card's six long rules (a dozen lines) and its three notes
    once ran into each other on the page: the rules' text lies below the take grid and
    above the notes, and within the page."""
    from gin_sim.reports.card import card_page, read_cards
    from gin_sim.reports.figures import _pyplot

    card = read_cards(ROOT / "docs" / "advice-run", ["hollywood"])[0]
    assert len(card.rules_of_thumb) == 6 and card.caveat
    card.caveat += " " + card.caveat  # longer notes than any published card
    fig = card_page(card)
    try:
        renderer = fig.canvas.get_renderer()
        texts = {t.get_gid(): t.get_window_extent(renderer) for t in fig.texts if t.get_gid()}
        rules, notes = texts["rules"], texts["notes"]
        take_grid = min(ax.get_window_extent(renderer).y0 for ax in fig.axes[1:])
        assert notes.y1 < rules.y0 and rules.y1 < take_grid
        assert rules.x1 < fig.bbox.x1 and notes.y0 > 0
    finally:
        _pyplot().close(fig)
