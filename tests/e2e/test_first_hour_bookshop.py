"""A new user's first hour on a site the add-on was not written against: a bookshop (tests/bookshop_site.py)
with a sitemap index, a gzipped child with lastmod dates, and a disallowed section every page links to.

Three projects written as ``scrapy startproject`` makes them: a CrawlSpider whose items are a
``scrapy.Item`` class, with an ImagesPipeline, a pipeline of its own writing a JSON-lines file and
FEEDS that overwrite; a SitemapSpider with ``sitemap_rules`` and ``sitemap_follow``; a spider that
follows links across three callbacks. Each gets the ADDONS line (the follow spider also the line
``check`` prints), then every command a user tries. Assertions are on what the server saw, the
files written and the exit status.
"""

from __future__ import annotations

import json
import re
import time

import pytest

from tests.bookshop_site import BOOKS, Bookshop
from tests.helpers import add_addon_line, new_project, run_scrapy, write_spider

ITEMS = """
import scrapy


class BookItem(scrapy.Item):
    url = scrapy.Field()
    shop = scrapy.Field()
    title = scrapy.Field()
    price = scrapy.Field()
    image_urls = scrapy.Field()
    images = scrapy.Field()
"""
OWN_PIPELINE = """
import json

from itemadapter import ItemAdapter


class JsonWriterPipeline:
    def open_spider(self, spider=None):
        self.file = open("books.jl", "w")

    def close_spider(self, spider=None):
        self.file.close()

    def process_item(self, item, spider=None):
        self.file.write(json.dumps(ItemAdapter(item).asdict()) + "\\n")
        return item
"""
OWN_SETTINGS = """
ITEM_PIPELINES = {
    "scrapy.pipelines.images.ImagesPipeline": 1,
    "plainproj.pipelines.JsonWriterPipeline": 300,
}
IMAGES_STORE = "images"
FEEDS = {"output/books.json": {"format": "json", "overwrite": True}}
"""
CRAWL_SPIDER = """
from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule

from plainproj.items import BookItem


class BooksSpider(CrawlSpider):
    name = "books"
    allowed_domains = ["bookshop.test"]
    start_urls = ["{base}/"]
    rules = (
        Rule(LinkExtractor(allow=r"/genre/"), follow=True),
        Rule(LinkExtractor(allow=r"/book/[\\w-]+/$"), callback="parse_book", cb_kwargs={{"shop": "bookshop"}}),
    )

    def parse_start_url(self, response):
        yield BookItem(url=response.url, title=response.css("h1::text").get())

    def parse_book(self, response, shop):
        item = BookItem()
        item["url"] = response.url
        item["shop"] = shop
        item["title"] = response.css("h1::text").get()
        item["price"] = response.css("p.price::text").get()
        item["image_urls"] = [response.urljoin(src) for src in response.css("img.cover::attr(src)").getall()]
        yield item
"""
SITEMAP_SPIDER = """
from scrapy.spiders import SitemapSpider


class CatalogueSpider(SitemapSpider):
    name = "catalogue"
    sitemap_urls = ["{base}/robots.txt"]
    sitemap_follow = [r"/sitemaps/(books|authors)"]
    sitemap_rules = [(r"/book/", "parse_book"), (r"/author/", "parse_author")]

    def parse_book(self, response):
        yield {{"url": response.url, "title": response.css("h1::text").get()}}

    def parse_author(self, response):
        yield {{"url": response.url, "name": response.css("h1::text").get()}}
"""
FOLLOW_SPIDER = """
import scrapy


class ShopSpider(scrapy.Spider):
    name = "shop"
    allowed_domains = ["bookshop.test"]
    start_urls = ["{base}/"]

    def parse(self, response):
        for href in response.css("a.genre::attr(href)").getall():
            yield response.follow(href, callback=self.parse_genre)

    def parse_genre(self, response):
        for href in response.css("article.book a::attr(href)").getall():
            yield response.follow(href, callback=self.parse_book)
        next_page = response.css("a.next::attr(href)").get()
        if next_page:
            yield response.follow(next_page, callback=self.parse_genre)

    def parse_book(self, response):
        yield {{"url": response.url, "title": response.css("h1::text").get()}}
"""
BOOK_PAGES = sorted(f"/book/{b}/" for b in BOOKS)
AUTHOR_PAGES = ["/author/ada-ferreira/", "/author/tom-okafor/"]


@pytest.fixture
def bookshop():
    site = Bookshop().start()
    yield site
    site.shutdown()
    site.server_close()


def project_of(tmp_path, site: Bookshop, name: str, spider: str, own: str = ""):
    project = new_project(tmp_path)
    write_spider(project, name, spider.format(base=site.named))
    (project / "plainproj" / "items.py").write_text(ITEMS)
    (project / "plainproj" / "pipelines.py").write_text(OWN_PIPELINE)
    settings = project / "plainproj" / "settings.py"
    settings.write_text(settings.read_text() + own + site.settings())
    add_addon_line(project)  # the one edit
    return project


def planned(project, spider: str, *args) -> tuple[list[str], list[str]]:
    """The pages ``scrapy walsh plan`` says it would fetch, and its last lines."""
    said = run_scrapy(["walsh", "plan", spider, *args], cwd=project)
    assert said.returncode == 0, said.stderr[-3000:]
    fetch = sorted(
        re.sub(r"^http://[^/]+", "", line.split()[1])
        for line in said.stdout.splitlines()
        if line.startswith("  fetch ")
    )
    return fetch, said.stdout.splitlines()


def test_a_crawl_spider_with_an_item_class_in_one_line(tmp_path, bookshop):
    project = project_of(tmp_path, bookshop, "books", CRAWL_SPIDER, OWN_SETTINGS)
    checked = run_scrapy(["walsh", "check"], cwd=project)
    assert "result: fail" not in checked.stdout, checked.stdout[-3000:]
    assert "BookItem" in checked.stdout and "walsh = scrapy.Field()" in checked.stdout, "check says what an Item lacks"
    first = run_scrapy(["crawl", "books"], cwd=project)
    assert first.returncode == 0, first.stderr[-3000:]
    assert sorted(bookshop.pages()) == ["/", *BOOK_PAGES], "the start page and each book once: no link followed"
    # allowed_domains names the shop's domain, not another site: nothing else asked for, nothing refused
    assert "WARNING: scrapy_walsh compliance summary" not in first.stderr, first.stderr[-3000:]
    items = json.loads((project / "output" / "books.json").read_text())
    assert [i["title"] for i in items if "shop" not in i] == ["Welcome"], "parse_start_url's item"
    assert sum(i.get("shop") == "bookshop" for i in items) == len(BOOKS), "the Rule's cb_kwargs given"
    assert len((project / "books.jl").read_text().splitlines()) == len(BOOKS) + 1
    assert not (project / "images").exists()

    # the page a developer looks at: printed, or refused in one line with exit 1
    fetched = run_scrapy(["fetch", "--nolog", f"{bookshop.named}/author/ada-ferreira/"], cwd=project)
    assert fetched.returncode == 0 and "<h1>Ada Ferreira</h1>" in fetched.stdout, fetched.stderr[-2000:]
    just_crawled = f"{bookshop.named}{BOOK_PAGES[0]}"  # R8 refuses it: one line, exit 1
    parsed = run_scrapy(["parse", "--nolog", "--spider", "books", "-c", "parse_book", just_crawled], cwd=project)
    assert parsed.returncode == 1 and parsed.stderr.count("\n") == 1, parsed.stderr
    assert parsed.stderr.startswith("scrapy_walsh: not fetched: frequency: ")
    logged = run_scrapy(["fetch", just_crawled], cwd=project)  # its log: the URL's advice, not the spider's
    assert logged.returncode == 1 and f"`scrapy walsh state forget {just_crawled}`" in logged.stderr
    assert "forget --spider" not in logged.stderr, logged.stderr[-3000:]

    # a second spider of the project: the books the first one fetched are not fetched again (R7, the
    # identity's), and plan says whose fetch that was and how to fetch one all the same
    write_spider(project, "catalogue", SITEMAP_SPIDER.format(base=bookshop.named))
    _, lines = planned(project, "catalogue")
    skipped = [line for line in lines if "lastmod_unchanged" in line]
    assert len(skipped) == len(BOOKS) and all(
        "that fetch was by spider books, not by spider catalogue" in line and "`scrapy walsh state forget http" in line
        for line in skipped
    ), lines

    # one book changes after our fetch: plan and the crawl agree, and its item is delivered
    time.sleep(1.0)  # the refetch interval below is the 1 s floor the server's clock is checked against
    changed = BOOK_PAGES[1].split("/")[2]
    bookshop.lastmod[changed] = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime())
    override = ("-s", "WALSH_REFETCH_INTERVAL=1")
    fetch, lines = planned(project, "books", *override)
    assert fetch == ["/", BOOK_PAGES[1]], lines  # the start page has no lastmod: due after the interval (R8)
    bookshop.log.clear()
    again = run_scrapy(["crawl", "books", *override], cwd=project)
    assert again.returncode == 0, again.stderr[-3000:]
    assert sorted(bookshop.pages()) == fetch
    delivered = json.loads((project / "output" / "books.json").read_text())
    assert [i["url"] for i in delivered] == [f"{bookshop.named}{BOOK_PAGES[1]}"], again.stderr[-3000:]


def test_a_sitemap_spider_in_one_line(tmp_path, bookshop):
    project = project_of(tmp_path, bookshop, "catalogue", SITEMAP_SPIDER)
    checked = run_scrapy(["walsh", "check"], cwd=project)
    assert "result: fail" not in checked.stdout, checked.stdout[-3000:]
    crawled = run_scrapy(["crawl", "catalogue", "-O", "items.jsonl"], cwd=project)
    assert crawled.returncode == 0, crawled.stderr[-3000:]
    assert "/sitemaps/pages.xml" not in bookshop.paths(), "sitemap_follow leaves it out"
    assert sorted(bookshop.pages()) == sorted(AUTHOR_PAGES + BOOK_PAGES)
    assert len((project / "items.jsonl").read_text().splitlines()) == len(AUTHOR_PAGES + BOOK_PAGES)

    forgot = run_scrapy(["walsh", "state", "forget", "--spider", "catalogue"], cwd=project)
    assert forgot.returncode == 0, forgot.stderr
    pages = [line for line in forgot.stdout.splitlines() if line.startswith("forgot ")]
    assert len(pages) == len(AUTHOR_PAGES + BOOK_PAGES) + 1, forgot.stdout  # one line a page, and the total


def test_a_follow_spider_in_two_lines_the_second_pasted_from_check(tmp_path, bookshop):
    project = project_of(tmp_path, bookshop, "shop", FOLLOW_SPIDER)
    checked = run_scrapy(["walsh", "check"], cwd=project)
    pasted = set(re.findall(r"paste into settings\.py: (WALSH_DISCOVERY_ROUTES = \{.*?\})  \(", checked.stdout))
    assert pasted == {'WALSH_DISCOVERY_ROUTES = {r"/book/[^/]+/$": "parse_book"}'}, checked.stdout
    settings = project / "plainproj" / "settings.py"
    settings.write_text(settings.read_text() + "\n" + pasted.pop() + "\n")  # the second edit
    checked = run_scrapy(["walsh", "check"], cwd=project)
    assert "result: fail" not in checked.stdout and "paste" not in checked.stdout, checked.stdout[-3000:]
    bookshop.log.clear()
    crawled = run_scrapy(["crawl", "shop", "-O", "items.jsonl"], cwd=project)
    assert crawled.returncode == 0, crawled.stderr[-3000:]
    assert sorted(bookshop.pages()) == BOOK_PAGES
    assert len((project / "items.jsonl").read_text().splitlines()) == len(BOOKS)
    assert "WARNING: scrapy_walsh compliance summary" not in crawled.stderr, crawled.stderr[-3000:]

    shell = run_scrapy(["shell", "--nolog", f"{bookshop.named}/genre/mystery/", "-c", "response.status"], cwd=project)
    assert shell.stdout.strip() == "200", shell.stderr[-2000:]


def test_a_follow_spider_passing_data_to_its_callback_is_told_before_any_request(tmp_path, bookshop):
    """A callback that takes ``cb_kwargs`` or reads ``response.meta`` a followed link set gets neither as
    a route's callback: check says so with the line to paste, and the crawl is refused before any request
    (before, check passed and every page was fetched for a callback that raised)."""
    passing = 'callback=self.parse_book, cb_kwargs={{"genre": response.url}}, meta={{"shelf": 1}})'
    spider = (
        FOLLOW_SPIDER.replace("callback=self.parse_book)", passing)
        .replace("def parse_book(self, response):", "def parse_book(self, response, genre):")
        .replace('"title": response.css', '"genre": genre, "shelf": response.meta["shelf"], "title": response.css')
    )
    project = project_of(tmp_path, bookshop, "shop", spider)
    checked = run_scrapy(["walsh", "check"], cwd=project)
    advice = next(line for line in checked.stdout.splitlines() if "paste into settings.py" in line)
    assert "give parse_book's `genre` a default (genre=None)" in advice, advice
    assert "read response.meta['shelf'] with response.meta.get('shelf')" in advice, advice
    pasted = re.search(r"(WALSH_DISCOVERY_ROUTES = \{.*?\})  \(", advice).group(1)
    settings = project / "plainproj" / "settings.py"
    settings.write_text(settings.read_text() + "\n" + pasted + "\n")

    checked = run_scrapy(["walsh", "check"], cwd=project)
    assert "needs genre besides the response" in checked.stdout and "result: fail" in checked.stdout, checked.stdout
    assert "reads what a followed link passed" in checked.stdout
    bookshop.log.clear()
    refused = run_scrapy(["crawl", "shop"], cwd=project)
    assert refused.returncode == 1 and "refuses to start this crawl" in refused.stderr, refused.stderr[-3000:]
    assert bookshop.pages() == [], "no page fetched for a callback that could not take it"


def test_check_says_a_rule_that_picks_links_by_their_place_names_every_page(tmp_path, bookshop):
    """A rule with only ``restrict_css`` routes every URL the sitemap lists to its callback (a manifest's
    URL sits nowhere on a page); check says so with the pattern to give it (before, it passed)."""
    spider = CRAWL_SPIDER.replace(
        'LinkExtractor(allow=r"/book/[\\w-]+/$")', 'LinkExtractor(restrict_css="article.book")'
    )
    assert spider != CRAWL_SPIDER
    project = project_of(tmp_path, bookshop, "books", spider, OWN_SETTINGS)
    checked = run_scrapy(["walsh", "check"], cwd=project)
    said = [line for line in checked.stdout.splitlines() if "picks its links by where they sit on a page" in line]
    assert len(said) == 1 and said[0].split()[1] == "warn", checked.stdout[-3000:]
    assert 'give its LinkExtractor allow=r"/book/[^/]+/$"' in said[0], said
