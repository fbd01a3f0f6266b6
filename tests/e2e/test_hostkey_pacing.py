"""One host, one pacing key, whatever its spelling (else R4 splits by spelling); with
``WALSH_PACE_BY = "ip"``, one interval per server address. Real crawls against the demo
server, spacing from the server's own clock."""

from __future__ import annotations

from tests.helpers import CLOCK_TOLERANCE, crawl_targets


def _dot(url: str) -> str:
    """The same URL with the host's trailing dot (``open.walsh-demo.test.:PORT``)."""
    scheme, rest = url.split("://", 1)
    host, _, path = rest.partition("/")
    name, _, port = host.partition(":")
    return f"{scheme}://{name}.:{port}/{path}"


def test_a_trailing_dot_is_the_same_host(project, demo_site):
    """``open.walsh-demo.test.`` next to ``open.walsh-demo.test``: >= 1 s apart, robots.txt
    once, and the same page under the dotted name is not fetched again (R8)."""
    urls = [demo_site.url("open", "/page/1"), _dot(demo_site.url("open", "/page/2"))]
    urls += [_dot(demo_site.url("open", "/page/1"))]
    result, items = crawl_targets(project, urls)
    assert result.returncode == 0, result.stderr[-3000:]
    seen = demo_site.requests_for("open")
    paths = [r["path"] for r in seen]
    assert paths.count("/robots.txt") == 1, paths
    assert paths.count("/page/1") == 1, paths
    times = sorted(r["mono"] for r in seen)
    assert min(b - a for a, b in zip(times, times[1:])) >= 1.0 - CLOCK_TOLERANCE, paths


def test_a_pause_holds_for_the_dotted_name(project, demo_site):
    """During a 429 ``Retry-After: 10`` pause of busy, nothing goes to ``busy....test.``."""
    urls = [demo_site.url("busy", "/status/429?times=1&retry-after=10")]
    urls += [_dot(demo_site.url("busy", f"/page/{i}")) for i in range(1, 3)]
    result, _ = crawl_targets(project, urls)
    assert result.returncode == 0, result.stderr[-3000:]
    seen = demo_site.requests_for("busy")
    first_429 = next(r for r in seen if r["path"].startswith("/status/429"))
    after = [r for r in seen if r["mono"] > first_429["mono"]]
    assert after and min(r["mono"] for r in after) >= first_429["mono"] + 10 - CLOCK_TOLERANCE, [
        (r["path"], round(r["mono"] - first_429["mono"], 3)) for r in after
    ]


def test_pace_by_ip_joins_an_alias_and_the_ip_literal(project, demo_site):
    """``WALSH_PACE_BY = "ip"``: the demo's name for slow and its IP literal are one server
    with ``Crawl-delay: 3``; its pages keep 3 s apart whichever name asks."""
    settings = project / "plainproj" / "settings.py"
    settings.write_text(settings.read_text() + '\nWALSH_PACE_BY = "ip"\n')
    demo_site.override("slow", "/robots.txt", 200, "User-agent: *\nCrawl-delay: 3\n")
    urls = [demo_site.url("slow", "/page/1"), demo_site.url("slow", "/page/2", by_ip=True)]
    urls += [demo_site.url("slow", "/page/3")]
    result, _ = crawl_targets(project, urls)
    assert result.returncode == 0, result.stderr[-3000:]
    pages = sorted(r["mono"] for r in demo_site.requests_for("slow", prefix="/page/"))
    assert len(pages) == 3
    gaps = [b - a for a, b in zip(pages, pages[1:])]
    assert min(gaps) >= 3.0 - CLOCK_TOLERANCE, gaps
    everything = sorted(r["mono"] for r in demo_site.requests_for("slow"))
    assert min(b - a for a, b in zip(everything, everything[1:])) >= 1.0 - CLOCK_TOLERANCE
