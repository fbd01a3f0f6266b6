# robots.txt for http://www.fangraphs.com/

User-agent: *
Disallow: /fantasyleaders.aspx
Disallow: /fantasyminorleaders.aspx
Disallow: /thegame/tgleaders.aspx
Disallow: /thttest/
Disallow: /blogstest/
Disallow: /plustest/
Disallow: /blank-page.aspx