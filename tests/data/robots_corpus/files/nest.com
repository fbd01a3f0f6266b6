User-agent: *
Disallow: */-apps/
Disallow: */-fail-whale/
Disallow: */-utilites/
Disallow: */learn-more/
Disallow: */legal/compliance/
Disallow: */widget/utility/
Disallow: */fonts/


Disallow: */harming-humans/
Disallow: */ignoring-human-orders/
Disallow: */harm-to-self/

User-agent: *
allow: /
Sitemap: https://nest.com/sitemap.xml

# Realm nest.com