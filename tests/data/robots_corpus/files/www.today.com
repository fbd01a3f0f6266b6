User-agent: *

Disallow: /search*
Disallow: /xml/today/SitemapToday*.xml
Disallow: /ajax*

Sitemap: https://www.today.com/sitemap/today/sitemap-index
Sitemap: https://www.today.com/sitemap/today/sitemap-news
Sitemap: https://www.today.com/specials/sitemap.xml
Sitemap: https://www.today.com/sitemap/today/sitemap-curations
