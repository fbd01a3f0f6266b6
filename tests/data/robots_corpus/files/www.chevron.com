sitemap: http://www.chevron.com/www-sitemap.xml

User-agent: facebookexternalhit
Disallow:
User-agent: Facebot
Disallow:  
User-agent: Twitterbot
Disallow:
User-agent: LinkedInBot
Disallow:

User-agent: *
Disallow: /Akamai
Disallow: /App_Browsers
Disallow: /App_Config
Disallow: /App_Data
Disallow: /Areas
Disallow: /bin
Disallow: /Content
Disallow: /Error
Disallow: /f5monitor
Disallow: /layouts
Disallow: /sitecore
Disallow: /sitecore modules
Disallow: /sitecore_files
Disallow: /temp
Disallow: /upload
Disallow: /Views
Disallow: /xsl
#
# End of robots.txt