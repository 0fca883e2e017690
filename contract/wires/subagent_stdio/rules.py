"""The subagent-stdio rules of the catalog, from the schema's structure (it has no descriptions).

Each rule is declared once, in ``REGISTRY``: its metadata, the emitter that emits it (the
schema step for ``sa.schema``, a machine of ``machines`` for the rest) and its breaking strategy
(a function of ``contract.wires.subagent_stdio.kit.broken``). ``RULES`` (the wire's catalog
rules), each machine's ``rules`` and the breakers are derived from it. A new rule may carry its
logic here as a ``Check`` (``REGISTRY.check``), which the wire's machines run by line type
(docs/architecture.md, "Adding a rule").
"""

from __future__ import annotations

from contract.core.rule import SCHEMA_STEP, Basis, Level, Registry, Rule
from contract.wires.base import Cites

_SA = "subagent-stdio schema"  # how a rule's source cites the seed

# The seed's words on the rules every wire shares (their sources: contract.rules.catalog): it has none
# on framing, so ours stands in (policy), and none on ANSI escapes.
CITES = Cites(
    framing="subagent-stdio: policy (its schema has no descriptions, and nothing in it says how its JSON objects "
            "are framed on stdio): JSONL lines of objects whose $defs are line types, the same framing as its "
            "sibling wire",
    framing_basis=Basis.POLICY,
    ansi=f"the {_SA} has no such words, no descriptions at all, so ESC in a subagent-stdio string is not a finding",
    stdout_held="subagent-stdio: inferred, as its framing is (after the host exits, its stdout ends)",
)

# Every cross-line rule here is derived (issue 23): the seed has no descriptions, so no words say
# any of them; each stands on what the schema's structure repeats, scopes or names. Only the
# schema rule is written (the document's own keywords).
_W, _D = Basis.WRITTEN, Basis.DERIVED

REGISTRY = Registry("subagent-stdio")

# -- subagent-stdio, MUST ------------------------------------------------------------

REGISTRY.add(
    SCHEMA_STEP,
    Rule("sa.schema", Level.MUST, "subagent-stdio", "each line validates against the subagent-stdio schema",
         f"{_SA} (draft 2020-12), the whole document (written: its keywords; enums stay closed, no words open them)",
         basis=_W, breaker="schema"),
)

REGISTRY.add(
    "Correlation",
    Rule("sa.response-correlation", Level.MUST, "subagent-stdio",
         "exactly one response per command, id echoed, in order",
         f"{_SA}: $defs.command.id and $defs.response.id: command and response both carry id (structure-"
         "derived MUST: a read-only request/response protocol)", basis=_D, breaker="response_correlation"),
)

REGISTRY.add(
    "Envelope",
    Rule("sa.event-envelope", Level.MUST, "subagent-stdio",
         "an event's sessionId, epoch and revision equal its snapshot's",
         f"{_SA}: $defs.event repeats sessionId, epoch and revision beside $defs.event.snapshot "
         "(structure-derived MUST: the envelope restates its snapshot)", basis=_D, breaker="event_envelope"),
)

REGISTRY.add(
    "Revisions",
    Rule("sa.revision-order", Level.MUST, "subagent-stdio",
         "within an epoch revisions never go back; events strictly increase",
         f"{_SA}: snapshot.epoch and snapshot.revision (structure-derived MUST: a revision counter scoped by "
         "epoch; revisions judged by value, 3.0 is 3)", basis=_D, breaker="revision_order"),
)

REGISTRY.add(
    "EventsCapability",
    Rule("sa.events-capability", Level.MUST, "subagent-stdio",
         "no subagent_event while capabilities.events is false",
         f"{_SA}: snapshot.capabilities.events (structure-derived MUST: the host's own declaration)",
         basis=_D, breaker="events_capability"),
)

REGISTRY.add(
    "UniqueKeys",
    Rule("sa.unique-keys", Level.MUST, "subagent-stdio", "sibling node keys and fleet entry keys are unique",
         f"{_SA}: node.key and fleet.entries[].key are identifiers (pattern ^[^/\\\\\\r\\n]+$; structure-derived "
         "MUST: key, runId and workflowId patterns forbid / and \\\\, so keys are path segments and "
         "siblings must be unique)", basis=_D, breaker="unique_keys"),
)

# -- subagent-stdio, SHOULD ----------------------------------------------------------

REGISTRY.add(
    "Consistency",
    Rule("sa.fleet-counts", Level.SHOULD, "subagent-stdio",
         "fleet.totalActive is at least the entries listed, and omitted covers the rest",
         f"inferred from {_SA}: fleet.entries (maxItems 16), fleet.totalActive, fleet.omitted",
         basis=_D, breaker="fleet_counts"),
    Rule("sa.capacity", Level.SHOULD, "subagent-stdio", "topLevelAsyncCapacity.used does not exceed limit",
         f"inferred from {_SA}: fleet.topLevelAsyncCapacity.used / limit", basis=_D, breaker="capacity"),
    Rule("sa.tokens-total", Level.SHOULD, "subagent-stdio", "tokens.total equals input + output",
         f"inferred from {_SA}: $defs.tokens input, output, total", basis=_D, breaker="tokens_total"),
    Rule("sa.node-times", Level.SHOULD, "subagent-stdio",
         "startedAt <= updatedAt <= endedAt, and observedAt not before startedAt",
         f"inferred from {_SA}: node.startedAt, updatedAt, endedAt, processTerminal.observedAt",
         basis=_D, breaker="node_times"),
    Rule("sa.outcome", Level.SHOULD, "subagent-stdio",
         "outcome.status agrees with the node status; success agrees with the status and exitCode",
         f"inferred from {_SA}: node.outcome.status repeats the node status enum", basis=_D, breaker="outcome"),
    Rule("sa.unavailable", Level.SHOULD, "subagent-stdio",
         "available false comes with an empty fleet and no runs (none omitted either)",
         f"inferred from {_SA}: snapshot.available", basis=_D, breaker="unavailable"),
)

# The wire's catalog rules, in declaration order (contract.rules.catalog); declare new rules above.
RULES: tuple[Rule, ...] = REGISTRY.rules
