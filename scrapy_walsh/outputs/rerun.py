"""A re-run within the refetch interval yields nothing (R8): a feed that overwrites its file would
then replace the last run's items with an empty list, and the project's own item pipelines get
none. Said at start (before the file is opened) and by ``check``, when every target of the spider's
last run was fetched within the interval; the check reads the spider's own targets only.
docs/requirements/r8-frequency.md says how.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scrapy_walsh.outputs import made_by
from scrapy_walsh.policy.canonical import canonical_url
from scrapy_walsh.policy.discovery import MAX_TARGETS, discovered_at
from scrapy_walsh.policy.gates import recently_fetched
from scrapy_walsh.policy.vocabulary import Namespace

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

    from scrapy_walsh.store import StateStore

#: Feed URI parameters that make each run's file a new one.
_PER_RUN = ("%(time)s", "%(batch_time)s", "%(batch_id)", "%(crawl_id)")
DAY = 86400.0
#: Targets looked up per read of the store: the check stops at the first page with one due again.
PAGE = 500
#: The most ``discovered`` records read for a discovering spider (those of its own sites): no
#: more than one run of it may declare; past them the check has no answer and says nothing.
MOST_DISCOVERED = MAX_TARGETS


def overwritten_files(settings: BaseSettings, spider: str) -> list[str]:
    """The local files the crawl's feeds overwrite (``overwrite``, or ``-O``), named as in FEEDS."""
    found = []
    for uri, options in (settings.getdict("FEEDS") or {}).items():
        text = str(uri)
        if not isinstance(options, dict) or not options.get("overwrite") or any(p in text for p in _PER_RUN):
            continue
        if "://" in text and not text.lower().startswith("file://"):
            continue  # a remote storage: not a file this machine empties
        try:
            found.append(text % {"name": spider})
        except (KeyError, ValueError, TypeError):
            continue
    return found


def own_pipelines(pipelines: Iterable[Any]) -> list[str]:
    """The project's own item pipelines among the enabled ``pipelines`` (paths or classes): neither
    the add-on's nor Scrapy's."""
    found = []
    for entry in pipelines:
        name = entry if isinstance(entry, str) else f"{entry.__module__}.{entry.__qualname__}"
        if not name.startswith(("scrapy_walsh.", "scrapy.")):
            found.append(name)
    return found


def _keys(urls: Iterable[Any]) -> list[str]:
    keys: dict[str, None] = {}
    for url in urls:
        if isinstance(url, str) and url.startswith(("http://", "https://")):
            try:
                keys[canonical_url(url)] = None
            except ValueError:
                continue
    return list(keys)


def _sites(spidercls: type) -> list[str]:
    """The key prefixes of a discovering spider's sites: its start URLs', its sitemaps' and its
    allowed domains' (https, as discovery reads them). A manifest lists URLs of its own scheme,
    host and port only, so every target discovery declares for the spider has a key under one."""
    urls = [*(getattr(spidercls, "start_urls", None) or ()), *(getattr(spidercls, "sitemap_urls", None) or ())]
    domains = getattr(spidercls, "allowed_domains", None) or ()
    urls += [f"https://{d}/" for d in domains if isinstance(d, str) and d]
    sites = []
    for url in _keys(urls):
        scheme, rest = url.split("://", 1)
        sites.append(f"{scheme}://{rest.split('/', 1)[0]}/")
    return sorted(set(sites))


def _every(store: StateStore, namespace: str, keys: Sequence[str], holds: Callable[[Any], bool]) -> bool:
    """Every one of ``keys`` has a record in ``namespace`` that ``holds`` (None: no record), read
    :data:`PAGE` keys at a time, stopping at the first page with one that does not (due again)."""
    for start in range(0, len(keys), PAGE):
        page = keys[start : start + PAGE]
        found = store.get_many(namespace, page)
        if not all(holds(found.get(key)) for key in page):
            return False
    return True


def _fetched_by_spider(store: StateStore, keys: Sequence[str], spider: str, here: str) -> bool:
    """Every one of ``keys`` was fetched within the interval by ``spider`` of project ``here``
    (R8's ``fetched_by`` record is live)."""
    return _every(store, Namespace.FETCHED_BY, keys, lambda by: bool(made_by.made_by(by, spider, here)))


def _answered_within(store: StateStore, keys: Sequence[str], interval: float) -> bool:
    """Every one of ``keys`` was answered within ``interval`` (R8's record holds the answer's time;
    the crawl's own rule decides)."""
    now = time.time()
    return _every(store, Namespace.FETCHED, keys, lambda record: recently_fetched(_time(record), now, interval))


def _time(record: Any) -> float | None:
    """R8's record: the answer's time (a lease while a fetch is under way is no answer yet)."""
    return float(record) if isinstance(record, int | float) and not isinstance(record, bool) else None


def _discovered_recently(store: StateStore, spidercls: type, spider: str, here: str, since: float) -> int:
    """How many targets discovery declared for the spider, when each was answered after ``since``
    and is still recorded as fetched by it; 0 at the first one that is not (due again). The
    ``discovered`` records are read from the spider's own sites only, at most
    :data:`MOST_DISCOVERED` of them (past that: 0, no answer)."""
    count = read = 0
    for site in _sites(spidercls):
        for page in store.pages(Namespace.DISCOVERED, site, PAGE):
            read += len(page)
            own = [
                (key, record)
                for key, record in page
                if isinstance(record, dict) and made_by.made_by(record.get("by"), spider, here)
            ]
            if read > MOST_DISCOVERED or any((discovered_at(record) or 0) <= since for _, record in own):
                return 0
            if not _fetched_by_spider(store, [key for key, _ in own], spider, here):
                return 0
            count += len(own)
    return count


def all_fetched_recently(store: StateStore, spidercls: type, discovering: bool, interval: float) -> int:
    """How many targets the spider's last run fetched, when every one of them (its discovered
    targets, or else its static ``start_urls``) was fetched within the refetch interval; 0 otherwise
    (and for a spider whose targets are not written out). Only the spider's own targets are read,
    and the reading stops at the first one due again: the store's other records cost nothing."""
    spider, here = str(getattr(spidercls, "name", spidercls.__name__)), made_by.project()
    if discovering:
        return _discovered_recently(store, spidercls, spider, here, time.time() - interval)
    # its start URLs as written (a start() may read others), due again by the interval in force
    targets = _keys(getattr(spidercls, "start_urls", None) or ())
    return len(targets) if targets and _answered_within(store, targets, interval) else 0


def at_stake(settings: BaseSettings, spider: str, pipelines: Iterable[Any]) -> bool:
    """Whether a run that yields nothing costs the project something: a file a feed overwrites, or
    the items of its own pipelines. Only then is the store read for it (the crawl's end says
    anyway that no target was fetched)."""
    return bool(overwritten_files(settings, spider) or own_pipelines(pipelines))


@dataclass(frozen=True)
class Rerun:
    """The warning: its ``text``, and the ``setting`` whose output gets nothing (``FEEDS``: a file
    emptied; ``ITEM_PIPELINES``: the project's own pipelines)."""

    text: str
    setting: str


def rerun_warning(
    settings: BaseSettings,
    store: StateStore,
    spidercls: type,
    discovering: bool,
    interval: float,
    pipelines: Iterable[Any] = (),
) -> Rerun | None:
    """The warning, or None: nothing at stake (:func:`at_stake`), or a target of the last run is
    due again. ``pipelines``: the enabled ``ITEM_PIPELINES``, of which the project's own are named
    when no feed overwrites a file."""
    name = str(getattr(spidercls, "name", spidercls.__name__))
    files, own = overwritten_files(settings, name), own_pipelines(pipelines)
    if not (files or own) or interval <= 0:
        return None
    count = all_fetched_recently(store, spidercls, discovering, interval)
    if not count:
        return None
    unless = ", unless the site's manifests list new or changed pages" if discovering else ""
    within = "a day" if interval == DAY else f"{interval:g} s"
    said = (
        f"spider {name}: every target of its last run ({count}) was fetched within WALSH_REFETCH_INTERVAL "
        f"({interval:g} s): a re-run within {within} yields nothing"
    )
    undo = f"wait, or `scrapy walsh state forget --spider {name}`"
    named = f"item pipelines {', '.join(own)} get no items this run"
    if files:
        also = f", and {named}" if own else ""
        return Rerun(
            f"{said}; this run would replace {' and '.join(files)} with an empty list{also}{unless} ({undo}, "
            "or write to a new file: -o appends, %(time)s names one per run)",
            "FEEDS",
        )
    return Rerun(f"{said}; {named}{unless} ({undo})", "ITEM_PIPELINES")
