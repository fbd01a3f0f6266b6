"""R6's seal on a declared request, and its cost: every request is sealed and checked once, so the
seal is one call into OpenSSL, no ``hmac.HMAC`` object built per request (counted, not timed)."""

from __future__ import annotations

import hashlib
import hmac

from scrapy import Request
from scrapy.utils.test import get_crawler

from scrapy_walsh import Addon
from scrapy_walsh.context import CrawlContext
from scrapy_walsh.policy.vocabulary import Meta
from scrapy_walsh.sending import admission


def test_a_seal_is_the_hmac_of_the_url_under_the_identity_secret_without_an_hmac_object(tmp_path, monkeypatch):
    crawler = get_crawler(settings_dict={"ADDONS": {Addon: 500}, "WALSH_STATE_URI": f"sqlite:///{tmp_path}/s.sqlite3"})
    key = CrawlContext.of(crawler).get(admission.sealing_key)
    built = []
    real = hmac.HMAC.__init__
    monkeypatch.setattr(hmac.HMAC, "__init__", lambda self, *a, **k: built.append(a) or real(self, *a, **k))
    request = admission.declare(crawler, Request("https://example.com/a"))
    assert admission.declared(crawler, request)
    expected = hmac.new(key, b"declared\nhttps://example.com/a", hashlib.sha256).hexdigest()
    assert built == [(key, b"declared\nhttps://example.com/a", hashlib.sha256)]  # the reference above only
    assert request.meta[Meta.DECLARED] == expected
    assert not admission.declared(crawler, request.replace(url="https://example.com/b"))
