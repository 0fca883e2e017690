"""Whole stream-json transcripts: the structure from code, the schema-defined parts from the schema.

A transcript is drawn as a list of line objects (:func:`transcripts`) so that the breaking
strategies in :mod:`contract.wires.stream_json.kit.broken` can edit a conformant run before it
is rendered. What makes a run conformant is exactly what :mod:`contract.wires.stream_json`
checks: system/init first, seq contiguous, one ``sess_`` session, RFC 3339 timestamps that
never go back, tool uses before their results and before anything nested under them,
tool_args_delta fragments that concatenate to the tool_use input, advertised capabilities,
model_usage that sums to usage, and one result line last.

Hypothesis pays per choice (about 0.1 ms each), so a run's skeleton is drawn a few fields at a
time (:func:`contract.strategies._common.pick`): a body step's kind, system subtype and nesting
in one choice, an assistant turn's blocks, tool uses, message id and agent label in another,
the timestamps per run rather than per line. Each body step is a strategy of its own, so that
shrinking deletes whole steps; tests/strategies/test_strategies_reach.py pins what the streams reach.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from hypothesis import strategies as st

from contract.checking.schema import load
from contract.evolution.surface import open_set_values
from contract.strategies import _compose
from contract.strategies._common import count, flags, ident, ints, json_objects, json_values, pick, render, text
from contract.wires import by_wire
from contract.wires.stream_json.machines import AGENT_LABELS, RESULT_IS_ERROR, USAGE_KEYS
from contract.wires.stream_json.members import member_schema, result_members

Line = dict[str, Any]
KNOWN_CAPABILITIES = ("stream_v1", "partial_messages_v1", "tasks_v1", "workflows_v1")
PARTIAL, TASKS = "partial_messages_v1", "tasks_v1"
EPOCH = datetime(2020, 1, 1, tzinfo=UTC)


def schema_part(definition: str) -> st.SearchStrategy[Any]:
    """A value of ``$defs/definition``, composed from the seed schema (no ESC in its strings)."""
    return _compose.definition("stream-json", definition)


# -- timestamps ----------------------------------------------------------------------------------


def format_ts(instant: datetime, style: int) -> str:
    """One RFC 3339 spelling of ``instant``: UTC or an offset, with 0, 3 or 6 fraction digits."""
    offsets = (0, 0, 120, -330)
    local = instant.astimezone(timezone(timedelta(minutes=offsets[style % 4])))
    digits = (0, 3, 6)[style // 4 % 3]
    if digits == 0 and local.microsecond:
        digits = 3  # never truncate: a truncated time could read earlier than the line before
    text_ = local.strftime("%Y-%m-%dT%H:%M:%S")
    if digits:
        text_ += f".{local.microsecond:06d}"[: digits + 1]
    if local.utcoffset() == timedelta(0):
        return text_ + "Z"
    sign = "+" if offsets[style % 4] > 0 else "-"
    minutes = abs(offsets[style % 4])
    return f"{text_}{sign}{minutes // 60:02d}:{minutes % 60:02d}"


STEP_MS = 5000  # a step between lines: 0 to this many milliseconds, or 1 to 5 whole seconds
STYLES = 12  # the spellings format_ts knows (four offsets times three fraction lengths)
FIRST_SEQ = 4  # a run's seq starts anywhere; 0 to 3 here


@st.composite
def timestamps(draw: st.DrawFn, number: int) -> list[str]:
    """``number`` RFC 3339 timestamps that never go back (mixed spellings, equal ones included).

    Drawn per stream, not per line (hypothesis pays per choice): a start, one step and two
    spellings for the whole run, then two bits a line, four lines to a choice: whether the
    clock moves on by the step before this line, and which of the two spellings it uses. So
    a run holds equal instants spelled differently, later ones in another offset, and steps of
    milliseconds or whole seconds. It shrinks towards 0: no step, the first spelling.
    """
    start = EPOCH + timedelta(seconds=draw(ints(0, 10**9)))
    seconds, amount = pick(draw, 2, STEP_MS + 1)
    step = timedelta(seconds=1 + amount % 5) if seconds else timedelta(milliseconds=amount)
    styles = pick(draw, STYLES, STYLES)
    out: list[str] = []
    at = start
    for first in range(0, number, 4):
        bits = flags(draw, 2 * min(4, number - first))
        for moves, other in zip(bits[::2], bits[1::2], strict=True):
            at += step if moves else timedelta(0)
            out.append(format_ts(at, styles[other]))
    return out


# -- the body of a run ---------------------------------------------------------------------------

NEST = 3  # a nesting digit (0 to 3) nests its lines under an earlier tool use when it is this: one in four
AGENTS = (None, *AGENT_LABELS)  # an assistant line's agent label, or none


class _Run:
    """What the builder has emitted so far: tool ids, to reference earlier tool uses."""

    def __init__(self, capabilities: list[str]) -> None:
        self.capabilities = capabilities
        self.tool_ids: list[str] = []
        self.lines: list[Line] = []

    @property
    def partial(self) -> bool:
        return PARTIAL in self.capabilities

    def new_tool_id(self) -> str:
        return f"toolu_{len(self.tool_ids):03d}"


def _nest(draw: st.DrawFn, digit: int, earlier: list[str], lines: list[Line]) -> list[Line]:
    """Nest ``lines`` under one of the ``earlier`` tool uses (one parent for them all) when
    ``digit`` is :data:`NEST`; one choice, for which parent, only then."""
    if digit == NEST and earlier and lines:
        parent = earlier[draw(ints(0, len(earlier) - 1))]
        for line in lines:
            line["parent_tool_use_id"] = parent
    return lines


def _fragments(draw: st.DrawFn, payload: str, cuts: int) -> list[str]:
    """``payload`` cut at ``cuts`` drawn places (fewer where they coincide): consumers concatenate the pieces."""
    places = sorted({draw(ints(1, len(payload) - 1)) for _ in range(cuts)}) if len(payload) > 1 else []
    bounds = [0, *places, len(payload)]
    return [payload[a:b] for a, b in itertools.pairwise(bounds)]


def tool_call(draw: st.DrawFn, tool_id: str, value: Any) -> list[Line]:
    """The tool_args_delta stream_event lines that spell out ``value`` for ``tool_id``: spaced
    or compact, ASCII-escaped or not, in one to four pieces (one choice for all three)."""
    spaced, ascii_only, cuts = pick(draw, 2, 2, 4)
    payload = json.dumps(value, ensure_ascii=bool(ascii_only), separators=(", ", ": ") if spaced else (",", ":"))
    return [
        {"type": "stream_event", "event": {"type": "tool_args_delta", "tool_use_id": tool_id, "partial_json": piece}}
        for piece in _fragments(draw, payload, cuts)
    ]


# An assistant turn's text and thinking blocks, one digit: none, one of either kind, or two.
BLOCK_SHAPES: tuple[tuple[str, ...], ...] = (
    (),
    ("text",),
    ("thinking",),
    *itertools.product(("text", "thinking"), repeat=2),
)


def _assistant_turn(draw: st.DrawFn, run: _Run) -> None:
    """An assistant line (text, thinking and tool_use blocks), the deltas before it when the run
    streams partial messages, and a user line with the results of its tool uses.

    Its shape is one choice (which blocks, how many tool uses, a message id, an agent label);
    nesting, partial deltas and the results one more each, and only when they can apply.
    """
    earlier = list(run.tool_ids)  # a line cannot nest under a tool use it starts itself
    shape, tools, with_id, agent = pick(draw, len(BLOCK_SHAPES), 3, 2, len(AGENTS))
    kinds = BLOCK_SHAPES[shape]
    streamed = flags(draw, len(kinds) + tools) if run.partial and (kinds or tools) else [False] * (len(kinds) + tools)
    blocks: list[dict[str, Any]] = []
    before: list[Line] = []
    for index, kind in enumerate(kinds):
        chunk = draw(text(max_size=10))
        blocks.append({"type": kind, kind: chunk})
        if streamed[index]:
            event = {"type": "content_block_delta", "index": index, "delta": {"type": f"{kind}_delta", kind: chunk}}
            before.append({"type": "stream_event", "event": event})
    used: list[str] = []
    for spelled in streamed[len(kinds) :]:
        tool_id = run.new_tool_id()
        run.tool_ids.append(tool_id)
        used.append(tool_id)
        value = draw(json_objects())
        blocks.append({"type": "tool_use", "id": tool_id, "name": draw(ident()), "input": value})
        if spelled:
            before.extend(tool_call(draw, tool_id, value))
    message: dict[str, Any] = {"role": "assistant", "content": blocks}
    if with_id:  # an id of its own: lines of one id are one message's frames (sj.delta-reassembly)
        message["id"] = f"{draw(ident('msg_'))}_{len(run.lines)}"
    line: Line = {"type": "assistant", "message": message}
    if AGENTS[agent] is not None:
        line["agent"] = AGENTS[agent]
    if earlier:
        nest_before, nest_line = pick(draw, 4, 4)
        _nest(draw, nest_before, earlier, before)
        _nest(draw, nest_line, earlier, [line])
        for delta in before:  # a text or thinking delta is its actor's: the line's (sj.delta-reassembly)
            if delta["event"]["type"] == "content_block_delta":
                delta.pop("parent_tool_use_id", None)
                if "parent_tool_use_id" in line:
                    delta["parent_tool_use_id"] = line["parent_tool_use_id"]
    run.lines.extend(before)
    run.lines.append(line)
    if used:
        run.lines.append(_tool_results(draw, used, run.tool_ids))


def _tool_results(draw: st.DrawFn, used: list[str], earlier: list[str]) -> Line:
    """The user line answering ``used``: one choice for nesting, each is_error and whether a
    tool_use_result rides along; a free-form content each."""
    nest, extra, *errors = pick(draw, 4, 2, *[2] * len(used))
    results = [
        {"type": "tool_result", "tool_use_id": tool_id, "content": draw(json_values()), "is_error": bool(error)}
        for tool_id, error in zip(used, errors, strict=True)
    ]
    line: Line = {"type": "user", "message": {"role": "user", "content": results}}
    if extra:
        line["tool_use_result"] = draw(json_values())
    return _nest(draw, nest, earlier, [line])[0]


def system_line(draw: st.DrawFn, subtype: str) -> Line:
    """A system line of a known non-init ``subtype``, its members drawn."""
    line: Line = {"type": "system", "subtype": subtype}
    line.update(_SYSTEM_FIELDS[subtype](draw))
    return line


SYSTEM_KINDS = [
    "notification",
    "warning",
    "state",
    "agent_switch",
    "route",
    "commands",
    "config_option",
    "permission_denied",
    "memory",
    "error",
    "future_subtype",
]
TASK_KINDS = ["task_started", "task_progress", "task_notification", "background_tasks_changed"]


def _texts(*names: str) -> Callable[[st.DrawFn], dict[str, Any]]:
    """Members that are each free text (one choice a member)."""
    return lambda draw: {name: draw(text()) for name in names}


def _items(draw: st.DrawFn, strategy: st.SearchStrategy[Any], most: int) -> list[Any]:
    """Up to ``most`` items: the length in one choice (``st.lists`` pays a coin per item)."""
    return [draw(strategy) for _ in range(count(draw, most))]


def _route(draw: st.DrawFn) -> dict[str, Any]:
    return {"route": draw(schema_part("route_decision")), "route_history": _items(draw, schema_part("route_hop"), 2)}


def _future(draw: st.DrawFn) -> dict[str, Any]:
    extension, meta = flags(draw, 2)
    out: dict[str, Any] = {}
    if extension:
        out["extension"] = draw(json_values())
    if meta:
        out["_meta"] = draw(json_objects())
    return out


def _background(draw: st.DrawFn) -> dict[str, Any]:
    running, finished = pick(draw, 3, 3)
    return {
        "running_ids": [draw(ident()) for _ in range(running)],
        "finished_ids": [draw(ident()) for _ in range(finished)],
        "count": draw(ints(0, 9)),
    }


# The members of each system subtype, drawn by plain functions: a composite strategy per
# member set would cost a draw (and its bookkeeping) more each.
_SYSTEM_FIELDS: dict[str, Callable[[st.DrawFn], dict[str, Any]]] = {
    "notification": lambda draw: {"body": draw(text()), "severity": ("info", "warn")[draw(ints(0, 1))]},
    "warning": _texts("body", "category"),
    "state": lambda draw: {"session_state": ("idle", "running", "waiting")[draw(ints(0, 2))]},
    "agent_switch": _texts("from", "to", "reason"),
    "route": _route,
    "commands": lambda draw: {"commands": _items(draw, schema_part("command"), 2)},
    "config_option": _texts("option", "value"),
    "permission_denied": _texts("tool", "reason"),
    "memory": _texts("op", "kind"),
    "error": lambda draw: {"message": draw(text()), "recoverable": draw(st.booleans())},
    "future_subtype": _future,
    "task_started": lambda draw: {"task_id": draw(ident("task_")), "task": draw(json_values())},
    "task_progress": lambda draw: {"task_id": draw(ident("task_")), "status": draw(text())},
    "task_notification": lambda draw: {"task_id": draw(ident("task_")), "body": draw(text())},
    "background_tasks_changed": _background,
}


ALL_SYSTEM_KINDS = SYSTEM_KINDS + TASK_KINDS


def _body(draw: st.DrawFn, run: _Run) -> None:
    """Up to eight steps, each an assistant turn or a system line (one in two)."""
    for _ in range(count(draw, 8)):
        draw(_body_step(run))


@st.composite
def _body_step(draw: st.DrawFn, run: _Run) -> None:
    """One step of the body: one choice for its kind, system subtype and nesting.

    A strategy of its own (not a plain call) so that its choices form one span: shrinking
    lowers the step count and deletes a whole step with it. The subtype digit has the same
    size whatever the capabilities (a task subtype reads as another one without tasks_v1),
    so that shrinking the capabilities does not reread every step.
    """
    subtype, turn, nest = pick(draw, len(ALL_SYSTEM_KINDS), 2, 4)
    if turn:
        _assistant_turn(draw, run)
        return
    kinds = ALL_SYSTEM_KINDS if TASKS in run.capabilities else SYSTEM_KINDS
    run.lines.append(_nest(draw, nest, run.tool_ids, [system_line(draw, kinds[subtype % len(kinds)])])[0])


# -- init and result -----------------------------------------------------------------------------


def init_line(draw: st.DrawFn) -> Line:
    """The system/init line: its capabilities in one choice (any subset of the known ones, and
    an unknown one or not), its optional members in two (each present one time in four)."""
    unknown, known = pick(draw, 2, 2 ** len(KNOWN_CAPABILITIES))  # unknown first: lowering by one drops it
    capabilities = [cap for i, cap in enumerate(KNOWN_CAPABILITIES) if known >> i & 1]
    if unknown:
        capabilities.append(draw(ident("x_")))
    line: Line = {
        "type": "system",
        "subtype": "init",
        "agent": draw(schema_part("agent_info")),
        "capabilities": capabilities,
    }
    cwd, version, tools, servers, commands, escalation, meta = flags(draw, 7, sparse=True)
    if cwd:
        line["cwd"] = draw(text())
    if version:
        line["milk_version"] = draw(ident())
    if tools:
        line["tools"] = _items(draw, ident(), 3)
    if servers:
        line["mcp_servers"] = _items(draw, schema_part("mcpserver"), 2)
    if commands:
        line["commands"] = _items(draw, schema_part("command"), 2)
    if escalation:
        line["escalation_agent"] = draw(schema_part("agent_info"))
    if meta:
        line["_meta"] = draw(json_objects())
    return line


RESULT_SUBTYPES = (*RESULT_IS_ERROR, "cancelled_by_host")  # the known ones and one that is not


def result_line(draw: st.DrawFn) -> Line:
    """The result line: subtype, is_error, per-model usage and whether usage stands alone in one
    choice, its other members in one more.

    Which other members a result line carries, and what each may hold, is read from the schema in
    force and the goldens (:mod:`contract.wires.stream_json.members`): an ADR that renames or
    removes one moves the streams drawn here with it. A string member that documents an open set
    (``stop_reason``) draws its known values.
    """
    subtype_at, error, models, alone = pick(draw, len(RESULT_SUBTYPES), 2, 3, 2)
    subtype = RESULT_SUBTYPES[subtype_at]
    is_error = RESULT_IS_ERROR.get(subtype)
    line: Line = {
        "type": "result",
        "subtype": subtype,
        "is_error": bool(error) if is_error is None else is_error,
    }
    # Two models may draw the same name: then there is one (usage sums what is kept).
    per_model = {draw(ident()): draw(schema_part("usage")) for _ in range(models)}
    if per_model:
        line["model_usage"] = per_model
        line["usage"] = {key: sum(usage[key] for usage in per_model.values()) for key in USAGE_KEYS}
    elif alone:
        line["usage"] = draw(schema_part("usage"))
    names = result_members()
    for name, present in zip(names, flags(draw, len(names), sparse=True), strict=True):
        if present:
            line[name] = draw(_member(name))
    return line


def _member(name: str) -> st.SearchStrategy[Any]:
    """A member's values from its schema; a string documenting an open set, its known values."""
    node = member_schema(name)
    known = open_set_values(str(node.get("description", ""))) if isinstance(node, dict) else None
    if known and node.get("type") == "string":
        return st.sampled_from(known)
    return _compose.subschema("stream-json", node)


# -- the whole run -------------------------------------------------------------------------------


@by_wire
def _in_force(wire: str) -> tuple[frozenset[str] | None, dict[str, tuple[str, ...]]]:
    """What the schema in force says of a line's top-level members: the names it declares (None when
    it lets any name through) and, per line type, the members its branch requires beyond the
    envelope.

    The skeleton above is drawn from code, and code spells member names; an ADR that removes or
    renames one, or makes one required, changes what a conformant line holds. :func:`stamp` holds
    every drawn line to this, so the streams follow the schema in force rather than the seed's.
    """
    schema = load(wire)
    props = schema.get("properties", {})
    declared = None if schema.get("additionalProperties", True) is not False else frozenset(props)
    envelope = set(schema.get("required", ()))
    required: dict[str, tuple[str, ...]] = {}
    for branch in schema.get("oneOf", ()):
        pinned = branch.get("properties", {}).get("type", {}) if isinstance(branch, dict) else {}
        if isinstance(pinned, dict) and isinstance(pinned.get("const"), str):
            required[pinned["const"]] = tuple(n for n in branch.get("required", ()) if n not in envelope | {"type"})
    return declared, required


def _follow_schema(draw: st.DrawFn, line: Line) -> Line:
    """``line`` without the members the schema in force does not declare, with those its branch
    requires drawn from their schemas where the skeleton left them out."""
    declared, required = _in_force("stream-json")
    if declared is not None and not line.keys() <= declared:
        line = {k: v for k, v in line.items() if k in declared}
    for name in required.get(line["type"], ()):
        if name not in line:
            line[name] = draw(_member(name))
    return line


def stamp(draw: st.DrawFn, lines: list[Line], session: str | None = None) -> list[Line]:
    """Give every line its envelope: the run's session_id, contiguous seq, ordered ts."""
    session = session or draw(ident("sess_"))
    first = draw(ints(0, FIRST_SEQ - 1))
    times = draw(timestamps(len(lines)))
    out = []
    for offset, (line, ts) in enumerate(zip(lines, times, strict=True)):
        # The envelope first, as milk writes it; the order of members is not part of the contract.
        out.append(_follow_schema(draw, {"type": line["type"], "session_id": session, "seq": first + offset,
                                         "ts": ts} | line))
    return out


@st.composite
def transcripts(draw: st.DrawFn) -> list[Line]:
    """A conformant stream-json run as a list of line objects."""
    init = init_line(draw)
    run = _Run(init["capabilities"])
    _body(draw, run)
    return stamp(draw, [init, *run.lines, result_line(draw)])


def renumber(lines: list[Line]) -> list[Line]:
    """After an edit: seq contiguous again from the first line's seq."""
    first = lines[0]["seq"] if lines and type(lines[0].get("seq")) is int else 0
    return [line | {"seq": first + i} for i, line in enumerate(lines)]


def streams() -> st.SearchStrategy[bytes]:
    """Whole conformant stream-json streams, as the bytes an emitter writes."""
    return transcripts().map(render)
