User-agent: *
Disallow: /4624/TheAtlanticOnline/*
Disallow: /magazine/archive/2010/11/letters-to-the-editor/308258/
Disallow: /magazine/archive/2010/11/letters-to-the-editor/308258/*
Disallow: /ab/*
Disallow: /video/embed/
Disallow: /video/iframe/*
Disallow: /search/?*q=*
Crawl-delay: 1
Allow: /

Sitemap: https://www.theatlantic.com/sitemaps/sitemap.xml
