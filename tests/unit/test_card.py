"""The Signature Agent Card and the key directory, checked against JSON Schemas written in
tests/data from draft-meunier-webbotauth-registry-04 and the httpsig-protocol draft's directory
format (not from our code), and the findings a card gives against the running settings."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import jsonschema
import pytest

from scrapy_walsh.identity import agent_card, webbotauth

DATA = Path(__file__).resolve().parent.parent / "data"
CARD_SCHEMA = json.loads((DATA / "signature-agent-card.schema.json").read_text())
DIRECTORY_SCHEMA = json.loads((DATA / "http-message-signatures-directory.schema.json").read_text())


def schema_errors(schema, document) -> list[str]:
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(document)]


@pytest.fixture
def key():
    return webbotauth.generate_key()


def ours(key, **changes):
    fields = dict(
        name="WalshBot",
        user_agent="Mozilla/5.0 (compatible; WalshBot/1.0; +https://wal.sh/bot/)",
        keys=[key],
        interval=1.0,
        purposes=["search", "train-ai"],
        contact="bots@wal.sh",
        policy="https://wal.sh/bot/",
    )
    return agent_card.build(**{**fields, **changes})


def test_our_card_has_registry_04s_structure(key):
    document = ours(key)
    assert schema_errors(CARD_SCHEMA, document) == []
    assert agent_card.validate(document) == []
    bot = document["web_bot_auth"]
    assert document["client_name"] == bot["rfc9309-product-token"] == "WalshBot"
    assert document["contacts"] == ["mailto:bots@wal.sh"] and document["client_uri"] == "https://wal.sh/bot/"
    assert bot["rfc9309-compliance"] is True and bot["trigger"] == "crawler"
    # the keys once, as a JWK Set: jwks.keys is the list of JWKs, never a JWKS inside a JWKS
    assert isinstance(document["jwks"]["keys"], list) and "keys" not in document["jwks"]["keys"][0]
    assert list(webbotauth.directory_keys(document["jwks"])) == [webbotauth.keyid(key)]


def test_the_old_flat_layout_fails_the_schema_and_validate(key):
    flat = {
        "client_name": "WalshBot",
        "expected-user-agent": "UA",
        "rfc9309-product-token": "WalshBot",
        "rate-expectation": "at most 1 request per 1 s per host",
        "keys": webbotauth.directory([key]),
    }
    assert schema_errors(CARD_SCHEMA, flat)
    assert "keys is not a top-level member (registry-04 puts the bot's members in web_bot_auth)" in agent_card.validate(
        flat
    )
    both = {**ours(key), "jwks_uri": "https://wal.sh/.well-known/http-message-signatures-directory"}
    assert schema_errors(CARD_SCHEMA, both) and "a card must not carry both jwks and jwks_uri" in agent_card.validate(
        both
    )


def test_the_example_card_validates_with_both_schema_and_code():
    example = json.loads((DATA / "signature-agent-card.example.json").read_text())
    assert schema_errors(CARD_SCHEMA, example) == []
    assert agent_card.validate(example) == []


@pytest.mark.parametrize("interval", [1.0, 1.5, 3.0, 7.0, 60.0])
def test_the_rate_expectation_is_machine_readable_and_per_host(key, interval):
    text = ours(key, interval=interval)["web_bot_auth"]["rate-expectation"]
    params = dict(part.split("=") for part in text.split(";"))
    assert params["per"] == "host" and params["interval"] == f"{interval:g}s"
    assert float(params["max"].removesuffix("rps")) == pytest.approx(1 / interval, rel=1e-5)
    assert agent_card.expected_interval(text) == interval


@pytest.mark.parametrize(
    "text", ["avg=10rps;max=100rps", "500 rps", "at most 1 request per 1 s per host", None, 3, "per=host"]
)
def test_a_rate_expectation_that_promises_nothing_per_host_reads_as_none(text):
    assert agent_card.expected_interval(text) is None


def test_our_key_directory_has_the_httpsig_directory_format(key):
    directory = webbotauth.directory([key, webbotauth.generate_key()])
    assert schema_errors(DIRECTORY_SCHEMA, directory) == []
    for jwk in directory["keys"]:
        # the draft: at the well-known URI a kid is the RFC 7638 thumbprint, computed here by hand
        members = json.dumps({"crv": jwk["crv"], "kty": jwk["kty"], "x": jwk["x"]}, separators=(",", ":"))
        thumbprint = base64.urlsafe_b64encode(hashlib.sha256(members.encode()).digest()).rstrip(b"=").decode()
        assert jwk["kid"] == thumbprint
    leaked = {"keys": [{**directory["keys"][0], "d": "private"}]}
    assert schema_errors(DIRECTORY_SCHEMA, leaked)


def test_a_crawl_looser_than_its_card_is_a_finding(key):
    published = ours(key, interval=2.0, purposes=["search"])
    agent = published["web_bot_auth"]["expected-user-agent"]
    same = dict(user_agent=agent, token="walshbot", keyid=webbotauth.keyid(key))
    assert agent_card.findings(published, interval=2.0, purposes=["search"], **same) == []
    (finding,) = agent_card.findings(published, interval=1.0, purposes=["search"], **same)
    assert "WALSH_MIN_INTERVAL is 1 s, looser than the card's rate expectation" in finding
    (finding,) = agent_card.findings(published, interval=2.0, purposes=["search", "train-ai"], **same)
    assert "WALSH_PURPOSES includes train-ai" in finding
    (finding,) = agent_card.findings(published, interval=2.0, purposes=["search"], **{**same, "keyid": "other"})
    assert "key other, which the card does not list" in finding
    (finding,) = agent_card.findings(published, interval=2.0, purposes=["search"], **{**same, "token": "OtherBot"})
    assert "product token is 'OtherBot'" in finding


def test_with_the_bots_public_url_the_card_names_itself_and_its_key_directory(key):
    document = ours(key, base_url="https://wal.sh/bot/")
    assert schema_errors(CARD_SCHEMA, document) == [] and agent_card.validate(document) == []
    assert document["client_id"] == "https://wal.sh/bot/.well-known/signature-agent-card.json"
    assert document["jwks_uri"] == "https://wal.sh/bot/.well-known/http-message-signatures-directory"
    assert "jwks" not in document  # RFC 7591: never both
    assert "client_id" not in ours(key, base_url=None) and "client_id" not in ours(key, base_url="public/")


def test_the_bot_page_links_its_client_ranges_and_says_it_renders_nothing():
    from scrapy_walsh.identity import bot_page

    facts = bot_page.BotFacts(
        token="WalshBot", user_agent="UA", interval=1.0, purposes=("search",), operator="W", contact="b@w",
        policy=None, keyids=(), ip_ranges=("192.0.2.0/24",), heads=0,
    )  # fmt: skip
    page = bot_page.render(facts)
    assert '<link rel="client-ranges" href="ips.json" type="application/json">' in page
    assert 'rel="client-ranges"' in page.split("</head>")[1]  # the visible link too
    assert "does not render pages" in page
    assert 'rel="client-ranges"' not in bot_page.render(facts.__class__(**{**facts.__dict__, "ip_ranges": ()}))
