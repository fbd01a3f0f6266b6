"""The checkpoint before the network, which nothing a spider sets may bypass: http(s) through
it, every other scheme off,
and a download timeout that never abandons a server still answering too soon."""

from __future__ import annotations

import math
from collections.abc import Iterator

from scrapy.settings import SETTINGS_PRIORITIES
from scrapy.utils.misc import load_object

from scrapy_walsh.conformance.engine import FAIL, WARN, Finding, Subject, gate_removed, number
from scrapy_walsh.middlewares.admission import AdmissionMiddleware
from scrapy_walsh.sending.checkpoint import CheckpointDownloadHandler
from scrapy_walsh.settings import CHECKPOINT_HANDLER, CHECKPOINT_SCHEMES, DOWNLOAD_TIMEOUT, DOWNLOAD_TIMEOUT_FLOOR


def _is_checkpoint(path: object) -> bool:
    if path == CHECKPOINT_HANDLER:
        return True
    try:
        handler = load_object(path) if isinstance(path, str) else path
    except (ImportError, NameError, ValueError, AttributeError):
        return False
    return isinstance(handler, type) and issubclass(handler, CheckpointDownloadHandler)


def through_checkpoint(subject: Subject) -> bool:
    """http and https both reach the network through the checkpoint."""
    handlers = subject.settings.getwithbase("DOWNLOAD_HANDLERS")
    return all(_is_checkpoint(handlers.get(scheme)) for scheme in CHECKPOINT_SCHEMES)


def checkpoint(subject: Subject) -> Iterator[Finding]:
    """Every request reaches a socket through the checkpoint; no other scheme has a handler."""
    if why := subject.walsh.refused("WALSH_DOWNLOAD_HANDLER"):
        yield Finding("1", "R1", FAIL, "WALSH_DOWNLOAD_HANDLER", why)
    yield from gate_removed(
        subject, "6", "R6", AdmissionMiddleware, "whether a request was declared before the gates spend a fetch on it"
    )
    handlers = subject.settings.getwithbase("DOWNLOAD_HANDLERS")
    for scheme in CHECKPOINT_SCHEMES:
        if not _is_checkpoint(handlers.get(scheme)):
            yield Finding(
                "1",
                "R1-R6",
                FAIL,
                "DOWNLOAD_HANDLERS",
                f"{scheme!r} is handled by {handlers.get(scheme)!r}, not {CHECKPOINT_HANDLER}: requests would "
                "reach the network without the checkpoint (User-Agent, pacing, admission); set "
                "WALSH_DOWNLOAD_HANDLER to choose the handler it wraps",
            )
    others = sorted(str(s) for s, h in handlers.items() if s not in CHECKPOINT_SCHEMES and h is not None)
    if others:
        yield Finding(
            "6",
            "R6",
            FAIL,
            "DOWNLOAD_HANDLERS",
            f"scheme(s) {', '.join(others)} re-enabled: only http and https may be fetched (no robots.txt, "
            "User-Agent or pacing applies to file://, ftp:// ...); set them to None",
        )


def download_timeout(subject: Subject) -> Iterator[Finding]:
    """R4/R5: a timeout under the floor abandons a server that is still answering."""
    value = number(subject.settings, "DOWNLOAD_TIMEOUT")
    if value is None or not math.isfinite(value):
        return  # not a finite number: the finite_numbers rule names it
    if value < DOWNLOAD_TIMEOUT_FLOOR:
        yield Finding(
            "4",
            "R4",
            FAIL,
            "DOWNLOAD_TIMEOUT",
            f"DOWNLOAD_TIMEOUT={subject.settings.get('DOWNLOAD_TIMEOUT')!r} is under the floor of "
            f"{DOWNLOAD_TIMEOUT_FLOOR:g} s: a request given up sooner is still being answered when the "
            "host's next one goes out (raise it, or leave the preset's "
            f"{DOWNLOAD_TIMEOUT:g})",
        )
    elif value > DOWNLOAD_TIMEOUT:
        yield Finding(
            "4",
            "R4",
            WARN,
            "DOWNLOAD_TIMEOUT",
            f"DOWNLOAD_TIMEOUT={subject.settings.get('DOWNLOAD_TIMEOUT')!r}: the crawl is serial, so a server "
            f"that never answers holds every other host {value:g} s per request sent to it "
            f"({value / DOWNLOAD_TIMEOUT:.1f} times the preset's {DOWNLOAD_TIMEOUT:g} s; at 1 % of 10,000 hosts "
            f"hanging, {100 * value / 3600:.1f} h of waiting)",
        )


def bounds(subject: Subject) -> Iterator[Finding]:
    """The byte bound of a body and the recheck interval of a failed host."""
    walsh = subject.walsh
    if why := walsh.refused("WALSH_MAX_BODY_BYTES"):
        yield Finding("-", "configuration", FAIL, "WALSH_MAX_BODY_BYTES", why)
    if why := walsh.refused("WALSH_RECHECK_INTERVAL"):
        yield Finding("5", "R5", FAIL, "WALSH_RECHECK_INTERVAL", why)
    # the preset writes it (at "addon" priority): only a project's, spider's or command line's is news
    if (subject.settings.getpriority("DOWNLOAD_MAXSIZE") or 0) > SETTINGS_PRIORITIES["addon"]:
        yield Finding(
            "-",
            "configuration",
            WARN,
            "DOWNLOAD_MAXSIZE",
            "is not read: the checkpoint gives every request its bound from WALSH_MAX_BODY_BYTES "
            f"({walsh.value('WALSH_MAX_BODY_BYTES', None) or walsh.given('WALSH_MAX_BODY_BYTES')!r} bytes); "
            "set that instead",
        )
