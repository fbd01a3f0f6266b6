"""Verify a walsh-journal/v1 journal and the heads published for it: ``python -m scrapy_walsh.verify
DIR --key KEY.pub [--published DIR|URL]``.

It imports the standard library and ``cryptography`` only (no Scrapy, Twisted, nor the rest of
this package), so a site owner can run it as one file; ``scrapy walsh journal verify`` runs this
same code. docs/journal-format.md specifies, byte for byte, what it checks.
"""

from __future__ import annotations

import argparse
import base64
import datetime
import hashlib
import json
import math
import sys
import urllib.request
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from cryptography.exceptions import InvalidSignature as _CryptoInvalidSignature
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

FORMAT = "walsh-journal/v1"
#: ``prev`` of a file's first entry.
GENESIS = hashlib.sha256(FORMAT.encode("ascii")).hexdigest()
KINDS = ("open", "send", "outcome", "refusal", "head", "retention", "recovery", "close")
SUFFIX = ".jsonl"
#: The published heads document, its file name, and ``previous`` of its first head.
HEADS_FORMAT = "walsh-journal-heads/v1"
HEADS_NAME = "journal-heads.json"
HEADS_GENESIS = None
#: Where a publication keeps its key directory, relative to its folder (the draft's well-known URI).
DIRECTORY = ".well-known/http-message-signatures-directory"
ALG = "ed25519"
#: The canonicalisation that record signatures are computed over (see canonical_json).
CANONICALIZATION = "json-sorted-compact-utf8 (RFC 8785 subset)"
MAX_DOCUMENT_BYTES = 64 << 20
#: The latest time an entry may carry (9999-12-31 23:59:59 UTC): any later can't be written as a date.
MAX_TIME = 253402300799
TIMEOUT = 30


#: Why a journal file with no whole line fails.
EMPTY = "the file holds no entry: a journal file starts with its open entry (emptied, or not written by us)"


class SigningError(ValueError):
    """A key, a directory or a signature that can't be used; the message says which and why."""


class SignatureInvalid(SigningError):
    """A signature that does not verify (missing, malformed, expired, wrong key or tampered)."""


# ---------------------------------------------------------------------- canonical JSON, keys


def canonical_json(record: Any) -> bytes:
    """The bytes a record signature covers, and a journal line: RFC 8785 (JCS) for the values
    records hold.

    Object keys sorted, no whitespace, UTF-8 with non-ASCII characters unescaped, no NaN or
    infinity. It equals JCS for strings, integers, booleans, null, arrays and objects whose
    keys are in the Basic Multilingual Plane, and for floats that are not integral and lie
    in [1e-4, 1e16) (Python and ECMAScript write those the same shortest way); integral floats
    are written as integers, as JCS does. Signer and verifier both use this function.
    """
    return _CANONICAL.encode(_jcs_numbers(record)).encode("utf-8")


#: ``json.dumps`` builds an encoder per call for any but its default arguments: one, kept (the
#: request journal writes two lines per request)
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
#: Values JCS writes as ``json`` does: returned as they are, without the checks below
_AS_IS = frozenset((str, int, bool, type(None)))


def _jcs_numbers(value: Any) -> Any:
    if type(value) in _AS_IS:
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise SigningError(f"a signed record can't hold {value!r}")
        return int(value) if value.is_integer() and abs(value) < 2**53 else value
    if isinstance(value, dict):
        return {str(k): v if type(v) in _AS_IS else _jcs_numbers(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [v if type(v) in _AS_IS else _jcs_numbers(v) for v in value]
    return value


def load_json(data: bytes | str) -> Any:
    """JSON from bytes we did not write (a journal line, a published document): ValueError for
    anything else, including what Python's reader takes but JSON has not (NaN, Infinity) and a
    nesting too deep to read (which Python would raise as RecursionError)."""
    try:
        return json.loads(data, parse_constant=_no_constant)
    except RecursionError:
        raise ValueError("nested too deeply to be read") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def public_jwk(key: Ed25519PrivateKey | Ed25519PublicKey) -> dict[str, str]:
    """The public key as an RFC 8037 OKP JWK (no private member)."""
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return {"kty": "OKP", "crv": "Ed25519", "x": b64url(raw)}


#: RFC 7638 section 3.2: the required members of each key type, the only ones hashed.
_THUMBPRINT_MEMBERS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {"OKP": ("crv", "kty", "x"), "EC": ("crv", "kty", "x", "y"), "RSA": ("e", "kty", "n")}
)


def jwk_thumbprint(jwk: Mapping[str, Any]) -> str:
    """The RFC 7638 SHA-256 thumbprint of a JWK, base64url without padding."""
    try:
        members = {name: jwk[name] for name in _THUMBPRINT_MEMBERS[jwk["kty"]]}
    except KeyError as exc:
        raise SigningError(f"JWK lacks a member its thumbprint needs: {exc}") from None
    digest = hashlib.sha256(json.dumps(members, sort_keys=True, separators=(",", ":")).encode("utf-8")).digest()
    return b64url(digest)


def keyid(key: Ed25519PrivateKey | Ed25519PublicKey) -> str:
    """The ``keyid`` of a key: its JWK thumbprint (the draft requires exactly this)."""
    return jwk_thumbprint(public_jwk(key))


def jwk_public_key(jwk: Mapping[str, Any]) -> Ed25519PublicKey:
    """The Ed25519 public key of an OKP JWK; anything else is a SigningError."""
    if jwk.get("kty") != "OKP" or jwk.get("crv") != "Ed25519" or not isinstance(jwk.get("x"), str):
        raise SigningError(f"not an Ed25519 OKP JWK: kty={jwk.get('kty')!r} crv={jwk.get('crv')!r}")
    try:
        return Ed25519PublicKey.from_public_bytes(unb64url(jwk["x"]))
    except ValueError as exc:
        raise SigningError(f"JWK x is not a 32-byte base64url Ed25519 key ({exc})") from None


class Keys(dict[str, Ed25519PublicKey]):
    """keyid -> public key, and for a key whose JWK bounds its use (``nbf``, ``exp``: seconds
    since the epoch), that window (``windows``): a journal entry it signed must be dated in it."""

    def __init__(self) -> None:
        super().__init__()
        self.windows: dict[str, tuple[float, float]] = {}


def key_valid_at(keys: Mapping[str, Any], kid: str, t: Any) -> str | None:
    """Why key ``kid`` of ``keys`` could not sign at time ``t`` (outside its ``nbf``..``exp``); None when it could."""
    window = getattr(keys, "windows", {}).get(kid)
    if window is None:
        return None
    start, end = window
    if not start <= t <= end:
        return f"it is dated {when(t)}, outside the validity of key {kid} ({when(start)} to {when(end)})"
    return None


def directory_keys(document: Any) -> Keys:
    """keyid -> public key for each Ed25519 key of a directory document (a site's side).

    The ``kid`` of a key, when present, must equal its thumbprint (the draft requires it at the
    well-known URI; a verifier checks the labelling rather than trusting it). Keys of other
    types are skipped; a document that is not a JWKS is a SigningError. A key's ``nbf`` and
    ``exp`` (seconds since the epoch) are kept as its window (:class:`Keys`).
    """
    if not isinstance(document, dict) or not isinstance(document.get("keys"), list):
        raise SigningError('not a key directory: expected a JSON object with a "keys" array (a JWKS)')
    found = Keys()
    for jwk in document["keys"]:
        if not isinstance(jwk, dict) or jwk.get("kty") != "OKP" or jwk.get("crv") != "Ed25519":
            continue
        public = jwk_public_key(jwk)
        thumbprint = jwk_thumbprint(jwk)
        if "kid" in jwk and jwk["kid"] != thumbprint:
            raise SigningError(f"directory key kid {jwk['kid']!r} is not its thumbprint {thumbprint!r}")
        found[thumbprint] = public
        bounds = [jwk.get(name, default) for name, default in (("nbf", 0), ("exp", MAX_TIME))]
        if not all(_is_time(b) for b in bounds):
            raise SigningError(f"directory key {thumbprint!r}: nbf and exp must be times in seconds since 1970")
        if bounds != [0, MAX_TIME]:
            found.windows[thumbprint] = (float(bounds[0]), float(bounds[1]))
    return found


def _is_time(value: Any) -> bool:
    """A time the journal can hold: a number of seconds from 1970 to the end of year 9999."""
    return type(value) in (int, float) and 0 <= value <= MAX_TIME


def pem_public_keys(path: str) -> dict[str, Ed25519PublicKey]:
    """keyid -> key from a public key PEM (``KEY.pub``) or a private one (the bot's own)."""
    data = Path(path).read_bytes()
    try:
        if b"PRIVATE KEY" in data:
            private = serialization.load_pem_private_key(data, password=None)
            loaded: Any = private.public_key()
        else:
            loaded = serialization.load_pem_public_key(data)
    except (TypeError, ValueError, UnsupportedAlgorithm) as exc:
        raise SigningError(f"{path}: not an unencrypted PEM key: {exc}") from None
    if not isinstance(loaded, Ed25519PublicKey):
        raise SigningError(f"{path}: not an Ed25519 public key")
    return {keyid(loaded): loaded}


def verify_record(record: Any, signature: Mapping[str, Any], keys: Mapping[str, Ed25519PublicKey]) -> str:
    """Check a detached record signature against ``keys`` (keyid -> public key); return the keyid."""
    if not isinstance(signature, Mapping):
        raise SignatureInvalid("the record's signature is not a JSON object")
    if signature.get("alg") != ALG or signature.get("canonicalization") != CANONICALIZATION:
        raise SignatureInvalid(f"unsupported record signature: alg={signature.get('alg')!r}")
    kid = signature.get("keyid")
    if not isinstance(kid, str) or kid not in keys:
        raise SignatureInvalid(f"the record is signed by an unknown key {kid!r}")
    try:
        keys[kid].verify(unb64url(str(signature.get("signature", ""))), canonical_json(record))
    except (_CryptoInvalidSignature, ValueError):
        raise SignatureInvalid("the record's signature does not verify: it was altered or signed otherwise") from None
    return kid


def read_source(source: str, user_agent: str, limit: int = 1 << 20) -> bytes:
    """A published document's bytes, from a file or an http(s) URL fetched once as ``user_agent``
    without following redirects (as a site's verifier fetches); OSError or ValueError says why not."""
    if not source.startswith(("http://", "https://")):
        return Path(source).read_bytes()[: limit + 1]
    request = urllib.request.Request(source, headers={"User-Agent": user_agent}, method="GET")
    with urllib.request.build_opener(NoRedirect).open(request, timeout=TIMEOUT) as response:
        body: bytes = response.read(limit + 1)
    if len(body) > limit:
        raise ValueError(f"larger than {limit} bytes")
    return body


class NoRedirect(urllib.request.HTTPRedirectHandler):
    """A verifier must not follow redirects to a directory, so neither do we."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def published_source(location: str, name: str) -> str:
    """The URL or path of the published file ``name`` under ``location`` (a folder or a URL)."""
    if location.startswith(("http://", "https://")):
        return location.rstrip("/") + "/" + name
    return str(Path(location) / name)


def when(t: float) -> str:
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S") + "Z"


# ---------------------------------------------------------------------- one file


def line_hash(line: bytes) -> str:
    return hashlib.sha256(line).hexdigest()


@dataclass
class FileReport:
    """What :func:`verify_lines` found in one file."""

    name: str
    #: Whether signatures were checked (keys given).
    checked: bool = False
    entries: int = 0
    #: The chain head (hash of the last whole entry) and its seq.
    head: str = GENESIS
    seq: int = 0
    #: seq of the last signed head that verified (0: none).
    signed_seq: int = 0
    keyids: set[str] = field(default_factory=set)
    #: The first break, as ``(line number, seq or None, message)``; None when the chain holds.
    broken: tuple[int, int | None, str] | None = None
    #: The break is only the unsigned tail (a recovery in another file may cover it).
    tail_only: bool = False
    torn_tail: bool = False
    unverified_signatures: int = 0
    first: dict[str, Any] | None = None
    #: SHA-256 of the file's first line (its ``open``): two files with the same one are one file twice.
    opened: str = ""
    retention: list[dict[str, Any]] = field(default_factory=list)
    #: ``recovery`` entries that verified: each vouches for another file's unsigned tail.
    recoveries: list[dict[str, Any]] = field(default_factory=list)
    #: (first seq, last seq, crash time, recovering file) when a recovery covers the unsigned tail.
    recovered: tuple[int, int, float, str] | None = None
    #: (seq, t) of each ``head`` whose signature verified.
    heads: list[tuple[int, float]] = field(default_factory=list)
    #: seq of the last entry carrying a signature (checked or not), and of the ``close`` entry.
    sig_seq: int = 0
    close_seq: int = 0
    #: The last entry that verified, and those kept for a reader (``verify_lines(keep=...)``).
    last: dict[str, Any] | None = None
    kept: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.broken is None

    def verified_retention(self) -> list[dict[str, Any]]:
        """The retention entries a verified signature covers (all of them when none was checked)."""
        return [e for e in self.retention if not self.checked or e["seq"] <= self.signed_seq]

    @property
    def unsigned_tail(self) -> int:
        """Entries after the last verified signature (a crash, or no key)."""
        return self.seq - self.signed_seq


def verify_lines(
    name: str, data: bytes, keys: Mapping[str, Any] | None, keep: Callable[[dict[str, Any]], bool] | None = None
) -> FileReport:
    """Check one file's bytes: canonical lines, ``seq`` in order, each ``prev`` the hash of the
    line before, and every ``sig`` against ``keys`` (keyid -> public key; None: not checked).

    Nothing may follow ``close`` but its signed head, and a torn last line is tolerated only in a
    file that was not closed (a crash), never counted. With ``keys``, every entry must be covered
    by a head those keys signed: a crash's unsigned tail, or a chain rebuilt without its
    signatures, fails (unless a signed ``recovery`` elsewhere covers the tail: :func:`verify_path`).
    ``keep``: the entries that verified and it accepts are kept in :attr:`FileReport.kept`."""
    report = FileReport(name, checked=keys is not None)
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    elif lines:
        lines.pop()  # no newline at the end: the tail a kill -9 tore
        report.torn_tail = True
    if lines:
        report.opened = line_hash(lines[0])
    later = _seqs(lines)
    for number, line in enumerate(lines, 1):
        problem = _check(report, number, line, keys, later)
        if problem is not None:
            report.broken = problem
            return report
        if keep is not None and report.last is not None and keep(report.last):
            report.kept.append(report.last)
    _check_end(report, len(lines), keys)
    return report


def _check_end(report: FileReport, end: int, keys: Mapping[str, Any] | None) -> None:
    if not report.entries:
        # a writer's first line is its open: only a writer killed before it was whole leaves none,
        # and the next file then names this one at entry 0 (:func:`_link` accepts that)
        report.broken = (1, None, EMPTY)
    elif report.close_seq and report.torn_tail:
        report.broken = (
            end + 1,
            None,
            f"a partial line follows the close of the file at entry {report.close_seq} (added)",
        )
    elif report.close_seq and report.sig_seq and report.sig_seq < report.seq:
        # a signing writer ends a closed file with a signed head right after ``close``
        report.broken = (
            end,
            report.seq,
            f"the file was closed at entry {report.close_seq} but ends at entry {report.seq} without the signed "
            "head that follows close (entries were deleted or added at the end)",
        )
    elif keys is not None and report.signed_seq < report.seq:
        unsigned = report.seq - report.signed_seq
        report.tail_only = not report.close_seq
        report.broken = (
            end,
            report.seq,
            f"entries {report.signed_seq + 1} to {report.seq} ({unsigned} entries) are not covered by a head "
            "the key signed (a crash's unsigned tail, or signatures removed)",
        )


def _seqs(lines: list[bytes]) -> set[int]:
    """Every ``seq`` the file holds (to tell an entry moved from an entry deleted)."""
    found = set()
    for line in lines:
        try:
            seq = load_json(line).get("seq")
        except (ValueError, AttributeError):
            continue
        if _is_seq(seq):
            found.add(seq)
    return found


def _is_seq(value: Any) -> bool:
    return type(value) is int and value >= 0


def _is_hash(value: Any) -> bool:
    return isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)


def _is_day(value: Any) -> bool:
    try:
        return isinstance(value, str) and len(value) == 10 and bool(datetime.date.fromisoformat(value))
    except ValueError:
        return False


def _malformed(entry: Mapping[str, Any], first: bool) -> str | None:
    """What an entry lacks of the fields its kind must have, with their types (docs/journal-format.md)."""
    if not _is_time(entry.get("t")):
        return "has no time t (a number of seconds since 1970)"
    kind = entry.get("kind")
    if first != (kind == "open"):
        return "is an open entry after line 1" if not first else "is not an open entry: a file starts with one"
    if kind == "open":
        after = entry.get("after")
        if after is not None and not (
            isinstance(after, dict)
            and isinstance(after.get("file"), str)
            and _is_seq(after.get("seq"))
            and (after.get("head") is None or _is_hash(after.get("head")))
        ):
            return "names the file before it in an after that is not {file, seq, head}"
        if not all(isinstance(entry.get(name, ""), str) for name in ("identity", "machine", "file", "chain")):
            return "has an identity, machine, file or chain that is not a string"
    elif kind == "recovery":
        if not (
            isinstance(entry.get("file"), str)
            and all(_is_seq(entry.get(name)) for name in ("from", "to"))
            and _is_hash(entry.get("head"))
            and _is_time(entry.get("crashed"))
        ):
            return "is a recovery without its file, from, to, head and crashed"
    elif kind in ("send", "outcome", "refusal"):
        # a refusal of a request without a URL has neither (null)
        strings = {"send": ("url", "method", "host"), "outcome": ("host",), "refusal": ("url", "host")}[kind]
        nullable = (str, type(None)) if kind == "refusal" else str
        if not all(isinstance(entry.get(name), nullable) for name in strings) or not isinstance(
            entry.get("id"), str | None
        ):
            return f"is a {kind} whose {', '.join(strings)} or id is not a string"
        if kind == "send" and not isinstance(entry.get("robots"), dict | None):
            return "is a send whose robots is neither an object nor null"
    elif kind == "retention":
        days, deleted = entry.get("days"), entry.get("deleted_days")
        if not (type(days) is int and days >= 1 and isinstance(deleted, list) and all(map(_is_day, deleted))):
            return "is a retention without its days and a list of deleted_days (YYYY-MM-DD)"
    return None


def _check(
    report: FileReport, number: int, line: bytes, keys: Mapping[str, Any] | None, present: set[int]
) -> tuple | None:
    try:
        entry = load_json(line)
    except ValueError:
        return number, None, "not a JSON entry (edited or corrupted)"
    if not isinstance(entry, dict) or not _is_seq(entry.get("seq")):
        return number, None, "not a journal entry"
    seq = entry["seq"]
    try:
        canonical = canonical_json(entry)
    except ValueError:  # a value JSON can't carry, or a lone surrogate UTF-8 can't
        canonical = b""
    if canonical != line:
        return number, seq, f"entry {seq} is not in its canonical form (edited)"
    expected = report.seq + 1
    if seq > expected:
        if expected in present:
            return number, seq, f"entry {seq} comes before entry {expected} (entries reordered)"
        return number, seq, f"entry {expected} is missing before entry {seq} (deleted)"
    if seq < expected:
        return number, seq, f"entry {seq} comes after entry {report.seq} (entries reordered)"
    if entry.get("prev") != report.head:
        before = f"entry {report.seq}" if report.seq else "the start of the file"
        return number, seq, f"entry {seq}'s prev is not the hash of {before} (that entry was edited, or replaced)"
    if report.close_seq and not (seq == report.close_seq + 1 and entry.get("kind") == "head" and "sig" in entry):
        return number, seq, f"entry {seq} follows the close of the file at entry {report.close_seq} (added)"
    malformed = _malformed(entry, number == 1)
    if malformed is not None:
        return number, seq, f"entry {seq} {malformed}"
    if "sig" in entry:
        report.sig_seq = seq
        if keys is None:
            report.unverified_signatures += 1
        else:
            body = {k: v for k, v in entry.items() if k != "sig"}
            try:
                kid = verify_record(body, entry["sig"], keys)
            except SignatureInvalid as exc:
                return number, seq, f"entry {seq}'s signature: {exc}"
            outside = key_valid_at(keys, kid, entry["t"])
            if outside is not None:
                return number, seq, f"entry {seq}'s signature: {outside}"
            report.keyids.add(kid)
            report.signed_seq = seq
            if entry.get("kind") == "head":
                report.heads.append((seq, entry["t"]))
    _took(report, seq, line, entry, keys)
    return None


def _took(report: FileReport, seq: int, line: bytes, entry: dict[str, Any], keys: Mapping[str, Any] | None) -> None:
    report.entries += 1
    report.seq, report.head, report.last = seq, line_hash(line), entry
    if report.first is None:
        report.first = entry
    kind = entry.get("kind")
    if kind == "retention":
        report.retention.append(entry)
    elif kind == "close":
        report.close_seq = seq
    elif kind == "recovery" and (keys is None or report.signed_seq == seq):
        report.recoveries.append(entry)


# ---------------------------------------------------------------------- a journal


@dataclass
class JournalReport:
    files: list[FileReport]
    #: Problems between files (a predecessor missing, replaced, replayed or cut short).
    links: list[str]
    #: The chains the files form: machine -> files that start one (one per identity per machine)
    chains: dict[str, list[str]] = field(default_factory=dict)
    #: What the chains say of themselves (a chain a new chain tip started).
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.links and all(f.ok for f in self.files)

    def first_problem(self) -> str | None:
        for f in self.files:
            if f.broken is not None:
                line, _seq, message = f.broken
                return f"{f.name}, line {line}: {message}"
        return self.links[0] if self.links else None


def journal_files(path: Path) -> list[Path]:
    """The journal files at ``path`` (a file, or a directory searched recursively), in name order."""
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob(f"*{SUFFIX}") if p.is_file())


def no_journal(path: Path) -> str | None:
    """Why ``path`` holds no journal to read (one line), or None.

    A path with no journal file is an error, not a journal "intact in 0 files": a crawl writes its
    journal from its first request or refusal on, so there is nothing there to vouch for."""
    if not path.exists():
        return f"no journal at {path}"
    if not (path.is_file() or path.is_dir()):
        return f"{path} is not a journal file or folder"
    if not journal_files(path):
        return f"no journal file (*{SUFFIX}) in {path}: nothing was written there, so nothing can be verified"
    return None


def verify_path(
    path: Path,
    keys: Mapping[str, Any] | None,
    keep: Callable[[dict[str, Any]], bool] | None = None,
    seen: Callable[[str, bytes], None] | None = None,
) -> JournalReport:
    """Verify every file at ``path`` and, for a directory, the chains the files form (one per
    identity and machine: each file's ``open`` names the one before it); ``keep``: as for
    :func:`verify_lines`, and no entry is kept twice. ``seen(name, bytes)`` is given each file as
    it is read, so that another check of the same journal (the published heads) needs no second read."""
    root = path if path.is_dir() else path.parent
    reports = []
    for file in journal_files(path):
        name, data = str(file.relative_to(root) if path.is_dir() else file.name), file.read_bytes()
        if seen is not None:
            seen(name, data)
        reports.append(verify_lines(name, data, keys, keep))
    report = JournalReport(reports, [])
    if path.is_dir():
        _link(report, root)
    _recover(report)
    _count_once(report)
    return report


def _count_once(report: JournalReport) -> None:
    """A file held twice (the same first line) is counted once: no reader sees an entry twice."""
    opened: set[str] = set()
    for f in report.files:
        if f.opened in opened:
            f.kept = []
        opened.add(f.opened)


def _recover(report: JournalReport) -> None:
    """A file whose only fault is its unsigned tail passes when a signed ``recovery`` entry (the
    next start of its identity on its machine) names that tail, to the byte."""
    recoveries: dict[str, tuple[dict[str, Any], str]] = {}
    for f in report.files:
        for entry in f.recoveries:
            if entry["file"] in recoveries:
                report.links.append(
                    f"{entry['file']} is recovered twice, by {recoveries[entry['file']][1]} and {f.name}: the next "
                    "start recovers a crash once (a recovery was copied, or forged)"
                )
            recoveries.setdefault(entry["file"], (entry, f.name))
    for f in report.files:
        found = recoveries.get(f.name) if f.tail_only else None
        if found is None:
            continue
        entry, by = found
        if entry.get("to") == f.seq and entry.get("head") == f.head and entry.get("from", 0) <= f.signed_seq + 1:
            f.broken, f.tail_only = None, False
            f.recovered = (f.signed_seq + 1, f.seq, float(entry.get("crashed") or 0), by)


def _link(report: JournalReport, root: Path) -> None:
    """The checks between files: each file continues the one before it on its chain, once."""
    by_name = {r.name: r for r in report.files}
    deleted = _retention(report)
    twice = _replays(report)
    successors: dict[str, list[str]] = {}
    roots: dict[tuple[str, str], list[FileReport]] = {}
    for r in report.files:
        if r.name in twice or r.first is None:
            continue
        claimed = r.first.get("file")
        if claimed is not None and claimed != r.name:
            report.links.append(f"{r.name}: its open entry says it is {claimed} (a copy, or a file moved)")
        after = r.first.get("after")
        if not after:
            roots.setdefault((str(r.first.get("identity")), str(r.first.get("machine", "?"))), []).append(r)
            continue
        successors.setdefault(after["file"], []).append(r.name)
        before = by_name.get(after["file"])
        if before is not None and before.broken is not None and before.broken[2] == EMPTY and after["seq"] == 0:
            before.broken = None  # its writer died before its first line was whole: the next file says so
        elif before is None:
            if str(after.get("file", "")).split("/")[0] not in deleted:
                report.links.append(f"{r.name}: continues {after.get('file')}, which is missing (deleted)")
        elif before.ok and (before.seq < after.get("seq", 0) or _head_at(root / before.name, after) is False):
            report.links.append(
                f"{r.name}: continues {after.get('file')} at entry {after.get('seq')}, which it does not hold"
            )
    for before_name, after_names in sorted(successors.items()):
        if len(after_names) > 1:
            report.links.append(
                f"{' and '.join(after_names)} both continue {before_name}: a chain has one file after each "
                "(one of them is replayed, or forged)"
            )
    _roots(report, roots)
    _tips(report, root, by_name, deleted)


def _retention(report: JournalReport) -> set[str]:
    """The days verified retention entries deleted. Retention deletes every day folder older than
    its cutoff (``days`` before its time), whole: a day it lists that its cutoff kept, or a file
    still held in a day as old as one it deleted, is a day folder deleted by hand and excused."""
    deleted: dict[str, str] = {}
    for r in report.files:
        for entry in r.verified_retention():
            cutoff = datetime.datetime.fromtimestamp(entry["t"] - entry["days"] * 86400, datetime.timezone.utc)
            for day in entry["deleted_days"]:
                deleted.setdefault(day, f"{r.name} (entry {entry['seq']})")
                if day >= cutoff.strftime("%Y-%m-%d"):
                    report.links.append(
                        f"{r.name}: its retention entry {entry['seq']} says it deleted {day}, which its "
                        f"{entry['days']} days kept (a day deleted by hand, and excused)"
                    )
    newest = max(deleted, default="")
    for r in report.files:
        if r.name.split("/")[0] <= newest and _is_day(r.name.split("/")[0]):
            day = min(d for d in deleted if d >= r.name.split("/")[0])
            report.links.append(
                f"{r.name} is still here, though the retention in {deleted[day]} deleted {day}, a day no older: "
                "retention deletes every older day whole (a day deleted by hand, and excused)"
            )
    return set(deleted)


def _replays(report: JournalReport) -> set[str]:
    """Files that repeat another's first line: the same file twice (a replay, or a swap)."""
    first: dict[str, str] = {}
    twice = set()
    for r in report.files:
        if not r.opened:
            continue
        if r.opened in first:
            report.links.append(
                f"{r.name} is a copy of {first[r.opened]} (the same open entry): a replayed or swapped file"
            )
            twice.add(r.name)
        else:
            first[r.opened] = r.name
    return twice


def _roots(report: JournalReport, roots: dict[tuple[str, str], list[FileReport]]) -> None:
    """One chain per identity and machine, unless each further chain's open names a chain of its
    own (a new chain tip started it: its state was new)."""
    for (identity, machine), starts in sorted(roots.items()):
        report.chains.setdefault(machine, []).extend(r.name for r in starts)
        ids = [str((r.first or {}).get("chain") or "") for r in starts]
        if len(starts) > 1 and ("" in ids or len(set(ids)) < len(ids)):
            report.links.append(
                f"{' and '.join(r.name for r in starts)} each start a chain of {identity} on {machine}, and no new "
                "chain tip explains the second (one of them is replayed, or a chain's start was lost)"
            )
        elif len(starts) > 1:
            for r in starts[1:]:
                at = when(float((r.first or {}).get("t", 0)))
                report.notes.append(f"{r.name} starts a chain of {identity} on {machine} at {at}: a new chain tip")


def _tips(report: JournalReport, root: Path, by_name: Mapping[str, FileReport], deleted: set[str]) -> None:
    folder = root / ".chains"
    for tip in sorted(folder.glob("*")) if folder.is_dir() else []:
        if not tip.is_file():
            continue
        # the file each chain was last continued by: a chain's last file deleted is missing here
        last = tip.read_text("utf-8", "replace").split("\n")[0].strip()
        if last and last not in by_name and last.split("/")[0] not in deleted:
            report.links.append(f"the chain {tip.name} ends with {last}, which is missing (deleted)")


def _head_at(path: Path, after: Mapping[str, Any]) -> bool:
    """Whether the file's entry ``after["seq"]`` hashes to ``after["head"]``."""
    for line in path.read_bytes().split(b"\n"):
        try:
            if load_json(line).get("seq") == after.get("seq"):
                return line_hash(line) == after.get("head")
        except (ValueError, AttributeError):
            return False
    return False


def entries(data: bytes) -> Iterable[dict[str, Any]]:
    """The whole entries of a file's bytes (a torn last line is skipped), unverified."""
    for line in data.split(b"\n"):
        if line:
            try:
                entry = load_json(line)
            except ValueError:
                continue
            if isinstance(entry, dict):
                yield entry


# ---------------------------------------------------------------------- what it says


@dataclass(frozen=True)
class Banner:
    """What the verification established: ``verified``, ``unverified`` (nothing failed, but not
    everything was checked) or ``failed``; the words say what was checked and with which key."""

    state: str
    words: str


def banner(report: JournalReport, key_source: str | None) -> Banner:
    """``key_source`` says where the public key came from (``--key walsh.pub``), None: no key."""
    problem = report.first_problem()
    chains = sum(len(roots) for roots in report.chains.values())
    files = f"{len(report.files)} file(s)" + (f" in {chains} chain(s)" if chains else "")
    if problem:
        return Banner("failed", f"FAILED: {problem}")
    if key_source is None:
        return Banner(
            "unverified",
            f"NOT VERIFIED: hash chain intact in {files}, but no public key was given, so no signature "
            "was checked (give --key, --directory or --published)",
        )
    # with a key, the reader already failed every entry no signed head covers (a crash's tail too)
    signers = sorted({k for f in report.files for k in f.keyids})
    recovered = sum(f.recovered[1] - f.recovered[0] + 1 for f in report.files if f.recovered)
    after = f" ({recovered} of them by a recovery after a crash)" if recovered else ""
    return Banner(
        "verified",
        f"verified: {files}, hash chain intact, every entry covered by a head signed by key "
        f"{', '.join(signers)}{after} (from {key_source})",
    )


def print_verification(found: JournalReport, keys: Mapping[str, Any] | None, key_source: str | None) -> int:
    """``verify``'s lines: each file, each machine's chains, the banner; 0 when verified (or, with
    no key, when the chain holds)."""
    for f in found.files:
        notes = []
        if f.torn_tail and f.ok:
            notes.append("a torn last line (the process was killed mid-write) not counted")
        if keys is None and f.unverified_signatures:
            notes.append(f"{f.unverified_signatures} signatures not checked (no key given)")
        if f.recovered is not None:
            first, last, t, by = f.recovered
            notes.append(
                f"entries {first} to {last} ({last - first + 1} entries) recovered after a crash at {when(t)} "
                f"(signed by the recovery in {by})"
            )
        state = "chain intact" if f.broken is None else f"FAILED at line {f.broken[0]}: {f.broken[2]}"
        print(f"{f.name}: {f.entries} entries, {state}" + (f"; {'; '.join(notes)}" if notes else ""))
    for link in found.links:
        print(f"FAILED: {link}")
    for machine, roots in sorted(found.chains.items()):
        print(f"machine {machine}: {len(roots)} chain(s) of files, from {', '.join(roots)}")
    for note in found.notes:
        print(note)
    checked = banner(found, key_source)
    print(checked.words)
    return 0 if checked.state == "verified" or (keys is None and found.ok) else 1


# ---------------------------------------------------------------------- published heads


def head_hash(head: Mapping[str, Any]) -> str:
    """What the next published head's ``previous`` holds: the SHA-256 of this head's canonical JSON."""
    return line_hash(canonical_json(head))


class Holdings:
    """What the journal holds of the heads a document publishes, gathered from its files as
    :func:`verify_path` reads them (its ``seen``), so the journal is read once for both checks.
    ``single_file``: the journal is one file, matched by its name."""

    def __init__(self, published: Mapping[str, Any], single_file: bool) -> None:
        heads = published.get("heads") if isinstance(published, Mapping) else None
        #: the name a file is seen under -> the published file names it answers for
        self._names: dict[str, set[str]] = {}
        #: the name a file is seen under -> the seqs the heads published for it want
        self._seqs: dict[str, set[int]] = {}
        for head in heads if isinstance(heads, list) else []:
            if isinstance(head, Mapping) and isinstance(head.get("seq"), int):
                name = str(head.get("file"))
                seen_as = Path(name).name if single_file else name
                self._names.setdefault(seen_as, set()).add(name)
                self._seqs.setdefault(seen_as, set()).add(head["seq"])
        #: published file name -> (its last seq, its lines of the wanted seqs)
        self.files: dict[str, tuple[int, dict[int, bytes]]] = {}

    def seen(self, name: str, data: bytes) -> None:
        """One pass over a file the heads name, whichever of them it answers for."""
        seqs = self._seqs.get(name)
        if not seqs:
            return
        last, lines = 0, dict[int, bytes]()
        for line in data.split(b"\n"):
            for entry in entries(line):
                seq = entry.get("seq")
                if isinstance(seq, int):
                    last = max(last, seq)
                    if seq in seqs:
                        lines.setdefault(seq, line)
        for published_name in self._names[name]:
            self.files[published_name] = last, lines


def check_heads(
    published: Mapping[str, Any], keys: Mapping[str, Any] | None, held: Holdings, deleted: Iterable[str] = ()
) -> tuple[list[str], set[str]]:
    """Problems of the journal ``held`` saw against a published heads document, and the keyids
    that signed the published heads (checked under ``keys``; None: signatures not checked).

    Each head names the one before it (``previous``); each must be in the journal byte for byte:
    same file, same ``seq``, the same line hash, unless a retention entry of the journal records
    its day ``deleted``; its signature must verify. Anything else is a problem naming the head."""
    if published.get("format") != HEADS_FORMAT or not isinstance(published.get("heads"), list):
        return [f"not a published heads document ({HEADS_FORMAT})"], set()
    problems: list[str] = []
    signers: set[str] = set()
    previous: str | None = HEADS_GENESIS
    for head in published["heads"]:
        if not isinstance(head, Mapping):
            problems.append("a published head is not a JSON object")
            previous = "?"
            continue
        problem = _head_problem(head, previous, keys, held, set(deleted), signers)
        if problem is not None:
            where = f"the published head of {head.get('day')} (file {head.get('file')}, entry {head.get('seq')})"
            problems.append(f"{where}: {problem}")
        previous = head_hash(head)
    return problems, signers


def _head_problem(
    head: Mapping[str, Any],
    previous: str | None,
    keys: Mapping[str, Any] | None,
    held: Holdings,
    deleted: set[str],
    signers: set[str],
) -> str | None:
    entry = head.get("entry")
    if head.get("previous", "?") != previous:
        return "it does not name the head published before it (a head was dropped, changed or reordered)"
    if not isinstance(entry, Mapping) or line_hash(canonical_json(entry)) != head.get("hash"):
        return "its entry does not hash to its published hash"
    if not _is_time(entry.get("t")):
        return "its entry has no time t"
    if keys is not None:
        try:
            kid = verify_record({k: v for k, v in entry.items() if k != "sig"}, entry.get("sig", {}), keys)
        except SignatureInvalid as exc:
            return str(exc)
        outside = key_valid_at(keys, kid, entry["t"])
        if outside is not None:
            return f"its signature: {outside}"
        signers.add(kid)
    name = str(head.get("file"))
    last, lines = held.files.get(name, (0, {}))
    if not last:
        if name.split("/")[0] in deleted:
            return None  # its day was deleted by the retention, and the journal says so
        return f"the journal has no file {name} (deleted after publication)"
    if head.get("seq") not in lines:
        return f"{name} ends at entry {last}, before the published head (cut after publication)"
    if line_hash(lines[head["seq"]]) != head["hash"]:
        return f"{name} holds another entry {head['seq']} (rewritten after publication)"
    return None


def read_published(location: str, user_agent: str) -> tuple[dict[str, Any], dict[str, Ed25519PublicKey]]:
    """The heads document published at ``location`` (a folder or a URL), and the keys of the key
    directory it names; OSError or ValueError says why not."""
    document = load_json(read_source(published_source(location, HEADS_NAME), user_agent, MAX_DOCUMENT_BYTES))
    if not isinstance(document, dict):
        raise ValueError(f"{HEADS_NAME} is not a JSON object")
    canonical_json(document)  # ValueError: a value canonical JSON can't write (a lone surrogate)
    name = document.get("keys", DIRECTORY)
    if not isinstance(name, str) or name.startswith("/") or ".." in name.split("/"):
        raise ValueError(f"{HEADS_NAME} names its key directory {name!r}, not a path under it")
    return document, directory_keys(load_json(read_source(published_source(location, name), user_agent)))


def extends(saved: Any, document: Mapping[str, Any], where: str) -> str | None:
    """Why ``document`` does not extend a copy of the heads document saved earlier (its heads a
    prefix of the document's, byte for byte); None when it does."""
    old = saved.get("heads") if isinstance(saved, Mapping) else None
    new = document.get("heads")
    if not isinstance(old, list) or not isinstance(new, list):
        return f"{where} is not a published heads document ({HEADS_FORMAT})"
    for at, head in enumerate(old):
        if at >= len(new) or canonical_json(new[at]) != canonical_json(head):
            named = f"file {head.get('file')}, entry {head.get('seq')}" if isinstance(head, Mapping) else "?"
            return (
                f"the publication does not extend the copy saved at {where}: its head {at + 1} ({named}) was "
                "dropped or changed since"
            )
    return None


def verify_published(
    path: Path,
    location: str,
    keys: Mapping[str, Any] | None,
    key_source: str | None,
    user_agent: str,
    saved: str | None = None,
) -> int:
    """The journal at ``path`` against the heads published at ``location``: the journal's chain
    and every signature, under ``keys`` or else under the key directory the publication names,
    and every published head in it; ``saved``, a copy of the heads document kept earlier, which
    the publication must extend. 0 when all holds; 1 saying what does not."""
    try:
        document, published_keys = read_published(location, user_agent)
        copy = load_json(Path(saved).read_bytes()) if saved else None
        canonical_json(copy)
    except (OSError, ValueError) as exc:
        print(f"FAILED: cannot read what {location} publishes, or the saved copy: {exc}")
        return 1
    if keys is None:
        keys, key_source = published_keys, f"the key directory {location} publishes"
    held = Holdings(document, path.is_file())
    found = verify_path(path, keys, seen=held.seen)
    status = print_verification(found, keys, key_source) if found.files else _no_files(path)
    deleted = {d for f in found.files for e in f.verified_retention() for d in e["deleted_days"]}
    problems, signers = check_heads(document, keys, held, deleted)
    if path.is_dir():
        problems += unpublished(found, document)
    shrunk = extends(copy, document, str(saved)) if saved else None
    problems += [shrunk] if shrunk else []
    heads = document.get("heads")
    count = len(heads) if isinstance(heads, list) else 0
    if not problems and not count:
        problems = [f"{location} publishes no signed head: there is nothing to check the journal against"]
    for problem in problems:
        print(f"FAILED: {problem}")
    if problems:
        return 1
    print(
        f"published heads: the journal holds all {count} heads {location} publishes, each naming the one "
        f"before it, signed by key {', '.join(sorted(signers))} ({key_source})"
    )
    return status


def unpublished(found: JournalReport, document: Mapping[str, Any]) -> list[str]:
    """The heads a publication must hold and lacks, or holds out of order.

    ``publish`` takes its time before it reads the journal, then adds each file's newer signed
    head, in name order, each stamped with that time (``published``). So no head is signed after
    its stamp, stamps never decrease, and the heads up to each stamp hold every file's last head
    signed before it: a head dropped, or the heads re-ordered (the links recomputed, the stamps
    changed), leaves some earlier publication without a head the journal shows it had."""
    heads = document.get("heads")
    if not _is_time(document.get("published")) or not isinstance(heads, list):
        return [f"the publication has no time it was published at ({HEADS_FORMAT}: published)"]
    at = float(document["published"])
    problems: list[str] = []
    newest: dict[str, int] = {}
    lacking: set[str] = set()

    def held_by(stamp: float) -> None:
        for f in found.files:
            signed = [(seq, t) for seq, t in f.heads if t <= stamp]
            if f.ok and signed and newest.get(f.name, 0) < signed[-1][0] and f.name not in lacking:
                lacking.add(f.name)
                problems.append(
                    f"{f.name}: its head at entry {signed[-1][0]} was signed at {when(signed[-1][1])}, but the heads "
                    f"published by {when(stamp)} do not hold it (a head dropped, or the heads re-ordered)"
                )

    run: tuple[float, str] | None = None
    for head in heads:
        entry = head.get("entry") if isinstance(head, Mapping) else None
        if not isinstance(head, Mapping) or not isinstance(entry, Mapping) or not _is_time(entry.get("t")):
            continue  # check_heads names it
        named = f"the published head of {head.get('file')} (entry {head.get('seq')})"
        stamp = head.get("published", at)  # a head published before heads were stamped: the document's time
        if not _is_time(stamp) or stamp > at + 0.001 or entry["t"] > stamp + 0.001:
            problems.append(f"{named} is signed at {when(entry['t'])}, after it was published: a time was changed")
        elif "published" in head:
            if run is not None and (stamp, str(head.get("file"))) < run:
                problems.append(f"{named} is out of the order it was published in (the heads were re-ordered)")
            elif run is not None and stamp > run[0]:
                held_by(run[0])  # the publication as it stood at the run before
            run = (stamp, str(head.get("file")))
        if _is_seq(head.get("seq")):
            newest[str(head.get("file"))] = max(newest.get(str(head.get("file")), 0), head["seq"])
    held_by(at)
    return problems


def _no_files(path: Path) -> int:
    print(f"FAILED: {no_journal(path)}")
    return 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scrapy_walsh.verify", description=__doc__.split("\n\n")[0])
    parser.add_argument("path", metavar="FILE|DIR", help="a journal file or directory")
    parser.add_argument("--key", metavar="PEM", help="the bot's public key, PEM")
    parser.add_argument("--directory", metavar="FILE|URL", help="the bot's key directory (JWKS)")
    parser.add_argument("--published", metavar="DIR|URL", help="the folder or URL the bot publishes its heads at")
    parser.add_argument("--saved", metavar="FILE", help="a copy of the heads document saved earlier: it must grow")
    parser.add_argument("--user-agent", default="walsh-journal-verify", help="sent when fetching a URL")
    args = parser.parse_args(argv)
    path = Path(args.path)
    try:
        keys, source = _keys(args.key, args.directory, args.user_agent)
    except (OSError, ValueError) as exc:
        print(f"error: cannot read the key: {exc}", file=sys.stderr)
        return 1
    if args.published:
        return verify_published(path, args.published, keys, source, args.user_agent, args.saved)
    problem = no_journal(path)
    if problem is not None:
        print(f"FAILED: {problem}")
        return 1
    return print_verification(verify_path(path, keys), keys, source)


def _keys(key: str | None, directory: str | None, user_agent: str) -> tuple[dict[str, Any] | None, str | None]:
    if key:
        return pem_public_keys(key), f"--key {key}"
    if directory:
        return directory_keys(load_json(read_source(directory, user_agent))), f"--directory {directory}"
    return None, None


if __name__ == "__main__":
    sys.exit(main())
