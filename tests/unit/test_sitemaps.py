"""Sitemaps as discovery: entries as data, within sitemaps.org's limits (pure reading)."""

import gzip

from scrapy_walsh.policy.sitemaps import MAX_BYTES, MAX_URLS, read_sitemap
from scrapy_walsh.policy.vocabulary import SITEMAP_OVER_SIZE_LIMIT, SITEMAP_UNREADABLE

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def urlset(n, lastmod=True):
    urls = "".join(
        f"<url><loc>https://s.example/p/{i}</loc>"
        + (f"<lastmod>2026-11-0{i % 9 + 1}</lastmod>" if lastmod else "")
        + "</url>"
        for i in range(n)
    )
    return f'<?xml version="1.0"?><urlset {NS}>{urls}</urlset>'.encode()


def test_urlset_and_gzip():
    reading = read_sitemap(urlset(3))
    assert reading.kind == "urlset" and not reading.truncated and reading.verdict is None
    assert reading.entries == [{"loc": f"https://s.example/p/{i}", "lastmod": f"2026-11-0{i + 1}"} for i in range(3)]
    assert read_sitemap(gzip.compress(urlset(3))).entries == reading.entries
    assert read_sitemap(urlset(1, lastmod=False)).entries == [{"loc": "https://s.example/p/0", "lastmod": None}]


def test_index_is_read_not_followed():
    body = (
        f"<sitemapindex {NS}><sitemap><loc>https://s.example/a.xml</loc></sitemap>"
        f"<sitemap><loc>https://s.example/b.xml.gz</loc><lastmod>2026-01-01</lastmod></sitemap></sitemapindex>"
    )
    reading = read_sitemap(body.encode())
    assert reading.kind == "sitemapindex"
    assert [e["loc"] for e in reading.entries] == ["https://s.example/a.xml", "https://s.example/b.xml.gz"]


def test_url_limit_is_50000():
    assert MAX_URLS == 50_000
    exact = read_sitemap(urlset(MAX_URLS, lastmod=False))
    assert len(exact.entries) == MAX_URLS and not exact.truncated
    over = read_sitemap(urlset(MAX_URLS + 1, lastmod=False))
    assert len(over.entries) == MAX_URLS and over.truncated


def test_size_limit_is_50_mb_uncompressed():
    assert MAX_BYTES == 52_428_800
    pad = b"<!--" + b" " * (MAX_BYTES + 1) + b"-->"
    bomb = gzip.compress(urlset(1)[: -len("</urlset>")] + pad + b"</urlset>", compresslevel=9)
    assert len(bomb) < 200_000
    reading = read_sitemap(bomb)
    assert reading.verdict == SITEMAP_OVER_SIZE_LIMIT and not reading.entries
    assert read_sitemap(b"x" * 11, max_bytes=10).verdict == SITEMAP_OVER_SIZE_LIMIT


def test_unreadable_and_skipped():
    for body in (b"", b"not xml", b"<html><body>x</body></html>", b"\x1f\x8bnot gzip"):
        assert read_sitemap(body).verdict == SITEMAP_UNREADABLE, body
    body = (
        f"<urlset {NS}><url><loc>javascript:x</loc></url><url><loc>https://s.example/ok</loc></url>"
        f"<url><loc>https://s.example/{'y' * 3000}</loc></url></urlset>"
    )
    reading = read_sitemap(body.encode())
    assert [e["loc"] for e in reading.entries] == ["https://s.example/ok"] and reading.skipped == 2


def test_entities_are_not_resolved():
    body = (
        b'<?xml version="1.0"?><!DOCTYPE u [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
        b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://s.example/&x;</loc></url></urlset>'
    )
    assert "root:" not in str(read_sitemap(body).entries)
