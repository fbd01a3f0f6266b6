"""The operator blocklist contract (walsh-research-blocklist/v1, seed 001 §5.2 R3):
what may be adopted, with which reason a document is refused, and what a list blocks."""

from __future__ import annotations

import copy
import json
from datetime import date, datetime, timezone

import pytest
from jsonschema import Draft202012Validator

from scrapy_walsh.policy.blocklist import (
    CONTRACT,
    DEFAULT_REFRESH_SECONDS,
    EXTRA_REASON,
    MAX_DOCUMENT_BYTES,
    MAX_REFRESH_SECONDS,
    MIN_REFRESH_SECONDS,
    Blocklist,
    BlocklistEntry,
    InvalidBlocklist,
    InvalidSchema,
    bundled_schema,
    load_schema,
    normalise_host,
    parse_duration,
)
from scrapy_walsh.policy.blocklist.schema import plan_for

#: The example of seed 001 §5.2, verbatim.
SPEC_EXAMPLE = """{
  "contract": "walsh-research-blocklist/v1",
  "updated":  "2026-05-23T00:00:00Z",
  "operator": "Jason Walsh",
  "contact":  "j@wal.sh",
  "policy":   "https://wal.sh/bot/",
  "refresh":  "PT6H",
  "blocked": [
    { "domain": "example.com", "added": "2026-05-23", "reason": "email opt-out" }
  ]
}"""


def entry(domain: str, added: str = "2026-05-23", reason: str = "email opt-out", **extra) -> dict:
    return {"domain": domain, "added": added, "reason": reason, **extra}


def make_doc(*domains: str, **fields) -> dict:
    doc = {
        "contract": CONTRACT,
        "updated": "2026-05-23T00:00:00Z",
        "operator": "Jason Walsh",
        "contact": "j@wal.sh",
        "policy": "https://wal.sh/bot/",
        "refresh": "PT6H",
        "blocked": [entry(d) for d in domains],
    }
    doc.update(fields)
    return doc


def with_bad_entry(bad: object, index: int = 3) -> dict:
    """Four good entries with ``bad`` at ``index``, so the reason must name the index."""
    doc = make_doc("a.example", "b.example", "c.example", "d.example")
    doc["blocked"][index] = bad
    return doc


def rejected(doc: object, **kwargs) -> str:
    with pytest.raises(InvalidBlocklist) as info:
        Blocklist.from_document(doc, **kwargs)
    return str(info.value)


# --------------------------------------------------------------------- adoption


def test_spec_example_is_adopted_from_text_and_bytes():
    for raw in (SPEC_EXAMPLE, SPEC_EXAMPLE.encode()):
        bl = Blocklist.from_document(raw)
        assert len(bl) == 1
        assert bl.updated == datetime(2026, 5, 23, tzinfo=timezone.utc)
        assert bl.refresh == "PT6H" and bl.refresh_seconds == 6 * 3600
        assert bl.document == json.loads(SPEC_EXAMPLE)
        hit = bl.match("www.example.com")
        assert hit == BlocklistEntry("example.com", date(2026, 5, 23), "email opt-out", "example.com", False)


def test_document_round_trips_for_persistence():
    bl = Blocklist.from_document(make_doc("example.com", "bücher.example", "192.0.2.1", extra_key={"x": 1}))
    stored = json.loads(json.dumps(bl.document))  # what the middleware's store keeps
    again = Blocklist.from_document(stored)
    assert list(again) == list(bl)
    assert again.document == bl.document and again.updated == bl.updated


def test_dict_input_is_validated_too():
    assert "'operator' is a required property" in rejected({k: v for k, v in make_doc().items() if k != "operator"})


def test_empty_blocked_list_is_valid():
    bl = Blocklist.from_document(make_doc())
    assert len(bl) == 0 and bl.match("example.com") is None


def test_empty_blocklist():
    bl = Blocklist.empty()
    assert len(bl) == 0 and list(bl) == []
    assert bl.match("example.com") is None and "example.com" not in bl
    assert bl.document is None and bl.updated is None
    assert bl.refresh_seconds == DEFAULT_REFRESH_SECONDS


def test_updated_keeps_its_offset():
    bl = Blocklist.from_document(make_doc(updated="2026-05-23T02:30:00.123456789+02:30"))
    assert bl.updated == datetime(2026, 5, 23, 0, 0, 0, 123456, tzinfo=timezone.utc)
    assert Blocklist.from_document(make_doc(updated="2026-05-23t00:00:00z")).updated.year == 2026


def test_unknown_keys_are_accepted_and_kept():
    doc = make_doc("example.com", x_signature="abc", mirrors=["https://a"], version=2)
    doc["blocked"][0]["ticket"] = 1234
    bl = Blocklist.from_document(json.dumps(doc))
    assert bl.document["x_signature"] == "abc" and bl.document["blocked"][0]["ticket"] == 1234
    assert bl.match("example.com") is not None


# ------------------------------------------------------ malformed documents, reasons


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"", "not JSON: Expecting value: line 1 column 1"),
        ("garbage", "not JSON: Expecting value: line 1 column 1"),
        (b'{"contract": ', "not JSON: Expecting value"),
        (b'{"a": NaN}', "not JSON: NaN is not valid JSON"),
        (b"[" * 100_000, "not JSON: nested too deeply"),
        (SPEC_EXAMPLE.encode("utf-16"), "document: not UTF-8"),
        (SPEC_EXAMPLE.encode("latin-1").replace(b"Jason", b"J\xe9r\xf4me"), "document: not UTF-8"),
        ("[1, 2]", "document: [1, 2] is not of type 'object'"),
        ('"a string"', "document: 'a string' is not of type 'object'"),
    ],
)
def test_not_a_json_object(raw, reason):
    assert rejected(raw).startswith(reason)


def test_wrong_input_type():
    assert rejected(12) == "document: expected a dict, str or bytes, got int"
    assert rejected([make_doc()]) == "document: expected a dict, str or bytes, got list"


@pytest.mark.parametrize("contract", ["walsh-research-blocklist/v2", "walsh-research-blocklist", "", None, 1])
def test_wrong_contract(contract):
    assert rejected(make_doc("example.com", contract=contract)) == (
        f"contract: must be 'walsh-research-blocklist/v1', got {contract!r}"
    )


@pytest.mark.parametrize(("blocked", "kind"), [({}, "{}"), ("example.com", "'example.com'"), (None, "None")])
def test_blocked_not_a_list(blocked, kind):
    assert rejected(make_doc(blocked=blocked)) == f"blocked: {kind} is not of type 'array'"


@pytest.mark.parametrize("field", ["contract", "updated", "operator", "contact", "policy", "blocked"])
def test_missing_required_field(field):
    doc = make_doc("example.com")
    del doc[field]
    assert rejected(doc) == f"document: {field!r} is a required property"


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("updated", "yesterday", "updated: 'yesterday' is not a 'date-time'"),
        ("updated", "2026-05-23", "updated: '2026-05-23' is not a 'date-time'"),
        ("updated", "2026-05-23T00:00:00", "updated: '2026-05-23T00:00:00' is not a 'date-time'"),  # no offset
        ("updated", "2026-02-30T00:00:00Z", "updated: '2026-02-30T00:00:00Z' is not a 'date-time'"),
        ("updated", 1748000000, "updated: 1748000000 is not of type 'string'"),
        ("operator", "", "operator: '' should be non-empty"),
        ("contact", 7, "contact: 7 is not of type 'string'"),
        ("policy", "wal.sh/bot", "policy: 'wal.sh/bot' is not a 'uri'"),
        ("refresh", "6 hours", "refresh: '6 hours' is not a 'duration'"),
        ("refresh", "PT", "refresh: 'PT' is not a 'duration'"),
        ("refresh", 21600, "refresh: 21600 is not of type 'string'"),
    ],
)
def test_bad_top_level_field(field, value, reason):
    assert rejected(make_doc("example.com", **{field: value})) == reason


@pytest.mark.parametrize(
    ("domain", "reason"),
    [
        ("http://x.com", "'http://x.com' is not a 'hostname' (nor an 'idn-hostname', an 'ipv4' or an 'ipv6')"),
        ("x.com/path", "'x.com/path' is not a 'hostname'"),
        ("x.com:8080", "'x.com:8080' is not a 'hostname'"),
        ("//x.com", "'//x.com' is not a 'hostname'"),
        ("*.x.com", "'*.x.com' is not a 'hostname'"),
        ("a_b.x.com", "'a_b.x.com' is not a 'hostname'"),
        ("x..com", "'x..com' is not a 'hostname'"),
        ("[2001:db8::1]", "'[2001:db8::1]' is not a 'hostname'"),
        ("Bücher.example", "'Bücher.example' is not a 'hostname'"),  # IDNA2008: U-labels are lowercase
        ("", "'' is empty or holds white space: a domain is one word"),
        ("x.com ", "'x.com ' is empty or holds white space"),
        (" x.com", "' x.com' is empty or holds white space"),
        ("x.com\n", "'x.com\\n' is empty or holds white space"),  # the hostname checker alone would accept it
        (42, "42 is not of type 'string'"),
    ],
)
def test_bad_domain_is_named_with_its_index(domain, reason):
    assert rejected(with_bad_entry(entry(domain))).startswith(f"blocked[3].domain: {reason}")


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        (entry("x.com", added="2026-13-01"), "blocked[3].added: '2026-13-01' is not a 'date'"),
        (entry("x.com", added="20260523"), "blocked[3].added: '20260523' is not a 'date'"),
        (entry("x.com", added="2026-05-23T00:00:00Z"), "blocked[3].added: '2026-05-23T00:00:00Z' is not a 'date'"),
        (entry("x.com", reason=None), "blocked[3].reason: None is not of type 'string'"),
        ({"domain": "x.com", "added": "2026-05-23"}, "blocked[3]: 'reason' is a required property"),
        ({"added": "2026-05-23", "reason": ""}, "blocked[3]: 'domain' is a required property"),
        ("x.com", "blocked[3]: 'x.com' is not of type 'object'"),
    ],
)
def test_bad_entry(bad, reason):
    assert rejected(with_bad_entry(bad)) == reason


def test_first_bad_entry_of_a_long_list_is_named():
    doc = make_doc(*(f"d{i}.example" for i in range(500)))
    doc["blocked"][257]["domain"] = "https://d257.example/"
    doc["blocked"][400]["added"] = "never"
    assert rejected(json.dumps(doc)).startswith("blocked[257].domain: 'https://d257.example/' is not a 'hostname'")


# ----------------------------------------------------------------- size and BOM


def padded(total_bytes: int) -> bytes:
    """A valid document of exactly ``total_bytes`` bytes (an unknown key pads it)."""
    base = json.dumps(make_doc("example.com", padding="")).encode()
    raw = json.dumps(make_doc("example.com", padding="x" * (total_bytes - len(base)))).encode()
    assert len(raw) == total_bytes
    return raw


def test_size_cap_is_8_mib():
    assert MAX_DOCUMENT_BYTES == 8 * 1024 * 1024
    assert len(Blocklist.from_document(padded(MAX_DOCUMENT_BYTES))) == 1
    assert rejected(padded(MAX_DOCUMENT_BYTES + 1)) == (
        f"document is {MAX_DOCUMENT_BYTES + 1} bytes, over the 8 MiB limit"
    )


def test_10_mb_of_entries_is_rejected_for_size():
    doc = make_doc(*(f"site-{i:06d}.example.com" for i in range(140_000)))
    raw = json.dumps(doc).encode()
    assert len(raw) > 10_000_000
    assert rejected(raw) == f"document is {len(raw)} bytes, over the 8 MiB limit"
    assert rejected(raw.decode()) == f"document is {len(raw)} bytes, over the 8 MiB limit"


def test_text_is_measured_in_utf8_bytes():
    text = json.dumps(make_doc("example.com", padding="ü" * (MAX_DOCUMENT_BYTES // 2)), ensure_ascii=False)
    assert len(text) < MAX_DOCUMENT_BYTES < len(text.encode())
    assert rejected(text) == f"document is {len(text.encode())} bytes, over the 8 MiB limit"


def test_a_dict_has_no_byte_size():
    assert len(Blocklist.from_document(make_doc("example.com", padding="x" * (MAX_DOCUMENT_BYTES + 1)))) == 1


def test_one_utf8_bom_is_ignored():
    assert len(Blocklist.from_document(b"\xef\xbb\xbf" + SPEC_EXAMPLE.encode())) == 1
    assert len(Blocklist.from_document("\ufeff" + SPEC_EXAMPLE)) == 1
    assert rejected(b"\xef\xbb\xbf\xef\xbb\xbf" + SPEC_EXAMPLE.encode()).startswith("not JSON: Unexpected UTF-8 BOM")


# ------------------------------------------------------------------------ refresh


def test_missing_refresh_is_accepted_with_the_default():
    doc = make_doc("example.com")
    del doc["refresh"]
    bl = Blocklist.from_document(doc)
    assert bl.refresh is None
    assert bl.refresh_seconds == DEFAULT_REFRESH_SECONDS == 3600
    assert bl.match("example.com") is not None


@pytest.mark.parametrize(
    ("refresh", "seconds"),
    [
        ("PT6H", 6 * 3600),
        ("PT90M", 5400),
        ("PT1.5H", 5400),
        ("PT1,5H", 5400),
        ("P1DT12H", 36 * 3600),
        ("P1W", 7 * 86400),
        ("PT60S", 60),
        ("PT1S", MIN_REFRESH_SECONDS),
        ("PT0S", MIN_REFRESH_SECONDS),
        ("-PT1H", MIN_REFRESH_SECONDS),
        ("P30D", MAX_REFRESH_SECONDS),
        ("P1M", MAX_REFRESH_SECONDS),
        ("P1Y", MAX_REFRESH_SECONDS),
    ],
)
def test_refresh_is_bounded(refresh, seconds):
    assert (MIN_REFRESH_SECONDS, MAX_REFRESH_SECONDS) == (60, 7 * 86400)
    assert Blocklist.from_document(make_doc(refresh=refresh)).refresh_seconds == seconds


def test_parse_duration():
    day = 86400
    assert parse_duration("P1Y2M3W4DT5H6M7S") == 365 * day + 2 * 30 * day + 3 * 7 * day + 4 * day + 5 * 3600 + 367
    for bad in ["6 hours", "P", "PT", "P1DT", "1H", "PT1H ", "pt1h", "", None]:
        with pytest.raises(ValueError, match="is not an ISO-8601 duration"):
            parse_duration(bad)


# ----------------------------------------------------------------------- matching


@pytest.fixture(scope="module")
def listed() -> Blocklist:
    return Blocklist.from_document(
        make_doc(
            "example.com",
            "bücher.example",
            "xn--mnchen-3ya.example",
            "www.nested.example",
            "192.0.2.1",
            "2001:DB8::1",
            "fe80::1",
            "127.1",
        )
    )


@pytest.mark.parametrize(
    ("host", "domain"),
    [
        ("example.com", "example.com"),
        ("www.example.com", "example.com"),
        ("a.b.c.example.com", "example.com"),
        ("EXAMPLE.COM", "example.com"),
        ("Www.Example.Com.", "example.com"),
        ("example.com:8080", "example.com"),
        ("www.example.com.:443", "example.com"),
        ("http://www.example.com/path?q=1#f", "example.com"),
        ("HTTPS://user:pw@WWW.example.com:8443/x", "example.com"),
        ("//cdn.example.com/lib.js", "example.com"),
        ("example.com/path", "example.com"),
        ("  example.com  ", "example.com"),
        # IDNA: one name in either spelling, listed either way
        ("bücher.example", "xn--bcher-kva.example"),
        ("xn--bcher-kva.example", "xn--bcher-kva.example"),
        ("XN--BCHER-KVA.example", "xn--bcher-kva.example"),
        ("shop.BÜCHER.example", "xn--bcher-kva.example"),
        ("bücher。example", "xn--bcher-kva.example"),  # ideographic full stop (UTS 46)
        ("http://bücher.example:81/ä", "xn--bcher-kva.example"),
        ("münchen.example", "xn--mnchen-3ya.example"),
        ("www.xn--mnchen-3ya.example", "xn--mnchen-3ya.example"),
        ("bad_ü.bücher.example", "xn--bcher-kva.example"),  # a label IDNA refuses never hides its parent
        # the most specific listed name wins
        ("www.nested.example", "www.nested.example"),
        ("a.www.nested.example", "www.nested.example"),
        # IP literals: only the address itself, in any spelling a URL parser accepts
        ("192.0.2.1", "192.0.2.1"),
        ("192.0.2.1.", "192.0.2.1"),
        ("http://192.0.2.1:8080/", "192.0.2.1"),
        ("3221225985", "192.0.2.1"),
        ("0xc0.0.2.1", "192.0.2.1"),
        ("0300.0.2.1", "192.0.2.1"),
        ("::ffff:192.0.2.1", "192.0.2.1"),
        ("2001:db8::1", "2001:db8::1"),
        ("2001:DB8:0:0:0:0:0:1", "2001:db8::1"),
        ("[2001:db8::1]:443", "2001:db8::1"),
        ("http://[2001:db8::1]/", "2001:db8::1"),
        ("fe80::1%eth0", "fe80::1"),
        ("127.0.0.1", "127.0.0.1"),  # listed as "127.1", which every URL parser reads as 127.0.0.1
    ],
)
def test_match(listed, host, domain):
    hit = listed.match(host)
    assert hit is not None, host
    assert hit.domain == domain
    assert host in listed


@pytest.mark.parametrize(
    "host",
    [
        "notexample.com",  # a suffix without the dot is another name
        "example.com.evil.test",
        "example.co",
        "com",
        "nested.example",  # the parent of a listed name is not covered
        "xn--bcher-kva.example.org",
        "buecher.example",
        "bucher.example",
        "x.192.0.2.1",  # an IP never has "subdomains"
        "1.192.0.2.1",
        "192.0.2.10",
        "192.0.2.2",
        "2001:db8::2",
        "[2001:db8::1:0]:443",
        "",
        "http://",
        "http://[::1",
    ],
)
def test_no_match(listed, host):
    assert listed.match(host) is None
    assert host not in listed


def test_match_requires_a_string(listed):
    with pytest.raises(TypeError):
        listed.match(None)  # type: ignore[arg-type]
    assert None not in listed


@pytest.mark.parametrize(
    "weird",
    [
        "xn--",
        "xn--zz.example",
        "ü" * 300,
        "a..b",
        ".",
        "..",
        "[",
        "]:80",
        "http://[v1.x]/",
        "\udcff.example",
        "-a-.example",
        "a" * 64 + ".example",
        "\u200b.example",
        "例子.测试",
        "1.2.3.4.5",
        "999.1.1.1",
        "0x.0x.0x.0x",
    ],
)
def test_normalise_host_never_raises(listed, weird):
    assert isinstance(normalise_host(weird), str)
    assert listed.match(weird) is None or isinstance(listed.match(weird), BlocklistEntry)


def test_normalise_host():
    assert normalise_host("HTTP://User@Bücher.Example.:8080/x") == "xn--bcher-kva.example"
    assert normalise_host("[2001:DB8::0:1]:80") == "2001:db8::1"
    assert normalise_host("2130706433") == "127.0.0.1"
    assert normalise_host("faß.de") == "xn--fa-hia.de"  # nontransitional: ß stays ß


class CountingDict(dict):
    probes = 0

    def get(self, key, default=None):
        CountingDict.probes += 1
        return super().get(key, default)


def test_one_probe_per_label_whatever_the_list_size():
    doc = make_doc(*(f"site{i}.example{i % 7}.com" for i in range(20_000)), "deep.example")
    bl = Blocklist.from_document(doc)
    assert len(bl) == 20_001
    bl._names = CountingDict(bl._names)
    for host, labels, hit in [
        ("a.b.c.d.e.f.unlisted.test", 8, False),
        ("x.y.deep.example", 3, True),
        (f"site19998.example{19998 % 7}.com", 1, True),
        ("www.site5.example5.com", 2, True),
    ]:
        CountingDict.probes = 0
        assert (bl.match(host) is not None) is hit
        assert CountingDict.probes == labels, host


# --------------------------------------------------------------------- duplicates


def test_duplicates_keep_the_earliest_added_first_on_a_tie():
    doc = make_doc()
    doc["blocked"] = [
        entry("bücher.example", added="2026-05-20", reason="first"),
        entry("xn--bcher-kva.example", added="2026-05-01", reason="earlier"),
        entry("XN--BCHER-KVA.EXAMPLE.", added="2026-05-01", reason="tie, later in the document"),
        entry("example.com", added="2026-05-23", reason="one"),
        entry("example.com", added="2026-05-23", reason="two"),
        entry("::ffff:192.0.2.1", added="2026-05-02", reason="mapped"),
        entry("192.0.2.1", added="2026-05-01", reason="plain"),
    ]
    bl = Blocklist.from_document(doc)
    assert len(bl) == 3 and bl.duplicates == 4
    assert bl.match("bücher.example").reason == "earlier"
    assert bl.match("example.com").reason == "one"
    assert bl.match("192.0.2.1").reason == "plain"
    assert len(bl.document["blocked"]) == 7  # the document itself is kept as published


# --------------------------------------------------------------------- with_extra


def test_with_extra_adds_local_opt_outs():
    base = Blocklist.from_document(make_doc("example.com"))
    bl = base.with_extra(["local.test", " Other.Test. ", "", "[2001:db8::7]", "198.51.100.7", "münchen.test"])
    assert len(base) == 1 and base.match("www.local.test") is None  # unchanged
    assert len(bl) == 6
    hit = bl.match("www.local.test")
    assert hit == BlocklistEntry("local.test", None, EXTRA_REASON, "local.test", False)
    assert bl.match("a.other.test").domain == "other.test"
    assert bl.match("http://[2001:db8::7]:80/").is_ip
    assert bl.match("198.51.100.7").domain == "198.51.100.7" and bl.match("x.198.51.100.7") is None
    assert bl.match("xn--mnchen-3ya.test").listed == "münchen.test"
    assert bl.document == base.document and bl.refresh_seconds == base.refresh_seconds
    assert bl.updated == base.updated


def test_with_extra_keeps_the_operator_entry_and_accepts_a_comma_string():
    base = Blocklist.from_document(make_doc("example.com"))
    bl = base.with_extra("example.com, www.example.com,local.test", reason="ops ticket 7")
    assert bl.match("example.com").reason == "email opt-out"
    assert bl.match("www.example.com").reason == "ops ticket 7"  # more specific
    assert bl.match("local.test").reason == "ops ticket 7"
    assert base.with_extra([]) is base


@pytest.mark.parametrize("bad", ["https://x.com", "x.com/path", "x.com:80", "a b.com", "*.x.com", "a_b.com", 42, None])
def test_with_extra_rejects_a_bad_domain_by_name(bad):
    with pytest.raises(ValueError) as info:
        Blocklist.empty().with_extra(["fine.test", bad])
    assert repr(bad) in str(info.value)


# ------------------------------------------------------------------------- schema


def test_bundled_schema_is_a_fresh_valid_2020_12_schema():
    schema = bundled_schema()
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["properties"]["contract"]["const"] == CONTRACT
    assert set(schema["required"]) == {"contract", "updated", "operator", "contact", "policy", "blocked"}
    assert "refresh" not in schema["required"]
    schema["properties"].clear()
    assert bundled_schema()["properties"]  # a copy each time
    assert load_schema(bundled_schema()) == bundled_schema()


def _formats(node) -> set[str]:
    if isinstance(node, list):
        return set().union(*map(_formats, node)) if node else set()
    if isinstance(node, dict):
        found = {node["format"]} if isinstance(node.get("format"), str) else set()
        return found.union(*map(_formats, node.values()))
    return set()


#: For every format the schema uses: one value its checker must refuse.
MUST_REJECT = {
    "date-time": ["garbage", "2026-05-23", "2026-05-23 00:00:00Z"],
    "date": ["2026-13-01", "20260523"],
    "uri": ["wal.sh/bot", "http://a b"],
    "duration": ["6 hours", "PT", "P1DT"],
    "hostname": ["http://x.com", "x.com/path", "x.com:80", "a_b.com"],
    "idn-hostname": ["http://x.com", "x.com/path", "Bücher.example"],
    "ipv4": ["1.2.3", "01.2.3.4", "256.0.0.1"],
    "ipv6": ["[::1]", "fe80::1%eth0", "2001:db8::g"],
}


def test_every_format_in_the_schema_is_enforced():
    """Without the format extras installed, jsonschema silently skips a format: guard."""
    used = _formats(bundled_schema())
    assert used == set(MUST_REJECT)
    checker = Draft202012Validator.FORMAT_CHECKER
    for fmt, bad_values in MUST_REJECT.items():
        assert fmt in checker.checkers, f"format {fmt!r} is not enforced: install jsonschema[format-nongpl]"
        for bad in bad_values:
            assert not checker.conforms(bad, fmt), (fmt, bad)
    assert checker.conforms("bücher.example", "idn-hostname") and checker.conforms("PT6H", "duration")


@pytest.mark.parametrize(
    ("schema", "reason"),
    [
        ({"type": 12}, "schema: type: 12 is not valid under any of the given schemas"),
        ({"properties": {"a": {"pattern": "(unclosed"}}}, "schema: properties.a.pattern: '(unclosed' is not a 'regex'"),
        ({"$ref": "#/$defs/nope"}, "schema: unresolvable $ref '#/$defs/nope'"),
        ({"$ref": "https://elsewhere.example/schema.json"}, "schema: unresolvable $ref"),  # never fetched
        ([], "schema: must be a JSON object, got list"),
        (b"{", "schema: not JSON"),
        (b"\xff", "schema: not UTF-8"),
        ("true", "schema: must be a JSON object, got bool"),
    ],
)
def test_invalid_schema_has_a_schema_reason(schema, reason):
    with pytest.raises(InvalidSchema) as info:
        load_schema(schema)
    assert str(info.value).startswith(reason)
    assert isinstance(info.value, InvalidBlocklist) and isinstance(info.value, ValueError)
    if isinstance(schema, (dict, list)):
        with pytest.raises(InvalidSchema, match="^schema: "):
            Blocklist.from_document(SPEC_EXAMPLE, schema=schema)


def test_invalid_published_schema_falls_back_to_the_bundled_one():
    def adopt(raw_doc: bytes, published: object) -> Blocklist:  # what the middleware does
        try:
            schema = load_schema(published)
        except ValueError:
            schema = bundled_schema()
        return Blocklist.from_document(raw_doc, schema=schema)

    assert adopt(SPEC_EXAMPLE.encode(), b"<html>502 Bad Gateway</html>").match("www.example.com")
    assert adopt(SPEC_EXAMPLE.encode(), {"type": "nonsense"}).match("www.example.com")
    with pytest.raises(InvalidBlocklist, match="contract"):  # and the bundled schema is still strict
        adopt(SPEC_EXAMPLE.replace("/v1", "/v9").encode(), {"type": "nonsense"})


#: The schema as first published (entries in $defs behind a $ref, explicit
#: additionalProperties): a published schema may be shaped differently from ours.
ORIGINAL_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://wal.sh/.well-known/walsh-research/blocklist.schema.json",
    "type": "object",
    "required": ["contract", "updated", "operator", "contact", "policy", "blocked"],
    "properties": {
        "contract": {"const": "walsh-research-blocklist/v1"},
        "updated": {"type": "string", "format": "date-time"},
        "operator": {"type": "string", "minLength": 1},
        "contact": {"type": "string", "minLength": 1},
        "policy": {"type": "string", "format": "uri"},
        "refresh": {"type": "string", "format": "duration"},
        "blocked": {"type": "array", "items": {"$ref": "#/$defs/entry"}},
    },
    "additionalProperties": True,
    "$defs": {
        "entry": {
            "type": "object",
            "required": ["domain", "added", "reason"],
            "properties": {
                "domain": {"type": "string", "format": "hostname"},
                "added": {"type": "string", "format": "date"},
                "reason": {"type": "string"},
            },
            "additionalProperties": True,
        }
    },
}


def test_a_published_schema_is_what_validates():
    assert Blocklist.from_document(SPEC_EXAMPLE, schema=ORIGINAL_SCHEMA).match("example.com")
    # this one only knows ASCII hostnames
    assert rejected(make_doc("bücher.example"), schema=ORIGINAL_SCHEMA) == (
        "blocked[0].domain: 'bücher.example' is not a 'hostname'"
    )
    stricter = copy.deepcopy(ORIGINAL_SCHEMA)
    stricter["$defs"]["entry"]["properties"]["reason"]["minLength"] = 1
    stricter["$defs"]["entry"]["additionalProperties"] = False
    assert rejected(make_doc("example.com", blocked=[entry("a.test", reason="")]), schema=stricter) == (
        "blocked[0].reason: '' should be non-empty"
    )
    assert "('ticket' was unexpected)" in rejected(make_doc(blocked=[entry("a.test", ticket=1)]), schema=stricter)


@pytest.mark.parametrize(
    ("doc", "reason"),
    [
        (make_doc("example.com", contract="walsh-research-blocklist/v2"), "contract: must be"),
        (make_doc(blocked={"example.com": {}}), "blocked: must be a list, got dict"),
        (make_doc(blocked=["example.com"]), "blocked[0]: must be an object, got str"),
        (with_bad_entry(entry("http://x.com")), "blocked[3].domain: 'http://x.com' is not a hostname or IP address"),
        (with_bad_entry(entry("x.com/p")), "blocked[3].domain: 'x.com/p' is not a hostname"),
        (with_bad_entry(entry("x.com\n")), "blocked[3].domain: 'x.com\\n' is not a hostname"),
        (with_bad_entry(entry(None)), "blocked[3].domain: None is not a string"),
        (with_bad_entry(entry("x.com", added="soon")), "blocked[3].added: 'soon' is not a date"),
        (with_bad_entry(entry("x.com", reason=3)), "blocked[3].reason: 3 is not a string"),
        (make_doc(updated="now"), "updated: 'now' is not an RFC 3339 date-time"),
        (make_doc(refresh="6h"), "refresh: '6h' is not an ISO-8601 duration"),
    ],
)
def test_the_library_checks_what_it_relies_on_even_under_a_lax_schema(doc, reason):
    assert rejected(doc, schema={}).startswith(reason)


# ------------------------------------------ the compiled entry check vs jsonschema

ENTRY_CORPUS = [
    entry("example.com"),
    entry("bücher.example"),
    entry("xn--bcher-kva.example"),
    entry("192.0.2.1"),
    entry("2001:db8::1"),
    entry("localhost"),
    entry("EXAMPLE.COM."),
    entry("127.1"),
    entry("http://x.com"),
    entry("x.com/p"),
    entry("x.com:1"),
    entry("x.com\n"),
    entry(" x.com"),
    entry(""),
    entry("Bücher.example"),
    entry("[::1]"),
    entry("a_b.com"),
    entry("-a.com"),
    entry("a" * 64 + ".com"),
    entry(5),
    entry(None),
    entry(["x.com"]),
    entry("x.com", added="2026-02-30"),
    entry("x.com", added=20260523),
    entry("x.com", reason=None),
    entry("x.com", reason=""),
    entry("x.com", extra=1),
    {"domain": "x.com", "added": "2026-05-23"},
    {"domain": "x.com"},
    {},
    "x.com",
    None,
    3,
    [],
    True,
]


@pytest.mark.parametrize("schema", [None, ORIGINAL_SCHEMA], ids=["bundled", "original"])
def test_compiled_entry_check_agrees_with_jsonschema(schema):
    plan = plan_for(schema)
    assert plan.skeleton is not None and plan.entry_ok is not None  # the fast path is on
    reference = Draft202012Validator(schema or bundled_schema(), format_checker=Draft202012Validator.FORMAT_CHECKER)
    for item in ENTRY_CORPUS:
        doc = make_doc(blocked=[item])
        assert plan.entry_ok(item) is reference.is_valid(doc), item
        assert plan.skeleton.is_valid(doc)


@pytest.mark.parametrize(
    "items",
    [
        {"type": "object", "properties": {"domain": {"const": "x.com"}}},  # keyword outside the subset
        {"type": "object", "unevaluatedProperties": False, "properties": {"domain": {}}},
        {"$ref": "#/properties/other"},  # a ref the fast path does not follow
    ],
)
def test_schemas_outside_the_subset_use_jsonschema_alone(items):
    schema = copy.deepcopy(ORIGINAL_SCHEMA)
    schema["properties"]["blocked"]["items"] = items
    schema["properties"]["other"] = {"type": "object", "required": ["domain"]}
    plan = plan_for(schema)
    assert plan.skeleton is None and plan.entry_ok is None
    assert rejected(make_doc(blocked=[entry("y.com"), {"reason": ""}]), schema=schema).startswith("blocked[")
