"""R6-R8 end to end: declared targets only, no sub-resources, metadata only, conditional
requests, dedup across runs and the frequency guard, from the demo server's log."""

from tests.helpers import crawl_targets, run_scrapy, stat, write_spider

FOLLOWER = """
import scrapy


class FollowerSpider(scrapy.Spider):
    name = "follower"

    async def start(self):
        yield scrapy.Request(self.url)

    def parse(self, response):
        for href in response.css("a::attr(href), img::attr(src), link::attr(href), script::attr(src)").getall():
            yield response.follow(href)
        yield {"url": response.url, "title": response.css("title::text").get()}
        yield {"url": response.url + "#copy", "body": "x" * 50_000}
"""


def test_two_runs_conditional_requests_dedup_and_the_frequency_guard(project, demo_site):
    urls = [demo_site.url("open", "/page/1"), demo_site.url("open", "/page/2"), demo_site.url("named", "/page/1")]
    first, items = crawl_targets(project, urls)
    assert first.returncode == 0, first.stderr[-3000:]
    pages = [r for r in demo_site.requests if r["path"].startswith("/page/")]
    assert sorted((r["host_key"], r["path"]) for r in pages) == [
        ("named", "/page/1"),
        ("open", "/page/1"),
        ("open", "/page/2"),
    ]
    assert all("If-None-Match" not in r["headers"] for r in pages)
    assert {items[u]["status"] for u in urls} == {200}

    # run 2, guard off: validators go out, the server answers 304, nothing is emitted again
    demo_site.reset()
    second, items = crawl_targets(project, urls, "-s", "WALSH_REFETCH_INTERVAL=0")
    assert second.returncode == 0, second.stderr[-3000:]
    pages = [r for r in demo_site.requests if r["path"].startswith("/page/")]
    assert len(pages) == 3
    assert all("If-None-Match" in r["headers"] and "If-Modified-Since" in r["headers"] for r in pages)
    assert {r["status"] for r in pages} == {304}
    assert {items[u].get("verdict") for u in urls} == {"not_modified"}, "the callback was not called"
    assert not any("status" in item for item in items.values()), "no page item, no duplicate"
    assert stat(second.stderr, "walsh/conditional/not_modified") == 3
    assert "disables the frequency guard" in second.stderr

    # run 3, guard on: no request at all for targets fetched within the day
    demo_site.reset()
    third, items = crawl_targets(project, urls)
    assert third.returncode == 0, third.stderr[-3000:]
    assert [r for r in demo_site.requests if r["host_key"] != "ops"] == []
    assert {items[u]["verdict"] for u in urls} == {"skipped_recently_fetched"}
    assert stat(third.stderr, "walsh/denied/frequency/skipped_recently_fetched") == 3


def test_a_dropped_item_is_re_emitted_after_a_dedup_reset(project, demo_site):
    url = demo_site.url("open", "/page/7")
    crawl_targets(project, [url])
    again, items = crawl_targets(project, [url], "-s", "WALSH_REFETCH_INTERVAL=0", "-s", "WALSH_DEDUP_RESET=True")
    assert again.returncode == 0, again.stderr[-3000:]
    assert "WALSH_DEDUP_RESET: forgot 1 emitted URLs" in again.stderr


def test_no_link_following_no_sub_resources_no_content(project, demo_site):
    write_spider(project, "follower", FOLLOWER)
    result = run_scrapy(
        ["crawl", "follower", "-a", f"url={demo_site.url('open', '/page/1')}", "-O", str(project / "follow.jsonl")],
        cwd=project,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    seen = [(r["host_key"], r["path"]) for r in demo_site.requests if r["host_key"] != "ops"]
    assert seen == [("open", "/robots.txt"), ("open", "/page/1")], "nothing followed"
    assert result.stderr.count("R6: dropped") == 1, "explained once"
    assert stat(result.stderr, "walsh/scope/followups_dropped") >= 5
    assert "R6: item rejected, field body has 50000 characters" in result.stderr
    assert stat(result.stderr, "walsh/items/content_rejected") == 1


def test_sub_resources_never_reach_the_server(project, demo_site):
    urls = [
        demo_site.url("open", p)
        for p in ("/static/logo.png", "/static/site.css", "/static/app.js", "/static/font.woff2", "/static/clip.mp4")
    ]
    result, items = crawl_targets(project, urls)
    assert result.returncode == 0, result.stderr[-3000:]
    assert [r for r in demo_site.requests if r["host_key"] != "ops"] == []
    assert {items[u]["verdict"] for u in urls} == {"subresource"}
    assert {items[u]["details"]["kind"] for u in urls} == {"image", "stylesheet", "script", "font", "media"}


def test_a_final_404_counts_as_fetched_for_r8(project, demo_site):
    """A 404 is an answer: recording only 2xx/304 for R8 fetched a 404 target again (twice on a JOBDIR resume)."""
    missing = demo_site.url("open", "/no/such/page")
    first, _ = crawl_targets(project, [missing])
    assert first.returncode == 0, first.stderr[-3000:]
    assert [r["status"] for r in demo_site.requests if r["path"] == "/no/such/page"] == [404]
    demo_site.reset()
    second, items = crawl_targets(project, [missing])
    assert second.returncode == 0, second.stderr[-3000:]
    assert [r for r in demo_site.requests if r["path"] == "/no/such/page"] == [], "a final answer is not refetched"
    assert items[missing]["verdict"] == "skipped_recently_fetched"
