"""Signed attestation records: ``check --sign`` and ``scrapy walsh check verify FILE``.

A record (the JSON ``check --json`` prints) is signed detached with the key that signs our
requests, over its canonical JSON, after it gains digests of the effective settings and (for
``--live``) of the server's log. docs/verifiable-identity.md ("Signed attestation records")
says why.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from scrapy_walsh.identity import webbotauth
from scrapy_walsh.preset import preset
from scrapy_walsh.settings import WALSH_SETTINGS
from scrapy_walsh.verify import pem_public_keys

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

#: The record's key holding its detached signature.
SIGNATURE = "attestation_signature"


def digest(value: Any) -> str:
    """``sha256:<hex>`` of a JSON value's canonical form."""
    return "sha256:" + hashlib.sha256(webbotauth.canonical_json(value)).hexdigest()


def settings_digest(settings: BaseSettings) -> str:
    """A digest of the settings the audit judges: every WALSH_* setting and every Scrapy
    setting the add-on presets, as the crawl would see them (repr for non-JSON values)."""
    names = sorted({s.name for s in WALSH_SETTINGS} | {e.name for e in preset(settings)})
    values = {}
    for name in names:
        value = settings.get(name)
        if hasattr(value, "copy_to_dict"):
            value = value.copy_to_dict()
        try:
            webbotauth.canonical_json(value)
        except (TypeError, ValueError):
            value = repr(value)
        values[name] = value
    return digest(values)


def sign_report(report: dict[str, Any], key_path: str) -> dict[str, Any]:
    """``report`` with its detached signature (the key is WALSH_SIGNING_KEY)."""
    key = webbotauth.load_private_key(key_path)
    record = {k: v for k, v in report.items() if k != SIGNATURE}
    return {**record, SIGNATURE: webbotauth.sign_record(key, record)}


def load_public_keys(path: str) -> dict[str, Ed25519PublicKey]:
    """keyid -> key from a private key PEM (ours) or a public key PEM (``PATH.pub``)."""
    return pem_public_keys(path)


def verify_file(path: str, keys: dict[str, Ed25519PublicKey]) -> tuple[str, dict[str, Any]]:
    """Check a signed record file; return (keyid, record). SigningError says why not."""
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise webbotauth.SigningError(f"{path}: not a JSON record: {exc}") from None
    if not isinstance(document, dict) or not isinstance(document.get(SIGNATURE), dict):
        raise webbotauth.SigningError(f"{path}: no {SIGNATURE} (make it with check --json --sign)")
    record = {k: v for k, v in document.items() if k != SIGNATURE}
    return webbotauth.verify_record(record, document[SIGNATURE], keys), record


def journal_dir(settings: BaseSettings) -> Path | None:
    """The journal directory of these settings, or None when they don't say one (refused)."""
    from scrapy_walsh.config import journal_location

    try:
        return journal_location(settings)
    except ValueError:  # a refused WALSH_STATE_URI or WALSH_JOURNAL_DIR: the check reports it
        return None


def journal_files(settings: BaseSettings) -> set[Path]:
    """The journal files of these settings now (a crawl's files are the ones it adds)."""
    from scrapy_walsh.journal.chain import journal_files as files

    location = journal_dir(settings)
    return set(files(location)) if location is not None and location.is_dir() else set()


def journal_heads(settings: BaseSettings, before: set[Path] | None = None) -> dict[str, Any]:
    """The journal's chain heads for the record: of the files a crawl added since
    ``before``, else of the newest file; the record quotes them, and their signed heads vouch
    for every entry, so the record and the journal vouch for each other."""
    from scrapy_walsh.journal.chain import file_heads

    location = journal_dir(settings)
    if location is None:
        return {"directory": None, "heads": []}
    now = journal_files(settings)
    chosen = sorted(now - before) if before is not None else sorted(now, key=lambda p: p.stat().st_mtime)[-1:]
    return {"directory": str(location), "heads": file_heads(location, chosen)}
