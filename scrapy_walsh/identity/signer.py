"""Web Bot Auth on the wire: the request checkpoint signs every request with this, last.

:mod:`scrapy_walsh.identity.webbotauth` is the pure part (the signature base, keys, the directory);
this adapter holds the crawl's key, read once at start (the audit has already refused a
key it cannot read), and writes the three headers onto a Scrapy request. It runs at the
checkpoint, after the User-Agent is final and every gate has admitted the request, so
robots.txt, the blocklist, llms.txt and every target are signed alike, whatever set
their headers before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy_walsh.context import CrawlContext
from scrapy_walsh.identity import webbotauth

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from scrapy import Request
    from scrapy.crawler import Crawler


class RequestSigner:
    def __init__(self, key: Ed25519PrivateKey, agent: str, form: str = webbotauth.STRING):
        self.key = key
        self.agent = agent
        self.form = form
        #: The key's JWK thumbprint, the ``keyid`` every signature names.
        self.keyid = webbotauth.keyid(key)

    def sign(self, request: Request) -> None:
        """Replace any Signature, Signature-Input or Signature-Agent header with ours."""
        for name in ("Signature", "Signature-Input", "Signature-Agent"):
            request.headers.pop(name, None)
        signed = webbotauth.sign_request(self.key, request.method, request.url, {}, self.agent, form=self.form)
        for name, value in signed.as_dict().items():
            request.headers[name] = value


def load_signer(crawler: Crawler) -> RequestSigner | None:
    """Read the crawl's key: its one signer is ``CrawlContext.of(crawler).get(load_signer)``,
    None when ``WALSH_SIGNING_KEY`` is not set."""
    config = CrawlContext.of(crawler).config
    if config.signing_key and config.signature_agent:
        key = webbotauth.load_private_key(config.signing_key)
        return RequestSigner(key, config.signature_agent, config.signature_agent_form)
    return None
