User-agent: *

Disallow: /cart.php
Disallow: /cart.php?action=view
Disallow: /checkout.php
Disallow: /checkout.php?reg
Disallow: /account.php?pass
Disallow: /account.php?reg
Disallow: /account.html
Disallow: /free.php
Disallow: /author/
Disallow: /favorite/
#Disallow: *?

Host: www.smiletemplates.com
Sitemap: https://www.smiletemplates.com/sitemap.xml