"""Mechanical golden migrations: the steps (rename, remove, set) and their effect on a transcript.

The pure part of ``milk-contract migrate`` (contract/evolution/migrate.py, the verb): what a step does to a
line's top-level members, to a whole transcript (a line the steps do not change keeps its
bytes), and the first line a schema does not accept. ``evolve`` uses the same functions to
predict what a migration would make of the goldens (contract/evolution/consequences.py), so the two can
never disagree.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

SHOWN_VALUE = 60  # characters of a rejected value shown in a finding (the message's opening repr)


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
            return f"line {number} {pointer or '/'}: {_short(error.message, error.instance)}"
    return None


def _short(message: str, instance: Any) -> str:
    """``message`` with a long repr of the value it opens with (jsonschema's messages do) cut to its
    start: the line is named by its number already, and the reason is what follows the value."""
    shown = repr(instance)
    if len(shown) > SHOWN_VALUE and message.startswith(shown):
        return shown[:SHOWN_VALUE] + "…" + message[len(shown):]
    return message
