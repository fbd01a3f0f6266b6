"""The first blocklist validation does not build rfc3987_syntax's grammar (about 1.6 s before
any request may leave), and an ``iri`` format is still checked exactly as jsonschema does."""

from __future__ import annotations

import subprocess
import sys

PROGRAM = """
import sys
from scrapy_walsh.policy.blocklist import bundled_schema
from scrapy_walsh.policy.blocklist.schema import load_schema
load_schema(bundled_schema())
print(type(sys.modules.get("rfc3987_syntax")).__name__)
from jsonschema import Draft202012Validator
v = Draft202012Validator({"format": "iri"}, format_checker=Draft202012Validator.FORMAT_CHECKER)
print(len(list(v.iter_errors("http://exa mple.com/"))), len(list(v.iter_errors("http://example.com/\u00fc"))))
print(type(sys.modules.get("rfc3987_syntax")).__name__)
"""


def test_the_bundled_schema_plan_defers_the_iri_grammar_and_iri_still_validates():
    out = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["_Deferred", "1", "0", "module"], out


def test_the_blocklist_command_defers_the_iri_grammar_too():
    """``scrapy walsh blocklist`` imported jsonschema at module level, before the stand-in."""
    program = (
        "import sys\nfrom scrapy_walsh.commands.blocklist import problems\n"
        "print(len(problems(b'{}')) > 0, type(sys.modules.get('rfc3987_syntax')).__name__)"
    )
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["True", "_Deferred"], out
