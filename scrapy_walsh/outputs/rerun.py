"""A re-run within the refetch interval yields nothing (R8): a feed that overwrites its file would
then replace the last run's items with an empty list. Said before the file is opened (at start) and
by ``check``, when every target of the spider's last run was fetched within the interval.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from scrapy_walsh.outputs import made_by
from scrapy_walsh.policy.canonical import canonical_url
from scrapy_walsh.policy.vocabulary import Namespace

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

    from scrapy_walsh.store import StateStore

#: Feed URI parameters that make each run's file a new one.
_PER_RUN = ("%(time)s", "%(batch_time)s", "%(batch_id)", "%(crawl_id)")


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


def _keys(urls: Iterable[Any]) -> set[str]:
    keys = set()
    for url in urls:
        if isinstance(url, str) and url.startswith(("http://", "https://")):
            try:
                keys.add(canonical_url(url))
            except ValueError:
                continue
    return keys


def all_fetched_recently(store: StateStore, spider: str, start_urls: Iterable[Any], discovering: bool) -> int:
    """How many targets the spider's last run fetched, when every one of them (its discovered targets,
    or else its static ``start_urls``) was fetched within the refetch interval; 0 otherwise (and for
    a spider whose targets are not written out)."""
    here = made_by.project()
    recent = {url for url, by in store.items(Namespace.FETCHED_BY) if made_by.made_by(by, spider, here)}
    if not recent:
        return 0
    if discovering:
        targets = {
            url
            for url, record in store.items(Namespace.DISCOVERED)
            if isinstance(record, dict) and made_by.made_by(record.get("by"), spider, here)
        }
    else:  # its start URLs, as written (a start() that reads them elsewhere may find new ones)
        targets = _keys(start_urls)
    return len(targets) if targets and targets <= recent else 0


def rerun_warning(
    settings: BaseSettings, store: StateStore, spidercls: type, discovering: bool, interval: float
) -> str | None:
    """The warning, or None: no overwritten file, or a target of the last run is due again."""
    name = str(getattr(spidercls, "name", spidercls.__name__))
    files = overwritten_files(settings, name)
    if not files or interval <= 0:
        return None
    count = all_fetched_recently(store, name, getattr(spidercls, "start_urls", None) or (), discovering)
    if not count:
        return None
    unless = ", unless the site's manifests list new or changed pages" if discovering else ""
    return (
        f"spider {name}: every target of its last run ({count}) was fetched within WALSH_REFETCH_INTERVAL "
        f"({interval:g} s): a re-run within a day yields nothing; this run would replace "
        f"{' and '.join(files)} with an empty list{unless} (wait, or `scrapy walsh state forget --spider {name}`, "
        "or write to a new file: -o appends, %(time)s names one per run)"
    )
