"""What a wire is to milk-contract: the one complete descriptor, ``Wire``.

Everything that differs between wires is a field here, declared once in the wire's own package
(``contract/wires/<wire>/__init__.py``) and registered in ``contract.wires.WIRES``. The checker,
CLI, scenarios, goldens, coverage, normalize, surface, parallel checker and strategies take a
``Wire`` and read its fields; none of them branches on a wire's name (docs/architecture.md:
"Adding a wire").

A rule machine is a small incremental state machine: ``feed`` sees every record in order
(objects that failed the schema too, with ``record.valid`` False, so a machine must tolerate
any shape), ``finish`` runs once at the end of the stream. Machines write findings to a sink
(``contract.sink.Sink``) and never raise; each declares the rule ids it emits (``rules``), and a
test checks that the union of every emitter's declaration is exactly the catalog.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Any, Protocol, runtime_checkable

from contract.reader import Record
from contract.rules import Rule
from contract.sink import Sink

Line = dict[str, Any]
Edge = Callable[[list[Line]], bool]  # a coverage edge: does this transcript show the shape?
Segment = str | int  # one step of a path into a line: a member name or an array index


class Treatment(Enum):
    """What normalization does with a volatile field (``contract.normalize``)."""

    MAP = "map"  # a placeholder per distinct value, by first appearance
    ERASE = "erase"  # one placeholder for every value
    OFFSET = "offset"  # the value minus the 1-based line number


@dataclass(frozen=True)
class Volatile:
    """One per-run field: where it is, what placeholder it gets, and why it varies.

    ``pattern`` is a JSON pointer pattern where ``*`` is one segment (a member name or array
    index) and ``**`` any number of segments.
    """

    pattern: str
    name: str  # the placeholder's name, and for MAP the namespace of the numbering
    treatment: Treatment
    json_type: str  # "string", "integer" or "number": other values are left alone
    why: str

    @property
    def segments(self) -> tuple[str, ...]:
        return tuple(self.pattern.split("/")[1:])


class Machine(Protocol):
    """A rule machine: fed every record in order, finished once."""

    @property
    def rules(self) -> frozenset[str]:
        """The catalog rule ids this machine can emit (a test checks them against the catalog)."""

    def feed(self, record: Record, out: Sink) -> None: ...

    def finish(self, out: Sink) -> None: ...


@runtime_checkable
class BatchMachine(Machine, Protocol):
    """A machine that can also take a block of schema-valid objects at once (the fast path)."""

    def feed_batch(self, first: int, objs: list[Line], out: Sink) -> None: ...


class Live(StrEnum):
    """How a live run of the wire goes."""

    STREAM = "stream"  # start the emitter, read its stdout to the end, check as it streams
    CONVERSATION = "conversation"  # hold a conversation: write commands, read answers and events


@dataclass(frozen=True)
class Coverage:
    """What the goldens of a wire must show beyond what its schema's keywords say.

    ``exempt``: schema members (location, name) deliberately not required, with the reason;
    ``exempt_enums``: enum locations whose values need not each appear, with the reason;
    ``known_sets``: open sets stated in description prose (group, schema location, which list:
    the n-th "a | b" run, or -1 for a "known: a, b" list); ``edges``: shapes no keyword states,
    each a test over a whole transcript's lines; ``values``: the known-set values one line shows.
    """

    exempt: Mapping[tuple[str, str], str] = field(default_factory=dict)
    exempt_enums: Mapping[str, str] = field(default_factory=dict)
    known_sets: tuple[tuple[str, str, int], ...] = ()
    edges: Mapping[str, Edge] = field(default_factory=dict)
    values: Callable[[str, Line], Iterable[str]] | None = None


@dataclass(frozen=True)
class Strategies:
    """A wire's hypothesis strategies (built by ``Wire.strategies``, so hypothesis loads lazily).

    ``streams()``: conformant transcripts as bytes; ``transcripts``: the line lists they come
    from; ``sacrificial``: a line a framing breaker may spoil; ``breakers``: rule id to a
    function drawing a list of lines that break it; ``also``: rules that necessarily fire with one.
    """

    streams: Callable[[], Any]
    transcripts: Any
    sacrificial: Any
    breakers: Mapping[str, Callable[..., list[Line]]]
    also: Mapping[str, frozenset[str]]


@dataclass(frozen=True)
class Wire:
    """One wire, completely: everything milk-contract needs to check, run, record and generate it."""

    name: str  # the id users type (--wire) and the folder of its goldens
    schema_file: str  # under schemas/: the seed schema, byte-identical, never edited
    schema_rule: str  # the catalog rule a schema failure is reported as
    rules: tuple[Rule, ...]  # the wire's own catalog rules (framing, harness rules are common)
    machines: Callable[[], list[Machine]]  # a fresh set of rule machines per stream
    detect: Callable[[Line], bool]  # does a first line look like this wire?
    detect_rank: int  # --wire auto tries wires by ascending rank (the more specific test first)
    volatile: tuple[Volatile, ...]  # per-run fields, normalized before a golden comparison
    coverage: Coverage
    live: Live
    reference: str  # the bundled reference emitter, a module run with ``python -m``
    max_output_bytes: int  # default --max-output-bytes for a live run
    batch: bool  # two-process checking pays (BENCHMARKS.md); the lone machine takes feed_batch
    # The module whose ``STRATEGIES`` are the wire's hypothesis strategies: a name, imported only
    # by ``load_strategies`` (so hypothesis stays out of ``check``, and no import cycle arises).
    strategies: str
    # Whether line.ansi applies to every line of this wire (its schema says "never any ANSI
    # escapes"); under --wire auto the reader exempts subagent-typed lines by their type.
    ansi: bool = False
    # The order in which to compare a transcript's lines with a golden's, from their parsed
    # values (None for a line that is not an object): what timing decides is not behaviour.
    canonical: Callable[[list[Line | None]], list[int]] | None = None
    # The emitter version a transcript reports about itself, if the wire carries one.
    version: Callable[[bytes], str | None] | None = None

    def load_strategies(self) -> Strategies:
        """The wire's hypothesis strategies (imports hypothesis)."""
        found = importlib.import_module(self.strategies).STRATEGIES
        if not isinstance(found, Strategies):
            raise TypeError(f"{self.strategies}.STRATEGIES is not a Strategies")
        return found
