# robots.txt generated for www.samsclub.com
User-agent: *
Allow: /ads.txt
Allow: /sams/account/signin/createSession.jsp
Disallow: /cgi-bin/
Disallow: /sams/checkout/
Disallow: /sams/account/
Disallow: /sams/cart/
Disallow: /sams/search/
Disallow: /sams/eValues/clubInsiderOffers.jsp
Disallow: /friend
Allow: /sams/account/referal/
Sitemap: https://www.samsclub.com/sitemap.xml
