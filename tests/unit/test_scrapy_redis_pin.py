"""The one place the add-on reaches into scrapy-redis: its spiders' ``next_requests()``.

scrapy-redis's idle handler pops start URLs from Redis and hands them to ``engine.crawl()``,
around every spider middleware, so R6's scheduler check would drop them as undeclared.
``DeclaredTargetsMiddleware.spider_opened`` wraps ``next_requests`` on the spider instance
to mark them. These tests run scrapy-redis's own idle path (``schedule_next_requests``) and
fail, naming the method, on a scrapy-redis release that renames or bypasses it. The Redis
list is stood in for after scrapy-redis's own ``setup_redis``, which picks the list's pop
function by setting ``fetch_data`` on the spider: the test sets it to a fixed batch.
"""

from __future__ import annotations

import json

import pytest
from scrapy.utils.test import get_crawler
from scrapy_redis import spiders as scrapy_redis_spiders

from scrapy_walsh import Addon
from scrapy_walsh.exceptions import OutOfScope
from scrapy_walsh.middlewares.scope import DeclaredTargetsMiddleware
from scrapy_walsh.sending import admission

TARGETS = ["https://a.example/one", "https://b.example/two"]


class QueueSpider(scrapy_redis_spiders.RedisSpider):
    name = "queue"
    redis_key = "queue:start_urls"


class Engine:
    """Records what scrapy-redis schedules (``engine.crawl(request)``)."""

    def __init__(self):
        self.scheduled = []

    def crawl(self, request):
        self.scheduled.append(request)


def _spider_and_middleware():
    crawler = get_crawler(QueueSpider, settings_dict={"ADDONS": {Addon: 500}})
    spider = QueueSpider.from_crawler(crawler)  # scrapy-redis's setup_redis: a client, no connection yet
    spider.fetch_data = lambda key, batch: [json.dumps({"url": u}).encode() for u in TARGETS]
    engine = Engine()
    crawler.engine = engine
    crawler.spider = spider
    return spider, DeclaredTargetsMiddleware(crawler), engine


def test_scrapy_redis_still_has_the_names_the_add_on_wraps():
    mixin = scrapy_redis_spiders.RedisMixin
    assert callable(getattr(mixin, "next_requests", None)), (
        "scrapy-redis no longer has RedisMixin.next_requests(): "
        "scrapy_walsh.middlewares.scope.DeclaredTargetsMiddleware.spider_opened must follow it"
    )
    assert hasattr(mixin, "redis_key"), "scrapy-redis no longer has RedisMixin.redis_key (how we recognise it)"


def test_urls_scrapy_redis_pops_when_idle_reach_the_scheduler_declared():
    spider, middleware, engine = _spider_and_middleware()
    middleware.spider_opened(spider)
    spider.schedule_next_requests()  # scrapy-redis's own idle path
    assert [r.url for r in engine.scheduled] == TARGETS, (
        "scrapy-redis's idle path no longer goes through next_requests(): see spider_opened"
    )
    assert all(admission.declared(middleware.crawler, r) for r in engine.scheduled)
    for request in engine.scheduled:
        middleware.request_scheduled(request, spider)  # admitted: raises nothing


def test_without_the_wrapper_the_scheduler_check_drops_them():
    """What the wrapper is for: the same requests, unmarked, are refused as undeclared."""
    spider, middleware, engine = _spider_and_middleware()
    spider.schedule_next_requests()
    assert engine.scheduled and not any(admission.declared(middleware.crawler, r) for r in engine.scheduled)
    with pytest.raises(OutOfScope):
        middleware.request_scheduled(engine.scheduled[0], spider)


def test_a_redis_spider_without_next_requests_is_named_in_the_log(caplog):
    """A scrapy-redis that renames the method: the crawl says so, instead of dropping in silence."""
    import scrapy

    class Renamed(scrapy.Spider):
        name = "renamed"
        redis_key = "renamed:start_urls"

    crawler = get_crawler(Renamed, settings_dict={"ADDONS": {Addon: 500}})
    spider = Renamed.from_crawler(crawler)
    crawler.spider = spider
    DeclaredTargetsMiddleware(crawler).spider_opened(spider)
    assert "Renamed has redis_key but no next_requests()" in caplog.text
