"""Breaking strategies for the stream-json rules: a conformant run with exactly one rule broken.

Each breaker draws a conformant transcript (:func:`contract.wires.stream_json.kit.strategies.transcripts`)
and edits it the way a faulty emitter would. Edits that add a line give it a copy of its
neighbour's timestamp and renumber seq, so that only the intended rule breaks. Where breaking a
rule necessarily breaks another, :data:`ALSO` says which and why.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from hypothesis import strategies as st

from contract.strategies._common import dump, ident, json_objects, text
from contract.wires.base import Strategies
from contract.wires.stream_json import rules as _rules  # noqa: F401  # every family declared
from contract.wires.stream_json.kit.strategies import (
    PARTIAL,
    TASKS,
    Line,
    format_ts,
    renumber,
    schema_part,
    streams,
    tool_call,
    transcripts,
)
from contract.wires.stream_json.machines import RESULT_IS_ERROR, USAGE_KEYS
from contract.wires.stream_json.registry import REGISTRY

# Rules that necessarily fire with the one broken, and why.
ALSO: dict[str, frozenset[str]] = {
    # Two results: the first is followed by at least the second, so it is not the last line.
    "sj.result-once": frozenset({"sj.result-last"}),
    # A raw ESC inside a string is an unescaped control character: not JSON either (RFC 8259 §7).
    "line.ansi": frozenset({"line.json"}),
}


def insert(draw: st.DrawFn, lines: list[Line], line: Line, *, last: bool = False) -> list[Line]:
    """``line`` placed after init and before the result (or at the end), with a valid envelope."""
    index = len(lines) if last else place(draw, lines, completes=line["type"] == "assistant")
    before = lines[index - 1]
    envelope = {
        "type": line["type"],
        "session_id": before["session_id"],
        "seq": 0,
        "ts": before["ts"],
    }
    return renumber([*lines[:index], envelope | line, *lines[index:]])


def place(draw: st.DrawFn, lines: list[Line], completes: bool) -> int:
    """Where to insert after init and before the result; for an assistant line (``completes``), only
    where no top-level text or thinking delta awaits its assistant line, which the inserted (top-level)
    line would complete instead (sj.delta-reassembly would fire beside the rule broken)."""
    if not completes:
        return draw(st.integers(1, len(lines) - 1))
    free, waiting = [], False
    for index in range(1, len(lines)):
        line = lines[index - 1]
        if line.get("parent_tool_use_id") is not None:  # a nested actor's: its deltas are its own
            pass
        elif line.get("type") == "assistant":
            waiting = False
        elif line.get("type") == "stream_event" and (line.get("event") or {}).get("type") == "content_block_delta":
            waiting = True
        if not waiting:
            free.append(index)
    return draw(st.sampled_from(free))


def notification(body: str) -> Line:
    return {"type": "system", "subtype": "notification", "body": body}


def sacrificial(draw: st.DrawFn, text: str) -> tuple[list[Line], int]:
    """A run with a notification holding ``text``: losing it breaks no stream-json rule."""
    lines = insert(draw, draw(transcripts()), notification(text))
    index = next(i for i, line in enumerate(lines) if line.get("body") == text)
    return lines, index


def _middle(draw: st.DrawFn, lines: list[Line]) -> int:
    """Some line after init and before the result; call only when there is one."""
    return draw(st.integers(1, len(lines) - 2))


def _with_middle(draw: st.DrawFn) -> list[Line]:
    lines = draw(transcripts())
    if len(lines) < 3:
        lines = insert(draw, lines, notification(draw(text())))
    return lines


def _text_message(role: str) -> dict[str, Any]:
    return {"role": role, "content": [{"type": "text", "text": "hello"}]}


def _init_capabilities(lines: list[Line], add: str | None = None, remove: str | None = None) -> None:
    caps = [c for c in lines[0]["capabilities"] if c != remove]
    if add is not None and add not in caps:
        caps.append(add)
    lines[0] = lines[0] | {"capabilities": caps}


# -- the breakers --------------------------------------------------------------------------------


def schema(draw: st.DrawFn) -> list[Line]:
    """A line the schema rejects and no cross-line rule minds."""
    way = draw(st.sampled_from(["unknown-member", "mistyped", "missing", "unknown-type"]))
    if way == "unknown-member":
        return insert(draw, draw(transcripts()), notification("x") | {draw(ident("x_")): draw(json_objects())})
    if way == "mistyped":
        field, value = draw(
            st.sampled_from(
                [
                    ("count", "3"),
                    ("body", 5),
                    ("recoverable", "yes"),
                    ("warnings", "w"),
                    ("route", []),
                ]
            )
        )
        return insert(draw, draw(transcripts()), notification("x") | {field: value})
    if way == "unknown-type":
        # An unknown type is open ("open set: ignore unknown values"), but every keyword other
        # than the top-level oneOf still holds: here a member the schema does not model.
        return insert(draw, draw(transcripts()), {"type": "telemetry", draw(ident("x_")): "x"})
    lines = _with_middle(draw)
    index = _middle(draw, lines)
    key = draw(st.sampled_from(["ts", "session_id", "seq"]))
    lines[index] = {k: v for k, v in lines[index].items() if k != key}
    return lines


def subtype(draw: st.DrawFn) -> list[Line]:
    """A system or result line without its subtype."""
    lines = draw(transcripts())
    if draw(st.booleans()):
        return insert(draw, lines, {"type": "system", "body": draw(text())})
    lines[-1] = {k: v for k, v in lines[-1].items() if k != "subtype"}
    return lines


def ts_format(draw: st.DrawFn) -> list[Line]:
    """A timestamp that is not RFC 3339: no zone, a space, a date alone, an impossible day,
    digits that are not ASCII, a leap second away from 23:59:60 UTC."""
    lines = draw(transcripts())
    index = draw(st.integers(0, len(lines) - 1))
    ts: str = lines[index]["ts"]
    bad = draw(
        st.sampled_from(
            [
                ts[:19],
                ts[:10],
                ts.replace("T", " ", 1),
                ts[:19] + "+0100",
                "2021-02-29T00:00:00Z",
                "2021-01-01T24:00:00Z",
                "1700000000",
                "",
                "２０２１-01-01T00:00:00Z",
                "2021-01-01T00:00:٠٠Z",
                "2021-01-01T09:14:60Z",
                "2021-12-31T23:59:60+01:00",
                "2026-03-15T23:59:60Z",  # 23:59:60 UTC, but not at a month's end (RFC 3339 §5.7)
            ]
        )
    )
    lines[index] = lines[index] | {"ts": bad}
    return lines


def ts_leap_second(draw: st.DrawFn) -> list[Line]:
    """A second 60 at a month's end (sj.ts-format passes it) in a month without a leap second,
    by the IERS table (``leaps``): within the table, so it is judged. Every line takes the stamp,
    so ts never goes back (sj.ts-order stays silent)."""
    lines = draw(transcripts())
    bad = draw(st.sampled_from(["2021-12-31T23:59:60Z", "2017-06-30T23:59:60Z", "2024-02-29T15:59:60-08:00",
                                "2019-01-01T00:29:60+00:30"]))
    return [line | {"ts": bad} for line in lines]


def init_first(draw: st.DrawFn) -> list[Line]:
    """The run starts without its init (dropped), or with another line before it."""
    lines = draw(transcripts())
    if draw(st.booleans()):
        return lines[1:]
    first = {"type": "system", "subtype": "notification", "body": "early"}
    return renumber([lines[0] | first, *lines])


def init_once(draw: st.DrawFn) -> list[Line]:
    """A second, identical system/init in the middle of the run."""
    lines = draw(transcripts())
    init = {k: v for k, v in lines[0].items() if k not in ("session_id", "seq", "ts")}
    return insert(draw, lines, init)


def result_once(draw: st.DrawFn) -> list[Line]:
    """A second result line, in the middle or at the end."""
    lines = draw(transcripts())
    result = {k: v for k, v in lines[-1].items() if k not in ("session_id", "seq", "ts")}
    return insert(draw, lines, result, last=draw(st.booleans()))


def result_last(draw: st.DrawFn) -> list[Line]:
    """A truncated run (no result), or lines after the result."""
    lines = draw(transcripts())
    way = draw(st.sampled_from(["truncated", "after"]))
    if way == "truncated":
        return lines[:-1] if len(lines) > 1 else lines[:1]
    return insert(draw, lines, notification("late"), last=True)


def _shifted(draw: st.DrawFn, shifts: st.SearchStrategy[int]) -> list[Line]:
    lines = draw(transcripts())
    index = draw(st.integers(1, len(lines) - 1))
    shift = draw(shifts)
    return [line | {"seq": line["seq"] + shift} if i >= index else line for i, line in enumerate(lines)]


def seq(draw: st.DrawFn) -> list[Line]:
    """From one line on, seq steps back below the line before (not monotonic: written)."""
    return _shifted(draw, st.integers(-4, -2))


def seq_contiguous(draw: st.DrawFn) -> list[Line]:
    """From one line on, seq jumps (a dropped line) or repeats (monotonic still: derived)."""
    return _shifted(draw, st.sampled_from([-1, 1, 2, 3]))


def session(draw: st.DrawFn) -> list[Line]:
    """A session_id not in sess_ form (the same on every line)."""
    lines = draw(transcripts())
    bad = draw(st.sampled_from(["session-1", "SESS_1", "sess", "", "1234", " sess_1"]))
    return [line | {"session_id": bad} for line in lines]


def session_suffix(draw: st.DrawFn) -> list[Line]:
    """A session_id that is sess_ with no id after it, or one with white space (the same on every line)."""
    lines = draw(transcripts())
    bad = draw(st.sampled_from(["sess_", "sess_ 1", "sess_1 2", "sess_\t", "sess_1\u00a0"]))
    return [line | {"session_id": bad} for line in lines]


def session_constant(draw: st.DrawFn) -> list[Line]:
    """A line with another run's session_id (in sess_ form)."""
    lines = draw(transcripts())
    index = draw(st.integers(1, len(lines) - 1))
    other = draw(ident("sess_").filter(lambda s: s != lines[0]["session_id"]))
    lines[index] = lines[index] | {"session_id": other}
    return lines


def result_is_error(draw: st.DrawFn) -> list[Line]:
    """is_error missing from the result, or the opposite of what its known subtype means."""
    lines = draw(transcripts())
    result = dict(lines[-1])
    if draw(st.booleans()):
        del result["is_error"]
    else:  # success with is_error true is sj.result-success's (derived)
        subtype = draw(st.sampled_from(sorted(set(RESULT_IS_ERROR) - {"success"})))
        result |= {"subtype": subtype, "is_error": not RESULT_IS_ERROR[subtype]}
    lines[-1] = result
    return lines


def result_success(draw: st.DrawFn) -> list[Line]:
    """A result of subtype success that says is_error true."""
    lines = draw(transcripts())
    lines[-1] = dict(lines[-1]) | {"subtype": "success", "is_error": True}
    return lines


def agent_form(draw: st.DrawFn) -> list[Line]:
    """A role label on init, or AgentInfo on an assistant/user line.

    A label outside the known two is no break: primary | escalation are known values of an
    open set, and any string passes.
    """
    lines = draw(transcripts())
    if draw(st.booleans()):
        lines[0] = lines[0] | {"agent": draw(st.sampled_from(["primary", "escalation", "milk"]))}
        return lines
    role = draw(st.sampled_from(["assistant", "user"]))
    agent = draw(schema_part("agent_info"))
    return insert(draw, lines, {"type": role, "message": _text_message(role), "agent": agent})


def message_form(draw: st.DrawFn) -> list[Line]:
    """A Message object on system/error, or a string where a Message belongs."""
    return _message(draw, draw(st.sampled_from(["error-object", "actor-string"])))


def message_present(draw: st.DrawFn) -> list[Line]:
    """An assistant or user line without a message."""
    return _message(draw, "actor-missing")


def _message(draw: st.DrawFn, way: str) -> list[Line]:
    lines = draw(transcripts())
    if way == "error-object":
        return insert(
            draw,
            lines,
            {"type": "system", "subtype": "error", "message": _text_message("assistant")},
        )
    role = draw(st.sampled_from(["assistant", "user"]))
    line: Line = {"type": role}
    if way == "actor-string":
        line["message"] = draw(text())
    return insert(draw, lines, line)


def tool_result_ref(draw: st.DrawFn) -> list[Line]:
    """A tool_result naming a tool_use that never happened (or none at all), on a user or an
    assistant line (tool_result blocks are checked wherever they appear)."""
    lines = draw(transcripts())
    block: dict[str, Any] = {"type": "tool_result", "content": "done"}
    if draw(st.integers(0, 3)):
        block["tool_use_id"] = draw(ident("toolu_unknown_"))
    role = draw(st.sampled_from(["user", "assistant"]))
    return insert(draw, lines, {"type": role, "message": {"role": role, "content": [block]}})


def parent_ref(draw: st.DrawFn) -> list[Line]:
    """parent_tool_use_id naming a tool_use that never happened."""
    lines = _with_middle(draw)
    # not a text or thinking delta nor an assistant line: a delta's actor would then differ from its
    # assistant line's, which is sj.delta-reassembly's too (a delta belongs to its actor's next one)
    places = [at for at in range(1, len(lines) - 1)
              if not _text_delta(lines[at]) and lines[at].get("type") != "assistant"]
    if not places:
        lines = insert(draw, lines, notification(draw(text())))
        places = [at for at in range(1, len(lines) - 1) if lines[at].get("type") == "system"]
    index = places[draw(st.integers(0, len(places) - 1))]
    lines[index] = lines[index] | {"parent_tool_use_id": draw(ident("toolu_unknown_"))}
    return lines


def _text_delta(line: Line) -> bool:
    event = line.get("event") if line.get("type") == "stream_event" else None
    return isinstance(event, dict) and event.get("type") == "content_block_delta"


def tool_args_reassembly(draw: st.DrawFn) -> list[Line]:
    """Fragments that spell other arguments than the tool_use's input, or no JSON at all."""
    return _tool_args(draw, draw(st.sampled_from(["other-input", "cut", "not-json"])))


def tool_args_duplicate_key(draw: st.DrawFn) -> list[Line]:
    """Fragments that spell JSON with a duplicate member (a last-wins parser would read the input)."""
    return _tool_args(draw, "duplicate")


def _tool_args(draw: st.DrawFn, way: str) -> list[Line]:
    lines = draw(transcripts())
    _init_capabilities(lines, add=PARTIAL)
    tool_id = "toolu_broken"
    spelled = draw(json_objects())
    fragments = tool_call(draw, tool_id, spelled)
    if way == "duplicate":
        actual = spelled | {"dup": 2}
        fragments = [
            {"type": "stream_event", "event": {"type": "tool_args_delta", "tool_use_id": tool_id, "partial_json": f}}
            for f in ('{"dup":1,', dump(spelled).decode()[1:-1] + ("," if spelled else ""), '"dup":2}')
        ]
    elif way == "other-input":
        actual = {"wrapped": spelled}
    elif way == "cut":  # the last fragment lost: the concatenation no longer parses
        actual = spelled
        last = fragments[-1]["event"]
        fragments[-1] = fragments[-1] | {"event": last | {"partial_json": last["partial_json"][:-1]}}
    else:
        actual = spelled
        fragments.append(
            {
                "type": "stream_event",
                "event": {"type": "tool_args_delta", "tool_use_id": tool_id, "partial_json": " x"},
            }
        )
    use = {"type": "tool_use", "id": tool_id, "name": "t", "input": actual}
    added: list[Line] = [
        *fragments,
        {"type": "assistant", "message": {"role": "assistant", "content": [use]}},
    ]
    index = place(draw, lines, completes=True)
    for offset, line in enumerate(added):
        before = lines[index + offset - 1]
        lines.insert(
            index + offset,
            {"type": line["type"], "session_id": before["session_id"], "seq": 0, "ts": before["ts"]} | line,
        )
    return renumber(lines)


def capabilities(draw: st.DrawFn) -> list[Line]:
    """A stream_event without partial_messages_v1, or a task line without tasks_v1."""
    lines = draw(transcripts())
    if draw(st.booleans()):
        _init_capabilities(lines, remove=PARTIAL)
        event = {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": "hi"},
        }
        return insert(draw, lines, {"type": "stream_event", "event": event})
    _init_capabilities(lines, remove=TASKS)
    return insert(draw, lines, {"type": "system", "subtype": "task_started", "task_id": "task_1"})


def delta_reassembly(draw: st.DrawFn) -> list[Line]:
    """Text or thinking deltas that do not concatenate to the block completing them: other text, a
    piece lost, a block of the other kind at their index, or no assistant line after them."""
    lines = draw(transcripts())
    _init_capabilities(lines, add=PARTIAL)
    kind = draw(st.sampled_from(["text", "thinking"]))
    said = draw(text(min_size=1, max_size=12))
    way = draw(st.sampled_from(["other-text", "piece-lost", "other-kind", "never-completed"]))
    pieces = [said[: len(said) // 2], said[len(said) // 2 :]]
    if way == "piece-lost":
        pieces = pieces[:1] if pieces[1] else [said + "!"]
    completed = said + "?" if way == "other-text" else said
    block_kind = ("thinking" if kind == "text" else "text") if way == "other-kind" else kind
    added: list[Line] = [{"type": "stream_event", "event": {"type": "content_block_delta", "index": 0,
                                                            "delta": {"type": f"{kind}_delta", kind: piece}}}
                         for piece in pieces]
    if way != "never-completed":
        added.append({"type": "assistant", "message": {"role": "assistant",
                                                      "content": [{"type": block_kind, block_kind: completed}]}})
        index = place(draw, lines, completes=True)
    else:  # just before the result, which says the run succeeded
        index = len(lines) - 1
        lines[-1] = lines[-1] | {"is_error": False, "subtype": "success"}
    for offset, line in enumerate(added):
        before = lines[index + offset - 1]
        lines.insert(index + offset,
                     {"type": line["type"], "session_id": before["session_id"], "seq": 0, "ts": before["ts"]} | line)
    return renumber(lines)


def usage_rollup(draw: st.DrawFn) -> list[Line]:
    """model_usage that does not add up to usage."""
    lines = draw(transcripts())
    per_model = draw(st.dictionaries(ident(), schema_part("usage"), min_size=1, max_size=2))
    usage = {key: sum(u[key] for u in per_model.values()) for key in USAGE_KEYS}
    key = draw(st.sampled_from(USAGE_KEYS))
    usage[key] += draw(st.integers(-5, 5).filter(bool))
    lines[-1] = lines[-1] | {"usage": usage, "model_usage": per_model}
    return lines


def ts_order(draw: st.DrawFn) -> list[Line]:
    """One line stamped before the line ahead of it (a reordering relay)."""
    lines = draw(transcripts())
    index = draw(st.integers(1, len(lines) - 1))
    before = datetime.fromisoformat(lines[index - 1]["ts"].replace("Z", "+00:00"))
    earlier = before - timedelta(milliseconds=draw(st.integers(1, 86_400_000)))
    lines[index] = lines[index] | {"ts": format_ts(earlier, draw(st.integers(0, 11)))}
    return lines


def role_form(draw: st.DrawFn) -> list[Line]:
    """A message whose role is not the line type."""
    lines = draw(transcripts())
    kind = draw(st.sampled_from(["assistant", "user"]))
    role = draw(st.sampled_from(["assistant", "user", "system", "tool"]).filter(lambda r: r != kind))
    return insert(draw, lines, {"type": kind, "message": _text_message(role)})


# Each rule's breaker, as its declaration in the wire's registry names it (rules.py, ``breaker``).
BREAKERS: dict[str, Callable[[st.DrawFn], list[Line]]] = REGISTRY.breakers(globals())


# What the wire descriptor's ``strategies`` names: this wire's strategies in one object.
STRATEGIES = Strategies(streams=streams, transcripts=transcripts, sacrificial=sacrificial, breakers=BREAKERS,
                        also=ALSO)

__all__ = ["ALSO", "BREAKERS", "STRATEGIES", "sacrificial"]
