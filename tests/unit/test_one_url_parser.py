"""A request's URL is split in one place, so every gate reads the same host and path.

Two parsers that read one URL differently are how a gate judged one host or path while the
request went to another (urllib's ``urlparse`` cuts ``;params`` from the path, ``urlsplit`` keeps
them; a manifest's text is not the URL Scrapy sends). Requests are split by
:func:`scrapy_walsh.policy.urls.split` and :func:`scrapy_walsh.sending.request_meta.request_parts`; the
allowlist holds the values that are not requests.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "scrapy_walsh"
PARSERS = {"urlparse", "urlsplit", "urlparse_cached"}
#: module -> why it may split a URL itself
ALLOWED = {
    "policy/urls.py": "the one place",
    "policy/blocklist/hosts.py": "an operator list's host entries (policy/urls imports it)",
    "config/locations.py": "the store's and the list's addresses from the settings",
    "config/values.py": "setting values",
    "config/parsers.py": "setting values",
    "commands/genspider.py": "the domain a user types for a new spider",
}


def _calls(path: Path) -> list[int]:
    tree = ast.parse(path.read_text())
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and (getattr(node.func, "id", None) in PARSERS or getattr(node.func, "attr", None) in PARSERS)
    ]


def test_no_module_splits_a_request_url_its_own_way():
    found = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel in ALLOWED:
            continue
        if lines := _calls(path):
            found[rel] = lines
    assert not found, f"split a URL with scrapy_walsh.policy.urls.split or request_meta.request_parts: {found}"


def test_the_scan_finds_a_parser_call(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("from urllib.parse import urlsplit\nurlsplit('http://a/')\n")
    assert _calls(sample) == [2]
