User-agent: *
Disallow: /*.rss

Disallow: /accounts/*/rewards
Disallow: /accounts/*/card_album
Disallow: /accounts/*/card_album/*
Disallow: /accounts/*/badges
Disallow: /accounts/*/fans
Disallow: /accounts/*/friends
Disallow: /accounts/*/favorites
Disallow: /accounts/*/messages
Disallow: /accounts/*/comments
Disallow: /accounts/*/badges_pod
Disallow: /accounts/*/favorites_pod
Disallow: /accounts/*/connections_pod
Disallow: /accounts/*/awards
Disallow: /accounts/*/destroy_feed_items
Disallow: /accounts/*/more_feed_items
Disallow: /my_cards
Disallow: /users/*/posts
Disallow: /users/*/posts.rss

Disallow: /forums/*/topics/*/posts/*/flagging/*

Disallow: /games/*room_id
Disallow: /games/*/*/flags
Disallow: /games/*/*/flashframe

Disallow: /collabs/*rating
Disallow: /collabs/*slideshow
Disallow: /collabs/art/*/*/comments/*/flaggings
Disallow: /collabs/sounds/*/*/comments/*/flaggings

Allow: /
