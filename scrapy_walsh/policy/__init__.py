"""The pure policy core: every decision of the add-on, with no Scrapy, Twisted or I/O.

robots.txt (RFC 9309), the operator blocklist, private addresses, verdicts, pacing and
backoff arithmetic, scope, canonical URLs, llms.txt, markdown, sitemaps and usage
signals. The adapters around it (middlewares, the queue, pipelines, commands) do the
I/O and call these functions for every decision, so the crawl and ``scrapy walsh
explain`` cannot disagree. ``tests/unit/test_layering.py`` keeps the boundary: each
module here imports in a fresh interpreter without ``scrapy`` or ``twisted``.
"""
