"""A list that was adopted stays adoptable, the pure part: a stored list re-adopts under the schema it passed."""

from __future__ import annotations

import pytest

from scrapy_walsh.policy.blocklist import (
    ADOPTED_SCHEMA,
    BUNDLED_SCHEMA,
    Blocklist,
    InvalidBlocklist,
    bundled_schema,
    from_stored,
    load_schema,
    stored_record,
)

LOOSER = {**bundled_schema(), "required": ["contract", "updated", "blocked"]}
DOCUMENT = {
    "contract": "walsh-research-blocklist/v1",
    "updated": "2026-11-01T00:00:00Z",
    "blocked": [{"domain": "blocked.example", "added": "2026-11-01", "reason": "r"}],
}
FULL = {**DOCUMENT, "operator": "o", "contact": "c", "policy": "https://wal.sh/bot/"}


def test_a_list_adopted_under_a_looser_schema_re_adopts_under_it():
    adopted = Blocklist.from_document(DOCUMENT, schema=load_schema(LOOSER))
    with pytest.raises(InvalidBlocklist):
        Blocklist.from_document(DOCUMENT)  # the bundled schema refuses it: the bug
    restored, schema = from_stored(stored_record(adopted, LOOSER, 1.0))
    assert schema == ADOPTED_SCHEMA and "www.blocked.example" in restored


def test_the_bundled_schema_is_not_stored_and_old_records_still_restore():
    record = stored_record(Blocklist.from_document(FULL), bundled_schema(), 1.0)
    assert record["schema"] is None and record["schema_sha256"] is None
    assert from_stored(record)[1] == BUNDLED_SCHEMA
    assert from_stored({"document": FULL, "adopted": 1.0})[1] == BUNDLED_SCHEMA  # a record stored without a schema


def test_a_tampered_schema_falls_back_to_the_bundled_one_or_refuses():
    record = stored_record(Blocklist.from_document(DOCUMENT, schema=load_schema(LOOSER)), LOOSER, 1.0)
    record["schema"] = {**LOOSER, "required": ["contract"]}  # no longer its digest
    with pytest.raises(InvalidBlocklist, match="under the schema it was adopted with.*under the bundled schema"):
        from_stored(record)
    record["document"] = FULL
    assert from_stored(record)[1] == BUNDLED_SCHEMA


@pytest.mark.parametrize(
    ("record", "refused"),
    [
        (None, "stored record: not an adopted list"),
        ([], "stored record: not an adopted list"),
        ({"adopted": 1.0}, "stored record: not an adopted list"),
        ({"document": "not json"}, "under the bundled schema: not JSON"),
    ],
)
def test_a_broken_record_is_the_packages_error(record, refused):
    with pytest.raises(InvalidBlocklist, match=refused):
        from_stored(record)


def test_a_record_whose_schema_is_broken_is_the_bundled_list():
    """A stored schema that is no schema at all: the document re-adopts under the bundled one."""
    restored, schema = from_stored({"document": FULL, "schema": 3})
    assert schema == BUNDLED_SCHEMA
    assert [entry.domain for entry in restored] == ["blocked.example"] and "www.blocked.example" in restored


def test_a_list_refusing_all_covers_every_host():
    refusing = Blocklist.refusing_all("no usable list")
    for host in ("a.example", "http://b.example/x", "127.0.0.1", ""):
        entry = refusing.match(host)
        assert entry is not None and entry.reason == "no usable list"
    assert refusing.with_extra(["c.example"]) is refusing


def test_the_published_schema_record_says_when_it_was_fetched_and_reads_older_records():
    from scrapy_walsh.policy.blocklist import from_schema_record, schema_record

    schema = load_schema(LOOSER)
    assert from_schema_record(schema_record(schema, 1234.5)) == (schema, 1234.5)
    assert from_schema_record(schema) == (schema, None), "the schema alone, as earlier versions stored it: not fresh"
    for damaged in (None, {}, "text", {"published": {"type": 12}, "fetched": 1.0}, {"type": 12}, [1]):
        assert from_schema_record(damaged) == (None, None), damaged
    assert from_schema_record({"published": schema, "fetched": True}) == (schema, None)
