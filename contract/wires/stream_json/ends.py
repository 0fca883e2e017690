"""A run's two ends, init and result: where they stand and what they say.

``RunEnds`` judges the place of the lines that open and close a run (sj.init-first, sj.init-once,
sj.result-once, sj.result-last: at the first line, after the result, on an opaque line and at the
end of the stream) and what the result says (sj.subtype, sj.result-is-error, sj.result-success,
sj.usage-rollup); init's own members (its capabilities, sj.agent-form) are read here too. Part of
``StreamRules`` (``machines.py``).
"""

from __future__ import annotations

from typing import Any

from contract.core.jsonline import AMBIGUOUS
from contract.core.jsonvalue import clip
from contract.core.jsonvalue import kind as json_kind
from contract.core.reader import Record
from contract.core.rule import Level, Rule
from contract.core.sink import Sink
from contract.wires.stream_json.registry import REGISTRY
from contract.wires.stream_json.registry import SJ as _SJ
from contract.wires.stream_json.registry import D as _D
from contract.wires.stream_json.registry import W as _W
from contract.wires.stream_json.seq_stamps import integral
from contract.wires.stream_json.state import RunState

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

USAGE_KEYS = ("input_tokens", "output_tokens", "cache_read", "cache_creation")


@REGISTRY.family(
    Rule("sj.init-first", Level.MUST, "stream-json", "the first line is system/init",
         f'{_SJ}, description: "system/init first"; oneOf[0].description: "system/init first" (written)',
         basis=_W, breaker="init_first", filterable=False, silenceable=False),
    Rule("sj.init-once", Level.MUST, "stream-json", "system/init appears once per run",
         f'{_SJ}, description: "system/init first" (inferred: the words do not say "once"; a second '
         "system/init is not first, so it breaks the run's framing)", basis=_D, breaker="init_once"),
    Rule("sj.result-once", Level.MUST, "stream-json",
         "at most one result line per run: a second result is this rule (a missing one is sj.result-last)",
         f'{_SJ}, description: "exactly one terminal result last"; oneOf[4].description: "exactly one '
         'terminal line per run" (written)', basis=_W, breaker="result_once"),
    Rule("sj.result-last", Level.MUST, "stream-json",
         "the result line is the last line; a missing result is a truncated run (this rule, not sj.result-once)",
         f'{_SJ}, description: "exactly one terminal result last" (written); a run with no result ends '
         "without its terminal line, so the last line is not the result. An unreadable line after the "
         "result is a line after it, whatever it holds; an unreadable last line with no result before "
         "it may be the result: the finding says so (not 'ending without one'), and still fires, since "
         "the run is not shown to end with its result (issue 20)", basis=_W, breaker="result_last",
         filterable=False, silenceable=False),
    Rule("sj.subtype", Level.MUST, "stream-json", "system and result lines carry a subtype",
         # The seed words in single quotes: a new rule's double-quoted words would enter the wire
         # surface's rules section as a breaking "rule-words-added" change (contract/evolution/framing.py).
         f"{_SJ}, description: 'a type discriminator per line plus subtype for the system/result "
         "families' (written); a subtype that is not a string is the schema's finding only (sj.schema)",
         basis=_W, breaker="subtype"),
    Rule("sj.result-is-error", Level.MUST, "stream-json",
         "is_error is present on every result line, true on error_during_execution, error_max_turns and "
         "interrupted, false on refused (a non-boolean is sj.schema's; success is sj.result-success's)",
         f'{_SJ}, properties.is_error.description: "boolean contract: true when the run failed '
         '(execution error, max turns, interruption); present on every result line"; description: '
         '"a refusal is a completed turn and reports is_error false" (written: the three failures are named '
         "one to one by the known subtypes, the refusal in so many words)", basis=_W, breaker="result_is_error"),
    Rule("sj.result-success", Level.MUST, "stream-json", "a result of subtype success reports is_error false",
         f"{_SJ}, properties.is_error.description: 'boolean contract: true when the run failed' (derived: the "
         "words say when it is true, not that it is false otherwise; read as the boolean contract it is "
         "called, true only then, and a success is not a failed run)", basis=_D, breaker="result_success"),
    Rule("sj.usage-rollup", Level.SHOULD, "stream-json",
         "model_usage sums to usage on the result line (counts by value)",
         f'inferred from {_SJ}: usage is "aggregate per-run token accounting", model_usage '
         '"per-model token rollups"', basis=_D, breaker="usage_rollup"),
)
class RunEnds(RunState):
    """The init and result rules of ``StreamRules``, over the run's state (``RunState``)."""

    # -- sj.init-first, sj.init-once, sj.result-once, sj.result-last ------------------------

    def _ended(self, out: Sink) -> None:
        """At the end of the stream: was there an init first, and a result last?"""
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

    # -- the result line: sj.subtype (system lines too), then its members -------------------

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
            total = integral(usage.get(key))
            parts = [integral(m.get(key)) if type(m) is dict else None for m in per_model.values()]
            if type(total) is not int or not all(type(p) is int for p in parts):
                continue  # a missing, mistyped or over-long count: nothing exact to add up
            whole = sum(p for p in parts if type(p) is int)
            if whole != total:
                out.emit("sj.usage-rollup", line, f"/usage/{key}",
                         f"expected usage.{key} to equal the model_usage sum {clip(str(whole))}, "
                         f"found {clip(str(total))}")


def _is_init(obj: dict[str, Any]) -> bool:
    return obj.get("type") == "system" and obj.get("subtype") == "init"


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
