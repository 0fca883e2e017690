"""The stream-json wire: its cross-line rules as small state machines.

Each machine implements a few related rules of the catalog (``contract.catalog``) and cites the
schema words it enforces. Machines see every parsed line, valid or not, and judge only the
fields whose type they can trust: a missing or mistyped field is the schema's finding
(``sj.schema``), not reported twice.
"""

from __future__ import annotations

import calendar
import json
import re
from datetime import datetime
from typing import Any

from contract.reader import Record
from contract.report import Collector
from contract.wires.base import Machine, Wire

# result subtype -> is_error, from the schema's description: "result subtype known set:
# success | error_during_execution | error_max_turns | interrupted | refused, with is_error as
# the boolean contract — a refusal is a completed turn and reports is_error false".
RESULT_IS_ERROR = {
    "success": False,
    "refused": False,
    "error_during_execution": True,
    "error_max_turns": True,
    "interrupted": True,
}
AGENT_LABELS = ("primary", "escalation")  # "a role label string (primary | escalation)"
TASK_SUBTYPES = frozenset(
    {"task_started", "task_progress", "task_notification", "background_tasks_changed"}
)
SESSION_FORM = re.compile(r"sess_\S+")

# RFC 3339 §5.6 date-time, with the field ranges in the pattern; day-of-month is checked after.
RFC3339 = re.compile(
    r"(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt]([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)"
    r"(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)"
)


def _is_init(obj: dict[str, Any]) -> bool:
    return obj.get("type") == "system" and obj.get("subtype") == "init"


class Order:
    """sj.init-first, sj.init-once, sj.result-once, sj.result-last."""

    def __init__(self) -> None:
        self.first = True
        self.inits = 0
        self.result_line: int | None = None
        self.after_result = 0
        self.last_line = 0

    def feed(self, record: Record, out: Collector) -> None:
        obj = record.obj
        self.last_line = record.line
        if self.result_line is not None:
            self.after_result += 1
            if self.after_result == 1 or (obj is not None and obj.get("type") != "result"):
                out.emit("sj.result-last", record.line, None,
                         f"expected nothing after the terminal result on line {self.result_line}, "
                         f"found a line of type {_kind(obj)}")
        if obj is None:
            if self.first:
                out.emit("sj.init-first", record.line, None,
                         "expected system/init as the first line, found a line that is not a JSON object")
            self.first = False
            return
        if _is_init(obj):
            self.inits += 1
            if self.inits > 1:
                out.emit("sj.init-once", record.line, "/subtype",
                         f"expected one system/init per run, found init number {self.inits}")
        elif self.first:
            out.emit("sj.init-first", record.line, "/type",
                     f"expected system/init as the first line, found {_kind(obj)}",
                     "a consumer reads session, model and capabilities from init before anything else")
        self.first = False
        if obj.get("type") == "result":
            if self.result_line is not None:
                out.emit("sj.result-once", record.line, "/type",
                         f"expected exactly one result line, found another after line {self.result_line}")
            else:
                self.result_line = record.line

    def finish(self, out: Collector) -> None:
        if self.first:
            out.emit("sj.init-first", None, None, "expected system/init as the first line, found an empty stream")
        if self.result_line is None:
            out.emit("sj.result-last", self.last_line or None, None,
                     "expected a terminal result line, found the stream ending without one (a truncated run)",
                     "every run ends with exactly one result line, even when it fails")


class Sequence:
    """sj.seq and sj.session: seq rises by one per line; one sess_ session_id per run."""

    def __init__(self) -> None:
        self.seq: int | None = None
        self.session: str | None = None

    def feed(self, record: Record, out: Collector) -> None:
        obj = record.obj
        if obj is None:
            if self.seq is not None:
                self.seq += 1  # a broken line still took a place in the sequence
            return
        seq = obj.get("seq")
        if type(seq) is int:
            if self.seq is not None and seq != self.seq + 1:
                what = "a gap (a dropped line?)" if seq > self.seq + 1 else "a repeat or a step back"
                out.emit("sj.seq", record.line, "/seq",
                         f"expected seq {self.seq + 1}, found {seq}: {what}")
            self.seq = seq
        elif self.seq is not None:
            self.seq += 1
        session = obj.get("session_id")
        if type(session) is str:
            if self.session is None:
                self.session = session
                if not SESSION_FORM.fullmatch(session):
                    out.emit("sj.session", record.line, "/session_id",
                             f"expected a milk session id of the form sess_..., found {_clip(session)!r}")
            elif session != self.session:
                out.emit("sj.session", record.line, "/session_id",
                         f"expected the run's session_id {_clip(self.session)!r}, found {_clip(session)!r}")

    def finish(self, out: Collector) -> None:
        pass


class Timestamps:
    """sj.ts-format (MUST, RFC 3339) and sj.ts-order (SHOULD, never back in time)."""

    def __init__(self) -> None:
        self.last: str | None = None
        self.last_at: datetime | None = None

    def feed(self, record: Record, out: Collector) -> None:
        obj = record.obj
        if obj is None:
            return
        ts = obj.get("ts")
        if type(ts) is not str:
            return
        match = RFC3339.fullmatch(ts)
        if match is None or not _real_day(match):
            out.emit("sj.ts-format", record.line, "/ts",
                     f"expected an RFC 3339 timestamp such as 2026-01-31T12:00:00Z, found {_clip(ts)!r}")
            return
        last = self.last
        self.last = ts
        if last is None or ts == last:
            return
        if len(ts) == len(last) and ts[-1] == last[-1] == "Z":
            if ts < last:  # same shape in UTC: text order is time order
                self._back(record, last, ts, out)
            self.last_at = None
            return
        at = _parse_ts(ts)
        before = self.last_at or _parse_ts(last)
        self.last_at = at
        if at < before:
            self._back(record, last, ts, out)

    @staticmethod
    def _back(record: Record, last: str, ts: str, out: Collector) -> None:
        out.emit("sj.ts-order", record.line, "/ts",
                 f"expected ts at or after the previous line's {last}, found {ts}")

    def finish(self, out: Collector) -> None:
        pass


def _real_day(match: re.Match[str]) -> bool:
    day = int(match.group(3))
    if day <= 28:
        return True
    year, month = int(match.group(1)), int(match.group(2))
    return day <= calendar.monthrange(year, month)[1]


def _parse_ts(ts: str) -> datetime:
    text = ts.replace("t", "T").replace("z", "Z")
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    if text[17:19] == "60":  # a leap second: order it with the minute's last second
        text = text[:17] + "59" + text[19:]
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return datetime.min.replace(tzinfo=None)


class Forms:
    """sj.result-is-error, sj.agent-form, sj.message-form, sj.role-form (dual-form fields)."""

    def feed(self, record: Record, out: Collector) -> None:
        obj = record.obj
        if obj is None:
            return
        kind = obj.get("type")
        line = record.line
        if kind == "result":
            self._result(obj, line, out)
            return
        if kind in ("assistant", "user"):
            self._actor(obj, kind, line, out)
        elif kind == "system":
            if "agent" in obj and obj.get("subtype") == "init" and type(obj["agent"]) is not dict:
                out.emit("sj.agent-form", line, "/agent",
                         f"expected the AgentInfo object on system/init, found {_json_kind(obj['agent'])}")
            if obj.get("subtype") == "error" and "message" in obj and type(obj["message"]) is not str:
                out.emit("sj.message-form", line, "/message",
                         f"expected a string on system/error, found {_json_kind(obj['message'])}")

    @staticmethod
    def _result(obj: dict[str, Any], line: int, out: Collector) -> None:
        if "is_error" not in obj:
            out.emit("sj.result-is-error", line, "/is_error",
                     "expected is_error on every result line, found it missing")
            return
        is_error = obj["is_error"]
        if type(is_error) is not bool:
            out.emit("sj.result-is-error", line, "/is_error",
                     f"expected a boolean is_error, found {_json_kind(is_error)}")
            return
        want = RESULT_IS_ERROR.get(obj.get("subtype"))  # type: ignore[arg-type]
        if want is not None and want is not is_error:
            out.emit("sj.result-is-error", line, "/is_error",
                     f"expected is_error {str(want).lower()} for subtype {obj['subtype']}, "
                     f"found {str(is_error).lower()}",
                     "success and refused are completed turns; errors, max turns and interruptions are not")

    def finish(self, out: Collector) -> None:
        pass

    @staticmethod
    def _actor(obj: dict[str, Any], kind: str, line: int, out: Collector) -> None:
        if "agent" in obj:
            agent = obj["agent"]
            if type(agent) is not str:
                out.emit("sj.agent-form", line, "/agent",
                         f"expected a role label string on {kind} lines, found {_json_kind(agent)}")
            elif agent not in AGENT_LABELS:
                out.emit("sj.agent-form", line, "/agent",
                         f"expected the role label primary or escalation, found {_clip(agent)!r}")
        message = obj.get("message")
        if type(message) is not dict:
            found = "it missing" if message is None and "message" not in obj else _json_kind(message)
            out.emit("sj.message-form", line, "/message",
                     f"expected the Message object on {kind} lines, found {found}")
            return
        role = message.get("role")
        if type(role) is str and role != kind:
            out.emit("sj.role-form", line, "/message/role",
                     f"expected role {kind!r} on a {kind} line, found {_clip(role)!r}")


class ToolUses:
    """sj.tool-result-ref, sj.parent-ref and sj.tool-args-reassembly: references between lines."""

    MAX_PENDING_BYTES = 64 * 1024 * 1024  # bounded memory for fragments never completed

    def __init__(self) -> None:
        self.tool_uses: set[str] = set()
        self.fragments: dict[str, list[str]] = {}
        self.pending_bytes = 0

    def feed(self, record: Record, out: Collector) -> None:
        obj = record.obj
        if obj is None:
            return
        line = record.line
        parent = obj.get("parent_tool_use_id")
        if type(parent) is str and parent not in self.tool_uses:
            out.emit("sj.parent-ref", line, "/parent_tool_use_id",
                     f"expected the id of an earlier tool_use, found {_clip(parent)!r}, never used before",
                     "nested actors point at the tool_use that started them")
        kind = obj.get("type")
        if kind == "stream_event":
            self._delta(obj)
            return
        if kind not in ("assistant", "user"):
            return
        message = obj.get("message")
        content = message.get("content") if type(message) is dict else None
        if type(content) is not list:
            return
        for index, block in enumerate(content):
            if type(block) is not dict:
                continue
            block_type = block.get("type")
            if block_type == "tool_use" and kind == "assistant":
                self._tool_use(block, line, f"/message/content/{index}", out)
            elif block_type == "tool_result":
                ref = block.get("tool_use_id")
                if ref not in self.tool_uses:
                    found = repr(_clip(ref)) if type(ref) is str else "no tool_use_id"
                    out.emit("sj.tool-result-ref", line, f"/message/content/{index}/tool_use_id",
                             f"expected the id of an earlier tool_use, found {found}")

    def _delta(self, obj: dict[str, Any]) -> None:
        event = obj.get("event")
        if type(event) is not dict or event.get("type") != "tool_args_delta":
            return
        ref, fragment = event.get("tool_use_id"), event.get("partial_json")
        if type(ref) is str and type(fragment) is str:
            if self.pending_bytes + len(fragment) > self.MAX_PENDING_BYTES:
                return
            self.pending_bytes += len(fragment)
            self.fragments.setdefault(ref, []).append(fragment)

    def _tool_use(self, block: dict[str, Any], line: int, where: str, out: Collector) -> None:
        ref = block.get("id")
        if type(ref) is not str:
            return
        self.tool_uses.add(ref)
        pieces = self.fragments.pop(ref, None)
        if pieces is None:
            return
        text = "".join(pieces)
        self.pending_bytes -= len(text)
        try:
            args = json.loads(text, parse_constant=_reject)
        except (ValueError, RecursionError):
            out.emit("sj.tool-args-reassembly", line, f"{where}/input",
                     f"expected the {len(pieces)} tool_args_delta fragments of {_clip(ref)!r} to "
                     f"concatenate to JSON, found {_clip(text)!r}")
            return
        if not same_json(args, block.get("input")):
            out.emit("sj.tool-args-reassembly", line, f"{where}/input",
                     f"expected input equal to its reassembled fragments {_clip(text)!r}, "
                     f"found {_clip(json.dumps(block.get('input')))!r}")

    def finish(self, out: Collector) -> None:
        pass


def _reject(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def same_json(a: Any, b: Any) -> bool:
    """JSON equality that keeps types apart (Python says 1 == 1.0 == True)."""
    if type(a) is not type(b):
        return False
    if type(a) is dict:
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if type(a) is list:
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


class Capabilities:
    """sj.capabilities (SHOULD): features used on the wire are advertised on init."""

    def __init__(self) -> None:
        self.advertised: set[str] | None = None

    def feed(self, record: Record, out: Collector) -> None:
        obj = record.obj
        if obj is None:
            return
        kind = obj.get("type")
        if kind == "system":
            if obj.get("subtype") == "init":
                caps = obj.get("capabilities")
                self.advertised = {c for c in caps if type(c) is str} if type(caps) is list else set()
                return
            if obj.get("subtype") in TASK_SUBTYPES:
                self._need("tasks_v1", f"system/{obj['subtype']}", record.line, out)
        elif kind == "stream_event":
            self._need("partial_messages_v1", "stream_event", record.line, out)

    def _need(self, capability: str, what: str, line: int, out: Collector) -> None:
        if self.advertised is not None and capability not in self.advertised:
            out.emit("sj.capabilities", line, "/type",
                     f"expected {capability} in system/init capabilities before {what} lines, "
                     f"found {sorted(self.advertised)}")

    def finish(self, out: Collector) -> None:
        pass


USAGE_KEYS = ("input_tokens", "output_tokens", "cache_read", "cache_creation")


class Usage:
    """sj.usage-rollup (SHOULD): per-model usage sums to the run's usage."""

    def feed(self, record: Record, out: Collector) -> None:
        obj = record.obj
        if obj is None or obj.get("type") != "result":
            return
        usage, per_model = obj.get("usage"), obj.get("model_usage")
        if type(usage) is not dict or type(per_model) is not dict or not per_model:
            return
        for key in USAGE_KEYS:
            parts = [m.get(key) for m in per_model.values() if type(m) is dict]
            if type(usage.get(key)) is not int or not all(type(p) is int for p in parts):
                continue
            if sum(parts) != usage[key]:  # type: ignore[arg-type]
                out.emit("sj.usage-rollup", record.line, f"/usage/{key}",
                         f"expected usage.{key} to equal the model_usage sum {sum(parts)}, "  # type: ignore[arg-type]
                         f"found {usage[key]}")

    def finish(self, out: Collector) -> None:
        pass


def _machines() -> list[Machine]:
    return [Order(), Sequence(), Timestamps(), Forms(), ToolUses(), Capabilities(), Usage()]


def _detect(obj: dict[str, Any]) -> bool:
    return obj.get("type") in ("system", "stream_event", "assistant", "user", "result") or "seq" in obj


def _kind(obj: dict[str, Any] | None) -> str:
    if obj is None:
        return "non-object"
    kind, subtype = obj.get("type"), obj.get("subtype")
    if type(kind) is not str:
        return "untyped"
    return f"{kind}/{subtype}" if type(subtype) is str else kind


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "an array",
            dict: "an object"}.get(type(value), type(value).__name__)


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


STREAM_JSON = Wire(
    name="stream-json",
    schema_rule="sj.schema",
    machines=_machines,
    detect=_detect,
    description="milk \"prompt\" --output-format stream-json: one run, one stream",
)
