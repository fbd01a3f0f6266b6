"""The demo site's side of Web Bot Auth: it verifies each signed request as a site would.

It reads ``Signature-Agent``, fetches the key directory it names (only from its own hosts, so
a test never reaches the internet) and checks the signature; each request's record says
``verified``, ``missing`` or ``invalid: <why>``. The directory fetch carries
:data:`VERIFIER_HEADER` and is left out of the site's log. docs/verifiable-identity.md says why.
"""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Callable, Mapping
from urllib.parse import urlsplit

from demo_site.hosts import lookup
from scrapy_walsh.identity import webbotauth

#: The header the site's own directory fetches carry (left out of the request log).
VERIFIER_HEADER = "X-Walsh-Demo-Verifier"
TIMEOUT = 5.0
MAX_DIRECTORY = 1 << 20
VERIFIED = "verified"
MISSING = "missing"


class SignatureVerifier:
    def __init__(self, port_of: Callable[[], int]) -> None:
        self._port_of = port_of
        self._lock = threading.Lock()
        self._directories: dict[str, dict] = {}

    def forget(self) -> None:
        """Drop cached directories (the operator published new keys)."""
        with self._lock:
            self._directories.clear()

    def check(self, method: str, url: str, headers: Mapping[str, str]) -> str:
        """``verified``, ``missing`` or ``invalid: <why>`` for one request; never raises."""
        if not any(k.lower() in ("signature", "signature-input") for k in headers):
            return MISSING
        try:
            agents = webbotauth.signature_agents(headers)
            keys: dict = {}
            for agent in agents.values():
                keys.update(webbotauth.directory_keys(self._directory(agent)))
            webbotauth.verify_request(method, url, headers, keys)
        except (webbotauth.SigningError, OSError, ValueError, http.client.HTTPException) as exc:
            return f"invalid: {exc}"
        return VERIFIED

    def _directory(self, url: str) -> dict:
        with self._lock:
            found = self._directories.get(url)
        if found is not None:
            return found
        parts = urlsplit(url)
        host = lookup(parts.hostname or "")
        if host is None:
            raise ValueError(f"the key directory {url!r} is not on a demo host (the demo fetches no other)")
        conn = http.client.HTTPConnection(host.ip, parts.port or self._port_of(), timeout=TIMEOUT)
        try:
            conn.request("GET", parts.path or "/", headers={"Host": parts.netloc, VERIFIER_HEADER: "1"})
            response = conn.getresponse()
            body = response.read(MAX_DIRECTORY + 1)
        finally:
            conn.close()
        if response.status != 200 or len(body) > MAX_DIRECTORY:
            raise ValueError(f"the key directory {url!r} answered {response.status}")
        document = json.loads(body)
        with self._lock:
            self._directories[url] = document
        return document
