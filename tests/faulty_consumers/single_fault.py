"""Single-fault consumers: each reads a stream well but for one kind of future change, on which it dies.

``python tests/faulty_consumers/single_fault.py WIRE KIND`` reads a stream-json run (or a
subagent-stdio conversation) on stdin and raises on the one thing it was written without:
an unknown line type, system subtype, block type, delta or payload type, stop_reason, result
subtype, capability or role label (values outside the schema's own known sets), a member of a
free-form payload or a member on a line or block that no golden shows there (an SDK's closed
struct); for subagent-stdio, a member no golden shows on an object of its place and tag (a node's
status: a tagged-union decoder), or an event that repeats the event before it but for its revision
(a client that diffs events and asserts a change). Otherwise it exits 0.
tests/consumers/test_vector_kinds.py holds that each passes every golden and fails at least one exported
future vector: a consumer that fails on any single kind fails the vectors.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Iterator
from functools import cache
from typing import Any

Line = dict[str, Any]
STREAM_KINDS = ("line-type", "system-subtype", "block-type", "delta-type", "event-type", "payload-member",
                "optional-member", "result-subtype", "stop-reason", "capability", "role-label",
                "system-subtype-replaced")
CLIENT_KINDS = ("optional-member", "unasked-event")
FREE_FORM = ("extension", "_meta", "task", "tool_use_result")


@cache
def _known(group: str) -> frozenset[str]:
    from contract.wires.stream_json.kit.future import known

    return known(group)


def _goldens(wire: str) -> list[list[Line]]:
    from contract.goldens.store import scenarios

    return [[json.loads(raw) for raw in g.data().splitlines() if raw.strip()] for g in scenarios(wire)]


def _blocks(line: Line) -> Iterator[Line]:
    message = line.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict):
            yield block


def _free(line: Line) -> Iterator[tuple[str, Line]]:
    """(where, object) of each free-form payload in a line."""
    for key in FREE_FORM:
        if isinstance(line.get(key), dict):
            yield f"{line.get('type')}.{key}", line[key]
    event = line.get("event")
    if isinstance(event, dict):
        for key in ("extension", "_meta"):
            if isinstance(event.get(key), dict):
                yield f"event.{key}", event[key]
    for block in _blocks(line):
        for key in ("extension", "_meta", "content"):
            if isinstance(block.get(key), dict) and (key != "content" or block.get("type") == "tool_result"):
                yield f"block.{block.get('type')}.{key}", block[key]


def _shapes(line: Line) -> Iterator[tuple[str, frozenset[str]]]:
    """(place, members) of a line, its event and its blocks: what a closed struct would hold."""
    yield f"line.{line.get('type')}.{line.get('subtype')}", frozenset(line)
    if isinstance(line.get("event"), dict):
        yield f"event.{line['event'].get('type')}", frozenset(line["event"])
    for block in _blocks(line):
        yield f"block.{block.get('type')}", frozenset(block)


@cache
def _seen_members() -> dict[str, frozenset[str]]:
    seen: dict[str, set[str]] = {}
    for golden in _goldens("stream-json"):
        for line in golden:
            for where, payload in _free(line):
                seen.setdefault(where, set()).update(payload)
    return {k: frozenset(v) for k, v in seen.items()}


@cache
def _seen_shapes() -> dict[str, frozenset[str]]:
    seen: dict[str, set[str]] = {}
    for golden in _goldens("stream-json"):
        for line in golden:
            for place, members in _shapes(line):
                seen.setdefault(place, set()).update(members)
    return {k: frozenset(v) for k, v in seen.items()}


def _unknown(value: Any, group: str) -> bool:
    return isinstance(value, str) and value not in _known(group)


def _stream_fault(kind: str, line: Line) -> bool:
    t = line.get("type")
    event: Any = line.get("event") if isinstance(line.get("event"), dict) else {}  # a JSON object
    if kind == "line-type":
        return _unknown(t, "line type")
    if kind in ("system-subtype", "system-subtype-replaced"):
        return t == "system" and _unknown(line.get("subtype"), "system subtype")
    if kind == "block-type":
        return any(_unknown(b.get("type"), "content block type") for b in _blocks(line))
    if kind == "delta-type":
        delta = event.get("delta")
        return isinstance(delta, dict) and _unknown(delta.get("type"), "delta type")
    if kind == "event-type":
        return t == "stream_event" and _unknown(event.get("type"), "stream payload type")
    if kind == "result-subtype":
        return t == "result" and _unknown(line.get("subtype"), "result subtype")
    if kind == "stop-reason":
        return t == "result" and _unknown(line.get("stop_reason"), "stop_reason")
    if kind == "capability":
        caps = line.get("capabilities")
        return t == "system" and isinstance(caps, list) and any(_unknown(c, "capability") for c in caps)
    if kind == "role-label":
        return t in ("assistant", "user") and _unknown(line.get("agent"), "role label")
    if kind == "payload-member":
        return any(not set(payload) <= _seen_members().get(where, frozenset()) for where, payload in _free(line))
    if kind == "optional-member":
        return any(not members <= _seen_shapes().get(place, members) for place, members in _shapes(line))
    raise SystemExit(f"single_fault: no stream-json kind {kind!r}")


def _snapshot(line: Line) -> Any:
    return line.get("data") if line.get("type") == "response" else line.get("snapshot")


def _tag(target: Line) -> Any:
    """What a tagged-union decoder switches on: a node's status, a terminal's state, an entry's role."""
    return next((target[key] for key in ("status", "state", "role") if isinstance(target.get(key), str)), None)


@cache
def _shown() -> frozenset[tuple[str, Any, str]]:
    from contract.wires.subagent_stdio.kit.future import objects

    found: set[tuple[str, Any, str]] = set()
    for golden in _goldens("subagent-stdio"):
        host = [line for line in golden if line.get("type") in ("response", "subagent_event")]
        found.update((location, _tag(target), member) for target, location in objects(host) for member in target)
    return frozenset(found)


def _client_fault(kind: str, lines: list[Line]) -> bool:
    from contract.wires.subagent_stdio.kit.future import objects

    host = [line for line in lines if line.get("type") in ("response", "subagent_event")]
    if kind == "optional-member":  # it decodes each object as a tagged union: the members goldens show per tag
        return any((location, _tag(target), member) not in _shown()
                   for target, location in objects(host) for member in target)
    if kind == "unasked-event":  # it diffs each event against the event before and asserts a change
        for before, line in itertools.pairwise(host):
            a, b = _snapshot(before), _snapshot(line)
            if before.get("type") == line.get("type") == "subagent_event" and isinstance(a, dict) \
                    and isinstance(b, dict) and {**a, "revision": None} == {**b, "revision": None}:
                return True
        return False
    raise SystemExit(f"single_fault: no subagent-stdio kind {kind!r}")


def fires(wire: str, kind: str, data: bytes) -> bool:
    """Whether the consumer with the fault ``kind`` dies on ``data``."""
    lines = [json.loads(raw) for raw in data.splitlines() if raw.strip()]
    lines = [line for line in lines if isinstance(line, dict)]
    if wire == "subagent-stdio":
        return _client_fault(kind, lines)
    return any(_stream_fault(kind, line) for line in lines)


if __name__ == "__main__":
    wire, which = sys.argv[1], sys.argv[2]
    if fires(wire, which, sys.stdin.buffer.read()):
        raise RuntimeError(f"single_fault {which}: a value this consumer was written without")
    sys.stdout.write('{"ok": true}\n')
