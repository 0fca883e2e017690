"""The stream-json rules of the catalog, with the seed words each stands on.

They sit beside the machine that emits them (``machines.StreamRules``); the schema rule
``sj.schema`` is emitted by the checker's schema step for this wire.
"""

from __future__ import annotations

from contract.rules import SJ_SCHEMA as _SJ
from contract.rules import Level, Rule

RULES: tuple[Rule, ...] = (
    # -- stream-json, MUST ---------------------------------------------------------------
    # Each source quotes the seed words the rule stands on and says "inferred" where the rule
    # reads more into them than they say (reviewed against the seed text, issue 12).
    Rule("sj.schema", Level.MUST, "stream-json", "each line validates against the stream-json schema",
         f'{_SJ} (draft 2020-12), the whole document: "Validates ONE line of milk\'s batch machine-readable '
         'output stream"; also the framing sentence "provider detail confined to the extension/_meta reserved '
         'fields", as far as additionalProperties: false enforces it'),
    Rule("sj.ts-format", Level.MUST, "stream-json",
         "ts is an RFC 3339 date-time: ASCII digits, a real date, second 60 only at 23:59:60 UTC",
         f'{_SJ}, properties.ts.description: "RFC 3339 timestamp" (written); the leap-second placement is '
         "RFC 3339 §5.7 read as JSON-Schema-Test-Suite's date-time cases read it"),
    Rule("sj.init-first", Level.MUST, "stream-json", "the first line is system/init",
         f'{_SJ}, description: "system/init first"; oneOf[0].description: "system/init first" (written)'),
    Rule("sj.init-once", Level.MUST, "stream-json", "system/init appears once per run",
         f'{_SJ}, description: "system/init first" (inferred: the words do not say "once"; a second '
         "system/init is not first, so it breaks the run's framing)"),
    Rule("sj.result-once", Level.MUST, "stream-json", "exactly one result line per run",
         f'{_SJ}, description: "exactly one terminal result last"; oneOf[4].description: "exactly one '
         'terminal line per run" (written)'),
    Rule("sj.result-last", Level.MUST, "stream-json",
         "the result line is the last line (a missing result is a truncated run)",
         f'{_SJ}, description: "exactly one terminal result last" (written)'),
    Rule("sj.seq", Level.MUST, "stream-json",
         "seq increases by exactly one per line within a run, judged by value (a gap is a dropped line)",
         f'{_SJ}, description: "monotonic seq per run" (written); properties.seq.description: "gap-tolerant '
         'consumers can detect dropped lines on relays" (inferred from it: steps of exactly one, since a '
         'gap is how a consumer detects a drop); numbers by value per JSON Schema (1.0 is 1)'),
    Rule("sj.session", Level.MUST, "stream-json", "one session_id for the whole run, in sess_ form",
         f'{_SJ}, properties.session_id.description: "milk session id (sess_...)" (written: the form); '
         'one id for the whole run is inferred from "milk session id" on every line of one run'),
    Rule("sj.result-is-error", Level.MUST, "stream-json",
         "is_error is a boolean on every result line and matches the known subtype",
         f'{_SJ}, properties.is_error.description: "boolean contract: true when the run failed '
         '(execution error, max turns, interruption); present on every result line"; description: '
         '"a refusal is a completed turn and reports is_error false" (written)'),
    Rule("sj.agent-form", Level.MUST, "stream-json",
         "agent is an object on system/init and a string on assistant/user (any label: an open set)",
         f'{_SJ}, properties.agent.description: "dual-form: the AgentInfo object on system/init lines; '
         'a role label string (primary | escalation) on assistant/user lines" (written: the form); '
         'description: "open-set enums everywhere — this schema documents known values in descriptions but '
         'does not constrain them", so primary | escalation are known labels, not the only ones'),
    Rule("sj.message-form", Level.MUST, "stream-json",
         "message is a string on system/error and a Message object on assistant/user",
         f'{_SJ}, properties.message.description: "dual-form: a string on system/error lines; the '
         'Message object on assistant/user lines" (written)'),
    Rule("sj.tool-result-ref", Level.MUST, "stream-json",
         "a tool_result (on any line) names an earlier tool_use",
         f'{_SJ}, oneOf[3].description: "tool_result blocks"; content_block.tool_use_id (inferred: the seed '
         "names the field but does not say it must match an earlier tool_use's id; a reference that names "
         'nothing cannot be followed)'),
    Rule("sj.parent-ref", Level.MUST, "stream-json", "parent_tool_use_id names an earlier tool_use",
         f'{_SJ}, properties.parent_tool_use_id.description: "present exactly when the actor is nested '
         '... makes F3/F4-style tree views reconstructable" (inferred: a tree is reconstructable only if '
         'the parent exists; "present exactly when the actor is nested" has no rule, since a stream does not say which '
         'actor is nested other than by this field)'),
    Rule("sj.tool-args-reassembly", Level.MUST, "stream-json",
         "concatenated tool_args_delta fragments are one JSON text, unique member names, equal to the input",
         f'{_SJ}, $defs.stream_payload.partial_json.description: "progressive tool-argument fragment '
         '(AI SDK-style delta framing; consumers concatenate, no partial-JSON reassembly)" (written: '
         'concatenation; inferred: that it parses as the framing does (unique names, as line.duplicate-key) '
         "and equals the tool_use's input by JSON value)"),
    # -- stream-json, SHOULD -------------------------------------------------------------
    Rule("sj.capabilities", Level.SHOULD, "stream-json",
         "stream_event lines need partial_messages_v1 advertised on init; task lines need tasks_v1",
         f'inferred from {_SJ}, oneOf[1].description: "partial deltas (partial_messages_v1)" and '
         'properties.capabilities.description (known: stream_v1, partial_messages_v1, tasks_v1)'),
    Rule("sj.usage-rollup", Level.SHOULD, "stream-json",
         "model_usage sums to usage on the result line (counts by value)",
         f'inferred from {_SJ}: usage is "aggregate per-run token accounting", model_usage '
         '"per-model token rollups"'),
    Rule("sj.ts-order", Level.SHOULD, "stream-json", "ts never goes back within a run (leap seconds included)",
         f"inferred: {_SJ} orders lines by seq; timestamps that go back suggest a relay reordered lines"),
    Rule("sj.role-form", Level.SHOULD, "stream-json",
         "message.role matches the line type (assistant on assistant, user on user)",
         f'inferred from {_SJ}: oneOf[2] "completed assistant message blocks", oneOf[3] "tool_result blocks"'),
)
