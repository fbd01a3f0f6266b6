"""URL spellings a crawl may be handed, for differential tests against real servers (seeded).

Each spelling names a path under ``/private/`` or ``/pub/`` of a declared host, or tries to reach
an undeclared or the blocklisted host, through the places URL readers part ways: dot segments in
every encoding and position, encoded slashes and backslashes, repeated slashes, userinfo and
backslash host tricks, tabs and newlines, IDNA and IPv4 host forms, ports, ``;`` params, queries
and fragments. What a server makes of each is the test's oracle, not this module's business.
"""

from __future__ import annotations

import ipaddress
import itertools
import random
import string
from collections.abc import Iterator
from dataclasses import dataclass

#: "." and ".." as a server may decode them (RFC 3986 §2.3: ``%2E`` is ``.``), in every case.
DOTS = (".", "%2e", "%2E")
DOTDOTS = ("..", "%2e%2e", "%2E%2E", ".%2e", "%2e.", ".%2E", "%2E.", "%2e%2E", "%2E%2e")
#: What some reader takes for "/" inside a segment.
SLASHES = ("%2F", "%2f", "%5C", "%5c", "\\")
#: Characters WHATWG URL strips wherever they are (and w3lib and urllib with it).
STRIPPED = ("\t", "\n", "\r")
LEAVES = ("a.html", "b.html", "c.html", "d.html", "e.html")
#: The red team's findings, as paths (robots.txt ``Disallow: /private/``), and the host trick.
KNOWN_BAD_PATHS = (
    "/pub/../private/a.html",
    "/./private/b.html",
    "/pub/%2e%2e/private/c.html",
    "/pub/%2E%2E/private/d.html",
    "/pub/.%2e/private/e.html",
    "//private/b.html",
    "/pub/..%2Fprivate/d.html",
)


@dataclass(frozen=True)
class Hosts:
    """The names a corpus is written for; ``addresses`` gives each declared name's IPv4 address."""

    declared: tuple[str, ...]
    undeclared: str
    blocked: str
    port: int
    addresses: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Spelling:
    text: str
    #: which trick (``dots``, ``slashes``, ``userinfo``, ...)
    family: str
    #: the declared host the text seems to name (urllib's reading of it)
    host: str
    #: ``private`` or ``pub`` (the path it aims at), ``undeclared`` or ``blocked`` (the host)
    aim: str


def corpus(hosts: Hosts, size: int = 2400, seed: int = 20260) -> list[Spelling]:
    """At least ``size`` distinct spellings (fewer only if the forms run out), the same for a seed."""
    rng = random.Random(seed)
    found: dict[str, Spelling] = {}
    for spelling in _systematic(hosts, rng):
        found.setdefault(spelling.text, spelling)
    paths = list(_paths(rng))
    netlocs = {host: list(_netlocs(hosts, host, rng)) for host in hosts.declared}
    tries = 0
    while len(found) < size and tries < size * 20:  # seeded pairs of any host form and any path form
        tries += 1
        host = rng.choice(hosts.declared)
        netloc, nfamily = rng.choice(netlocs[host])
        path, pfamily, aim = rng.choice(paths)
        spelling = Spelling(f"{rng.choice(_SCHEMES)}{netloc}{path}", f"{nfamily}+{pfamily}", host, aim)
        found.setdefault(spelling.text, spelling)
    return list(found.values())


def known_bad(hosts: Hosts) -> list[Spelling]:
    """The red team's spellings: each known path on a declared host, and the backslash host trick."""
    found = []
    for index, path in enumerate(KNOWN_BAD_PATHS):
        host = hosts.declared[index % len(hosts.declared)]
        found.append(Spelling(f"http://{host}:{hosts.port}{path}", "known", host, "private"))
    for index, other in enumerate((hosts.undeclared, hosts.blocked)):
        host = hosts.declared[index % len(hosts.declared)]
        aim = "undeclared" if other == hosts.undeclared else "blocked"
        found.append(Spelling(f"http://{other}:{hosts.port}\\@{host}:{hosts.port}/post/b.html", "known", host, aim))
    return found


_SCHEMES = ("http://", "http://", "http://", "HTTP://", "Http://")


def _systematic(hosts: Hosts, rng: random.Random) -> Iterator[Spelling]:
    yield from known_bad(hosts)
    declared = hosts.declared
    for index, (path, family, aim) in enumerate(_paths(rng)):  # every path form, hosts in turn
        host = declared[index % len(declared)]
        yield Spelling(f"http://{host}:{hosts.port}{path}", family, host, aim)
    for host in declared:  # every host form of every declared host, on a few paths
        for netloc, family in _netlocs(hosts, host, rng):
            for path in ("/private/a.html", "/pub/a.html", "/pub/../private/b.html"):
                yield Spelling(f"http://{netloc}{path}", family, host, "private" if "private" in path else "pub")
    for text, family, host, aim in _host_tricks(hosts):
        yield Spelling(text, family, host, aim)


def _leaf(rng: random.Random) -> str:
    return rng.choice(LEAVES)


def _mixed_case(text: str, rng: random.Random) -> str:
    return "".join(c.upper() if rng.random() < 0.5 else c.lower() for c in text)


#: (template, family, aim) of each path form. ``{dd}`` runs over :data:`DOTDOTS` (``{dd_mixed}``: in
#: mixed case; ``{dd_split}``: with a ``{ws}`` inside), ``{dot}`` over :data:`DOTS`, ``{slash}`` over
#: :data:`SLASHES`, ``{ws}`` over :data:`STRIPPED`; ``{leaf}`` and ``{leaf2}`` are seeded file names.
PATH_FORMS = (
    ("/private/{leaf}", "plain", "private"),
    ("/pub/{leaf}", "plain", "pub"),
    ("/pub/{dd}/private/{leaf}", "dotdot-middle", "private"),
    ("/pub/x/{dd}/{dd}/private/{leaf}", "dotdot-middle", "private"),
    ("/private/{dd}/pub/{leaf}", "dotdot-middle", "pub"),
    ("/pub/{dd}/pub/{leaf}", "dotdot-middle", "pub"),
    ("/pub/{dd_mixed}/private/{leaf}", "dotdot-mixed-case", "private"),
    ("/{dd}/private/{leaf}", "dotdot-beyond-root", "private"),
    ("/{dd}/{dd}/private/{leaf}", "dotdot-beyond-root", "private"),
    ("/pub/{dd}/{dd}/{dd}/private/{leaf}", "dotdot-beyond-root", "private"),
    ("/private/{leaf}/{dd}", "dotdot-end", "private"),
    ("/pub/{dd}", "dotdot-end", "pub"),
    ("/pub/{dd}/private/", "dotdot-end", "private"),
    ("/pub/{dd}/private/{leaf}?x=1", "dotdot-query", "private"),
    ("/pub/{dd}?/private/{leaf}", "dotdot-query", "pub"),
    ("/pub/{leaf}#/{dd}/private/{leaf2}", "fragment", "pub"),
    ("/pub/%23/{dd}/private/{leaf}", "fragment", "private"),
    ("/pub/{dd};/private/{leaf}", "params", "private"),
    ("/pub;x=1/{dd}/private/{leaf}", "params", "private"),
    ("/pub//{dd}/private/{leaf}", "double-slash", "private"),
    ("/pub///{dd}/{dd}/private/{leaf}", "triple-slash", "private"),
    ("//pub/{dd}/private/{leaf}", "double-slash", "private"),
    ("/pub/{dd}{slash}private/{leaf}", "dotdot-slash", "private"),
    ("/pub{slash}{dd}{slash}private{slash}{leaf}", "dotdot-slash", "private"),
    ("/pub/x{slash}{dd}/{dd}/private/{leaf}", "dotdot-slash", "private"),
    ("/pub/{dd_split}/private/{leaf}", "whitespace", "private"),
    ("/{dot}/private/{leaf}", "dot-start", "private"),
    ("/private/{dot}/{leaf}", "dot-middle", "private"),
    ("/pub/{dot}/{leaf}", "dot-middle", "pub"),
    ("/private/{dot}", "dot-end", "private"),
    ("/{dot}/{dot}//private/{leaf}", "dot-double-slash", "private"),
    ("/{dot}{slash}private/{leaf}", "dot-slash", "private"),
    ("/private{slash}{leaf}", "encoded-slash", "private"),
    ("{slash}private/{leaf}", "encoded-slash", "private"),
    ("/pub{slash}{leaf}", "encoded-slash", "pub"),
    ("{slash}{slash}private{slash}{leaf}", "encoded-slash", "private"),
    *((f"{lead}{target}/{{leaf}}", "slashes", target) for lead in ("//", "///", "////", "/.//", "//./")
      for target in ("private", "pub")),
    ("/private//{leaf}", "slashes", "private"),
    ("/pub//{leaf}", "slashes", "pub"),
    *((f"/{spelled}/{{leaf}}", "path-case-escapes", "private")
      for spelled in ("PRIVATE", "Private", "%70rivate", "pri%76ate", "%70%72%69%76%61%74%65", "priv%61te")),
    *((f"/pub/{odd}/private/{{leaf}}", "odd-dots", "private")
      for odd in ("%252e%252e", "%c0%ae%c0%ae", "\uff0e\uff0e", "..%00", "..%20", " ..", ".. ", "...", "..;x")),
    *((f"/{spelled}/{{leaf}}", "params", "private") for spelled in ("private;x=1", "private;", "private;/")),
    ("/private/{leaf};x=1", "params", "private"),
    *((f"/{target}/{{leaf}}{query}", "query", target) for target in ("private", "pub")
      for query in ("?next=/private/a.html", "?/../private/a.html", "?%2F..%2Fprivate%2Fa.html", "?x=..\\private")),
    *((f"/{target}/{{leaf}}{fragment}", "fragment", target) for target in ("private", "pub")
      for fragment in ("#x", "#/../private/a.html", "#%2F..%2Fprivate")),
    ("/pri{ws}vate/{leaf}", "whitespace", "private"),
    ("/pub/.{ws}/private/{leaf}", "whitespace", "private"),
    ("{ws}/private/{leaf}{ws}", "whitespace", "private"),
    ("/pub/ ../private/{leaf}", "whitespace", "private"),
    ("/private/{leaf}  ", "whitespace", "private"),
    ("/privat\u0435/{leaf}", "unicode", "pub"),  # a Cyrillic "е": another path
    ("\uff0fprivate\uff0f{leaf}", "unicode", "pub"),  # fullwidth solidus
    ("\\private\\{leaf}", "backslash", "private"),
    ("/pub\\..\\private\\{leaf}", "backslash", "private"),
    ("\\\\private\\{leaf}", "backslash", "private"),
)  # fmt: skip
_AXES = (
    ("dd", DOTDOTS, ("dd", "dd_mixed", "dd_split")),
    ("dot", DOTS, ("dot",)),
    ("slash", SLASHES, ("slash",)),
    ("ws", STRIPPED, ("ws", "dd_split")),
)


def _paths(rng: random.Random) -> Iterator[tuple[str, str, str]]:
    """(path?query#fragment, family, aim) for each path form, every axis of its template expanded."""
    for template, family, aim in PATH_FORMS:
        fields = {name for _, name, _, _ in string.Formatter().parse(template) if name}
        axes = [(name, values) for name, values, uses in _AXES if fields & set(uses)]
        for combination in itertools.product(*(values for _, values in axes)):
            chosen = dict(zip((name for name, _ in axes), combination))
            dd, ws = chosen.get("dd", ".."), chosen.get("ws", "\t")
            cut = rng.randrange(1, len(dd))
            split, mixed = dd[:cut] + ws + dd[cut:], _mixed_case(dd, rng)
            path = template.format(**chosen, dd_mixed=mixed, dd_split=split, leaf=_leaf(rng), leaf2=_leaf(rng))
            yield path, family, aim


def _ipv4_forms(address: str) -> Iterator[str]:
    """The IPv4 spellings URL parsers accept for ``address``: decimal, hex, octal, short forms."""
    value = int(ipaddress.IPv4Address(address))
    a, b, c, d = (int(x) for x in address.split("."))
    yield str(value)
    yield hex(value)
    yield "0" + format(value, "o")
    yield f"0x{a:x}.{d}" if (b, c) == (0, 0) else f"0x{a:x}.{b}.{c}.{d}"
    yield f"{a}.{(b << 16) | (c << 8) | d}"
    yield f"{a}.{b}.{(c << 8) | d}"
    yield f"0{a:o}.0.0.0{d:o}" if d else f"0{a:o}.{b}.{c}.{d}"
    yield f"0x{a:X}.0x{b:x}.{c}.0{d:o}" if d else f"0x{a:X}.0x{b:x}.{c}.{d}"
    yield f"{address}."


def _netlocs(hosts: Hosts, host: str, rng: random.Random) -> Iterator[tuple[str, str]]:
    """(authority, family) spellings of ``host`` on the corpus port."""
    port = hosts.port
    yield f"{host}:{port}", "plain"
    yield f"{host.upper()}:{port}", "host-case"
    yield f"{_mixed_case(host, rng)}:{port}", "host-case"
    yield f"{host}.:{port}", "host-trailing-dot"
    yield f"{host}:0{port}", "port-leading-zero"
    yield f"{host}:80", "port-default"
    yield f"{host}", "port-none"
    ideographic, fullwidth = host.replace(".", "\u3002"), host.replace(".", "\uff0e", 1)
    yield f"{ideographic}:{port}", "idna-dots"
    yield f"{fullwidth}:{port}", "idna-dots"
    first = host[0]
    yield f"{chr(ord(first) - 0x61 + 0xFF41)}{host[1:]}:{port}", "idna-fullwidth"
    yield f"%{ord(first):02X}{host[1:]}:{port}", "host-escape"
    yield f"{host[0].upper()}\u0307{host[1:]}:{port}", "idna-combining"  # not a valid label
    yield f"user@{host}:{port}", "userinfo"
    yield f"user:pw@{host}:{port}", "userinfo"
    yield f"@{host}:{port}", "userinfo"
    yield f"{host}:{port}@{host}:{port}", "userinfo"
    yield f"{host}:{port}\t", "whitespace"
    yield f"{host[:3]}\n{host[3:]}:{port}", "whitespace"
    address = dict(hosts.addresses).get(host)
    if address:
        for form in _ipv4_forms(address):
            yield f"{form}:{port}", "ipv4-form"


#: (template, family) of the host tricks: ``{o}`` is the other host (undeclared or blocklisted) and
#: ``{s}`` a declared one, each with the port; ``{other}`` and ``{declared}`` without it.
HOST_TRICKS = (
    ("http://{o}\\@{s}{path}", "backslash-userinfo"),
    ("http://{other}\\@{s}{path}", "backslash-userinfo"),
    ("http://{s}\\@{o}{path}", "backslash-userinfo"),
    ("http:/{o}\\@{s}{path}", "backslash-userinfo"),
    ("http:\\\\{o}\\@{s}{path}", "backslash-scheme"),
    ("http://{o}%5C@{s}{path}", "escaped-backslash-userinfo"),
    ("http://{o}%2F@{s}{path}", "escaped-slash-userinfo"),
    ("http://{other}%40{s}{path}", "escaped-at"),
    ("http://{o}#@{s}{path}", "fragment-userinfo"),
    ("http://{o}?@{s}{path}", "query-userinfo"),
    ("http://{s}@{o}{path}", "userinfo"),
    ("http://{o}\t\\@{s}{path}", "whitespace-userinfo"),
    ("http://{o}/@{s}{path}", "path-at"),
)


def _host_tricks(hosts: Hosts) -> Iterator[tuple[str, str, str, str]]:
    """(URL, family, declared host, aim): spellings one reader sends to a declared host and another
    elsewhere."""
    port = hosts.port
    for other, aim in ((hosts.undeclared, "undeclared"), (hosts.blocked, "blocked")):
        for index, declared in enumerate(hosts.declared):
            # every declared host gets the first path; the first host every path
            for path in ("/post/b.html", "/pub/a.html", "/private/a.html")[: 1 if index else 3]:
                names = {"o": f"{other}:{port}", "s": f"{declared}:{port}", "other": other, "path": path}
                for template, family in HOST_TRICKS:
                    yield template.format(**names), family, declared, aim
                target = "private" if "private" in path else "pub"
                yield f"http://{declared}:{port}/@{other}:{port}{path}", "path-at", declared, target
            yield f"http://{other}:{port}/pub/a.html", "plain-other-host", declared, aim
    for index, form in enumerate(_ipv4_forms("127.0.0.1")):
        yield f"http://{form}:{port}/pub/a.html", "loopback", hosts.declared[index % len(hosts.declared)], "undeclared"
