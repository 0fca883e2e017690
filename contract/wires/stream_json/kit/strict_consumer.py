"""A deliberately strict stream-json consumer: the mistake ``milk-contract feed --future`` finds.

Run as ``python -m contract.reference.strict_consumer``. It reads a run as the reference consumer
does (``contract.wires.stream_json.kit.consumer``) but treats the known values as closed sets: a
line type, content block type, delta or payload type it does not know, or a member it does not
model, makes it exit 1 with a message. What it knows is read from the schema in force (its line
types, the open sets its ``type`` members document, its top-level properties), so under an ADR's
evolved schema it reads every golden written to that schema. Every golden passes; a future
variant (a new line type such as ``rate_limit_event``, say) fails, which is the breakage SDKs in
this wire family actually shipped. It exists for the suite's tests and for the quick start in
docs/consumers.md; do not copy it.
"""

from __future__ import annotations

import functools
import json
import sys
from typing import Any

from contract.checking.schema import known_types, load
from contract.evolution.surface import open_set_values
from contract.wires.stream_json.kit.consumer import read

WIRE = "stream-json"


def _documented(schema: dict[str, Any], definition: str) -> frozenset[str]:
    """The values a definition's ``type`` member documents (its open set's known values)."""
    described = schema.get("$defs", {}).get(definition, {}).get("properties", {}).get("type", {})
    return frozenset(open_set_values(str(described.get("description", ""))) or ())


@functools.cache
def known() -> tuple[dict[str, frozenset[str]], frozenset[str]]:
    """What this reader treats as closed: the values and line members the schema in force documents.

    Read from the schema (its ``oneOf`` line types, the open sets its ``type`` members document,
    its top-level properties), never from a list of ours: under an ADR's evolved schema the reader
    moves with it, and every golden written to that schema still passes.
    """
    schema = load(WIRE)
    values = {"type": known_types(WIRE), "block": _documented(schema, "content_block"),
              "delta": _documented(schema, "delta"), "event": _documented(schema, "stream_payload")}
    return values, frozenset(schema.get("properties", {}))


def _known(value: Any, known_values: frozenset[str]) -> bool:
    return isinstance(value, str) and value in known_values  # a list or an object is no known value


def reject(line: dict[str, Any]) -> str | None:
    """Why this strict reader refuses the line, or None."""
    values, members = known()
    if not _known(line.get("type"), values["type"]):
        return f"unknown line type {line.get('type')!r}"
    extra = set(line) - members
    if extra:
        return f"unknown members {sorted(extra)!r}"
    event = line.get("event")
    if isinstance(event, dict):
        if not _known(event.get("type"), values["event"]):
            return f"unknown stream event {event.get('type')!r}"
        delta = event.get("delta")
        if isinstance(delta, dict) and not _known(delta.get("type"), values["delta"]):
            return f"unknown delta {delta.get('type')!r}"
    message = line.get("message")
    for block in message.get("content", []) if isinstance(message, dict) else []:
        if isinstance(block, dict) and not _known(block.get("type"), values["block"]):
            return f"unknown block {block.get('type')!r}"
    return None


def main() -> int:
    kept: list[bytes] = []
    for number, raw in enumerate(sys.stdin.buffer, 1):
        line = json.loads(raw)
        why = reject(line) if isinstance(line, dict) else "not an object"
        if why:
            sys.stderr.write(f"strict_consumer: line {number}: {why}\n")
            return 1
        kept.append(raw)
    sys.stdout.write(json.dumps(read(kept), ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
