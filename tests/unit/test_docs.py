"""The docs hold what they show: refusals point at sections that exist, and Python snippets compile.

A message that sends the reader to ``docs/troubleshooting.md#section`` is useless when the section
was renamed, and a snippet a reader pastes must at least be valid Python.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scrapy_walsh.exceptions import _HINTS, HINTS, ConformanceError, Finding, Status
from scrapy_walsh.policy.vocabulary import TROUBLESHOOTING
from tests.helpers import PACKAGE, REPO

DOCS = REPO / "docs"


def anchor(heading: str) -> str:
    """A heading's anchor as MyST and GitHub make it: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def headings(path: Path) -> set[str]:
    return {anchor(m) for m in re.findall(r"^#{1,6} (.+)$", path.read_text(), re.MULTILINE)}


def test_every_troubleshooting_section_the_code_names_exists():
    sections = headings(REPO / TROUBLESHOOTING)
    named = set()
    for path in PACKAGE.rglob("*.py"):
        named |= set(re.findall(r"""troubleshooting\(\s*["']([a-z0-9-]+)["']\s*\)""", path.read_text()))
    for hint in HINTS.values():
        named |= set(re.findall(re.escape(TROUBLESHOOTING) + r"#([a-z0-9-]+)", hint))
    assert {"refused-at-start", "links-yield-nothing", "a-url-is-denied"} <= named, "the scan is broken"
    assert named <= sections, f"not a heading of {TROUBLESHOOTING}: {sorted(named - sections)}"


def test_a_refusal_at_start_names_the_troubleshooting_section():
    error = ConformanceError(
        [Finding("4", "R4", Status.FAIL, "CONCURRENT_REQUESTS", "CONCURRENT_REQUESTS=8 allows concurrent requests")]
    )
    assert str(error).endswith(f"what to do: {TROUBLESHOOTING}#refused-at-start")


def test_every_denial_with_a_fix_names_its_troubleshooting_section():
    for kind in _HINTS:
        assert f"; see {TROUBLESHOOTING}#" in HINTS[kind], kind


def python_blocks() -> list[tuple[str, int, str]]:
    """Every fenced block marked ``python`` in README.md and docs/ (the build output left out)."""
    blocks = []
    pages = [REPO / "README.md", *(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)]
    for page in pages:
        lines = page.read_text().splitlines()
        number = 0
        while number < len(lines):
            opening = re.match(r"^(\s*)(`{3,}|~{3,})\s*\{?(python|py|python3)\}?\s*$", lines[number])
            number += 1
            if not opening:
                continue
            indent, fence, start, body = opening.group(1), opening.group(2), number, []
            while number < len(lines) and not lines[number].strip().startswith(fence):
                body.append(lines[number][len(indent) :] if lines[number].startswith(indent) else lines[number])
                number += 1
            number += 1
            blocks.append((str(page.relative_to(REPO)), start, "\n".join(body)))
    return blocks


def test_the_docs_have_python_blocks():
    """A check over no blocks cannot fail."""
    assert len(python_blocks()) > 20


@pytest.mark.parametrize("page, line, source", python_blocks(), ids=lambda v: str(v)[:40])
def test_every_python_block_compiles(page, line, source):
    try:
        compile(source, f"{page}:{line}", "exec")
    except SyntaxError as exc:
        pytest.fail(f"{page}:{line + (exc.lineno or 1) - 1}: {exc.msg}: {exc.text!r}")


def pages() -> list[Path]:
    """README.md and every page of docs/ but the CHANGELOG's (the build output left out)."""
    return [REPO / "README.md", *(p for p in sorted(DOCS.rglob("*.md")) if "_build" not in p.parts)]


#: What a page says when it recounts history rather than explains: the CHANGELOG keeps the history.
HISTORY = re.compile(
    r"(?<!is )(?<!are )(?<!be )\bused to\b|\bat first\b|\bbefore this (?:stop|change)\b", re.IGNORECASE
)


def test_the_pages_explain_rather_than_recount_history():
    found = [
        f"{page.relative_to(REPO)}:{number}: {match.group(0)!r}"
        for page in pages()
        for number, line in enumerate(page.read_text().splitlines(), 1)
        for match in HISTORY.finditer(line)
    ]
    assert not found, "say what is, and keep the history in CHANGELOG.md:\n" + "\n".join(found)


#: Words that don't tell two titles apart: "Adding it to an existing project" reads as "Adding
#: scrapy-walsh to an existing project".
FILLER = {"a", "an", "the", "it", "its", "to", "of", "scrapywalsh", "your"}


def test_every_page_has_a_title_of_its_own():
    """The sidebar lists pages by title: two that read alike send a reader to the wrong one."""
    titles: dict[str, str] = {}
    for page in pages()[1:]:
        first = page.read_text().lstrip().splitlines()[0] if page.read_text().strip() else ""
        if not first.startswith("# "):
            continue  # an include (the changelog page) takes its title from the file it includes
        words = re.sub(r"[^a-z0-9 ]", "", first[2:].lower()).split()
        title = " ".join(w for w in words if w not in FILLER)
        assert title not in titles, f"{page.relative_to(REPO)} and {titles[title]} are both titled {first[2:]!r}"
        titles[title] = str(page.relative_to(REPO))


def test_the_quoted_refusal_is_the_one_a_crawl_prints():
    """The pages quote the refusal of ``CONCURRENT_REQUESTS = 8``: each line of it as the add-on writes it."""
    from scrapy.settings import Settings

    from scrapy_walsh import Addon
    from scrapy_walsh.commands.check import effective_settings
    from scrapy_walsh.conformance import audit_settings

    # the settings a crawl would get, audited as the add-on audits them at start (nothing installed)
    settings, _ = effective_settings(Settings({"ADDONS": {Addon: 500}, "CONCURRENT_REQUESTS": 8}), None)
    refused = ConformanceError(audit_settings(settings))
    for page in ("existing-projects.md", "troubleshooting.md"):
        text = (DOCS / page).read_text()
        for line in str(refused).splitlines():
            assert line.strip() in text, f"docs/{page} quotes another refusal than {line.strip()!r}"
