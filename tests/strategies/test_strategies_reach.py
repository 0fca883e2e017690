"""What the stream strategies reach, and how small a failing stream shrinks.

The stream builders draw a run's skeleton in coarse choices (several fields from one drawn
integer, a list's length in one choice), because hypothesis pays per choice. A coarse choice
can quietly make a value unreachable (a digit that never gets past 0, a branch behind an
impossible combination), so this pins what the streams must show between them: every
line kind and system subtype, every optional member the builders know, nesting on every kind
of line, the timestamp spellings, the snapshot shapes. Streams are drawn until every feature
has turned up, up to 1500 of them: a feature rarer than that is as good as unreachable.

Coarse choices also shrink less smoothly than one choice per field, so the deep run checks
that a stream failing a property still shrinks to the few lines the property needs.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

import pytest
from hypothesis import Phase, find, settings
from hypothesis.errors import NoSuchExample

from contract.strategies import streams
from contract.wires.stream_json.members import result_members

Features = Callable[[list[dict[str, Any]]], set[str]]

# Streams are drawn until every wanted feature has turned up (``find`` stops at the first stream
# after which nothing is missing; no shrinking), so a rare feature costs a longer search rather
# than a failure, and an unreachable one fails after SEARCH's examples. Derandomized (hypothesis
# also draws constants from the modules a process has imported, so the streams vary a little
# with the test run; the search does not depend on which ones).
SEARCH = settings(max_examples=1500, database=None, derandomize=True, phases=[Phase.generate], deadline=None)


def _unreached(wire: str, features: Features, wanted: set[str]) -> set[str]:
    """The ``wanted`` features that no stream of ``wire`` shows in SEARCH's examples."""
    found: set[str] = set()

    def all_seen(stream: bytes) -> bool:
        found.update(features(_parsed(stream)))
        return wanted <= found

    with contextlib.suppress(NoSuchExample):  # what is missing is reported below
        find(streams(wire), all_seen, settings=SEARCH)
    return wanted - found


def _parsed(stream: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.splitlines()]


# -- stream-json ---------------------------------------------------------------------------------

SYSTEM_SUBTYPES = {
    "init", "notification", "warning", "state", "agent_switch", "route", "commands", "config_option",
    "permission_denied", "memory", "error", "future_subtype", "task_started", "task_progress",
    "task_notification", "background_tasks_changed",
}  # fmt: skip
RESULT_SUBTYPES = {
    "success", "refused", "error_during_execution", "error_max_turns", "interrupted", "cancelled_by_host",
}  # fmt: skip
INIT_MEMBERS = {"cwd", "milk_version", "tools", "mcp_servers", "commands", "escalation_agent", "_meta"}
# the result members the schema in force and the goldens give (contract/wires/stream_json/members.py)
RESULT_MEMBERS = {*result_members(), "usage", "model_usage"}
CAPABILITIES = {"stream_v1", "partial_messages_v1", "tasks_v1", "workflows_v1"}
OFFSET = re.compile(r"(Z|[+-]\d\d:\d\d)$")
FRACTION = re.compile(r":\d\d(\.\d+)?(?:Z|[+-])")


def _instant(ts: str) -> datetime:
    return datetime.fromisoformat(ts.replace("Z", "+00:00"))


def _label(line: dict[str, Any]) -> str:
    if line["type"] in ("system", "result"):
        return f"{line['type']}:{line['subtype']}"
    if line["type"] == "stream_event":
        return f"stream_event:{line['event']['type']}"
    return str(line["type"])


def stream_json_features(lines: list[dict[str, Any]]) -> set[str]:
    found: set[str] = set()
    pieces: dict[str, int] = {}
    init, result = lines[0], lines[-1]
    found.update(f"init {key}" for key in INIT_MEMBERS & set(init))
    found.update(f"capability {cap}" if cap in CAPABILITIES else "capability unknown" for cap in init["capabilities"])
    found.update(f"result {key}" for key in RESULT_MEMBERS & set(result))
    if "usage" in result and "model_usage" not in result:
        found.add("result usage alone")
    found.add(f"result is_error {result['is_error']}")
    if init["seq"] > 0:
        found.add("seq from above 0")
    for before, line in zip([None, *lines], lines, strict=False):
        label = _label(line)
        found.add(label)
        if "parent_tool_use_id" in line:
            found.add(f"nested {line['type']}")
        found.add(f"ts offset {OFFSET.search(line['ts']).group(1)[:1]}")  # type: ignore[union-attr]  # every ts has an offset
        fraction = FRACTION.search(line["ts"])
        found.add(f"ts fraction {len(fraction.group(1) or '.') - 1 if fraction else '?'}")
        if before is not None:
            step = _instant(line["ts"]) - _instant(before["ts"])
            if not step and line["ts"] != before["ts"]:
                found.add("ts same instant spelled differently")
            elif step and step.total_seconds().is_integer():
                found.add("ts whole-second step")
            elif step:
                found.add("ts millisecond step")
        message = line.get("message") or {}
        if isinstance(message, dict):
            blocks = message.get("content", [])
            found.update(f"{label} block {block['type']}" for block in blocks)
            found.update(f"{label} is_error {block['is_error']}" for block in blocks if "is_error" in block)
            found.update(f"{label} message {key}" for key in ("id",) if key in message)
        found.update(f"{label} {key}" for key in ("agent", "tool_use_result") if key in line)
        if label == "stream_event:tool_args_delta":
            piece = line["event"]["partial_json"]
            pieces[line["event"]["tool_use_id"]] = pieces.get(line["event"]["tool_use_id"], 0) + 1
            if "\\u" in piece:
                found.add("tool args ascii-escaped")
    if any(n > 1 for n in pieces.values()):
        found.add("tool args in pieces")
    return found


STREAM_JSON_WANTED = (
    {f"system:{subtype}" for subtype in SYSTEM_SUBTYPES}
    | {f"result:{subtype}" for subtype in RESULT_SUBTYPES}
    | {"assistant", "user", "stream_event:content_block_delta", "stream_event:tool_args_delta"}
    | {f"nested {kind}" for kind in ("system", "assistant", "user", "stream_event")}
    | {f"assistant block {kind}" for kind in ("text", "thinking", "tool_use")}
    | {"assistant message id", "assistant agent", "user tool_use_result", "user block tool_result"}
    | {"user is_error True", "user is_error False", "result is_error True", "result is_error False"}
    | {f"init {key}" for key in INIT_MEMBERS}
    | {f"result {key}" for key in RESULT_MEMBERS}
    | {"result usage alone", "seq from above 0", "capability unknown"}
    | {f"capability {cap}" for cap in CAPABILITIES}
    | {"ts offset Z", "ts offset +", "ts offset -", "ts fraction 0", "ts fraction 3", "ts fraction 6"}
    | {"ts same instant spelled differently", "ts whole-second step", "ts millisecond step"}
    | {"tool args in pieces", "tool args ascii-escaped"}
)


@pytest.mark.deep  # the longest search (about 6 s); the default run searches subagent-stdio's streams below
def test_stream_json_streams_reach_every_line_kind_and_member() -> None:
    missing = _unreached("stream-json", stream_json_features, STREAM_JSON_WANTED)
    assert not missing, f"never generated: {sorted(missing)}"


# -- subagent-stdio ------------------------------------------------------------------------------

STATUSES = {
    "queued", "pending", "running", "complete", "completed", "failed", "partial", "paused", "stopped",
    "rejected", "detached",
}  # fmt: skip
NODE_MEMBERS = {
    "runId", "workflowId", "agent", "activity", "progress", "currentTool", "error", "reason", "startedAt",
    "updatedAt", "endedAt", "processTerminal", "tokens", "outcome",
}  # fmt: skip
ENTRY_MEMBERS = {"role", "model", "effort", "goal"}
TERMINAL_STATES = {"pending", "observed", "unknown", "not-started"}


def _walk(nodes: list[dict[str, Any]], depth: int = 0) -> Iterator[tuple[int, list[dict[str, Any]], dict[str, Any]]]:
    for node in nodes:
        yield depth, nodes, node
        yield from _walk(node["children"], depth + 1)


def _node_features(snap: dict[str, Any]) -> set[str]:
    found: set[str] = set()
    for depth, siblings, node in _walk(snap["runs"]):
        found.add(f"node depth {depth}")
        found.add(f"siblings {len(siblings)}")
        found.add(f"status {node['status']}")
        found.update(f"node {key}" for key in NODE_MEMBERS & set(node))
        if node["omittedChildren"]:
            found.add("node omittedChildren")
        if "window" in node.get("tokens", {}):
            found.add("node tokens window")
        terminal = node.get("processTerminal", {})
        found.update(f"terminal {key}" for key in ("observedAt", "reason") if key in terminal)
        if terminal:
            found.add(f"terminal {terminal['state']}")
        outcome = node.get("outcome", {})
        found.update(f"outcome {key}" for key in ("success", "exitCode") if key in outcome)
        if outcome.get("exitCode"):
            found.add("outcome failing exitCode")
        if outcome and outcome["status"] != node["status"]:
            found.add("outcome complete spelled otherwise")
    return found


def subagent_features(lines: list[dict[str, Any]]) -> set[str]:
    found: set[str] = set()
    last: dict[str, Any] | None = None
    for line in lines:
        found.add(line["type"])
        if line["type"] == "subagent_status":
            found.add("command with id" if "id" in line else "command without id")
            continue
        snap = line.get("data") or line["snapshot"]
        found.add("available" if snap["available"] else "unavailable")
        found.add("session null" if snap["sessionId"] is None else "session named")
        found.add(f"events {snap['capabilities']['events']}")
        found.update(f"omitted {key}" for key in ("runs", "children") if snap["omitted"][key])
        fleet = snap["fleet"]
        found.add(f"entries {len(fleet['entries'])}")
        for entry in fleet["entries"]:
            found.update(f"entry {key}" for key in ENTRY_MEMBERS & set(entry))
            if "window" in entry["tokens"]:
                found.add("entry tokens window")
        if fleet["omitted"]:
            found.add("fleet omitted")
        capacity = fleet["topLevelAsyncCapacity"]
        found.add("capacity full" if capacity["used"] == capacity["limit"] else "capacity spare")
        found |= _node_features(snap)
        if last is not None:
            if snap["epoch"] != last["epoch"]:
                found.add("another epoch")
            elif snap["revision"] == last["revision"]:
                found.add("revision repeated")
            same = {part for part in ("runs", "fleet") if snap[part] == last[part] and snap[part] != _EMPTY[part]}
            found.update(f"kept {part}" for part in same)
            if snap["available"] and snap["runs"] != last["runs"] and snap["fleet"] != last["fleet"]:
                found.add("changed runs and fleet")
        last = snap
    return found


_EMPTY: dict[str, Any] = {"runs": [], "fleet": None}

SUBAGENT_WANTED = (
    {"subagent_status", "response", "subagent_event", "command with id", "command without id"}
    | {"available", "unavailable", "session null", "session named", "events True", "events False"}
    | {"omitted runs", "omitted children", "fleet omitted", "capacity full", "capacity spare"}
    | {f"entries {n}" for n in range(3)}
    | {f"entry {key}" for key in ENTRY_MEMBERS}
    | {"entry tokens window", "node tokens window", "node omittedChildren"}
    | {"node depth 0", "node depth 1", "node depth 2", "siblings 1", "siblings 2"}
    | {f"status {status}" for status in STATUSES}
    | {f"node {key}" for key in NODE_MEMBERS}
    | {f"terminal {state}" for state in TERMINAL_STATES}
    | {"terminal observedAt", "terminal reason"}
    | {"outcome success", "outcome exitCode", "outcome failing exitCode", "outcome complete spelled otherwise"}
    | {"another epoch", "revision repeated", "kept runs", "changed runs and fleet"}
)


def test_subagent_streams_reach_every_line_kind_and_snapshot_shape() -> None:
    missing = _unreached("subagent-stdio", subagent_features, SUBAGENT_WANTED)
    assert not missing, f"never generated: {sorted(missing)}"


# -- shrinking (deep run) ------------------------------------------------------------------------

# Shrinking takes hundreds of draws per example (seconds on a busy two-core machine), so these
# run in the deep run only (``tox -e deep``; tests/support/depth.py). Derandomized, but hypothesis also
# draws constants from the modules a process has imported, so the search varies with the test
# run: each assertion accepts every smallest answer, not one of them.
SHRINK = settings(database=None, max_examples=300, derandomize=True, deadline=None)


def _smallest(wire: str, condition: Callable[[list[dict[str, Any]]], bool]) -> list[dict[str, Any]]:
    return _parsed(find(streams(wire), lambda data: condition(_parsed(data)), settings=SHRINK))


@pytest.mark.deep
def test_a_stream_json_run_with_tool_args_shrinks_to_one_spelled_tool_use() -> None:
    lines = _smallest("stream-json", lambda lines: "stream_event:tool_args_delta" in map(_label, lines))
    assert [_label(line) for line in lines] == [
        "system:init",
        "stream_event:tool_args_delta",
        "assistant",
        "user",
        "result:success",
    ]
    assert "partial_messages_v1" in lines[0]["capabilities"]
    assert len(lines[0]["capabilities"]) <= 2, lines[0]  # the capability it needs, and at most one more


@pytest.mark.deep
def test_a_stream_json_run_with_a_nested_line_shrinks_to_a_few_lines() -> None:
    lines = _smallest("stream-json", lambda lines: any("parent_tool_use_id" in line for line in lines))
    assert len(lines) <= 5, lines  # init, a tool use, its results, (a line nested,) the result


@pytest.mark.deep
def test_a_subagent_conversation_with_a_child_run_shrinks_to_one_exchange() -> None:
    lines = _smallest("subagent-stdio", lambda lines: any(_node_depths(line) > 1 for line in lines))
    assert [line["type"] for line in lines] == ["subagent_status", "response"]
    (run,) = lines[1]["data"]["runs"]
    (child,) = run["children"]
    assert child["children"] == []
    assert len(lines[1]["data"]["fleet"]["entries"]) <= 1


@pytest.mark.deep
def test_a_subagent_conversation_with_an_event_shrinks_to_three_lines() -> None:
    lines = _smallest("subagent-stdio", lambda lines: any(line["type"] == "subagent_event" for line in lines))
    # The event, a command and its response: the event may come before or after the command.
    assert sorted(line["type"] for line in lines) == ["response", "subagent_event", "subagent_status"]


def _node_depths(line: dict[str, Any]) -> int:
    snap = line.get("data") or line.get("snapshot")
    return max((depth + 1 for depth, _, _ in _walk(snap["runs"])), default=0) if snap else 0
