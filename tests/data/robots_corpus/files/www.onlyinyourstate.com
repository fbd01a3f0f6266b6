User-agent: *
Disallow: /6117/
Disallow: /newsletter/
Disallow: /places/
Disallow: /tag/
Disallow: /wp-admin/ 
Disallow: /wp-json/
Disallow: /plugins/feedback.php
Disallow: /?s=*

Crawl-delay: 2

Sitemap: https://www.onlyinyourstate.com/sitemap_index.xml