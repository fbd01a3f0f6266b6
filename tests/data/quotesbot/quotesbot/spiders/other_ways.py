"""Not from quotesbot: the other ways a Scrapy spider asks for pages after a response, written as
Scrapy's tutorial and documentation write them, so the R6 audit is tested on each one
(tests/e2e/test_everyday_audit.py asserts the exact findings, by line)."""

import scrapy
from scrapy.http import FormRequest, JsonRequest
from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule, SitemapSpider


class QuotesFollowSpider(scrapy.Spider):
    name = "quotes-follow"
    start_urls = ["http://quotes.toscrape.com/page/1/", "http://quotes.toscrape.com/page/2/"]

    def parse(self, response):
        for quote in response.css("div.quote"):
            yield {"text": quote.css("span.text::text").get()}
        yield from response.follow_all(css="a.author + a", callback=self.parse_author)
        yield response.follow("http://quotes.toscrape.com/page/2/", callback=self.parse)  # declared
        next_page = response.css("li.next a::attr(href)").get()
        if next_page is not None:
            yield response.follow(next_page, callback=self.parse, errback=self.failed)

    def parse_author(self, response):
        yield {"name": response.css("h3.author-title::text").get()}

    def failed(self, failure):
        yield scrapy.Request(failure.request.url, dont_filter=True)


class QuotesLoginSpider(scrapy.Spider):
    name = "quotes-login"

    async def start(self):
        yield self.login_page()

    def login_page(self):
        return scrapy.Request("http://quotes.toscrape.com/login", callback=self.login)

    def login(self, response):
        yield FormRequest.from_response(response, formdata={"username": "u"}, callback=self.after_login)

    def after_login(self, response):
        yield JsonRequest("http://quotes.toscrape.com/api/quotes?page=1", callback=self.parse_api)

    async def parse_api(self, response):
        author = await self.crawler.engine.download_async(scrapy.Request(response.json()["author_url"]))
        yield {"author": author.url}


class QuotesCrawlSpider(CrawlSpider):
    name = "quotes-crawl"
    start_urls = ["http://quotes.toscrape.com/"]
    rules = (Rule(LinkExtractor(restrict_css="li.next"), callback="parse_page", follow=True),)

    def parse_page(self, response):
        yield {"url": response.url}


class QuotesSitemapSpider(SitemapSpider):
    name = "quotes-sitemap"
    sitemap_urls = ["http://quotes.toscrape.com/sitemap.xml"]

    def parse(self, response):
        yield {"url": response.url}


class QuotesDeclaredSpider(scrapy.Spider):
    """Written for R6: every page it fetches is declared; its callback yields items only."""

    name = "quotes-declared"
    start_urls = [f"http://quotes.toscrape.com/page/{n}/" for n in range(1, 4)]

    def parse(self, response):
        yield {"url": response.url, "title": response.css("title::text").get()}


class QuotesStartSpider(scrapy.Spider):
    """start() yields its own requests: the start_urls below are never fetched."""

    name = "quotes-start"
    start_urls = ["http://quotes.toscrape.com/page/9/"]

    async def start(self):
        for page in (1, 2):
            yield scrapy.Request(f"http://quotes.toscrape.com/page/{page}/")

    def parse(self, response):
        yield {"url": response.url}
