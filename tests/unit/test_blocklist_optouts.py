"""No malformed or stale blocklist document erases an opt-out (pure core)."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from demo_site.content import default_blocklist
from scrapy_walsh.policy.blocklist import Blocklist, InvalidBlocklist
from scrapy_walsh.policy.blocklist.edit import add, parse_document
from scrapy_walsh.policy.blocklist.stored import replaces

LISTED = '{"domain": "listed.example", "added": "2026-11-01", "reason": "opt-out"}'
HEAD = (
    '{"contract": "walsh-research-blocklist/v1", "updated": "2026-11-01T00:00:00Z", '
    '"operator": "o", "contact": "o@example.com", "policy": "http://example.com/bot", '
)
DUPLICATES = {
    "top level": HEAD + f'"blocked": [{LISTED}], "blocked": []}}',
    "top level, other key": HEAD + '"operator": "again", "blocked": []}',
    "inside an entry": HEAD + '"blocked": [{"domain": "listed.example", "domain": "other.example", '
    '"added": "2026-11-01", "reason": "x"}]}',
}


@pytest.mark.parametrize("text", DUPLICATES.values(), ids=DUPLICATES.keys())
def test_a_duplicate_key_at_any_level_makes_the_document_invalid(text):
    with pytest.raises(InvalidBlocklist, match="duplicate key"):
        Blocklist.from_document(text)
    with pytest.raises(InvalidBlocklist, match="duplicate key"):
        Blocklist.from_document(text.encode())
    with pytest.raises(InvalidBlocklist, match="duplicate key"):
        parse_document(text.encode())  # the command-line editor refuses to rewrite it


def test_the_same_document_without_the_duplicate_is_valid():
    assert len(Blocklist.from_document(HEAD + f'"blocked": [{LISTED}]}}')) == 1


def _doc(updated: str, *domains: str) -> Blocklist:
    doc = default_blocklist()
    doc["updated"] = updated
    doc["blocked"] = [{"domain": d, "added": "2000-01-01", "reason": "x"} for d in domains]
    return Blocklist.from_document(json.dumps(doc))


def test_an_older_list_does_not_replace_the_adopted_one():
    adopt, why = replaces(_doc("2026-11-01T00:00:00Z", "a.example"), _doc("2000-01-01T00:00:00Z"))
    assert not adopt and "older" in why


def test_a_newer_list_replaces_it_silently():
    assert replaces(_doc("2026-11-01T00:00:00Z", "a.example"), _doc("2026-11-02T00:00:00Z")) == (True, None)


def test_the_same_list_again_is_no_news():
    assert replaces(_doc("2026-11-01T00:00:00Z", "a.example"), _doc("2026-11-01T00:00:00Z", "a.example")) == (
        True,
        None,
    )


def test_equal_dates_with_different_contents_warn():
    adopt, why = replaces(_doc("2026-11-01T00:00:00Z", "a.example"), _doc("2026-11-01T00:00:00Z", "b.example"))
    assert adopt and "same updated" in why


def test_an_edit_of_a_valid_document_still_works():
    doc = parse_document((HEAD + f'"blocked": [{LISTED}]}}').encode())
    result = add(doc, "new.example", "asked", datetime(2026, 11, 25, tzinfo=timezone.utc))
    assert result.changed and len(result.document["blocked"]) == 2
