"""README.md is the front door and docs/ is behind it: every relative link in them leads
somewhere, to the file and to the heading it names, and the README stays short."""

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
README_MAX_LINES = 420

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)  # a code span may cross a line break
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?")  # [label]: target
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def prose_lines(text):
    """The lines outside fenced code blocks, with their numbers."""
    fenced = None
    for number, line in enumerate(text.splitlines(), 1):
        mark = FENCE.match(line)
        if mark:
            if fenced is None:
                fenced = mark.group(1)
            elif mark.group(1) == fenced:
                fenced = None
            continue
        if fenced is None:
            yield number, line


def slug(heading):
    """The anchor GitHub gives a heading: markup dropped, lower case, punctuation other
    than '-' and '_' removed, each space a '-'."""
    pieces = CODE_SPAN.split(heading)  # prose, fence, code, fence, code, ..., prose
    text = ""
    for index, piece in enumerate(pieces):
        if index % 3 == 0:  # prose: a link keeps its text; tags and emphasis go
            piece = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", piece)
            piece = re.sub(r"<[^>]+>", "", piece)
            piece = re.sub(r"\*+|(?<!\w)_+|_+(?!\w)", "", piece)
        if index % 3 != 1:
            text += piece
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def anchors(path):
    """Every anchor of a Markdown file; a repeated heading gets -1, -2, ... as on GitHub."""
    seen, found = {}, set()
    for _, line in prose_lines(path.read_text(encoding="utf-8")):
        match = HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def paragraphs(path):
    """(first line number, text) of each run of prose lines: a link may span a line break."""
    start, lines, previous = None, [], None
    for number, line in prose_lines(path.read_text(encoding="utf-8")):
        if lines and (not line.strip() or number != previous + 1):
            yield start, "\n".join(lines)
            lines = []
        if line.strip():
            start = number if not lines else start
            lines.append(line)
        previous = number
    if lines:
        yield start, "\n".join(lines)


def links(path):
    """(line number, target) of every link and link definition in path, outside code."""
    for number, text in paragraphs(path):
        for offset, line in enumerate(text.split("\n")):
            definition = DEFINITION.match(line)
            if definition:
                yield number + offset, definition.group(1)
        text = CODE_SPAN.sub("code", text)
        for match in LINK.finditer(text):
            yield number + text.count("\n", 0, match.start()), match.group(1)


def broken_links(page, anchor_cache):
    broken = []
    for number, target in links(page):
        if not target or SCHEME.match(target):
            continue
        file_part, _, anchor = target.partition("#")
        destination = (page.parent / file_part).resolve() if file_part else page
        where = f"{page.relative_to(REPO)}:{number}: {target}"
        if not destination.exists():
            broken.append(f"{where} (no such file)")
        elif anchor and destination.suffix == ".md":
            if destination not in anchor_cache:
                anchor_cache[destination] = anchors(destination)
            if anchor not in anchor_cache[destination]:
                broken.append(f"{where} (no such heading)")
    return broken


def test_docs_exist():
    assert len(PAGES) > 1, "docs/ holds the pages the README links to"


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(REPO)) for p in PAGES])
def test_every_relative_link_resolves(page):
    assert broken_links(page, {}) == []


def test_readme_stays_a_front_door():
    lines = (REPO / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; move detail into docs/"


@pytest.mark.parametrize(
    "heading,anchor",
    [
        ("`safedel serve`: a resident executor", "safedel-serve-a-resident-executor"),
        (
            "git: clean, reset, checkout, restore, switch, stash and branch -D",
            "git-clean-reset-checkout-restore-switch-stash-and-branch--d",
        ),
        (
            "Capture mode: `safedel run` as an agent harness's shell executor",
            "capture-mode-safedel-run-as-an-agent-harnesss-shell-executor",
        ),
        ("Node's own fs tests", "nodes-own-fs-tests"),
        (
            "Where a deletion lands: workspaces, the temp dir, build output",
            "where-a-deletion-lands-workspaces-the-temp-dir-build-output",
        ),
        ("The `SAFEDEL_TURN` *file*", "the-safedel_turn-file"),
        ("What `__init__.py` _says_", "what-__init__py-says"),
        ("Performance — the bench (2 × faster)", "performance--the-bench-2--faster"),
    ],
)
def test_anchors_are_computed_as_github_does(heading, anchor):
    assert slug(heading) == anchor


def test_a_repeated_heading_gets_a_number(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Notes\n\n## Notes\n\n```sh\n# Notes\n```\n\n## Notes\n")
    assert anchors(page) == {"notes", "notes-1", "notes-2"}


def test_links_and_definitions_are_found_outside_code(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "See [a](a.md#x) and `[b](b.md)`, [c][d].\n\n[d]: docs/d.md#y\n\n```md\n[e](e.md)\n```\n"
        "A [link over\ntwo lines](f.md#z).\n"
    )
    assert list(links(page)) == [(1, "a.md#x"), (3, "docs/d.md#y"), (8, "f.md#z")]
