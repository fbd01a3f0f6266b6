"""``scrapy walsh publish DIR``: the bot's public face, as a static folder to serve at its URL.

The folder holds the bot's page, the key directory, the Signature Agent Card, the journal's
signed heads and ``ips.json``, all from the settings and the journal; run it again after each
crawl. :func:`published_findings` is ``check``'s side: where a published folder
(``WALSH_PUBLISHED``) states other facts than the running settings. docs/publishing.md says why.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scrapy_walsh.commands.keys import (
    CARD_FLAGS,
    FLAG_HELP,
    SettingRefused,
    accepted_settings,
    card_fields,
    read_source,
)
from scrapy_walsh.commands.moved_settings import add_flags, apply, warn
from scrapy_walsh.identity import agent_card as agent_card
from scrapy_walsh.identity import bot_page, webbotauth
from scrapy_walsh.journal import published
from scrapy_walsh.journal.chain import no_journal
from scrapy_walsh.verify import MAX_DOCUMENT_BYTES, published_source, verify_path

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from scrapy.settings import Settings

    from scrapy_walsh.config import Readings
    from scrapy_walsh.conformance import Finding

HELP = "write the bot's public page, key directory, Signature Agent Card and signed journal heads to a folder"
SYNTAX = (
    "DIR [--key PATH] [--journal DIR] [--previous DIR|URL] [--operator TEXT] [--contact TEXT] [--policy URI] "
    "[--ip-range CIDR]"
)
#: The operator's facts the page states: flags (formerly settings no crawl read).
FLAGS = ("WALSH_BLOCKLIST_OPERATOR", *CARD_FLAGS, "WALSH_IP_RANGES")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", metavar="DIR", help="the folder to write (created; our files in it replaced)")
    parser.add_argument("--key", metavar="PATH", help="the private key (default: WALSH_SIGNING_KEY; none: unsigned)")
    parser.add_argument("--journal", metavar="DIR", help="the journal (default: the crawl's)")
    parser.add_argument(
        "--previous",
        metavar="DIR|URL",
        help="where the heads were published before (default: DIR); none of them is ever dropped",
    )
    add_flags(parser, FLAGS, FLAG_HELP)


def run(args: argparse.Namespace, settings: Settings) -> int:
    # the publication's time is taken before the journal is read: a head signed before it is published
    now = time.time()
    try:
        root = _folder(args.folder)
        readings = apply(args, accepted_settings(settings), settings, FLAGS, "publish")
        key = _key(args.key, readings)
        journal = _given_journal(args.journal) if args.journal is not None else _journal(settings)
        public = {webbotauth.keyid(key): key.public_key()} if key is not None else None
        current = published.signed_heads(journal, public) if journal is not None and journal.exists() else []
        _verifies(journal, public)
        before = _previous(args.previous or str(root), readings.value("WALSH_USER_AGENT"), args.previous is not None)
        heads = published.grown(before, current, journal if journal is not None else root / "-", now)
    except (SettingRefused, webbotauth.SigningError, Refused, published.Shrinks, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    facts = facts_of(readings, [key] if key is not None else [], len(heads))
    files: dict[str, str] = {"index.html": bot_page.render(facts)}
    files[published.NAME] = _json(published.document(facts.token, heads, now))
    if key is not None:
        files[bot_page.DIRECTORY] = _json(webbotauth.directory([key]))
        files[bot_page.CARD] = _json(agent_card.build(keys=[key], **card_fields(readings)))
    if facts.ip_ranges:
        created = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        files[bot_page.IPS] = _json(bot_page.ip_document(facts.ip_ranges, created))
    try:
        for name, text in files.items():
            _write(root / name, text)
    except OSError as exc:
        print(f"error: cannot write {root}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"wrote {root}: {', '.join(files)}")
    for option, fact in (("--operator", "WALSH_BLOCKLIST_OPERATOR"), ("--contact", "WALSH_BLOCKLIST_CONTACT")):
        if not readings.value(fact):  # the crawler best practices ask for both
            print(f"note: no {option} given: the page names no {option[2:]}", file=sys.stderr)
    print(f"{len(heads)} signed journal heads" + (f" from {journal}" if journal is not None else ""))
    print(f"serve it at the URL your User-Agent names; the key directory as {webbotauth.DIRECTORY_MEDIA_TYPE}")
    return 0


class Refused(ValueError):
    """A folder or journal ``publish`` cannot use: said in one line, exit 1."""


def _folder(given: str) -> Path:
    """The folder to write: an empty name (it would be the current folder) or a file is refused
    before anything is read or written."""
    if not given.strip():
        raise Refused("no folder named: give the folder to write, e.g. `scrapy walsh publish public/`")
    root = Path(given)
    if root.exists() and not root.is_dir():
        raise Refused(f"{root} is not a folder: give the folder to write")
    return root


def _verifies(journal: Path | None, keys: dict[str, Any] | None) -> None:
    """Refused: a journal whose files do not verify together (one missing, replayed, forked), or
    one broken within; a file still being written (its tail not yet signed) is not a fault here."""
    if journal is None or not journal.exists():
        return
    report = verify_path(journal, keys)
    broken = [f"{f.name}, line {f.broken[0]}: {f.broken[2]}" for f in report.files if f.broken and not f.tail_only]
    for problem in report.links + broken:
        raise Refused(f"the journal does not verify: {problem}; publish vouches for nothing it would not")


def _previous(location: str, user_agent: str, given: bool) -> dict[str, Any] | None:
    """The heads document published at ``location`` before; None when the folder has none yet
    (``--previous`` given: it must be there)."""
    source = published_source(location, published.NAME)
    if not given and not Path(source).exists():
        return None
    try:
        document = json.loads(read_source(source, user_agent, MAX_DOCUMENT_BYTES))
    except (OSError, ValueError) as exc:
        raise Refused(f"cannot read the heads published before at {source}: {exc}") from None
    if not isinstance(document, dict):
        raise Refused(f"{source} is not a published heads document")
    return document


def _given_journal(given: str) -> Path:
    """``--journal DIR``: it must hold a journal (the crawl's own may not exist yet: no heads then)."""
    problem = no_journal(Path(given))
    if problem is not None:
        raise Refused(f"--journal: {problem}")
    return Path(given)


def _key(given: str | None, readings: Readings) -> Ed25519PrivateKey | None:
    """``--key PATH``, else ``WALSH_SIGNING_KEY``; None for a bot that does not sign."""
    path = given or readings.value("WALSH_SIGNING_KEY")
    return webbotauth.load_private_key(path) if path else None


def _journal(settings: Settings) -> Path | None:
    from scrapy_walsh.config import journal_location

    try:
        return journal_location(settings)
    except ValueError:
        return None


def facts_of(readings: Readings, keys: list[Any], heads: int = 0) -> bot_page.BotFacts:
    """What the bot's page states, from settings a crawl accepts."""
    fields = card_fields(readings)
    return bot_page.BotFacts(
        token=fields["name"],
        user_agent=fields["user_agent"],
        interval=fields["interval"],
        purposes=tuple(fields["purposes"]),
        operator=readings.value("WALSH_BLOCKLIST_OPERATOR"),
        contact=fields["contact"],
        policy=fields["policy"],
        keyids=tuple(webbotauth.keyid(k) for k in keys),
        ip_ranges=tuple(readings.value("WALSH_IP_RANGES")),
        heads=heads,
    )


def _json(document: Any) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _write(path: Path, text: str) -> None:
    """Replace ``path`` whole (written beside it, then renamed): a server never serves half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


# ---------------------------------------------------------------------- what check reads


def published_findings(settings: Settings, location: str | None = None) -> list[Finding]:
    """``check``: a warning for each fact the folder ``check --published`` names states otherwise than
    the settings (product token, User-Agent, interval, keys); nothing when none is named."""
    from scrapy_walsh.conformance import PASS, WARN, Finding

    try:
        readings = accepted_settings(settings)
        if location is None:
            location = readings.value("WALSH_PUBLISHED")
            if location:
                warn(settings, "WALSH_PUBLISHED", "check")
        if not location:
            return []
        key = _key(None, readings)
    except (SettingRefused, webbotauth.SigningError):
        return []  # the audit names the refused setting or key
    facts = facts_of(readings, [key] if key is not None else [])
    agent = facts.user_agent
    problems: list[str] = []
    try:
        page = read_source(published_source(location, "index.html"), agent).decode("utf-8", "replace")
        problems += bot_page.disagreements(page, facts)
    except (OSError, ValueError) as exc:
        problems.append(f"cannot read the published page: {exc}")
    if key is not None:
        try:
            card = json.loads(read_source(published_source(location, bot_page.CARD), agent))
            fields = card_fields(readings)
            problems += agent_card.findings(
                card,
                user_agent=agent,
                token=fields["name"],
                interval=fields["interval"],
                purposes=fields["purposes"],
                keyid=webbotauth.keyid(key),
            )
            keys = webbotauth.directory_keys(
                json.loads(read_source(published_source(location, bot_page.DIRECTORY), agent))
            )
            if webbotauth.keyid(key) not in keys:
                problems.append(
                    f"the published key directory lacks the key the crawl signs with, {webbotauth.keyid(key)}"
                )
        except (OSError, ValueError) as exc:
            problems.append(f"cannot read the published card or key directory: {exc}")
    if not problems:
        return [Finding("1", "R1", PASS, "--published", f"{location}: the published page agrees with the settings")]
    return [
        Finding("1", "R1", WARN, "--published", f"{location}: {p} (run scrapy walsh publish again)") for p in problems
    ]
