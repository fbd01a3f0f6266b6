"""``scrapy_walsh.RobotParser``: RFC 9309 robots.txt for any Scrapy project.

A drop-in for Scrapy's ``ROBOTSTXT_PARSER`` (``ROBOTSTXT_PARSER = "scrapy_walsh.RobotParser"``)
running the add-on's engine (:class:`scrapy_walsh.policy.robots.RobotsTxt`): group selection by
product token (§2.2.1), then the longest match, Allow on a tie (§2.2.2). The User-Agent Scrapy
passes is reduced to its product token (:func:`~scrapy_walsh.policy.robots.product_token`).
docs/robotstxt-any-project.md says what changes from Scrapy's parsers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy.robotstxt import RobotParser as ScrapyRobotParser

from scrapy_walsh.policy.robots import RobotsTxt, product_token

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from typing_extensions import Self

__all__ = ("RobotParser",)


def _text(value: str | bytes) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


class RobotParser(ScrapyRobotParser):
    """One parsed robots.txt, queried with Scrapy's ``allowed`` and ``crawl_delay``."""

    def __init__(self, robots: RobotsTxt) -> None:
        #: The parsed file, the same object the add-on's robots gate queries.
        self.robots = robots
        self._tokens: dict[str | bytes, str] = {}

    @classmethod
    def from_crawler(cls, crawler: Crawler | None, robotstxt_body: bytes) -> Self:
        return cls(RobotsTxt.parse(robotstxt_body))

    def _token(self, user_agent: str | bytes) -> str:
        token = self._tokens.get(user_agent)
        if token is None:
            token = self._tokens[user_agent] = product_token(_text(user_agent))
        return token

    def allowed(self, url: str | bytes, user_agent: str | bytes) -> bool:
        return self.robots.allowed(_text(url), self._token(user_agent))

    def crawl_delay(self, user_agent: str | bytes) -> float | None:
        """The selected group's Crawl-delay (the largest when groups merge), in seconds."""
        return self.robots.crawl_delay(self._token(user_agent))
