"""How the adaptive part of the pacing reacts to latency and errors, next to
Scrapy's AutoThrottle (target concurrency 1, the only one R4 allows).

Both real implementations are fed the same sequence of answers, one per request to one host:
ours is :class:`scrapy_walsh.policy.pacing.Pacer` (``observe``), Scrapy's is
``AutoThrottle._adjust_delay`` of a real ``AutoThrottle`` built from a crawler. Printed: the
interval each would keep between two requests after each answer, ours with the 1 s R4 floor
and a ``DOWNLOAD_SLOTS`` delay of 0 (none). Run: ``python bench/adaptive_bench.py``.
"""

from __future__ import annotations

from types import SimpleNamespace

from scrapy.extensions.throttle import AutoThrottle
from scrapy.http import Response
from scrapy.utils.test import get_crawler

from scrapy_walsh.policy.pacing import Pacer

#: (latency in seconds, HTTP status): a fast host that slows down, fails twice, then recovers.
ANSWERS = [(0.2, 200)] * 3 + [(3.0, 200)] * 3 + [(0.3, 503), (0.3, 500)] + [(0.2, 200)] * 6


def main() -> None:
    crawler = get_crawler(
        settings_dict={"AUTOTHROTTLE_ENABLED": True, "AUTOTHROTTLE_TARGET_CONCURRENCY": 1.0, "DOWNLOAD_DELAY": 1.0}
    )
    throttle = AutoThrottle(crawler)
    throttle.mindelay, throttle.maxdelay = 1.0, 60.0  # AUTOTHROTTLE_START_DELAY/MAX_DELAY, DOWNLOAD_DELAY floor
    slot = SimpleNamespace(delay=1.0)
    pacer = Pacer(1.0)
    print(f"{'#':>2}  {'latency':>7}  {'status':>6}  {'scrapy-walsh':>12}  {'AutoThrottle':>12}")
    for n, (latency, status) in enumerate(ANSWERS, 1):
        pacer.observe("host", latency, ok=status < 400)
        throttle._adjust_delay(slot, latency, Response("http://host/", status=status))  # type: ignore[arg-type]
        print(f"{n:>2}  {latency:>6.1f}s  {status:>6}  {pacer.interval('host'):>11.2f}s  {slot.delay:>11.2f}s")


if __name__ == "__main__":
    main()
