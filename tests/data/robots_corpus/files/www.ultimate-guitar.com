User-Agent: Bingbot
Disallow: /search.php
Disallow: /search.php%7Csearch.php3

User-Agent: msnbot
Disallow: /search.php
Disallow: /search.php%7Csearch.php3

User-agent: Clickagy Intelligence Bot v2
Disallow: /search.php
Disallow: /search.php%7Csearch.php3

User-agent: Applebot
Crawl-delay: 1

User-agent: *
Disallow: /forum/showthread.php?p=
Disallow: /forum/showpost.php
Disallow: /guitar/
Disallow: /tabmanager/
Disallow: /follow_me.php
Disallow: /goto.php
Disallow: /show.php
Disallow: /show
Disallow: /analytics/tracker/
Disallow: /updates/?filter=
Disallow: /contribution/
Disallow: /tabs/*.htm?sort=date
Disallow: /vote0.php
Disallow: /*?no_takeover
Disallow: /forum/showthread.php?t=*&goto=*
Disallow: /forum/archive/index.php?t-*.html

Sitemap: https://www.ultimate-guitar.com/sitemap.xml
