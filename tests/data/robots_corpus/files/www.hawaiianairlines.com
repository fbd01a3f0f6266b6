User-agent: *
Disallow:
Sitemap: sitemap-tw.xml
Sitemap: sitemap-cargo.xml
Sitemap: sitemap-ch.xml
Sitemap: sitemap-kr.xml
Sitemap: sitemap-nz.xml
Sitemap: sitemap-en.xml
Sitemap: sitemap-au.xml
Sitemap: sitemap-ja.xml
