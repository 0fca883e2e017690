"""What the stream-json goldens must show beyond its schema's keywords (``Wire.coverage``).

The known values of stream-json's open sets are stated only in prose: ``KNOWN_SETS`` says where
(the description at a schema location, and which list in it); ``values`` says where each set's
values are found in a line; ``EDGES`` are the shapes no keyword can state, each a test over one
whole transcript.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from contract.wires.base import Edge, Line
from contract.wires.edges import any_line, is_kind, obj, text

# Schema members deliberately not required, with the reason.
EXEMPT: dict[tuple[str, str], str] = {
    ("#", "total_cost_usd"): "reserved: 'emitted only once milk has a pricing table'",
}

# Known values stated in descriptions (group, schema location, which list). A list is either
# "a | b | c" (the n-th such run in the text) or "known: a, b" (-1).
KNOWN_SETS: tuple[tuple[str, str, int], ...] = (
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
)


# Where each known set's values are found in a stream-json line.
def values(group: str, line: Line) -> Iterator[str]:
    kind = line.get("type")
    if group == "line type":
        yield text(kind)
    elif (group, kind) in (("system subtype", "system"), ("result subtype", "result")):
        yield text(line.get("subtype"))
    elif group == "content block type":
        for block in _content(line):
            yield text(block.get("type"))
    elif group in ("delta type", "stream payload type") and kind == "stream_event":
        event = obj(line.get("event"))
        payload = obj(event.get("delta")) if group == "delta type" else event
        yield text(payload.get("type"))
    elif group == "role label" and kind in ("assistant", "user"):
        yield text(line.get("agent"))
    elif group == "capability" and kind == "system" and line.get("subtype") == "init":
        caps = line.get("capabilities")
        yield from (c for c in caps if isinstance(c, str)) if isinstance(caps, list) else ()
    elif group == "stop_reason" and kind == "result":
        yield text(line.get("stop_reason"))


def _content(line: Line) -> list[dict[str, Any]]:
    message = line.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _fragments(lines: list[Line]) -> bool:
    counts: dict[str, int] = {}
    for line in lines:
        event = line.get("event")
        if isinstance(event, dict) and event.get("type") == "tool_args_delta":
            ref = text(event.get("tool_use_id"))
            counts[ref] = counts.get(ref, 0) + 1
    return any(n >= 2 for n in counts.values())


def _labelled(kind: str, label: str) -> Edge:
    return any_line(lambda x: is_kind(x, kind) and x.get("agent") == label)


def _message_object(kind: str) -> Edge:
    return any_line(lambda x: is_kind(x, kind) and obj(x.get("message")).get("role") == kind)


def _nested(kind: str) -> Edge:
    return any_line(lambda x: is_kind(x, kind) and "parent_tool_use_id" in x)


EDGES: dict[str, Edge] = {
    "agent object on system/init": any_line(lambda x: is_kind(x, "system", "init")
                                        and isinstance(x.get("agent"), dict)),
    "message string on system/error": any_line(lambda x: is_kind(x, "system", "error")
                                           and isinstance(x.get("message"), str)),
    **{f"agent label {label} on {kind}": _labelled(kind, label)
       for kind in ("assistant", "user") for label in ("primary", "escalation")},
    **{f"message object with role {kind} on {kind}": _message_object(kind)
       for kind in ("assistant", "user")},
    **{f"nested {kind} line (parent_tool_use_id)": _nested(kind)
       for kind in ("system", "stream_event", "assistant", "user")},
    "tool arguments streamed in two or more tool_args_delta fragments": _fragments,
    "failed tool_result (is_error true)": any_line(
        lambda x: any(b.get("type") == "tool_result" and b.get("is_error") is True
                      for b in _content(x))),
    "escalation: escalation_agent on init and an escalation turn": lambda lines: (
        any(is_kind(x, "system", "init") and "escalation_agent" in x for x in lines)
        and any(x.get("agent") == "escalation" for x in lines)),
    "routing: route decisions and the result's route_history": lambda lines: (
        any(is_kind(x, "system", "route") for x in lines)
        and any(is_kind(x, "result") and x.get("route_history") for x in lines)),
    "result without result text (failed run)": any_line(
        lambda x: is_kind(x, "result") and x.get("is_error") is True and "result" not in x),
}
