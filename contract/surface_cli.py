"""The ``diff`` and ``surface`` verbs of ``milk-contract``.

``milk-contract diff [--format text|json] OLD NEW`` classifies the changes between two schemas or
two surfaces (a surface is what ``milk-contract surface`` prints, or a stored surface snapshot);
OLD and NEW may mix the two. Exit 0 when every change is additive, 1 when any is breaking, 2 on a
usage error (unreadable file, invalid JSON, a document that is neither), with a one-line message.

``milk-contract surface [--wire W] [SCHEMA]`` prints a surface as JSON: a bundled wire's (schema
plus goldens) or that of a schema file.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from contract.classify import BREAKING, Change, classify, is_breaking
from contract.surface import WIRES, as_surface, surface_for


class UsageError(Exception):
    """A problem with what the user passed; reported in one line, exit 2."""


def add_diff_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="report format (default: text)")
    parser.add_argument("old", metavar="OLD", help="the earlier schema or surface (JSON file)")
    parser.add_argument("new", metavar="NEW", help="the later schema or surface (JSON file)")


def add_surface_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--wire", choices=WIRES, default=None,
                        help="a bundled wire (schema plus goldens)")
    parser.add_argument("schema", metavar="SCHEMA", nargs="?", default=None,
                        help="a schema file instead of a bundled wire")


def _load(path: str) -> Any:
    try:
        with open(path, "rb") as handle:
            return json.load(handle)
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror or error}") from None
    except (ValueError, RecursionError) as error:
        raise UsageError(f"{path} is not valid JSON: {error}") from None


def _surface(path: str) -> dict[str, Any]:
    document = _load(path)
    try:
        return as_surface(document)
    except Exception as error:  # any malformed schema shape ends here, never as a traceback
        raise UsageError(f"{path}: not a usable JSON Schema or surface ({error})") from None


def report_json(old: str, new: str, changes: list[Change]) -> str:
    breaking = sum(c.kind == BREAKING for c in changes)
    return json.dumps({
        "old": old,
        "new": new,
        "breaking": breaking > 0,
        "counts": {"breaking": breaking, "additive": len(changes) - breaking},
        "changes": [c.to_json() for c in changes],
    }, indent=2, ensure_ascii=False)


def report_text(old: str, new: str, changes: list[Change]) -> str:
    lines = [f"{c.kind:<9} {c.path}: {c.reason} [{c.code}"
             + (f"; breaks {c.breaks}]" if c.breaks else "]") for c in changes]
    breaking = sum(c.kind == BREAKING for c in changes)
    if not changes:
        lines.append(f"{old} → {new}: no change")
    else:
        verdict = "BREAKING" if breaking else "additive only"
        lines.append(f"{old} → {new}: {len(changes)} changes, {breaking} breaking, "
                     f"{len(changes) - breaking} additive ({verdict})")
    return "\n".join(lines)


def main_diff(args: argparse.Namespace) -> int:
    try:
        old, new = _surface(args.old), _surface(args.new)
        try:
            changes = classify(old, new)
        except Exception as error:  # a hand-edited surface of the wrong shape, say
            raise UsageError(f"cannot compare {args.old} with {args.new}: {error!r}") from None
    except UsageError as error:
        print(f"milk-contract diff: {error}", file=sys.stderr)
        return 2
    render = report_json if args.format == "json" else report_text
    print(render(args.old, args.new, changes))
    return 1 if is_breaking(changes) else 0


def main_surface(args: argparse.Namespace) -> int:
    try:
        if (args.wire is None) == (args.schema is None):
            raise UsageError("give either --wire or a SCHEMA file")
        surface = surface_for(args.wire) if args.wire else _surface(args.schema)
    except UsageError as error:
        print(f"milk-contract surface: {error}", file=sys.stderr)
        return 2
    print(json.dumps(surface, indent=2, sort_keys=True, ensure_ascii=False))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Standalone entry for the two verbs (the lead's contract.cli wires the same functions)."""
    parser = argparse.ArgumentParser(prog="milk-contract")
    verbs = parser.add_subparsers(dest="verb", required=True)
    add_diff_arguments(verbs.add_parser("diff", help="classify changes between two schemas"))
    add_surface_arguments(verbs.add_parser("surface", help="print a wire surface"))
    args = parser.parse_args(argv)
    return main_diff(args) if args.verb == "diff" else main_surface(args)


if __name__ == "__main__":
    raise SystemExit(main())
