"""The README guides and the reference lives in docs/ (issue 28, part 2).

- README.md stays a guide: at most 300 lines, its strong-play headlines between the markers
  that the lead rewrites from a published advice run.
- Every relative link and image in README.md and docs/*.md points at a file that exists,
  and a link to a heading (``page.md#anchor``) names a heading the page has, as GitHub
  spells its anchors: a page moved into docs/ keeps links written from the root otherwise.
- docs/README.md, the index, lists every page of docs/.
- The README's Python example runs as written.
"""

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
# The pages people write: the docs' top level and its guide and reference folders (the
# published runs' folders are generated, and checked by their own tests).
WRITTEN = [
    *sorted(DOCS.glob("*.md")),
    *sorted(DOCS.glob("guide/*.md")),
    *sorted(DOCS.glob("reference/*.md")),
]
PAGES = [README, *WRITTEN]

README_MAX_LINES = 300

# [text](target) and ![alt](target); the target ends at the first space or ")" (an optional
# "title" after a space is not a path).
_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_FENCE = re.compile(r"^(```|~~~).*?^\1\s*$", re.M | re.S)
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)  # https:, mailto:, ...


def _prose(text: str) -> str:
    """The text without code blocks and code spans, where brackets are not links."""
    return _CODE_SPAN.sub("", _FENCE.sub("", text))


def relative_links(text: str) -> list[str]:
    """Every link target of a Markdown text that is not an external address."""
    return [t for t in _LINK.findall(_prose(text)) if not _EXTERNAL.match(t)]


def heading_anchors(text: str, site: bool = False) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces
    as hyphens, a repeated heading numbered -1, -2, ...; with ``site``, the docs site's
    (Python-Markdown's toc: runs of hyphens and spaces as one hyphen)."""
    anchors: set[str] = set()
    seen: dict[str, int] = {}
    for line in _FENCE.sub("", text).splitlines():
        heading = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not heading:
            continue
        slug = re.sub(r"[^\w\- ]", "", heading.group(1).lower()).replace(" ", "-")
        if site:
            slug = re.sub(r"-+", "-", slug.strip("-"))
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def broken_links(page: Path) -> list[str]:
    """Each relative link of `page` whose file, or heading, does not exist, with why."""
    problems = []
    for target in relative_links(page.read_text()):
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            problems.append(f"{target}: no file {os.path.relpath(file, ROOT)}")
        elif anchor and file.suffix == ".md" and anchor not in heading_anchors(file.read_text()):
            problems.append(f"{target}: {file.name} has no heading with anchor #{anchor}")
        elif (
            anchor
            and file.suffix == ".md"
            and anchor not in heading_anchors(file.read_text(), site=True)
        ):
            problems.append(f"{target}: {file.name}'s anchor #{anchor} is another on the docs site")
    return problems


def test_the_readme_is_a_guide_of_at_most_300_lines():
    lines = README.read_text().count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; move reference to docs/"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    assert broken_links(page) == []


def test_a_broken_link_or_anchor_is_caught(tmp_path):
    """The checker itself: a link to a missing file, to a missing heading, or written from
    the root on a page in docs/, is reported; links in code are not links."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "other.md").write_text("# Other page\n\n## Its `part` (two)\n")
    page = tmp_path / "docs" / "page.md"
    page.write_text(
        "# Page\n[ok](../other.md#its-part-two) [here](#page) [web](https://example.org/x)\n"
        "[gone](missing.md) [no heading](../other.md#nowhere) ![root-relative](docs/x.png)\n"
        "`[in code](nowhere.md)`\n```\n[in a block](nowhere.md)\n```\n"
    )
    problems = broken_links(page)
    assert [p.split(":")[0] for p in problems] == [
        "missing.md",
        "../other.md#nowhere",
        "docs/x.png",
    ]


def test_github_anchors():
    text = "# A `code` title (R12)\n## Same\n## Same\n```\n# not a heading\n```\n"
    assert heading_anchors(text) == {"a-code-title-r12", "same", "same-1"}
    # an option in a heading: GitHub keeps its hyphens, the docs site joins them, so a link
    # to it works in one place only and is refused
    option = "# The tutor: `gin-sim play --tutor`\n"
    assert heading_anchors(option) == {"the-tutor-gin-sim-play---tutor"}
    assert heading_anchors(option, site=True) == {"the-tutor-gin-sim-play-tutor"}


def test_the_index_lists_every_page():
    index = (DOCS / "README.md").read_text()
    listed = {t.partition("#")[0] for t in relative_links(index)}
    pages = [p.relative_to(DOCS).as_posix() for p in WRITTEN if p.name != "README.md"]
    assert [p for p in pages if p not in listed] == []


def test_the_strong_play_headlines_sit_between_their_markers():
    text = README.read_text()
    start, end = "<!-- advice-headlines:start -->", "<!-- advice-headlines:end -->"
    assert text.count(start) == 1 and text.count(end) == 1
    between = text.split(start)[1].split(end)[0]
    assert between.strip().startswith("- **")


def test_the_readme_python_example_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert len(blocks) == 1
    namespace: dict = {}
    exec(blocks[0], namespace)
    assert capsys.readouterr().out == "10\n"
    hands = namespace["hands"]
    assert len(hands) == 10**5 and hands["deal"].tolist() == list(range(10**5))
