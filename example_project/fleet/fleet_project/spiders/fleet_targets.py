"""Independent workers with overlapping target lists: every worker gets every target.

Nothing but the shared state store coordinates them: a target is claimed in Redis
before it is fetched (so each is fetched once fleet-wide), and each host's slots are
reserved there (so the fleet keeps one request per second per host).
"""

import scrapy


class FleetTargetsSpider(scrapy.Spider):
    name = "fleet_targets"

    async def start(self):
        for url in self.urls.split(","):  # -a urls=u1,u2,...
            yield scrapy.Request(url)

    def parse(self, response):
        yield {"url": response.url, "status": response.status, "title": response.css("title::text").get()}
