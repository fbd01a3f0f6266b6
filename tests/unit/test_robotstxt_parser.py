"""scrapy_walsh.RobotParser: Scrapy's RobotParser interface over our engine, for projects without the add-on."""

from __future__ import annotations

import pytest
from scrapy.robotstxt import RobotParser as ScrapyRobotParser
from scrapy.utils.test import get_crawler

import scrapy_walsh
from scrapy_walsh.policy.robots import product_token

BODY = b"""User-agent: *
Disallow: /private/
Crawl-delay: 1

User-agent: WalshBot/1.0
Allow: /private/shared
Disallow: /members
Crawl-delay: 7.5
"""


@pytest.mark.parametrize(
    ("user_agent", "token"),
    [
        ("WalshBot/2.0 (+https://walsh.example/bot)", "WalshBot"),
        ("walshbot", "walshbot"),
        ("Mozilla/5.0 (compatible; WalshBot/2.1; +https://walsh.example/bot)", "WalshBot"),
        ("Mozilla/5.0 (X11; Linux x86_64)", "Mozilla"),
        ("Scrapy/2.19.0 (+https://scrapy.org)", "Scrapy"),
        ("  Walsh_Research-Bot/1", "Walsh_Research-Bot"),
        ("", ""),
        ("1bot", ""),
    ],
)
def test_the_product_token_of_a_user_agent(user_agent, token):
    assert product_token(user_agent) == token


def test_it_is_scrapys_robot_parser_built_by_from_crawler():
    parser = scrapy_walsh.RobotParser.from_crawler(get_crawler(), BODY)
    assert isinstance(parser, ScrapyRobotParser)


@pytest.mark.parametrize("as_bytes", [False, True])
def test_a_named_group_overrides_star_both_ways(as_bytes):
    parser = scrapy_walsh.RobotParser.from_crawler(None, BODY)
    ua = "WalshBot/2.0 (+https://walsh.example/bot)"

    def allowed(path, agent):
        url = "https://example.com" + path
        return parser.allowed(url.encode() if as_bytes else url, agent.encode() if as_bytes else agent)

    assert allowed("/private/other", ua) and allowed("/private/shared", ua)  # * disallows, ours doesn't
    assert not allowed("/members/a", ua)  # ours disallows, * doesn't
    assert not allowed("/private/other", "OtherBot/1.0") and allowed("/members/a", "OtherBot/1.0")
    assert allowed("/robots.txt", ua)


def test_crawl_delay_is_the_selected_groups():
    parser = scrapy_walsh.RobotParser.from_crawler(None, BODY)
    assert parser.crawl_delay("WalshBot/2.0") == 7.5
    assert parser.crawl_delay(b"OtherBot") == 1.0


def test_a_body_that_is_not_robots_txt_allows_everything_and_never_raises():
    for body in (b"", b"<html>oops</html>", b"\xff\xfe\x00garbage", b"User-agent: *\nDisallow: /\n" * 3):
        parser = scrapy_walsh.RobotParser.from_crawler(None, body)
        parser.allowed("https://example.com/x", "WalshBot")
