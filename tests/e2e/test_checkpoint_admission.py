"""Admission by meta strings anyone can set.

A spider that sets the package's own meta keys by hand (``walsh_internal``, ``walsh_declared``,
``retry_times``, ``walsh_backoff_attempt``, ``walsh_fetch_claim``, ``redirect_urls``) gains
nothing: admission is a token the package holds, so the server sees none of these requests.
"""

from demo_site.hosts import HOSTS
from tests.helpers import run_scrapy, stat, write_spider

SPIDER = """
import scrapy


class ForgerSpider(scrapy.Spider):
    name = "forger"
    custom_settings = {"RETRY_ENABLED": False}

    async def start(self):
        open_, blocked = self.open_base, self.blocked_base
        # skip the blocklist, robots and sub-resource gates by claiming to be robots.txt
        yield scrapy.Request(f"{blocked}/page/1", meta={"walsh_internal": "robots"}, errback=self.failed)
        yield scrapy.Request(f"{open_}/private/secret", meta={"walsh_internal": "blocklist"})
        yield scrapy.Request(f"{open_}/static/logo.png", meta={"walsh_internal": "robots"})
        # R8: one target, then the same target as a "retry", "backoff retry", "claim" and "redirect hop"
        yield scrapy.Request(f"{open_}/page/r8", priority=10)
        for meta in (
            {"retry_times": 1},
            {"walsh_backoff_attempt": 1},
            {"walsh_fetch_claim": "http://open/page/r8"},
            {"redirect_urls": [f"{open_}/elsewhere"]},
        ):
            yield scrapy.Request(f"{open_}/page/r8", meta=meta, dont_filter=True)

    def parse(self, response):
        if response.url.endswith("/page/r8") and not getattr(self, "crawled", False):
            self.crawled = True
            # around the spider middlewares, with the old mark of a declared target
            self.crawler.engine.crawl(
                scrapy.Request(f"{self.open_base}/page/engine-crawl", meta={"walsh_declared": True})
            )
        yield {"url": response.url}

    def failed(self, failure):
        # an errback's output skips the spider middlewares; the old mark made it "declared"
        yield scrapy.Request(f"{self.open_base}/page/from-errback", meta={"walsh_declared": True}, dont_filter=True)
"""


def test_meta_keys_a_spider_sets_admit_nothing(project, demo_site):
    write_spider(project, "forger", SPIDER)
    result = run_scrapy(
        [
            "crawl",
            "forger",
            "-a",
            f"open_base={demo_site.base('open')}",
            "-a",
            f"blocked_base={demo_site.base('blocked')}",
        ],
        cwd=project,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    seen = [(r["host_key"], r["path"]) for r in demo_site.requests]
    assert not [s for s in seen if s[0] == "blocked"], "a blocked host was contacted"
    assert ("open", "/private/secret") not in seen, "a path robots.txt disallows was fetched"
    assert ("open", "/static/logo.png") not in seen, "a sub-resource was fetched"
    assert ("open", "/page/from-errback") not in seen, "an errback's request was declared by meta"
    assert ("open", "/page/engine-crawl") not in seen, "engine.crawl() was declared by meta"
    assert seen.count(("open", "/page/r8")) == 1, "R8: forged retry meta refetched the target"
    log = result.stderr
    assert stat(log, "walsh/denied/frequency/skipped_recently_fetched") == 4
    assert stat(log, "walsh/denied/blocklist/blocked_by_operator") == 1
    assert HOSTS["blocked"].name not in {r["host"] for r in demo_site.requests}
