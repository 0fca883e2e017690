"""What the golden corpus covers of each wire's catalog, and what it misses.

The required items come from the schemas wherever the schemas say them:

- every property of every object schema reachable from the root (so ``$defs/event``, which
  nothing references, is not counted), except the ones listed in ``EXEMPT`` with their reason;
- every ``enum`` value (subagent-stdio: node status, activity, processTerminal state);
- stream-json's open sets, which the schema states only in prose: the known values are read
  out of the ``description`` texts at the locations in ``KNOWN_SETS`` (for example the subtype
  description "system family: init | agent_switch | ... ; result family: success | ...").

Edge shapes no keyword can state (both forms of a dual-form field, nesting, trees three levels
deep, an epoch change, ...) are listed in ``EDGES`` per wire, each with the test that finds it.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from contract.jsonline import parse
from contract.schemawalk import EnumValue, Member, Walker, walker


@dataclass(frozen=True, order=True)
class Item:
    """One thing the goldens must show: a group (field, value, known set, edge) and its name."""

    group: str
    name: str

    def __str__(self) -> str:
        return f"{self.group}: {self.name}"


Line = dict[str, Any]

# Schema members deliberately not required, with the reason.
EXEMPT: dict[str, dict[tuple[str, str], str]] = {
    "stream-json": {
        ("#", "total_cost_usd"): "reserved: 'emitted only once milk has a pricing table'",
    },
    "subagent-stdio": {},
}
# Enums whose values need not each appear: outcome.status must equal the node's status
# (sa.outcome), so its values follow node.status; requiring each would force an outcome on
# queued or running nodes, a shape no host produces.
EXEMPT_ENUMS = {"#/$defs/node/properties/outcome/properties/status"}

# stream-json known values, stated in descriptions (group, schema location, which list).
# A list is either "a | b | c" (KNOWN_BAR: the n-th such run in the text) or "known: a, b".
KNOWN_SETS: dict[str, tuple[tuple[str, str, int], ...]] = {
    "stream-json": (
        # "line discriminator — system | stream_event | assistant | user | result (open set ...)"
        ("line type", "#/properties/type", 0),
        # "system family: init | ... | error; result family: success | ... | refused (...)"
        ("system subtype", "#/properties/subtype", 0),
        ("result subtype", "#/properties/subtype", 1),
        # "text | thinking | tool_use | tool_result (open set)"
        ("content block type", "#/$defs/content_block/properties/type", 0),
        # "text_delta | thinking_delta (open set)"
        ("delta type", "#/$defs/delta/properties/type", 0),
        # "content_block_delta | tool_args_delta (open set)"
        ("stream payload type", "#/$defs/stream_payload/properties/type", 0),
        # "a role label string (primary | escalation) on assistant/user lines"
        ("role label", "#/properties/agent", 0),
        # "open-set strings (known: stream_v1, partial_messages_v1, tasks_v1, workflows_v1)"
        ("capability", "#/properties/capabilities", -1),
        # "open set (known: end_turn, max_turns, refusal, cancelled, error)"
        ("stop_reason", "#/properties/stop_reason", -1),
    ),
    "subagent-stdio": (),
}
_BAR_LIST = re.compile(r"\w+(?:\s*\|\s*\w+)+")
_KNOWN_LIST = re.compile(r"known: ([\w, ]+)")


def known_values(walk: Walker, location: str, which: int) -> tuple[str, ...]:
    """The values a description lists: the which-th "a | b" run, or (-1) its "known: a, b"."""
    text = walk.at(location).get("description", "")
    if which < 0:
        match = _KNOWN_LIST.search(text)
        if match is None:
            raise LookupError(f"no 'known:' list in the description at {location}")
        return tuple(v.strip() for v in match.group(1).split(",") if v.strip())
    runs = _BAR_LIST.findall(text)
    if which >= len(runs):
        raise LookupError(f"no list number {which + 1} in the description at {location}")
    return tuple(v.strip() for v in runs[which].split("|"))


# Where each known set's values are found in a stream-json line.
def _sj_values(group: str, line: Line) -> Iterator[str]:
    kind = line.get("type")
    if group == "line type":
        yield _text(kind)
    elif (group, kind) in (("system subtype", "system"), ("result subtype", "result")):
        yield _text(line.get("subtype"))
    elif group == "content block type":
        for block in _content(line):
            yield _text(block.get("type"))
    elif group in ("delta type", "stream payload type") and kind == "stream_event":
        event = _obj(line.get("event"))
        payload = _obj(event.get("delta")) if group == "delta type" else event
        yield _text(payload.get("type"))
    elif group == "role label" and kind in ("assistant", "user"):
        yield _text(line.get("agent"))
    elif group == "capability" and kind == "system" and line.get("subtype") == "init":
        caps = line.get("capabilities")
        yield from (c for c in caps if isinstance(c, str)) if isinstance(caps, list) else ()
    elif group == "stop_reason" and kind == "result":
        yield _text(line.get("stop_reason"))


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _content(line: Line) -> list[dict[str, Any]]:
    message = line.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


# Edge shapes: name -> test over one whole transcript (its parsed lines).
Edge = Callable[[list[Line]], bool]


def _any(test: Callable[[Line], bool]) -> Edge:
    return lambda lines: any(test(line) for line in lines)


def _is(line: Line, kind: str, subtype: str | None = None) -> bool:
    return line.get("type") == kind and (subtype is None or line.get("subtype") == subtype)


def _fragments(lines: list[Line]) -> bool:
    counts: dict[str, int] = {}
    for line in lines:
        event = line.get("event")
        if isinstance(event, dict) and event.get("type") == "tool_args_delta":
            ref = _text(event.get("tool_use_id"))
            counts[ref] = counts.get(ref, 0) + 1
    return any(n >= 2 for n in counts.values())


def _labelled(kind: str, label: str) -> Edge:
    return _any(lambda x: _is(x, kind) and x.get("agent") == label)


def _message_object(kind: str) -> Edge:
    return _any(lambda x: _is(x, kind) and _obj(x.get("message")).get("role") == kind)


def _nested(kind: str) -> Edge:
    return _any(lambda x: _is(x, kind) and "parent_tool_use_id" in x)


SJ_EDGES: dict[str, Edge] = {
    "agent object on system/init": _any(lambda x: _is(x, "system", "init")
                                        and isinstance(x.get("agent"), dict)),
    "message string on system/error": _any(lambda x: _is(x, "system", "error")
                                           and isinstance(x.get("message"), str)),
    **{f"agent label {label} on {kind}": _labelled(kind, label)
       for kind in ("assistant", "user") for label in ("primary", "escalation")},
    **{f"message object with role {kind} on {kind}": _message_object(kind)
       for kind in ("assistant", "user")},
    **{f"nested {kind} line (parent_tool_use_id)": _nested(kind)
       for kind in ("system", "stream_event", "assistant", "user")},
    "tool arguments streamed in two or more tool_args_delta fragments": _fragments,
    "failed tool_result (is_error true)": _any(
        lambda x: any(b.get("type") == "tool_result" and b.get("is_error") is True
                      for b in _content(x))),
    "escalation: escalation_agent on init and an escalation turn": lambda lines: (
        any(_is(x, "system", "init") and "escalation_agent" in x for x in lines)
        and any(x.get("agent") == "escalation" for x in lines)),
    "routing: route decisions and the result's route_history": lambda lines: (
        any(_is(x, "system", "route") for x in lines)
        and any(_is(x, "result") and x.get("route_history") for x in lines)),
    "result without result text (failed run)": _any(
        lambda x: _is(x, "result") and x.get("is_error") is True and "result" not in x),
}


def _snapshots(line: Line) -> Iterator[dict[str, Any]]:
    for key in ("data", "snapshot"):
        snap = line.get(key)
        if isinstance(snap, dict):
            yield snap


def _depth(nodes: Any) -> int:
    if not isinstance(nodes, list) or not nodes:
        return 0
    return 1 + max(_depth(n.get("children")) if isinstance(n, dict) else 0 for n in nodes)


def _nodes(nodes: Any) -> Iterator[dict[str, Any]]:
    for node in nodes if isinstance(nodes, list) else ():
        if isinstance(node, dict):
            yield node
            yield from _nodes(node.get("children"))


def _snap(test: Callable[[dict[str, Any]], bool]) -> Edge:
    return lambda lines: any(test(s) for line in lines for s in _snapshots(line))


def _node(test: Callable[[dict[str, Any]], bool]) -> Edge:
    return _snap(lambda s: any(test(n) for n in _nodes(s.get("runs"))))


def _epochs(lines: list[Line]) -> bool:
    return len({s.get("epoch") for line in lines for s in _snapshots(line)}) >= 2


def _pipelined(lines: list[Line]) -> bool:
    kinds = [line.get("type") for line in lines]
    return any(a == b == "subagent_status" for a, b in itertools.pairwise(kinds))


def _outcome(success: bool) -> Edge:
    return _node(lambda n: isinstance(n.get("outcome"), dict)
                 and n["outcome"].get("success") is success)


SA_EDGES: dict[str, Edge] = {
    "command with id": _any(lambda x: _is(x, "subagent_status") and "id" in x),
    "command without id": _any(lambda x: _is(x, "subagent_status") and "id" not in x),
    "pipelined commands (a second before the first is answered)": _pipelined,
    "pushed events (subagent_event)": _any(lambda x: _is(x, "subagent_event")),
    "capabilities.events false": _snap(lambda s: s.get("capabilities", {}).get("events") is False),
    "available false": _snap(lambda s: s.get("available") is False),
    "null sessionId": _snap(lambda s: "sessionId" in s and s["sessionId"] is None),
    "epoch change within a conversation": _epochs,
    "run tree at least three levels deep": _snap(lambda s: _depth(s.get("runs")) >= 3),
    "omitted.runs above zero": _snap(lambda s: s.get("omitted", {}).get("runs", 0) > 0),
    "omitted.children above zero": _snap(lambda s: s.get("omitted", {}).get("children", 0) > 0),
    "node omittedChildren above zero": _node(lambda n: n.get("omittedChildren", 0) > 0),
    "fleet.omitted above zero": _snap(lambda s: s.get("fleet", {}).get("omitted", 0) > 0),
    "outcome success true": _outcome(True),
    "outcome success false": _outcome(False),
}
EDGES: dict[str, dict[str, Edge]] = {"stream-json": SJ_EDGES, "subagent-stdio": SA_EDGES}


@functools.cache
def required(wire: str) -> frozenset[Item]:
    """Everything the goldens of ``wire`` must show (the wire's surface, computed once)."""
    walk = walker(wire)
    items: set[Item] = set()
    for loc in walk.reachable():
        schema = walk.at(loc)
        for key in schema.get("properties", {}):
            if (loc, key) not in EXEMPT[wire]:
                items.add(Item("field", f"{loc} {key}"))
        if "enum" in schema and loc not in EXEMPT_ENUMS:
            items.update(Item("value", f"{loc} {_show(v)}") for v in schema["enum"])
    for group, loc, which in KNOWN_SETS[wire]:
        items.update(Item(group, v) for v in known_values(walk, loc, which))
    items.update(Item("edge", name) for name in EDGES[wire])
    return frozenset(items)


def covered(wire: str, transcripts: Iterable[bytes]) -> frozenset[Item]:
    """Everything the given transcripts show (of what ``required`` can ask for)."""
    items: set[Item] = set()
    for data in transcripts:
        items |= covered_lines(wire, _lines(data))
    return frozenset(items)


def covered_lines(wire: str, lines: list[Line]) -> frozenset[Item]:
    """Everything one transcript's parsed lines show (edges judged over these lines together)."""
    walk = walker(wire)
    items: set[Item] = set()
    for line in lines:
        items.update(_schema_items(walk, line))
        for group, _, _ in KNOWN_SETS[wire]:
            items.update(Item(group, v) for v in _sj_values(group, line) if v)
    items.update(Item("edge", name) for name, test in EDGES[wire].items() if test(lines))
    return frozenset(items)


def schema_items(walk: Walker, line: Line) -> Iterator[Item]:
    """The fields and enum values one parsed line shows."""
    return _schema_items(walk, line)


def known_values_in(group: str, line: Line) -> Iterator[str]:
    """The values of a known set (``KNOWN_SETS``) one parsed line shows."""
    return _sj_values(group, line)


def _schema_items(walk: Walker, line: Line) -> Iterator[Item]:
    for found in walk.walk(line):
        if isinstance(found, Member):
            yield Item("field", f"{found.schema} {found.key}")
        elif isinstance(found, EnumValue):
            yield Item("value", f"{found.schema} {_show(found.value)}")


def gaps(wire: str, transcripts: Iterable[bytes]) -> list[Item]:
    """Required items no transcript covers, sorted (empty when the corpus is complete)."""
    return sorted(required(wire) - covered(wire, transcripts))


def _lines(data: bytes) -> list[Line]:
    lines: list[Line] = []
    for body in data.split(b"\n"):
        if body.strip():
            value, _ = parse(body)
            if isinstance(value, dict):
                lines.append(value)
    return lines


def _show(value: Any) -> str:
    return value if isinstance(value, str) else repr(value)
