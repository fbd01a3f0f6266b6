"""``scrapy walsh explain``: the explanation for people, one gate per paragraph."""

from __future__ import annotations

from typing import Any

from ..policy.vocabulary import BLOCKED_BY_OPERATOR, SKIPPED_RECENTLY_FETCHED
from .explain_sections import NOT_CONSULTED


def _secs(value: float | None, line: int | None) -> str:
    if value is None:
        return "none"
    return f"{value:g} s (line {line})"


def render(report: dict[str, Any]) -> str:
    """The explanation for people, one gate per paragraph."""
    b, a, r, p, d = report["blocklist"], report["address"], report["robots"], report["pacing"], report["decision"]
    out = [f"URL          {report['url']}", f"identity     {report['user_agent']} (token {report['token']})", ""]
    if b["verdict"] == BLOCKED_BY_OPERATOR:
        line = f"BLOCKED by entry {b['domain']!r} (added {b['added']}: {b['reason']})"
    elif b["verdict"] == NOT_CONSULTED:
        line = b["reason"]
    else:
        line = "not blocked: no entry covers this host"
    entries = f"{b['entries']} entr{'y' if b['entries'] == 1 else 'ies'}"
    out += [f"blocklist    {line}", f"             list: {b['source']}; {entries}", ""]
    if "verdict" in a:
        where = f" ({a['address']})" if "address" in a else ""
        out += [f"address      {a['host']}{where}: " + ("allowed" if a["verdict"] == "allowed" else a["reason"]), ""]
    out.append(f"robots.txt   {r.get('url', '')}".rstrip())
    out.append(f"             source: {r['source']}")
    if "mode" in r and r["mode"] != "respect":
        out.append(f"             mode: {r['mode']}")
    if "groups" in r:
        label = {"named": "group naming us", "*": "the * group (none names us)", "none": "no group"}[r["selected"]]
        out.append(f"             selected: {label}")
        out += [f"               {g}" for g in r["groups"]]
        out += [f"               (overrides {g})" for g in r["overridden"]]
        out.append(f"             rule: {r['rule'] or 'none matches: nothing disallows this path'}")
        if r.get("parse_error"):
            out.append(f"             not a robots.txt: {r['parse_error']}")
        out.append(
            f"             Crawl-delay: {_secs(r['crawl_delay'], r['crawl_delay_line'])}; "
            f"Request-rate: {_secs(r['request_rate'], r['request_rate_line'])}"
        )
    if "verdict" in r:
        out.append(f"             verdict: {r['verdict']} -> {r['recommendation']}")
    out += render_usage(report["usage"])
    f = report["frequency"]
    if f["verdict"] == SKIPPED_RECENTLY_FETCHED:
        out += ["", f"R8           {f['target']}: {f['reason']}"]
    terms = [
        f"WALSH_MIN_INTERVAL {p['floor']:g} s",
        *([f"DOWNLOAD_SLOTS delay {p['host_interval']:g} s"] if p.get("host_interval") else []),
        f"Crawl-delay {p['crawl_delay']:g} s" if p["crawl_delay"] is not None else "Crawl-delay -",
        f"Request-rate {p['request_rate']:g} s" if p["request_rate"] is not None else "Request-rate -",
    ]
    if p["adaptive"]:
        terms.append(f"adaptive {p['adaptive']:.3g} s (stored ledger)")
    out += ["", f"pacing       {p['interval']:g} s between requests to this host = max({', '.join(terms)})"]
    if p["paused_for"]:
        out.append(f"             paused for {p['paused_for']:.0f} s more (R5 backoff, stored ledger)")
    if "wait" in p:
        out.append(f"wait         {p['wait']['seconds']:.1f} s before the next request: {p['wait']['reason']}")
    if "cap" in p:
        out.append(f"             {p['cap']}: the host is not crawled")
    cached = report["cached"]
    out.append(
        f"cached       blocklist: {'yes' if cached['blocklist'] else 'no'}; "
        f"robots.txt: {'yes' if cached['robots'] else 'no'}"
    )
    out += [f"note         {n}" for n in report["notes"]]
    if d["outcome"] == "fetch":
        out += ["", "decision     FETCH (every gate allows it)"]
    else:
        out += ["", f"decision     {d['outcome'].upper()} by the {d['gate']} gate ({d['verdict']})"]
    return "\n".join(out)


def render_usage(u: dict[str, Any]) -> list[str]:
    declared = "" if u["declared"] else " (WALSH_PURPOSES not declared: every purpose)"
    out = ["", f"usage        mode {u['mode']}{declared}; from robots.txt (tdmrep.json and headers: at fetch)"]
    for d in u["decisions"]:
        out.append(f"             {d['purpose']:<9} {d['preference']:<9}" + (f" {d['source']}" if d["source"] else ""))
    out += [f"             licence/policy: {ref}" for ref in u["references"]]
    if u["ratelimit"]:
        out.append(f"             RateLimit: {u['ratelimit']:g} s between requests (stored ledger)")
    return out
