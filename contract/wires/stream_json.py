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
from itertools import repeat
from typing import Any

from contract.jsonline import parse
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


# Many UTC stamps joined by LF, each of the same RFC 3339 shape as above but with a day that
# exists in every month (01-28): one C-level match proves a whole batch of stamps valid.
_STAMP_UTC = (
    r"\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|1\d|2[0-8])[Tt](?:[01]\d|2[0-3]):[0-5]\d:(?:[0-5]\d|60)(?:\.\d+)?Z"
)
UTC_STAMPS = re.compile(rf"(?:{_STAMP_UTC}\n)*{_STAMP_UTC}")


USAGE_KEYS = ("input_tokens", "output_tokens", "cache_read", "cache_creation")


class StreamRules:
    """Every stream-json rule, as one incremental state machine over the run.

    One dispatcher on purpose: checking must cost no more than parsing (BENCHMARKS.md), so the
    common path per line is a handful of dict lookups, and each rule lives in its own small
    method that runs only when its line type, or a mismatch, calls for it.
    """

    MAX_PENDING_BYTES = 64 * 1024 * 1024  # tool_args_delta fragments kept while awaiting their tool_use
    MAX_REMEMBERED_TAILS = 4096

    def __init__(self) -> None:
        self.first = True
        self.inits = 0
        self.result_line: int | None = None
        self.last_line = 0
        self.next_seq: int | None = None
        self.session: str | None = None
        self.last_ts: str | None = None
        self.valid_head = ""  # the date-time part of the last valid ts
        self.valid_tails: set[str] = set()  # fraction-and-offset parts seen in valid stamps
        self.advertised: set[str] | None = None
        self.tool_uses: set[str] = set()
        self.fragments: dict[str, list[str]] = {}
        self.pending_bytes = 0
        self.by_kind = {
            "assistant": self._assistant,
            "user": self._user,
            "stream_event": self._stream_event,
            "system": self._system,
            "result": self._result,
        }

    def feed(self, record: Record, out: Collector) -> None:
        obj = record.obj
        line = record.line
        self.last_line = line
        if self.result_line is not None:
            self._after_result(obj, line, out)
        if obj is None:
            self._broken(line, out)
            return
        kind = obj.get("type")
        if self.first:
            self._first(obj, line, out)
        seq = obj.get("seq")
        if seq != self.next_seq or type(seq) is not int:
            self._seq(seq, line, out)
        else:
            self.next_seq = seq + 1
        if obj.get("session_id") != self.session:
            self._session(obj.get("session_id"), line, out)
        ts = obj.get("ts")
        if type(ts) is str:
            self._ts(ts, line, out)
        if "parent_tool_use_id" in obj:
            self._parent(obj["parent_tool_use_id"], line, out)
        handler = self.by_kind.get(kind)  # type: ignore[arg-type]
        if handler is not None:
            handler(obj, line, out)

    def feed_batch(self, first: int, objs: list[dict[str, Any]], out: Collector) -> None:
        """Feed consecutive object lines ``first``, ``first + 1``, ...: the same as ``feed`` on each.

        When the whole batch passes the run-wide checks at once (``_batch_in_step``), only the
        checks that depend on each line's type run line by line; otherwise every line takes
        ``feed``. Either way the findings and their order are those of ``feed``.
        """
        if not self._batch_in_step(objs):
            for line, obj in enumerate(objs, first):
                self.feed(Record(line, b"", obj), out)
            return
        by_kind = self.by_kind
        parent = self._parent
        for line, obj in enumerate(objs, first):
            if "parent_tool_use_id" in obj:
                parent(obj["parent_tool_use_id"], line, out)
            handler = by_kind.get(obj.get("type"))  # type: ignore[arg-type]
            if handler is not None:
                handler(obj, line, out)
        self.last_line = first + len(objs) - 1

    def _batch_in_step(self, objs: list[dict[str, Any]]) -> bool:
        """Whether every line of the batch passes sj.init-first, sj.result-last, sj.seq,
        sj.session, sj.ts-format and sj.ts-order with nothing to report, judged with a few
        C-level operations; if so the run's state moves past the batch.

        The batch must continue a run already under way (init seen, seq, session and a UTC ts
        known), hold no result line, and have: seq exactly the next integers, every
        session_id the run's, and ts all valid UTC stamps of the previous stamp's length, in
        order (for one shape in UTC, text order is time order).
        """
        expected, last_ts = self.next_seq, self.last_ts
        if self.first or self.result_line is not None or expected is None or self.session is None or last_ts is None:
            return False
        get, count = dict.get, len(objs)
        if "result" in map(get, objs, repeat("type")):
            return False
        seqs = list(map(get, objs, repeat("seq")))
        if seqs != list(range(expected, expected + count)) or set(map(type, seqs)) != {int}:
            return False
        if list(map(get, objs, repeat("session_id"))).count(self.session) != count:
            return False
        stamps: list[str] = list(map(get, objs, repeat("ts")))  # type: ignore[arg-type]  # join checks
        try:
            joined = "\n".join(stamps)
        except TypeError:  # a missing or mistyped ts: the schema's finding, judged line by line
            return False
        if (joined.count("\n") != count - 1 or set(map(len, stamps)) != {len(last_ts)} or last_ts[-1] != "Z"
                or stamps[0] < last_ts or sorted(stamps) != stamps or UTC_STAMPS.fullmatch(joined) is None):
            return False
        self.next_seq = expected + count
        self.last_ts = stamps[-1]
        return True

    def finish(self, out: Collector) -> None:
        if self.first:
            out.emit("sj.init-first", None, None, "expected system/init as the first line, found an empty stream")
        if self.result_line is None:
            out.emit("sj.result-last", self.last_line or None, None,
                     "expected a terminal result line, found the stream ending without one (a truncated run)",
                     "every run ends with exactly one result line, even when it fails")

    # -- sj.init-first, sj.init-once, sj.result-once, sj.result-last ------------------------

    def _first(self, obj: dict[str, Any], line: int, out: Collector) -> None:
        self.first = False
        if not _is_init(obj):
            out.emit("sj.init-first", line, "/type", f"expected system/init as the first line, found {_kind(obj)}",
                     "a consumer reads session, model and capabilities from init before anything else")

    def _broken(self, line: int, out: Collector) -> None:
        """A line that is not an object still takes its place in the run."""
        if self.first:
            self.first = False
            out.emit("sj.init-first", line, None,
                     "expected system/init as the first line, found a line that is not a JSON object")
        if self.next_seq is not None:
            self.next_seq += 1

    def _after_result(self, obj: dict[str, Any] | None, line: int, out: Collector) -> None:
        if obj is None or obj.get("type") != "result":  # a second result is sj.result-once's
            out.emit("sj.result-last", line, None,
                     f"expected nothing after the terminal result on line {self.result_line}, "
                     f"found a line of type {_kind(obj)}")

    def _init(self, obj: dict[str, Any], line: int, out: Collector) -> None:
        self.inits += 1
        if self.inits > 1:
            out.emit("sj.init-once", line, "/subtype",
                     f"expected one system/init per run, found init number {self.inits}")
        caps = obj.get("capabilities")
        self.advertised = {c for c in caps if type(c) is str} if type(caps) is list else set()
        if "agent" in obj and type(obj["agent"]) is not dict:
            out.emit("sj.agent-form", line, "/agent",
                     f"expected the AgentInfo object on system/init, found {_json_kind(obj['agent'])}")

    # -- sj.seq, sj.session ----------------------------------------------------------------

    def _seq(self, seq: Any, line: int, out: Collector) -> None:
        expected = self.next_seq
        if type(seq) is not int:  # missing or mistyped: the schema's finding
            if expected is not None:
                self.next_seq = expected + 1
            return
        if expected is not None:
            what = "a gap (a dropped line?)" if seq > expected else "a repeat or a step back"
            out.emit("sj.seq", line, "/seq", f"expected seq {expected}, found {seq}: {what}")
        self.next_seq = seq + 1

    def _session(self, session: Any, line: int, out: Collector) -> None:
        if type(session) is not str:
            return
        if self.session is None:
            self.session = session
            if not SESSION_FORM.fullmatch(session):
                out.emit("sj.session", line, "/session_id",
                         f"expected a milk session id of the form sess_..., found {_clip(session)!r}")
            return
        out.emit("sj.session", line, "/session_id",
                 f"expected the run's session_id {_clip(self.session)!r}, found {_clip(session)!r}")

    # -- sj.ts-format (MUST), sj.ts-order (SHOULD) ------------------------------------------

    def _ts(self, ts: str, line: int, out: Collector) -> None:
        if not self._rfc3339(ts):
            out.emit("sj.ts-format", line, "/ts",
                     f"expected an RFC 3339 timestamp such as 2026-01-31T12:00:00Z, found {_clip(ts)!r}")
            return
        last = self.last_ts
        self.last_ts = ts
        if last is None or (ts >= last and len(ts) == len(last) and ts[-1] == last[-1] == "Z"):
            return  # same shape in UTC: text order is time order
        try:
            went_back = _parse_ts(ts) < _parse_ts(last)
        except ValueError:  # a shape fromisoformat does not read (RFC 3339 allows more digits)
            return
        if went_back:
            out.emit("sj.ts-order", line, "/ts", f"expected ts at or after the previous line's {last}, found {ts}")

    def _rfc3339(self, ts: str) -> bool:
        """Whether ``ts`` is an RFC 3339 date-time (the schema: "ts (RFC 3339)").

        The pattern is a fixed 19-character date and time, then an optional fraction and the
        offset, each valid on its own. A run's stamps share the first part for a second at a
        time and repeat a few shapes of the second, so both are remembered once seen valid.
        """
        head, tail = ts[:19], ts[19:]
        if head == self.valid_head and tail in self.valid_tails:
            return True
        match = RFC3339.fullmatch(ts)
        if match is None or (match.group(3) > "28" and not _real_day(match)):
            return False
        self.valid_head = head
        if len(self.valid_tails) < self.MAX_REMEMBERED_TAILS:
            self.valid_tails.add(tail)
        return True

    # -- per line type -----------------------------------------------------------------------

    def _system(self, obj: dict[str, Any], line: int, out: Collector) -> None:
        subtype = obj.get("subtype")
        if subtype == "init":
            self._init(obj, line, out)
            return
        if "agent" in obj and type(obj["agent"]) is not dict and subtype == "init":
            return
        if subtype == "error" and "message" in obj and type(obj["message"]) is not str:
            out.emit("sj.message-form", line, "/message",
                     f"expected a string on system/error, found {_json_kind(obj['message'])}")
        if subtype in TASK_SUBTYPES:
            self._need("tasks_v1", f"system/{subtype}", line, out)

    def _assistant(self, obj: dict[str, Any], line: int, out: Collector) -> None:
        content = self._actor(obj, "assistant", line, out)
        if content is None:
            return
        for index, block in enumerate(content):
            if type(block) is dict and block.get("type") == "tool_use":
                self._tool_use(block, line, f"/message/content/{index}", out)

    def _user(self, obj: dict[str, Any], line: int, out: Collector) -> None:
        content = self._actor(obj, "user", line, out)
        if content is None:
            return
        for index, block in enumerate(content):
            if type(block) is dict and block.get("type") == "tool_result":
                ref = block.get("tool_use_id")
                if ref not in self.tool_uses:
                    found = repr(_clip(ref)) if type(ref) is str else "no tool_use_id"
                    out.emit("sj.tool-result-ref", line, f"/message/content/{index}/tool_use_id",
                             f"expected the id of an earlier tool_use, found {found}")

    def _stream_event(self, obj: dict[str, Any], line: int, out: Collector) -> None:
        self._need("partial_messages_v1", "stream_event", line, out)
        event = obj.get("event")
        if type(event) is dict and event.get("type") == "tool_args_delta":
            self._fragment(event)

    def _result(self, obj: dict[str, Any], line: int, out: Collector) -> None:
        if self.result_line is not None:
            out.emit("sj.result-once", line, "/type",
                     f"expected exactly one result line, found another after line {self.result_line}")
        else:
            self.result_line = line
        self._is_error(obj, line, out)
        self._usage(obj, line, out)

    # -- sj.agent-form, sj.message-form, sj.role-form ----------------------------------------

    @staticmethod
    def _actor(obj: dict[str, Any], kind: str, line: int, out: Collector) -> list[Any] | None:
        """Check an assistant/user line's dual-form fields; return its content blocks."""
        agent = obj.get("agent", "primary")
        if agent not in AGENT_LABELS:
            if type(agent) is not str:
                out.emit("sj.agent-form", line, "/agent",
                         f"expected a role label string on {kind} lines, found {_json_kind(agent)}")
            else:
                out.emit("sj.agent-form", line, "/agent",
                         f"expected the role label primary or escalation, found {_clip(agent)!r}")
        message = obj.get("message")
        if type(message) is not dict:
            found = "it missing" if "message" not in obj else _json_kind(message)
            out.emit("sj.message-form", line, "/message", f"expected the Message object on {kind} lines, found {found}")
            return None
        role = message.get("role")
        if role != kind and type(role) is str:
            out.emit("sj.role-form", line, "/message/role",
                     f"expected role {kind!r} on a {kind} line, found {_clip(role)!r}")
        content = message.get("content")
        return content if type(content) is list else None

    # -- sj.result-is-error, sj.usage-rollup --------------------------------------------------

    @staticmethod
    def _is_error(obj: dict[str, Any], line: int, out: Collector) -> None:
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

    @staticmethod
    def _usage(obj: dict[str, Any], line: int, out: Collector) -> None:
        usage, per_model = obj.get("usage"), obj.get("model_usage")
        if type(usage) is not dict or type(per_model) is not dict or not per_model:
            return
        for key in USAGE_KEYS:
            parts = [m.get(key) for m in per_model.values() if type(m) is dict]
            total = usage.get(key)
            if type(total) is not int or not all(type(p) is int for p in parts):
                continue
            if sum(parts) != total:  # type: ignore[arg-type]
                out.emit("sj.usage-rollup", line, f"/usage/{key}",
                         f"expected usage.{key} to equal the model_usage sum {sum(parts)}, found {total}")  # type: ignore[arg-type]

    # -- sj.capabilities -----------------------------------------------------------------------

    def _need(self, capability: str, what: str, line: int, out: Collector) -> None:
        if self.advertised is not None and capability not in self.advertised:
            out.emit("sj.capabilities", line, "/type",
                     f"expected {capability} in system/init capabilities before {what} lines, "
                     f"found {sorted(self.advertised)}")

    # -- sj.parent-ref, sj.tool-args-reassembly ------------------------------------------------

    def _parent(self, parent: Any, line: int, out: Collector) -> None:
        if type(parent) is str and parent not in self.tool_uses:
            out.emit("sj.parent-ref", line, "/parent_tool_use_id",
                     f"expected the id of an earlier tool_use, found {_clip(parent)!r}, never used before",
                     "nested actors point at the tool_use that started them")

    def _fragment(self, event: dict[str, Any]) -> None:
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
        # Read exactly as a line is read (contract.jsonline): the same numbers (Decimal where a
        # float would round), the same nesting limit whatever the stack, duplicate members caught.
        args, faults = parse(text.encode("utf-8", "surrogatepass"))
        if faults and faults[0].rule == "line.limit":
            out.emit("checker.limit", line, f"{where}/input",
                     f"expected reassembled tool arguments within the checker's limits, found "
                     f"{faults[0].message}: sj.tool-args-reassembly not judged for {_clip(ref)!r}")
            return
        if faults or (args is None and text.strip(" \t\r\n") != "null"):
            why = f" ({faults[0].message})" if faults else ""
            out.emit("sj.tool-args-reassembly", line, f"{where}/input",
                     f"expected the {len(pieces)} tool_args_delta fragments of {_clip(ref)!r} to "
                     f"concatenate to one JSON text with unique member names, found {_clip(text)!r}{why}")
            return
        if not same_json(args, block.get("input")):
            out.emit("sj.tool-args-reassembly", line, f"{where}/input",
                     f"expected input equal to its reassembled fragments {_clip(text)!r}, "
                     f"found {_clip(_dumps(block.get('input')))!r}")


def _dumps(value: Any) -> str:
    try:
        return json.dumps(value, default=str)  # default: a Decimal (exact number) as written
    except RecursionError:  # deeper than json.dumps recurses: say what it is instead
        return f"a {type(value).__name__} nested too deep to show"


def _is_init(obj: dict[str, Any]) -> bool:
    return obj.get("type") == "system" and obj.get("subtype") == "init"


def _real_day(match: re.Match[str]) -> bool:
    year, month, day = int(match.group(1)), int(match.group(2)), int(match.group(3))
    return day <= calendar.monthrange(year, month)[1]


def _parse_ts(ts: str) -> datetime:
    text = ts.replace("t", "T").replace("z", "Z")
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    if text[17:19] == "60":  # a leap second: order it with the minute's last second
        text = text[:17] + "59" + text[19:]
    return datetime.fromisoformat(text)



def same_json(a: Any, b: Any) -> bool:
    """JSON equality that keeps types apart (Python says 1 == 1.0 == True).

    Iterative: tool input may nest as deep as the parser allows, deeper than Python recurses.
    """
    stack: list[tuple[Any, Any]] = [(a, b)]
    while stack:
        x, y = stack.pop()
        if type(x) is not type(y):
            return False
        if type(x) is dict:
            if x.keys() != y.keys():
                return False
            stack.extend((x[k], y[k]) for k in x)
        elif type(x) is list:
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y, strict=True))
        elif x != y:
            return False
    return True


def _machines() -> list[Machine]:
    return [StreamRules()]


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
)
