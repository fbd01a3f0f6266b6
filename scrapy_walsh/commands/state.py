"""``scrapy walsh state``: what the state store remembers about a target, and how to forget it.

``show`` lists what the crawl's store holds and why a target would be skipped; ``forget``
drops R8 records, R7 validators and marks so the next crawl fetches (or emits) again;
``reset --yes`` starts afresh. The pacing ledger and the adopted blocklist are safety state,
never changed here. Exit status: 0, or 1 when the store can't be opened or an argument is
not a URL or host. docs/command-state.md says why.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from scrapy_walsh.outputs import made_by
from scrapy_walsh.policy.canonical import canonical_url, record_keys
from scrapy_walsh.policy.hostkey import host_key, url_host, url_problem
from scrapy_walsh.policy.vocabulary import Namespace
from scrapy_walsh.store import leases

if TYPE_CHECKING:
    from scrapy.settings import Settings

    from scrapy_walsh.store import StateStore

HELP = "show or forget what the state store remembers: R8 fetch times, R7 validators and items, cached robots.txt"
SYNTAX = (
    "show [URL|HOST] [--json] | forget URL... [--items] | forget --host HOST [--items] | forget --spider NAME"
    " | forget --kept NAME | forget --robots HOST | reset --yes"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True, metavar="{show,forget,reset}")
    show = actions.add_parser("show", help="what is stored, and why a target would be skipped")
    show.add_argument("target", nargs="?", metavar="URL|HOST", help="one target URL, or every record of one host")
    show.add_argument("--json", action="store_true", help="print one JSON object")
    forget = actions.add_parser("forget", help="drop R7/R8 records (or the cached robots.txt) so it is fetched again")
    forget.add_argument("urls", nargs="*", metavar="URL", help="targets to fetch again")
    forget.add_argument("--host", metavar="HOST", help="every target of this host")
    forget.add_argument("--robots", metavar="HOST", help="drop the cached robots.txt of this host's origins")
    forget.add_argument(
        "--spider",
        metavar="NAME",
        help="the developer loop: forget this spider's emitted items and the fetch records and validators "
        "of what this project's spider fetched; never the pacing ledger",
    )
    forget.add_argument(
        "--kept",
        metavar="NAME",
        help="drop the items kept for spider NAME's next run (an output could not take them): never delivered",
    )
    forget.add_argument("--items", action="store_true", help="also forget which spiders emitted these URLs")
    forget.add_argument("--json", action="store_true", help="print one JSON object")
    reset = actions.add_parser("reset", help="remove the sqlite state store's files, to start afresh")
    reset.add_argument("--yes", action="store_true", help="yes: every remembered opt-out and pacing entry goes")


def _host(value: str) -> str:
    return url_host(value) if "://" in value else host_key(value)


def _url_host(url: str) -> str:
    return url_host(url)


def _spiders(settings: Settings) -> list[str]:
    """The project's spider names (emitted items are recorded per spider)."""
    from scrapy.spiderloader import get_spider_loader

    try:
        return sorted(get_spider_loader(settings).list())
    except Exception:  # noqa: BLE001 - outside a project there are no spiders to list
        return []


def _seen_namespaces(settings: Settings) -> list[str]:
    return [f"{Namespace.SEEN}:{name}" for name in _spiders(settings)]


def _matching(store: StateStore, namespace: str, urls: set[str] | None, host: str | None) -> list[tuple[str, Any]]:
    """The records of ``namespace`` for ``urls`` (canonical) or for every URL of ``host``."""
    if urls is not None:
        return sorted((url, value) for url in urls if (value := store.get(namespace, url)) is not None)
    return sorted((key, value) for key, value in store.items(namespace) if host is None or _url_host(key) == host)


def _stamp(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def _answers(store: StateStore, urls: set[str] | None, host: str | None) -> dict[str, dict[str, Any]]:
    """Who fetched each target and how it was answered (namespace ``fetched_by``)."""
    return {url: by for url, by in _matching(store, Namespace.FETCHED_BY, urls, host) if isinstance(by, dict)}


def _server_errors(answers: dict[str, dict[str, Any]]) -> dict[str, int]:
    """Targets whose final answer was a 5xx after the retries (counted as fetched, R8)."""
    return {
        url: by["status"] for url, by in answers.items() if isinstance(by.get("status"), int) and by["status"] >= 500
    }


def _too_large(answers: dict[str, dict[str, Any]]) -> dict[str, int | None]:
    """Targets whose answer was refused as too large (counted as fetched, R8): their bound."""
    return {url: by.get("bound") for url, by in answers.items() if by.get("refused")}


def _callback_errors(answers: dict[str, dict[str, Any]]) -> dict[str, str]:
    """Targets whose callback raised (counted as fetched, R8): the error."""
    return {url: str(by["callback_error"]) for url, by in answers.items() if by.get("callback_error")}


def _kept(store: StateStore, settings: Settings) -> dict[str, list[dict[str, Any]]]:
    """Items an output could not take, kept for each spider's next run."""
    found: dict[str, list[dict[str, Any]]] = {}
    for spider in _spiders(settings):
        namespace = f"{Namespace.UNDELIVERED}:{spider}"
        records = [r for _, r in store.items(namespace) if isinstance(r, dict)]
        if records:
            found[spider] = records
    return found


def show(store: StateStore, settings: Settings, target: str | None, refetch: float) -> dict[str, Any]:
    """What the store holds: counts of each kind, or every record of one target URL or host."""
    seen = _seen_namespaces(settings)
    kept = _kept(store, settings)
    if target is None:
        return _overview(store, seen, kept)
    urls = set(record_keys(target)) if "://" in target else None
    host = _host(target)
    targets: dict[str, dict[str, Any]] = {}
    _add_fetch_times(targets, store, urls, host, refetch)
    _add_answers(targets, store, urls, host)
    for url, validators in _matching(store, Namespace.VALIDATORS, urls, host):
        targets.setdefault(url, {})["validators"] = validators
    _add_emitted(targets, store, seen, urls, host)
    _add_kept_items(targets, kept, urls, host)
    robots = _robots_of(store, host)
    ledger = store.get(Namespace.PACING, host)
    return {"store": store.uri, "target": target, "targets": targets, "robots": robots, "pacing": ledger}


def _overview(store: StateStore, seen: list[str], kept: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """``show`` without a target: the records of each kind, the targets fetched without their
    items, the items kept for a next run, and the crawls holding the store."""
    counts = {ns: sum(1 for _ in store.items(ns)) for ns in (Namespace.FETCHED, Namespace.VALIDATORS)}
    counts[Namespace.SEEN] = sum(sum(1 for _ in store.items(ns)) for ns in seen)
    counts[Namespace.ROBOTS] = sum(1 for _ in store.items(Namespace.ROBOTS))
    counts[Namespace.PACING] = sum(1 for _ in store.items(Namespace.PACING))
    counts[Namespace.UNDELIVERED] = sum(len(records) for records in kept.values())
    report: dict[str, Any] = {"store": store.uri, "counts": {str(k): v for k, v in sorted(counts.items())}}
    answers = _answers(store, None, None)
    report["server_errors"] = dict(sorted(_server_errors(answers).items()))
    report["too_large"] = dict(sorted(_too_large(answers).items()))
    report["callback_errors"] = dict(sorted(_callback_errors(answers).items()))
    report["kept_items"] = {spider: len(records) for spider, records in sorted(kept.items())}
    report["crawls"] = len(leases.live_crawls(store))
    return report


def _add_fetch_times(
    targets: dict[str, dict[str, Any]], store: StateStore, urls: set[str] | None, host: str | None, refetch: float
) -> None:
    """R8: when each target was fetched and may be fetched again, or the lease of a crawl sending it."""
    now = time.time()
    for url, fetched_at in _matching(store, Namespace.FETCHED, urls, host):
        if leases.is_lease(fetched_at):
            live = leases.alive(store, fetched_at.get("crawl"))
            targets.setdefault(url, {})["being_fetched"] = {
                "since": _stamp(fetched_at.get("at")),
                "crawl_running": live,
            }
            continue
        again = fetched_at + refetch
        targets.setdefault(url, {})["fetched"] = {
            "at": _stamp(fetched_at),
            "fetch_again_after": _stamp(again),
            "skipped_now": refetch > 0 and again > now,
        }


def _add_answers(
    targets: dict[str, dict[str, Any]], store: StateStore, urls: set[str] | None, host: str | None
) -> None:
    """Who fetched each target, and the answers that count as fetched without giving items."""
    answers = _answers(store, urls, host)
    for url, by in answers.items():
        if by.get("spider") or by.get("command"):
            targets.setdefault(url, {})["fetched_by"] = {"by": made_by.described(by), "project": by.get("project")}
    for url, status in _server_errors(answers).items():
        targets.setdefault(url, {})["server_error"] = status
    for url, bound in _too_large(answers).items():
        targets.setdefault(url, {})["too_large"] = bound
    for url, error in _callback_errors(answers).items():
        targets.setdefault(url, {})["callback_error"] = error


def _add_emitted(
    targets: dict[str, dict[str, Any]], store: StateStore, seen: list[str], urls: set[str] | None, host: str | None
) -> None:
    """R7: which spiders emitted each target as an item, and when."""
    for namespace in seen:
        for url, emitted_at in _matching(store, namespace, urls, host):
            if leases.is_lease(emitted_at):
                continue  # an item on its way to the feed: not emitted yet
            spider = namespace.partition(":")[2]
            targets.setdefault(url, {}).setdefault("emitted_by", {})[spider] = _stamp(emitted_at)


def _add_kept_items(
    targets: dict[str, dict[str, Any]], kept: dict[str, list[dict[str, Any]]], urls: set[str] | None, host: str
) -> None:
    """How many items of each target are kept for each spider's next run."""
    for spider, records in kept.items():
        for record in records:
            page = record.get("page")
            if not isinstance(page, str) or "://" not in page:
                continue
            url = canonical_url(page)
            if (urls is not None and url not in urls) or (urls is None and _url_host(url) != host):
                continue
            kept_here = targets.setdefault(url, {}).setdefault("kept_items", {})
            kept_here[spider] = kept_here.get(spider, 0) + 1


def _robots_of(store: StateStore, host: str) -> dict[str, dict[str, Any]]:
    """The cached robots.txt of each of the host's origins (R2)."""
    return {
        origin: {
            "outcome": saved.get("outcome"),
            "status": saved.get("status"),
            "fetched": _stamp(saved.get("fetched_at")),
        }
        for origin, saved in sorted(store.items(Namespace.ROBOTS))
        if _url_host(origin) == host
    }


def forget(store: StateStore, settings: Settings, args: argparse.Namespace) -> dict[str, Any]:
    dropped: dict[str, list[str]] = {}

    def drop(namespace: str, keys: Iterable[str]) -> None:
        for key in sorted(set(keys)):
            if store.get(namespace, key) is not None:
                store.delete(namespace, key)
                dropped.setdefault(str(namespace), []).append(key)

    if args.kept:
        for kind in (Namespace.UNDELIVERED, Namespace.DELIVERING):
            spider_namespace = f"{kind}:{args.kept}"
            drop(spider_namespace, [key for key, _ in store.items(spider_namespace)])
    if args.robots:
        host = _host(args.robots)
        drop(Namespace.ROBOTS, [origin for origin, _ in store.items(Namespace.ROBOTS) if _url_host(origin) == host])
    namespaces = [
        Namespace.FETCHED,
        Namespace.FETCHED_BY,
        Namespace.VALIDATORS,
        Namespace.DISCOVERED,  # else a page its sitemap dates as unchanged would stay unfetched
        *(_seen_namespaces(settings) if args.items else []),
    ]
    urls = {key for url in args.urls for key in record_keys(url)}  # an earlier version's key too
    hosts = [_host(args.host)] if args.host else []
    others: list[str] = []
    if args.spider:
        unowned = spider_hosts(settings, args.spider)  # raises for a spider this project lacks
        fetched, theirs, others = fetched_by_spider(store, args.spider, unowned)
        for kind in (Namespace.SEEN, Namespace.UNDELIVERED, Namespace.DELIVERING):  # kept items: fetched again
            spider_namespace = f"{kind}:{args.spider}"
            # an item keyed by the URL of a page another project's spider of this name fetched is its
            drop(spider_namespace, [key for key, _ in store.items(spider_namespace) if key not in theirs])
        for record in (Namespace.FETCHED, Namespace.FETCHED_BY, Namespace.VALIDATORS, Namespace.DISCOVERED):
            drop(record, fetched)
    for namespace in namespaces:
        if urls:
            drop(namespace, urls)
        for host in sorted(set(hosts)):
            drop(namespace, [key for key, _ in _matching(store, namespace, None, host)])
    report: dict[str, Any] = {"store": store.uri, "dropped": dropped}
    if others:
        report["shared_spider_name"] = others
    return report


def fetched_by_spider(store: StateStore, spider: str, unowned_hosts: list[str]) -> tuple[set[str], set[str], list[str]]:
    """The targets ``spider`` of this project fetched, by the store's record of who fetched each
    (so dynamic start requests count, and another project's records, on any host and port, never
    do); the targets another project's spider of that name fetched, and those projects.

    A record that names no project was written by an earlier version: it is taken by the earlier
    rule, the hosts of the spider's static ``start_urls`` and ``allowed_domains``."""
    here = made_by.project()
    found: set[str] = set()
    theirs: set[str] = set()
    others: set[str] = set()
    named: dict[str, bool | None] = {}
    for url, by in store.items(Namespace.FETCHED_BY):
        named[url] = mine = made_by.made_by(by, spider, here)
        if mine:
            found.add(url)
        elif mine is False and by.get("spider") == spider:
            theirs.add(url)
            others.add(str(by.get("project")))
    for url, record in store.items(Namespace.DISCOVERED):  # kept past R8's record, for the lastmod rule
        if isinstance(record, dict) and made_by.made_by(record.get("by"), spider, here):
            found.add(url)
    hosts = set(unowned_hosts)
    for namespace in (Namespace.FETCHED, Namespace.VALIDATORS):
        for url, value in store.items(namespace):
            if named.get(url) is None and not leases.is_lease(value) and _url_host(url) in hosts:
                found.add(url)
    return found, theirs, sorted(others)


def spider_hosts(settings: Settings, name: str) -> list[str]:
    """The hosts of a spider's declared targets: its ``start_urls`` and ``allowed_domains``."""
    from scrapy.spiderloader import get_spider_loader

    try:
        cls = get_spider_loader(settings).load(name)
    except KeyError:
        known = ", ".join(_spiders(settings)) or "none"
        raise ValueError(f"no spider named {name!r} in this project (spiders: {known})") from None
    found = {_host(u) for u in getattr(cls, "start_urls", None) or () if isinstance(u, str) and "://" in u}
    found |= {_host(d) for d in getattr(cls, "allowed_domains", None) or () if isinstance(d, str) and d}
    return sorted(h for h in found if h)


def _render_dropped(report: dict[str, Any]) -> list[str]:
    """What ``forget`` dropped, one line per page (or other key) naming its records, a total, and a
    note per project sharing the spider's name."""
    out: list[str] = []
    by_key: dict[str, list[str]] = {}
    for namespace, keys in report["dropped"].items():
        for key in keys:
            by_key.setdefault(key, []).append(namespace)
    if not by_key:
        out.append("nothing to forget: no matching record")
    out += [f"forgot       {key}  ({', '.join(namespaces)})" for key, namespaces in sorted(by_key.items())]
    if by_key:
        records = sum(len(namespaces) for namespaces in by_key.values())
        kinds = ", ".join(f"{namespace} {len(keys)}" for namespace, keys in report["dropped"].items())
        pages = f"{len(by_key)} page{'s' if len(by_key) > 1 else ''}"
        out.append(f"forgot {pages}: {records} record{'s' if records > 1 else ''} ({kinds})")
    for other in report.get("shared_spider_name", []):
        out.append(
            f"note         project {other} has a spider of this name too: its fetch records stay, and so do "
            "the emitted items (R7) keyed by the URL of a page it fetched; items recorded under another key "
            "(WALSH_DEDUP_KEY) are recorded per spider name and went too. Give the two spiders distinct names "
            "to keep them apart"
        )
    return out


def render(report: dict[str, Any]) -> str:
    """The report of ``show`` or ``forget`` for people."""
    out = [f"store        {report['store']}"]
    if "counts" in report:
        out += _render_counts(report)
    elif "dropped" in report:
        out += _render_dropped(report)
    else:
        out += _render_targets(report)
    return "\n".join(out)


def _render_counts(report: dict[str, Any]) -> list[str]:
    """``show`` without a target: the counts, the targets fetched without items, the kept items, the crawls."""
    out = [f"{name:<12} {count} record(s)" for name, count in report["counts"].items()]
    out += [
        f"server error {url}: HTTP {status} after the retries (counted as fetched, R8; "
        "`scrapy walsh state forget URL` to try again)"
        for url, status in report["server_errors"].items()
    ]
    out += [
        f"too large    {url}: refused over its bound" + (f" of {bound} bytes" if bound else "") + " (counted as "
        "fetched, R8; `scrapy walsh state forget URL` to try again, e.g. after raising WALSH_MAX_BODY_BYTES)"
        for url, bound in report["too_large"].items()
    ]
    out += [
        f"callback     {url}: the callback raised {error} (counted as fetched, R8; once the spider is "
        f"fixed: scrapy walsh state forget {url})"
        for url, error in report["callback_errors"].items()
    ]
    out += [
        f"kept items   {count} of spider {spider!r}: an output could not take them; its next run delivers them"
        for spider, count in report["kept_items"].items()
    ]
    if report["crawls"]:
        out.append(f"crawls       {report['crawls']} running on this store now")
    return out


def _render_targets(report: dict[str, Any]) -> list[str]:
    """``show URL|HOST``: each target's records, the host's robots.txt and pacing ledger, a hint."""
    out = []
    if not report["targets"]:
        out.append(f"targets      none stored for {report['target']}")
    for url, record in report["targets"].items():
        out += _render_target(url, record)
    for origin, robots in report["robots"].items():
        out.append(f"robots.txt   {origin}: {robots['outcome']} (HTTP {robots['status']}), read {robots['fetched']}")
    if report["pacing"]:
        out.append(f"pacing       {json.dumps(report['pacing'], sort_keys=True)} (read only)")
    if any(r.get("fetched", {}).get("skipped_now") for r in report["targets"].values()):
        out.append("hint         scrapy walsh state forget URL  (fetch it again in the next crawl)")
    return out


def _render_target(url: str, record: dict[str, Any]) -> list[str]:
    """One target's records: its lease, its answer, kept items, R8 fetch time, fetcher, R7 records."""
    out = [f"target       {url}"]
    fetched = record.get("fetched")
    being = record.get("being_fetched")
    if being:
        who = "by a running crawl" if being["crawl_running"] else "by a crawl gone since: the next crawl sends it"
        out.append(f"  sending    since {being['since']}, {who} (a lease, not a fetch)")
    if record.get("server_error"):
        out.append(f"  answered   HTTP {record['server_error']} after the retries (counted as fetched, R8)")
    if "too_large" in record:
        bound = f" of {record['too_large']} bytes" if record["too_large"] else ""
        out.append(f"  refused    too large: over its bound{bound} (counted as fetched, R8)")
    if record.get("callback_error"):
        out.append(
            f"  callback   raised {record['callback_error']} (counted as fetched, R8; once the spider is "
            f"fixed: scrapy walsh state forget {url})"
        )
    for spider, count in record.get("kept_items", {}).items():
        out.append(f"  kept       {count} item(s) for spider {spider!r}: its next run delivers them")
    if fetched:
        why = " (skipped now: R8, WALSH_REFETCH_INTERVAL)" if fetched["skipped_now"] else ""
        out.append(f"  fetched    {fetched['at']}; again after {fetched['fetch_again_after']}{why}")
    if record.get("fetched_by"):
        project = record["fetched_by"]["project"] or "not recorded (an earlier version)"
        out.append(f"  by         {record['fetched_by']['by']}, project {project}")
    if record.get("validators"):
        v = record["validators"]
        out.append(f"  validators ETag {v.get('etag')}, Last-Modified {v.get('last_modified')} (R7)")
    for spider, at in record.get("emitted_by", {}).items():
        out.append(f"  emitted    by spider {spider!r} at {at} (R7: its items are not emitted again)")
    return out


def _running(location: Any, identity: str) -> list[str]:
    """The crawls that hold the store now (pid and machine), read from the store itself; none
    when it can't be opened (a refused store holds no crawl: a crawl can't open it either)."""
    from scrapy_walsh.store import StateStoreError, open_store

    try:
        store = open_store(location, identity)
    except StateStoreError:
        return []
    try:
        return [
            f"pid {r.get('pid')} on {r.get('machine')} (spider {r.get('spider')})" for _, r in leases.live_crawls(store)
        ]
    finally:
        store.close()


def reset_redis(location: Any, yes: bool, identity: str) -> int:
    """A Redis store that lost its data (or now holds another store) is refused by every machine
    that remembers it; this machine forgets the id it remembers, so its next crawl starts afresh
    on the store as it is. Nothing in Redis is deleted: a fleet's store is never cleared from here."""
    from scrapy_walsh.store import machine_state
    from scrapy_walsh.store.redis import current_id, redis_address

    address = redis_address(location.uri)
    remembered = machine_state.remembered_id(identity, address)
    if remembered is None:
        print(f"this machine remembers no store at {location.shown}: nothing to reset")
        return 0
    try:
        found = current_id(location.uri, identity)
    except Exception as exc:  # noqa: BLE001 - unreachable, refused: said, and nothing is forgotten
        print(f"error: {location.shown} can't be read ({exc}); nothing was forgotten", file=sys.stderr)
        return 1
    if found == remembered:
        print(
            f"the state store {location.shown} is the one this machine used (id {remembered}): nothing to reset "
            "(a fleet's Redis is never cleared from here)"
        )
        return 0
    now = f"now holds store {found}" if found else "lost its data"
    if not yes:
        print(
            f"error: this machine used {location.shown} as store {remembered}, and it {now}. Run again with --yes "
            "to forget that id here: the next crawl on this machine starts afresh on the store as it is (every "
            "opt-out of the list the store lost stays in force: this machine keeps its own copy of the last "
            "adopted blocklist). Each machine of the fleet that remembers the store does this once",
            file=sys.stderr,
        )
        return 1
    machine_state.forget_id(identity, address)
    print(f"forgot       store {remembered} at {location.shown} (it {now}); the next crawl starts afresh there")
    return 0


def reset(location: Any, yes: bool, identity: str) -> int:
    """Remove an sqlite store's files (the only way to start afresh on a refused store); refused
    while a crawl holds the store (its ledger would split). Redis: :func:`reset_redis`."""
    from scrapy_walsh.store.sqlite import store_files

    if location.scheme != "sqlite":
        return reset_redis(location, yes, identity)
    files = [f for f in store_files(location.path) if f.exists()]
    if not files:
        print(f"no state store at {location.shown}: nothing to reset")
        return 0
    running = _running(location, identity)
    if running:
        print(
            f"error: a crawl holds {location.shown} now: {'; '.join(running)}. Resetting it would split the "
            "pacing ledger (the running crawl keeps its copy, the next one starts afresh). Stop the crawl first",
            file=sys.stderr,
        )
        return 1
    if not yes:
        print(
            f"error: this removes {', '.join(str(f) for f in files)}: every opt-out, robots.txt and "
            "pacing entry it remembers. Run again with --yes",
            file=sys.stderr,
        )
        return 1
    for found in files:
        found.unlink(missing_ok=True)
        print(f"removed      {found}")
    return 0


def run(args: argparse.Namespace, settings: Settings) -> int:
    from scrapy_walsh.addon import Addon
    from scrapy_walsh.config import WalshConfig
    from scrapy_walsh.store import StateStoreError, open_store

    if args.action == "forget" and not (args.urls or args.host or args.robots or args.spider or args.kept):
        print(
            "error: name targets: forget URL..., forget --host HOST, forget --spider NAME, forget --kept NAME "
            "or forget --robots HOST",
            file=sys.stderr,
        )
        return 1
    target = getattr(args, "target", None)
    urls = list(getattr(args, "urls", None) or []) + ([target] if target and "://" in target else [])
    for url in urls:
        if problem := url_problem(url):
            print(f"error: {problem}", file=sys.stderr)
            return 1
    effective = settings.copy()
    Addon().update_settings(effective)
    config = WalshConfig.from_settings(effective)
    location = config.state_location()
    if args.action == "reset":
        return reset(location, args.yes, config.robots_token)
    if location.scheme == "sqlite" and not location.path.exists():
        print(f"no state store at {location.shown}: nothing is remembered yet", file=sys.stderr)
        return 0
    try:
        store = open_store(location, config.robots_token)
    except StateStoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    try:
        if args.action == "show":
            report = show(store, effective, args.target, config.refetch_interval)
        else:
            report = forget(store, effective, args)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        store.close()
    print(json.dumps(report, indent=2, sort_keys=True) if args.json else render(report))
    return 0
