"""The probe spider ``check --live`` crawls with: declared targets that cover each MUST.

It is written to misbehave where the contract forbids it: it declares a sub-resource,
and from every page it gets it yields a request for each link, image, stylesheet and
script. A conformant configuration drops all of those; the server's log shows whether
it did. With ``check --live SPIDER``, a subclass carries that spider's ``custom_settings``
and ``user_agent`` so the crawl runs under the same effective settings.
"""

from __future__ import annotations

from typing import Any

import scrapy

from demo_site.hosts import HOSTS
from scrapy_walsh.conformance.attestation import PROBE_TARGETS

ASSETS = "a::attr(href), img::attr(src), link::attr(href), script::attr(src)"


class ProbeSpider(scrapy.Spider):
    name = "walsh_probe"
    walsh_command_spider = True  # its own targets: discovery never applies (discovery.COMMAND_SPIDER)

    async def start(self):
        port = int(self.port)
        for index, (key, path, _) in enumerate(PROBE_TARGETS):
            # earlier targets first within a host (Scrapy's queues are LIFO among equals)
            yield scrapy.Request(
                f"http://{HOSTS[key].name}:{port}{path}", dont_filter=True, priority=-index, errback=self.failed
            )

    def parse(self, response: Any):
        if b"html" not in response.headers.get(b"Content-Type", b""):
            return
        for href in response.css(ASSETS).getall():
            yield response.follow(href, callback=self.followed)

    def followed(self, response: Any) -> None:
        """A followed link or sub-resource arrived: the server log has already said so."""

    def failed(self, failure: Any) -> None:
        """Denials are expected; the verdict is read from the server, not from here."""


def spider_attributes(name: str) -> dict[str, Any]:
    """``custom_settings`` and ``user_agent`` of the project's spider ``name``."""
    from scrapy.spiderloader import get_spider_loader
    from scrapy.utils.project import get_project_settings

    spidercls = get_spider_loader(get_project_settings()).load(name)
    attrs: dict[str, Any] = {"custom_settings": dict(spidercls.custom_settings or {})}
    user_agent = getattr(spidercls, "user_agent", None)
    if user_agent:
        attrs["user_agent"] = user_agent
    return attrs
