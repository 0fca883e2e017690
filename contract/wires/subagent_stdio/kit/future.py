"""Future-compatible variants of a subagent-stdio host's side: what a client must take in its stride.

The subagent-stdio seed states no open set: its node status is an ``enum``, every object is
``additionalProperties: false``, and it has no descriptions. So a variant never carries an unknown
value. The kinds are the wire's one table of what a host may change
(``contract.wires.subagent_stdio.may_change``, held against the ADR gate's additive codes):

- ``optional-member``: a member the schema models but does not require, added where the golden
  has none (a node's ``activity``, ``error`` or ``tokens``, a fleet entry's ``model``, a token
  model…), its value drawn from the schema itself. Members other rules read against the rest of
  the snapshot stay out (``runId``/``workflowId``: ``sa.unique-keys``; the times: ``sa.node-times``;
  ``outcome`` and its ``success``/``exitCode``: ``sa.outcome``; ``window``/``windowPeak``: ``sa.tokens-total``);
- ``unknown-member``: a member no schema names yet, at any object the schema models (a level first,
  then an object of it; read from the schema in force): the ADR gate calls a new optional field
  additive ("consumers ignore fields they do not know"). Today's schema names every member, so
  ``check`` names that member (``sa.schema``) and nothing else, and the host's side is judged
  without it (``contract.consumers.feed_client``: a client is never failed for a host line);
- ``unasked-event``: a ``subagent_event`` the client did not ask about, pushed after a response or
  event where the host advertises ``capabilities.events``, its revision one above the highest so
  far and every later revision in that epoch moved up by one (``sa.revision-order``).

Each variant is conformant under ``check --strict``, an ``unknown-member`` change's member aside
(tests/consumers/test_future.py holds that).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import orjson
from hypothesis import strategies as st

from contract.core.jsonvalue import shown
from contract.strategies._common import ident, ints, json_values
from contract.wires.base import Future
from contract.wires.places import Place, drawn, places
from contract.wires.subagent_stdio.dialogue import command
from contract.wires.subagent_stdio.may_change import MAY_CHANGE
from contract.wires.subagent_stdio.may_change import kinds as declared_kinds

Line = dict[str, Any]
WIRE = "subagent-stdio"
KINDS = declared_kinds()  # the wire's one table (may_change.py)
VECTOR_KINDS = ("optional-member", "unasked-event")  # conformant under today's schema: the vectors' kinds
MAX_INT = 9007199254740991  # the schema's maximum for every count
# Members a drawn value could set against the rest of the snapshot: sa.unique-keys reads the
# key-like ones (siblings must differ), sa.node-times orders the times, sa.outcome reads outcome.
_KEYLIKE = frozenset({"runId", "workflowId", "key", "startedAt", "updatedAt", "endedAt", "observedAt", "outcome",
                      "window", "windowPeak", "success", "exitCode"})


def _schema(location: str) -> dict[str, Any]:
    from contract.checking.schemawalk import walker

    return walker(WIRE).at(location)


def _snapshots(lines: list[Line]) -> Iterator[dict[str, Any]]:
    for line in lines:
        snap = line.get("data") if line.get("type") == "response" else line.get("snapshot")
        if isinstance(snap, dict):
            yield snap


def _nodes(nodes: Any) -> Iterator[dict[str, Any]]:
    for node in nodes if isinstance(nodes, list) else ():
        if isinstance(node, dict):
            yield node
            yield from _nodes(node.get("children"))


def objects(lines: list[Line]) -> list[tuple[dict[str, Any], str]]:
    """(object, schema location) for each object of the host's lines an optional member may join."""
    found: list[tuple[dict[str, Any], str]] = []
    for snap in _snapshots(lines):
        fleet = snap.get("fleet")
        for entry in fleet.get("entries", []) if isinstance(fleet, dict) else []:
            if isinstance(entry, dict):
                found.append((entry, "#/$defs/fleet/properties/entries/items"))
                if isinstance(entry.get("tokens"), dict):
                    found.append((entry["tokens"], "#/$defs/tokens"))
        for node in _nodes(snap.get("runs")):
            found.append((node, "#/$defs/node"))
            for member, location in (("tokens", "#/$defs/tokens"), ("outcome", "#/$defs/node/properties/outcome"),
                                     ("processTerminal", "#/$defs/node/properties/processTerminal")):
                if isinstance(node.get(member), dict):
                    found.append((node[member], location))
    return found


def _homes(lines: list[Line]) -> list[tuple[dict[str, Any], str, str]]:
    """(object, schema location, member) for each optional member an object of the host's lines lacks."""
    found: list[tuple[dict[str, Any], str, str]] = []
    for target, location in objects(lines):
        schema = _schema(location)
        for member in schema.get("properties", {}):
            if member not in target and member not in schema.get("required", ()) and member not in _KEYLIKE:
                found.append((target, location, member))
    return found


def _events_on(lines: list[Line], at: int) -> bool:
    """Whether the latest snapshot up to line ``at`` advertises events."""
    advertised = False
    for snap in _snapshots(lines[: at + 1]):
        caps = snap.get("capabilities")
        advertised = isinstance(caps, dict) and caps.get("events") is True
    return advertised


def _places(lines: list[Line]) -> list[tuple[int, Place]]:
    """The objects of the host's lines the schema in force models (``contract.wires.places``)."""
    from contract.checking.schemawalk import walker

    return places(walker(WIRE), lines)


def available(lines: list[Line]) -> tuple[str, ...]:
    kinds = []
    if _homes(lines):
        kinds.append("optional-member")
    if _places(lines):
        kinds.append("unknown-member")
    if any(_events_on(lines, at) for at in range(len(lines))):
        kinds.append("unasked-event")
    return tuple(kind for kind in KINDS if kind in kinds)


def _revision(line: Line) -> tuple[Any, Any]:
    snap = line.get("data") if line.get("type") == "response" else line.get("snapshot")
    return (snap.get("epoch"), snap.get("revision")) if isinstance(snap, dict) else (None, None)


def _apply(draw: st.DrawFn, lines: list[Line], kind: str, unseen: frozenset[tuple[str, str]] = frozenset()) -> str:
    if kind == "unknown-member":
        number, place = drawn(_places(lines), lambda n: draw(ints(0, n - 1)))
        name = draw(ident("x_", 1, 12).filter(lambda v: v not in place.named))
        place.target[name] = draw(json_values())
        return (f"a member no schema names yet, {shown(name)}, at host line {number + 1} {place.where} "
                f"({place.level or 'top level'})")
    if kind == "optional-member":
        from contract.strategies._compose import subschema

        homes = _homes(lines)
        # a vector shows a member no golden shows at its place, where there is one (``unseen``)
        homes = [home for home in homes if (home[1], home[2]) in unseen] or homes
        target, location, member = homes[draw(ints(0, len(homes) - 1))]
        value = draw(subschema(WIRE, _schema(f"{location}/properties/{member}")))
        if member == "tokens" and isinstance(value, dict):  # sa.tokens-total: total = input + output
            value["output"] = min(value["output"], MAX_INT - value["input"])
            value["total"] = value["input"] + value["output"]
            value.pop("window", None)
            value.pop("windowPeak", None)
        if member == "processTerminal" and isinstance(value, dict):
            value.pop("observedAt", None)  # sa.node-times orders it after the node's start
        target[member] = value
        return f"the optional member {shown(member)} added ({location})"
    sites = [at for at in range(len(lines)) if _events_on(lines, at)]
    at = sites[draw(ints(0, len(sites) - 1))]
    epoch = _revision(lines[at])[0]
    top = max((r for e, r in map(_revision, lines[: at + 1]) if e == epoch and type(r) is int), default=0)
    for line in lines[at + 1:]:  # every later revision of the epoch moves up by one
        if _revision(line)[0] == epoch and type(_revision(line)[1]) is int:
            snap = line["data"] if line.get("type") == "response" else line["snapshot"]
            snap["revision"] += 1
            if line.get("type") == "subagent_event" and type(line.get("revision")) is int:
                line["revision"] += 1
    source = next(s for s in reversed(list(_snapshots(lines[: at + 1]))) if s.get("epoch") == epoch)
    snapshot = copy.deepcopy(source)
    snapshot["revision"] = top + 1
    event = {"type": "subagent_event", "version": 1, "sessionId": snapshot.get("sessionId"), "epoch": epoch,
             "revision": top + 1, "snapshot": snapshot}
    lines.insert(at + 1, event)
    return f"an event the client did not ask about (revision {top + 1}) after host line {at + 1}"


@st.composite
def _variant(draw: st.DrawFn, golden: tuple[Line, ...], kinds: tuple[str, ...],
             max_changes: int) -> tuple[list[Line], list[str]]:
    lines = copy.deepcopy(list(golden))
    picked = draw(st.lists(st.sampled_from(kinds), min_size=1, max_size=max_changes))
    return lines, [_apply(draw, lines, kind) for kind in picked]


def variants(host: list[Line], max_changes: int = 3) -> st.SearchStrategy[tuple[list[Line], list[str]]]:
    """Variants of a host's lines (responses and events, in order) and what was changed, change by change.

    ValueError when the lines have no place for any change.
    """
    kinds = available(host)
    if not kinds:
        raise ValueError("these host lines have no place for a future change")
    return _variant(tuple(host), kinds, max_changes)


def conversation(script: Any) -> bytes:
    """A client polling once per answer of ``script`` (a ``contract.consumers.feed_client.HostScript``), each
    command with the id its response carries."""
    out = b""
    for response, events in script.answers:
        out += orjson.dumps(command(response.get("id"))) + b"\n"
        out += orjson.dumps(response) + b"\n"
        out += b"".join(orjson.dumps(event) + b"\n" for event in events)
    return out


def vector(name: str, data: bytes) -> st.SearchStrategy[tuple[str, bytes]]:
    """The host-side variants of the golden ``name`` (its conversation ``data``) as (changes,
    conversation): a client polling once per answer, for the vectors."""
    from contract.consumers.feed_client import from_host_lines, host_lines, script_from

    script = script_from(name, data)
    return variants(host_lines(script)).map(
        lambda drawn: ("; ".join(drawn[1]), conversation(from_host_lines(name, drawn[0], ""))))


def _host(name: str, data: bytes) -> list[Line]:
    from contract.consumers.feed_client import host_lines, script_from

    return host_lines(script_from(name, data))


def vector_kinds(data: bytes) -> tuple[str, ...]:
    """The kinds the golden conversation ``data`` has a place for (the vectors draw one of each;
    not ``unknown-member``, whose stream is not conformant under today's schema)."""
    try:
        return tuple(kind for kind in available(_host("golden", data)) if kind in VECTOR_KINDS)
    except ValueError:
        return ()


def shown_members() -> frozenset[tuple[str, str]]:
    """(schema location, member) of every member some golden shows on an object at that location."""
    from contract.goldens.store import scenarios

    found: set[tuple[str, str]] = set()
    for golden in scenarios(WIRE):
        for target, location in objects(_host(golden.name, golden.data())):
            found.update((location, member) for member in target)
    return frozenset(found)


@st.composite
def _one(draw: st.DrawFn, golden: tuple[Line, ...], kind: str) -> tuple[list[Line], list[str]]:
    lines = copy.deepcopy(list(golden))
    shown = shown_members()
    unseen = frozenset((location, member) for _, location, member in _homes(lines) if (location, member) not in shown)
    return lines, [_apply(draw, lines, kind, unseen)]


def kind_vector(name: str, data: bytes, kind: str) -> st.SearchStrategy[tuple[str, bytes]]:
    """One change of ``kind`` to the golden ``name``'s host side, as (changes, conversation): a client
    polling once per answer. ValueError when the golden has no place for it."""
    from contract.consumers.feed_client import from_host_lines

    host = _host(name, data)
    if kind not in available(host):
        raise ValueError(f"{name}: no place for a {kind} change")
    return _one(tuple(host), kind).map(
        lambda drawn: ("; ".join(drawn[1]), conversation(from_host_lines(name, drawn[0], ""))))


OBLIGATION = ("subagent-stdio schema: a member it models but does not require may be present, and a host that "
              "advertises capabilities.events may push events between responses; a client must accept both")
FUTURE = Future(variants=variants, vector=vector, obligation=OBLIGATION, kinds=vector_kinds, of_kind=kind_vector,
                may_change=MAY_CHANGE)

__all__ = ["FUTURE", "KINDS", "OBLIGATION", "VECTOR_KINDS", "available", "conversation", "kind_vector", "objects",
           "shown_members", "variants", "vector", "vector_kinds"]
