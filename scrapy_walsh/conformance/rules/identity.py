"""R1 (row 1): the exact User-Agent on every request, and a token that names it."""

from __future__ import annotations

from collections.abc import Iterator

from scrapy_walsh.conformance.engine import FAIL, PASS, WARN, Finding, Subject, user_set
from scrapy_walsh.conformance.rules.checkpoint import through_checkpoint
from scrapy_walsh.policy.vocabulary import docs_topic
from scrapy_walsh.settings import SPEC_VERSION, USER_AGENT


def identity(subject: Subject) -> Iterator[Finding]:
    settings, walsh = subject.settings, subject.walsh
    for name in ("WALSH_USER_AGENT", "WALSH_ROBOTS_TOKEN"):
        if why := walsh.refused(name):
            yield Finding("1", "R1", FAIL, name, why)
            return
    ua, token = walsh.value("WALSH_USER_AGENT"), walsh.value("WALSH_ROBOTS_TOKEN")
    if token.lower() not in ua.lower():
        yield Finding(
            "1",
            "R1",
            WARN,
            "WALSH_ROBOTS_TOKEN",
            f"{token!r} does not appear in WALSH_USER_AGENT {ua!r}; site owners "
            "cannot tell which robots.txt group applies to this crawler",
        )
    # the checkpoint sets it on every request: R1's one enforcement
    enforced = through_checkpoint(subject)
    if user_set(settings, "USER_AGENT") and settings.get("USER_AGENT") != ua:
        if enforced:
            yield Finding(
                "1",
                "R1",
                WARN,
                "USER_AGENT",
                f"{settings.get('USER_AGENT')!r} is overridden on every request by WALSH_USER_AGENT {ua!r}",
            )
        else:
            yield Finding(
                "1", "R1", FAIL, "USER_AGENT", f"{settings.get('USER_AGENT')!r} is sent as is: it is not {ua!r}"
            )
    if enforced:
        yield Finding("1", "R1", PASS, "WALSH_USER_AGENT", f"every request sends {ua!r}")


def spec_identity(subject: Subject) -> Iterator[Finding]:
    """Another operator's bot (the contract's schema is free to reuse) is a supported use: said,
    as a pass naming the identity, never warned about; the crawl says it once at INFO."""
    ua = subject.walsh.given("WALSH_USER_AGENT")  # one its own rule refuses is another identity too
    if isinstance(ua, str) and ua.strip() and ua != USER_AGENT:
        yield Finding(
            "1", "R1", PASS, "WALSH_USER_AGENT", another_operator(ua, subject.walsh.value("WALSH_ROBOTS_TOKEN"))
        )


def another_operator(ua: str, token: str) -> str:
    """How a crawl under another operator's identity is said (by the audit, and once by the crawl)."""
    return f"another operator's bot: {token!r}, User-Agent {ua!r} (under the {SPEC_VERSION} schema, not its identity)"


def verifiable_identity(subject: Subject) -> Iterator[Finding]:
    """Web Bot Auth: with a key, every request is signed at the checkpoint, so an unreadable
    key or an unusable directory URL stops the start; without one R1 holds, unverifiably."""
    walsh = subject.walsh
    broken = False
    for name in ("WALSH_SIGNING_KEY", "WALSH_SIGNATURE_AGENT"):
        if why := walsh.refused(name):
            broken = True
            yield Finding("1", "R1", FAIL, name, why)
    if broken:
        return
    key, agent = walsh.value("WALSH_SIGNING_KEY"), walsh.value("WALSH_SIGNATURE_AGENT")
    if key and not agent:
        yield Finding(
            "1",
            "R1",
            FAIL,
            "WALSH_SIGNATURE_AGENT",
            "is not set although WALSH_SIGNING_KEY is: a signed request must name the key "
            "directory a site verifies it with (Signature-Agent)",
        )
    elif agent and not key:
        yield Finding(
            "1",
            "R1",
            WARN,
            "WALSH_SIGNING_KEY",
            f"is not set: WALSH_SIGNATURE_AGENT {agent!r} is ignored and no request is signed",
        )
    elif key:
        yield Finding(
            "1",
            "R1",
            PASS,
            "WALSH_SIGNING_KEY",
            f"every request is signed (Web Bot Auth), naming the key directory {agent!r}",
        )
    else:
        # info, not a warning: R1 asks for the exact UA, which holds; a signature is on top
        yield Finding(
            "1",
            "R1",
            PASS,
            "WALSH_SIGNING_KEY",
            "not set: R1 is met by the exact User-Agent, but the identity is unverifiable "
            f"(no Web Bot Auth signature; see {docs_topic('verifiable-identity')})",
        )
