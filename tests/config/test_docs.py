"""The README and docs/*.md hold together: every relative link between them reaches a
file of the repository and, with a ``#anchor``, a heading of that file (as GitHub
makes anchors of headings); every page of docs/ is linked from the README; and the
README stays a five-minute read that opens with the two commands."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
README_MAX_LINES = 250

FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
ATX = re.compile(r"^\s{0,3}(#{1,6})(?:\s+(.*?))?(?:\s+#+)?\s*$")
SETEXT = re.compile(r"^\s{0,3}(=+|-+)\s*$")
CODE_SPAN = re.compile(r"(`+)((?:(?!\n[ \t]*\n).)+?)\1", re.S)  # never across a blank line
# [text](target) or [text](target "title"); images ![alt](target) too.
LINK = re.compile(r"\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
EXTERNAL = ("http://", "https://", "mailto:")


def prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks (code is quoted, not linked); lines inside
    one come back empty, so that line numbers stay those of the file."""
    lines, fence = [], None
    for line in text.splitlines():
        found = FENCE.match(line)
        if fence is None and found:
            fence = found.group(1)
            lines.append("")
        elif fence is not None:
            if found and found.group(1)[0] == fence[0] and len(found.group(1)) >= len(fence):
                fence = None
            lines.append("")
        else:
            lines.append(line)
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text: the text as rendered (no code ticks, no
    emphasis marks, a link's text only), lowercased, every character that is not a
    letter, a digit, a mark, ``_``, ``-`` or a space dropped, each space a hyphen."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").replace("*", "")
    kept = "".join(
        ch for ch in text.strip().lower() if ch in " -_" or unicodedata.category(ch)[0] in "LNM"
    )
    return kept.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every anchor the headings of a page make; a repeated one gets -1, -2 … as on GitHub."""
    seen: dict[str, int] = {}
    found = set()
    lines = prose_lines(text)
    for number, line in enumerate(lines):
        heading = None
        atx = ATX.match(line)
        if atx:
            heading = atx.group(2) or ""
        elif (
            number + 1 < len(lines)
            and SETEXT.match(lines[number + 1])
            and line.strip()
            and not line.lstrip().startswith(("-", "*", "+", "|", ">"))
        ):
            heading = line
        if heading is None:
            continue
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(text: str) -> list[tuple[int, str]]:
    """(line number, target) of every Markdown link outside code, in order; a link's text
    may run over a line's end."""
    prose = "\n".join(prose_lines(text))
    prose = CODE_SPAN.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), prose)
    return [(prose.count("\n", 0, m.start()) + 1, m.group(1)) for m in LINK.finditer(prose)]


def broken_links(page: Path, root: Path = ROOT) -> list[str]:
    """What is wrong with the links of one page, one line each (empty: nothing)."""
    problems = []
    text = page.read_text(encoding="utf-8")
    name = page.relative_to(root)
    for number, target in links(text):
        where = f"{name}:{number}: ({target})"
        if target.startswith(EXTERNAL):
            continue
        if not target or re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("/"):
            problems.append(f"{where} is not a relative link")
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.is_relative_to(root.resolve()):
            problems.append(f"{where} leaves the repository")
        elif not file.is_file():
            problems.append(f"{where}: no such file")
        elif anchor:
            if file.suffix != ".md":
                problems.append(f"{where}: an anchor into a file that is not Markdown")
            elif anchor not in anchors(file.read_text(encoding="utf-8")):
                problems.append(f"{where}: no heading of {file.relative_to(root.resolve())} makes #{anchor}")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_link_between_the_readme_and_the_docs_resolves(page):
    assert broken_links(page) == []


def test_every_page_of_the_docs_is_linked_from_the_readme():
    linked = {
        (ROOT / target.partition("#")[0]).resolve()
        for _, target in links(README.read_text(encoding="utf-8"))
        if not target.startswith(EXTERNAL)
    }
    assert [page.name for page in PAGES[1:] if page.resolve() not in linked] == []


def test_the_readme_is_short_and_opens_with_the_two_commands():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; move details into docs/"
    assert lines[0] == "```sh"
    assert lines[1].startswith("make run")
    assert lines[2].startswith("make test")


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        ("Running on several processes", "running-on-several-processes"),
        ("Issue 34's targets, measured", "issue-34s-targets-measured"),
        ("Live tables: `bench/live.py`", "live-tables-benchlivepy"),
        ("TetriWar's own board, played ahead (issue 31)", "tetriwars-own-board-played-ahead-issue-31"),
        ("`REQUEST_THREADS` and the GIL", "request_threads-and-the-gil"),
        ("Sprachen: Deutsch, Español, 简体中文", "sprachen-deutsch-español-简体中文"),
        ("A [linked](x.md) *heading* — here", "a-linked-heading--here"),
    ],
)
def test_anchors_are_made_as_github_makes_them(heading, anchor):
    assert slug(heading) == anchor


def test_a_broken_link_or_anchor_is_reported(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "ops.md").write_text("# Ops\n\n## Limits\n\n## Limits\n\nSetext\n---\n", encoding="utf-8")
    page = tmp_path / "README.md"
    page.write_text(
        "[ok](docs/ops.md) [ok](docs/ops.md#limits-1) [ok](docs/ops.md#setext) [ok](#top)\n"
        "[gone](docs/missing.md) [no heading](docs/ops.md#metrics) [self](#nowhere)\n"
        "[out](../elsewhere.md) [absolute](/docs/ops.md) [web](https://example.org/x) [over a\n"
        "line's end](docs/ops.md#nothing)\n"
        "`[in code](docs/missing.md)`\n\n# Top\n\n```md\n[in a block](docs/missing.md)\n```\n",
        encoding="utf-8",
    )
    problems = broken_links(page, root=tmp_path)
    assert [problem.split(": (")[1].split(")")[0] for problem in problems] == [
        "docs/missing.md",
        "docs/ops.md#metrics",
        "#nowhere",
        "../elsewhere.md",
        "/docs/ops.md",
        "docs/ops.md#nothing",
    ]
