User-agent: *

Disallow: /_layouts/
Disallow: /_catalogs/
Disallow: /_cts/
Disallow: /_private/
Disallow: /Lists/
Disallow: /m/
Disallow: /ReusableContent/
Disallow: /WorkflowTasks/
Disallow: /SiteCollectionDocuments/
Disallow: /SiteCollectionImages/
Disallow: /SiteAssets/
Disallow: /Documents/Forms/
Disallow: /Pages/Forms/
Disallow: /Search/
Host: fa.ru
Sitemap: http://www.fa.ru/Pages/SiteMap.aspx


