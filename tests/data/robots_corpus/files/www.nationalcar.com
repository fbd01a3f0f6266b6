
User-Agent: * 
Disallow: /content
Disallow: /en/reserve.html
Disallow: /es/reservar.html
Disallow: /pt/reservar.html
Disallow: /en/profile/
Disallow: /es/perfil/
Disallow: /pt/perfil/
Disallow: /en/errors/
Disallow: /es/errors/
Disallow: /pt/errors/
Disallow: /en/utility/
Disallow: /es/utility/
Disallow: /pt/utility/
Disallow: /en/deeplink.html
Disallow: /es/deeplink.html
Disallow: /pt/deeplink.html
Disallow: /modal/
Sitemap: https://www.nationalcar.com/en/sitemap.xml
Sitemap: https://www.nationalcar.com/es/sitemap.xml
Sitemap: https://www.nationalcar.com/pt/sitemap.xml

