"""``scrapy shell``, ``fetch``, ``parse`` with the add-on: the URL on the command line is a declared
target, passes every gate and is fetched, or is refused without a hang. Real commands against
the demo site; assertions on what the server saw."""

from __future__ import annotations

from scrapy_walsh.settings import USER_AGENT as OUR_UA

from ..helpers import run_scrapy, write_spider

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
    assert result.returncode == 1, result.stderr[-3000:]  # nothing was fetched: a non-zero exit says so
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
    assert result.returncode == 1, result.stderr[-3000:]
    assert "scrapy_walsh: not fetched: " in result.stderr and "disallowed_explicit" in result.stderr
    assert result.stdout.strip() == "None"
