"""``scrapy walsh blocklist add|remove|validate``: the operator edits the blocklist file.

The edits are pure (:mod:`scrapy_walsh.policy.blocklist.edit`); this module reads the file,
writes it atomically (temporary file, fsync, ``os.replace``) and reports. Nothing is written
when nothing changes or validation fails (exit 1). ``SOURCE_DATE_EPOCH``, when set, is "now".
docs/command-blocklist.md says why.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from scrapy_walsh import config
from scrapy_walsh.policy.blocklist import MAX_DOCUMENT_BYTES, Blocklist, InvalidBlocklist, bundled_schema, formats
from scrapy_walsh.policy.blocklist.edit import (
    OPERATOR_FIELDS,
    EditResult,
    add,
    new_document,
    parse_document,
    remove,
    serialise,
)
from scrapy_walsh.policy.blocklist.errors import short
from scrapy_walsh.policy.blocklist.validate import pattern_words

if TYPE_CHECKING:
    from scrapy.settings import Settings

HELP = "edit the operator blocklist deterministically (add, remove) or check it (validate)"
SYNTAX = "{add DOMAIN --reason TEXT | remove DOMAIN} [--file F] | validate FILE"
DEFAULT_FILE = "blocklist.json"
#: option -> setting, for the fields of a new document
FIELD_SETTINGS: Mapping[str, str] = MappingProxyType(
    {name: f"WALSH_BLOCKLIST_{name.upper()}" for name in OPERATOR_FIELDS}
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True, metavar="{add,remove,validate}")
    adding = _action(actions, "add", "list DOMAIN (and its subdomains)")
    adding.add_argument("domain", metavar="DOMAIN")
    adding.add_argument("--reason", required=True, help="why, in a few words")
    adding.add_argument("--file", default=DEFAULT_FILE, help=f"the blocklist document (default: {DEFAULT_FILE})")
    for name in OPERATOR_FIELDS:
        adding.add_argument(f"--{name}", help=f"'{name}' of a NEW file (replaces the setting {FIELD_SETTINGS[name]})")
    removing = _action(actions, "remove", "unlist DOMAIN")
    removing.add_argument("domain", metavar="DOMAIN")
    removing.add_argument("--file", default=DEFAULT_FILE, help=f"the blocklist document (default: {DEFAULT_FILE})")
    validating = _action(actions, "validate", "print every schema error with its JSON path")
    validating.add_argument("path", metavar="FILE")


def _action(actions: Any, name: str, help: str) -> argparse.ArgumentParser:
    # -h/--help belong to Scrapy's own parser, which shows this action's help (commands.walsh)
    return actions.add_parser(name, help=help, description=help, add_help=False)


def run(args: argparse.Namespace, settings: Settings) -> int:
    if args.action == "validate":
        return validate(Path(args.path))
    return edit(args, settings)


def now() -> datetime:
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    return datetime.fromtimestamp(int(epoch), timezone.utc) if epoch else datetime.now(timezone.utc)


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 1


def _setting(settings: Settings, name: str) -> Any:
    """A field's deprecated setting, read when its flag is not given (warned)."""
    from scrapy_walsh.commands.moved_settings import warn

    warn(settings, name, "blocklist add")
    return config.parse(settings, name)


def edit(args: argparse.Namespace, settings: Settings) -> int:
    path = Path(args.file)
    try:
        if path.exists():
            document = parse_document(path.read_bytes())
        elif args.action == "add":
            fields = {name: getattr(args, name) or _setting(settings, FIELD_SETTINGS[name]) for name in OPERATOR_FIELDS}
            try:
                document = new_document(fields, now())
            except ValueError as exc:
                options = ", ".join(f"--{n}" for n in OPERATOR_FIELDS[:3])
                return _fail(f"{path} does not exist and {exc}: give {options}")
        else:
            return _fail(f"{path} does not exist")
        if args.action == "add":
            result: EditResult = add(document, args.domain, args.reason, now())
        else:
            result = remove(document, args.domain, now())
    except InvalidBlocklist as exc:
        return _fail(f"{path}: {exc}; the file is left as it was")
    except (ValueError, LookupError) as exc:
        return _fail(f"{exc.args[0] if exc.args else exc}; {path} is left as it was")
    except OSError as exc:
        return _fail(f"{path}: {exc.strerror or exc}")
    if not result.changed and path.exists():
        print(f"{path}: {result.message}")
        return 0
    data = serialise(result.document)
    try:
        write_atomically(path, data)
    except OSError as exc:
        return _fail(f"{path}: not written: {exc}")
    entries = len(result.document["blocked"])
    print(
        f"{path}: {result.message}; {entries} entr{'y' if entries == 1 else 'ies'}, "
        f"updated {result.document['updated']}"
    )
    return 0


def write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` in one step, durably; keeps an existing file's mode."""
    directory = path.parent if str(path.parent) else Path(".")
    mode = path.stat().st_mode & 0o7777 if path.exists() else None
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temp, mode)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temp, 0o666 & ~umask)  # what open() would have given a new file
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    dir_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dir_fd)  # the rename itself survives a crash
    finally:
        os.close(dir_fd)


# ------------------------------------------------------------------ validate


def json_path(parts: Any) -> str:
    """``$.blocked[3].domain`` from jsonschema's path deque."""
    out = "$"
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, str) and part.isidentifier():
            out += f".{part}"
        else:
            out += f"[{json.dumps(part, ensure_ascii=False)}]"
    return out


def problems(data: bytes) -> list[str]:
    """Every reason ``data`` is not an adoptable walsh-research-blocklist/v1 document,
    one line each, schema errors first (sorted by path), with their JSON paths."""
    if len(data) > MAX_DOCUMENT_BYTES:
        return [f"$: {len(data)} bytes, more than the {MAX_DOCUMENT_BYTES} a consumer accepts"]
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return [f"$: not UTF-8: {exc}"]
    try:
        document = json.loads(text)
    except ValueError as exc:
        return [f"$: not JSON: {exc}"]
    formats.prepare()  # before jsonschema: no 1.6 s iri grammar for formats the blocklist never uses
    from jsonschema import Draft202012Validator
    from jsonschema_specifications import REGISTRY

    validator = Draft202012Validator(
        bundled_schema(), format_checker=Draft202012Validator.FORMAT_CHECKER, registry=REGISTRY
    )
    found = []
    for error in sorted(validator.iter_errors(document), key=lambda e: (list(map(str, e.absolute_path)), e.message)):
        message = error.message
        if error.validator == "pattern":
            message = f"{short(repr(error.instance), 80)} {pattern_words(error.validator_value)}"
        elif error.context:  # anyOf: say what each branch wanted
            message += " (" + "; ".join(sorted({c.message for c in error.context})) + ")"
        found.append(f"{json_path(error.absolute_path)}: {message}")
    if not found:  # the checks of the gate itself, beyond the schema
        try:
            Blocklist.from_document(data)
        except InvalidBlocklist as exc:
            found.append(f"$.{exc}" if not str(exc).startswith("document") else f"$: {exc}")
    return found


def validate(path: Path) -> int:
    try:
        data = path.read_bytes()
    except OSError as exc:
        return _fail(f"{path}: {exc.strerror or exc}")
    found = problems(data)
    for line in found:
        print(f"{path}: {line}")
    if found:
        print(f"{path}: INVALID, {len(found)} error{'s' if len(found) > 1 else ''}", file=sys.stderr)
        return 1
    blocklist = Blocklist.from_document(data)
    duplicates = f", {blocklist.duplicates} duplicate entries ignored" if blocklist.duplicates else ""
    print(f"{path}: valid walsh-research-blocklist/v1, {len(blocklist)} domains{duplicates}")
    return 0
