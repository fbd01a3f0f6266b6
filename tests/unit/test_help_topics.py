"""Help that travels with the package: every docs pointer in a message resolves from its resources.

Messages say ``see `scrapy walsh docs TOPIC```; ``scrapy_walsh.commands.docs`` reads the topic from
``scrapy_walsh/help/`` (package data), never from the repository's docs/. These tests read through
``importlib.resources``, check the files sit in the package and are the docs' pages as they are now,
and that the build ships them. tests/e2e/test_docs_topics.py runs the command from a built wheel.
"""

from __future__ import annotations

import ast
import re
from importlib import resources
from pathlib import Path

import pytest

import scrapy_walsh
from scrapy_walsh.commands import docs
from tests.helpers import REPO, docs_pointers, pyproject

PACKAGE = Path(scrapy_walsh.__file__).resolve().parent


@pytest.mark.parametrize("topic", sorted(docs_pointers()))
def test_every_pointer_resolves_from_the_package_resources(topic):
    page, section = docs.resolve(topic)
    shipped = Path(str(resources.files("scrapy_walsh") / "help" / f"{page}.md")).resolve()
    assert shipped.is_relative_to(PACKAGE / "help") and not shipped.is_relative_to(REPO / "docs")
    text = docs.text(topic)
    assert text.startswith("## " if section else "# "), text[:80]
    assert section is None or docs.anchor(text.splitlines()[0].lstrip("# ")) == section


def test_a_section_ends_at_the_next_heading_as_high_and_unknown_topics_are_refused():
    text = docs.text("troubleshooting#refused-at-start")
    assert text.startswith("## Refused at start\n") and "\n## " not in text
    assert "```text" in text, "a fenced block's lines are never read as headings"
    assert docs.resolve("refused-at-start") == ("troubleshooting", "refused-at-start")
    for unknown in ("nope", "troubleshooting#nope", "nope#refused-at-start"):
        with pytest.raises(docs.UnknownTopic):
            docs.resolve(unknown)


def test_links_and_roles_print_for_a_terminal():
    rendered = docs.render(
        "{setting}`WALSH_STATE_URI`, [Links](troubleshooting.md#links-yield-nothing), "
        "[glossary](glossary.md#must), [site](https://wal.sh/bot/), [here](#items-dropped)"
    )
    assert rendered == (
        "`WALSH_STATE_URI`, Links (`scrapy walsh docs troubleshooting#links-yield-nothing`), glossary, "
        "site (https://wal.sh/bot/), here (`scrapy walsh docs items-dropped`)"
    )


def test_the_shipped_pages_are_the_docs_pages_as_they_are_now():
    """``make docs`` copies them (docs/_ext/walsh_reference.py write_help); commit the copies."""
    for page in docs.PAGES:
        shipped = PACKAGE / "help" / f"{page}.md"
        assert shipped.read_text() == (REPO / "docs" / f"{page}.md").read_text(), f"{shipped} is stale: make docs"
    assert sorted(p.stem for p in (PACKAGE / "help").glob("*.md")) == sorted(docs.PAGES)


def test_the_build_ships_the_help_pages():
    config = pyproject()
    assert "help/*.md" in config["tool"]["setuptools"]["package-data"]["scrapy_walsh"]
    assert "recursive-include scrapy_walsh/help *.md" in (REPO / "MANIFEST.in").read_text().splitlines()


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            if isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                found.add(id(body[0].value))
    return found


def test_no_message_points_to_a_file_of_the_repository():
    """A path under docs/ means nothing to an installed user: a message names a topic instead
    (a docstring or a comment may name the file, for the developer reading the code)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text())
        skip = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
                if re.search(r"(?<![\w/.])docs/[\w/.-]+\.md", node.value):
                    found.append(f"{path.relative_to(REPO)}:{node.lineno}: {node.value[:80]!r}")
    assert not found, "\n".join(found)
