Sitemap: https://abc7news.com/sitemap.xml
Sitemap: https://abc7news.com/sitemap/news.xml
Sitemap: https://abc7news.com/sitemap/web.xml
Sitemap: https://abc7news.com/sitemap/video.xml

User-agent: *
Disallow: /common/
Disallow: /external/
Disallow: /extras/reporttypo/
Disallow: /thirdparty/
Disallow: /users/
