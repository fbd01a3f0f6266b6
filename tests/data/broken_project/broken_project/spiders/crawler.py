"""A spider written to recurse: rules, a link extractor, and per-site selectors."""

from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule


class EverythingSpider(CrawlSpider):
    name = "everything"
    user_agent = "EverythingBot/2.0"
    start_urls = ["http://open.walsh-demo.test:8787/page/1"]
    rules = (Rule(LinkExtractor(), callback="parse_item", follow=True),)

    def parse_item(self, response):
        yield {"url": response.url, "price": response.css("div.price > span::text").get()}
