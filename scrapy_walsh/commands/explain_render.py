"""``scrapy walsh explain``: the explanation for people, one gate per paragraph."""

from __future__ import annotations

from typing import Any

from scrapy_walsh.commands.explain_sections import NOT_CONSULTED
from scrapy_walsh.policy.vocabulary import BLOCKED_BY_OPERATOR, SKIPPED_RECENTLY_FETCHED


def _secs(value: float | None, line: int | None) -> str:
    if value is None:
        return "none"
    return f"{value:g} s (line {line})"


def render(report: dict[str, Any]) -> str:
    """The explanation for people, one gate per paragraph."""
    out = [f"URL          {report['url']}", f"identity     {report['user_agent']} (token {report['token']})", ""]
    out += _blocklist_lines(report["blocklist"])
    out += _address_lines(report["address"])
    out += _robots_lines(report["robots"])
    out += render_usage(report["usage"])
    out += _frequency_lines(report["frequency"])
    out += _pacing_lines(report["pacing"])
    out += _closing_lines(report)
    return "\n".join(out)


def _blocklist_lines(b: dict[str, Any]) -> list[str]:
    """The operator's blocklist: the entry that blocks the host, or why none does."""
    if b["verdict"] == BLOCKED_BY_OPERATOR:
        line = f"BLOCKED by entry {b['domain']!r} (added {b['added']}: {b['reason']})"
    elif b["verdict"] == NOT_CONSULTED:
        line = b["reason"]
    else:
        line = "not blocked: no entry covers this host"
    entries = f"{b['entries']} entr{'y' if b['entries'] == 1 else 'ies'}"
    return [f"blocklist    {line}", f"             list: {b['source']}; {entries}", ""]


def _address_lines(a: dict[str, Any]) -> list[str]:
    """The address gate, when it was consulted."""
    if "verdict" not in a:
        return []
    where = f" ({a['address']})" if "address" in a else ""
    return [f"address      {a['host']}{where}: " + ("allowed" if a["verdict"] == "allowed" else a["reason"]), ""]


def _robots_lines(r: dict[str, Any]) -> list[str]:
    """robots.txt: where it came from, the group and rule that apply, and the verdict."""
    out = [f"robots.txt   {r.get('url', '')}".rstrip(), f"             source: {r['source']}"]
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
    return out


def _frequency_lines(f: dict[str, Any]) -> list[str]:
    """R8: a target fetched too recently to be fetched again."""
    if f["verdict"] == SKIPPED_RECENTLY_FETCHED:
        return ["", f"R8           {f['target']}: {f['reason']}"]
    return []


def _pacing_lines(p: dict[str, Any]) -> list[str]:
    """The interval to the host and each term it is the largest of; a pause, a wait or a cap."""
    terms = [
        f"WALSH_MIN_INTERVAL {p['floor']:g} s",
        *([f"DOWNLOAD_SLOTS delay {p['host_interval']:g} s"] if p.get("host_interval") else []),
        f"Crawl-delay {p['crawl_delay']:g} s" if p["crawl_delay"] is not None else "Crawl-delay -",
        f"Request-rate {p['request_rate']:g} s" if p["request_rate"] is not None else "Request-rate -",
    ]
    if p["adaptive"]:
        terms.append(f"adaptive {p['adaptive']:.3g} s (stored ledger)")
    out = ["", f"pacing       {p['interval']:g} s between requests to this host = max({', '.join(terms)})"]
    if p["paused_for"]:
        out.append(f"             paused for {p['paused_for']:.0f} s more (R5 backoff, stored ledger)")
    if "wait" in p:
        out.append(f"wait         {p['wait']['seconds']:.1f} s before the next request: {p['wait']['reason']}")
    if "cap" in p:
        out.append(f"             {p['cap']}: the host is not crawled")
    return out


def _closing_lines(report: dict[str, Any]) -> list[str]:
    """What came from the caches, the notes, and the decision."""
    cached, d = report["cached"], report["decision"]
    out = [
        f"cached       blocklist: {'yes' if cached['blocklist'] else 'no'}; "
        f"robots.txt: {'yes' if cached['robots'] else 'no'}"
    ]
    out += [f"note         {n}" for n in report["notes"]]
    if d["outcome"] == "fetch":
        out += ["", "decision     FETCH (every gate allows it)"]
    else:
        out += ["", f"decision     {d['outcome'].upper()} by the {d['gate']} gate ({d['verdict']})"]
    return out


def render_usage(u: dict[str, Any]) -> list[str]:
    declared = "" if u["declared"] else " (WALSH_PURPOSES not declared: every purpose)"
    out = ["", f"usage        mode {u['mode']}{declared}; from robots.txt (tdmrep.json and headers: at fetch)"]
    for d in u["decisions"]:
        out.append(f"             {d['purpose']:<9} {d['preference']:<9}" + (f" {d['source']}" if d["source"] else ""))
    out += [f"             licence/policy: {ref}" for ref in u["references"]]
    if u["ratelimit"]:
        out.append(f"             RateLimit: {u['ratelimit']:g} s between requests (stored ledger)")
    return out
