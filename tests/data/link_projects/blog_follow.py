"""An ordinary spider that follows links: the listing's posts, then its next page."""

import scrapy


class BlogSpider(scrapy.Spider):
    name = "blog"
    start_urls = ["{base}/"]

    def parse(self, response):
        for href in response.css("a.post::attr(href)").getall():
            yield response.follow(href, self.parse_post)
        next_page = response.css("a.next::attr(href)").get()
        if next_page:
            yield response.follow(next_page, self.parse)

    def parse_post(self, response):
        yield {"url": response.url, "title": response.css("h1::text").get()}
