Sitemap: https://www.kiplinger.com/sitemap-index.xml

User-agent: *
Disallow: /printstory.php?pid=*
Disallow: /printslideshow.php?pid=*
Disallow: /article/business/T049-C000-S001-tips-for-effective-content-marketing.html
Disallow: /*?slide=
Disallow: /*&slide=
Disallow: /members/
