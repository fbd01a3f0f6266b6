"""``scrapy shell``, ``fetch``, ``parse`` with the add-on: the URL on the command line is a declared
target, passes every gate and is fetched, or is refused without a hang. Real commands against
the demo site; assertions on what the server saw."""

from __future__ import annotations

from scrapy_walsh.settings import USER_AGENT as OUR_UA
from tests.helpers import run_scrapy, write_spider

TITLES = """
import scrapy


class TitlesSpider(scrapy.Spider):
    name = "titles"

    def parse(self, response):
        yield {"url": response.url, "title": response.css("title::text").get()}
"""


def _seen(demo_site, host_key):
    return [(r["path"], r["headers"].get("User-Agent")) for r in demo_site.requests if r["host_key"] == host_key]


def test_shell_fetches_the_url_and_fetch_inside_it(project, demo_site):
    first, second = demo_site.url("open", "/page/1"), demo_site.url("open", "/page/2")
    result = run_scrapy(["shell", first, "-c", f"(fetch({second!r}), response.status)[1]"], cwd=project, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().endswith("200"), result.stdout
    assert _seen(demo_site, "open") == [("/robots.txt", OUR_UA), ("/page/1", OUR_UA), ("/page/2", OUR_UA)]
    assert "yielded from an errback" not in result.stderr


def test_shell_refusal_is_one_line_and_no_hang(project, demo_site):
    disallowed = demo_site.url("open", "/private/secret")
    result = run_scrapy(["shell", disallowed, "-c", "response"], cwd=project, timeout=120)
    # Scrapy's shell has no exit status for its crawl (fetch and parse read bootstrap_failed): the
    # refusal is said on stderr, and the process is the shell's
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip() == "None"
    assert [p for p, _ in _seen(demo_site, "open")] == ["/robots.txt"], "the page was never requested"
    assert "robots: disallowed_explicit" in result.stderr


def test_fetch_and_parse_commands(project, demo_site):
    url = demo_site.url("open", "/page/3")
    fetched = run_scrapy(["fetch", "--nolog", url], cwd=project, timeout=120)
    assert fetched.returncode == 0, fetched.stderr[-3000:]
    assert "<html" in fetched.stdout.lower()
    write_spider(project, "titles", TITLES)
    other = demo_site.url("open", "/page/4")
    parsed = run_scrapy(["parse", other, "--spider", "titles", "-c", "parse"], cwd=project, timeout=120)
    assert parsed.returncode == 0, parsed.stderr[-3000:]
    assert f"'url': '{other}'" in parsed.stdout, parsed.stdout
    assert ("/page/3", OUR_UA) in _seen(demo_site, "open") and ("/page/4", OUR_UA) in _seen(demo_site, "open")


def test_fetch_prints_a_refusal_on_stderr_even_with_nolog_and_exits_1(project, demo_site):
    """A person typed the URL: ``--nolog`` must not hide the refusal, nor exit 0 when nothing came."""
    for url, verdict in (
        (demo_site.url("open", "/private/secret"), "disallowed_explicit"),
        (demo_site.url("blocked", "/page/1"), "blocked_by_operator"),
    ):
        result = run_scrapy(["fetch", "--nolog", url], cwd=project, timeout=120)
        assert result.returncode == 1, result.stderr[-3000:]
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("scrapy_walsh: not fetched: "), result.stderr
        assert verdict in lines[0] and url in lines[0], lines
        assert result.stdout == ""
    assert "/private/secret" not in [p for p, _ in _seen(demo_site, "open")]
    assert _seen(demo_site, "blocked") == []


def test_shell_refusal_with_nolog_is_said_on_stderr(project, demo_site):
    disallowed = demo_site.url("open", "/private/other")
    result = run_scrapy(["shell", "--nolog", disallowed, "-c", "response"], cwd=project, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]  # the shell's own status: see above
    assert "scrapy_walsh: not fetched: " in result.stderr and "disallowed_explicit" in result.stderr
    assert result.stdout.strip() == "None"


def test_fetch_in_a_project_with_discovery_prints_the_page(project, demo_site):
    """Discovery declares a spider's targets from the site's manifests; the URL typed after ``scrapy
    fetch`` is declared by the person who typed it. Before, it was taken for a listing page and
    dropped: nothing printed, exit 0, and the host's sitemaps read for nothing."""
    with (project / "plainproj" / "settings.py").open("a") as settings:
        settings.write('\nWALSH_DISCOVERY = ["sitemap"]\nWALSH_DISCOVERY_ROUTES = {r"/post/": "parse_post"}\n')
    url = demo_site.url("open", "/page/6")
    fetched = run_scrapy(["fetch", "--nolog", url], cwd=project, timeout=120)
    assert fetched.returncode == 0, fetched.stderr[-3000:]
    assert "<html" in fetched.stdout.lower(), fetched.stdout[-2000:]
    assert [p for p, _ in _seen(demo_site, "open")] == ["/robots.txt", "/page/6"], "the page, and no manifest"


BLOG = """
from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule


class BlogSpider(CrawlSpider):
    name = "blog"
    allowed_domains = ["open.walsh-demo.test"]
    start_urls = [{start!r}]
    rules = (Rule(LinkExtractor(allow=r"/page/"), callback="parse_page", follow=True),)

    def parse_page(self, response):
        yield {{"url": response.url, "title": response.css("title::text").get()}}
"""


def test_fetch_and_parse_with_a_discovery_crawlspider_named(project, demo_site):
    """The project's own CrawlSpider, discovery on (as ``scrapy fetch`` picks it by its domain on a
    site with no port): the typed URL is the target, printed or refused in one line, and no manifest
    is read for it."""
    with (project / "plainproj" / "settings.py").open("a") as settings:
        settings.write('\nWALSH_DISCOVERY = ["sitemap"]\n')
    write_spider(project, "blog", BLOG.format(start=demo_site.url("open", "/")))
    page = demo_site.url("open", "/page/8")
    fetched = run_scrapy(["fetch", "--nolog", "--spider", "blog", page], cwd=project)
    assert fetched.returncode == 0, fetched.stderr[-3000:]
    assert "<title>open page 8</title>" in fetched.stdout, fetched.stdout[-2000:]
    disallowed = demo_site.url("open", "/private/blog")
    refused = run_scrapy(["parse", "--nolog", "--spider", "blog", "-c", "parse_page", disallowed], cwd=project)
    _one_refusal(refused, disallowed, "disallowed_explicit")
    again = run_scrapy(["parse", "--nolog", "--spider", "blog", "-c", "parse_page", page], cwd=project)
    _one_refusal(again, page, "skipped_recently_fetched")
    assert [p for p, _ in _seen(demo_site, "open")] == ["/robots.txt", "/page/8"], "the page once, no manifest"


def _one_refusal(result, url, verdict):
    assert result.returncode != 0, result.stdout + result.stderr[-3000:]
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("scrapy_walsh: not fetched: "), result.stderr[-3000:]
    assert verdict in lines[0] and url in lines[0], lines


def test_parse_of_a_disallowed_or_just_fetched_url_is_one_refusal_and_a_non_zero_exit(project, demo_site):
    """``scrapy parse URL`` exited 0 when robots.txt disallowed the URL or R8 refused it: a person
    typed it, so the refusal is said on stderr (even with ``--nolog``) and the process fails."""
    write_spider(project, "titles", TITLES)
    disallowed = demo_site.url("open", "/private/parsed")
    refused = run_scrapy(["parse", "--nolog", disallowed, "--spider", "titles", "-c", "parse"], cwd=project)
    _one_refusal(refused, disallowed, "disallowed_explicit")
    page = demo_site.url("open", "/page/7")
    first = run_scrapy(["parse", "--nolog", page, "--spider", "titles", "-c", "parse"], cwd=project)
    assert first.returncode == 0 and f"'url': '{page}'" in first.stdout, first.stderr[-3000:]
    again = run_scrapy(["parse", "--nolog", page, "--spider", "titles", "-c", "parse"], cwd=project)
    _one_refusal(again, page, "skipped_recently_fetched")
    logged = run_scrapy(["parse", page, "--spider", "titles", "-c", "parse"], cwd=project)
    assert logged.returncode != 0 and "Traceback" not in logged.stderr, logged.stderr[-3000:]
    assert logged.stderr.count("scrapy_walsh: not fetched: ") == 1, logged.stderr[-3000:]
    assert [p for p, _ in _seen(demo_site, "open")].count("/page/7") == 1
    assert "/private/parsed" not in [p for p, _ in _seen(demo_site, "open")]
