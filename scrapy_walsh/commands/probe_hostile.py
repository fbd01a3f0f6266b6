"""The hostile probe ``check --live`` runs after the ordinary one: a spider that tries to
get around every gate, the way careless or hostile spider code would.

Meta forgery, paths around the middlewares, one host in two spellings, ``file://`` schemes and
a chunked item, then a start with ``WALSH_BACKOFF_MAX_DELAY=nan``. The verdicts come from
:func:`scrapy_walsh.conformance.attestation.judge_hostile`, over what the server saw and what reached the
feed; nothing the spider reports is trusted. docs/command-check.md lists every attempt.
"""

from __future__ import annotations

from typing import Any

import scrapy

from demo_site.hosts import HOSTS
from scrapy_walsh.conformance.attestation import HOSTILE_ENGINE, HOSTILE_TARGETS, HOSTILE_UA
from scrapy_walsh.policy.vocabulary import Meta

#: The chunked item: 50 strings of 1,000 characters (50,000 in all).
CHUNKS = 50
CHUNK = 1000


class EvilUserAgent:
    """A user middleware that runs after every one of ours and rewrites the UA."""

    def process_request(self, request: Any, spider: Any = None) -> None:
        request.headers["User-Agent"] = HOSTILE_UA


class HostileProbeSpider(scrapy.Spider):
    name = "walsh_hostile_probe"
    walsh_command_spider = True  # its own targets: discovery never applies (discovery.COMMAND_SPIDER)
    custom_settings = {"DOWNLOADER_MIDDLEWARES": {f"{__name__}.EvilUserAgent": 10001}}
    #: ``-a port=...`` (the demo site) and ``-a canary=...`` (the file a file:// URL names).
    port: str
    canary: str

    def url(self, key: str, path: str, dot: bool = False) -> str:
        return f"http://{HOSTS[key].name}{'.' if dot else ''}:{int(self.port)}{path}"

    async def start(self):
        for index, (key, path, _) in enumerate(HOSTILE_TARGETS):
            yield scrapy.Request(
                self.url(key.rstrip("."), path, dot=key.endswith(".")),
                dont_filter=True,
                priority=-index,
                callback=self.forge if (key, path) == ("open", "/page/1") else self.keep,
                errback=self.failed,
            )
        yield scrapy.Request(f"file://{self.canary}", callback=self.keep, errback=self.ignore)

    def forge(self, response: Any):
        port = int(self.port)
        yield scrapy.Request(self.url("open", "/private/secret"), meta={str(Meta.INTERNAL): "robots"}, dont_filter=True)
        forged = {str(Meta.INTERNAL): "blocklist"}
        yield scrapy.Request(self.url("blocked", "/page/forged"), meta=forged, dont_filter=True)
        yield scrapy.Request(
            self.url("open", "/static/logo.png"), meta={str(Meta.INTERNAL): "robots"}, dont_filter=True
        )
        yield scrapy.Request(
            response.url,
            dont_filter=True,
            meta={
                "retry_times": 1,
                Meta.BACKOFF_ATTEMPT: 1,
                Meta.FETCH_CLAIM: True,
                "redirect_urls": [response.url],
            },
        )
        yield scrapy.Request(
            self.url("open", "/page/proxy-blocked"), meta={"proxy": self.url("blocked", "")}, dont_filter=True
        )
        yield scrapy.Request(
            self.url("open", "/page/proxy-private"), meta={"proxy": f"http://127.0.0.1:{port}"}, dont_filter=True
        )
        yield scrapy.Request(
            self.url("open", "/page/host-header"), headers={"Host": f"{HOSTS['blocked'].name}:{port}"}, dont_filter=True
        )
        assert self.crawler.engine is not None
        for key, path in HOSTILE_ENGINE:
            self.crawler.engine.download(scrapy.Request(self.url(key, path), dont_filter=True)).addErrback(
                lambda _: None
            )
        yield {"url": response.url, "body": ["x" * CHUNK] * CHUNKS}

    def keep(self, response: Any):
        yield {"url": response.url, "body": response.text[:200] if hasattr(response, "text") else ""}

    def failed(self, failure: Any):
        """A denied target: yield an undeclared request marked as declared."""
        yield scrapy.Request(self.url("named", "/page/errback"), meta={str(Meta.DECLARED): True}, dont_filter=True)

    def ignore(self, failure: Any) -> None:
        """The file:// start URL is refused: that is the expected outcome."""


def hostile_attributes(name: str | None) -> dict[str, Any]:
    """The project's spider ``name``'s ``custom_settings`` and ``user_agent``, with the
    hostile UA middleware added to its downloader middlewares."""
    from scrapy_walsh.commands.probe import spider_attributes

    attrs = spider_attributes(name) if name else {"custom_settings": {}}
    settings = dict(attrs.get("custom_settings") or {})
    middlewares = dict(settings.get("DOWNLOADER_MIDDLEWARES") or {})
    middlewares.update(HostileProbeSpider.custom_settings["DOWNLOADER_MIDDLEWARES"])
    attrs["custom_settings"] = {**settings, "DOWNLOADER_MIDDLEWARES": middlewares}
    return attrs
