"""R2: robots.txt parse and verdict time, ours (``RobotsTxt``) vs plain Protego.

Matching is ours (``scrapy_walsh.policy.path_match``); Protego, the parser Scrapy ships
with, stays the baseline here and nowhere else.

Run: ``.venv/bin/python bench/robots_bench.py [--quick]``

The inputs are generated here, deterministically, at real-world sizes: a small
site (~1 KB, a few groups), a big news site (~30 KB, dozens of named groups),
and a file at the 500 KiB parse limit (thousands of rules). Each comes with a
few hundred URLs. The baseline is measured in the same run on the same inputs:

* parse: ``RobotsTxt.parse(bytes)`` (decoding included, as a crawler receives
  the body) vs ``Protego.parse(str)`` (already decoded);
* first: parse plus the first verdict, since ours compiles the selected group's
  rules on first use where Protego compiles every group while parsing;
* verdict: ``RobotsTxt.verdict(url, token)`` vs ``Protego.can_fetch(url, token)``
  per URL, once warm.

Aims: parse ratio <= 0.3, verdict ratio <= 1.2 (our own matcher must not cost more than Protego). Figures are printed,
never asserted (bench/README.md). 'disagree' counts the URLs where the two decide
differently: group selection, and the matching choices of docs/robots-matching.md.
"""

from __future__ import annotations

import gc
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from protego import Protego

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scrapy_walsh.policy.robots import MAX_BYTES, RobotsTxt  # noqa: E402

TOKEN = "Walsh-Research"
BOTS = [
    "GPTBot", "ChatGPT-User", "CCBot", "anthropic-ai", "Claude-Web", "Google-Extended", "Bytespider",
    "PerplexityBot", "Amazonbot", "Applebot-Extended", "FacebookBot", "Diffbot", "Omgilibot", "ImagesiftBot",
    "cohere-ai", "YouBot", "AhrefsBot", "SemrushBot", "MJ12bot", "DotBot", "BLEXBot", "PetalBot", "Yandex",
    "Baiduspider", "Sogou", "Exabot", "magpie-crawler", "Mediapartners-Google", "AdsBot-Google", "Googlebot-Image",
    "Googlebot-News", "Bingbot", "Slurp", "DuckDuckBot", "Twitterbot", "LinkedInBot", "Pinterestbot", "ia_archiver",
    "Scrapy", "Nutch",
]  # fmt: skip
SECTIONS = ["news", "world", "politics", "business", "tech", "sport", "culture", "opinion", "video", "live"]


def _word(rnd: random.Random) -> str:
    return "".join(rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rnd.randint(3, 10)))


def _rule(rnd: random.Random) -> str:
    """A Disallow/Allow line of the shapes real files use."""
    section, word = rnd.choice(SECTIONS), _word(rnd)
    shape = rnd.random()
    if shape < 0.45:
        path = f"/{section}/{word}/"
    elif shape < 0.6:
        path = f"/*?{word}="
    elif shape < 0.7:
        path = f"/*/{word}/*.json$"
    elif shape < 0.8:
        path = f"/{section}/*{word}"
    elif shape < 0.9:
        path = f"/{section}/{word}.html$"
    else:
        path = f"/{section}/{word}?page="
    return f"{'Allow' if rnd.random() < 0.2 else 'Disallow'}: {path}"


def small() -> str:
    return """# robots.txt for www.example-shop.test
User-agent: *
Disallow: /cart/
Disallow: /checkout/
Disallow: /account/
Disallow: /search?
Disallow: /*?sort=
Disallow: /*?filter=
Disallow: /*.json$
Allow: /search?q=help
Crawl-delay: 2

User-agent: Googlebot
User-agent: Bingbot
Disallow: /cart/
Disallow: /checkout/
Allow: /

User-agent: GPTBot
User-agent: CCBot
Disallow: /

User-agent: AhrefsBot
Crawl-delay: 10
Disallow: /products/*/reviews
Disallow: /products/*/questions
Disallow: /compare/

User-agent: Yandex
Crawl-delay: 5
Disallow: /cart/
Disallow: /checkout/
Disallow: /account/
Disallow: /*?sessionid=
Clean-param: ref /products/

# Partners
User-agent: Mediapartners-Google
Disallow:

User-agent: Baiduspider
User-agent: Sogou
Disallow: /

Sitemap: https://www.example-shop.test/sitemap.xml
Sitemap: https://www.example-shop.test/sitemap-categories.xml
Sitemap: https://www.example-shop.test/sitemap-products.xml
Sitemap: https://www.example-shop.test/sitemap-blog.xml
"""


def generated(seed: int, target: int, star_rules: int, per_bot: tuple[int, int]) -> str:
    """Named groups for every bot in BOTS (a few rules each), one big ``*`` group, and
    sitemaps, repeated in the same shape until ``target`` bytes (cut at a line)."""
    rnd = random.Random(seed)
    lines = ["# Generated robots.txt", ""]
    while sum(len(x) + 1 for x in lines) < target:
        for bot in BOTS:
            lines.append(f"User-agent: {bot}")
            if rnd.random() < 0.3:
                lines.append(f"Crawl-delay: {rnd.randint(1, 30)}")
            lines.extend(_rule(rnd) if rnd.random() < 0.8 else "Disallow: /" for _ in range(rnd.randint(*per_bot)))
            lines.append("")
        lines.append("User-agent: *")
        lines.extend(_rule(rnd) for _ in range(star_rules))
        lines.append("")
        lines.extend(f"Sitemap: https://www.example-news.test/sitemaps/{s}.xml" for s in SECTIONS)
        lines.append("")
    text = "\n".join(lines) + "\n"
    if len(text) > target:
        text = text[: text.rfind("\n", 0, target) + 1]
    return text


def urls(body: str, count: int, seed: int) -> list[str]:
    """URLs of the site: about a third built from the file's own patterns, the rest ordinary pages."""
    rnd = random.Random(seed)
    patterns = [line.split(":", 1)[1].strip() for line in body.splitlines() if line.startswith(("Allow", "Disallow"))]
    result = []
    for i in range(count):
        if patterns and i % 3 == 0:
            path = rnd.choice(patterns).replace("*", _word(rnd)).rstrip("$") or "/"
        else:
            section = rnd.choice(SECTIONS)
            path = f"/{section}/{rnd.randint(2019, 2025)}/{_word(rnd)}-{_word(rnd)}.html"
            if i % 7 == 1:
                path += f"?page={rnd.randint(1, 9)}"
            elif i % 11 == 2:
                path = f"/{section}/caf%C3%A9-{_word(rnd)}"
            elif i % 13 == 3:
                path = f"/{section}/größe-{_word(rnd)}"
        result.append(f"https://www.example-news.test{path}")
    return result


def paired_medians(ours: Callable[[], object], baseline: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median seconds of ``repeat`` calls of each, alternating so that a busy machine slows
    both alike; each call timed alone, the garbage collector off (as timeit does)."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeat):
        for fn, spent in zip((ours, baseline), times):
            gc.collect()
            gc.disable()
            try:
                start = time.perf_counter()
                fn()
                spent.append(time.perf_counter() - start)
            finally:
                gc.enable()
    return statistics.median(times[0]), statistics.median(times[1])


def bench(name: str, body: str, url_list: list[str], repeat: int) -> tuple[str, ...]:
    raw = body.encode("utf-8")
    parse_ours, parse_protego = paired_medians(lambda: RobotsTxt.parse(raw), lambda: Protego.parse(body), repeat)
    first_ours, first_protego = paired_medians(
        lambda: RobotsTxt.parse(raw).verdict(url_list[0], TOKEN),
        lambda: Protego.parse(body).can_fetch(url_list[0], TOKEN),
        repeat,
    )

    ours, protego = RobotsTxt.parse(raw), Protego.parse(body)
    disagree = sum(ours.allowed(u, TOKEN) != protego.can_fetch(u, TOKEN) for u in url_list)

    def run_ours() -> None:
        verdict = ours.verdict
        for url in url_list:
            verdict(url, TOKEN)

    def run_protego() -> None:
        can_fetch = protego.can_fetch
        for url in url_list:
            can_fetch(url, TOKEN)

    verdict_ours, verdict_protego = paired_medians(run_ours, run_protego, repeat)
    verdict_ours, verdict_protego = verdict_ours / len(url_list), verdict_protego / len(url_list)
    us = 1e6
    return (
        name,
        f"{len(raw) / 1024:.1f} KiB",
        f"{parse_ours * us:.0f}",
        f"{parse_protego * us:.0f}",
        f"{parse_ours / parse_protego:.2f}",
        f"{first_ours / first_protego:.2f}",
        f"{verdict_ours * us:.2f}",
        f"{verdict_protego * us:.2f}",
        f"{verdict_ours / verdict_protego:.2f}",
        str(disagree),
    )


def main() -> None:
    repeat = 5 if "--quick" in sys.argv else 41
    files = {
        "small": small(),
        "news-site": generated(seed=1, target=30_000, star_rules=120, per_bot=(1, 4)),
        "500KiB-limit": generated(seed=2, target=MAX_BYTES, star_rules=4_000, per_bot=(2, 10)),
    }
    header = (
        "file", "size", "ours parse µs", "protego parse µs", "parse ratio", "parse+1st ratio",
        "ours µs/url", "protego µs/url", "verdict ratio", "disagree",
    )  # fmt: skip
    rows = [header]
    for i, (name, body) in enumerate(files.items()):
        url_list = urls(body, 300, seed=10 + i)
        rows.append(bench(name, body, url_list, repeat if len(body) < 100_000 else max(5, repeat // 4)))
    widths = [max(len(row[c]) for row in rows) for c in range(len(header))]
    for n, row in enumerate(rows):
        print(" | ".join(cell.rjust(w) if c else cell.ljust(w) for c, (cell, w) in enumerate(zip(row, widths))))
        if n == 0:
            print("-+-".join("-" * w for w in widths))
    print(f"\ntoken {TOKEN!r}; 300 URLs per file; medians. Aims: parse ratio <= 0.3, verdict ratio <= 1.2.")
    print("'disagree': URLs where ours and Protego decide differently (docs/robots-matching.md, group choice).")


if __name__ == "__main__":
    main()
