"""What the subagent-stdio goldens must show beyond its schema's keywords (``Wire.coverage``).

Its schema states its values as ``enum`` keywords (no prose lists), so only the edge shapes
are listed here, each a test over one whole conversation.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

from contract.wires.base import Edge, Line
from contract.wires.edges import any_line, is_kind

# Enums whose values need not each appear: outcome.status must equal the node's status
# (sa.outcome), so its values follow node.status; requiring each would force an outcome on
# queued or running nodes, a shape no host produces.
EXEMPT_ENUMS: dict[str, str] = {
    "#/$defs/node/properties/outcome/properties/status": "follows node.status (sa.outcome)",
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


EDGES: dict[str, Edge] = {
    "command with id": any_line(lambda x: is_kind(x, "subagent_status") and "id" in x),
    "command without id": any_line(lambda x: is_kind(x, "subagent_status") and "id" not in x),
    "pipelined commands (a second before the first is answered)": _pipelined,
    "pushed events (subagent_event)": any_line(lambda x: is_kind(x, "subagent_event")),
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
