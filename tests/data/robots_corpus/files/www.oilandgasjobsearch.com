User-agent: SemrushBot
Disallow: / 

User-agent: Semrushbot-SA
Disallow: /

User-agent: Semrushbot-SI
Disallow: /

User-agent: GarlikCrawler
Disallow: /

User-agent: *
Disallow: /cgi-bin/
Disallow: /Candidate/UnsubscribeJobAlerts/
Disallow: /Details/
Disallow: /details/
Disallow: /Banner/
Disallow: /banner/
Disallow: /candidatesearch/
Disallow: /CandidateSearch/
Disallow: /LogOnOrSignUp
Disallow: /logonorsignUp
Disallow: /rss/
Disallow: /Rss/
Disallow: /vacancy/
Disallow: /Vacancy/
Disallow: /news/
Disallow: /News/
Disallow: /link/
Disallow: /Link/
Disallow: /job-directory/
Disallow: /Job-Directory/
Disallow: /Error/
Disallow: /error/
