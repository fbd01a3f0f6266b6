"""``scrapy walsh keys``: the operator's key tooling for Web Bot Auth.

``generate PATH`` writes an Ed25519 key (mode 0600) and ``PATH.pub``, never overwriting
without ``--force``; ``directory`` prints the key directory document; ``verify URL`` fetches a
published directory once, without redirects, and checks it holds our key. Exit status: 0,
or 1 with the reason on stderr. docs/command-keys-journal.md says how.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from scrapy_walsh.commands.moved_settings import add_flags, apply
from scrapy_walsh.identity import agent_card as agent_card
from scrapy_walsh.identity import webbotauth
from scrapy_walsh.policy.urls import split
from scrapy_walsh.verify import TIMEOUT, NoRedirect, read_source

if TYPE_CHECKING:
    from scrapy.settings import Settings

    from scrapy_walsh.config import Readings

HELP = "Web Bot Auth keys: generate a key pair, print the key directory, verify a published directory"
SYNTAX = (
    "generate PATH [--force] | directory [--key PATH] | card [--key PATH] | verify [URL] [--card FILE|URL] [--key PATH]"
)
#: A directory is a few hundred bytes; anything far larger is not ours.
MAX_DIRECTORY_BYTES = 1 << 20


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True, metavar="{generate,directory,card,verify}")
    generate = actions.add_parser("generate", help="write a new Ed25519 key (0600) and PATH.pub")
    generate.add_argument("path", metavar="PATH", help="where to write the private key")
    generate.add_argument("--force", action="store_true", help="replace an existing key pair")
    directory = actions.add_parser("directory", help="print the key directory JSON for our key")
    directory.add_argument("--key", metavar="PATH", help="the private key (default: WALSH_SIGNING_KEY)")
    card = actions.add_parser("card", help="print the Signature Agent Card (draft-meunier-webbotauth-registry-04)")
    card.add_argument("--key", metavar="PATH", help="the private key (default: WALSH_SIGNING_KEY)")
    add_flags(card, CARD_FLAGS, FLAG_HELP)
    verify = actions.add_parser("verify", help="fetch a published directory and check it holds our key")
    verify.add_argument("url", metavar="URL", nargs="?", help="the directory URL (http or https)")
    verify.add_argument("--card", metavar="FILE|URL", help="also check a published card against the settings")
    verify.add_argument("--key", metavar="PATH", help="the private key (default: WALSH_SIGNING_KEY)")


#: The card's operator fields: flags of ``keys card`` and ``publish`` (formerly settings).
CARD_FLAGS = ("WALSH_BLOCKLIST_CONTACT", "WALSH_BLOCKLIST_POLICY", "WALSH_PUBLISHED")
FLAG_HELP: Mapping[str, str] = MappingProxyType(
    {
        "WALSH_BLOCKLIST_CONTACT": "the operator's contact (an email or URL): the card's contacts, the bot page's",
        "WALSH_BLOCKLIST_POLICY": "the operator's policy page (an absolute URI): the card's client_uri",
        "WALSH_BLOCKLIST_OPERATOR": "the operator's name, stated on the bot page",
        "WALSH_PUBLISHED": "the https URL the folder is served at: the card names itself (client_id) and its "
        "key directory (jwks_uri)",
        "WALSH_IP_RANGES": "a network the bot sends from (CIDR, e.g. 192.0.2.0/24), for the page and ips.json; "
        "repeat it, or separate networks with commas",
    }
)


def run(args: argparse.Namespace, settings: Settings) -> int:
    try:
        if args.action == "generate":
            return generate(Path(args.path), force=args.force)
        key = webbotauth.load_private_key(key_path(args.key, settings))
        if args.action == "directory":
            print(json.dumps(webbotauth.directory([key]), indent=2))
            return 0
        if args.action == "card":
            readings = apply(args, accepted_settings(settings), settings, CARD_FLAGS, "keys card")
            print(json.dumps(agent_card.build(keys=[key], **card_fields(readings)), indent=2))
            return 0
        if args.url is None and args.card is None:
            return _fail("give the directory URL, --card FILE|URL, or both")
        status = verify(args.url, key, _user_agent(settings)) if args.url else 0
        return verify_card(args.card, key, settings) or status if args.card else status
    except (webbotauth.SigningError, SettingRefused, ValueError) as exc:
        return _fail(str(exc))


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 1


def key_path(given: str | None, settings: Settings) -> str:
    """``--key PATH`` when given, else ``WALSH_SIGNING_KEY``; SigningError when neither is set."""
    from scrapy_walsh.config import parse

    path = given or parse(settings, "WALSH_SIGNING_KEY")
    if not path:
        raise webbotauth.SigningError("no signing key: give --key PATH or set WALSH_SIGNING_KEY")
    return str(path)


def generate(path: Path, *, force: bool) -> int:
    public_path = path.with_name(path.name + ".pub")
    existing = [str(p) for p in (path, public_path) if p.exists()]
    if existing and not force:
        return _fail(f"{', '.join(existing)} already exists; pass --force to replace the key pair")
    key = webbotauth.generate_key()
    _write(path, webbotauth.private_pem(key), 0o600)
    _write(public_path, webbotauth.public_pem(key), 0o644)
    print(f"private key: {path} (mode 0600)")
    print(f"public key:  {public_path}")
    print(f"keyid:       {webbotauth.keyid(key)}")
    print(f"next: scrapy walsh keys directory --key {path} > http-message-signatures-directory")
    return 0


def _write(path: Path, data: bytes, mode: int) -> None:
    """Create ``path`` with ``mode`` from the start (a private key is never readable by others)."""
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        os.fchmod(fd, mode)  # whatever the umask
        os.write(fd, data)
    finally:
        os.close(fd)


def verify(url: str, key: Ed25519PrivateKey, user_agent: str) -> int:
    """Fetch the directory at ``url`` once, as ``user_agent`` (``WALSH_USER_AGENT``), and check
    it holds ``key``."""
    parts = split(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return _fail(f"{url!r} is not an http(s) URL")
    request = urllib.request.Request(
        url, headers={"User-Agent": user_agent, "Accept": webbotauth.DIRECTORY_MEDIA_TYPE}, method="GET"
    )
    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(request, timeout=TIMEOUT) as response:
            status, content_type = response.status, response.headers.get_content_type()
            body = response.read(MAX_DIRECTORY_BYTES + 1)
    except urllib.error.HTTPError as exc:
        return _fail(f"{url}: HTTP {exc.code} (a directory must be served with 200, without redirects)")
    except (urllib.error.URLError, OSError) as exc:
        return _fail(f"{url}: cannot fetch: {getattr(exc, 'reason', exc)}")
    if status != 200:
        return _fail(f"{url}: HTTP {status} (a directory must be served with 200)")
    if len(body) > MAX_DIRECTORY_BYTES:
        return _fail(f"{url}: larger than {MAX_DIRECTORY_BYTES} bytes; not a key directory")
    if parts.path == webbotauth.WELL_KNOWN_PATH and content_type != webbotauth.DIRECTORY_MEDIA_TYPE:
        return _fail(
            f"{url}: served as {content_type}; the well-known directory must be {webbotauth.DIRECTORY_MEDIA_TYPE}"
        )
    try:
        keys = webbotauth.directory_keys(json.loads(body))
    except ValueError as exc:  # SigningError is a ValueError, and so is a JSON syntax error
        return _fail(f"{url}: {exc}")
    ours = webbotauth.keyid(key)
    if ours not in keys:
        return _fail(f"{url}: our key {ours} is not in the directory ({len(keys)} Ed25519 keys: {', '.join(keys)})")
    if parts.scheme != "https":
        print(f"note: {url} is not https; sites fetch directories over https only", file=sys.stderr)
    print(f"{url}: OK, holds our key {ours} ({len(keys)} Ed25519 key{'s' if len(keys) != 1 else ''})")
    return 0


def _user_agent(settings: Settings) -> str:
    """The identity the command's own fetches carry, as every request of a crawl does (R1)."""
    from scrapy_walsh.config import parse

    return str(parse(settings, "WALSH_USER_AGENT"))


class SettingRefused(ValueError):
    """A setting the crawl would refuse: the card (or the bot page) would promise what no crawl keeps."""


def accepted_settings(settings: Settings) -> Readings:
    """Every ``WALSH_*`` setting read as a crawl's start-up audit reads it; one a crawl would refuse
    raises :class:`SettingRefused` naming it and its requirement: what we publish about the bot
    (the card, its page) must not describe a crawl that never runs."""
    from scrapy_walsh.config import Readings
    from scrapy_walsh.policy.vocabulary import requirement_name
    from scrapy_walsh.settings import SETTINGS_BY_NAME

    readings = Readings(settings)
    if readings.errors:
        refused = "; ".join(
            f"{name} = {readings.given(name)!r} breaks {requirement_name(SETTINGS_BY_NAME[name].requirement)}: "
            f"{readings.refused(name)}"
            for name in readings.errors
        )
        raise SettingRefused(f"refused setting: {refused}")
    return readings


def card_settings(settings: Settings) -> dict[str, Any]:
    """The card's members that come from the settings; :class:`SettingRefused` for a setting a
    crawl refuses."""
    return card_fields(accepted_settings(settings))


def card_fields(readings: Readings) -> dict[str, Any]:
    """The card's members that come from accepted settings (WALSH_BLOCKLIST_CONTACT/POLICY name
    the operator, as in a blocklist file)."""
    return {
        "name": readings.value("WALSH_ROBOTS_TOKEN"),
        "user_agent": readings.value("WALSH_USER_AGENT"),
        "interval": readings.value("WALSH_MIN_INTERVAL"),
        "purposes": readings.value("WALSH_PURPOSES"),
        "contact": readings.value("WALSH_BLOCKLIST_CONTACT"),
        "policy": readings.value("WALSH_BLOCKLIST_POLICY"),
        # the https URL the page is published at, when WALSH_PUBLISHED says one
        "base_url": readings.value("WALSH_PUBLISHED"),
    }


def verify_card(source: str, key: Ed25519PrivateKey, settings: Settings) -> int:
    """Check a published card (file or URL) against the running settings: 1 on any finding."""
    try:
        card = json.loads(read_source(source, _user_agent(settings)))
    except (OSError, ValueError) as exc:
        return _fail(f"{source}: cannot read the card: {exc}")
    ours = card_settings(settings)
    found = agent_card.findings(
        card,
        user_agent=ours["user_agent"],
        token=ours["name"],
        interval=ours["interval"],
        purposes=ours["purposes"],
        keyid=webbotauth.keyid(key),
    )
    for finding in found:
        print(f"finding: {source}: {finding}", file=sys.stderr)
    if found:
        return 1
    print(f"{source}: OK, a Signature Agent Card ({agent_card.DRAFT}) the running settings keep")
    return 0
