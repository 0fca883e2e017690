"""Future-compatible variants of a stream-json golden: what a producer may add without a new ADR.

The seed obliges consumers: "open-set enums everywhere — this schema documents known values in
descriptions but does not constrain them, and consumers must ignore values they don't recognize".
:func:`variants` draws a golden transformed only in the ways the seed allows, one list of
:class:`Change` s at a time (so hypothesis shrinks a failure to the fewest changes, each to its
simplest value):

- ``line-type``: an unknown line ``type`` between two lines ("open set: ignore unknown values");
- ``system-subtype``: a system line of an unknown subtype ("open sets — ignore unrecognized values");
- ``block-type``: an unknown content block in a message ("text | thinking | tool_use | tool_result (open set)");
- ``delta-type`` / ``event-type``: an interleaved stream_event line whose delta or payload type is
  unknown ("(open set)"), only where init advertises partial_messages_v1 (sj.capabilities);
- ``payload-member``: an unknown member inside an existing extension, _meta or free-form payload
  (task, tool_use_result, an object tool_result content) — never tool_use.input, whose value the
  tool_args_delta fragments must spell (sj.tool-args-reassembly);
- ``optional-member``: an optional member the schema models (extension, _meta; total_cost_usd on the
  result) added where the golden has none;
- ``unknown-member``: a member no schema names, at any object the schema models (the top level of
  every line kind, message, a content block, usage, the agent object, a stream payload, its delta,
  ...): what the next additive revision may add (the ADR gate's ``optional-field-added``, "consumers
  ignore fields they do not know"; the seed: "Evolution is additive-only"). Which objects the schema
  models, and which members it names there, are read from the schema in force
  (``contract.checking.schemawalk``), never listed here. Under today's schema these objects are
  ``additionalProperties: false``, so such a variant is conformant but for that member
  (``check --strict`` names it, ``sj.schema``, and nothing else);
- ``open-value``: a known value of an open set replaced by an unknown one (stop_reason, the role
  label, a non-init system subtype, the result subtype — is_error stays "the boolean contract") or an
  unknown capability added.

Which kinds there are is the wire's one table of what a producer may change
(``contract.wires.stream_json.may_change``, shared with the ADR gate's additive codes).
The known values are read from the schema's own prose (``contract.checking.coverage.known_values`` over the
wire's ``Coverage.known_sets``); an unknown value is never one of them. After the changes seq is
renumbered from the first line's and an inserted line repeats the ts of the line before it, so every
variant stays conformant under ``check --strict``, an ``unknown-member`` change's member aside
(tests/consumers/test_future.py holds that).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

import orjson
from hypothesis import strategies as st

from contract.core.jsonvalue import shown
from contract.core.textsafe import counted
from contract.strategies._common import ident, ints, json_objects, json_values, render, text
from contract.wires.base import Future
from contract.wires.places import Place, drawn
from contract.wires.places import places as wire_places
from contract.wires.stream_json.may_change import MAY_CHANGE
from contract.wires.stream_json.may_change import kinds as declared_kinds

Line = dict[str, Any]
WIRE = "stream-json"

# Realistic unknown values first (hypothesis shrinks towards the first), then generated ones.
REALISTIC: dict[str, tuple[str, ...]] = {
    "line type": ("rate_limit_event", "control_request", "keep_alive"),
    "system subtype": ("compact_boundary", "hook_response", "api_retry"),
    "result subtype": ("error_budget_exceeded", "cancelled_by_host"),
    "content block type": ("redacted_thinking", "server_tool_use", "image"),
    "delta type": ("signature_delta", "citations_delta", "input_json_delta"),
    "stream payload type": ("message_start", "content_block_start", "ping"),
    "role label": ("reviewer", "planner"),
    "capability": ("images_v1", "hooks_v1"),
    "stop_reason": ("pause_turn", "stop_sequence"),
}
REALISTIC_MEMBERS = ("cache_hint", "trace_id", "priority")  # kept only where the schema does not name them
KINDS = declared_kinds()  # the wire's one table (may_change.py): the ADR gate's additive codes -> these kinds
_FREE_FORM = ("extension", "_meta", "task", "tool_use_result")  # free-form members of a line
_BLOCK_FREE = ("extension", "_meta")  # of a content block or a stream payload
_PARTIAL = "partial_messages_v1"


@cache
def known(group: str) -> frozenset[str]:
    """The known values of one open set, as the schema's descriptions list them."""
    from contract.checking.coverage import known_values
    from contract.checking.schemawalk import walker
    from contract.wires import get

    walk = walker(WIRE)
    for name, location, which in get(WIRE).coverage.known_sets:
        if name == group:
            return frozenset(known_values(walk, location, which))
    raise LookupError(f"no known set {group!r} for {WIRE}")


@cache
def unknown(group: str) -> st.SearchStrategy[str]:
    """A value outside the known set ``group`` (realistic names first, then generated ones)."""
    taken = known(group)
    return st.one_of(st.sampled_from(REALISTIC[group]), ident("x_", 1, 12)).filter(lambda v: v not in taken)


@dataclass(frozen=True)
class Change:
    """One change a producer may make; ``what`` says it for a person (escaped where printed);
    ``member``, ``level``: of an ``unknown-member`` change, the member added (no schema names it) and where."""

    kind: str
    what: str
    member: str = ""
    level: str = ""  # of an unknown-member change, the object level (the gate's surface path; "" for a line's top)


@dataclass(frozen=True)
class Variant:
    """A golden with changes applied: the bytes to feed, and what was changed."""

    scenario: str
    changes: tuple[Change, ...]
    data: bytes

    @property
    def name(self) -> str:
        return f"{self.scenario}+{'+'.join(c.kind for c in self.changes)}" if self.changes else self.scenario

    def describe(self) -> str:
        return "; ".join(c.what for c in self.changes) if self.changes else "the golden as recorded"


def _messages(lines: list[Line]) -> Iterator[tuple[int, list[Any]]]:
    for number, line in enumerate(lines):
        message = line.get("message")
        if line.get("type") in ("assistant", "user") and isinstance(message, dict):
            content = message.get("content")
            if isinstance(content, list):
                yield number, content


def _unknown_block(draw: st.DrawFn, lines: list[Line]) -> str:
    """A ``block-type`` change: an unknown content block in a message (its deltas' indexes moved)."""
    messages = list(_messages(lines))
    number, content = messages[draw(ints(0, len(messages) - 1))]
    index = draw(ints(0, len(content)))
    value = draw(unknown("content block type"))
    block: Line = {"type": value}
    if draw(st.booleans()):
        block["_meta"] = draw(json_objects())
    content.insert(index, block)
    if lines[number].get("type") == "assistant":
        _shift_deltas(lines, number, index)
    return f"an unknown content block {shown(value)} at line {number + 1} block {index}"


def _shift_deltas(lines: list[Line], number: int, index: int) -> None:
    """A block inserted at ``index`` of the assistant line ``number`` moves the blocks after it one
    place on: the deltas streamed for them before that line (back to the assistant line before it)
    name their block by its index (sj.delta-reassembly), so theirs move with them."""
    for line in reversed(lines[:number]):
        if line.get("type") == "assistant":
            return
        event = line.get("event")
        if line.get("type") == "stream_event" and isinstance(event, dict) and type(event.get("index")) is int \
                and event["index"] >= index:
            event["index"] += 1


def _free_objects(lines: list[Line]) -> list[tuple[str, dict[str, Any]]]:
    """Every existing free-form object a member may be added to, with where it is."""
    found: list[tuple[str, dict[str, Any]]] = []
    for number, line in enumerate(lines):
        for key in _FREE_FORM:
            if isinstance(line.get(key), dict):
                found.append((f"line {number + 1} {key}", line[key]))
        event = line.get("event")
        if line.get("type") == "stream_event" and isinstance(event, dict):
            found.extend((f"line {number + 1} event.{k}", event[k])
                         for k in _BLOCK_FREE if isinstance(event.get(k), dict))
    for number, content in _messages(lines):
        for index, block in enumerate(content):
            if not isinstance(block, dict):
                continue
            keys = (*_BLOCK_FREE, "content") if block.get("type") == "tool_result" else _BLOCK_FREE
            found.extend((f"line {number + 1} block {index} {k}", block[k]) for k in keys
                         if isinstance(block.get(k), dict))
    return found


def _member_homes(lines: list[Line]) -> list[tuple[str, dict[str, Any], str]]:
    """Objects that lack an optional modeled member the seed lets a producer add: (where, obj, name)."""
    homes: list[tuple[str, dict[str, Any], str]] = []
    for number, line in enumerate(lines):
        homes.extend((f"line {number + 1}", line, k) for k in ("extension", "_meta") if k not in line)
        if line.get("type") == "result" and "total_cost_usd" not in line:
            homes.append((f"line {number + 1}", line, "total_cost_usd"))
        event = line.get("event")
        if line.get("type") == "stream_event" and isinstance(event, dict):
            homes.extend((f"line {number + 1} event", event, k) for k in _BLOCK_FREE if k not in event)
    for number, content in _messages(lines):
        for index, block in enumerate(content):
            if isinstance(block, dict):
                homes.extend((f"line {number + 1} block {index}", block, k) for k in _BLOCK_FREE if k not in block)
    return homes


def places(lines: list[Line]) -> list[tuple[int, Place]]:
    """Every object of ``lines`` the schema in force models, with its line's index: where an
    ``unknown-member`` change may put a member (free-form payloads are ``payload-member``'s)."""
    from contract.checking.schemawalk import walker

    return wire_places(walker(WIRE), lines)


@cache
def _unknown_member(named: frozenset[str]) -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(REALISTIC_MEMBERS), ident("x_", 1, 12)).filter(lambda v: v not in named)


def _open_values(lines: list[Line]) -> list[tuple[str, str, Line]]:
    """Known values in open sets that may be replaced (or, for capabilities, joined) by unknown ones."""
    sites: list[tuple[str, str, Line]] = []
    for line in lines:
        kind = line.get("type")
        if kind == "result":
            sites.append(("stop_reason", "stop_reason", line))
            if isinstance(line.get("is_error"), bool):  # is_error stays: "the boolean contract"
                sites.append(("result subtype", "subtype", line))
        elif kind == "system" and line.get("subtype") == "init" and isinstance(line.get("capabilities"), list):
            sites.append(("capability", "capabilities", line))
        elif kind == "system" and isinstance(line.get("subtype"), str) and line.get("subtype") not in _SUBTYPE_BOUND:
            sites.append(("system subtype", "subtype", line))
        elif kind in ("assistant", "user") and isinstance(line.get("agent"), str):
            sites.append(("role label", "agent", line))
    return sites


# System subtypes whose meaning other rules read (init comes first; task lines are tracked by id):
# replacing them is not a producer's additive change, so they stay.
_SUBTYPE_BOUND = frozenset({"init", "task_started", "task_progress", "task_notification",
                            "background_tasks_changed"})


def _partial(lines: list[Line]) -> bool:
    caps = lines[0].get("capabilities") if lines else None
    return isinstance(caps, list) and _PARTIAL in caps


def _envelope(lines: list[Line], at: int, kind: str) -> Line:
    """A new line's envelope: the run's session, the ts of the line before (seq is renumbered later)."""
    before = lines[at - 1]
    return {"type": kind, "session_id": lines[0].get("session_id"), "seq": 0, "ts": before.get("ts")}


def available(lines: list[Line]) -> tuple[str, ...]:
    """The kinds of change this golden has a place for."""
    if len(lines) < 2:
        return ()
    kinds = ["line-type", "system-subtype"]
    if any(True for _ in _messages(lines)):
        kinds.append("block-type")
    if _partial(lines):
        kinds += ["delta-type", "event-type"]
    if _free_objects(lines):
        kinds.append("payload-member")
    kinds.append("optional-member")  # every line can take extension or _meta
    kinds.append("unknown-member")  # every line is an object the schema models
    if _open_values(lines):
        kinds.append("open-value")
    return tuple(kind for kind in KINDS if kind in kinds)


def _apply(draw: st.DrawFn, lines: list[Line], kind: str, group: str | None = None) -> str:
    """Apply one change of ``kind`` to ``lines`` in place; what it did (``group``: of an open-value
    change, only that open set's sites)."""
    # between init (first) and result (last): "system/init first; exactly one terminal result last"
    at = draw(ints(1, len(lines) - 1))
    if kind == "line-type":
        value = draw(unknown("line type"))
        line = _envelope(lines, at, value)
        if draw(st.booleans()):
            line["extension"] = draw(json_objects())
        lines.insert(at, line)
        return f"an unknown line type {shown(value)} before line {at + 1}"
    if kind == "system-subtype":
        value = draw(unknown("system subtype"))
        line = _envelope(lines, at, "system")
        line["subtype"] = value
        lines.insert(at, line)
        return f"a system line of unknown subtype {shown(value)} before line {at + 1}"
    if kind in ("delta-type", "event-type"):
        if kind == "delta-type":
            value = draw(unknown("delta type"))
            event: Line = {"type": "content_block_delta", "index": draw(ints(0, 3)), "delta": {"type": value}}
        else:
            value = draw(unknown("stream payload type"))
            event = {"type": value}
        line = _envelope(lines, at, "stream_event")
        line["event"] = event
        lines.insert(at, line)
        return f"a stream_event of unknown {kind.split('-')[0]} type {shown(value)} before line {at + 1}"
    if kind == "block-type":
        return _unknown_block(draw, lines)
    if kind == "payload-member":
        objects = _free_objects(lines)
        where, target = objects[draw(ints(0, len(objects) - 1))]
        name = draw(text(min_size=1, max_size=8))
        target[name] = draw(json_values())
        return f"an unknown member {shown(name)} in {where}"
    if kind == "optional-member":
        homes = _member_homes(lines)
        where, target, name = homes[draw(ints(0, len(homes) - 1))]
        target[name] = draw(st.floats(0, 100, allow_nan=False)) if name == "total_cost_usd" else draw(json_objects())
        return f"the optional member {shown(name)} added to {where}"
    sites = [site for site in _open_values(lines) if group is None or site[0] == group]
    group, member, line = sites[draw(ints(0, len(sites) - 1))]
    value = draw(unknown(group))
    if group == "capability":
        line[member].append(value)
        return f"an unknown capability {shown(value)} advertised"
    old = line.get(member)
    line[member] = value
    return f"the {group} {shown(old)} replaced by the unknown {shown(value)}" if old is not None else \
        f"an unknown {group} {shown(value)} added"


def _change(draw: st.DrawFn, lines: list[Line], kind: str, group: str | None = None) -> Change:
    """One change of ``kind`` applied to ``lines`` in place."""
    if kind == "unknown-member":
        # a level few objects hold (escalation_agent, a route hop) is drawn as often as a line's top level
        number, place = drawn(places(lines), lambda n: draw(ints(0, n - 1)))
        name = draw(_unknown_member(place.named))
        place.target[name] = draw(json_values())
        return Change(kind, f"a member no schema names yet, {shown(name)}, at line {number + 1} {place.where} "
                            f"({place.level or 'top level'})", name, place.level)
    return Change(kind, _apply(draw, lines, kind, group))


def _renumber(lines: list[Line]) -> None:
    first = lines[0].get("seq")
    if type(first) is not int:
        return
    for offset, line in enumerate(lines):
        line["seq"] = first + offset


@st.composite
def _variant(draw: st.DrawFn, scenario: str, golden: tuple[Line, ...], kinds: tuple[str, ...],
             max_changes: int) -> Variant:
    lines = copy.deepcopy(list(golden))
    picked = draw(st.lists(st.sampled_from(kinds), min_size=1, max_size=max_changes))
    changes = tuple(_change(draw, lines, kind) for kind in picked)
    _renumber(lines)
    return Variant(scenario, changes, render(lines))


def variants(scenario: str, golden: list[Line], max_changes: int = 4) -> st.SearchStrategy[Variant]:
    """Future-compatible variants of one golden (parsed lines), one to ``max_changes`` changes each.

    ValueError when the golden has no place for any change (fewer than two lines).
    """
    kinds = available(golden)
    if not kinds:
        raise ValueError(f"{scenario}: a golden of {counted(len(golden), 'line')} has no place for a future change")
    return _variant(scenario, tuple(golden), kinds, max_changes)


def vector(scenario: str, data: bytes) -> st.SearchStrategy[tuple[str, bytes]]:
    """The variants of the golden ``scenario`` (its transcript ``data``) as (changes, stream), for the vectors."""
    golden = [orjson.loads(raw) for raw in data.split(b"\n") if raw.strip()]
    return variants(scenario, golden).map(lambda variant: (variant.describe(), variant.data))


# The vectors' kinds (``contract.vectors``): each change kind, with ``open-value`` split by its open
# set, so a consumer that fails on one of them (an unknown stop_reason, say) fails a vector of its own.
VECTOR_KINDS: dict[str, tuple[str, str | None]] = {
    "line-type": ("line-type", None),
    "system-subtype": ("system-subtype", None),
    "block-type": ("block-type", None),
    "delta-type": ("delta-type", None),
    "event-type": ("event-type", None),
    "payload-member": ("payload-member", None),
    "optional-member": ("optional-member", None),
    "result-subtype": ("open-value", "result subtype"),
    "stop-reason": ("open-value", "stop_reason"),
    "capability": ("open-value", "capability"),
    "role-label": ("open-value", "role label"),
    "system-subtype-replaced": ("open-value", "system subtype"),
}


def _golden(data: bytes) -> list[Line]:
    return [orjson.loads(raw) for raw in data.split(b"\n") if raw.strip()]


def vector_kinds(data: bytes) -> tuple[str, ...]:
    """The vector kinds the golden transcript ``data`` has a place for, in VECTOR_KINDS order."""
    lines = _golden(data)
    kinds = available(lines)
    groups = {site[0] for site in _open_values(lines)}
    return tuple(name for name, (kind, group) in VECTOR_KINDS.items()
                 if kind in kinds and (group is None or group in groups))


@st.composite
def _one(draw: st.DrawFn, scenario: str, golden: tuple[Line, ...], kind: str, group: str | None) -> Variant:
    lines = copy.deepcopy(list(golden))
    change = _change(draw, lines, kind, group)
    _renumber(lines)
    return Variant(scenario, (change,), render(lines))


def kind_vector(scenario: str, data: bytes, name: str) -> st.SearchStrategy[tuple[str, bytes]]:
    """One change of the vector kind ``name`` to the golden ``scenario`` (its transcript ``data``), as
    (changes, stream); ValueError when the golden has no place for it."""
    if name not in vector_kinds(data):
        raise ValueError(f"{scenario}: no place for a {name} change")
    kind, group = VECTOR_KINDS[name]
    return _one(scenario, tuple(_golden(data)), kind, group).map(lambda v: (v.describe(), v.data))


OBLIGATION = ('stream-json schema, description: "open-set enums everywhere — this schema documents known values '
              'in descriptions but does not constrain them, and consumers must ignore values they don\'t recognize"')
FUTURE = Future(variants=variants, vector=vector, obligation=OBLIGATION, kinds=vector_kinds, of_kind=kind_vector,
                may_change=MAY_CHANGE)

__all__ = ["FUTURE", "KINDS", "OBLIGATION", "VECTOR_KINDS", "Change", "Place", "Variant", "available", "kind_vector",
           "known", "places", "unknown", "variants", "vector", "vector_kinds"]
