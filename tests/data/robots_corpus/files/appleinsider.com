User-agent: *
Disallow: /addineyeV2.html
Disallow: /DARTIframe.html
Disallow: /auctions

User-agent: Mozilla/5.0 (compatible;contxbot/1.0)
Disallow: 

User-agent: Googlebot
Disallow: /external/mobile
Disallow: /mobile

Sitemap: https://appleinsider.com/sitemap.xml