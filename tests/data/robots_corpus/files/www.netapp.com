User-agent: *

Sitemap: http://www.netapp.com/cn/system/sitemap.xml
Sitemap: http://www.netapp.com/de/system/sitemap.xml
Sitemap: http://www.netapp.com/es/system/sitemap.xml
Sitemap: http://www.netapp.com/fr/system/sitemap.xml
Sitemap: http://www.netapp.com/jp/system/sitemap.xml
Sitemap: http://www.netapp.com/us/system/sitemap.xml

Sitemap: http://www.netapp.com.sg/system/sitemap.xml
Sitemap: http://www.netapp.com.au/system/sitemap.xml
Sitemap: http://www.netapp.com.br/system/sitemap.xml
Sitemap: http://www.netapp.ca/system/sitemap.xml
Sitemap: http://www.netapp.ch/system/sitemap.xml
Sitemap: http://www.netapp.co.il/system/sitemap.xml
Sitemap: http://www.netapp.in/system/sitemap.xml
Sitemap: http://www.netapp.it/system/sitemap.xml
Sitemap: http://www.netapp.co.kr/system/sitemap.xml
Sitemap: http://www.netapp.mx/system/sitemap.xml
Sitemap: http://www.netapp.nl/system/sitemap.xml
Sitemap: http://www.netapp.ru/system/sitemap.xml
Sitemap: http://www.netapp.se/system/sitemap.xml
Sitemap: http://www.netapp.co.uk/system/sitemap.xml
Sitemap: http://www.netapp.com.tw/system/sitemap.xml

Disallow: /cn/media/
Disallow: /de/media/
Disallow: /es/media/
Disallow: /fr/media/
Disallow: /jp/media/

Disallow: /cn/search/
Disallow: /de/search/
Disallow: /es/search/
Disallow: /fr/search/
Disallow: /jp/search/
Disallow: /us/search/

Disallow: /api/
Disallow: /us/v2/
Disallow: /us/v1/
Disallow: /secure_document_area/
Disallow: /products/
Disallow: /solutions/


#From NS 3-6-2019