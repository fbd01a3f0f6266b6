"""Verifiable identity: Web Bot Auth request signatures, the key directory, signed records.

Implements draft-ietf-webbotauth-httpsig-protocol-01 over RFC 9421 (HTTP Message Signatures),
with Ed25519 keys and RFC 7638 thumbprints; attestation records are signed detached, Ed25519
over :func:`canonical_json`. Everything here is pure (no Scrapy, no network): ``scrapy walsh
keys``, the request signer and ``check --sign`` do the I/O. docs/verifiable-identity.md shows what
is signed; docs/architecture.md ("The modules, one by one") says how and with which libraries.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import http_sf
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from http_message_signatures import HTTPMessageSigner, HTTPMessageVerifier, HTTPSignatureKeyResolver, algorithms
from http_message_signatures.exceptions import HTTPMessageSignaturesException
from http_message_signatures.exceptions import InvalidSignature as _LibraryInvalid

from scrapy_walsh.policy.urls import split
from scrapy_walsh.verify import ALG as ALG
from scrapy_walsh.verify import CANONICALIZATION as CANONICALIZATION
from scrapy_walsh.verify import SignatureInvalid as SignatureInvalid
from scrapy_walsh.verify import SigningError as SigningError
from scrapy_walsh.verify import b64url as _b64url
from scrapy_walsh.verify import canonical_json as canonical_json
from scrapy_walsh.verify import directory_keys as directory_keys
from scrapy_walsh.verify import jwk_public_key as jwk_public_key
from scrapy_walsh.verify import jwk_thumbprint as jwk_thumbprint
from scrapy_walsh.verify import keyid as keyid
from scrapy_walsh.verify import public_jwk as public_jwk
from scrapy_walsh.verify import verify_record as verify_record

#: The revision of the Web Bot Auth protocol draft implemented here.
DRAFT = "draft-ietf-webbotauth-httpsig-protocol-01"
TAG = "web-bot-auth"
LABEL = "sig1"
DIRECTORY_MEDIA_TYPE = "application/http-message-signatures-directory+json"
WELL_KNOWN_PATH = "/.well-known/http-message-signatures-directory"
#: How Signature-Agent is sent. ``string``: an sf-string, covered whole (``"signature-agent"``),
#: which strict RFC 9421 verifiers, Cloudflare's and the npm web-bot-auth library verify;
#: ``dictionary``: the draft's Dictionary, its member covered (``;key``), which web-bot-auth
#: rejects (it signs the whole field whatever the parameter). docs/verifiable-identity.md.
STRING, DICTIONARY = "string", "dictionary"
#: Covered components, per form: the draft's required pair, then the recommended narrowing.
COMPONENTS = ("@method", "@authority", "@path", f'"signature-agent";key="{LABEL}"')
STRING_COMPONENTS = ("@method", "@authority", "@path", '"signature-agent"')
#: How long a request signature stays valid: it is sent at once, and replayable until it expires.
LIFETIME = datetime.timedelta(minutes=5)


# -- keys ---------------------------------------------------------------------------------


def load_private_key(path: str | Path) -> Ed25519PrivateKey:
    """The Ed25519 private key in the PEM (PKCS#8) file ``path``; errors name the file."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise SigningError(f"cannot read the signing key {str(path)!r}: {exc.strerror or exc}") from None
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except TypeError:
        raise SigningError(f"the signing key {str(path)!r} is encrypted; give an unencrypted PKCS#8 key") from None
    except (ValueError, UnsupportedAlgorithm) as exc:
        raise SigningError(f"the signing key {str(path)!r} is not a PEM private key ({exc})") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise SigningError(f"the signing key {str(path)!r} is a {type(key).__name__}, not an Ed25519 key")
    return key


def generate_key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


def private_pem(key: Ed25519PrivateKey) -> bytes:
    """PKCS#8 PEM, unencrypted (the file's 0600 mode protects it)."""
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def public_pem(key: Ed25519PrivateKey | Ed25519PublicKey) -> bytes:
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    return public.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def directory(keys: Iterable[Ed25519PrivateKey | Ed25519PublicKey]) -> dict[str, Any]:
    """The key directory document (a JWKS): each key with ``kid`` = its thumbprint and ``use`` = sig."""
    entries = []
    for key in keys:
        jwk: dict[str, Any] = public_jwk(key)
        entries.append({**jwk, "kid": jwk_thumbprint(jwk), "use": "sig"})
    return {"keys": entries}


# -- request signatures ---------------------------------------------------------------------


class SignatureHeaders(NamedTuple):
    """The three header values a signed request carries."""

    signature_input: str
    signature: str
    signature_agent: str

    def as_dict(self) -> dict[str, str]:
        return {
            "Signature-Input": self.signature_input,
            "Signature": self.signature,
            "Signature-Agent": self.signature_agent,
        }


@dataclass
class _Message:
    """The request as http-message-signatures reads it (method, URL, header lines)."""

    method: str
    url: str
    headers: dict[str, str]


class _Keys(HTTPSignatureKeyResolver):
    """http-message-signatures' key resolver over our keys, by keyid."""

    def __init__(self, public: Mapping[str, Ed25519PublicKey], private: Ed25519PrivateKey | None = None):
        self.public = public
        self.private = private

    def resolve_public_key(self, key_id: str) -> Ed25519PublicKey | None:
        return self.public.get(key_id)

    def resolve_private_key(self, key_id: str) -> Ed25519PrivateKey:
        assert self.private is not None
        return self.private


def _verifier_at(at: datetime.datetime) -> type[HTTPMessageVerifier]:
    """A verifier whose clock reads ``at``: the library checks ``created`` and ``expires`` against now."""

    class VerifierAt(HTTPMessageVerifier):
        def validate_created_and_expires(self, sig_input: Any, max_age: Any = None) -> None:
            params = sig_input.params
            for name in ("created", "expires"):
                if name in params:
                    self._parse_integer_timestamp(params[name], field_name=name)  # its type, and in range
            created, expires = params.get("created"), params.get("expires")
            skew = self.max_clock_skew.total_seconds()
            if created is None:
                raise _LibraryInvalid('Signature is missing a required "created" parameter')
            if created > at.timestamp() + skew:
                raise _LibraryInvalid('Signature "created" parameter is after the request arrived')
            if expires is not None and expires < at.timestamp() - skew:
                raise _LibraryInvalid('Signature "expires" parameter is before the request arrived')
            if max_age is not None and created + max_age.total_seconds() < at.timestamp() - skew:
                raise _LibraryInvalid(f"Signature age exceeds maximum allowable age {max_age}")

    return VerifierAt


def signature_agent_header(directory_url: str, label: str = LABEL, form: str = DICTIONARY) -> str:
    """``Signature-Agent``: a dictionary whose member ``label`` is the directory URL (a String),
    or for the ``string`` form the URL as an sf-string."""
    parts = split(directory_url)
    if parts.scheme not in ("https", "http") or not parts.netloc:
        raise SigningError(f"the signature agent {directory_url!r} is not an absolute http(s) URL")
    if form == STRING:
        return http_sf.ser(directory_url)
    return http_sf.ser({label: (directory_url, {})})


def sign_request(
    key: Ed25519PrivateKey,
    method: str,
    url: str,
    headers: Mapping[str, str],
    signature_agent: str,
    *,
    created: datetime.datetime | None = None,
    lifetime: datetime.timedelta = LIFETIME,
    components: Iterable[str] | None = None,
    form: str = STRING,
) -> SignatureHeaders:
    """Sign a request for Web Bot Auth; ``headers`` are its other headers, left unchanged.

    ``signature_agent`` is the URL of our key directory, sent in ``form`` (:data:`STRING` or
    :data:`DICTIONARY`); ``components`` default to the form's. ``created`` defaults to now (UTC).
    The https-only rule for that URL is the start-up audit's, so loopback tests can sign.
    """
    if components is None:
        components = STRING_COMPONENTS if form == STRING else COMPONENTS
    created = created or datetime.datetime.now(datetime.timezone.utc)
    message = _Message(method.upper(), url, dict(headers))
    for name in [n for n in message.headers if n.lower() in ("signature", "signature-input", "signature-agent")]:
        del message.headers[name]
    message.headers["Signature-Agent"] = signature_agent_header(signature_agent, form=form)
    kid = keyid(key)
    signer = HTTPMessageSigner(signature_algorithm=algorithms.ED25519, key_resolver=_Keys({}, key))
    try:
        signer.sign(
            message,
            key_id=kid,
            created=created,
            expires=created + lifetime,
            label=LABEL,
            tag=TAG,
            include_alg=True,
            covered_component_ids=tuple(components),
        )
    except HTTPMessageSignaturesException as exc:
        raise SigningError(f"cannot sign {method} {url}: {exc}") from None
    return SignatureHeaders(
        message.headers["Signature-Input"], message.headers["Signature"], message.headers["Signature-Agent"]
    )


def signature_agents(headers: Mapping[str, str]) -> dict[str, str]:
    """label -> directory URL from a request's ``Signature-Agent`` (a site's side).

    Members with parameters are ignored (the draft says so); the legacy bare-String form is
    read as the member of the only signature label. A malformed header is a SignatureInvalid.
    """
    value = _header(headers, "signature-agent")
    if value is None:
        return {}
    if value.lstrip().startswith('"'):
        url = _parse(value, "item")[0]
        labels = list(_parse(_header(headers, "signature-input", ""), "dictionary"))
        return {labels[0]: url} if len(labels) == 1 and isinstance(url, str) else {}
    members = _parse(value, "dictionary")
    return {label: member[0] for label, member in members.items() if isinstance(member[0], str) and not member[1]}


def _parse(value: str, kind: str) -> Any:
    """An http-sf parse of a Signature-Agent or Signature-Input value; malformed is SignatureInvalid."""
    try:
        return http_sf.parse(value.encode(), tltype=kind)
    except Exception as exc:  # noqa: BLE001 - http-sf raises several exception types
        raise SignatureInvalid(f"malformed Signature-Agent header: {exc}") from None


def _header(headers: Mapping[str, str], name: str, default: Any = None) -> Any:
    for key, value in headers.items():
        if key.lower() == name:
            return value
    return default


@dataclass(frozen=True)
class Verified:
    """What a valid Web Bot Auth signature tells a site: which key signed, naming which directory."""

    label: str
    keyid: str
    signature_agent: str
    created: int
    expires: int
    covered: tuple[str, ...]


def verify_request(
    method: str,
    url: str,
    headers: Mapping[str, str],
    keys: Mapping[str, Ed25519PublicKey],
    *,
    max_age: datetime.timedelta = datetime.timedelta(days=1),
    at: datetime.datetime | None = None,
) -> Verified:
    """Verify a request's Web Bot Auth signature as a site would; SignatureInvalid says why not.

    ``keys`` are keyid -> public key of the directory the caller resolved for the request's
    ``Signature-Agent`` (see :func:`signature_agents` and :func:`directory_keys`): a site keys
    its lookup on the (directory URL, key) pair. The signature must carry the tag
    ``web-bot-auth``, ``created``, ``expires`` and ``keyid``, cover ``@authority`` (or
    ``@target-uri``) and the ``Signature-Agent`` member of its own label (or the whole field, the
    ``string`` form), be unexpired, and
    verify under one of ``keys``. ``at``: judge ``created`` and ``expires`` as of that time (a request
    read from an access log, when it arrived), not now.
    """
    agents = signature_agents(headers)
    kind = HTTPMessageVerifier if at is None else _verifier_at(at)
    verifier = kind(signature_algorithm=algorithms.ED25519, key_resolver=_Keys(keys))
    message = _Message(method.upper(), url, dict(headers))
    try:
        results = verifier.verify(message, max_age=max_age, expect_tag=TAG)
    except HTTPMessageSignaturesException as exc:
        reason = str(exc) or "it does not verify: the request differs from what was signed, or another key signed it"
        raise SignatureInvalid(f"bad Web Bot Auth signature: {reason}") from None
    result = results[0]
    params = result.parameters
    covered = tuple(result.covered_components)
    for name in ("created", "expires", "keyid"):
        if name not in params:
            raise SignatureInvalid(f"the signature lacks the {name!r} parameter the draft requires")
    if '"@authority"' not in covered and '"@target-uri"' not in covered:
        raise SignatureInvalid("the signature covers neither @authority nor @target-uri")
    member = f'"signature-agent";key="{result.label}"' in covered or '"signature-agent"' in covered
    if not member or result.label not in agents:
        raise SignatureInvalid(f"the signature does not cover a Signature-Agent member of its label {result.label!r}")
    return Verified(
        label=result.label,
        keyid=str(params["keyid"]),
        signature_agent=agents[result.label],
        created=int(params["created"]),
        expires=int(params["expires"]),
        covered=covered,
    )


# -- attestation records ----------------------------------------------------------------------


def sign_record(key: Ed25519PrivateKey, record: Any) -> dict[str, str]:
    """A detached signature of ``record``: Ed25519 over :func:`canonical_json`, with its keyid."""
    return {
        "alg": ALG,
        "keyid": keyid(key),
        "canonicalization": CANONICALIZATION,
        "signature": _b64url(key.sign(canonical_json(record))),
    }
