"""Every item reaches the crawl's outputs, or is kept until it can: no output failure loses one.

:class:`Delivery` writes each item to the feeds itself (in place of ``FeedExporter``'s own
``item_scraped`` handler) and tells its listeners (R7's dedup, R8's answers) each item's
outcome: :data:`DELIVERED`, :data:`DROPPED`, :data:`KEPT` or :data:`NOT_KEPT`. The first failed
write stops the crawl (:func:`scrapy_walsh.outputs.faults.stop`); that item and every later one are kept
in the state store, and :class:`RedeliveryMiddleware` delivers them on the next run.
docs/state-store-items.md says what happens to each item, and why.
"""

from __future__ import annotations

import inspect
import io
import logging
import os
import stat
import time
import traceback
import uuid
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import urlunsplit

from itemadapter import ItemAdapter
from scrapy import signals
from scrapy.extensions.feedexport import FeedExporter, FileFeedStorage, StdoutFeedStorage
from scrapy.extensions.postprocessing import PostProcessingManager
from scrapy.utils.misc import load_object
from scrapy.utils.python import global_object_name
from twisted.internet.defer import Deferred

from scrapy_walsh.context import CrawlContext
from scrapy_walsh.outputs import exit_status, faults, typed_command
from scrapy_walsh.policy.urls import split
from scrapy_walsh.policy.vocabulary import Namespace, StrEnum
from scrapy_walsh.store import StateStoreError, leases, open_crawl_store

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler


logger = logging.getLogger(__name__)

#: The close reason of a crawl stopped by an output that could not write.
OUTPUT_FAILED = "walsh_output_failed"
#: Stats.
FAILED = "walsh/outputs/failed"
KEPT_STAT = "walsh/outputs/kept"
NOT_KEPT_STAT = "walsh/outputs/not_kept"
REDELIVERED = "walsh/outputs/redelivered"
#: The Scrapy commands that deliver kept items (None: a script running crawlers itself).
REDELIVERING = frozenset({"crawl", "runspider", None})
#: Where kept items are redelivered: next to R8's answered middleware (1), after every other
#: spider middleware, so a kept item is not judged again by what judged it in its first run.
SPIDER_PRIORITY = 2


class Outcome(StrEnum):
    #: In every feed (a local file flushed to the operating system), or handed to a feed that
    #: stores its file when its slot closes.
    DELIVERED = "delivered"
    #: A pipeline dropped it (``DropItem``: a duplicate, a user's filter).
    DROPPED = "dropped"
    #: An output could not take it; kept in the state store for the next run.
    KEPT = "kept"
    #: An output could not take it, and the store could not keep it: its page stays unmarked.
    NOT_KEPT = "not_kept"


DELIVERED, DROPPED, KEPT, NOT_KEPT = Outcome.DELIVERED, Outcome.DROPPED, Outcome.KEPT, Outcome.NOT_KEPT
#: ``listener(item, response, outcome)``: told once per item that entered the pipelines.
Listener = Callable[[Any, Any, Outcome], None]
#: Feeds whose file is the output itself: flushed after each item, the item is delivered.
LOCAL_STORAGES = (FileFeedStorage, StdoutFeedStorage)


class OutputFailed(Exception):
    """An output could not take an item: ``output`` names it, ``error`` says why."""

    def __init__(self, output: str, error: BaseException):
        super().__init__(output)
        self.output = output
        self.error = error


class Delivery:
    """The crawl's one account of where each item went (``CrawlContext.of(crawler).get(Delivery)``)."""

    def __init__(self, crawler: Crawler):
        assert crawler.stats is not None
        self.crawler = crawler
        self.stats = crawler.stats
        context = CrawlContext.of(crawler)
        self.store = context.get(open_crawl_store)
        self.crawl = context.crawl_id
        self.listeners: list[Listener] = []
        #: ``(response, entry) -> bool``: takes a row to write with the answer's record (:meth:`with_answer`)
        self.record_with_answer: Callable[[Any, tuple[str, str, Any, float | None]], bool] | None = None
        #: The first output failure, worded: from then on every item is kept.
        self.failure: str | None = None
        self.spider = getattr(crawler.spidercls, "name", None) or "spider"
        #: id(item) -> (item, kept key, lease): kept items handed to the pipelines again now
        self.redelivering: dict[int, tuple[Any, str, str]] = {}
        #: feeds stored when their slot closes that could not store their file, worded
        self.unstored: list[str] = []
        self._watched: weakref.WeakSet[Any] = weakref.WeakSet()
        self.feeds = crawler.get_extension(FeedExporter)
        if self.feeds is not None:
            # the feeds are written from item_scraped below, so a failure is seen (and said) once
            crawler.signals.disconnect(self.feeds.item_scraped, signal=signals.item_scraped)
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.item_scraped, signal=signals.item_scraped)
        crawler.signals.connect(self.item_error, signal=signals.item_error)
        crawler.signals.connect(self.item_dropped, signal=signals.item_dropped)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)
        crawler.signals.connect(self.feed_exporter_closed, signal=signals.feed_exporter_closed)

    @property
    def namespace(self) -> str:
        return f"{Namespace.UNDELIVERED}:{self.spider}"

    @property
    def leases(self) -> str:
        return f"{Namespace.DELIVERING}:{self.spider}"

    def listen(self, listener: Listener) -> None:
        self.listeners.append(listener)

    def with_answer(self, response: Any, entry: tuple[str, str, Any, float | None]) -> bool:
        """Hand ``entry`` (a store row a listener writes for an item delivered now) to the record
        of the answer that yielded it, when that record is written next (one round trip for
        both); False: the listener writes it. R8's record keeper answers
        (:attr:`record_with_answer`)."""
        return self.record_with_answer is not None and self.record_with_answer(response, entry)

    def stored_at_close(self) -> bool:
        """A feed of this crawl stores its file only when its slot closes (S3, FTP, GCS): an item
        handed to it is delivered then, not now."""
        return self.feeds is not None and any(not isinstance(s.storage, LOCAL_STORAGES) for s in self.feeds.slots)

    def spider_opened(self, spider: Spider) -> None:
        self.spider = spider.name
        self._watch_slots()

    # -- what happened to each item -----------------------------------------------------------

    def item_scraped(self, item: Any, response: Any = None, spider: Spider | None = None) -> None:
        """The item passed every pipeline: write it to the feeds, or keep it."""
        if self.failure is None:
            try:
                self._write(item, spider)
            except OutputFailed as failed:
                self._stop(failed.output, failed.error)
        if self.failure is not None:
            self._tell(item, response, self._keep(item, response))
            return
        self._tell(item, response, DELIVERED)
        self._redelivered(item)

    def item_error(self, item: Any, response: Any = None, spider: Spider | None = None, failure: Any = None) -> None:
        """A pipeline raised: the crawl stops, the item is kept."""
        error = getattr(failure, "value", None)
        if not isinstance(error, BaseException):
            error = RuntimeError("an item pipeline failed")
        self._stop(f"the item pipeline {self._pipeline_of(error)}", error, where=True)
        self._tell(item, response, self._keep(item, response))

    def item_dropped(self, item: Any, response: Any = None, exception: Any = None, spider: Any = None) -> None:
        self._tell(item, response, DROPPED)
        self._redelivered(item)  # a kept item a pipeline drops now (a duplicate) is done with

    def _tell(self, item: Any, response: Any, outcome: Outcome) -> None:
        for listener in self.listeners:
            listener(item, response, outcome)

    # -- writing to the feeds ----------------------------------------------------------------------

    def _write(self, item: Any, spider: Any) -> None:
        """Scrapy's feed export of ``item``, then a flush of each local feed file; OutputFailed
        names the feed that could not take it (its torn record is cut off first)."""
        if self.feeds is None:
            return
        self._watch_slots()
        slots = list(self.feeds.slots)
        # flushed after the previous item: each file's position is the end of its last whole item
        before = {slot: (slot.itemcount, _end(slot)) for slot in slots}
        try:
            self.feeds.item_scraped(item, spider)
        except Exception as exc:  # noqa: BLE001 - any failure of a feed is the output failing
            failed = next((s for s in slots if s.itemcount == before[s][0] and s.filter.accepts(item)), None)
            raise OutputFailed(self._cut(failed, before), exc) from exc
        for slot in slots:  # a batch's slot replaced by the export is still open until it closes
            if slot.file is None or not isinstance(slot.storage, LOCAL_STORAGES):
                continue
            try:
                slot.file.flush()
            except Exception as exc:  # noqa: BLE001
                raise OutputFailed(self._cut(slot, before), exc) from exc

    def _cut(self, slot: Any, before: dict[Any, tuple[int, int | None]]) -> str:
        """``slot`` failed: its file is cut back to the end of its last whole item, and what is
        still buffered for it never reaches it (Scrapy closes the slot, and the close flushes).
        Returns the output's name."""
        if slot is None:
            return "a feed"
        count, end = before[slot]
        slot.itemcount = count  # Scrapy's "Stored ... (N items)" then counts what the file holds
        if slot.file is None and self.feeds is not None and slot in self.feeds.slots:  # it could not be opened
            self.feeds.slots.remove(slot)
        file = _plain(slot.file)
        if file is not None:
            _cut_file(file, end, slot.exporter if count else None)  # no whole item: no opening to close
        return f"the feed {_shown(slot.uri)}"

    # -- feeds stored when their slot closes -------------------------------------------------

    def _watch_slots(self) -> None:
        """Learn whether each feed stored at its slot's close stores its file (Scrapy only logs it)."""
        for slot in self.feeds.slots if self.feeds is not None else []:
            if slot not in self._watched and not isinstance(slot.storage, LOCAL_STORAGES):
                self._watched.add(slot)
                # this slot's own storage object (one per slot): Scrapy calls its store() at the close
                slot.storage.store = self._storing(slot, slot.storage.store)  # type: ignore[method-assign,assignment]

    def _storing(self, slot: Any, store: Callable[[Any], Any]) -> Callable[[Any], Any]:
        def failed(error: BaseException) -> None:
            self.stats.inc_value(FAILED)
            self.unstored.append(
                f"the feed {_shown(slot.uri)} could not store its file ({type(error).__name__}: {error})"
            )

        def passed_on(failure: Any) -> Any:
            failed(failure.value)
            return failure  # Scrapy still counts it (feedexport/failed_count)

        async def awaited(pending: Awaitable[Any]) -> Any:
            try:
                return await pending
            except Exception as exc:
                failed(exc)
                raise

        def stored(file: Any) -> Any:
            try:
                result = store(file)
            except Exception as exc:
                failed(exc)
                raise
            if isinstance(result, Deferred):
                return result.addErrback(passed_on)
            return awaited(result) if inspect.isawaitable(result) else result

        return stored

    def feed_exporter_closed(self) -> None:
        if not self.unstored:
            return
        message = (
            f"scrapy_walsh: {'; '.join(self.unstored)}. The pages whose items went to it are not recorded as "
            "fetched (R8), nor its items as emitted (R7): the next run fetches them again"
        )
        logger.error("%s", message)
        exit_status.failed(self.crawler, message)

    # -- the one failure --------------------------------------------------------------------------

    def _stop(self, output: str, error: BaseException, where: bool = False) -> None:
        self.stats.inc_value(FAILED)
        if self.failure is not None:
            return
        at = _raised_at(error) if where else ""
        self.failure = f"{output} could not take an item ({type(error).__name__}: {error}{at})"
        faults.stop(
            self.crawler,
            f"{self.failure}. That item and every one after it are kept in the state store and delivered by "
            f"the next run of spider {self.spider!r} without fetching their pages again; an item that cannot "
            "be kept leaves its page unmarked, so the next run fetches it",
            OUTPUT_FAILED,
        )

    def _pipeline_of(self, error: BaseException) -> str:
        """The pipeline whose method raised ``error`` (the deepest pipeline frame of its traceback)."""
        engine = faults.running_engine(self.crawler)
        pipelines = list(getattr(getattr(getattr(engine, "scraper", None), "itemproc", None), "middlewares", ()))
        found = None
        for frame, _ in traceback.walk_tb(error.__traceback__):
            owner = frame.f_locals.get("self")
            if any(owner is pipeline for pipeline in pipelines):
                found = owner
        return global_object_name(type(found)) if found is not None else "(unknown)"

    # -- keeping ------------------------------------------------------------------------------------

    def _keep(self, item: Any, response: Any) -> Outcome:
        """Keep ``item`` in the store for the next run; NOT_KEPT when the store can't take it."""
        if self._redelivery(item) is not None:
            self.stats.inc_value(KEPT_STAT)
            return KEPT  # kept by an earlier run: its record stays until it is delivered
        record = {
            "item": ItemAdapter(item).asdict(),
            "type": None if isinstance(item, dict) else global_object_name(type(item)),
            "page": getattr(response, "url", None),
            "at": time.time(),
            "why": self.failure,
        }
        try:
            self.store.set(self.namespace, uuid.uuid4().hex, record)
        except (TypeError, ValueError, StateStoreError) as exc:  # JSON can't hold it, or the store failed
            self.stats.inc_value(NOT_KEPT_STAT)
            logger.info("could not keep an item of %s (%s): its page stays unmarked", record["page"], exc)
            return NOT_KEPT
        self.stats.inc_value(KEPT_STAT)
        return KEPT

    # -- delivering what an earlier run kept -----------------------------------------------------

    def kept_items(self) -> Iterator[Any]:
        """The items earlier runs kept, each leased to this crawl as it is handed out (a fleet's
        other processes skip it); nothing when the store can't say."""
        try:
            records = list(self.store.items(self.namespace))
        except StateStoreError as exc:
            logger.warning("kept items of %r could not be read (%s): a later run delivers them", self.spider, exc)
            return
        for key, record in records:
            try:
                lease = leases.take(self.store, self.leases, key, self.crawl)
            except StateStoreError:
                return
            if lease is None or not isinstance(record, dict):
                continue  # another crawl delivers it now
            item = _rebuilt(record)
            self.redelivering[id(item)] = (item, key, lease)
            yield item

    def _redelivery(self, item: Any) -> tuple[Any, str, str] | None:
        found = self.redelivering.get(id(item))
        return found if found is not None and found[0] is item else None

    def _redelivered(self, item: Any) -> None:
        """A kept item is delivered (or dropped) now: its record goes, then its lease."""
        found = self._redelivery(item)
        if found is None:
            return
        del self.redelivering[id(item)]
        _, key, lease = found
        try:
            self.store.delete(self.namespace, key)
            leases.release(self.store, self.leases, key, lease)
        except StateStoreError:
            return  # still kept: the next run delivers it again (R7 drops it as emitted)
        self.stats.inc_value(REDELIVERED)

    def spider_closed(self, spider: Spider) -> None:
        """Kept items handed out and not delivered stay kept; their leases go back."""
        pending, self.redelivering = self.redelivering, {}
        for _, key, lease in pending.values():
            try:
                leases.release(self.store, self.leases, key, lease)
            except StateStoreError:
                return  # the lease of a crawl gone is taken over by the next one


class RedeliveryMiddleware:
    """A spider middleware: the items earlier runs kept go first, then the spider's own start.

    Only a crawl delivers them (``scrapy crawl``, ``runspider``, a script running crawlers):
    ``scrapy parse``, ``shell``, ``fetch`` and ``explain``'s dry run look at one page and must not
    consume what the next real run is owed."""

    def __init__(self, crawler: Crawler):
        self.delivery = CrawlContext.of(crawler).get(Delivery)
        self.delivers = typed_command.command() in REDELIVERING and not CrawlContext.of(crawler).dry_run

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RedeliveryMiddleware:
        return cls(crawler)

    async def process_start(self, start: AsyncIterator[Any]) -> AsyncIterator[Any]:
        for item in self.delivery.kept_items() if self.delivers else ():
            yield item
        async for output in start:
            yield output


def _shown(uri: str) -> str:
    """A feed's URI as said in a message: a password in it is masked."""
    parts = split(uri)
    if not parts.password:
        return uri
    return urlunsplit(parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":***@", 1)))


def _raised_at(error: BaseException) -> str:
    """`` at file.py:12 in name``: where ``error`` was raised (its traceback's last frame)."""
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return ""
    last = frames[-1]
    return f", raised at {last.filename}:{last.lineno} in {last.name}"


def _rebuilt(record: dict[str, Any]) -> Any:
    """A kept item as it was: its class made again from its fields, or the fields as a dict when
    the class can't be had (renamed since) or refuses them."""
    found = record.get("item")
    fields: dict[str, Any] = found if isinstance(found, dict) else {}
    kind = record.get("type")
    if isinstance(kind, str) and kind:
        try:
            return load_object(kind)(**fields)
        except Exception as exc:  # noqa: BLE001 - a class gone or changed since: the fields still go
            logger.warning("a kept item of class %s is delivered as a dict (%s: %s)", kind, type(exc).__name__, exc)
    return fields


def _plain(file: Any) -> Any:
    """The feed's file itself when it has a descriptor and no post-processing, else None."""
    if file is None or isinstance(file, PostProcessingManager) or not hasattr(file, "fileno"):
        return None
    return file


def _end(slot: Any) -> int | None:
    """Where the feed's file ends now (the end of its last whole item), or None when unknown."""
    file = _plain(slot.file)
    if file is not None:
        try:
            return int(file.tell())
        except (OSError, ValueError):  # a pipe or a terminal (stdout)
            return None
    if slot.file is None and isinstance(slot.storage, FileFeedStorage):  # this item opens it
        if slot.storage.write_mode == "wb":
            return 0
        try:
            return os.path.getsize(slot.storage.path)
        except OSError:
            return 0
    return None


def _cut_file(file: Any, end: int | None, exporter: Any) -> None:
    """Cut ``file`` back to ``end`` (a regular file) and keep its buffer from ever reaching it.

    A buffered file keeps what it could not write, and flushes it when it is closed; once the
    disk has room again (the truncation frees some), that would be a torn record after the last
    whole one. When the flush fails, the exporter's closing bytes (a JSON array's ``]``) are
    written straight after the last whole item, and the descriptor is pointed at ``/dev/null``
    (``dup2``), so the close succeeds and writes nothing more to the feed."""
    try:
        file.flush()
        broken = False
    except Exception:  # noqa: BLE001 - the disk is full, the pipe is gone
        broken = True
    try:
        fd = file.fileno()
        regular = stat.S_ISREG(os.fstat(fd).st_mode)
        if end is not None and regular:
            os.ftruncate(fd, end)
        if not broken:
            if end is not None:
                file.seek(end)  # a file opened to overwrite writes at its position, not at its end
            return
        if end is not None and regular:
            os.pwrite(fd, _closing_bytes(exporter, file), end)
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, fd)
        finally:
            os.close(null)
    except (OSError, ValueError):
        pass


def _closing_bytes(exporter: Any, file: Any) -> bytes:
    """What ``exporter`` writes when it finishes (``\n]`` for a JSON array), when it writes to
    ``file`` itself; nothing otherwise (an XML exporter writes through its own generator)."""
    if exporter is None or getattr(exporter, "file", None) is not file:
        return b""
    captured = io.BytesIO()
    exporter.file = captured
    try:
        exporter.finish_exporting()
    except Exception:  # noqa: BLE001 - a trailer is a courtesy; the items are what matter
        return b""
    finally:
        exporter.file = file
    return captured.getvalue()
