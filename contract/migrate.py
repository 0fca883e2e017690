"""Mechanical golden migrations after an ADR: ``milk-contract migrate``.

An ADR that renames a member, removes an optional one or adds a required one with a stated value
changes every golden that shows it, the same way in each. Hand-editing eleven transcripts is
where mistakes come from, so this step does it:

``milk-contract migrate --wire W [--schema NEW] [--on KIND] (--rename OLD=NEW | --remove NAME |
--set NAME=JSON)… [--dry-run] [--root DIR]``

rewrites the top-level members of every golden line of the wire (of line type ``KIND``, or
``type/subtype``, with ``--on``), in the order the steps are given; checks every rewritten golden
line by line under NEW (the ADR's schema, before ``evolve`` takes it in; default: the schema in
force); and shows the change as a unified diff. A line the steps do not change keeps its stored
bytes exactly; a changed line is written as the recorder writes lines (compact JSON, UTF-8, the
members in their order, a renamed member where the old one stood). It writes nothing when any
rewritten golden is not valid under NEW, when a rename would overwrite a member the line has
already, or under ``--dry-run``; each file is replaced atomically. The metas are not touched:
what reproduces a scenario did not change. Re-recording from a real build stays the other way
(``milk-contract record``); this is for the changes that need no build.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contract import textsafe
from contract.exitcodes import EXIT_OK, EXIT_VIOLATIONS
from contract.userfiles import read_whole

DIFF_LINES_SHOWN = 400  # per golden; the rest is counted (a golden's diff is a few lines a member)


class MigrateError(Exception):
    """Misuse or an unusable input: one line, exit 2."""


@dataclass(frozen=True, slots=True)
class Step:
    """One mechanical change to a line's top-level members."""

    op: str  # "rename", "remove" or "set"
    name: str
    to: str = ""  # rename: the new name
    value: Any = None  # set: the value

    def __str__(self) -> str:
        if self.op == "rename":
            return f"--rename {self.name}={self.to}"
        if self.op == "set":
            return f"--set {self.name}={json.dumps(self.value, ensure_ascii=False)}"
        return f"--remove {self.name}"


def _pair(text: str, option: str) -> tuple[str, str]:
    name, sep, rest = text.partition("=")
    if not sep or not name or not rest:
        raise MigrateError(f"{option} {text!r}: expected NAME=VALUE")
    return name, rest


def rename(text: str) -> Step:
    old, new = _pair(text, "--rename")
    if old == new:
        raise MigrateError(f"--rename {text!r}: the old and the new name are the same")
    return Step("rename", old, to=new)


def remove(text: str) -> Step:
    if not text:
        raise MigrateError("--remove: a member name is needed")
    return Step("remove", text)


def set_value(text: str) -> Step:
    name, raw = _pair(text, "--set")
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        raise MigrateError(f"--set {name}=…: the value is not JSON ({raw[:40]!r}; a string is \"quoted\")") from None
    return Step("set", name, value=value)


def _kind_matches(line: dict[str, Any], on: str | None) -> bool:
    if on is None:
        return True
    kind, _, subtype = on.partition("/")
    return line.get("type") == kind and (not subtype or line.get("subtype") == subtype)


def apply(line: dict[str, Any], steps: Sequence[Step]) -> dict[str, Any]:
    """The line with every step applied to its top-level members (a new dict; order kept)."""
    out = dict(line)
    for step in steps:
        if step.op == "rename" and step.name in out:
            if step.to in out:
                raise MigrateError(f"{step}: a line has both {step.name!r} and {step.to!r} (the rename would "
                                   "overwrite one)")
            out = {(step.to if key == step.name else key): value for key, value in out.items()}
        elif step.op == "remove":
            out.pop(step.name, None)
        elif step.op == "set" and step.name not in out:
            out[step.name] = step.value
    return out


def _dump(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def migrate_bytes(data: bytes, steps: Sequence[Step], on: str | None = None) -> bytes:
    """A transcript with ``steps`` applied to each line of kind ``on``; other lines' bytes kept."""
    out: list[bytes] = []
    for raw in data.split(b"\n")[:-1] if data.endswith(b"\n") else data.split(b"\n"):
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError):
            out.append(raw)  # not a JSON line: the checker's finding, not a migration's
            continue
        if isinstance(value, dict) and _kind_matches(value, on):
            new = apply(value, steps)
            out.append(raw if new == value and list(new) == list(value) else _dump(new))
        else:
            out.append(raw)
    return b"".join(line + b"\n" for line in out)


def first_finding(data: bytes, schema: dict[str, Any]) -> str | None:
    """The first line of ``data`` that ``schema`` does not accept, as ``line N POINTER: message``."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    validator = Draft202012Validator(schema)
    for number, raw in enumerate(data.splitlines(), 1):
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError):
            return f"line {number}: not a JSON line"
        error = best_match(validator.iter_errors(value))
        if error is not None:
            pointer = "".join(f"/{part}" for part in error.absolute_path)
            return f"line {number} {pointer or '/'}: {error.message}"
    return None


def _diff(name: str, old: bytes, new: bytes) -> list[str]:
    lines = list(difflib.unified_diff(old.decode("utf-8", "replace").splitlines(),
                                      new.decode("utf-8", "replace").splitlines(),
                                      f"a/{name}", f"b/{name}", lineterm="", n=0))
    shown = [textsafe.text(line) for line in lines[:DIFF_LINES_SHOWN]]
    if len(lines) > DIFF_LINES_SHOWN:
        shown.append(f"… {len(lines) - DIFF_LINES_SHOWN} more diff lines")
    return shown


def planned(folder: Path, steps: Sequence[Step], on: str | None) -> list[tuple[Path, bytes, bytes]]:
    """(transcript, old bytes, new bytes) for every golden in ``folder`` the steps change."""
    out = []
    for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else ():
        old = read_whole(path)
        new = migrate_bytes(old, steps, on)
        if new != old:
            out.append((path, old, new))
    return out


def _schema(root: Path, wire: str, given: str | None) -> dict[str, Any]:
    from contract.wires import get

    path = Path(given) if given else root / "schemas" / get(wire).schema_file
    try:
        document = json.loads(read_whole(path))
    except OSError as exc:
        raise MigrateError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (ValueError, RecursionError) as exc:
        raise MigrateError(f"{path} is not valid JSON: {exc}") from None
    if not isinstance(document, dict):
        raise MigrateError(f"{path} is not a JSON Schema (not an object)")
    return document


def cmd_migrate(args: argparse.Namespace) -> int:
    from contract.evolve import project_root, write_atomically

    steps: list[Step] = list(args.steps or [])
    if not steps:
        raise MigrateError("give at least one of --rename OLD=NEW, --remove NAME, --set NAME=JSON")
    root = project_root(args.root)
    wire: str = args.wire
    schema = _schema(root, wire, args.schema)
    plan = planned(root / "goldens" / wire, steps, args.on)
    out = sys.stdout
    said = ", ".join(str(s) for s in steps) + (f" on {args.on} lines" if args.on else "")
    if not plan:
        out.write(f"{wire}: no golden has a line these steps change ({textsafe.text(said)}); nothing to migrate\n")
        return EXIT_OK
    failing = [(path, finding) for path, _, new in plan if (finding := first_finding(new, schema)) is not None]
    for path, old, new in plan:
        out.write("\n".join(_diff(f"goldens/{wire}/{path.name}", old, new)) + "\n")
    under = textsafe.text(args.schema) if args.schema else f"schemas/{wire}.schema.json"
    if failing:
        out.write("".join(f"  {textsafe.text(path.stem)}: {textsafe.text(finding)}\n" for path, finding in failing))
        out.write(f"{wire}: {len(failing)} of {len(plan)} migrated goldens would not be valid under {under}; "
                  "nothing written\n")
        return EXIT_VIOLATIONS
    if args.dry_run:
        out.write(f"{wire}: would migrate {textsafe.counted(len(plan), 'golden')} ({textsafe.text(said)}), each "
                  f"valid under {under}; nothing written (--dry-run)\n")
        return EXIT_OK
    for path, _, new in plan:
        write_atomically(path, new)
    out.write(f"{wire}: migrated {textsafe.counted(len(plan), 'golden')} ({textsafe.text(said)}), each valid "
              f"under {under}; review with git diff goldens/\n")
    return EXIT_OK


def add_parser(verbs: Any, names: Sequence[str]) -> None:
    """The ``migrate`` verb's arguments (cli.py adds the parser and the handler, nothing else)."""
    migrate = verbs.add_parser("migrate", help="rewrite the goldens for a mechanical ADR change, checked under "
                                               "the new schema, shown as a diff")
    migrate.add_argument("--wire", choices=tuple(names), required=True)
    migrate.add_argument("--schema", default=None, metavar="NEW_SCHEMA",
                         help="check the migrated goldens under this schema (the ADR's; default: the one in force)")
    migrate.add_argument("--on", default=None, metavar="KIND",
                         help="only lines of this type (or type/subtype), e.g. result")
    migrate.add_argument("--rename", dest="steps", action="append", type=_typed(rename), metavar="OLD=NEW",
                         help="rename a top-level member (repeatable; steps apply in the order given)")
    migrate.add_argument("--remove", dest="steps", action="append", type=_typed(remove), metavar="NAME",
                         help="remove a top-level member")
    migrate.add_argument("--set", dest="steps", action="append", type=_typed(set_value), metavar="NAME=JSON",
                         help="add a member with this JSON value where a line lacks it (a new required member)")
    migrate.add_argument("--dry-run", action="store_true", help="show the diff and the check; write nothing")
    migrate.add_argument("--root", default=None, metavar="DIR", help="the checkout (default: found as record finds it)")


def _typed(parse: Any) -> Any:
    def convert(text: str) -> Step:
        try:
            step: Step = parse(text)
        except MigrateError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        return step
    convert.__name__ = parse.__name__  # argparse names the option's type in its error
    return convert
