"""R4 (row 4): serial requests, at least ``WALSH_MIN_INTERVAL`` apart per host, Crawl-delay honoured."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType

from scrapy.settings import SETTINGS_PRIORITIES, BaseSettings
from scrapy.utils.misc import load_object

from scrapy_walsh.conformance.engine import FAIL, PASS, WARN, Finding, Subject, gate_removed, loosens, number
from scrapy_walsh.middlewares.pacing import PacingMiddleware
from scrapy_walsh.sending.queue import PolitenessAwarePriorityQueue

#: The values of ``CONCURRENT_REQUESTS`` that keep requests serial, and what each means. The
#: checkpoint's process-wide lock is what lets one request on the network at a time; with 2 the
#: downloader holds the next one, its gates passed, behind that lock; with 3 one more, so a request
#: is still prepared while a page waits in the downloader for its origin's robots.txt (that page and
#: the robots.txt fetch take two places). More would only hold decisions longer before their send
#: (and 0 is Scrapy's "no limit").
SERIAL: Mapping[int, str] = MappingProxyType(
    {
        1: "1: requests are serial",
        2: "2: requests are serial (one on the network, the checkpoint's lock; the next one prepared behind it)",
        3: (
            "3: requests are serial (one on the network, the checkpoint's lock; the next ones prepared "
            "behind it, even while a page waits for its origin's robots.txt)"
        ),
    }
)


def serial(subject: Subject) -> Iterator[Finding]:
    value = subject.settings.get("CONCURRENT_REQUESTS")
    try:
        ok = int(value) in SERIAL
    except (TypeError, ValueError):
        ok = False
    if not ok:
        yield Finding(
            "4",
            "R4",
            FAIL,
            "CONCURRENT_REQUESTS",
            f"CONCURRENT_REQUESTS={value} allows concurrent requests; R4 requires "
            "requests to be serial per process (set 1, 2 or 3, or leave it to the add-on)",
        )
    else:
        yield Finding("4", "R4", PASS, "CONCURRENT_REQUESTS", SERIAL[int(value)])


def delay_floor(subject: Subject) -> Iterator[Finding]:
    settings, walsh = subject.settings, subject.walsh
    if why := walsh.refused("WALSH_MIN_INTERVAL"):
        yield Finding("4", "R4", FAIL, "WALSH_MIN_INTERVAL", why)
        return
    floor = walsh.floor
    delay = number(settings, "DOWNLOAD_DELAY")
    if delay is None or delay < floor:
        yield Finding(
            "4",
            "R4",
            FAIL,
            "DOWNLOAD_DELAY",
            f"DOWNLOAD_DELAY={settings.get('DOWNLOAD_DELAY')} is under "
            f"WALSH_MIN_INTERVAL={floor}; R4 allows at most one request per "
            "second per host (remove it, or raise it)",
        )
    jitter = effective_jitter(settings)
    if jitter:
        name = (
            "RANDOMIZE_DOWNLOAD_DELAY"
            if (settings.getpriority("RANDOMIZE_DOWNLOAD_DELAY") or 0)
            > (settings.getpriority("DOWNLOAD_DELAY_JITTER") or 0)
            else "DOWNLOAD_DELAY_JITTER"
        )
        yield Finding(
            "4",
            "R4",
            FAIL,
            name,
            f"a jitter of ±{jitter:g} draws delays down to "
            f"{max(0.0, (delay or 0) * (1 - jitter)):g} s, under the R4 floor; "
            "set DOWNLOAD_DELAY_JITTER = 0",
        )
    slots = settings.getdict("DOWNLOAD_SLOTS")
    for key, conf in slots.items():
        if not isinstance(conf, dict):
            continue
        slot_delay = conf.get("delay")
        if slot_delay is not None and float(slot_delay) < floor:
            yield Finding(
                "4",
                "R4",
                FAIL,
                "DOWNLOAD_SLOTS",
                f"slot {key!r} has delay {slot_delay}, under the R4 floor of {floor} s",
            )
        if conf.get("jitter") or conf.get("randomize_delay"):
            yield Finding(
                "4", "R4", FAIL, "DOWNLOAD_SLOTS", f"slot {key!r} randomises its delay, which can go under the R4 floor"
            )
    if delay is not None and delay >= floor and not jitter:
        yield Finding("4", "R4", PASS, "DOWNLOAD_DELAY", f"{delay:g} s between requests to a host, no jitter")


def effective_jitter(settings: BaseSettings) -> float:
    """The jitter Scrapy will apply, mirroring its own precedence of the two settings.

    ``RANDOMIZE_DOWNLOAD_DELAY`` (deprecated) wins only when set at a higher priority
    than ``DOWNLOAD_DELAY_JITTER``; it then means ±50 %.
    """
    randomize_priority = settings.getpriority("RANDOMIZE_DOWNLOAD_DELAY") or 0
    if randomize_priority > SETTINGS_PRIORITIES["default"] and randomize_priority > (
        settings.getpriority("DOWNLOAD_DELAY_JITTER") or 0
    ):
        return 0.5 if settings.getbool("RANDOMIZE_DOWNLOAD_DELAY") else 0.0
    return number(settings, "DOWNLOAD_DELAY_JITTER") or 0.0


def pacing_gate(subject: Subject) -> Iterator[Finding]:
    settings, walsh = subject.settings, subject.walsh
    yield from gate_removed(subject, "4", "R4", PacingMiddleware, "the per-host ledger")
    if why := walsh.refused("WALSH_MAX_CRAWL_DELAY"):
        yield Finding("4", "R4", FAIL, "WALSH_MAX_CRAWL_DELAY", why)
    if walsh.value("WALSH_SEPARATE_BOT", False) and not walsh.refused("WALSH_SEPARATE_BOT"):
        yield loosens(
            "4",
            "R4",
            "WALSH_SEPARATE_BOT",
            True,
            "a second state store of the identity may crawl beside this one on this machine; the two pace "
            "as strangers, so one host may get the requests of both less than the interval apart",
        )
    queue = settings.get("SCHEDULER_PRIORITY_QUEUE")
    try:
        ours = load_object(queue) is PolitenessAwarePriorityQueue
    except (ImportError, NameError, ValueError, TypeError):
        ours = False
    if not ours:
        yield Finding(
            "4",
            "R4",
            WARN,
            "SCHEDULER_PRIORITY_QUEUE",
            f"{queue!r} is not the politeness-aware queue: spacing still holds, but one "
            "host's delay can idle the whole crawl",
        )


def autothrottle(subject: Subject) -> Iterator[Finding]:
    settings = subject.settings
    if not settings.getbool("AUTOTHROTTLE_ENABLED"):
        return
    floor = subject.walsh.floor
    cap = number(settings, "AUTOTHROTTLE_MAX_DELAY")
    if cap is None or cap < floor:
        yield Finding(
            "4",
            "R4",
            FAIL,
            "AUTOTHROTTLE_MAX_DELAY",
            f"AUTOTHROTTLE_MAX_DELAY={settings.get('AUTOTHROTTLE_MAX_DELAY')} caps "
            f"AutoThrottle's delay under the R4 floor of {floor:g} s",
        )
    target = number(settings, "AUTOTHROTTLE_TARGET_CONCURRENCY")
    if target is None or target > 1:
        yield Finding(
            "4",
            "R4",
            WARN,
            "AUTOTHROTTLE_TARGET_CONCURRENCY",
            f"AUTOTHROTTLE_TARGET_CONCURRENCY={settings.get('AUTOTHROTTLE_TARGET_CONCURRENCY')} "
            "aims at concurrent requests; R4 allows one at a time (the checkpoint's lock "
            "still holds, so it only shortens AutoThrottle's delays toward the floor)",
        )
