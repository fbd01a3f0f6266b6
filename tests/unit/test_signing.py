"""Web Bot Auth signing (scrapy_walsh.identity.webbotauth), checked against the RFCs' own examples and against
a signature base built here independently from RFC 9421's text, not by the library we sign with."""

from __future__ import annotations

import base64
import datetime
from urllib.parse import urlsplit

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ec import SECP256R1, generate_private_key

from scrapy_walsh.identity import webbotauth

#: RFC 9421 appendix B.1.4, "test-key-ed25519" (a published test key: never for production).
RFC9421_ED25519 = b"""-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF
-----END PRIVATE KEY-----
"""
AGENT = "https://wal.sh/.well-known/http-message-signatures-directory"


@pytest.fixture
def rfc_key(tmp_path):
    path = tmp_path / "test-key-ed25519.pem"
    path.write_bytes(RFC9421_ED25519)
    return webbotauth.load_private_key(path)


# -- an independent RFC 9421 signature base (section 2.5), for the components we sign ----------


def sf_string(text: str) -> str:
    """RFC 9651 section 4.1.6: a String is DQUOTE, with backslash-escaped \\ and ", DQUOTE."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def rfc_value(component: str, method: str, url: str, headers: dict[str, str]) -> str:
    parts = urlsplit(url)
    lower = {k.lower(): v.strip() for k, v in headers.items()}
    if component == "@method":  # 2.2.1
        return method
    if component == "@authority":  # 2.2.3: host, lowercase, default port omitted
        default = {"http": 80, "https": 443}[parts.scheme]
        host = parts.hostname or ""
        return host if parts.port in (None, default) else f"{host}:{parts.port}"
    if component == "@path":  # 2.2.6: an empty path is "/"
        return parts.path or "/"
    if component.startswith('"signature-agent";key='):  # 2.1.2: the member, re-serialized
        key = component.split("key=")[1].strip('"')
        members = dict(item.split("=", 1) for item in lower["signature-agent"].split(", "))
        return members[key]
    return lower[component.strip('"')]  # 2.1: a field's trimmed value


def rfc_base(method: str, url: str, headers: dict[str, str], signature_input: str) -> bytes:
    """The signature base of the one signature in ``signature_input``, per RFC 9421 section 2.5."""
    _label, params_value = signature_input.split("=", 1)
    inner = params_value[1 : params_value.index(")")]
    components = [c for c in inner.split(" ") if c]
    lines = []
    for component in components:
        name = component if component.startswith('"signature-agent"') else component.strip('"')
        lines.append(f"{component}: {rfc_value(name, method, url, headers)}")
    lines.append(f'"@signature-params": {params_value}')
    return "\n".join(lines).encode("ascii")


def signature_bytes(signature_header: str) -> bytes:
    return base64.b64decode(signature_header.split("=", 1)[1].strip(":"))


def test_independent_base_reproduces_rfc9421_b26(rfc_key):
    """The independent base is right: RFC 9421 B.2.6 (ed25519 is deterministic, so exact bytes)."""
    headers = {
        "Host": "example.com",
        "Date": "Tue, 20 Apr 2021 02:07:55 GMT",
        "Content-Type": "application/json",
        "Content-Length": "18",
    }
    signature_input = (
        'sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length")'
        ';created=1618884473;keyid="test-key-ed25519"'
    )
    base = rfc_base("POST", "https://example.com/foo?param=Value&Pet=dog", headers, signature_input)
    assert base.decode() == (
        '"date": Tue, 20 Apr 2021 02:07:55 GMT\n"@method": POST\n"@path": /foo\n"@authority": example.com\n'
        '"content-type": application/json\n"content-length": 18\n"@signature-params": ("date" "@method" "@path" '
        '"@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"'
    )
    assert base64.b64encode(rfc_key.sign(base)).decode() == (
        "wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw=="
    )


def test_known_answer_signature_verifies_against_the_independent_base(rfc_key):
    created = datetime.datetime(2026, 11, 23, 9, 0, tzinfo=datetime.timezone.utc)
    url = "https://Example.COM:443/robots.txt"
    headers = {"User-Agent": "Mozilla/5.0 (compatible; Walsh-Research/1.0; +https://wal.sh/bot/)"}
    signed = webbotauth.sign_request(rfc_key, "GET", url, headers, AGENT, created=created, form="dictionary")
    assert signed.signature_agent == f'sig1="{AGENT}"'
    assert signed.signature_input == (
        'sig1=("@method" "@authority" "@path" "signature-agent";key="sig1")'
        ';created=1795424400;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";alg="ed25519"'
        ';expires=1795424700;tag="web-bot-auth"'
    )
    base = rfc_base("GET", url, {**headers, **signed.as_dict()}, signed.signature_input)
    assert base.decode().splitlines()[:4] == [
        '"@method": GET',
        '"@authority": example.com',
        '"@path": /robots.txt',
        f'"signature-agent";key="sig1": "{AGENT}"',
    ]
    rfc_key.public_key().verify(signature_bytes(signed.signature), base)  # raises if it does not verify
    assert signature_bytes(signed.signature) == rfc_key.sign(base)  # deterministic: the exact bytes
    assert headers == {"User-Agent": headers["User-Agent"]}  # the caller's headers are left alone


def test_the_default_string_form_covers_the_whole_field_as_deployed_verifiers_do(rfc_key):
    """The default: ``Signature-Agent: "URL"``, covered whole, so a verifier that signs a field's
    whole value whatever its parameters (npm web-bot-auth) computes the same base as RFC 9421."""
    created = datetime.datetime(2026, 11, 23, 9, 0, tzinfo=datetime.timezone.utc)
    url = "https://example.com/robots.txt"
    signed = webbotauth.sign_request(rfc_key, "GET", url, {}, AGENT, created=created)
    assert signed.signature_agent == f'"{AGENT}"'
    assert signed.signature_input.startswith('sig1=("@method" "@authority" "@path" "signature-agent");')
    base = rfc_base("GET", url, signed.as_dict(), signed.signature_input)
    assert base.decode().splitlines()[3] == f'"signature-agent": "{AGENT}"'
    rfc_key.public_key().verify(signature_bytes(signed.signature), base)
    live = webbotauth.sign_request(rfc_key, "GET", url, {}, AGENT)
    keys = webbotauth.directory_keys(webbotauth.directory([rfc_key]))
    assert webbotauth.verify_request("GET", url, live.as_dict(), keys).signature_agent == AGENT


def test_a_tampered_header_fails_both_verifiers(rfc_key):
    url = "http://127.0.0.1:8080/page"
    signed = webbotauth.sign_request(rfc_key, "GET", url, {}, AGENT)
    keys = webbotauth.directory_keys(webbotauth.directory([rfc_key]))
    good = signed.as_dict()
    assert webbotauth.verify_request("GET", url, good, keys).keyid == webbotauth.keyid(rfc_key)

    tampered = {**good, "Signature-Agent": 'sig1="https://evil.example/.well-known/http-message-signatures-directory"'}
    with pytest.raises(webbotauth.SignatureInvalid):
        webbotauth.verify_request("GET", url, tampered, keys)
    with pytest.raises(InvalidSignature):
        rfc_key.public_key().verify(
            signature_bytes(signed.signature), rfc_base("GET", url, tampered, signed.signature_input)
        )
    for other_method, other_url in (("POST", url), ("GET", "http://127.0.0.2:8080/page"), ("GET", url + "2")):
        with pytest.raises(webbotauth.SignatureInvalid):
            webbotauth.verify_request(other_method, other_url, good, keys)


def test_verifier_needs_our_key_the_tag_the_agent_and_a_live_signature(rfc_key):
    url = "https://example.com/"
    other = webbotauth.generate_key()
    keys = {webbotauth.keyid(rfc_key): rfc_key.public_key()}
    with pytest.raises(webbotauth.SignatureInvalid):  # signed by a key the directory does not hold
        webbotauth.verify_request("GET", url, webbotauth.sign_request(other, "GET", url, {}, AGENT).as_dict(), keys)
    no_agent = webbotauth.sign_request(rfc_key, "GET", url, {}, AGENT, components=("@authority",)).as_dict()
    with pytest.raises(webbotauth.SignatureInvalid, match="Signature-Agent"):
        webbotauth.verify_request("GET", url, no_agent, keys)
    old = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(hours=1)
    expired = webbotauth.sign_request(rfc_key, "GET", url, {}, AGENT, created=old).as_dict()
    with pytest.raises(webbotauth.SignatureInvalid, match="expires"):
        webbotauth.verify_request("GET", url, expired, keys)
    missing = {
        k: v for k, v in webbotauth.sign_request(rfc_key, "GET", url, {}, AGENT).as_dict().items() if k != "Signature"
    }
    with pytest.raises(webbotauth.SignatureInvalid):
        webbotauth.verify_request("GET", url, missing, keys)


def test_signature_agents_reads_the_dictionary_and_the_legacy_string():
    assert webbotauth.signature_agents({"Signature-Agent": f'sig1="{AGENT}", x="https://a.test/";p=1'}) == {
        "sig1": AGENT
    }
    legacy = {"signature-agent": f'"{AGENT}"', "signature-input": 'sig2=("@authority");created=1'}
    assert webbotauth.signature_agents(legacy) == {"sig2": AGENT}
    with pytest.raises(webbotauth.SignatureInvalid):
        webbotauth.signature_agents({"Signature-Agent": "sig1=(("})


def test_thumbprints_match_rfc7638_and_rfc8037_examples(rfc_key):
    rfc7638 = {  # RFC 7638 section 3.1
        "kty": "RSA",
        "n": (
            "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJE"
            "CPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2Q"
            "vzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6"
            "WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"
        ),
        "e": "AQAB",
        "alg": "RS256",
        "kid": "2011-04-29",
    }
    assert webbotauth.jwk_thumbprint(rfc7638) == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
    rfc8037 = {"kty": "OKP", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}  # A.3
    assert webbotauth.jwk_thumbprint(rfc8037) == "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"
    assert webbotauth.public_jwk(rfc_key)["x"] == "JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs"
    assert webbotauth.keyid(rfc_key) == "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U"


def test_directory_document_and_its_checks(rfc_key):
    document = webbotauth.directory([rfc_key])
    assert document == {
        "keys": [
            {
                "kty": "OKP",
                "crv": "Ed25519",
                "x": "JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs",
                "kid": "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U",
                "use": "sig",
            }
        ]
    }
    assert set(webbotauth.directory_keys(document)) == {webbotauth.keyid(rfc_key)}
    mislabelled = {"keys": [{**document["keys"][0], "kid": "someone-else"}]}
    with pytest.raises(webbotauth.SigningError, match="thumbprint"):
        webbotauth.directory_keys(mislabelled)
    with pytest.raises(webbotauth.SigningError, match="JWKS"):
        webbotauth.directory_keys([document])
    assert webbotauth.directory_keys({"keys": [{"kty": "RSA", "n": "x", "e": "AQAB"}]}) == {}


def test_key_loading_errors_name_the_file(tmp_path):
    missing = tmp_path / "absent.pem"
    with pytest.raises(webbotauth.SigningError, match="absent.pem"):
        webbotauth.load_private_key(missing)
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("not a key\n")
    with pytest.raises(webbotauth.SigningError, match="garbage.pem.*not a PEM private key"):
        webbotauth.load_private_key(garbage)
    ec = tmp_path / "ec.pem"
    ec.write_bytes(
        generate_private_key(SECP256R1()).private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    with pytest.raises(webbotauth.SigningError, match="ec.pem.*not an Ed25519 key"):
        webbotauth.load_private_key(ec)
    encrypted = tmp_path / "locked.pem"
    encrypted.write_bytes(
        webbotauth.generate_key().private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(b"secret"),
        )
    )
    with pytest.raises(webbotauth.SigningError, match="locked.pem.*encrypted"):
        webbotauth.load_private_key(encrypted)
    good = tmp_path / "good.pem"
    key = webbotauth.generate_key()
    good.write_bytes(webbotauth.private_pem(key))
    assert webbotauth.keyid(webbotauth.load_private_key(good)) == webbotauth.keyid(key)


def test_record_signature_canonical_json_and_tampering(rfc_key):
    record = {
        "spec": "walsh-research-compliance/v1",
        "figures": {"rate": 1.0, "share": 0.25},
        "name": "Zoë",
        "ok": True,
    }
    assert (
        webbotauth.canonical_json(record)
        == ('{"figures":{"rate":1,"share":0.25},"name":"Zoë","ok":true,"spec":"walsh-research-compliance/v1"}').encode()
    )
    reordered = dict(reversed(list(record.items())))
    signature = webbotauth.sign_record(rfc_key, record)
    keys = webbotauth.directory_keys(webbotauth.directory([rfc_key]))
    assert webbotauth.verify_record(reordered, signature, keys) == webbotauth.keyid(rfc_key)
    with pytest.raises(webbotauth.SignatureInvalid, match="altered"):
        webbotauth.verify_record({**record, "ok": False}, signature, keys)
    with pytest.raises(webbotauth.SignatureInvalid, match="unknown key"):
        webbotauth.verify_record(record, webbotauth.sign_record(webbotauth.generate_key(), record), keys)
    with pytest.raises(webbotauth.SigningError):
        webbotauth.canonical_json({"x": float("nan")})


def test_canonical_json_reaches_every_number_inside_a_journal_entry():
    """The values written as they are (strings, integers, booleans, null) and the floats,
    at every depth, in the shapes a journal entry holds."""
    from scrapy_walsh.policy.vocabulary import IntervalWhy

    entry = {
        "t": 1764230000.0,
        "interval": 1.5,
        "why": IntervalWhy.FLOOR,
        "robots": {"verdict": "allowed", "origin": None, "source": ["fetched", 2.0, (3.0, True)]},
        "status": 200,
        "sent": False,
        7: "a key that is not a string",
    }
    assert (
        webbotauth.canonical_json(entry)
        == (
            '{"7":"a key that is not a string","interval":1.5,"robots":{"origin":null,"source":["fetched",2,[3,true]],'
            f'"verdict":"allowed"}},"sent":false,"status":200,"t":1764230000,"why":"{IntervalWhy.FLOOR}"}}'
        ).encode()
    )
    with pytest.raises(webbotauth.SigningError):
        webbotauth.canonical_json({"robots": {"source": [float("inf")]}})


def test_canonical_json_builds_no_encoder_per_record(monkeypatch):
    """The journal writes two lines per request: the encoder is built once, not per line."""
    import json

    built = []
    real = json.JSONEncoder.__init__
    monkeypatch.setattr(json.JSONEncoder, "__init__", lambda self, **k: built.append(k) or real(self, **k))
    for n in range(10):
        assert webbotauth.canonical_json({"seq": n, "b": [1.0], "a": "é"}) == f'{{"a":"é","b":[1],"seq":{n}}}'.encode()
    assert built == []
