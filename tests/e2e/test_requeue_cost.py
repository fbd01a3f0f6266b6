"""A new host's first page is sent back to the scheduler by the robots.txt gate, right
after its robots.txt was fetched, not after a pass through every later gate. Counted with a
real crawl against the demo site: a downloader middleware placed just before pacing counts
the requests that reach it."""

from __future__ import annotations

from tests.helpers import CLOCK_TOLERANCE, crawl_targets, gaps_by_host, stat

COUNTER = """
from scrapy_walsh.sending import admission


class ReachedPacing:
    def __init__(self, stats):
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler.stats)

    def process_request(self, request, spider=None):
        if admission.own_fetch_kind(request) is None:
            self.stats.inc_value("test/reached_pacing")
"""


def test_a_new_hosts_page_reaches_the_later_gates_once(project, demo_site):
    (project / "plainproj" / "counting.py").write_text(COUNTER)
    settings = project / "plainproj" / "settings.py"
    settings.write_text(
        settings.read_text() + '\nDOWNLOADER_MIDDLEWARES = {"plainproj.counting.ReachedPacing": 8999}\n'
    )
    hosts = ("open", "named", "gone")
    result, items = crawl_targets(project, [demo_site.url(h, "/page/1") for h in hosts])
    log = result.stderr
    assert result.returncode == 0, log[-3000:]
    assert sorted(i.get("status") for i in items.values()) == [200, 200, 200], items
    # robots.txt first, then the page >= 1 s later: each page waited, and a page another host could
    # go before went back at the robots gate (the last one, with none queued behind it, waits there)
    assert stat(log, "test/reached_pacing") == len(hosts), "a page passed the later gates twice"
    early = stat(log, "walsh/robots/requeued_after_fetch")
    assert early >= 1 and stat(log, "walsh/pacing/requeued") == early, log[-3000:]
    for host, gaps in gaps_by_host(demo_site.requests).items():
        assert all(g >= 1.0 - CLOCK_TOLERANCE for g in gaps), (host, gaps)
    assert max(r["in_flight"] for r in demo_site.requests) == 1
