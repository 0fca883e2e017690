"""The stream-json wire, completely: ``STREAM_JSON``, its one descriptor.

The batch output stream of ``milk "prompt" --output-format stream-json``: one run, one stream.
Its rules are declared by the families holding their logic (``rules.py`` gathers them, each with
the seed words it stands on), put together by ``machines.py``; what its goldens must show is
``coverage.py``, its per-run fields ``volatile.py``; this module holds the descriptor. Its
hypothesis strategies (``strategies.py``, ``broken.py``) and future-compatible variants
(``future.py``) load only when asked (``Wire.load_strategies``, ``Wire.load_future``), so
``check`` never imports hypothesis; its reference programs are ``emitter.py``, ``consumer.py``
and ``strict_consumer.py`` (run by the paths ``contract/reference/`` gives them).
"""

from __future__ import annotations

import functools
import json
from typing import Any

from contract.core.jsonline import parse
from contract.core.resources import data_dir
from contract.wires.base import Capabilities, Coverage, Evidence, Hints, Live, Machine, Wire
from contract.wires.stream_json import coverage
from contract.wires.stream_json.machines import StreamRules
from contract.wires.stream_json.rules import CITES, RULES
from contract.wires.stream_json.volatile import VOLATILE

# -- the descriptor ---------------------------------------------------------------------------

@functools.cache
def line_types() -> frozenset[str]:
    """The line types the schema in force lists (its top-level ``oneOf`` consts), read from it."""
    with open(data_dir("schemas") / "stream-json.schema.json", "rb") as handle:
        schema = json.load(handle)
    return frozenset(str(branch.get("properties", {}).get("type", {}).get("const"))
                     for branch in schema.get("oneOf", []) if isinstance(branch, dict))


def _machines() -> list[Machine]:
    return [StreamRules()]


def _detect(obj: dict[str, Any]) -> Evidence:
    # A line type of its own is sure; a bare "seq" only suggests it (other wires may number lines).
    kind = obj.get("type")
    if isinstance(kind, str) and kind in line_types():  # any JSON value may stand there: a list is no key
        return Evidence.TYPE
    return Evidence.MEMBER if "seq" in obj else Evidence.NONE


def _version(data: bytes) -> str | None:
    """The milk_version system/init reports, if any."""
    for body in data.split(b"\n"):
        value, _ = parse(body) if body.strip() else (None, ())
        if isinstance(value, dict) and value.get("subtype") == "init":
            version = value.get("milk_version")
            return version if isinstance(version, str) and version else None
    return None


def _declared(obj: dict[str, Any]) -> frozenset[str] | None:
    """The capabilities a system/init line advertises (properties.capabilities: "open-set strings");
    None for any other first line (sj.init-first's finding: nothing was declared)."""
    if obj.get("type") != "system" or obj.get("subtype") != "init":
        return None
    caps = obj.get("capabilities")
    return frozenset(c for c in caps if type(c) is str) if type(caps) is list else frozenset()


# The rules only a capability's lines exercise: tool_args_delta fragments come in stream_event
# lines, the seed's oneOf[1] "partial deltas (partial_messages_v1)". (tasks_v1 and workflows_v1
# gate no rule of their own: a task line is judged by rules every run is held to.)
CAPABILITIES = Capabilities(
    declared=_declared,
    gates={"partial_messages_v1": frozenset({"sj.tool-args-reassembly", "sj.tool-args-duplicate-key",
                                             "sj.delta-reassembly"})},
)


# The surface's notes on this seed's quirks (contract.evolution.surface.policy): an open set its oneOf
# closes, and a definition nothing references.
SURFACE_POLICY = (
    ("line-kinds", (
        "The stream-json top-level oneOf lists the type consts, and the type description calls "
        "the set open: the checker validates a line of an unlisted type against the schema without "
        "that oneOf (every other keyword still holds). The surface records the listed kinds "
        "(line_kinds) and the documented open set (open_set on the type field) separately. Removing "
        "a kind is breaking for both sides; adding one is additive, because consumers must ignore "
        "unknown types."
    )),
    ("unreferenced-defs", (
        "Definitions that nothing reaches from the root (stream-json $defs/event) validate "
        "nothing, so their content is not part of the surface. They are listed by name under "
        "unreferenced_defs, with whether they still mirror the top-level object, so an edit that "
        "makes them drift is visible in review without counting as a wire change."
    )),
)


STREAM_JSON = Wire(
    name="stream-json",
    schema_file="stream-json.schema.json",
    schema_rule="sj.schema",
    rules=RULES,
    cites=CITES,  # its words on the framing, line.ansi, harness and consumer rules
    machines=_machines,
    detect=_detect,  # its own line types; a bare "seq" is weaker evidence
    volatile=VOLATILE,
    coverage=Coverage(exempt=coverage.EXEMPT, known_sets=coverage.KNOWN_SETS, edges=coverage.EDGES,
                      values=coverage.values, goldens=8),
    live=Live.STREAM,
    reference="contract.reference.stream_json_emitter",
    max_output_bytes=1024**3,  # checked as it streams: memory stays flat however long the run
    batch=True,  # two processes measured faster (BENCHMARKS.md)
    strategies="contract.wires.stream_json.kit.broken",
    version=_version,
    future="contract.wires.stream_json.kit.future",  # what a producer may add: feed --future, the vectors
    ansi=True,  # "never any ANSI escapes", written with no exception (free-form payloads included)
    open_types=True,  # "open set: ignore unknown values", though its oneOf lists the types (contract.checking.schema)
    # judged by the machine's finish on every stream: a stream with no init and no result breaks both
    always_judged=frozenset({"sj.init-first", "sj.result-last"}),
    vital=frozenset({"sj.result-last", "sj.result-once"}),  # the terminal-line rules
    surface_policy=SURFACE_POLICY,
    terminal="result",  # "exactly one terminal result last"
    capabilities=CAPABILITIES,  # init's capabilities: partial_messages_v1 gates the tool-args rules
    hints=Hints(opening="system/init", progress="progress (stream_event) lines"),
    envelope=("session_id", "ts"),  # every line carries the run's (feed --adr copies them to a line it makes)
    counter="seq",  # "monotonic seq per run"
    feeds="contract.wires.stream_json.kit.feeds",  # feed --broken and --transport: cut and padded runs
    reading="contract.wires.stream_json.kit.consumer",  # the reference reading (its reference consumer's)
)
