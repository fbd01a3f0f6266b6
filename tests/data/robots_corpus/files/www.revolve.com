User-agent: *
Disallow: /WEB-INF/
Disallow: /b/
Disallow: /beta/
Disallow: /productpages/
Disallow: /hgg/
Disallow: /classic/
Disallow: /images/
Disallow: /Unsubscribe.jsp
Disallow: /luckybreaks/
Disallow: /brandinfopages/
Disallow: /beta3/
Disallow: /fwd/Shipping.jsp
Disallow: /fwd/AboutUs.jsp
Disallow: /fwd/CustomerService.jsp
Disallow: /fwd/Guarantee.jsp
Disallow: /fwd/ReturnPolicy.jsp
Disallow: /fwd/FAQ.jsp
Disallow: /fwd/MyAccount.jsp
Disallow: /fwd/LoginOrCreateAccount.jsp
Disallow: /fwd/PrivacyPolicy.jsp
Disallow: /blog/ViewFullPost.jsp
Disallow: /fw/
Disallow: /r/PageTrack.jsp
Disallow: /r/mobile/PageTrack.jsp
Disallow: /edit/
Disallow: /blognew/
Disallow: /images/emailpics/
Disallow: /f/
Disallow: /magazine/
Disallow: /w/

Disallow: /mobile/Checkout.jsp
Disallow: /r/ShoppingBag.jsp

Sitemap: https://www.revolve.com/scripts/rev_sitemap/rev_sitemap_index.xml



