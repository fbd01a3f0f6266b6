"""The checkpoint owns the send: admit, prepare and send are its named steps, each short, and the
journal records around the download without running it (docs/checkpoint.md, "The steps of one send")."""

from __future__ import annotations

import ast
import inspect
import textwrap

from scrapy_walsh.journal import adapter
from scrapy_walsh.sending.checkpoint import CheckpointDownloadHandler

STEPS = ("download_request", "admit", "prepare", "send", "settle")
LIMIT = 40


def _function(name: str) -> ast.FunctionDef | ast.AsyncFunctionDef:
    tree = ast.parse(textwrap.dedent(inspect.getsource(getattr(CheckpointDownloadHandler, name))))
    node = tree.body[0]
    assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    return node


def test_each_step_of_the_send_is_a_short_method_of_the_checkpoint():
    spans = {name: _function(name).end_lineno - _function(name).lineno + 1 for name in STEPS}
    assert max(spans.values()) <= LIMIT, spans


def test_download_request_runs_the_steps_in_order():
    calls = [
        node
        for node in ast.walk(_function("download_request"))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in STEPS
    ]
    called = [node.func.attr for node in sorted(calls, key=lambda node: (node.lineno, node.col_offset))]
    assert called == ["admit", "prepare", "send", "settle"]


def test_the_checkpoint_runs_the_download_and_the_journal_records_around_it():
    send = ast.unparse(_function("send"))
    assert send.index("before_send(") < send.index("self.inner.download_request(") < send.index(".answered(")
    journal = inspect.getsource(adapter)
    assert "download_request" not in journal and "Awaitable" not in journal  # it is handed no download
    imported = {
        node.module for node in ast.walk(ast.parse(journal)) if isinstance(node, ast.ImportFrom) and node.module
    }
    assert not imported & {"checkpoint", "send_gate", "admission"}, imported
