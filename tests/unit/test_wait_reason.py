"""Every wait has a reason in words (the crawl's log and ``explain`` say the same)."""

from __future__ import annotations

import pytest

from scrapy_walsh.policy.pacing import HostPace, interval_applied, wait_reason
from scrapy_walsh.policy.vocabulary import IntervalWhy


def test_the_term_that_decides_is_named():
    assert "minimum interval of 1 s" in wait_reason(HostPace(last_start=100.0), 1.0)
    assert "Crawl-delay of 6 s" in wait_reason(HostPace(last_start=100.0, crawl_delay=6.0), 1.0)
    assert "Request-rate" in wait_reason(HostPace(last_start=100.0, crawl_delay=2.0, request_rate=5.0), 1.0)
    assert "RateLimit fields (one request per 3600 s)" in wait_reason(HostPace(last_start=1.0, ratelimit=3600.0), 1.0)
    assert "adaptive delay of 8 s" in wait_reason(HostPace(last_start=100.0, adaptive=8.0), 1.0)


def test_a_pause_beyond_the_interval_is_the_hosts_own_request():
    assert "pause the host asked for" in wait_reason(HostPace(last_start=100.0, not_before=500.0), 1.0)
    assert "pause the host asked for" in wait_reason(HostPace(not_before=500.0), 1.0)
    # a pause already inside the interval does not decide
    assert "Crawl-delay" in wait_reason(HostPace(last_start=100.0, not_before=101.0, crawl_delay=5.0), 1.0)


def test_a_rest_after_timeouts_is_named_as_such_not_as_a_pause_the_host_asked_for():
    reason = wait_reason(HostPace(last_start=100.0, not_before=1300.0, timeouts=2), 1.0)
    assert "2 timeouts in a row" in reason and "asked for" not in reason
    assert "1 timeout in a row" in wait_reason(HostPace(not_before=700.0, timeouts=1), 1.0)


@pytest.mark.parametrize(
    "pace, paused_by, applied",
    [
        (HostPace(last_start=100.0), None, (1.0, "floor")),
        (HostPace(last_start=100.0, crawl_delay=6.0), None, (6.0, "crawl-delay")),
        (HostPace(last_start=100.0, crawl_delay=2.0, request_rate=5.0), None, (5.0, "request-rate")),
        (HostPace(last_start=100.0, ratelimit=3.0), None, (3.0, "ratelimit")),
        (HostPace(last_start=100.0, adaptive=4.0), None, (4.0, "backoff")),
        (HostPace(last_start=100.0, crawl_delay=0.5), None, (1.0, "floor")),
        (HostPace(last_start=100.0, not_before=130.0), IntervalWhy.RETRY_AFTER, (30.0, "retry-after")),
        (HostPace(last_start=100.0, not_before=130.0), None, (30.0, "backoff")),
        (HostPace(last_start=100.0, not_before=108.0, timeouts=2), IntervalWhy.RETRY_AFTER, (8.0, "timeout-rest")),
        # a pause that ended before the interval did decides nothing
        (HostPace(last_start=100.0, not_before=100.5, crawl_delay=2.0), IntervalWhy.RETRY_AFTER, (2.0, "crawl-delay")),
    ],
)
def test_the_interval_applied_and_why_are_the_term_that_decides(pace, paused_by, applied):
    """What the request journal records for each request: the gap it kept, and what set it."""
    assert interval_applied(pace, 1.0, paused_by) == applied
