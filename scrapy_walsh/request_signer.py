"""Web Bot Auth on the wire: the request checkpoint signs every request with this, last.

:mod:`scrapy_walsh.webbotauth` is the pure part (the signature base, keys, the directory);
this adapter holds the crawl's key, read once at start (the audit has already refused a
key it cannot read), and writes the three headers onto a Scrapy request. It runs at the
checkpoint, after the User-Agent is final and every gate has admitted the request, so
robots.txt, the blocklist, llms.txt and every target are signed alike, whatever set
their headers before.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from . import webbotauth
from .config import config_for

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from scrapy import Request
    from scrapy.crawler import Crawler


class RequestSigner:
    def __init__(self, key: Ed25519PrivateKey, agent: str):
        self.key = key
        self.agent = agent
        #: The key's JWK thumbprint, the ``keyid`` every signature names.
        self.keyid = webbotauth.keyid(key)

    def sign(self, request: Request) -> None:
        """Replace any Signature, Signature-Input or Signature-Agent header with ours."""
        for name in ("Signature", "Signature-Input", "Signature-Agent"):
            request.headers.pop(name, None)
        signed = webbotauth.sign_request(self.key, request.method, request.url, {}, self.agent)
        for name, value in signed.as_dict().items():
            request.headers[name] = value


_SIGNERS: weakref.WeakKeyDictionary[Crawler, RequestSigner | None] = weakref.WeakKeyDictionary()


def signer_for(crawler: Crawler) -> RequestSigner | None:
    """The crawl's signer, or None when ``WALSH_SIGNING_KEY`` is not set."""
    if crawler not in _SIGNERS:
        config = config_for(crawler)
        signer = None
        if config.signing_key and config.signature_agent:
            signer = RequestSigner(webbotauth.load_private_key(config.signing_key), config.signature_agent)
        _SIGNERS[crawler] = signer
    return _SIGNERS[crawler]
