"""``scrapy walsh journal``: the request journal for a site owner.

``show --host H`` prints what the journal holds about one host; ``verify FILE|DIR`` checks the hash
chain and the signed heads (exit 1 naming the first broken entry); ``match --host H ACCESS_LOG``
pairs a server's access log (combined, or JSON with signatures) with the journal; ``report --host
H --html FILE`` writes one self-contained HTML page with a timeline. The journal is ``--journal DIR`` or the
crawl's (``WALSH_JOURNAL_DIR``, by default beside the state store).
"""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scrapy_walsh.commands.signed_record import load_public_keys
from scrapy_walsh.identity import webbotauth
from scrapy_walsh.journal import reading, report
from scrapy_walsh.journal.chain import no_journal
from scrapy_walsh.verify import load_json, print_verification, read_source, verify_published

if TYPE_CHECKING:
    from scrapy.settings import Settings

HELP = "the request journal: show a host's requests, verify the chain, match an access log, write a report"
SYNTAX = (
    "show --host H [--since DATE] [--requests] | verify [FILE|DIR] [--published DIR|URL [--saved FILE]] "
    "| match --host H ACCESS_LOG | report --host H --html FILE"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True, metavar="{show,verify,match,report}")
    show = actions.add_parser("show", help="what the journal holds about one host (the site owner's view)")
    verify = actions.add_parser("verify", help="check the hash chain and the signatures")
    verify.add_argument("path", metavar="FILE|DIR", nargs="?", help="a journal file or directory")
    verify.add_argument(
        "--published", metavar="DIR|URL", help="also check the journal holds the heads published there (publish)"
    )
    verify.add_argument(
        "--saved", metavar="FILE", help="with --published: a copy of its heads saved earlier, which it must extend"
    )
    match = actions.add_parser(
        "match", help="pair a server's access log (combined, or JSON with signatures) with the journal"
    )
    match.add_argument("log", metavar="ACCESS_LOG")
    match.add_argument("--tolerance", type=float, default=2.0, help="seconds of clock difference allowed")
    html_report = actions.add_parser("report", help="write one self-contained HTML page for a site owner")
    html_report.add_argument("--html", required=True, metavar="FILE")
    for sub in (show, match, html_report):
        sub.add_argument("--host", required=True, metavar="HOST", help="the host (as our canonical host key)")
        sub.add_argument("--since", metavar="DATE", help="only from this UTC date (YYYY-MM-DD) on")
        sub.add_argument("--journal", metavar="DIR", help="the journal (default: the crawl's)")
    show.add_argument("--requests", action="store_true", help="also list every request, with its status")
    for sub in (verify, show, match, html_report):
        sub.add_argument("--key", metavar="PEM", help="our public (or private) key, PEM")
        sub.add_argument("--directory", metavar="FILE|URL", help="our published key directory (JWKS)")


def run(args: argparse.Namespace, settings: Settings) -> int:
    path = Path(getattr(args, "path", None) or getattr(args, "journal", None) or _default(settings))
    try:
        keys = _keys(args, settings)
    except (OSError, ValueError) as exc:  # a missing or garbage key or key directory: one line
        print(f"error: cannot read the key from {_key_source(args, settings, {})}: {exc}", file=sys.stderr)
        return 1
    problem = no_journal(path)
    # against published heads, a folder emptied after publication is what the heads check names
    if problem is not None and not (getattr(args, "published", None) and path.is_dir()):
        print(f"error: {problem}", file=sys.stderr)
        return 1
    if args.action == "verify":
        if not args.published:
            return verify(path, keys, _key_source(args, settings, keys))
        # against the heads the bot's page published (scrapy walsh publish), with the key directory
        # it names unless a key was given: the journal is read once for both checks
        source = _key_source(args, settings, keys)
        return verify_published(path, args.published, keys, source, _ua(settings), args.saved)
    # one reader for every action: they count the same entries and say the same verification
    found, view = reading.read_journal(path, keys, args.host.strip().lower(), _since(args.since))
    checked = report.banner(found, _key_source(args, settings, keys))
    if args.action == "show":
        print(reading.show(view, checked.words))
        if args.requests:
            print("\n" + report.request_lines(view))
        return 0
    if args.action == "match":
        with open(args.log, encoding="utf-8", errors="replace") as handle:
            log, bad = reading.parse_access_log(handle)
        result = reading.match(view, log, _ua(settings), args.tolerance)
        print(reading.match_words(result, view.host, _signed_by_us(result.not_in_journal, keys)))
        if bad:
            print(f"({bad} lines neither in the combined format nor JSON skipped)")
        print(f"Journal: {checked.words}")
        return 1 if result.not_in_journal or result.not_in_log else 0
    Path(args.html).write_text(report.report_html(view, checked, _ua(settings)), encoding="utf-8")
    print(f"wrote {args.html}: {len(view.sends)} requests, {len(view.refusals)} refusals; {checked.words}")
    return 0


def _signed_by_us(lines: list[reading.LogLine], keys: dict[str, Any] | None) -> dict[int, str]:
    """Log line number -> our keyid, for each line whose logged signature verifies under our keys
    as of when it arrived: a request we sent that the journal does not hold."""
    found = {}
    for line in lines if keys else []:
        if not {"host", "signature", "signature-input"} <= set(line.signed):
            continue
        at = datetime.datetime.fromtimestamp(line.t, datetime.timezone.utc)
        try:
            verified = webbotauth.verify_request(
                line.method, f"https://{line.signed['host']}{line.target}", line.signed, keys or {}, at=at
            )
        except (webbotauth.SigningError, ValueError):
            continue
        found[line.number] = verified.keyid
    return found


def verify(path: Path, keys: dict[str, Any] | None, key_source: str | None) -> int:
    found, _ = reading.read_journal(path, keys)
    if not found.files:
        print(f"FAILED: {no_journal(path)}")
        return 1
    return print_verification(found, keys, key_source)


def _default(settings: Settings) -> Path:
    from scrapy_walsh.config import journal_location

    return journal_location(settings)


def _ua(settings: Settings) -> str:
    from scrapy_walsh.config import parse

    return str(parse(settings, "WALSH_USER_AGENT"))


def _since(text: str | None) -> float | None:
    if not text:
        return None
    day = datetime.date.fromisoformat(text)
    return datetime.datetime(day.year, day.month, day.day, tzinfo=datetime.timezone.utc).timestamp()


def _key_source(args: argparse.Namespace, settings: Settings, keys: dict[str, Any] | None) -> str | None:
    """Where the public key of ``_keys`` came from, for the banner; None when there is none."""
    if keys is None:
        return None
    if args.key:
        return f"--key {args.key}"
    if args.directory:
        return f"--directory {args.directory}"
    return "WALSH_SIGNING_KEY"


def _keys(args: argparse.Namespace, settings: Settings) -> dict[str, Any] | None:
    """keyid -> public key, from --key, --directory, or WALSH_SIGNING_KEY; None when none is known."""
    if args.key:
        return load_public_keys(args.key)
    if args.directory:  # read as the standalone verifier reads it: no redirect followed, bounded
        return webbotauth.directory_keys(load_json(read_source(args.directory, _ua(settings))))
    from scrapy_walsh.config import parse

    configured = parse(settings, "WALSH_SIGNING_KEY")
    if configured:
        private = webbotauth.load_private_key(configured)
        return {webbotauth.keyid(private): private.public_key()}
    return None
