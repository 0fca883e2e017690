"""The stream-json rules of the catalog, with the seed words each stands on.

Each rule is declared once, in ``REGISTRY``: its metadata, the emitter that emits it (the
schema step for ``sj.schema``, ``machines.StreamRules`` for the rest) and its breaking strategy
(a function of ``contract.wires.stream_json.kit.broken``). ``RULES`` (the wire's catalog
rules), ``StreamRules.rules`` and the breakers are derived from it. A new rule may carry its
logic here as a ``Check`` (``REGISTRY.check``), which ``StreamRules`` runs from its single
dispatch by line type (docs/architecture.md, "Adding a rule").
"""

from __future__ import annotations

from typing import Any

from contract.core.jsonvalue import clip, quoted, shown
from contract.core.rule import SCHEMA_STEP, Basis, Check, Level, Registry, Rule
from contract.core.sink import Sink
from contract.wires.base import Cites
from contract.wires.stream_json.seq_stamps import TOO_LONG, integral

_W, _D, _P = Basis.WRITTEN, Basis.DERIVED, Basis.POLICY
_SJ = "stream-json schema"  # how a rule's source cites the seed

# The seed's words on the rules every wire shares (their sources: contract.rules.catalog).
CITES = Cites(
    framing=f'{_SJ}, description: "one UTF-8 JSON object per line with one trailing newline and nothing else on '
            'stdout"',
    opaque="sj.init-first, sj.result-last, one step of sj.seq",
    ansi=f'{_SJ}, description: "never any ANSI escapes" (written, with no exception: free-form payloads such '
         "as tool_use.input, tool_result content, tool_use_result, task, extension and _meta are scanned too).",
    stdout_held=f"{_SJ}: its framing rules ask for exactly one terminal result last and nothing else on stdout; "
                "a consumer reading the pipe waits for its end, and whatever a descendant still holding it writes "
                "comes after the result (what it writes within the grace is judged as part of the stream)",
    consumer=f"{_SJ}, description: open-set enums everywhere … consumers must ignore values they don't recognize",
)

REGISTRY = Registry("stream-json")

# -- stream-json, MUST ---------------------------------------------------------------
# Each source quotes the seed words the rule stands on; ``basis`` says whether those words
# say it (written), it follows from the seed's structure or a stated purpose (derived), or it
# is our choice where the seed is silent (policy). A rule that mixed two is split (issue 23):
# sj.seq / sj.seq-contiguous, sj.session / sj.session-constant, sj.tool-args-reassembly /
# sj.tool-args-duplicate-key.

REGISTRY.add(
    SCHEMA_STEP,
    Rule("sj.schema", Level.MUST, "stream-json",
         "each line validates against the stream-json schema; a line of an unknown type against the common "
         "envelope only (the schema without its top-level oneOf: type is an open set)",
         f'{_SJ} (draft 2020-12), the whole document: "Validates ONE line of milk\'s batch machine-readable '
         'output stream"; also the framing sentence "provider detail confined to the extension/_meta reserved '
         'fields", as far as additionalProperties: false enforces it. A type outside the five the top-level '
         "oneOf names: properties.type.description 'open set: ignore unknown values' and the top-level "
         "'open-set enums everywhere', so such a line is validated against every keyword but that oneOf "
         "(required type/session_id/seq/ts, additionalProperties: false, every property schema), and the "
         "report says so in a note", basis=_W, breaker="schema"),
)

# Judged by machines.StreamRules (sj.schema above is the schema step's).
REGISTRY.add(
    "StreamRules",
    Rule("sj.ts-format", Level.MUST, "stream-json",
         "ts is an RFC 3339 date-time: ASCII digits, a real date, second 60 only at 23:59:60 UTC on a month's "
         "last day",
         f'{_SJ}, properties.ts.description: "RFC 3339 timestamp" (written: the standard the seed names); '
         "RFC 3339 §5.6 for the grammar, §5.7 for the leap second: 'time-second may have the value 60 at the "
         "end of months in which a leap second occurs', and in other time zones the leap second point is "
         "shifted by the zone offset: read in UTC, 23:59:60 on a month's last day (which months had one is "
         "sj.ts-leap-second's)",
         basis=_W, breaker="ts_format"),
    Rule("sj.ts-leap-second", Level.MUST, "stream-json",
         "a second 60 at a month's end falls in a month in which a leap second occurred (the IERS table; "
         "months after it are noted, not judged)",
         f"{_SJ}, properties.ts.description: 'RFC 3339 timestamp'; RFC 3339 §5.7: second 60 only 'at the end "
         "of months in which a leap second occurs' (derived: which months those are is a fact neither the "
         "seed nor the RFC holds; the suite reads it from the IERS leap-second table, kept as data in "
         "contract/wires/stream_json/leap_seconds.json, known through its last month; a stamp after that "
         "passes with a note, since the table cannot tell)",
         basis=_D, breaker="ts_leap_second"),
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
    Rule("sj.seq", Level.MUST, "stream-json",
         "seq never goes back within a run (monotonic), judged by value",
         f'{_SJ}, description: "monotonic seq per run" (written: a seq below the one before is not monotonic; '
         "monotonic allows a repeat, which is sj.seq-contiguous's, and the word seq, a sequence number, "
         "counts up); the same sentence's properties.seq.description: \"gap-tolerant consumers can detect "
         "dropped lines on relays\" is the purpose sj.seq-contiguous (derived) stands on, not this rule. "
         "Numbers by value per JSON Schema (1.0 is 1; 2.0000000000000001 is no integer); a line rejected by "
         "framing stands for one step; a seq beyond 4300 digits is checker.limit for that line",
         basis=_W, breaker="seq"),
    Rule("sj.seq-contiguous", Level.MUST, "stream-json",
         "seq has no gap and no repeat: each line's seq is the previous line's plus one",
         f"{_SJ}, properties.seq.description: 'monotonic per run (gap-tolerant consumers can detect dropped "
         "lines on relays)' (derived from the stated purpose: the words write 'monotonic', not 'contiguous'; "
         "seq reveals drops only if every line takes the next number, so a gap is a dropped line and the run as "
         "captured is incomplete, and a repeat would hide a drop or a duplicated line). "
         "Judged by value, a framing-rejected line standing for one step, as "
         "sj.seq", basis=_D, breaker="seq_contiguous"),
    Rule("sj.session", Level.MUST, "stream-json",
         "every line's session_id starts sess_ (the milk session id form sess_...)",
         f'{_SJ}, properties.session_id.description: "milk session id (sess_...)" (written: the prefix), on '
         "every line's member (required on each), so each line's is judged; "
         "what follows it is sj.session-suffix's (derived), "
         'one "milk session id" for the whole run is sj.session-constant\'s (derived)', basis=_W, breaker="session"),
    Rule("sj.session-suffix", Level.MUST, "stream-json",
         "every line's session_id has an id after sess_: one or more characters, no white space",
         f"{_SJ}, properties.session_id.description: 'milk session id (sess_...)' (derived: the ellipsis "
         "stands for the characters of the id, so at least one follows the prefix, and an id is one token, "
         "so none of them is white space; the words write neither, and nothing about its alphabet or length)",
         basis=_D, breaker="session_suffix"),
    Rule("sj.session-constant", Level.MUST, "stream-json", "one session_id for the whole run",
         f"{_SJ}, properties.session_id.description: 'milk session id' on every line (required), and "
         "'monotonic seq per run': derived from the structure (seq and the stream are per run of one "
         "session, so a second id on one stream is a second session's line)", basis=_D, breaker="session_constant"),
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
    Rule("sj.agent-form", Level.MUST, "stream-json",
         "agent, where present, is an object on system/init and a string on assistant/user (any label)",
         f'{_SJ}, properties.agent.description: "dual-form: the AgentInfo object on system/init lines; '
         'a role label string (primary | escalation) on assistant/user lines" (written: the form where '
         "present, the one reading of every dual-form sentence, as sj.message-form; a missing agent is no "
         "finding on any line type); "
         'description: "open-set enums everywhere — this schema documents known values in descriptions but '
         'does not constrain them", so primary | escalation are known labels, not the only ones',
         basis=_W, breaker="agent_form"),
    Rule("sj.message-form", Level.MUST, "stream-json",
         "message, where present, is a string on system/error and a Message object on assistant/user",
         f'{_SJ}, properties.message.description: "dual-form: a string on system/error lines; the '
         'Message object on assistant/user lines" (written: the form on each line type named. One reading '
         "for every dual-form sentence (agent too) and every line type it names: the sentence gives the "
         "form where the member is present; it does not make it present, which the seed says with "
         "'present' where it means it: is_error, 'present on every result line'. A missing message on "
         "assistant/user is sj.message-present's, derived from other words)", basis=_W, breaker="message_form"),
    Rule("sj.message-present", Level.MUST, "stream-json",
         "assistant and user lines carry a message",
         f"{_SJ}, oneOf[2].description 'completed assistant message blocks (text | thinking | tool_use)' and "
         "oneOf[3].description 'tool_result blocks + tool_use_result summary' (derived: those lines are "
         "described by the message blocks they carry, so one without a message carries nothing they are "
         "for; the dual-form sentence alone does not require it, and nothing requires agent on any line or "
         "message on system/error)", basis=_D, breaker="message_present"),
    Rule("sj.tool-result-ref", Level.MUST, "stream-json",
         "a tool_result block names an earlier tool_use block (both on assistant or user lines)",
         f'{_SJ}, oneOf[3].description: "tool_result blocks"; content_block.tool_use_id (structure-derived '
         "MUST: the member is named tool_use_id, and a value that names no earlier tool_use is not a "
         'tool_use id). Both kinds of block count where the wire carries content blocks, on assistant and '
         "user lines (oneOf[2], oneOf[3]), either of them, and on no other line: a line of a type not known "
         "is ignored whole (open set), its tool_use and its tool_result alike", basis=_D, breaker="tool_result_ref"),
    Rule("sj.parent-ref", Level.MUST, "stream-json", "parent_tool_use_id names an earlier tool_use",
         f'{_SJ}, properties.parent_tool_use_id.description: "present exactly when the actor is nested '
         '... makes F3/F4-style tree views reconstructable" (structure-derived MUST: the member is named '
         "parent_tool_use_id, and a tree is reconstructable only if the parent exists; "
         '"present exactly when the actor is nested" has no rule, since a stream does not say which '
         'actor is nested other than by this field)', basis=_D, breaker="parent_ref"),
    Rule("sj.tool-args-reassembly", Level.MUST, "stream-json",
         "concatenated tool_args_delta fragments are one JSON text, equal to the input of the tool_use "
         "that completes them; no fragment after it; none left without one in a run "
         "whose result does not say it failed",
         f'{_SJ}, $defs.stream_payload.partial_json.description: "progressive tool-argument fragment '
         '(AI SDK-style delta framing; consumers concatenate, no partial-JSON reassembly)" (written: '
         "concatenation; derived: the words say how consumers reassemble, not what the result must be; the "
         "concatenation is the tool's arguments, so it is one JSON text equal to the tool_use's input by JSON "
         "value; repeated member names are sj.tool-args-duplicate-key). "
         # Issue 20. The new seed words in single quotes, as sj.subtype's (contract/evolution/framing.py).
         "When: oneOf[2].description: 'completed assistant message blocks (text | thinking | tool_use)' "
         "(derived: the assistant line completes the call, so its fragments come before it, and a "
         "non-empty fragment after it contradicts a completed input; an empty one changes no "
         "concatenation); content_block.input.description: 'free-form tool arguments (tool_use)', so "
         "fragments that no tool_use completes are the arguments of no call, unless the run failed: "
         "properties.is_error.description: 'true when the run failed (execution error, max turns, "
         "interruption)' (a failed run may stop mid-call: not judged, a note says so; nor a run with no "
         "result, which sj.result-last reports; nor a call that only streamed empty fragments)",
         basis=_D, breaker="tool_args_reassembly"),
    Rule("sj.tool-args-duplicate-key", Level.MUST, "stream-json",
         "the concatenated tool_args_delta fragments repeat no member name",
         "policy, as line.duplicate-key: the seed is silent on member names in the reassembly; RFC 8259 §4 "
         "says names SHOULD be unique and parsers disagree on which duplicate wins, so a consumer's reading "
         "of the arguments would depend on its parser", basis=_P, breaker="tool_args_duplicate_key"),
    # -- stream-json, SHOULD -------------------------------------------------------------
    Rule("sj.capabilities", Level.SHOULD, "stream-json",
         "stream_event lines need partial_messages_v1 advertised on init; task lines need tasks_v1",
         f'inferred from {_SJ}, oneOf[1].description: "partial deltas (partial_messages_v1)" and '
         'properties.capabilities.description (known: stream_v1, partial_messages_v1, tasks_v1)',
         basis=_D, breaker="capabilities"),
    Rule("sj.usage-rollup", Level.SHOULD, "stream-json",
         "model_usage sums to usage on the result line (counts by value)",
         f'inferred from {_SJ}: usage is "aggregate per-run token accounting", model_usage '
         '"per-model token rollups"', basis=_D, breaker="usage_rollup"),
    Rule("sj.ts-order", Level.SHOULD, "stream-json", "ts never goes back within a run (leap seconds included)",
         f"policy: {_SJ} orders lines by seq ('monotonic seq per run'), never by ts, and a wall clock may step "
         "back; timestamps that go back suggest a relay reordered lines, so the suite warns (SHOULD) on them "
         "(issue 31: an independent reading found no seed structure it follows from)",
         basis=_P, breaker="ts_order"),
    Rule("sj.role-form", Level.SHOULD, "stream-json",
         "message.role matches the line type (assistant on assistant, user on user)",
         f'inferred from {_SJ}: oneOf[2] "completed assistant message blocks", oneOf[3] "tool_result blocks"',
         basis=_D, breaker="role_form"),
)


# -- sj.delta-reassembly: a declared check (docs/architecture.md, "Adding a rule") ------------------
# Issue 49: the partial text and thinking deltas of a block concatenate to that block in the
# assistant line that completes the message, as sj.tool-args-reassembly holds for tool arguments.
# What ends a message's deltas: the next assistant line (docs/tool-args.md, "Text and thinking
# deltas"). The deltas carry no message id, only the block's index, so order is the only link;
# the goldens stream each message's deltas just before its assistant line, nested actors included.

_DELTA_KINDS = {"text_delta": "text", "thinking_delta": "thinking"}  # the known delta types (an open set)


class _Pending:
    """The deltas of one block index since the last assistant line."""

    __slots__ = ("count", "first_line", "kinds", "pieces", "size")

    def __init__(self, first_line: int) -> None:
        self.first_line = first_line
        self.kinds: set[str] = set()
        self.pieces: list[str] = []
        self.count = 0
        self.size = 0


@REGISTRY.check(
    Rule("sj.delta-reassembly", Level.MUST, "stream-json",
         "the text_delta (thinking_delta) pieces of a block index concatenate to the text (thinking) of the "
         "block at that index in the next assistant line; none left without one in a run whose result does "
         "not say it failed",
         f'{_SJ}, oneOf[1].description: "partial deltas (partial_messages_v1): content_block_delta or '
         'tool_args_delta" and oneOf[2].description: "completed assistant message blocks (text | thinking | '
         'tool_use)"; $defs.delta.type: "text_delta | thinking_delta (open set)" (derived: a partial delta is a '
         "part of a block that the assistant line then carries completed, so a block's parts, in order, are "
         "its text, as the seed says of tool-argument fragments: 'consumers concatenate'). Which block: "
         "stream_payload.index, the block's index in the completed message's content (the seed gives no "
         "other link; the goldens hold it). When: the next assistant line completes the deltas before it "
         "(derived from 'completed': a message is streamed, then completed; whatever its actor, since the "
         "deltas name no message). Unknown delta and payload types are ignored (open sets); a failed run "
         "(is_error true) may stop mid-message, and a run with no result is sj.result-last's", basis=_D,
         breaker="delta_reassembly"),
)
class DeltaReassembly(Check):
    """sj.delta-reassembly: the text and thinking deltas against the blocks that complete them."""

    kinds = ("system", "stream_event", "assistant", "result")
    MAX_PENDING = 64 * 1024 * 1024  # characters of deltas kept while awaiting their assistant line

    def __init__(self) -> None:
        self.pending: dict[int, _Pending] = {}
        self.size = 0
        self.stopped = False  # MAX_PENDING reached: not judged from there on (a checker.limit said so)
        self.ended = False  # a result line was read
        self.failed = False  # ... and it says the run failed (is_error true)
        # Whether the run's init advertised partial_messages_v1 (True until an init says otherwise):
        # deltas a run did not declare are sj.capabilities' finding, and this rule not applicable.
        self.partial = True

    def line(self, obj: dict[str, Any], line: int, out: Sink) -> None:
        kind = obj.get("type")
        if kind == "system":
            if obj.get("subtype") == "init":
                caps = obj.get("capabilities")
                self.partial = type(caps) is list and "partial_messages_v1" in caps
        elif kind == "stream_event":
            if self.partial:
                self._delta(obj.get("event"), line, out)
        elif kind == "assistant":
            self._complete(obj.get("message"), line, out)
        elif not self.ended:  # the first result says how the run ended (a second is sj.result-once's)
            self.ended, self.failed = True, obj.get("is_error") is True

    def _delta(self, event: Any, line: int, out: Sink) -> None:
        if self.stopped or type(event) is not dict or event.get("type") != "content_block_delta":
            return
        delta, index = event.get("delta"), integral(event.get("index"))  # 1.0 is the integer 1
        if type(delta) is not dict or index is None or index is TOO_LONG:
            return
        dtype = delta.get("type")
        if type(dtype) is not str or dtype not in _DELTA_KINDS:  # an unknown delta type: the open set, ignored
            return
        piece = delta.get(_DELTA_KINDS[dtype])
        piece = piece if type(piece) is str else ""  # absent, it adds nothing to a concatenation
        if self.size + len(piece) > self.MAX_PENDING:
            self.stopped = True
            self.pending.clear()
            out.emit("checker.limit", line, "/event/delta",
                     f"sj.delta-reassembly stopped: pending text and thinking deltas reached {self.MAX_PENDING} "
                     f"characters; no reassembly is judged from line {line} on")
            return
        pending = self.pending.get(index)
        if pending is None:
            pending = self.pending[index] = _Pending(line)
        pending.kinds.add(dtype)
        pending.pieces.append(piece)
        pending.count += 1
        pending.size += len(piece)
        self.size += len(piece)

    def _complete(self, message: Any, line: int, out: Sink) -> None:
        if not self.pending:
            return
        pending, self.pending, self.size = self.pending, {}, 0
        content = message.get("content") if type(message) is dict else None
        blocks = content if type(content) is list else []
        out.exercised(self.rule)
        for index in sorted(pending):
            self._block(index, pending[index], blocks, line, out)

    def _block(self, index: int, pending: _Pending, blocks: list[Any], line: int, out: Sink) -> None:
        joined = "".join(pending.pieces)
        streamed = (f"the {pending.count} {' and '.join(sorted(pending.kinds))} piece(s) of index {index} from line "
                    f"{pending.first_line} (concatenated: {shown(clip(joined))})")
        if len(pending.kinds) > 1:
            out.emit(self.rule, line, f"/message/content/{index}",
                     f"expected the deltas of one block to be of one kind, found {streamed}",
                     "a block is text or thinking: its deltas are text_delta or thinking_delta pieces, not both")
            return
        want = _DELTA_KINDS[next(iter(pending.kinds))]
        block = blocks[index] if 0 <= index < len(blocks) else None
        if type(block) is not dict or block.get("type") != want:
            found = ("no such block" if block is None else
                     f"a {quoted(clip(str(block.get('type'))))} block" if type(block) is dict else "no block")
            out.emit(self.rule, line, f"/message/content/{index}" if block is not None else "/message/content",
                     f"expected a {want} block at index {index} completing {streamed}, found {found}",
                     "the index of a content_block_delta is its block's place in the completed message")
            return
        text = block.get(want)
        if type(text) is str and text != joined:
            out.emit(self.rule, line, f"/message/content/{index}/{want}",
                     f"expected the {want} its deltas concatenate to, {shown(clip(joined))}, found "
                     f"{shown(clip(text))} ({streamed})",
                     "consumers concatenate the deltas: the completed block must be what they assembled")

    def finish(self, out: Sink) -> None:
        if not self.pending or self.stopped:
            return
        if not self.ended:  # no result: the run was cut short (sj.result-last), and that is its finding
            return
        first = min(p.first_line for p in self.pending.values())
        if self.failed:
            out.note(f"sj.delta-reassembly: text or thinking deltas from line {first} never met an assistant line; "
                     "the result says the run failed (is_error true), which explains an unfinished message, so "
                     "they are not judged")
            return
        out.exercised(self.rule)
        out.emit(self.rule, first, "/event/delta",
                 f"expected an assistant line to complete the text and thinking deltas from line {first}, found "
                 "the run ending without one, and a result that does not say it failed",
                 "a streamed message completes in an assistant line, unless the run failed (is_error true)")


# The wire's catalog rules, in declaration order (contract.rules.catalog); declare new rules above.
RULES: tuple[Rule, ...] = REGISTRY.rules
