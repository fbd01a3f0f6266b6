"""Every wait has a reason in words (the crawl's log and ``explain`` say the same)."""

from __future__ import annotations

from scrapy_walsh.policy.pacing import HostPace, wait_reason


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
