User-agent: *
Disallow: /AjaxOrderItemDisplayView
Disallow: /RESTOrderCalculate
Disallow: /CategoryDisplay
Disallow: /ProductDisplay
Disallow: /SearchDisplay
Disallow: /AjaxRESTOrderItemAdd
Disallow: /MiniShopCartDisplayView
Disallow: /SearchComponentCachedSuggestionsView
Disallow: /SearchComponentAutoSuggestView

Sitemap: https://www.pokemoncenter.com/sitemap.xml.gz