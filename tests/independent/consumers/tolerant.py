"""A stream-json consumer written from docs/consumers.md and the seed alone: tolerant and honest.

It reads the whole run from stdin, ignores every line type, member and value it does not know
("consumers must ignore values they don't recognize"), and prints one JSON object on its last
stdout line: ``{"is_error": ..., "result": ...}`` from the result line. It exits 0 only when the
stream is a whole run as the seed frames it ("system/init first; exactly one terminal result
last", every line a JSON object) and a known result subtype agrees with ``is_error`` (the boolean
contract); otherwise the run's outcome is not known: it prints ``"is_error": null`` and exits 3.

The other consumers of this folder are this one with one fault (:func:`main`'s switches).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

SCHEMA = Path(__file__).resolve().parents[3] / "schemas" / "stream-json.schema.json"
SEED_TYPES = frozenset({"system", "stream_event", "assistant", "user", "result"})


def known_types() -> frozenset[str]:
    """The line types the schema in force names by const (the seed's five, and any an ADR took in since):
    a consumer written against the wire as it is, which still meets unknown ones under --future."""
    try:
        schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
        named = {b["properties"]["type"]["const"] for b in schema.get("oneOf", [])
                 if isinstance(b, dict) and isinstance(b.get("properties", {}).get("type", {}).get("const"), str)}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return SEED_TYPES
    return frozenset(named) or SEED_TYPES
FAILED = frozenset({"error_during_execution", "error_max_turns", "interrupted"})
NOT_FAILED = frozenset({"success", "refused"})
UNKNOWN_OUTCOME = 3


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        node: Any = root
        for token in str(schema["$ref"]).removeprefix("#/").split("/"):
            node = node[token]
        schema = node
    return schema


def _properties(schema: dict[str, Any], root: dict[str, Any]) -> tuple[dict[str, Any], Any] | None:
    """The members a (resolved) object schema models and its additionalProperties, or None."""
    schema = _resolve(schema, root)
    parts = [schema, *(_resolve(sub, root) for sub in schema.get("allOf", []))]
    props: dict[str, Any] = {}
    extra: Any = True
    modeled = False
    for part in parts:
        if "properties" in part or "additionalProperties" in part:
            modeled = True
            props.update(part.get("properties", {}))
            if "additionalProperties" in part:
                extra = part["additionalProperties"]
    return (props, extra) if modeled else None


def unknown_member(value: Any, schema: dict[str, Any], root: dict[str, Any], where: str = "") -> str | None:
    """The pointer of the first member the seed does not model, inside a modeled object; else None.

    Free-form payloads (a member with no type, such as ``extension``, ``input`` or ``task``) are not
    entered: anything may be in them.
    """
    schema = _resolve(schema, root)
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            found = unknown_member(item, schema["items"], root, f"{where}/{index}")
            if found:
                return found
        return None
    if not isinstance(value, dict):
        return None
    for branch in schema.get("oneOf", []) if "properties" not in schema else []:
        if _resolve(branch, root).get("type") == "object":
            return unknown_member(value, branch, root, where)
    modeled = _properties(schema, root)
    if modeled is None:
        return None
    props, extra = modeled
    for key, member in value.items():
        if key in props:
            found = unknown_member(member, props[key], root, f"{where}/{key}")
        elif isinstance(extra, dict):
            found = unknown_member(member, extra, root, f"{where}/{key}")
        else:
            found = f"{where}/{key}"
        if found:
            return found
    return None


def _report(is_error: Any, result: Any, status: int) -> int:
    sys.stdout.write(json.dumps({"is_error": is_error, "result": result}) + "\n")
    return status


def main(reject_unknown_types: bool = False, reject_unknown_members: bool = False, always_success: bool = False) -> int:
    """Read a run on stdin and report it; each switch is one fault of the consumers of this folder.

    ``reject_unknown_types``: exit 3 on a line of a type the schema in force does not name.
    ``reject_unknown_members``: exit 3 on a member the seed does not model, at any object level.
    ``always_success``: exit 0 whatever the stream was, reporting its result line (a success when
    there is none).
    """
    data = sys.stdin.buffer.read()  # the whole stream, first: none of these stops reading early
    root: dict[str, Any] = json.loads(SCHEMA.read_text(encoding="utf-8")) if reject_unknown_members else {}
    known = known_types() if reject_unknown_types else SEED_TYPES
    lines: list[Any] = []
    whole = data.endswith(b"\n")
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        try:
            lines.append(json.loads(raw.decode("utf-8")))
        except ValueError:
            lines.append(None)
    for line in lines:
        if not isinstance(line, dict):
            continue
        if reject_unknown_types and line.get("type") not in known:
            sys.stderr.write(f"unknown line type {line.get('type')!r}\n")
            return UNKNOWN_OUTCOME
        if reject_unknown_members:
            found = unknown_member(line, root, root)
            if found:
                sys.stderr.write(f"unknown member {found}\n")
                return UNKNOWN_OUTCOME
    results = [line for line in lines if isinstance(line, dict) and line.get("type") == "result"]
    if always_success:  # the result line's values where there is one, else a success
        last = results[-1] if results else {"is_error": False, "result": ""}
        return _report(last.get("is_error"), last.get("result"), 0)
    first = lines[0] if lines else None
    if (
        not whole
        or not isinstance(first, dict)
        or (first.get("type"), first.get("subtype")) != ("system", "init")
        or any(not isinstance(line, dict) for line in lines)
        or len(results) != 1
        or lines[-1] is not results[0]
    ):
        return _report(None, None, UNKNOWN_OUTCOME)
    result = results[0]
    is_error, subtype = result.get("is_error"), result.get("subtype")
    if not isinstance(is_error, bool) or (subtype in FAILED and not is_error) or (subtype in NOT_FAILED and is_error):
        return _report(None, None, UNKNOWN_OUTCOME)
    return _report(is_error, result.get("result"), 0)


if __name__ == "__main__":
    sys.exit(main())
