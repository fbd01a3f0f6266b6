User-Agent: *
Disallow: /add_guild
Disallow: /register
Disallow: /profile
Disallow: /login
Disallow: /terms
Disallow: /privacy
Disallow: /counter
Allow: /

User-Agent: Mediapartners-Google*
Disallow:
