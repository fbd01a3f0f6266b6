"""``check``'s routes advice: a URL pattern per callback from the URLs a site's sitemap lists (pure)."""

from __future__ import annotations

import re

from scrapy_walsh.policy.route_patterns import callback_words, guess, suggest

BLOG = ["/post/1.html", "/post/2.html", "/post/12.html", "/images/cover.png", "/page/2.html", "/about.html", "/"]
RECIPES = [
    "/recipes/pasta-carbonara",
    "/recipes/pad-thai",
    "/recipes/",
    "/categories/italian/",
    "/categories/thai/",
    "/chef/anna",
]


def urls(paths):
    return [f"https://site.example{p}" for p in paths]


def test_a_callback_gets_the_pattern_of_the_urls_its_name_points_at():
    found = suggest(["parse_post"], urls(BLOG))
    assert found == {"parse_post": r"/post/\d+\.html$"}
    named = [u for u in urls(BLOG) if re.search(found["parse_post"], u)]
    assert named == urls(BLOG[:3]), "the posts, and nothing else the sitemap lists"


def test_plural_segments_any_slug_and_one_url():
    found = suggest(["parse_recipe", "parse_category", "parse_chef", "parse_author"], urls(RECIPES))
    assert found == {
        "parse_recipe": "/recipes/[^/]+$",
        "parse_category": "/categories/[^/]+/$",
        "parse_chef": "/chef/[^/]+$",
        "parse_author": None,
    }


def test_names_and_guesses():
    assert callback_words("parse_recipe_page") == ["recipe"]
    assert callback_words("parse_page") == ["page"], "a filler word is kept when it is all the name says"
    assert callback_words("parseProductDetails") == ["product"]
    assert guess("parse_post") == "/posts?/" and guess("parse") == "/"
    assert suggest(["parse"], urls(BLOG)) == {"parse": None}
