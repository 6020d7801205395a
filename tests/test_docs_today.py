"""The docs describe the product as it is today (issue 44, part B).

A page of the README or of docs/ says what gin-sim does, how to use it and today's figures
with the command that reproduces each. It does not narrate its own history: no dates, no
clock times of runs, no working periods or sessions, no commits named as the code a figure
was measured on, no "the run before took ...". That history is in CHANGELOG.md and git.

Pages checked: README.md and every Markdown page under docs/, less the published runs'
generated reports (docs/advice-run, docs/cards, docs/default-run, docs/search-tournament),
which name the command and seed that made them. CHANGELOG.md is history on purpose.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
GENERATED = ("advice-run", "cards", "default-run", "search-tournament")
TESTING_PAGE_MAX_LINES = 220


def pages() -> list[Path]:
    """README.md and the hand-written pages of docs/, at any depth."""
    found = [ROOT / "README.md"]
    for page in sorted(DOCS.rglob("*.md")):
        if page.relative_to(DOCS).parts[0] not in GENERATED:
            found.append(page)
    return found


# Each pattern names a way a page narrates its history; the examples in
# test_the_patterns_catch_narration are sentences the pages held before they were rewritten.
HISTORY = {
    "a date": r"\b20\d\d-[01]\d-[0-3]\d\b",
    "a clock time": r"\b[0-2]?\d:[0-5]\d(?::[0-5]\d)? ?UTC\b|\b(?:at|from|to|until) [0-2]?\d:[0-5]\d\b",
    "a working period or session": r"\bworking periods?\b|\bsessions?\b",
    "a run named by its period": r"\bthe (?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth)'s\b",
    "a time of day": r"\b(?:morning|evening|afternoon|overnight|yesterday)\b|\bthe (?:day|night) before\b",
    "an earlier measurement": (
        r"\bbefore measured\b|\bmeasured before\b"
        r"|\bthe (?:run|session|version|code|day) before\b"
        r"|\b(?:an|the) (?:earlier|previous) (?:run|version|measurement|session)\b"
        r"|\bwhen (?:it|this|they) (?:was|were) (?:measured|written|run)\b"
    ),
    "a commit named": r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b",
}
_HISTORY = re.compile("|".join(f"(?:{p})" for p in HISTORY.values()), re.I)


def narration(text: str) -> list[str]:
    """Each line of `text` that narrates history, with the words that give it away."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        words = [m.group(0) for m in _HISTORY.finditer(line)]
        if words:
            found.append(f"{number}: {words} in {line.strip()[:120]}")
    return found


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_page_narrates_its_history(page):
    assert narration(page.read_text()) == [], "history belongs in CHANGELOG.md and git"


def test_the_testing_page_is_short():
    lines = (DOCS / "testing.md").read_text().count("\n")
    assert lines < TESTING_PAGE_MAX_LINES, f"docs/testing.md has {lines} lines"


def test_the_checked_pages_are_the_hand_written_ones():
    names = {str(p.relative_to(ROOT)) for p in pages()}
    assert {"README.md", "docs/testing.md", "docs/reports.md", "docs/advice.md"} <= names
    assert not any(part in name for name in names for part in GENERATED if "/" + part + "/" in name)
    assert "CHANGELOG.md" not in names


@pytest.mark.parametrize(
    "sentence",
    [
        "**Where each module stands** (2026-12-03, 13:10 UTC): the last complete run",
        "| `experiments/distill` | 783 | 764 | **97.6%** | eighth session (the fifth's run, updated",
        "and 4 min 8 s and 4 min 16 s on a middling host the evening before",
        "(down to 0.46 of a fast morning's kernel speed, where the host ran at 1.51)",
        "The session before measured 18.2 games/s.",
        "the run before, on the same cores shared with four other sessions, took 52 min.",
        "  make mutate MODULES=experiments/positions                   # 11:35 to 12:03",
        "the code before (87b6a4c) took **320.5 s** and after (ca0ead6) **299.6 s**",
        "A working period later the figure was 3.2.",
        "mutmut 3 (3.8.1 when this was written) rewrites every function",
    ],
)
def test_the_patterns_catch_narration(sentence):
    assert narration(sentence), sentence


@pytest.mark.parametrize(
    "sentence",
    [
        "`make run` and `make test` each stay within 6 minutes on 2 cores from a fresh clone.",
        "Today's figures on this 2-core host: `make run` about **4 min 8 s**.",
        "| `experiments/positions` | 1,396 | 1,343 | **96.2%** | `make mutate MODULES=experiments/positions` |",
        "`gin-sim card docs/advice-run --out docs/cards` with seed 2026 and 10,000 deals",
        "a hand of AS 2S 3S 4H 4D 4C 9H TH JH QS, deadwood 10, and 0.95 of the deals",
        "The check flags the search's knock values even with the right opponent model.",
        "`--deals 200000 --seed 1 --threads 2`; a game to 100 played in 1:30 of a minute",
    ],
)
def test_the_patterns_spare_todays_facts(sentence):
    assert narration(sentence) == [], sentence
