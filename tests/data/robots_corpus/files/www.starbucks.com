#A guy walks into Starbucks and orders a Double Ristretto Venti Half-Soy Nonfat Decaf Organic Chocolate Brownie Iced Vanilla Double-Shot Gingerbread Frappuccino Extra Hot With Foam Whipped Cream Upside Down Double Blended, One Sweet'N Low and One Nutrasweet, and Ice.

User-agent: *

Sitemap: http://www.starbucks.com/sitemap/NavigationSitemap.ashx
Sitemap: http://www.starbucks.com/sitemap/VideoSitemap.ashx
Sitemap: http://www.starbucks.com/sitemap/BlogSitemap.ashx