#
# robots.txt
#
# This file is to prevent the crawling and indexing of certain parts
# of your site by web crawlers and spiders run by sites like Yahoo!
# and Google. By telling these "robots" where not to go on your site,
# you save bandwidth and server resources.
#
# This file will be ignored unless it is at the root of your host:
# Used:    http://example.com/robots.txt
# Ignored: http://example.com/site/robots.txt
#
# For more information about the robots.txt standard, see:
# http://www.robotstxt.org/wc/robots.html
#
# For syntax checking, see:
# http://www.sxw.org.uk/computing/robots/check.html

# Sitemaps
Sitemap: https://www.realsimple.com/sitemap-index.xml
Sitemap: https://www.realsimple.com/shop/sitemap.xml

User-agent: *
Crawl-delay: .5
# CMS FE
Disallow: /includes/
Disallow: /misc/
Disallow: /modules/
Disallow: /profiles/
Disallow: /scripts/
Disallow: /themes/
Disallow: /CHANGELOG.txt
Disallow: /cron.php
Disallow: /INSTALL.mysql.txt
Disallow: /INSTALL.pgsql.txt
Disallow: /INSTALL.sqlite.txt
Disallow: /install.php
Disallow: /INSTALL.txt
Disallow: /LICENSE.txt
Disallow: /MAINTAINERS.txt
Disallow: /update.php
Disallow: /UPGRADE.txt
Disallow: /xmlrpc.php
Disallow: /admin/
Disallow: /comment/reply/
Disallow: /cozi/
Disallow: /filter/tips/
Disallow: /user/register/
Disallow: /user/password/
Disallow: /user/login/
Disallow: /user/logout/
Disallow: /taxonomy/
Disallow: /category/
Disallow: /?q=admin/
Disallow: /?q=comment/reply/
Disallow: /?q=cozi/
Disallow: /?q=filter/tips/
Disallow: /?q=node/add/
Disallow: /?q=search/
Disallow: /?q=user/password/
Disallow: /?q=user/register/
Disallow: /?q=user/login/
Disallow: /?q=user/logout/
Disallow: /node*
Disallow: /sitemap/node/
Disallow: /?q=taxonomy/
Disallow: /?q=category/
#Content
Disallow: /shop/go.html*
Disallow: /shop/*?ins
Disallow: /shop/filter-selection/
Disallow: /search*
Disallow: /shop/*?s=


User-agent: GoogleBot
# CMS FE
Disallow: /includes/
Disallow: /misc/
Disallow: /modules/
Disallow: /profiles/
Disallow: /scripts/
Disallow: /themes/
Disallow: /CHANGELOG.txt
Disallow: /cron.php
Disallow: /INSTALL.mysql.txt
Disallow: /INSTALL.pgsql.txt
Disallow: /INSTALL.sqlite.txt
Disallow: /install.php
Disallow: /INSTALL.txt
Disallow: /LICENSE.txt
Disallow: /MAINTAINERS.txt
Disallow: /update.php
Disallow: /UPGRADE.txt
Disallow: /xmlrpc.php
Disallow: /admin/
Disallow: /comment/reply/
Disallow: /cozi/
Disallow: /filter/tips/
Disallow: /user/register/
Disallow: /user/password/
Disallow: /user/login/
Disallow: /user/logout/
Disallow: /taxonomy/
Disallow: /category/
Disallow: /?q=admin/
Disallow: /?q=comment/reply/
Disallow: /?q=cozi/
Disallow: /?q=filter/tips/
Disallow: /?q=node/add/
Disallow: /?q=search/
Disallow: /?q=user/password/
Disallow: /?q=user/register/
Disallow: /?q=user/login/
Disallow: /?q=user/logout/
Disallow: /node*
Disallow: /sitemap/node/
Disallow: /?q=taxonomy/
Disallow: /?q=category/

#Content
Disallow: /shop/go.html*
Disallow: /shop/*?ins
Disallow: /shop/filter-selection/
Disallow: /shop/*?s=
Disallow: /search*
Disallow: /syndication/

User-agent: AdsBot-Google
Allow: /shop/*?s=
