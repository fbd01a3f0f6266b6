User-agent: *
Allow: /api/v1/sitemapxml/*
Disallow: /tools/
Disallow: /api/
Disallow: /8264/
Disallow: /search.html
Disallow: /*-pictures.html$
Allow: /*-lyrics-*-pictures.html$

User-agent: ccbot
Disallow: /

User-Agent: msnbot
Crawl-delay: 2

User-Agent: bingbot
Crawl-delay: 2

User-Agent: Yandex
Crawl-delay: 2
