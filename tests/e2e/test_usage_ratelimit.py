"""RateLimit headers as pacing input, measured from the demo server's timestamps.

Every page of the ``ratelimit`` host answers ``RateLimit-Policy: "pages";q=2;w=5``
(2 requests per 5 s: 2.5 s apart); robots.txt carries no such header.
"""

from __future__ import annotations

from demo_site.content import RATELIMIT_INTERVAL
from tests.helpers import CLOCK_TOLERANCE, crawl_targets, stat

HOST = "ratelimit.walsh-demo.test"


def _gaps(records):
    times = [r["mono"] for r in records]
    return [b - a for a, b in zip(times, times[1:])]


#: /page/3 answers ``RateLimit: "pages";r=0;t=9``: nothing left for 9 s, longer than a
#: process takes to start, so the next process can only keep it by reading the ledger.
EXHAUSTED = 9


def test_a_host_s_ratelimit_slows_it_down_and_holds_in_the_ledger(project, demo_site):
    demo_site.override(
        "ratelimit", "/page/3", 200, "<html></html>", "text/html", headers=[("RateLimit", f'"pages";r=0;t={EXHAUSTED}')]
    )
    urls = [demo_site.url("ratelimit", f"/page/{i}") for i in range(1, 4)]
    urls += [demo_site.url("open", f"/page/{i}") for i in range(1, 3)]
    result, items = crawl_targets(project, urls, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    seen = demo_site.requests_for("ratelimit")
    assert [r["path"] for r in seen] == ["/robots.txt", "/page/1", "/page/2", "/page/3"]
    gaps = _gaps(seen)
    assert 1.0 - CLOCK_TOLERANCE <= gaps[0] < RATELIMIT_INTERVAL - 0.5, gaps  # robots.txt asked nothing
    assert min(gaps[1:]) >= RATELIMIT_INTERVAL - CLOCK_TOLERANCE, gaps  # each page asked 2.5 s
    assert max(gaps[1:]) < RATELIMIT_INTERVAL + 1.0, gaps  # and no more
    # another host keeps the R4 floor only: the term is per host
    assert min(_gaps(demo_site.requests_for("open"))) < RATELIMIT_INTERVAL - 0.5
    assert stat(result.stderr, f"walsh/pacing/interval/{HOST}") == RATELIMIT_INTERVAL
    # the next process reads the ledger: its first request waits out /page/3's 9 s
    last = seen[-1]["end"]
    again, _ = crawl_targets(project, [demo_site.url("ratelimit", "/page/4")], timeout=120)
    assert again.returncode == 0, again.stderr[-3000:]
    fourth = [r for r in demo_site.requests_for("ratelimit") if r["path"] == "/page/4"]
    assert len(fourth) == 1 and fourth[0]["mono"] - last >= EXHAUSTED - CLOCK_TOLERANCE, fourth[0]["mono"] - last
    assert stat(again.stderr, "walsh/pacing/wait_seconds", 0) > 1.0
