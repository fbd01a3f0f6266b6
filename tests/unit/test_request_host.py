"""The host key of a request is worked out once, however many gates ask for it."""

from __future__ import annotations

import ast
from pathlib import Path

from scrapy import Request

import scrapy_walsh
from scrapy_walsh.policy import hostkey
from scrapy_walsh.sending.request_meta import request_host


def test_the_host_key_is_worked_out_once_per_request(monkeypatch):
    calls: list[str] = []
    real = hostkey.url_host.__wrapped__  # the key itself, under the pure core's own cache

    def counted(url: str) -> str:
        calls.append(url)
        return real(url)

    monkeypatch.setattr(hostkey, "url_host", counted)
    request = Request("https://Bücher.Example.:8443/a")
    assert {request_host(request) for _ in range(6)} == {"xn--bcher-kva.example"}
    assert calls == [request.url]
    moved = request.replace(url="http://127.1/b")  # a new Request: its own key
    assert request_host(moved) == "127.0.0.1" and len(calls) == 2
    assert request_host(request) == "xn--bcher-kva.example" and len(calls) == 2


def test_no_adapter_works_the_host_key_out_from_a_request_again():
    """Every gate, the queue, the summary and the checkpoint ask ``request_host(request)``;
    ``url_host(<request>.url)`` would work it out again for the same request."""
    root = Path(scrapy_walsh.__file__).parent
    found = []
    for path in root.rglob("*.py"):
        if "policy" in path.relative_to(root).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and ast.unparse(node.func).endswith("url_host")
                and node.args
                and ast.unparse(node.args[0]).endswith("request.url")
                and path.name != "request_meta.py"
            ):
                found.append(f"{path.relative_to(root)}:{node.lineno}")
    assert found == []
