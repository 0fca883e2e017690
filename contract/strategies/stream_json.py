"""Whole stream-json transcripts: the structure from code, the schema-defined parts from the schema.

A transcript is drawn as a list of line objects (:func:`transcripts`) so that the breaking
strategies in :mod:`contract.strategies.stream_json_broken` can edit a conformant run before it
is rendered. What makes a run conformant is exactly what :mod:`contract.wires.stream_json`
checks: system/init first, seq contiguous, one ``sess_`` session, RFC 3339 timestamps that
never go back, tool uses before their results and before anything nested under them,
tool_args_delta fragments that concatenate to the tool_use input, advertised capabilities,
model_usage that sums to usage, and one result line last.
"""

from __future__ import annotations

import functools
import itertools
import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from hypothesis import strategies as st

from contract.strategies import _compose
from contract.strategies._common import flags, ident, json_objects, json_values, render, text
from contract.wires.stream_json import AGENT_LABELS, RESULT_IS_ERROR, USAGE_KEYS

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


@st.composite
def timestamps(draw: st.DrawFn, count: int) -> list[str]:
    """``count`` RFC 3339 timestamps that never go back (millisecond steps, mixed spellings)."""
    start = EPOCH + timedelta(seconds=draw(st.integers(0, 10**9)))
    # One choice per line for both its step and its spelling (hypothesis pays per choice):
    # millisecond steps and now and then whole seconds, times one of twelve spellings. It
    # shrinks towards 0: no step, the first spelling.
    steps = draw(st.lists(st.integers(0, 5006 * 12 - 1), min_size=count, max_size=count))
    out: list[str] = []
    at = start
    for step in steps:
        ms, style = divmod(step, 12)
        at += timedelta(milliseconds=ms if ms <= 5000 else (ms - 5000) * 1000)
        out.append(format_ts(at, style))
    return out


# -- the body of a run ---------------------------------------------------------------------------


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


def _maybe_parent(draw: st.DrawFn, earlier: list[str], line: Line) -> Line:
    """Nest ``line`` under one of the ``earlier`` tool uses, sometimes."""
    if earlier and draw(st.integers(0, 3)) == 0:
        line["parent_tool_use_id"] = draw(st.sampled_from(earlier))
    return line


def _fragments(draw: st.DrawFn, payload: str) -> list[str]:
    """``payload`` cut at drawn places: consumers concatenate the pieces."""
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(payload) - 1)), max_size=3)))
    cuts = [c for c in cuts if 0 < c < len(payload)]
    bounds = [0, *cuts, len(payload)]
    return [payload[a:b] for a, b in itertools.pairwise(bounds)]


def tool_call(draw: st.DrawFn, earlier: list[str], tool_id: str, value: Any) -> list[Line]:
    """The tool_args_delta stream_event lines that spell out ``value`` for ``tool_id``."""
    spaced = draw(st.booleans())
    payload = json.dumps(value, ensure_ascii=draw(st.booleans()), separators=(", ", ": ") if spaced else (",", ":"))
    return [
        _maybe_parent(
            draw,
            earlier,
            {
                "type": "stream_event",
                "event": {"type": "tool_args_delta", "tool_use_id": tool_id, "partial_json": piece},
            },
        )
        for piece in _fragments(draw, payload)
    ]


def _assistant_turn(draw: st.DrawFn, run: _Run) -> None:
    earlier = list(run.tool_ids)  # a line cannot nest under a tool use it starts itself
    blocks: list[dict[str, Any]] = []
    before: list[Line] = []
    for index in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(["text", "thinking"]))
        chunk = draw(text(max_size=10))
        blocks.append({"type": kind, kind: chunk})
        if run.partial and draw(st.booleans()):
            delta = {"type": f"{kind}_delta", kind: chunk}
            before.append(
                {
                    "type": "stream_event",
                    "event": {"type": "content_block_delta", "index": index, "delta": delta},
                }
            )
    used: list[str] = []
    for _ in range(draw(st.integers(0, 2))):
        tool_id = run.new_tool_id()
        run.tool_ids.append(tool_id)
        used.append(tool_id)
        value = draw(json_objects())
        block = {"type": "tool_use", "id": tool_id, "name": draw(ident()), "input": value}
        if run.partial and draw(st.booleans()):
            before.extend(tool_call(draw, earlier, tool_id, value))
        blocks.append(block)
    message: dict[str, Any] = {"role": "assistant", "content": blocks}
    with_id, with_agent = flags(draw, 2)
    if with_id:
        message["id"] = draw(ident("msg_"))
    line: Line = {"type": "assistant", "message": message}
    if with_agent:
        line["agent"] = draw(st.sampled_from(AGENT_LABELS))
    run.lines.extend(before)
    run.lines.append(_maybe_parent(draw, earlier, line))
    if used:
        run.lines.append(_maybe_parent(draw, run.tool_ids, _tool_results(draw, used)))


def _tool_results(draw: st.DrawFn, used: list[str]) -> Line:
    results = [
        {
            "type": "tool_result",
            "tool_use_id": tool_id,
            "content": draw(json_values()),
            "is_error": draw(st.booleans()),
        }
        for tool_id in used
    ]
    line: Line = {"type": "user", "message": {"role": "user", "content": results}}
    if draw(st.booleans()):
        line["tool_use_result"] = draw(json_values())
    return line


def system_line(draw: st.DrawFn, tasks: bool = False) -> Line:
    """A system line of one of the known non-init subtypes (task ones only when ``tasks``)."""
    fields = _system_fields()
    subtype = draw(st.sampled_from(SYSTEM_KINDS + TASK_KINDS if tasks else SYSTEM_KINDS))
    line: Line = {"type": "system", "subtype": subtype}
    line.update(draw(fields[subtype]))
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


@functools.cache
def _system_fields() -> dict[str, st.SearchStrategy[Any]]:
    """The members of each system subtype, built once (strategies are cheap to draw, not to build)."""
    return {
        "notification": st.fixed_dictionaries({"body": text(), "severity": st.sampled_from(["info", "warn"])}),
        "warning": st.fixed_dictionaries({"body": text(), "category": text()}),
        "state": st.fixed_dictionaries({"session_state": st.sampled_from(["idle", "running", "waiting"])}),
        "agent_switch": st.fixed_dictionaries({"from": text(), "to": text(), "reason": text()}),
        "route": st.fixed_dictionaries(
            {
                "route": schema_part("route_decision"),
                "route_history": st.lists(schema_part("route_hop"), max_size=2),
            }
        ),
        "commands": st.fixed_dictionaries({"commands": st.lists(schema_part("command"), max_size=2)}),
        "config_option": st.fixed_dictionaries({"option": text(), "value": text()}),
        "permission_denied": st.fixed_dictionaries({"tool": text(), "reason": text()}),
        "memory": st.fixed_dictionaries({"op": text(), "kind": text()}),
        "error": st.fixed_dictionaries({"message": text(), "recoverable": st.booleans()}),
        "future_subtype": st.fixed_dictionaries({}, optional={"extension": json_values(), "_meta": json_objects()}),
        "task_started": st.fixed_dictionaries({"task_id": ident("task_"), "task": json_values()}),
        "task_progress": st.fixed_dictionaries({"task_id": ident("task_"), "status": text()}),
        "task_notification": st.fixed_dictionaries({"task_id": ident("task_"), "body": text()}),
        "background_tasks_changed": st.fixed_dictionaries(
            {
                "running_ids": st.lists(ident(), max_size=2),
                "finished_ids": st.lists(ident(), max_size=2),
                "count": st.integers(0, 9),
            }
        ),
    }


def _body(draw: st.DrawFn, run: _Run) -> None:
    for _ in range(draw(st.integers(0, 8))):
        if draw(st.integers(0, 2)):
            _assistant_turn(draw, run)
        else:
            run.lines.append(_maybe_parent(draw, run.tool_ids, system_line(draw, TASKS in run.capabilities)))


# -- init and result -----------------------------------------------------------------------------


@functools.cache
def _init_parts() -> tuple[st.SearchStrategy[Any], ...]:
    """The parts of an init line, built once (strategies are cheap to draw, not to build)."""
    optional = {
        "cwd": text(),
        "milk_version": ident(),
        "tools": st.lists(ident(), max_size=3),
        "mcp_servers": st.lists(schema_part("mcpserver"), max_size=2),
        "commands": st.lists(schema_part("command"), max_size=2),
        "escalation_agent": schema_part("agent_info"),
        "_meta": json_objects(),
    }
    return (
        st.lists(st.sampled_from(KNOWN_CAPABILITIES), unique=True),
        st.lists(ident("x_"), max_size=1),
        st.fixed_dictionaries({}, optional=optional),
    )


@st.composite
def init_line(draw: st.DrawFn) -> Line:
    known, unknown, optional = _init_parts()
    line: Line = {
        "type": "system",
        "subtype": "init",
        "agent": draw(schema_part("agent_info")),
        "capabilities": draw(known) + draw(unknown),
    }
    line.update(draw(optional))
    return line


@functools.cache
def _result_parts() -> tuple[st.SearchStrategy[Any], ...]:
    """The parts of a result line, built once."""
    optional = {
        "result": text(),
        "stop_reason": st.sampled_from(["end_turn", "max_turns", "refusal", "cancelled", "error"]),
        "ttft_ms": st.integers(0, 10**5),
        "total_cost_usd": json_values(),
    }
    return (
        st.sampled_from([*RESULT_IS_ERROR, "cancelled_by_host"]),
        st.dictionaries(ident(), schema_part("usage"), max_size=2),
        st.fixed_dictionaries({}, optional=optional),
    )


@st.composite
def result_line(draw: st.DrawFn) -> Line:
    subtypes, models, optional = _result_parts()
    subtype = draw(subtypes)
    is_error = RESULT_IS_ERROR.get(subtype)
    line: Line = {
        "type": "result",
        "subtype": subtype,
        "is_error": draw(st.booleans()) if is_error is None else is_error,
        "num_turns": draw(st.integers(0, 50)),
        "duration_ms": draw(st.integers(0, 10**7)),
    }
    per_model = draw(models)
    if per_model:
        line["model_usage"] = per_model
        line["usage"] = {key: sum(usage[key] for usage in per_model.values()) for key in USAGE_KEYS}
    elif draw(st.booleans()):
        line["usage"] = draw(schema_part("usage"))
    line.update(draw(optional))
    return line


# -- the whole run -------------------------------------------------------------------------------


def stamp(draw: st.DrawFn, lines: list[Line], session: str | None = None) -> list[Line]:
    """Give every line its envelope: the run's session_id, contiguous seq, ordered ts."""
    session = session or draw(ident("sess_"))
    first = draw(st.integers(0, 3))
    times = draw(timestamps(len(lines)))
    out = []
    for offset, (line, ts) in enumerate(zip(lines, times, strict=True)):
        # The envelope first, as milk writes it; the order of members is not part of the contract.
        out.append({"type": line["type"], "session_id": session, "seq": first + offset, "ts": ts} | line)
    return out


@st.composite
def transcripts(draw: st.DrawFn) -> list[Line]:
    """A conformant stream-json run as a list of line objects."""
    init = draw(init_line())
    run = _Run(init["capabilities"])
    _body(draw, run)
    return stamp(draw, [init, *run.lines, draw(result_line())])


def renumber(lines: list[Line]) -> list[Line]:
    """After an edit: seq contiguous again from the first line's seq."""
    first = lines[0]["seq"] if lines and type(lines[0].get("seq")) is int else 0
    return [line | {"seq": first + i} for i, line in enumerate(lines)]


def streams() -> st.SearchStrategy[bytes]:
    """Whole conformant stream-json streams, as the bytes an emitter writes."""
    return transcripts().map(render)
