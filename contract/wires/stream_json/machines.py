"""The stream-json rule machine, ``StreamRules``: every cross-line rule of the wire.

Each rule of ``rules.py`` that the machine emits is judged here, and each method cites the
schema words it enforces. The machine sees every parsed line, valid or not, and judges only
the fields whose type it can trust: a missing or mistyped field is the schema's finding
(``sj.schema``), not reported twice.
"""

from __future__ import annotations

import calendar
import copy
import json
import re
from collections.abc import Callable
from decimal import Decimal
from itertools import repeat
from typing import Any, ClassVar

from contract.core.jsonline import AMBIGUOUS, MAX_INT_DIGITS
from contract.core.jsonvalue import clip, quoted, same_value, shown
from contract.core.jsonvalue import kind as json_kind
from contract.core.reader import Record
from contract.core.rule import Check
from contract.core.sink import Sink
from contract.wires.stream_json import facts as batch
from contract.wires.stream_json import leaps
from contract.wires.stream_json.facts import TASK_SUBTYPES, UTC_STAMPS
from contract.wires.stream_json.rules import REGISTRY

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
# "a role label string (primary | escalation)": the known labels, not a closed set ("open-set
# enums everywhere — this schema documents known values in descriptions but does not constrain
# them"), so any string passes sj.agent-form; generators draw from these.
AGENT_LABELS = ("primary", "escalation")
# "milk session id (sess_...)": the sess_ prefix is written (sj.session); that an id follows it,
# one token with no white space, is the reading of the ellipsis (sj.session-suffix, derived).
SESSION_SUFFIX = re.compile(r"\S+")

# RFC 3339 §5.6 date-time, with the field ranges in the pattern; day-of-month and the leap
# second are checked after. Digits are [0-9], never \d: RFC 3339 digits are ASCII, and Python's
# \d also matches fullwidth, Arabic-Indic and mathematical-bold digits.
RFC3339 = re.compile(
    r"([0-9]{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt]([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9]|60)"
    r"(?:\.([0-9]+))?([Zz]|([+-])([01][0-9]|2[0-3]):([0-5][0-9]))"
)
_DAY_MINUTES = 24 * 60

USAGE_KEYS = ("input_tokens", "output_tokens", "cache_read", "cache_creation")


class StreamRules:
    """Every stream-json rule, as one incremental state machine over the run.

    One dispatcher on purpose: checking must cost no more than parsing (BENCHMARKS.md), so the
    common path per line is a handful of dict lookups, and each rule lives in its own small
    method that runs only when its line type, or a mismatch, calls for it.

    Any member may hold any JSON value (the machine also sees lines that failed the schema):
    values from the input are used as dict keys or set members only once known to be strings,
    and integer fields are judged by their exact value whatever number type the parser gives
    (``_integral``).
    """

    # Derived from the wire's registry (rules.py): the rules declared as this machine's, those of
    # the checks declared there (run from the dispatch below), and the checker's bound rule.
    rules: ClassVar[frozenset[str]] = frozenset({
        *REGISTRY.emitted_by("StreamRules"), *(rule for check in REGISTRY.checks() for rule in check.rules),
        "checker.limit",
    })

    # Bounds on what the machine keeps. A file can be of any size, so each one can be reached;
    # reaching one is a checker.limit finding (once per bound), and the checks it feeds stop
    # judging from there instead of guessing (no silent pass, no false finding).
    MAX_PENDING_BYTES = 64 * 1024 * 1024  # tool_args_delta fragments kept while awaiting their tool_use
    MAX_CALL_BYTES = 16 * 1024 * 1024  # of them, the fragments kept for one tool-call id
    MAX_TOOL_USE_BYTES = 64 * 1024 * 1024  # tool_use ids remembered for sj.tool-result-ref / sj.parent-ref
    ENTRY_OVERHEAD = 64  # bytes charged per kept fragment or id, so empty strings are not free
    # A cache, not a bound on a check: stamps it does not hold are validated in full.
    MAX_REMEMBERED_TAILS = 4096
    MAX_REMEMBERED_TAIL_LENGTH = 40

    # The rules _batch_in_step judges for a whole batch, as feed would on its lines
    # (sj.init-first was judged on line 1; sj.result-last is judged by finish in any case).
    IN_STEP = ("sj.seq", "sj.seq-contiguous", "sj.session-constant", "sj.ts-format", "sj.ts-order")

    # What each line of a block decides alone (no state: the parallel checker's worker runs it)
    block_facts = staticmethod(batch.block_facts)

    def __init__(self) -> None:
        self.first = True
        self.inits = 0
        self.result_line: int | None = None
        self.result_failed = False  # the result says is_error true: an unfinished tool call is explained
        self.last_line = 0
        self.last_unreadable = False  # the last line read was not a JSON object the checker could read
        self.unreadable_line = 0  # the last line no content rule judged (a call's tool_use may be in it)
        self.last_head: dict[str, Any] | None = None  # that line's type, where it could be read (Record.head)
        self.next_seq: int | None = None  # one step per line (sj.seq-contiguous)
        self.last_seq: int | None = None  # the last seq read (sj.seq: monotonic)
        self.session: str | None = None
        self.last_ts: str | None = None
        self.valid_head = ""  # the date-time part of the last valid ts (never a leap second)
        self.valid_tails: set[str] = set()  # fraction-and-offset parts seen in valid stamps
        self.leap_beyond_noted = False  # a leap second beyond the table was noted (once per run)
        self.advertised: set[str] | None = None
        self.tool_uses: set[str] = set()
        self.tool_use_bytes = 0
        self.tool_uses_full = False  # MAX_TOOL_USE_BYTES reached: unknown refs can no longer be judged
        self.fragments: dict[str, _Call] = {}  # tool-call id -> its fragments, until its tool_use
        self.pending_bytes = 0
        self.reassembly_stopped = False  # MAX_PENDING_BYTES reached: reassembly is no longer judged
        self.by_kind: dict[str, Handler] = {
            "assistant": self._assistant,
            "user": self._user,
            "stream_event": self._stream_event,
            "system": self._system,
            "result": self._result,
        }
        # The checks declared beside their rules (rules.py, REGISTRY.check) join the dispatch:
        # with none (the rules above are all this machine's own) it is the table above, unchanged.
        self.checks: list[Check] = [check() for check in REGISTRY.checks()]
        for check in self.checks:
            for kind in check.kinds:
                self.by_kind[kind] = _chained(self.by_kind.get(kind), check.line)

    def feed(self, record: Record, out: Sink) -> None:
        obj = record.obj
        line = record.line
        self.last_line = line
        self.last_unreadable = obj is None
        if obj is None:
            self._opaque(record, out)
            return
        if self.result_line is not None:
            self._after_result(obj, line, out)
        kind = obj.get("type")
        if self.first:
            self._first(obj, line, out)
        seq = obj.get("seq")
        if seq != self.next_seq or type(seq) is not int:
            self._seq(seq, line, out)
        else:
            out.exercised("sj.seq")
            out.exercised("sj.seq-contiguous")
            self.next_seq = seq + 1
            self.last_seq = seq
        if obj.get("session_id") != self.session:
            self._session(obj.get("session_id"), line, out)
        elif self.session is not None:
            out.exercised("sj.session-constant")
        ts = obj.get("ts")
        if type(ts) is str:
            self._ts(ts, line, out)
        if "parent_tool_use_id" in obj:
            self._parent(obj["parent_tool_use_id"], line, out)
        handler = self.by_kind.get(kind) if type(kind) is str else None
        if handler is not None:
            handler(obj, line, out)

    def feed_batch(self, first: int, objs: list[dict[str, Any]], out: Sink) -> None:
        """Feed consecutive object lines ``first``, ``first + 1``, ...: the same as ``feed`` on each.

        When the whole batch passes the run-wide checks at once (``_batch_in_step``), only the
        checks that depend on each line's type run line by line; otherwise every line takes
        ``feed``. Either way the findings and their order are those of ``feed``.

        First the block's facts (``facts.block_facts``) are tried: when no line has anything to
        report on its own and the block continues the run, ``feed_facts`` takes only the steps
        that depend on the run.
        """
        facts = self.block_facts(objs)
        if facts is not None and self.feed_facts(first, facts, out, objs.__getitem__):
            return
        if not self._batch_in_step(objs):
            for line, obj in enumerate(objs, first):
                self.feed(Record(line, b"", obj), out)
            return
        for rule in self.IN_STEP:  # judged for the whole batch at once, each with no finding
            out.exercised(rule)
        by_kind = self.by_kind
        parent = self._parent
        for line, obj in enumerate(objs, first):
            if "parent_tool_use_id" in obj:
                parent(obj["parent_tool_use_id"], line, out)
            kind = obj.get("type")
            handler = by_kind.get(kind) if type(kind) is str else None
            if handler is not None:
                handler(obj, line, out)
        self.last_line = first + len(objs) - 1
        self.last_unreadable = False

    def feed_facts(self, first: int, facts: batch.Facts, out: Sink, load: Callable[[int], dict[str, Any]]) -> bool:
        """Feed the block of lines ``first``, ``first + 1``, ... by its facts (``facts.block_facts``):
        the same as ``feed`` on each line, or False, with nothing done, when the block does not
        continue the run as the facts need (then ``feed_batch`` judges it).

        The facts vouch that no line has anything to report on its own; what is left depends on
        the run, judged here: the block continues the run's seq, session and stamps, after init
        and before any result; the capabilities its lines need were advertised; no bound is
        reached in it; the calls it completes start in it; then its tool_use ids join the run's
        and its steps left (``facts.PARENT``, ``USE``, ``RESULT``, ``FRAG``) are taken in line
        order by the methods ``feed`` calls for them. ``load(offset)``: the object of the block's
        line at ``offset``, for the rare step that needs the whole line (a tool_use completing
        fragments streamed in an earlier block).
        """
        (count, first_seq, session, first_ts, last_ts, flags, uses, ops, calls,
         use_bytes, use_entries, frag_bytes, frag_entries) = facts
        if not self._continues(first_seq, session, first_ts, flags):
            return False
        if (self.tool_uses_full or self.tool_use_bytes + use_bytes + self.ENTRY_OVERHEAD * use_entries
                > self.MAX_TOOL_USE_BYTES
                or self.pending_bytes + frag_bytes + self.ENTRY_OVERHEAD * frag_entries > self.MAX_PENDING_BYTES):
            return False  # a bound may be reached in the block: line by line, where it is reported
        fragments, tool_uses = self.fragments, self.tool_uses
        for at in range(0, len(calls), 2):
            ref = calls[at]
            if ref in fragments or ref in tool_uses or calls[at + 1] > self.MAX_CALL_BYTES:
                return False  # the call began earlier, or is a repeat: judged line by line
        if self.checks and not self._checks_quiet(first, count, load, out):
            return False  # a declared check found something: line by line, in feed's order
        refs = uses[2::3]
        merge = bool(fragments) and not fragments.keys().isdisjoint(refs)  # one completes an earlier call
        self.next_seq = first_seq + count
        self.last_seq = first_seq + count - 1
        self.last_ts = last_ts
        self._exercise(flags, out)
        if merge:
            steps = [*ops, *(value for at in range(0, len(uses), 3)
                             for value in (uses[at], batch.USE, uses[at + 2], uses[at + 1]))]
            self._steps(first, _in_line_order(steps), out, load)
        else:
            fresh = [ref for ref in dict.fromkeys(refs) if ref not in tool_uses]
            tool_uses.update(fresh)  # what _remember does for each, no bound being reached
            self.tool_use_bytes += sum(map(len, fresh)) + self.ENTRY_OVERHEAD * len(fresh)
            if ops:
                self._steps(first, ops, out, load)
        self.last_line = first + count - 1
        self.last_unreadable = False
        return True

    def _checks_quiet(self, first: int, count: int, load: Callable[[int], dict[str, Any]], out: Sink) -> bool:
        """The declared checks (rules.py, ``REGISTRY.check``) on the block's lines of their kinds, as
        ``feed`` runs them: True when none emitted or noted anything (what they judged is marked
        exercised), False with every check's state put back as it was, so that the line-by-line
        path judges the block again and reports in ``feed``'s order. So registering a check never
        turns the fast path off for a run: only a block in which one finds something goes line by
        line (issue 29). The cost, a copy of the checks' state per block, is paid only when a
        check is declared."""
        saved = [copy.deepcopy(vars(check)) for check in self.checks]
        probe = _Probe()
        for offset in range(count):
            obj = load(offset)
            kind = obj.get("type")
            for check in self.checks:
                if kind in check.kinds:
                    check.line(obj, first + offset, probe)
            if probe.spoke:
                for check, state in zip(self.checks, saved, strict=True):
                    vars(check).clear()
                    vars(check).update(state)
                return False
        for rule in probe.judged:
            out.exercised(rule)
        return True

    def _continues(self, first_seq: int, session: str, first_ts: str, flags: int) -> bool:
        """Whether a block in step with itself continues the run with nothing to report: after
        init and before any result, seq, session and stamps follow on, and the capabilities its
        lines need were advertised (or no init said any)."""
        before = self.last_ts
        if (self.first or self.result_line is not None or first_seq != self.next_seq
                or session != self.session or before is None or len(before) != len(first_ts) or before[-1] != "Z"
                or first_ts < before):
            return False
        advertised = self.advertised
        return advertised is None or all(capability in advertised for bit, capability in batch.NEEDS if flags & bit)

    def _exercise(self, flags: int, out: Sink) -> None:
        """The rules a block fed by its facts judged, each with no finding."""
        exercised = out.exercised
        for rule in self.IN_STEP:
            exercised(rule)
        for bit, rule in (*batch.FLAG_RULES, *batch.KNOWN):
            if flags & bit:
                exercised(rule)
        if self.advertised is not None and any(flags & bit for bit, _ in batch.NEEDS):
            exercised("sj.capabilities")
        if flags & batch.CALLS and not self.reassembly_stopped:
            for rule in batch.CALL_RULES:
                exercised(rule)

    def _steps(self, first: int, ops: list[Any], out: Sink, load: Callable[[int], dict[str, Any]]) -> None:
        """A block's run-dependent steps, in order, as ``feed`` takes them (``feed_facts``)."""
        tool_uses, fragments = self.tool_uses, self.fragments
        parents = results = False  # a reference to a known id: only its rule is exercised
        items = iter(ops)
        for offset, code, ref, extra in zip(items, items, items, items, strict=True):
            if code == batch.PARENT:
                if ref in tool_uses:
                    parents = True
                else:
                    self._parent(ref, first + offset, out)
            elif code == batch.RESULT:
                if ref in tool_uses:
                    results = True
                else:
                    self._result_ref(ref, first + offset, f"/message/content/{extra}/tool_use_id", out)
            elif code == batch.USE:
                if ref in fragments:  # it completes streamed fragments: judged on the whole line
                    self._tool_use(load(offset)["message"]["content"][extra], first + offset,
                                   f"/message/content/{extra}", out)
                elif ref not in tool_uses:
                    self._remember(ref, first + offset, out)
            else:
                self._piece(ref, extra, first + offset, out)
        if parents:
            out.exercised("sj.parent-ref")
        if results:
            out.exercised("sj.tool-result-ref")

    def _batch_in_step(self, objs: list[dict[str, Any]]) -> bool:
        """Whether every line of the batch passes sj.init-first, sj.result-last, sj.seq,
        sj.session, sj.ts-format and sj.ts-order with nothing to report, judged with a few
        C-level operations; if so the run's state moves past the batch.

        The batch must continue a run already under way (init seen, seq, session and a UTC ts
        known), hold no result line, and have: seq exactly the next integers (of type int: a
        7.0 takes the line-by-line path), every session_id the run's, and ts all valid UTC
        stamps of the previous stamp's length, in order (for one shape in UTC, text order is
        time order), none of them a leap second.
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
        self.last_seq = expected + count - 1
        self.last_ts = stamps[-1]
        return True

    def finish(self, out: Sink) -> None:
        out.exercised("sj.init-first")
        out.exercised("sj.result-last")
        if self.first:
            out.emit("sj.init-first", None, None, "expected system/init as the first line, found an empty stream")
        if self.result_line is None and self.last_unreadable:
            # The last line may be the result, unreadable (too long, not UTF-8, not JSON): the
            # checker cannot say the run ends with one, nor that it has none. Its line.* finding
            # says why it could not be read.
            out.emit("sj.result-last", self.last_line, None,
                     f"expected a terminal result line, found none that could be read: the last line, "
                     f"line {self.last_line}, is {_kind(self.last_head)}, so whether it is the result "
                     "cannot be told",
                     "every run ends with exactly one result line, even when it fails")
        elif self.result_line is None:
            out.emit("sj.result-last", self.last_line or None, None,
                     "expected a terminal result line, found the stream ending without one (a truncated run)",
                     "every run ends with exactly one result line, even when it fails")
        self._unfinished_calls(out)
        for check in self.checks:
            check.finish(out)

    # -- sj.init-first, sj.init-once, sj.result-once, sj.result-last ------------------------

    def _first(self, obj: dict[str, Any], line: int, out: Sink) -> None:
        self.first = False
        out.exercised("sj.init-first")
        if not _is_init(obj):
            out.emit("sj.init-first", line, "/type", f"expected system/init as the first line, found {_kind(obj)}",
                     "a consumer reads session, model and capabilities from init before anything else")

    def _opaque(self, record: Record, out: Sink) -> None:
        """A line no content rule judges still takes its place in the run.

        An object line made opaque by a policy fault (a repeated member name: ``record.head``)
        is still an object, so the rules about a line's place read its type from the parse, as
        on any line: its finding is its own rule's, never ``sj.init-first`` or ``sj.result-last``
        in its words (an init with a repeated ``extension`` member is the init). Only a type the
        readings disagree on (``"type"`` itself repeated with different values) cannot be read:
        then no run can be shown whole, and the place rules fail closed, saying why.
        """
        line, head = record.line, record.head
        self.unreadable_line, self.last_head = line, head
        self.last_unreadable = head is None or _unread_type(head)
        if head is not None and self.result_line is None and not self.last_unreadable and head.get("type") == "result":
            self.result_line = line  # the result, whose is_error no rule reads (an unfinished call is excused)
        elif self.result_line is not None:
            self._after_result(head, line, out, opaque=True)
        if self.first:
            self.first = False
            out.exercised("sj.init-first")
            if head is None or not _is_init(head):
                out.emit("sj.init-first", line, None if head is None else "/type",
                         f"expected system/init as the first line, found {_kind(head)}")
        if self.next_seq is not None:
            self.next_seq += 1

    def _after_result(self, obj: dict[str, Any] | None, line: int, out: Sink, opaque: bool = False) -> None:
        out.exercised("sj.result-last")
        if obj is None or _unread_type(obj):  # whatever an unreadable line holds, it is a line after the result
            out.emit("sj.result-last", line, None,
                     f"expected nothing after the terminal result on line {self.result_line}, found "
                     f"{_kind(obj)}")
        elif obj.get("type") == "result" and opaque:
            out.exercised("sj.result-once")  # an opaque second result: its place, read from its type
            out.emit("sj.result-once", line, "/type",
                     f"expected exactly one result line, found another after line {self.result_line}")
        elif obj.get("type") != "result":  # a second result is sj.result-once's
            out.emit("sj.result-last", line, None,
                     f"expected nothing after the terminal result on line {self.result_line}, "
                     f"found a line of type {_kind(obj)}")

    def _init(self, obj: dict[str, Any], line: int, out: Sink) -> None:
        self.inits += 1
        out.exercised("sj.init-once")
        if self.inits > 1:
            out.emit("sj.init-once", line, "/subtype",
                     f"expected one system/init per run, found init number {self.inits}")
        caps = obj.get("capabilities")
        self.advertised = {c for c in caps if type(c) is str} if type(caps) is list else set()
        if "agent" in obj:
            out.exercised("sj.agent-form")
        if "agent" in obj and type(obj["agent"]) is not dict:
            out.emit("sj.agent-form", line, "/agent",
                     f"expected the AgentInfo object on system/init, found {json_kind(obj['agent'])}")

    # -- sj.seq, sj.session ----------------------------------------------------------------

    def _seq(self, seq: Any, line: int, out: Sink) -> None:
        """Judge seq by its exact value: 7.0 and 5e0 are the integers 7 and 5 (JSON Schema)."""
        expected = self.next_seq
        value = _integral(seq)
        if value is None:  # missing, mistyped or not integral: the schema's finding
            if expected is not None:
                self.next_seq = expected + 1
            return
        if value is TOO_LONG:
            out.emit("checker.limit", line, "/seq",
                     f"sj.seq stopped: a seq of more than {MAX_INT_DIGITS} digits is beyond what the checker "
                     "reads; seq is judged again from the next line on")
            self.next_seq = self.last_seq = None
            return
        last = self.last_seq
        if last is not None:
            out.exercised("sj.seq")
        if expected is not None:
            out.exercised("sj.seq-contiguous")
        # One finding, one basis: a step back below the last seq read breaks the written
        # "monotonic" (sj.seq; monotonic never goes back, but allows a repeat); any other mismatch
        # with one step per line (a gap, a repeat, or a line without a readable seq that took no
        # number) breaks only the contiguity derived from the purpose (sj.seq-contiguous).
        if last is not None and value < last:
            out.emit("sj.seq", line, "/seq",
                     f"expected seq {clip(str(last))} or above (monotonic), found {clip(_number_text(seq))}: "
                     "a step back")
        elif expected is not None and value != expected:
            what = ("a gap (a dropped line?)" if value > expected
                    else "a repeat (a duplicated line, or one that hides a drop?)" if value == last
                    else "one number per line, and a line before it without a readable seq took none")
            out.emit("sj.seq-contiguous", line, "/seq",
                     f"expected seq {clip(str(expected))}, found {clip(_number_text(seq))}: {what}")
        self.next_seq = value + 1
        self.last_seq = value

    def _session(self, session: Any, line: int, out: Sink) -> None:
        if type(session) is not str:
            return
        if self.session is None:
            out.exercised("sj.session")
            self.session = session
            if not session.startswith("sess_"):
                out.emit("sj.session", line, "/session_id",
                         f"expected a milk session id of the form sess_..., found {quoted(clip(session))}")
                return
            out.exercised("sj.session-suffix")
            if not SESSION_SUFFIX.fullmatch(session, 5):
                out.emit("sj.session-suffix", line, "/session_id",
                         f"expected sess_ followed by an id (one or more characters, no white space), "
                         f"found {quoted(clip(session))}")
            return
        out.exercised("sj.session-constant")
        out.emit("sj.session-constant", line, "/session_id",
                 f"expected the run's session_id {quoted(clip(self.session))}, found {quoted(clip(session))}")

    # -- sj.ts-format (MUST), sj.ts-order (SHOULD) ------------------------------------------

    def _ts(self, ts: str, line: int, out: Sink) -> None:
        out.exercised("sj.ts-format")
        if not self._rfc3339(ts):
            out.emit("sj.ts-format", line, "/ts",
                     f"expected an RFC 3339 timestamp such as 2026-01-31T12:00:00Z, found {quoted(clip(ts))}",
                     "ASCII digits, a real calendar date, second 60 only as a leap second at 23:59:60 UTC on "
                     "the last day of a month")
            return
        if ts[17:19] == "60":  # a leap second in its place: was there one that month?
            self._leap_second(ts, line, out)
        last = self.last_ts
        self.last_ts = ts
        if last is not None:
            out.exercised("sj.ts-order")
        if last is None or (ts >= last and len(ts) == len(last) and ts[-1] == last[-1] == "Z"):
            return  # same shape in UTC: text order is time order (a leap second included)
        if _ts_key(ts) < _ts_key(last):
            out.emit("sj.ts-order", line, "/ts",
                     f"expected ts at or after the previous line's {clip(last)}, found {clip(ts)}")

    def _leap_second(self, ts: str, line: int, out: Sink) -> None:
        """sj.ts-leap-second: a second 60 at a month's end, on a day the IERS table says ended
        without one (``leaps``); a day beyond the table passes, with a note once per run."""
        match = RFC3339.fullmatch(ts)
        assert match is not None  # it passed sj.ts-format
        day = _leap_place(match).day
        out.exercised("sj.ts-leap-second")
        known = leaps.occurred(day)
        if known is None:
            if not self.leap_beyond_noted:
                self.leap_beyond_noted = True
                out.note(f"line {line}: ts {clip(ts)} is a leap second at the end of {day}, after the leap-second "
                         f"table's last known month ({leaps.KNOWN_THROUGH}): judged by RFC 3339's end of month "
                         "only (sj.ts-leap-second cannot tell; later such stamps are not noted again)")
        elif not known:
            out.emit("sj.ts-leap-second", line, "/ts",
                     f"expected second 60 only at the end of a month in which a leap second occurred "
                     f"(RFC 3339 §5.7), found {clip(ts)}: no leap second ended {day} UTC",
                     "the last leap second was 2016-12-31T23:59:60Z; a clock that never shows :60 is never wrong")

    def _rfc3339(self, ts: str) -> bool:
        """Whether ``ts`` is an RFC 3339 date-time (the schema: "ts (RFC 3339)").

        The pattern is a fixed 19-character date and time, then an optional fraction and the
        offset, each valid on its own. A run's stamps share the first part for a second at a
        time and repeat a few shapes of the second, so both are remembered once seen valid;
        a leap second's head is not, since its validity depends on the offset.
        """
        head, tail = ts[:19], ts[19:]
        if head == self.valid_head and tail in self.valid_tails:
            return True
        match = RFC3339.fullmatch(ts)
        if match is None or (match.group(3) > "28" and not _real_day(match)):
            return False
        if match.group(6) == "60":
            return _leap_minute(match)
        self.valid_head = head
        if len(self.valid_tails) < self.MAX_REMEMBERED_TAILS and len(tail) <= self.MAX_REMEMBERED_TAIL_LENGTH:
            self.valid_tails.add(tail)
        return True

    # -- per line type -----------------------------------------------------------------------

    @staticmethod
    def _subtype(obj: dict[str, Any], line: int, out: Sink) -> Any:
        """sj.subtype: system and result lines carry a subtype; a mistyped one is the schema's finding."""
        out.exercised("sj.subtype")
        if "subtype" not in obj:
            out.emit("sj.subtype", line, "/subtype",
                     f"expected a string subtype on a {obj['type']} line, found it missing",
                     'the seed: a "type" discriminator per line plus "subtype" for the system/result families')
            return None
        return obj["subtype"]

    def _system(self, obj: dict[str, Any], line: int, out: Sink) -> None:
        subtype = self._subtype(obj, line, out)
        if type(subtype) is not str:  # missing (sj.subtype, above) or mistyped (the schema's finding)
            return
        if subtype == "init":
            self._init(obj, line, out)
            return
        if subtype == "error" and "message" in obj:
            out.exercised("sj.message-form")
        if subtype == "error" and "message" in obj and type(obj["message"]) is not str:
            out.emit("sj.message-form", line, "/message",
                     f"expected a string on system/error, found {json_kind(obj['message'])}")
        if subtype in TASK_SUBTYPES:
            self._need("tasks_v1", f"system/{subtype}", line, out)

    def _assistant(self, obj: dict[str, Any], line: int, out: Sink) -> None:
        content = self._actor(obj, "assistant", line, out)
        if content is not None:
            self._blocks(content, line, out)

    def _user(self, obj: dict[str, Any], line: int, out: Sink) -> None:
        content = self._actor(obj, "user", line, out)
        if content is not None:
            self._blocks(content, line, out)

    def _blocks(self, content: list[Any], line: int, out: Sink) -> None:
        """tool_use and tool_result blocks, in content order, on assistant and user lines alike."""
        for index, block in enumerate(content):
            if type(block) is not dict:
                continue
            kind = block.get("type")
            if kind == "tool_use":
                self._tool_use(block, line, f"/message/content/{index}", out)
            elif kind == "tool_result":
                self._tool_result(block, line, f"/message/content/{index}/tool_use_id", out)

    def _stream_event(self, obj: dict[str, Any], line: int, out: Sink) -> None:
        self._need("partial_messages_v1", "stream_event", line, out)
        event = obj.get("event")
        if type(event) is dict and event.get("type") == "tool_args_delta":
            self._fragment(event, line, out)

    def _result(self, obj: dict[str, Any], line: int, out: Sink) -> None:
        out.exercised("sj.result-once")
        if self.result_line is not None:
            out.emit("sj.result-once", line, "/type",
                     f"expected exactly one result line, found another after line {self.result_line}")
        else:
            self.result_line = line
            self.result_failed = obj.get("is_error") is True
        self._subtype(obj, line, out)
        self._is_error(obj, line, out)
        self._usage(obj, line, out)

    # -- sj.agent-form, sj.message-form, sj.role-form ----------------------------------------

    @staticmethod
    def _actor(obj: dict[str, Any], kind: str, line: int, out: Sink) -> list[Any] | None:
        """Check an assistant/user line's dual-form fields; return its content blocks.

        Any label string passes sj.agent-form: "primary | escalation" are known values in a
        schema of "open-set enums everywhere"; the rule checks the form only.
        """
        if "agent" in obj:
            out.exercised("sj.agent-form")
        if "agent" in obj and type(obj["agent"]) is not str:
            out.emit("sj.agent-form", line, "/agent",
                     f"expected a role label string on {kind} lines, found {json_kind(obj['agent'])}")
        # The dual-form sentence is read one way for every line type it names: the form, where
        # the member is present (sj.agent-form, sj.message-form). Presence of message on
        # assistant/user lines is another sentence's (oneOf[2], oneOf[3]): sj.message-present.
        out.exercised("sj.message-present")
        if "message" not in obj:
            out.emit("sj.message-present", line, "/message",
                     f"expected a message on {kind} lines (they carry its blocks), found it missing")
            return None
        out.exercised("sj.message-form")
        message = obj["message"]
        if type(message) is not dict:
            out.emit("sj.message-form", line, "/message",
                     f"expected the Message object on {kind} lines, found {json_kind(message)}")
            return None
        role = message.get("role")
        if type(role) is str:
            out.exercised("sj.role-form")
        if role != kind and type(role) is str:
            out.emit("sj.role-form", line, "/message/role",
                     f"expected role {quoted(kind)} on a {kind} line, found {quoted(clip(role))}")
        content = message.get("content")
        return content if type(content) is list else None

    # -- sj.result-is-error (present; matches a known subtype), sj.usage-rollup --

    @staticmethod
    def _is_error(obj: dict[str, Any], line: int, out: Sink) -> None:
        out.exercised("sj.result-is-error")
        if "is_error" not in obj:
            out.emit("sj.result-is-error", line, "/is_error",
                     "expected is_error on every result line, found it missing")
            return
        is_error = obj["is_error"]
        if type(is_error) is not bool:  # a wrong JSON type is the schema's finding alone (sj.schema)
            return
        subtype = obj.get("subtype")
        want = RESULT_IS_ERROR.get(subtype) if type(subtype) is str else None
        if subtype == "success":  # no sentence says it: "true when the run failed" read as "only then"
            out.exercised("sj.result-success")
            if is_error:
                out.emit("sj.result-success", line, "/is_error",
                         "expected is_error false for subtype success, found true",
                         "is_error is true when the run failed; a success is not a failed run")
        elif want is not None and want is not is_error:
            out.emit("sj.result-is-error", line, "/is_error",
                     f"expected is_error {str(want).lower()} for subtype {subtype}, "
                     f"found {str(is_error).lower()}",
                     "a refusal is a completed turn; errors, max turns and interruptions are failed runs")

    @staticmethod
    def _usage(obj: dict[str, Any], line: int, out: Sink) -> None:
        """Token counts are integers judged by exact value (10.0 is 10); others are the schema's."""
        usage, per_model = obj.get("usage"), obj.get("model_usage")
        if type(usage) is not dict or type(per_model) is not dict or not per_model:
            return
        out.exercised("sj.usage-rollup")
        for key in USAGE_KEYS:
            total = _integral(usage.get(key))
            parts = [_integral(m.get(key)) if type(m) is dict else None for m in per_model.values()]
            if type(total) is not int or not all(type(p) is int for p in parts):
                continue  # a missing, mistyped or over-long count: nothing exact to add up
            whole = sum(p for p in parts if type(p) is int)
            if whole != total:
                out.emit("sj.usage-rollup", line, f"/usage/{key}",
                         f"expected usage.{key} to equal the model_usage sum {clip(str(whole))}, "
                         f"found {clip(str(total))}")

    # -- sj.capabilities -----------------------------------------------------------------------

    def _need(self, capability: str, what: str, line: int, out: Sink) -> None:
        if self.advertised is not None:
            out.exercised("sj.capabilities")
        if self.advertised is not None and capability not in self.advertised:
            out.emit("sj.capabilities", line, "/type",
                     f"expected {capability} in system/init capabilities before {what} lines, "
                     f"found {clip(str(sorted(self.advertised)), 200)}")

    # -- sj.tool-result-ref, sj.parent-ref, sj.tool-args-reassembly ----------------------------

    def _known(self, ref: str) -> bool | None:
        """Whether ``ref`` names an earlier tool_use; None when that can no longer be told."""
        if ref in self.tool_uses:
            return True
        return None if self.tool_uses_full else False

    def _tool_result(self, block: dict[str, Any], line: int, where: str, out: Sink) -> None:
        if "tool_use_id" not in block:
            out.exercised("sj.tool-result-ref")
            out.emit("sj.tool-result-ref", line, where, "expected the id of an earlier tool_use, found no tool_use_id")
            return
        ref = block["tool_use_id"]
        if type(ref) is str:  # a non-string id is the schema's finding
            self._result_ref(ref, line, where, out)

    def _result_ref(self, ref: str, line: int, where: str, out: Sink) -> None:
        known = self._known(ref)
        if known is not None:
            out.exercised("sj.tool-result-ref")
        if known is False:
            out.emit("sj.tool-result-ref", line, where,
                     f"expected the id of an earlier tool_use, found {quoted(clip(ref))}")

    def _parent(self, parent: Any, line: int, out: Sink) -> None:
        known = self._known(parent) if type(parent) is str else None
        if known is not None:
            out.exercised("sj.parent-ref")
        if known is False:
            out.emit("sj.parent-ref", line, "/parent_tool_use_id",
                     f"expected the id of an earlier tool_use, found {quoted(clip(parent))}, never used before",
                     "nested actors point at the tool_use that started them")

    def _remember(self, ref: str, line: int, out: Sink) -> None:
        if self.tool_uses_full or ref in self.tool_uses:
            return
        cost = len(ref) + self.ENTRY_OVERHEAD
        if self.tool_use_bytes + cost > self.MAX_TOOL_USE_BYTES:
            self.tool_uses_full = True
            out.emit("checker.limit", line, None,
                     f"sj.tool-result-ref and sj.parent-ref stopped: the tool_use ids remembered reached "
                     f"{self.MAX_TOOL_USE_BYTES} bytes; an id first used from line {line} on is not judged "
                     "(nor, by sj.tool-args-reassembly, a call's fragments after or without its tool_use)")
            return
        self.tool_use_bytes += cost
        self.tool_uses.add(ref)

    # The fragments of a call are judged when its tool_use completes it (_tool_use), and a call
    # that never meets its tool_use at the end (_unfinished_calls). A fragment for an id whose
    # tool_use came already contradicts that completed input (_fragment). What is kept per id
    # is bounded (MAX_CALL_BYTES), and all ids together (MAX_PENDING_BYTES): each is a
    # checker.limit when reached, and the check it feeds stops instead of guessing.

    def _fragment(self, event: dict[str, Any], line: int, out: Sink) -> None:
        ref, fragment = event.get("tool_use_id"), event.get("partial_json")
        if type(ref) is str and type(fragment) is str:
            self._piece(ref, fragment, line, out)

    def _piece(self, ref: str, fragment: str, line: int, out: Sink) -> None:
        """One tool_args_delta fragment of the call ``ref``."""
        if self.reassembly_stopped:
            return
        call = self.fragments.get(ref)
        if call is None and self._known(ref):
            self._after_tool_use(ref, fragment, line, out)
            return
        if call is not None and call.stopped:
            return  # its bound was reported; the rest of this call is not kept
        cost = len(fragment) + self.ENTRY_OVERHEAD + (0 if call is not None else len(ref) + self.ENTRY_OVERHEAD)
        if self.pending_bytes + cost > self.MAX_PENDING_BYTES:
            # Judging the calls whose fragments were partly dropped would be a false mismatch,
            # and remembering which were would be another bound: stop the check here.
            self.reassembly_stopped = True
            self.fragments.clear()
            self.pending_bytes = 0
            out.emit("checker.limit", line, "/event/partial_json",
                     f"sj.tool-args-reassembly stopped: pending tool_args_delta fragments reached "
                     f"{self.MAX_PENDING_BYTES} bytes; no reassembly is judged from line {line} on")
            return
        if call is None:
            call = self.fragments[ref] = _Call(line)
            self.pending_bytes += len(ref) + self.ENTRY_OVERHEAD
        if call.size + len(fragment) > self.MAX_CALL_BYTES:
            # One call's arguments past the bound: that call alone is not judged (its id stays,
            # as a marker costing what the id does, so its tool_use and the end skip it).
            self.pending_bytes -= call.size + self.ENTRY_OVERHEAD * len(call.pieces)
            call.stop()
            out.emit("checker.limit", line, "/event/partial_json",
                     f"sj.tool-args-reassembly stopped for {shown(clip(ref))}: its tool_args_delta fragments "
                     f"reached {self.MAX_CALL_BYTES} bytes; that call's reassembly is not judged")
            return
        self.pending_bytes += len(fragment) + self.ENTRY_OVERHEAD
        call.add(fragment)

    def _after_tool_use(self, ref: str, fragment: str, line: int, out: Sink) -> None:
        """A fragment for a call its tool_use completed already: "progressive" is over by then."""
        out.exercised("sj.tool-args-reassembly")
        if not fragment:  # an empty piece changes no concatenation: it contradicts nothing
            return
        out.emit("sj.tool-args-reassembly", line, "/event/partial_json",
                 f"expected no tool_args_delta for {shown(clip(ref))} after its tool_use completed its input, "
                 f"found the fragment {shown(clip(fragment))}",
                 "fragments stream a call's arguments before the assistant line that completes it")

    def _unfinished_calls(self, out: Sink) -> None:
        """At the end: the calls whose fragments never met their tool_use."""
        # A call with an unreadable line after its first fragment may have met its tool_use there:
        # not judged (that line's line.* finding already fails the stream).
        waiting = [(ref, call) for ref, call in self.fragments.items()
                   if not call.stopped and call.size and call.first_line > self.unreadable_line]
        if not waiting or self.result_line is None:
            return  # no result: the run was cut short (sj.result-last), and that is its finding
        if self.tool_uses_full:
            return  # the ids' tool_uses may be among the ones forgotten (that checker.limit says so)
        if self.result_failed:
            # "is_error: true when the run failed (execution error, max turns, interruption)": a
            # failed run may stop in the middle of a call, so its fragments are not a finding.
            out.note(f"sj.tool-args-reassembly: {len(waiting)} tool call(s) streamed fragments but never "
                     "met their tool_use; the result says the run failed (is_error true), which explains "
                     "an unfinished call, so they are not judged")
            return
        out.exercised("sj.tool-args-reassembly")
        for ref, call in waiting:
            out.emit("sj.tool-args-reassembly", call.first_line, "/event/partial_json",
                     f"expected a tool_use with id {shown(clip(ref))} to complete the {len(call.pieces)} "
                     f"tool_args_delta fragment(s) from line {call.first_line} "
                     f"(concatenated: {shown(clip(''.join(call.pieces)))}), found the run ending without one, "
                     "and a result that does not say it failed",
                     "a call whose arguments were streamed completes in an assistant tool_use block, "
                     "unless the run failed (is_error true)")

    def _tool_use(self, block: dict[str, Any], line: int, where: str, out: Sink) -> None:
        ref = block.get("id")
        if type(ref) is not str:
            return
        self._remember(ref, line, out)
        call = self.fragments.pop(ref, None)
        if call is None:
            return
        self.pending_bytes -= call.size + self.ENTRY_OVERHEAD * len(call.pieces) + len(ref) + self.ENTRY_OVERHEAD
        if call.stopped:
            return
        pieces = call.pieces
        # The reassembly is read as a line is (contract.core.jsonline): the same strict RFC 8259
        # numbers, nesting limit and duplicate-member detection, never last-wins.
        text, args, faults = batch.reassemble(pieces)
        rules = {fault.rule for fault in faults}
        if "line.limit" in rules:
            why = next(f.message for f in faults if f.rule == "line.limit")
            out.emit("checker.limit", line, f"{where}/input",
                     f"sj.tool-args-reassembly stopped for {shown(clip(ref))}: its reassembled arguments are "
                     f"beyond the checker's limits ({clip(why, 120)})")
            return
        out.exercised("sj.tool-args-reassembly")
        out.exercised("sj.tool-args-duplicate-key")
        if "line.duplicate-key" in rules:  # policy, as line.duplicate-key (its own rule: one basis)
            fault = next(f for f in faults if f.rule == "line.duplicate-key")
            found = fault.message.removeprefix("expected unique member names, found ")
            out.emit("sj.tool-args-duplicate-key", line, f"{where}/input",
                     f"expected the {len(pieces)} tool_args_delta fragments of {shown(clip(ref))} to concatenate "
                     f"to JSON with unique member names, found {found} at {shown(clip(fault.pointer or '', 80))} "
                     "of the reassembly",
                     "parsers disagree on which duplicate wins; a consumer's reading would depend on its parser")
            return
        if faults:  # not one JSON text (parse gives a value only with no fault or a duplicate)
            why = f" ({clip(faults[0].message, 120)})"
            out.emit("sj.tool-args-reassembly", line, f"{where}/input",
                     f"expected the {len(pieces)} tool_args_delta fragments of {shown(clip(ref))} to "
                     f"concatenate to one JSON text with unique member names, found {shown(clip(text))}{why}")
            return
        if not same_value(args, block.get("input")):
            out.emit("sj.tool-args-reassembly", line, f"{where}/input",
                     f"expected input equal to its reassembled fragments {shown(clip(text))}, "
                     f"found {shown(clip(_dumps(block.get('input'))))}")


Handler = Callable[[dict[str, Any], int, Sink], None]


def _in_line_order(steps: list[Any]) -> list[Any]:
    """Flat steps (``facts``' ops, four items each) in the order ``feed`` takes them: by line, a
    line's parent reference first, then its content blocks by index."""
    items = [steps[at : at + 4] for at in range(0, len(steps), 4)]
    items.sort(key=lambda item: (item[0], -1 if item[1] == batch.PARENT else 0 if item[1] == batch.FRAG else item[3]))
    return [value for item in items for value in item]


class _Probe:
    """A sink that records whether a declared check spoke (an emit or a note) and what it judged."""

    def __init__(self) -> None:
        self.spoke = False
        self.judged: set[str] = set()

    def emit(self, rule: str, line: int | None, pointer: str | None, message: str,
             hint: str | None = None) -> None:
        self.spoke = True

    def note(self, text: str) -> None:
        self.spoke = True

    def exercised(self, rule: str) -> None:
        self.judged.add(rule)


def _chained(first: Handler | None, then: Handler) -> Handler:
    """A line type's handler followed by a declared check's (built once per stream, not per line)."""
    if first is None:
        return then

    def both(obj: dict[str, Any], line: int, out: Sink) -> None:
        first(obj, line, out)
        then(obj, line, out)

    return both


class _Call:
    """One tool call's fragments while they await its tool_use (``pieces``, their total length)."""

    __slots__ = ("first_line", "pieces", "size", "stopped")

    def __init__(self, first_line: int) -> None:
        self.first_line = first_line
        self.pieces: list[str] = []
        self.size = 0
        self.stopped = False  # MAX_CALL_BYTES reached: the pieces were dropped, the call is not judged

    def add(self, fragment: str) -> None:
        self.pieces.append(fragment)
        self.size += len(fragment)

    def stop(self) -> None:
        self.pieces, self.size, self.stopped = [], 0, True


class _TooLong(int):
    """The marker ``_integral`` returns for an integer longer than the checker reads."""


TOO_LONG = _TooLong(0)


def _integral(value: Any) -> int | None:
    """The exact integer a JSON number stands for, or None when it is no integer.

    Per JSON Schema an integer is any integer-valued number: ``7.0``, ``5e0`` and ``70e-1``
    are 7, 5 and 7, whether the parser hands over an int, a float or a Decimal. A bool is not
    a number. A Decimal is read exactly (``2.0000000000000001`` is not 2); one whose integer
    would be longer than MAX_INT_DIGITS returns TOO_LONG instead of being built.
    """
    kind = type(value)
    if kind is int:
        return int(value)  # already an int: int() only tells the type checker so
    if kind is float:
        return int(value) if value.is_integer() else None
    if kind is Decimal:
        if not value.is_finite():
            return None
        if value.adjusted() >= MAX_INT_DIGITS:
            return TOO_LONG
        if value != value.to_integral_value():
            return None
        return int(value)
    return None


def _number_text(value: Any) -> str:
    return str(value) if type(value) is not float else repr(value)


def _dumps(value: Any) -> str:
    """A short JSON-ish rendering of ``value`` for a message (Decimal and depth tolerated)."""
    try:
        return json.dumps(value, default=str)
    except (RecursionError, ValueError):  # deeper than json.dumps recurses: say what it is instead
        return f"a {type(value).__name__} nested too deep to show"


def _is_init(obj: dict[str, Any]) -> bool:
    return obj.get("type") == "system" and obj.get("subtype") == "init"


def _real_day(match: re.Match[str]) -> bool:
    year, month, day = int(match.group(1)), int(match.group(2)), int(match.group(3))
    return day <= calendar.monthrange(year, month)[1]


def _offset_minutes(match: re.Match[str]) -> int:
    if match.group(9) is None:  # Z
        return 0
    minutes = int(match.group(10)) * 60 + int(match.group(11))
    return minutes if match.group(9) == "+" else -minutes


def _leap_place(match: re.Match[str]) -> leaps.Leap:
    """Where a second-60 stamp falls in UTC (its minute and day once the offset is removed)."""
    local = int(match.group(4)) * 60 + int(match.group(5))
    return leaps.place(int(match.group(1)), int(match.group(2)), int(match.group(3)), local, _offset_minutes(match))


def _leap_minute(match: re.Match[str]) -> bool:
    """Second 60 is a leap second, valid only at 23:59:60 UTC (after removing the offset) on the
    last day of a month: RFC 3339 §5.7, "at the end of months" (which months had one is
    sj.ts-leap-second's, from the table)."""
    where = _leap_place(match)
    return where.at_2359 and where.month_end


def _ts_key(ts: str) -> tuple[int, int, Decimal]:
    """An exact sort key for a valid RFC 3339 stamp: UTC minute, second (60 for a leap second), fraction.

    Computed from the digits, not through datetime: any fraction length, year 0000 and a leap
    second (the 61st second of 23:59 UTC, after 59.999... and before the next minute) all order.
    """
    match = RFC3339.fullmatch(ts)
    assert match is not None  # only stamps that passed _rfc3339 are ordered
    year, month, day = int(match.group(1)), int(match.group(2)), int(match.group(3))
    days = _days_from_civil(year, month, day)
    minute = days * _DAY_MINUTES + int(match.group(4)) * 60 + int(match.group(5)) - _offset_minutes(match)
    fraction = Decimal("0." + match.group(7)) if match.group(7) else Decimal(0)
    return minute, int(match.group(6)), fraction


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 0000-03-01 in the proleptic Gregorian calendar (H. Hinnant's algorithm)."""
    if month <= 2:
        year -= 1
    era = year // 400
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe


def _unread_type(head: dict[str, Any]) -> bool:
    """Whether an opaque object line's type cannot be read: its readings disagree on it."""
    return head.get("type") is AMBIGUOUS or (head.get("type") == "system" and head.get("subtype") is AMBIGUOUS)


def _kind(obj: dict[str, Any] | None) -> str:
    """What a line is, for a message: its type (and subtype), or why it has none to read."""
    if obj is None:
        return ("an unreadable line (not a JSON object the checker could read, or one beyond its limits; "
                "see its line.* finding)")
    if _unread_type(obj):
        return ('a JSON object whose type cannot be read (its "type" or "subtype" member is repeated with '
                "different values; see its line.duplicate-key finding)")
    kind, subtype = obj.get("type"), obj.get("subtype")
    if type(kind) is not str:
        return "untyped"
    return f"{clip(kind)}/{clip(subtype)}" if type(subtype) is str else clip(kind)
