"""Scrapy's own SitemapSpider: the sitemaps robots.txt names, posts routed to a callback."""

from scrapy.spiders import SitemapSpider


class BlogSpider(SitemapSpider):
    name = "blog"
    sitemap_urls = ["{base}/robots.txt"]
    sitemap_rules = [(r"/post/\d+\.html", "parse_post")]

    def parse_post(self, response):
        yield {"url": response.url, "title": response.css("h1::text").get()}
