"""Workers sharing one scrapy-redis queue (``pip install scrapy-redis``).

Push targets to the Redis list ``fleet:start_urls`` (JSON ``{"url": ...}``), then start
any number of ``scrapy crawl fleet_queue`` workers: each pops targets from Redis. The
URLs popped are the declared targets; links found in pages are not followed (R6).
scrapy-redis replaces Scrapy's scheduler, so the add-on's politeness-aware queue is not
used: a worker whose next host is busy waits for its slot instead of picking another
host. Pacing stays fleet-wide, because the slot is reserved in the state store.
"""

try:
    from scrapy_redis.spiders import RedisSpider
except ImportError as exc:  # the shared-queue example needs scrapy-redis; the other spider does not
    raise ImportError("the fleet_queue spider needs scrapy-redis: pip install scrapy-redis") from exc


class FleetQueueSpider(RedisSpider):
    name = "fleet_queue"
    redis_key = "fleet:start_urls"
    #: Stop after this many idle seconds with an empty queue (a demo, not a daemon).
    max_idle_time = 5
    custom_settings = {
        "SCHEDULER": "scrapy_redis.scheduler.Scheduler",
        "DUPEFILTER_CLASS": "scrapy_redis.dupefilter.RFPDupeFilter",
        # keep the queue when one worker stops: the others may still hold requests in it
        "SCHEDULER_PERSIST": True,
    }

    def parse(self, response):
        yield {"url": response.url, "status": response.status, "title": response.css("title::text").get()}
