"""An independent executable reading of milk's two JSONL wires (the differential-test oracle).

``judge(data, wire)`` takes a whole transcript as bytes and returns the rule ids it finds violated,
split into MUST (written in a seed schema, or derived from its structure where the lead decided so,
issue 12) and SHOULD (only inferable from it). It is written from
the schemas in ``schemas/`` and their ``description`` texts alone, deliberately shares no code with
``contract``, and prefers plain loops to speed. ``tests/oracle/READINGS.md`` gives, per rule id,
the seed words each check rests on.
"""

from __future__ import annotations

import json
import re
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from decimal import Context, Decimal
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

import jsonschema
from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import ValidationError

from tests.oracle.jsonparse import JSONLimitError, JSONSyntaxError, JSONValue, Parsed, max_depth_of_bytes, parse
from tests.oracle.rfc3339 import is_rfc3339_date_time, leap_second_occurred

WIRES = ("stream-json", "subagent-stdio")
# The project's documented limits (see the brief in READINGS.md): deeper lines and longer integer
# literals are beyond the checker, and saying so is a MUST-level finding (line.limit).
MAX_DEPTH = 1024
MAX_INTEGER_DIGITS = 4300

# Arithmetic on seq must be exact for every integer within the limits (the default context rounds
# to 28 digits); the oracle's only arithmetic is previous + 1.
_EXACT = Context(prec=MAX_INTEGER_DIGITS + 2)

_SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schemas"
# Result subtypes whose is_error the seed fixes ("true when the run failed (execution error, max
# turns, interruption)"; "a refusal is a completed turn and reports is_error false").
_RESULT_IS_ERROR = {
    "success": False,
    "refused": False,
    "error_during_execution": True,
    "error_max_turns": True,
    "interrupted": True,
}


# The oracle's own reading of what each rule stands on (READINGS.md, "Basis"), written from the
# seed text, not copied from the catalog: "written" where the seed's words say it, "derived" where it
# follows from the seed's structure or a purpose it states, "policy" where the seed is silent and the
# project chose. The framing rules stand on the stream-json framing sentence; the subagent-stdio seed
# has no descriptions and states no framing, so there they are policy (the sibling's framing, chosen).
# ALWAYS: the findings that say a check did not finish, a line could not be read (not UTF-8, not
# JSON, not an object) or the stream does not show a whole run (no init first, no result last): no
# basis selection drops them.
BASIS: dict[str, str] = {
    "line.utf8": "written", "line.newline": "written", "line.blank": "written", "line.json": "written",
    "line.object": "written", "line.ansi": "written", "line.c1": "derived", "line.surrogate": "policy",
    "line.duplicate-key": "policy", "line.limit": "policy",
    "checker.limit": "policy",
    "sj.schema": "written", "sj.ts-format": "written", "sj.ts-leap-second": "derived",
    "sj.init-first": "written", "sj.init-once": "derived",
    "sj.result-once": "written", "sj.result-last": "written", "sj.subtype": "written",
    "sj.seq": "written", "sj.seq-contiguous": "derived",
    "sj.session": "written", "sj.session-suffix": "derived", "sj.session-constant": "derived",
    "sj.result-is-error": "written", "sj.result-success": "derived", "sj.agent-form": "written",
    "sj.message-form": "written",
    "sj.message-present": "derived",
    "sj.tool-result-ref": "derived", "sj.parent-ref": "derived", "sj.tool-args-reassembly": "derived",
    "sj.tool-args-duplicate-key": "policy", "sj.delta-reassembly": "derived",
    "sa.schema": "written", "sa.response-correlation": "derived", "sa.event-envelope": "derived",
    "sa.revision-order": "derived", "sa.events-capability": "derived", "sa.unique-keys": "derived",
}
_FRAMING_POLICY_ON_SA = ("line.utf8", "line.newline", "line.blank", "line.json", "line.object")
ALWAYS = frozenset({"line.limit", "checker.limit", "line.utf8", "line.json", "line.object", "sj.init-first",
                    "sj.result-last"})
BASES = ("written", "derived", "policy")


def basis_of(rule: str, wire: str) -> str:
    """The oracle's basis for ``rule`` on ``wire``."""
    if wire == "subagent-stdio" and rule in _FRAMING_POLICY_ON_SA:
        return "policy"
    return BASIS[rule]


@dataclass
class Verdict:
    """The oracle's findings for one transcript."""

    must: set[str] = field(default_factory=set)
    should: set[str] = field(default_factory=set)
    # (rule, line, detail) for humans reading a disagreement.
    notes: list[tuple[str, int, str]] = field(default_factory=list)
    wire: str = "stream-json"

    @property
    def conformant(self) -> bool:
        return not self.must

    def must_under(self, bases: tuple[str, ...]) -> set[str]:
        """The MUST rules that fail the transcript when only ``bases`` are judged (ALWAYS always)."""
        return {rule for rule in self.must if rule in ALWAYS or basis_of(rule, self.wire) in bases}

    def fire(self, rule: str, line: int, detail: str, *, level: str = "MUST") -> None:
        (self.must if level == "MUST" else self.should).add(rule)
        self.notes.append((rule, line, detail))


# --- schema validation with exact numbers and ECMA-262 patterns -------------------------------


def _is_integer(_checker: object, instance: object) -> bool:
    if isinstance(instance, bool):
        return False
    if isinstance(instance, int):
        return True
    # JSON Schema: an integer is a number with a zero fractional part, so 7.0 and 7e0 are integers.
    return isinstance(instance, Decimal) and instance.is_finite() and instance == instance.to_integral_value()


def _is_number(_checker: object, instance: object) -> bool:
    return not isinstance(instance, bool) and isinstance(instance, (int, Decimal))


def _ecma_pattern(pattern: str) -> re.Pattern[str]:
    """Translate ``$`` (outside classes) to ``\\Z``: in ECMA-262 without the m flag it is end of input."""
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if ch == "[" and not in_class:
            in_class = True
        elif ch == "]" and in_class:
            in_class = False
        elif ch == "$" and not in_class:
            out.append(r"\Z")
            i += 1
            continue
        out.append(ch)
        i += 1
    return re.compile("".join(out))


def _pattern_keyword(_validator: Any, pattern: str, instance: object, _schema: object) -> Iterator[ValidationError]:
    if isinstance(instance, str) and _ecma_pattern(pattern).search(instance) is None:
        yield ValidationError(f"{instance!r} does not match {pattern!r} (ECMA-262 semantics)")


_TypeChecker = Draft202012Validator.TYPE_CHECKER.redefine_many({"integer": _is_integer, "number": _is_number})
_OracleValidator = jsonschema.validators.extend(
    Draft202012Validator, validators={"pattern": _pattern_keyword}, type_checker=_TypeChecker
)


def _load_schema(wire: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((_SCHEMA_DIR / f"{wire}.schema.json").read_text(encoding="utf-8"))
    return loaded


_SCHEMAS = {wire: _load_schema(wire) for wire in WIRES}
# the line types the schema lists (its top-level oneOf consts), read from it: an ADR's new type is known
_KNOWN_SJ_TYPES = tuple(branch["properties"]["type"]["const"] for branch in _SCHEMAS["stream-json"]["oneOf"])
_VALIDATORS = {wire: _OracleValidator(_SCHEMAS[wire], format_checker=FormatChecker()) for wire in WIRES}
# The stream-json "type" is an open set ("open set: ignore unknown values"), but the schema's top-level
# oneOf names five constants. A line with an unknown type is judged by everything except that oneOf.
_OPEN_TYPE_SCHEMA = {k: v for k, v in _SCHEMAS["stream-json"].items() if k != "oneOf"}
_OPEN_TYPE_VALIDATOR = _OracleValidator(_OPEN_TYPE_SCHEMA, format_checker=FormatChecker())

_T = TypeVar("_T")


def _with_deep_stack(fn: Callable[[], _T]) -> _T:
    """Run ``fn`` where deep (but within-limit) nesting cannot exhaust Python's stack.

    jsonschema recurses once per schema level; a 1024-level line needs several thousand frames.
    """
    box: list[_T] = []
    errors: list[BaseException] = []

    def run() -> None:
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old, 60_000))
        try:
            box.append(fn())
        except BaseException as exc:  # handed back to the caller's thread below
            errors.append(exc)
        finally:
            sys.setrecursionlimit(old)

    old_size = threading.stack_size(512 * 1024 * 1024)
    try:
        worker = threading.Thread(target=run)
        worker.start()
    finally:
        threading.stack_size(old_size)
    worker.join()
    if errors:
        raise errors[0]
    return box[0]


def _schema_errors(wire: str, value: JSONValue, depth: int) -> list[str]:
    validator = _VALIDATORS[wire]
    if wire == "stream-json" and isinstance(value, dict):
        kind = value.get("type")
        if isinstance(kind, str) and kind not in _KNOWN_SJ_TYPES:
            validator = _OPEN_TYPE_VALIDATOR

    def collect() -> list[str]:
        return [f"{'/'.join(str(p) for p in e.absolute_path)}: {e.message}" for e in validator.iter_errors(value)]

    return _with_deep_stack(collect) if depth > 64 else collect()


# --- helpers ------------------------------------------------------------------------------------


def _escape_like(text: str) -> bool:
    """ESC, or a C1 control (U+0080..U+009F): ECMA-48 §5.3 codes each C1 control as ESC Fe in 7 bits
    and as that one character in 8 bits (CSI U+009B is ESC [), so both are the same ANSI escape."""
    return any(ch == "\x1b" or "\x80" <= ch <= "\x9f" for ch in text)


def _strings_with_esc(value: JSONValue) -> list[str]:
    """Every member name or string value, at any depth, holding ESC or a C1 control (iterative walk)."""
    found: list[str] = []
    todo: list[JSONValue] = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            if _escape_like(item):
                found.append(item)
        elif isinstance(item, list):
            todo.extend(item)
        elif isinstance(item, dict):
            for name, member in item.items():
                if _escape_like(name):
                    found.append(name)
                todo.append(member)
    return found


def same_json(a: JSONValue, b: JSONValue) -> bool:
    """JSON equality: numbers by exact value, and true is not 1 (iterative)."""
    todo: list[tuple[JSONValue, JSONValue]] = [(a, b)]
    while todo:
        x, y = todo.pop()
        if isinstance(x, bool) or isinstance(y, bool) or x is None or y is None:
            if x is not y:
                return False
        elif (isinstance(x, Decimal) and isinstance(y, Decimal)) or (isinstance(x, str) and isinstance(y, str)):
            if x != y:
                return False
        elif isinstance(x, list) and isinstance(y, list):
            if len(x) != len(y):
                return False
            todo.extend(zip(x, y, strict=True))
        elif isinstance(x, dict) and isinstance(y, dict):
            if set(x) != set(y):
                return False
            todo.extend((x[k], y[k]) for k in x)
        else:
            return False
    return True


def _integral(value: object) -> Decimal | None:
    if isinstance(value, Decimal) and value.is_finite() and value == value.to_integral_value():
        return value
    return None


# --- framing ------------------------------------------------------------------------------------


Position = tuple[int, "dict[str, JSONValue] | None"]


def _frame(data: bytes, verdict: Verdict, wire: str,
           heads: dict[int, dict[str, JSONValue | _Ambiguous]] | None = None,
           alternates: dict[int, tuple[dict[str, JSONValue], ...]] | None = None) -> list[Position]:
    """Per-line rules; returns (line number, object or None) for every non-blank line.

    A line that fails framing (not UTF-8, not JSON, not an object, a repeated member name, beyond
    a limit) is opaque: None here, judged by no schema or content rule, but it keeps its place in
    the stream for sj.init-first, sj.result-last and sj.seq. A blank line takes no place. An
    object line opaque for a repeated member name puts its type (``_head``) in ``heads``.
    """
    objects: list[Position] = []
    if not data:
        return objects
    pieces = data.split(b"\n")
    if pieces[-1] == b"":
        pieces.pop()  # the text after the final newline: nothing, as required
    else:
        verdict.fire("line.newline", len(pieces), "the last line has no trailing newline")
    for number, raw in enumerate(pieces, start=1):
        findings, obj, head, others = _judge_line(raw, wire)
        for rule, detail in findings:
            verdict.fire(rule, number, detail)
        if not any(rule == "line.blank" for rule, _ in findings):
            objects.append((number, obj))
        if head is not None and heads is not None:
            heads[number] = head
        if others and alternates is not None:
            alternates[number] = others
    return objects


class _Ambiguous:
    """A top-level member repeated with different values: no reading of it is the line's."""


AMBIGUOUS = _Ambiguous()


def _head(parsed: Parsed) -> dict[str, JSONValue | _Ambiguous]:
    """An object line with a repeated member name is opaque, but still an object: its type and
    subtype, where every reading of the repeats agrees, give its place in the run (issue 31: a
    repeated member in `extension` leaves an init the init)."""
    value = parsed.value
    assert isinstance(value, dict)
    head: dict[str, JSONValue | _Ambiguous] = {name: value[name] for name in ("type", "subtype") if name in value}
    for name, again in parsed.top_repeats:
        if name in head and (type(again) is not type(head[name]) or again != head[name]):
            head[name] = AMBIGUOUS
    return head


# Mutated transcripts share most of their lines, so per-line verdicts are memoised by content (a
# line's findings depend on nothing else). The returned object must not be mutated by callers.
def _text(value: JSONValue) -> str:
    return json.dumps(value, sort_keys=True, default=repr)  # 1, 1.0 and true stay apart


def _replacing_lone(value: JSONValue) -> JSONValue:
    """``value`` with every unpaired UTF-16 surrogate in its strings and names made U+FFFD."""
    def fix(text: str) -> str:
        return "".join("\ufffd" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in text)

    if isinstance(value, str):
        return fix(value)
    if isinstance(value, list):
        return [_replacing_lone(v) for v in value]
    if isinstance(value, dict):
        return {fix(k): _replacing_lone(v) for k, v in value.items()}
    return value


@lru_cache(maxsize=8192)
def _judge_line(raw: bytes, wire: str) -> tuple[tuple[tuple[str, str], ...], dict[str, JSONValue] | None,
                                                dict[str, JSONValue | _Ambiguous] | None,
                                                tuple[dict[str, JSONValue], ...]]:
    found: list[tuple[str, str]] = []
    if b"\r" in raw:
        found.append(("line.newline", "CR byte in the line (only LF terminates a line)"))
    # "never any ANSI escapes" is written in the stream-json seed only (the subagent seed has no
    # descriptions at all), so line.ansi is a stream-json rule.
    ansi = wire == "stream-json"
    if ansi and b"\x1b" in raw:
        found.append(("line.ansi", "raw ESC byte on the wire"))
    if raw.strip(b" \t\r") == b"":
        found.append(("line.blank", "empty line"))
        return tuple(found), None, None, ()
    if raw.startswith(b"\xef\xbb\xbf"):
        found.append(("line.utf8", "byte order mark"))
        return tuple(found), None, None, ()
    try:
        text = raw.decode("utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        found.append(("line.utf8", f"not UTF-8: {exc.reason}"))
        return tuple(found), None, None, ()
    depth = max_depth_of_bytes(raw)
    if depth > MAX_DEPTH:
        found.append(("line.limit", f"nesting depth {depth} > {MAX_DEPTH}"))
        return tuple(found), None, None, ()
    try:
        parsed = parse(text)
    except JSONSyntaxError as exc:
        found.append(("line.json", str(exc)))
        return tuple(found), None, None, ()
    except JSONLimitError as exc:
        found.append(("line.limit", str(exc)))
        return tuple(found), None, None, ()
    if parsed.longest_integer_digits > MAX_INTEGER_DIGITS:
        found.append(("line.limit", f"integer of {parsed.longest_integer_digits} digits"))
        return tuple(found), None, None, ()
    if parsed.lone_surrogate:
        # RFC 8259 8.2 admits it ("unpredictable"): JSON, so rejecting it is policy (issue 31). Opaque
        # as a repeated member makes a line: no content is judged, its place is read from its type.
        found.append(("line.surrogate", "a lone surrogate escape"))
    if not isinstance(parsed.value, dict):
        found.append(("line.object", "the line is JSON but not an object"))
        return tuple(found), None, None, ()
    readings: list[JSONValue] = [parsed.value]
    if parsed.duplicate_pointers:
        found.append(("line.duplicate-key", f"repeated member name at {parsed.duplicate_pointers[0]!r}"))
    rule = "sj.schema" if wire == "stream-json" else "sa.schema"
    if parsed.lone_surrogate or (parsed.duplicate_pointers and AMBIGUOUS in _head(parsed).values()):
        # Opaque: a lone surrogate, or a type or subtype whose readings differ: no cross-line rule
        # judges its content, but every reading a consumer may make of it is an object the schema
        # judges (a lone surrogate read as U+FFFD, as a replacing decoder does): an independent
        # reading of the seeds and RFC 8259 held that a break in any reading must be found.
        opaque = [parsed.value] if not parsed.duplicate_pointers else [parse(text, last_wins=True).value, parsed.value]
        for reading in opaque:
            messages = list(_schema_errors(wire, _replacing_lone(reading), parsed.max_depth))
            found.extend((rule, message[:300]) for message in messages)
            if messages:
                break
        return tuple(found), None, _head(parsed), tuple(r for r in opaque if isinstance(r, dict))
    if parsed.duplicate_pointers:
        # Parsers disagree on which duplicate wins (RFC 8259 4): the line is judged by the reading
        # most parsers give (the last wins), and by the schema in both, so that the policy finding
        # never hides a break either reading has (decided in issue 31's follow-up, docs/rules.md).
        readings = [parse(text, last_wins=True).value, parsed.value]
    value = readings[0]
    assert isinstance(value, dict)
    texts = _strings_with_esc(value) if ansi else []
    if any("\x1b" in text for text in texts):
        found.append(("line.ansi", "ESC in a decoded member name or string"))
    if any(any("\x80" <= ch <= "\x9f" for ch in text) for text in texts):
        # ECMA-48 5.3: each C1 control is ESC Fe in one character (derived: issue 31)
        found.append(("line.c1", "a C1 control in a decoded member name or string"))
    for reading in readings:
        messages = list(_schema_errors(wire, reading, parsed.max_depth))
        found.extend((rule, message[:300]) for message in messages)
        if messages:
            break  # one reading's errors are the line's finding
    # The other reading, for the cross-line rules too (``judge``): where the two readings differ.
    others = tuple(r for r in readings[1:] if isinstance(r, dict) and _text(r) != _text(value))
    return tuple(found), value, None, others


# --- stream-json cross-line rules ---------------------------------------------------------------


def _stream_json(positions: list[Position], verdict: Verdict,
                 heads: dict[int, dict[str, JSONValue | _Ambiguous]] | None = None) -> None:
    def is_init(obj: dict[str, Any] | None) -> bool:
        return obj is not None and obj.get("type") == "system" and obj.get("subtype") == "init"

    objects = [(number, obj) for number, obj in positions if obj is not None]
    # A line's place (init first, one result, result last) is read from its type, that of an
    # object line opaque for a repeated member name too (its head: the type every reading agrees
    # on; a type repeated with different values is no type, so such a line is neither).
    heads = heads or {}
    places: list[tuple[int, dict[str, Any] | None]] = [
        (number, obj if obj is not None else heads.get(number)) for number, obj in positions]
    # "system/init first": the first line on stdout, read literally. A first line that is not a
    # judged object (broken, beyond limits) is not a system/init line either.
    if not places or not is_init(places[0][1]):
        verdict.fire("sj.init-first", 1, "the first line is not system/init")
    # "system/init first, then agent_switch | route | ...": one init, so every init after the
    # first one is a second init (a single misplaced init is init-first's business alone).
    inits = [number for number, obj in objects if is_init(obj)]
    for number in inits[1:]:
        verdict.fire("sj.init-once", number, "a second system/init")
    # "exactly one terminal result last": a second result is sj.result-once; a missing one is a
    # truncated run, whose last line is not the result (sj.result-last, the lead's decision).
    results = [number for number, obj in places if obj is not None and obj.get("type") == "result"]
    for number in results[1:]:
        verdict.fire("sj.result-once", number, "a second result line")
    if not results:
        verdict.fire("sj.result-last", 0, "no result line: a truncated run")
    else:
        # "last", read literally: nothing but results may follow the first result (an opaque
        # line after it is a line that is not the result).
        for number, obj in places:
            if number > results[0] and (obj is None or obj.get("type") != "result"):
                verdict.fire("sj.result-last", number, "a line after the result")
    _seq(positions, verdict)
    for number, obj in objects:
        kind, subtype = obj.get("type"), obj.get("subtype")
        # ts: "RFC 3339 timestamp"
        ts = obj.get("ts")
        if isinstance(ts, str) and not is_rfc3339_date_time(ts):
            verdict.fire("sj.ts-format", number, f"ts {ts!r} is not RFC 3339")
        elif isinstance(ts, str) and ts[17:19] == "60" and leap_second_occurred(ts) is False:
            # RFC 3339 5.7 "months in which a leap second occurs": which ones, from the IERS record
            verdict.fire("sj.ts-leap-second", number, f"ts {ts!r}: no leap second that month")
        # "a \"type\" discriminator per line plus \"subtype\" for the system/result families"; a
        # subtype of the wrong JSON type is the schema's finding only.
        if kind in ("system", "result") and "subtype" not in obj:
            verdict.fire("sj.subtype", number, f"{kind} line without subtype")
        if kind == "result":
            if "is_error" not in obj:
                verdict.fire("sj.result-is-error", number, "is_error missing on a result line")
            elif isinstance(subtype, str) and subtype in _RESULT_IS_ERROR:
                is_error = obj["is_error"]
                if isinstance(is_error, bool) and is_error is not _RESULT_IS_ERROR[subtype]:
                    # "true when the run failed" names the failures; that success is false needs
                    # "only then" (derived, its own rule: issue 31)
                    rule = "sj.result-success" if subtype == "success" else "sj.result-is-error"
                    verdict.fire(rule, number, f"is_error {is_error} on {subtype}")
        # agent: "the AgentInfo object on system/init lines; a role label string ... on assistant/user lines"
        if "agent" in obj:
            agent = obj["agent"]
            if is_init(obj) and not isinstance(agent, dict):
                verdict.fire("sj.agent-form", number, "agent on system/init is not an object")
            if kind in ("assistant", "user") and not isinstance(agent, str):
                verdict.fire("sj.agent-form", number, f"agent on {kind} is not a string")
        # message: "a string on system/error lines; the Message object on assistant/user lines":
        # the form where present, as for agent (one reading of the dual-form sentences). Presence
        # on assistant/user comes from oneOf[2]/[3] ("completed assistant message blocks",
        # "tool_result blocks"): derived, its own rule.
        if "message" in obj:
            message = obj["message"]
            if kind == "system" and subtype == "error" and not isinstance(message, str):
                verdict.fire("sj.message-form", number, "message on system/error is not a string")
            if kind in ("assistant", "user") and not isinstance(message, dict):
                verdict.fire("sj.message-form", number, f"message on {kind} is not an object")
        elif kind in ("assistant", "user"):
            verdict.fire("sj.message-present", number, f"{kind} line without message")
    opaque = [number for number, obj in positions if obj is None]
    failed = bool(results) and dict(objects).get(results[0], {}).get("is_error") is True
    _stream_json_structural(objects, verdict, opaque, bool(results), failed)
    _deltas(objects, verdict, bool(results), failed, opaque)


def _seq(positions: list[Position], verdict: Verdict) -> None:
    """Two readings, two rules. Written, "monotonic seq per run": no seq read is below the last
    seq read (a step back is sj.seq; monotonic allows a repeat). Derived from the purpose "gap-tolerant consumers
    can detect dropped lines": each line's seq is the previous one plus one, an opaque line or a
    line without a usable integer seq (the schema's finding) standing for one step; any other
    mismatch is sj.seq-contiguous. A seq longer than MAX_INTEGER_DIGITS is beyond exact reading:
    checker.limit, and both counts restart after it."""
    expected: Decimal | None = None
    last: Decimal | None = None
    for number, obj in positions:
        seq = _integral(obj.get("seq")) if obj is not None else None
        if seq is None:
            if expected is not None:
                expected = expected.fma(1, 1, _EXACT)
            continue
        if seq.adjusted() + 1 > MAX_INTEGER_DIGITS:
            verdict.fire("checker.limit", number, f"seq of {seq.adjusted() + 1} digits: not judged")
            expected = last = None
            continue
        if last is not None and seq < last:
            verdict.fire("sj.seq", number, f"seq {seq} after {last}: not monotonic")
        elif expected is not None and seq != expected:
            verdict.fire("sj.seq-contiguous", number, f"seq {seq} where {expected} was due")
        expected = seq.fma(1, 1, _EXACT)
        last = seq


def _blocks(obj: dict[str, JSONValue]) -> list[dict[str, JSONValue]]:
    if obj.get("type") not in ("assistant", "user"):
        return []
    message = obj.get("message")
    if not isinstance(message, dict):
        return []
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [block for block in content if isinstance(block, dict)]


_SESSION_FORM = re.compile(r"sess_\S+")


def _stream_json_structural(objects: list[tuple[int, dict[str, JSONValue]]], verdict: Verdict,
                            opaque: list[int], ended: bool, failed: bool) -> None:
    """Relations derived from the seed's structure, MUST by the lead's decision (READINGS.md)."""
    # "milk session id (sess_...)"; one id per run, since seq and the stream are "per run".
    sessions = [obj["session_id"] for _, obj in objects if isinstance(obj.get("session_id"), str)]
    # The prefix is written; that an id (one token) follows it is the ellipsis read (derived).
    # The description is on every line's member: every line's id is judged (issue 46, the lead's).
    if any(not str(session).startswith("sess_") for session in sessions):
        verdict.fire("sj.session", 0, "a line's session_id does not start sess_")
    if any(str(session).startswith("sess_") and not _SESSION_FORM.fullmatch(str(session)) for session in sessions):
        verdict.fire("sj.session-suffix", 0, "no id after sess_, or white space in it, on a line")
    if len(set(sessions)) > 1:
        verdict.fire("sj.session-constant", 0, "more than one session_id in one run")
    tool_uses: dict[str, JSONValue] = {}
    fragments: dict[str, list[str]] = {}
    first: dict[str, int] = {}
    for number, obj in objects:
        event = obj.get("event")
        if obj.get("type") == "stream_event" and isinstance(event, dict) and event.get("type") == "tool_args_delta":
            tid, piece = event.get("tool_use_id"), event.get("partial_json")
            if isinstance(tid, str) and isinstance(piece, str):
                if tid in tool_uses and tid not in fragments:
                    # "progressive": a non-empty piece after the completed tool_use contradicts it
                    if piece:
                        verdict.fire("sj.tool-args-reassembly", number, f"a fragment of {tid!r} after its tool_use")
                else:
                    fragments.setdefault(tid, []).append(piece)
                    first.setdefault(tid, number)
        # parent_tool_use_id: a value that names no earlier tool_use is not a tool_use id.
        parent = obj.get("parent_tool_use_id")
        if isinstance(parent, str) and parent not in tool_uses:
            verdict.fire("sj.parent-ref", number, "parent_tool_use_id names no earlier tool_use")
        for block in _blocks(obj):
            if block.get("type") == "tool_use" and isinstance(block.get("id"), str):
                tid = str(block["id"])
                if tid not in tool_uses:
                    tool_uses[tid] = block.get("input")
                # "consumers concatenate": the fragments so far are this tool's arguments.
                pieces = fragments.pop(tid, None)
                first.pop(tid, None)
                if pieces is not None:
                    _reassembly(tid, "".join(pieces), block.get("input"), number, verdict)
            if block.get("type") == "tool_result":
                # A missing tool_use_id names nothing; a mistyped one is the schema's finding.
                if "tool_use_id" not in block:
                    verdict.fire("sj.tool-result-ref", number, "tool_result without tool_use_id")
                elif isinstance(block["tool_use_id"], str) and block["tool_use_id"] not in tool_uses:
                    verdict.fire("sj.tool-result-ref", number, "tool_result names no earlier tool_use")

    # A call whose fragments never meet their tool_use, in a run whose result does not say it
    # failed (is_error "true when the run failed (... interruption)"): R-issue-20. Not judged
    # without a result (a truncated run) or past an unreadable line (the tool_use may be there).
    if ended and not failed:
        for tid, pieces in fragments.items():
            if "".join(pieces) and not any(number > first[tid] for number in opaque):
                verdict.fire("sj.tool-args-reassembly", first[tid], f"fragments of {tid!r} never meet a tool_use")


def _deltas(objects: list[tuple[int, dict[str, JSONValue]]], verdict: Verdict, ended: bool, failed: bool,
            opaque: list[int]) -> None:
    """Issue 49 (the lead's brief, READINGS.md "Resolved" of tests/independent): "partial deltas"
    (oneOf[1]) are parts of the "completed assistant message blocks" (oneOf[2]). A delta belongs to the
    next assistant line of its actor (parent_tool_use_id: "present exactly when the actor is nested");
    the lines of one actor with one message.id in a row are one message, and ``index`` is the block's
    place in the whole message, frames numbered across. A text_delta's pieces at an index spell the
    text block there (thinking_delta: a thinking block). Other delta types: the open set. Nothing is
    judged past an opaque line after a block's first delta, nor a frame after an opaque line within its
    message (its place is not known). Only where init advertised partial_messages_v1."""
    actors: dict[str, list[tuple[int, Any]]] = {}  # actor -> its deltas and frames, in line order
    partial = True
    for number, obj in objects:
        kind = obj.get("type")
        if kind == "system" and obj.get("subtype") == "init":
            capabilities = obj.get("capabilities")
            partial = isinstance(capabilities, list) and "partial_messages_v1" in capabilities
        parent = obj.get("parent_tool_use_id")
        actor = "" if parent is None else ("nested:" + parent if isinstance(parent, str) else "odd")
        event = obj.get("event")
        payload = event.get("type") if isinstance(event, dict) else None
        if kind == "stream_event" and partial and isinstance(event, dict) and payload == "content_block_delta":
            delta, number_index = event.get("delta"), _integral(event.get("index"))
            index = int(number_index) if number_index is not None and number_index.adjusted() < 4000 else None
            known = {"text_delta": "text", "thinking_delta": "thinking"}
            dtype = delta.get("type") if isinstance(delta, dict) else None
            field = known.get(dtype) if isinstance(dtype, str) else None
            if isinstance(delta, dict) and index is not None and field is not None:
                piece = delta.get(field)
                piece = piece if isinstance(piece, str) else ""
                actors.setdefault(actor, []).append((number, ("delta", index, field, piece)))
        elif kind == "assistant":
            message = obj.get("message")
            ref = message.get("id") if isinstance(message, dict) else None
            content = message.get("content") if isinstance(message, dict) else None
            frame = ("frame", ref if isinstance(ref, str) else None, content if isinstance(content, list) else [])
            actors.setdefault(actor, []).append((number, frame))
    for events in actors.values():
        _actor_deltas(events, verdict, ended, failed, opaque)


def _actor_deltas(events: list[tuple[int, Any]], verdict: Verdict, ended: bool, failed: bool,
                  opaque: list[int]) -> None:
    """One actor's deltas against its messages (see ``_deltas``)."""
    def unseen(after: int, before: float) -> bool:  # an opaque line between the two
        return any(after < number < before for number in opaque)

    # Its frames: (line, message number, the index its first block has, or None when not known; blocks).
    frames: list[tuple[int, int, int | None, list[JSONValue]]] = []
    message, ref, first_line = -1, None, 0
    start: int | None = 0
    ids: list[str | None] = []  # each message's id
    for number, (what, *rest) in events:
        if what != "frame":
            continue
        given, content = rest
        if given is None or given != ref or message < 0:
            message, start, first_line = message + 1, 0, number
            ids.append(given)
            frames.append((number, message, 0, content))
        else:
            frames.append((number, message, None if start is None or unseen(first_line, number) else start, content))
        ref = given
        base = frames[-1][2]
        start = None if base is None else base + len(content)
    last = {m: line for line, m, _, _ in frames}  # each message's last frame
    # Each delta's frame (the actor's next), grouped by (message, index) in line order.
    groups: dict[tuple[int, int], list[tuple[int, int, str, str]]] = {}  # -> (line, owner frame, field, piece)
    orphans: list[int] = []
    for number, (what, *rest) in events:
        if what != "delta":
            continue
        owner = next((at for at, frame in enumerate(frames) if frame[0] > number), None)
        if owner is None:
            orphans.append(number)
            continue
        index, field, piece = rest
        groups.setdefault((frames[owner][1], index), []).append((number, owner, field, piece))
    for (m, index), pieces in groups.items():
        mine = [at for at, frame in enumerate(frames) if frame[1] == m]
        holder = next((at for at in mine if frames[at][2] is not None
                       and frames[at][2] <= index < frames[at][2] + len(frames[at][3])), None)  # type: ignore[operator]
        if index < 0:
            holder = pieces[0][1]  # a negative index names no block: judged at its frame
        if holder is None:  # no frame of the message holds it
            if all(frames[at][2] is None for at in {p[1] for p in pieces}):
                continue  # its frames' places are not known
            if ids[m] is None:  # a line without an id is a message of its own: it ends there
                ends: float | None = frames[pieces[0][1]][0]
            else:
                ends = next((frame[0] for frame in frames if frame[1] == m + 1), None)
            if unseen(pieces[0][0], ends if ends is not None else float("inf")):
                continue
            if ends is not None or (ended and not failed):
                verdict.fire("sj.delta-reassembly", last[m], f"no block at index {index} in the message")
            continue
        on_time = [p for p in pieces if p[1] <= holder]
        if on_time and frames[holder][2] is not None and not unseen(on_time[0][0], frames[holder][0]):
            _judge_block(on_time, frames[holder], index, verdict)
        for owner in sorted({p[1] for p in pieces if p[1] > holder}):  # after the frame that completed it
            mine_late = [p for p in pieces if p[1] == owner]
            if frames[owner][2] is not None and not unseen(mine_late[0][0], frames[owner][0]):
                verdict.fire("sj.delta-reassembly", frames[owner][0], f"deltas at index {index} after its frame")
    if orphans and ended and not failed and not unseen(min(orphans), float("inf")):
        verdict.fire("sj.delta-reassembly", min(orphans), "deltas no assistant line completes")


def _judge_block(pieces: list[tuple[int, int, str, str]], frame: tuple[int, int, int | None, list[JSONValue]],
                 index: int, verdict: Verdict) -> None:
    number, _, base, content = frame
    fields = {field for _, _, field, _ in pieces}
    at = index - (base or 0)
    block = content[at] if 0 <= at < len(content) and index >= 0 else None
    field = next(iter(fields))
    if len(fields) > 1:
        verdict.fire("sj.delta-reassembly", number, f"text and thinking deltas at index {index}")
    elif not isinstance(block, dict) or block.get("type") != field:
        verdict.fire("sj.delta-reassembly", number, f"no {field} block at index {index}")
    elif isinstance(block.get(field), str) and block[field] != "".join(p for _, _, _, p in pieces):
        verdict.fire("sj.delta-reassembly", number, f"deltas at index {index} differ from the block")


def _reassembly(tid: str, joined: str, given: JSONValue, number: int, verdict: Verdict) -> None:
    if max_depth_of_bytes(joined.encode("utf-8", "surrogatepass")) > MAX_DEPTH:
        verdict.fire("checker.limit", number, f"reassembled arguments of {tid!r} nest beyond the limit")
        return
    try:
        parsed = parse(joined)
    except JSONLimitError:
        verdict.fire("checker.limit", number, f"reassembled arguments of {tid!r} hold an unreadable number")
        return
    except JSONSyntaxError:
        verdict.fire("sj.tool-args-reassembly", number, f"fragments of {tid!r} do not form one JSON text")
        return
    if parsed.longest_integer_digits > MAX_INTEGER_DIGITS:
        verdict.fire("checker.limit", number, f"reassembled arguments of {tid!r} hold an over-long integer")
    elif parsed.duplicate_pointers:  # policy, as line.duplicate-key: the seed is silent on names
        verdict.fire("sj.tool-args-duplicate-key", number, f"fragments of {tid!r} repeat a member name")
    elif parsed.lone_surrogate:
        verdict.fire("sj.tool-args-reassembly", number, f"fragments of {tid!r} hold a lone surrogate escape")
    elif not same_json(parsed.value, given):
        verdict.fire("sj.tool-args-reassembly", number, f"fragments of {tid!r} differ from its input")


# --- subagent-stdio: structure-derived relations (the seed has no descriptions) -----------------


def _snapshot(obj: dict[str, JSONValue]) -> dict[str, JSONValue] | None:
    kind = obj.get("type")
    snap = obj.get("data") if kind == "response" else obj.get("snapshot") if kind == "subagent_event" else None
    return snap if isinstance(snap, dict) else None


def _subagent_stdio(positions: list[Position], verdict: Verdict) -> None:
    objects = [(number, obj) for number, obj in positions if obj is not None]
    _correlation(objects, verdict)
    for number, obj in objects:
        snap = _snapshot(obj)
        # The event repeats sessionId/epoch/revision beside its snapshot: they must agree.
        if obj.get("type") == "subagent_event" and snap is not None:
            for name in ("sessionId", "epoch", "revision"):
                if name in obj and name in snap and not same_json(obj[name], snap[name]):
                    verdict.fire("sa.event-envelope", number, f"event {name} differs from the snapshot")
        if snap is not None:
            _unique_keys(snap, number, verdict)
    _revisions(objects, verdict)
    _events_capability(objects, verdict)


def _correlation(objects: list[tuple[int, dict[str, JSONValue]]], verdict: Verdict) -> None:
    """Command and response both carry id: each command gets one response, id echoed, in order."""
    pending: list[tuple[bool, JSONValue]] = []
    commands = 0
    early = 0
    for number, obj in objects:
        kind = obj.get("type")
        if kind == "subagent_status":
            if commands == 0 and early:
                verdict.fire("sa.response-correlation", number, "responses came before any command")
            commands += 1
            pending.append(("id" in obj, obj.get("id")))
        elif kind == "response":
            if commands == 0:
                early += 1  # judged once a command shows this is a conversation, not host output
                continue
            if not pending:
                verdict.fire("sa.response-correlation", number, "a response with no command waiting")
                continue
            has, rid = "id" in obj, obj.get("id")
            want_has, want = pending[0]
            if has == want_has and (not has or same_json(rid, want)):
                pending.pop(0)
                continue
            later = [i for i, (h, w) in enumerate(pending) if i > 0 and h and has and same_json(w, rid)]
            pending.pop(later[0] if later else 0)
            verdict.fire("sa.response-correlation", number, "response out of order or id not echoed")
    if commands and pending:
        verdict.fire("sa.response-correlation", 0, "a command got no response")


def _revision_place(obj: dict[str, JSONValue]) -> tuple[str, Decimal] | None:
    epoch, revision = obj.get("epoch"), _integral(obj.get("revision"))
    if obj.get("type") == "subagent_event" and isinstance(epoch, str) and revision is not None:
        return epoch, revision
    snap = _snapshot(obj)
    if snap is None:
        return None
    epoch, revision = snap.get("epoch"), _integral(snap.get("revision"))
    return (epoch, revision) if isinstance(epoch, str) and revision is not None else None


def _revisions(objects: list[tuple[int, dict[str, JSONValue]]], verdict: Verdict) -> None:
    """A revision counter scoped by epoch: never back within an epoch; each event above the last."""
    highest: dict[str, Decimal] = {}
    last_event: dict[str, Decimal] = {}
    for number, obj in objects:
        placed = _revision_place(obj)
        if placed is None:
            continue
        epoch, revision = placed
        is_event = obj.get("type") == "subagent_event"
        if epoch in highest and revision < highest[epoch]:
            verdict.fire("sa.revision-order", number, "revision went back within an epoch")
        elif is_event and epoch in last_event and revision <= last_event[epoch]:
            verdict.fire("sa.revision-order", number, "an event did not raise the revision")
        if epoch not in highest or revision > highest[epoch]:
            highest[epoch] = revision
        if is_event:
            last_event[epoch] = revision


def _events_capability(objects: list[tuple[int, dict[str, JSONValue]]], verdict: Verdict) -> None:
    """The host's own capabilities.events: no event while the latest snapshot (same epoch) said false."""
    off = False
    off_epoch: JSONValue = None
    for number, obj in objects:
        snap = _snapshot(obj)
        caps = snap.get("capabilities") if snap is not None else None
        events = caps.get("events") if isinstance(caps, dict) else None
        if obj.get("type") == "subagent_event":
            if events is False:
                verdict.fire("sa.events-capability", number, "an event whose snapshot says events false")
            elif off and (snap is None or same_json(snap.get("epoch"), off_epoch)):
                verdict.fire("sa.events-capability", number, "an event after capabilities.events false")
        if snap is not None and isinstance(events, bool):
            off, off_epoch = events is False, snap.get("epoch")


def _unique_keys(snap: dict[str, JSONValue], number: int, verdict: Verdict) -> None:
    """Key patterns forbid "/" and "\\": keys are path segments, so siblings must differ."""
    groups: list[JSONValue] = [snap.get("runs")]
    fleet = snap.get("fleet")
    if isinstance(fleet, dict):
        groups.append(fleet.get("entries"))
    todo = [snap.get("runs")]
    while todo:
        siblings = todo.pop()
        if isinstance(siblings, list):
            for node in siblings:
                if isinstance(node, dict):
                    groups.append(node.get("children"))
                    todo.append(node.get("children"))
    for group in groups:
        if not isinstance(group, list):
            continue
        keys = [item["key"] for item in group if isinstance(item, dict) and isinstance(item.get("key"), str)]
        if len(keys) != len(set(keys)):
            verdict.fire("sa.unique-keys", number, "sibling keys repeat")


def judge(data: bytes, wire: str) -> Verdict:
    """Judge a whole transcript; ``wire`` is "stream-json" or "subagent-stdio"."""
    if wire not in WIRES:
        raise ValueError(f"unknown wire {wire!r}")
    verdict = Verdict(wire=wire)
    heads: dict[int, dict[str, JSONValue | _Ambiguous]] = {}
    alternates: dict[int, tuple[dict[str, JSONValue], ...]] = {}
    positions = _frame(data, verdict, wire, heads, alternates)
    _cross_line(positions, verdict, heads)
    # RFC 8259 4: a parser may keep either value of a repeated member name. Each other reading of
    # a line is judged by the cross-line rules too, in the stream as it reads otherwise, and what
    # it breaks on that line is the line's finding (the contract's copies of its machines do the
    # same for its first 32 such lines: the oracle's inputs stay below that).
    for number, others in alternates.items():
        for other in others:
            scratch = Verdict(wire=wire)
            _cross_line([(n, other if n == number else obj) for n, obj in positions], scratch,
                        {n: h for n, h in heads.items() if n != number})
            for rule, line, detail in scratch.notes:
                if line == number:
                    verdict.fire(rule, line, f"{detail} (another reading of the line)",
                                 level="MUST" if rule in scratch.must else "SHOULD")
    return verdict


def _cross_line(positions: list[Position], verdict: Verdict,
                heads: dict[int, dict[str, JSONValue | _Ambiguous]]) -> None:
    if verdict.wire == "stream-json":
        _stream_json(positions, verdict, heads)
    else:
        _subagent_stdio(positions, verdict)
