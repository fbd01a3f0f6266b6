"""An ordinary CrawlSpider: listing pages are navigation (no callback), posts have one."""

from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule


class BlogSpider(CrawlSpider):
    name = "blog"
    allowed_domains = ["127.0.0.1"]
    start_urls = ["{base}/"]
    rules = (
        Rule(LinkExtractor(allow=r"/page/\d+\.html")),
        Rule(LinkExtractor(allow=r"/post/\d+\.html"), callback="parse_post"),
    )

    def parse_post(self, response):
        yield {"url": response.url, "title": response.css("h1::text").get()}
