User-agent: *
Disallow: /content/*definitions*
Disallow: /content/customer/help/managing_my_account/manage_account_definitions/*

Disallow: /content/customer/service_requests/request-electrical-work/new-upgrade-service/help-type-of-problem.html
Disallow: /content/dam/customer/files/Non_Life_Limb_3673.1.pdf
Disallow: /content/customer/alerts.html
Disallow: /content/fecorp/corporate/Contact_Centers/vrs.html
Disallow: /content/fecorp/merger-microsite.html

Disallow: /content/customer/log_in/your_account_hasbeendisabled.html
Disallow: /content/customer/log_in/forgot_password/your_password_hasbeenupdated.html
Disallow: /content/customer/session_expired.html
Disallow: /content/customer/alerts/thank_you_registering.html
Disallow: /content/customer/alerts/unsubscribe_alerts.html
Disallow: /content/customer/alerts/unsubscribe_all_alerts.html
Disallow: /content/fecorp/page_not_found.html
Disallow: /content/fecorp/servererror.html

Disallow: /content/fecorp/newsroom/social_media/spring-storms.html
Disallow: /content/fecorp/newsroom/social_media/met-ed-summer-storms.html
Disallow: /content/fecorp/newsroom/social_media/jcp-l-summer-storms.html
Disallow: /content/fecorp/newsroom/social_media/jcpl-severe-storms.html
Disallow: /content/fecorp/newsroom/social_media/met-ed-severe-storms.html
Disallow: /content/fecorp/newsroom/social_media/met-ed-halloween-safety.html
Disallow: /content/fecorp/newsroom/social_media/test-timing.html
Disallow: /content/fecorp/newsroom/social_media/jcpl-winter-storms.html
Disallow: /content/fecorp/newsroom/social_media/jcpl-welcome.html
Disallow: /content/fecorp/newsroom/social_media/penelec-severe-storms.html
Disallow: /content/fecorp/newsroom/social_media/jcpl-halloween.html
Disallow: /content/fecorp/newsroom/social_media/penelec-halloween.html
Disallow: /content/fecorp/newsroom/social_media/careers-psi.html

Disallow: /content/customer/outages_help/current_outages_maps/bpu-outage-alerts.html
