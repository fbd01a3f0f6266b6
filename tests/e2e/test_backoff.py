"""R5 end to end: Retry-After honoured, host-wide pauses, bounded retries, from server time."""

import email.utils

from tests.helpers import CLOCK_TOLERANCE, crawl_targets, stat


def hits(site, host_key, prefix):
    return [r for r in site.requests if r["host_key"] == host_key and r["path"].startswith(prefix)]


def test_retry_after_seconds_and_dates_are_honoured(project, demo_site):
    urls = [
        demo_site.url("busy", "/status/429?times=1&retry-after=3"),
        demo_site.url("open", "/status/503?times=1&retry-after-date=3"),
    ]
    result, items = crawl_targets(project, urls)
    assert result.returncode == 0, result.stderr[-3000:]
    seconds = hits(demo_site, "busy", "/status/429")
    assert [r["status"] for r in seconds] == [429, 200]
    assert seconds[1]["mono"] - seconds[0]["mono"] >= 3.0 - CLOCK_TOLERANCE
    dated = hits(demo_site, "open", "/status/503")
    assert [r["status"] for r in dated] == [503, 200]
    # the date has whole seconds: the retry never comes before it
    announced = email.utils.formatdate(dated[0]["t"] + 3, usegmt=True)
    assert dated[1]["t"] >= email.utils.parsedate_to_datetime(announced).timestamp() - CLOCK_TOLERANCE
    assert stat(result.stderr, "walsh/backoff/count") == 2
    assert stat(result.stderr, "retry/count") is None, "Scrapy's RetryMiddleware left 429/503 alone"


def test_503_without_retry_after_backs_off_within_bounds_and_stops(project, demo_site):
    url = demo_site.url("open", "/status/503?times=99")
    result, items = crawl_targets(project, [url], "-s", "WALSH_BACKOFF_MAX_RETRIES=3", "-s", "WALSH_BACKOFF_BASE=1.5")
    assert result.returncode == 0, result.stderr[-3000:]
    attempts = hits(demo_site, "open", "/status/503")
    assert len(attempts) == 4, "one attempt and 3 retries, then stop"
    gaps = [b["mono"] - a["mono"] for a, b in zip(attempts, attempts[1:])]
    for n, gap in enumerate(gaps):
        # uniform(0, 1.5 * 2**n), never under the 1 s pacing interval
        assert 1.0 - CLOCK_TOLERANCE <= gap <= max(1.0, 1.5 * 2**n) + 0.25, (n, gaps)
    assert stat(result.stderr, "walsh/backoff/gave_up") == 1
    assert items[url]["denied"] == "HttpError", "the last response went on to HttpError"


def test_a_paused_host_does_not_stall_the_others(project, demo_site):
    urls = [demo_site.url("busy", "/status/429?times=1&retry-after=5")]
    urls += [demo_site.url("busy", f"/page/{i}") for i in range(1, 3)]
    urls += [demo_site.url("open", f"/page/{i}") for i in range(1, 7)]
    result, items = crawl_targets(project, urls)
    assert result.returncode == 0, result.stderr[-3000:]
    first_429 = hits(demo_site, "busy", "/status/429")[0]
    pause_end = first_429["mono"] + 5.0
    busy_after = [r for r in demo_site.requests if r["host_key"] == "busy" and r["mono"] > first_429["mono"]]
    assert len(busy_after) == 3 and min(r["mono"] for r in busy_after) >= pause_end - CLOCK_TOLERANCE
    during = [r for r in demo_site.requests if r["host_key"] == "open" and first_429["mono"] < r["mono"] < pause_end]
    # open kept its own 1 s pace while busy rested: the interleaving, in server order
    order = "".join("B" if r["host_key"] == "busy" else "o" for r in demo_site.requests if r["host_key"] != "ops")
    assert len(during) >= 4, order
    gaps = [b["mono"] - a["mono"] for a, b in zip(during, during[1:])]
    assert all(1.0 - CLOCK_TOLERANCE <= g < 1.3 for g in gaps), (gaps, order)


def test_a_retry_after_of_two_days_means_one_attempt(project, demo_site):
    urls = [demo_site.url("busy", "/status/429?times=1&retry-after=172800"), demo_site.url("busy", "/page/1")]
    result, items = crawl_targets(project, urls)
    assert result.returncode == 0, result.stderr[-3000:]
    assert len(hits(demo_site, "busy", "/status/429")) == 1
    assert "Retry-After asks for 172800 s, over WALSH_BACKOFF_MAX_DELAY 3600 s" in result.stderr
    assert stat(result.stderr, "walsh/backoff/gave_up_retry_after") == 1
    # the host's other requests are not sent during the pause either
    assert hits(demo_site, "busy", "/page/") == []
    assert items[urls[1]]["verdict"] == "host_paused_beyond_max_delay"


def test_a_429_on_robots_txt_pauses_the_host(project, demo_site):
    demo_site.override("gone", "/robots.txt", 429, "slow down")
    result, items = crawl_targets(project, [demo_site.url("gone", "/page/1")])
    assert result.returncode == 0, result.stderr[-3000:]
    assert items[demo_site.url("gone", "/page/1")]["verdict"] == "unknown_unreachable"
    assert stat(result.stderr, "walsh/backoff/status/429") == 1
