"""The stream-json rules of the catalog, gathered: each declared once, beside its logic.

Each rule is declared in ``registry.REGISTRY`` by the family that holds its logic
(``Registry.family``): its metadata, the seed words it stands on and its breaking strategy (a
function of ``contract.wires.stream_json.kit.broken``). The families: ``ends.RunEnds`` (init and
result), ``seq_stamps.SeqStamps`` (seq, session_id, ts), ``actors.Actors`` (actor and message
forms, capabilities), ``tool_calls.ToolCalls`` (tool_use ids, tool_result, argument fragments);
``machines.StreamRules`` puts them together over one state. This module declares the schema
step's ``sj.schema``, the seed's words on the shared rules (``CITES``), and gathers the families,
so that ``RULES`` (the wire's catalog rules, in ``registry.ORDER``) is whole. A new rule whose
logic needs no other family's state is a ``Check`` family (docs/architecture.md, "Adding a rule").
"""

from __future__ import annotations

from contract.core.rule import SCHEMA_STEP, Level, Rule
from contract.wires.base import Cites
from contract.wires.stream_json.registry import REGISTRY
from contract.wires.stream_json.registry import SJ as _SJ
from contract.wires.stream_json.registry import W as _W

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

# The families holding the other rules, each declared beside its logic: importing them declares them.
from contract.wires.stream_json import actors, deltas, ends, seq_stamps, tool_calls  # noqa: E402, F401

# The wire's catalog rules, in catalog order (registry.ORDER; contract.rules.catalog).
RULES: tuple[Rule, ...] = REGISTRY.rules
