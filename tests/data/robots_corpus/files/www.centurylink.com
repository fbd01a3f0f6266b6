


#ENTIRE CENTURYLINK.COM

User-agent: AdsBot-Google
Allow: /


#CENTURYLINK RESIDENTIAL


#CENTURYLINK BUSINESS


#CENTURYLINK SMALL BUSINESS


#Sitemap
Sitemap: https://www.centurylink.com/sitemap_index.xml