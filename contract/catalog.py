"""The rule catalog: every check milk-contract makes, as data.

Each rule has a stable id that users see in reports and pass to ``--ignore``, a level
(MUST comes from a seed schema: its words where it has them, its structure where it has none,
as in the subagent-stdio schema, which carries no descriptions; SHOULD is inferred consistency,
failing only under ``--strict``) and ``source``: what it comes from, or why it is inferred.
``milk-contract rules`` prints this table; the checkers may only emit ids listed here
(a test enforces it).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum


class Level(StrEnum):
    MUST = "MUST"
    SHOULD = "SHOULD"


@dataclass(frozen=True)
class Rule:
    id: str
    level: Level
    wire: str  # "line" (both wires), "stream-json", "subagent-stdio", "run" or "checker" (its own integrity)
    title: str
    source: str


_SJ = "stream-json schema"
_SA = "subagent-stdio schema"
_FRAMING = (
    f'{_SJ}, description: "one UTF-8 JSON object per line with one trailing newline and nothing else on stdout"'
    "; subagent-stdio: inferred (its schema has no descriptions): JSONL lines of objects whose "
    "$defs are line types, the same framing as its sibling wire"
)

# A line that fails framing (line.utf8, line.json, line.object, line.duplicate-key, line.limit) is
# opaque: no schema or content rule judges it, but it keeps its place in the stream (it counts as
# a line for sj.init-first, sj.result-last and, as one step, for sj.seq). Lead's decision, issue 12.
_OPAQUE = ("a line that fails it is opaque: no schema or content rule judges it, but it keeps its place in the "
           "stream (sj.init-first, sj.result-last, one step of sj.seq)")

_RULES: tuple[Rule, ...] = (
    # -- framing, both wires ------------------------------------------------------------
    Rule("line.utf8", Level.MUST, "line", "each line is valid UTF-8 with no byte order mark", _FRAMING),
    Rule("line.newline", Level.MUST, "line",
         "each line ends in exactly one LF, with no CR, and the stream ends with LF", _FRAMING),
    Rule("line.blank", Level.MUST, "line", "no empty or whitespace-only lines", _FRAMING),
    Rule("line.json", Level.MUST, "line",
         "each line is one strict RFC 8259 JSON text (no NaN/Infinity, no lone surrogate, nothing after it)",
         f"{_FRAMING}; a lone surrogate escape (\\ud800) cannot be encoded in UTF-8, which the framing asks for, "
         "and RFC 8259 §8.2 calls software behaviour on it unpredictable; a raw control byte (ESC "
         f"included) is not JSON (RFC 8259 §7); numbers outside float range (1e400) are valid JSON; {_OPAQUE}"),
    Rule("line.object", Level.MUST, "line", "each line's JSON value is an object", _FRAMING),
    Rule("line.duplicate-key", Level.MUST, "line", "no object repeats a member name",
         f"{_FRAMING}; RFC 8259 §4: names SHOULD be unique, and parsers disagree on which duplicate wins, "
         f"so neither first-wins nor last-wins is judged: {_OPAQUE}"),
    Rule("line.ansi", Level.MUST, "stream-json",
         "no ANSI escapes: no raw ESC byte, no ESC (U+001B) in any decoded string or member name, payloads included",
         f'{_SJ}, description: "never any ANSI escapes" (written, with no exception: free-form payloads such '
         "as tool_use.input, tool_result content, tool_use_result, task, extension and _meta are scanned too; "
         "C1 CSI U+009B and BEL are not ESC and stay outside the rule). Stream-json only: the "
         f"{_SA} has no such words, no descriptions at all, so ESC in a subagent-stdio string is not a finding"),
    Rule("line.limit", Level.MUST, "line",
         "a line stays within the checker's limits (length, nesting depth, integer digits)",
         "checker limit: a line the checker cannot judge cannot be declared conformant; "
         f"raise the limit with --max-line-bytes where the line is legitimate; {_OPAQUE}"),
    # -- the checker's own integrity, both wires -------------------------------------------
    Rule("checker.internal", Level.MUST, "checker",
         "the checker finished every check it started (an internal error is a finding, never a pass)",
         "fail closed: a check that raised cannot vouch for the stream, so the stream is not conformant"),
    Rule("checker.limit", Level.MUST, "checker",
         "no internal bound of the checker was reached (a check that could not be completed is a finding)",
         "fail closed, no silent limits: the message names the check that stopped, the bound and the line "
         "(e.g. a seq of more than 4300 digits, such as 1e5000: the seq check stops for that line, the "
         "line is otherwise judged)"),
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
    Rule("sj.result-once", Level.MUST, "stream-json",
         "at most one result line per run: a second result is this rule (a missing one is sj.result-last)",
         f'{_SJ}, description: "exactly one terminal result last"; oneOf[4].description: "exactly one '
         'terminal line per run" (written)'),
    Rule("sj.result-last", Level.MUST, "stream-json",
         "the result line is the last line; a missing result is a truncated run (this rule, not sj.result-once)",
         f'{_SJ}, description: "exactly one terminal result last" (written); a run with no result ends '
         "without its terminal line, so the last line is not the result"),
    Rule("sj.subtype", Level.MUST, "stream-json", "system and result lines carry a subtype",
         # The seed words in single quotes: a new rule's double-quoted words would enter the wire
         # surface's rules section as a breaking "rule-words-added" change (contract/framing.py).
         f"{_SJ}, description: 'a type discriminator per line plus subtype for the system/result "
         "families' (written); a subtype that is not a string is the schema's finding only (sj.schema)"),
    Rule("sj.seq", Level.MUST, "stream-json",
         "seq increases by exactly one per line within a run, judged by value (a gap is a dropped line)",
         f'{_SJ}, description: "monotonic seq per run" (written); properties.seq.description: "gap-tolerant '
         'consumers can detect dropped lines on relays" gives seq the purpose of revealing drops, so a gap is '
         "a dropped line and the run as captured is incomplete: MUST (structure-derived). Numbers by value "
         "per JSON Schema (1.0 is 1; 2.0000000000000001 is no integer); a line rejected by framing stands for "
         "one step; a seq beyond 4300 digits is checker.limit for that line"),
    Rule("sj.session", Level.MUST, "stream-json", "one session_id for the whole run, in sess_ form",
         f'{_SJ}, properties.session_id.description: "milk session id (sess_...)" (written: the form); '
         'one id for the whole run is structure-derived (MUST): "milk session id" on every line of one run, '
         "and seq and the stream are per run of one session"),
    Rule("sj.result-is-error", Level.MUST, "stream-json",
         "is_error is present on every result line and matches the known subtype (a non-boolean is sj.schema's)",
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
         "message is a string on system/error and a Message object on assistant/user (missing there too)",
         f'{_SJ}, properties.message.description: "dual-form: a string on system/error lines; the '
         'Message object on assistant/user lines" (written: those lines have the Message object, so one '
         "without it breaks the rule)"),
    Rule("sj.tool-result-ref", Level.MUST, "stream-json",
         "a tool_result (on any line) names an earlier tool_use",
         f'{_SJ}, oneOf[3].description: "tool_result blocks"; content_block.tool_use_id (structure-derived '
         "MUST: the member is named tool_use_id, and a value that names no earlier tool_use is not a "
         'tool_use id)'),
    Rule("sj.parent-ref", Level.MUST, "stream-json", "parent_tool_use_id names an earlier tool_use",
         f'{_SJ}, properties.parent_tool_use_id.description: "present exactly when the actor is nested '
         '... makes F3/F4-style tree views reconstructable" (structure-derived MUST: the member is named '
         "parent_tool_use_id, and a tree is reconstructable only if the parent exists; "
         '"present exactly when the actor is nested" has no rule, since a stream does not say which '
         'actor is nested other than by this field)'),
    Rule("sj.tool-args-reassembly", Level.MUST, "stream-json",
         "concatenated tool_args_delta fragments are one JSON text, unique member names, equal to the input",
         f'{_SJ}, $defs.stream_payload.partial_json.description: "progressive tool-argument fragment '
         '(AI SDK-style delta framing; consumers concatenate, no partial-JSON reassembly)" (written: '
         "concatenation; structure-derived MUST: the concatenation is the tool's arguments, so it parses "
         "as the framing does (unique names, as line.duplicate-key) and equals the tool_use's input by JSON "
         "value)"),
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
    # -- subagent-stdio, MUST ------------------------------------------------------------
    Rule("sa.schema", Level.MUST, "subagent-stdio", "each line validates against the subagent-stdio schema",
         f"{_SA} (draft 2020-12), the whole document"),
    Rule("sa.response-correlation", Level.MUST, "subagent-stdio",
         "exactly one response per command, id echoed, in order",
         f"{_SA}: $defs.command.id and $defs.response.id: command and response both carry id (structure-"
         "derived MUST: a read-only request/response protocol)"),
    Rule("sa.event-envelope", Level.MUST, "subagent-stdio",
         "an event's sessionId, epoch and revision equal its snapshot's",
         f"{_SA}: $defs.event repeats sessionId, epoch and revision beside $defs.event.snapshot "
         "(structure-derived MUST: the envelope restates its snapshot)"),
    Rule("sa.revision-order", Level.MUST, "subagent-stdio",
         "within an epoch revisions never go back; events strictly increase",
         f"{_SA}: snapshot.epoch and snapshot.revision (structure-derived MUST: a revision counter scoped by "
         "epoch; revisions judged by value, 3.0 is 3)"),
    Rule("sa.events-capability", Level.MUST, "subagent-stdio",
         "no subagent_event while capabilities.events is false",
         f"{_SA}: snapshot.capabilities.events (structure-derived MUST: the host's own declaration)"),
    Rule("sa.unique-keys", Level.MUST, "subagent-stdio", "sibling node keys and fleet entry keys are unique",
         f"{_SA}: node.key and fleet.entries[].key are identifiers (pattern ^[^/\\\\\\r\\n]+$; structure-derived "
         "MUST: key, runId and workflowId patterns forbid / and \\\\, so keys are path segments and "
         "siblings must be unique)"),
    # -- subagent-stdio, SHOULD ----------------------------------------------------------
    Rule("sa.fleet-counts", Level.SHOULD, "subagent-stdio",
         "fleet.totalActive is at least the entries listed, and omitted covers the rest",
         f"inferred from {_SA}: fleet.entries (maxItems 16), fleet.totalActive, fleet.omitted"),
    Rule("sa.capacity", Level.SHOULD, "subagent-stdio", "topLevelAsyncCapacity.used does not exceed limit",
         f"inferred from {_SA}: fleet.topLevelAsyncCapacity.used / limit"),
    Rule("sa.tokens-total", Level.SHOULD, "subagent-stdio", "tokens.total equals input + output",
         f"inferred from {_SA}: $defs.tokens input, output, total"),
    Rule("sa.node-times", Level.SHOULD, "subagent-stdio",
         "startedAt <= updatedAt <= endedAt, and observedAt not before startedAt",
         f"inferred from {_SA}: node.startedAt, updatedAt, endedAt, processTerminal.observedAt"),
    Rule("sa.outcome", Level.SHOULD, "subagent-stdio",
         "outcome.status agrees with the node status; success agrees with the status and exitCode",
         f"inferred from {_SA}: node.outcome.status repeats the node status enum"),
    Rule("sa.unavailable", Level.SHOULD, "subagent-stdio",
         "available false comes with an empty fleet and no runs (none omitted either)",
         f"inferred from {_SA}: snapshot.available"),
    # -- live runs -----------------------------------------------------------------------
    Rule("run.timeout", Level.MUST, "run", "the emitter finishes within --timeout (plus a short exit grace)",
         "harness: a hung emitter is killed with its process group"),
    Rule("run.exit-status", Level.MUST, "run", "the emitter exits with the expected status",
         "harness: a run that crashes or is killed is not a conformant run"),
    Rule("run.start", Level.MUST, "run", "the emitter command can be started",
         "harness: the command must exist and be executable"),
    Rule("run.no-response", Level.MUST, "run", "a host answers each command before its deadline",
         "harness, subagent-stdio: a read-only request gets a response"),
    Rule("run.output-limit", Level.MUST, "run", "the emitter's output stays within --max-output-bytes",
         "harness: a flooding emitter is stopped so that the checker's memory stays bounded"),
    Rule("run.interrupted", Level.MUST, "run", "the run is not interrupted (Ctrl-C, SIGINT) before it ends",
         "harness: an interrupted run did not finish, so it cannot be judged conformant; the emitter's "
         "process group is killed and the findings seen so far are reported (exit 130)"),
    Rule("baseline.stale", Level.MUST, "line",
         "every finding listed in --baseline still occurs",
         "baseline files only shrink: an entry that no longer occurs must be removed"),
)

CATALOG: dict[str, Rule] = {rule.id: rule for rule in _RULES}


def rules_for(wire: str) -> Iterator[Rule]:
    """The rules that apply to ``wire``: framing, the wire's own, and the harness rules."""
    for rule in _RULES:
        if rule.wire in ("line", "run", "checker", wire):
            yield rule


def get(rule_id: str) -> Rule:
    return CATALOG[rule_id]
