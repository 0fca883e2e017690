"""Strict parsing of one JSONL line: exactly one RFC 8259 JSON text, judged as the wire demands.

Python's ``json`` keeps the last of duplicate keys and accepts NaN and Infinity; orjson
rejects NaN/Infinity, invalid UTF-8 and lone surrogates, but silently keeps the last duplicate
and turns integers beyond 64 bits into floats. So the fast path parses with orjson and
re-serialises: when the compact re-serialisation equals the input byte for byte, the input
held exactly the members that were parsed (no duplicates) and every number survived exactly.
Anything else (whitespace, escapes written differently, big integers, duplicates) takes the
exact path through ``json`` with hooks, which is slower but only runs on unusual lines.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson

BOM = b"\xef\xbb\xbf"
MAX_INT_DIGITS = 4300  # Python's own int/str conversion limit; longer numbers are a line.limit
MAX_DEPTH = 1024  # orjson's nesting limit; deeper lines are a line.limit, never a RecursionError


@dataclass(frozen=True, slots=True)
class Fault:
    """A framing finding on one line: the rule, where in the line, what was found."""

    rule: str
    pointer: str | None
    message: str
    hint: str | None = None


class _Limit(Exception):
    pass


class _Constant(ValueError):
    """NaN, Infinity or -Infinity: Python's json reads them, RFC 8259 has no such numbers."""


def reject_constant(name: str) -> Any:
    """``parse_constant`` hook for ``json.loads``: strict RFC 8259 numbers only."""
    raise _Constant(f"{name} is not JSON")


class _Overflow(Exception):
    pass


def parse(body: bytes) -> tuple[Any, tuple[Fault, ...]]:
    """Parse one line (without its LF). Returns the value (None when unusable) and its faults."""
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        message = str(exc)
        if "infinity" in message:  # a float that overflows, or an integer orjson cannot hold
            return _exact(body)
        return None, _diagnose(body, message)
    try:
        if orjson.dumps(value) == body:
            return value, ()
    except orjson.JSONEncodeError:  # orjson writes at most 254 levels deep but reads 1024
        pass
    return _exact(body)


def _exact(body: bytes) -> tuple[Any, tuple[Fault, ...]]:
    """The slow, exact path: duplicate members, big integers, numbers kept as written."""
    duplicates: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(items)
        if len(obj) != len(items):
            seen: set[str] = set()
            duplicates.extend(k for k, _ in items if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        return obj

    def integer(text: str) -> int:
        if len(text) > MAX_INT_DIGITS:
            raise _Limit(f"an integer of {len(text)} digits (the checker reads at most {MAX_INT_DIGITS})")
        return int(text)

    def number(text: str) -> float:
        value = float(text)
        if value in (math.inf, -math.inf):
            raise _Overflow(text)
        return value

    try:
        value = json.loads(body, object_pairs_hook=pairs, parse_int=integer, parse_float=number,
                           parse_constant=reject_constant)
    except _Overflow as exc:
        return None, (Fault("line.json", None,
                            f"expected numbers within IEEE 754 double range, found {_clip(str(exc))} "
                            "which overflows (RFC 8259 §6)"),)
    except _Limit as exc:
        return None, (Fault("line.limit", None, str(exc)),)
    except RecursionError:
        return None, (Fault("line.limit", None, "nesting too deep for the exact parser"),)
    except ValueError as exc:  # orjson accepted it, so this should not happen
        return None, (Fault("line.json", None, f"not strict JSON: {exc}"),)
    if duplicates:
        name = duplicates[0]
        where = _first_holder(value, name)
        more = f" (and {len(duplicates) - 1} more)" if len(duplicates) > 1 else ""
        return value, (
            Fault(
                "line.duplicate-key",
                where,
                f'expected unique member names, found "{_clip(name)}" repeated{more}',
                "parsers disagree on which duplicate wins; emit each member once",
            ),
        )
    return value, ()


def _diagnose(body: bytes, orjson_message: str) -> tuple[Fault, ...]:
    """Say why a line failed to parse, in the catalog's terms."""
    if not body.strip(b" \t\r\n\f\v"):
        return (Fault("line.blank", None, "expected one JSON object, found an empty line"),)
    faults: list[Fault] = []
    if body.startswith(BOM):
        faults.append(Fault("line.utf8", None, "expected UTF-8 without a byte order mark, found a BOM",
                            "write UTF-8 without BOM"))
        return tuple(faults)
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as exc:
        found = body[exc.start : exc.start + 4].hex(" ")
        faults.append(Fault("line.utf8", None,
                            f"expected valid UTF-8, found invalid bytes {found} at byte {exc.start}"))
        return tuple(faults)
    if b"\x1b" in body:
        at = body.index(b"\x1b")
        faults.append(Fault("line.ansi", None,
                            f"expected no ANSI escapes, found a raw ESC byte at byte {at}",
                            "strip terminal colouring from machine-readable output"))
        if "control character" in orjson_message:
            return tuple(faults)
    if "depth limit" in orjson_message:
        faults.append(Fault("line.limit", None,
                            f"nesting deeper than {MAX_DEPTH} levels (the checker's limit)"))
    elif "surrogate" in orjson_message:
        faults.append(Fault("line.json", None,
                            "expected Unicode text, found a lone surrogate escape (RFC 8259 §8.2)"))
    else:
        faults.append(Fault("line.json", None, f"expected one strict JSON text, found: {_why(body, orjson_message)}"))
    return tuple(faults)


def _why(body: bytes, orjson_message: str) -> str:
    if b"NaN" in body or b"Infinity" in body:
        try:
            json.loads(body, parse_constant=reject_constant)
        except _Constant as exc:
            return f"{exc} (RFC 8259 has no NaN or Infinity)"
        except (ValueError, RecursionError):
            pass
    return orjson_message


def _first_holder(value: Any, name: str) -> str | None:
    """JSON pointer of the first object (depth first) that has member ``name``."""
    for pointer, node in walk(value):
        if isinstance(node, dict) and name in node:
            return pointer
    return None


def walk(value: Any, pointer: str = "") -> Iterator[tuple[str, Any]]:
    """Every node of a parsed value with its JSON pointer, iteratively (no recursion limit)."""
    stack: list[tuple[str, Any]] = [(pointer, value)]
    while stack:
        where, node = stack.pop()
        yield where, node
        if isinstance(node, dict):
            stack.extend((f"{where}/{escape(k)}", v) for k, v in reversed(node.items()))
        elif isinstance(node, list):
            stack.extend((f"{where}/{i}", v) for i, v in reversed(list(enumerate(node))))


def escape(token: str) -> str:
    """Escape one JSON pointer reference token (RFC 6901)."""
    return token.replace("~", "~0").replace("/", "~1")


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
