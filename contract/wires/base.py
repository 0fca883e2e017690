"""What a wire is to milk-contract: the one complete descriptor, ``Wire``.

Everything that differs between wires is a field here, declared once in the wire's own package
(``contract/wires/<wire>/__init__.py``) and registered in ``contract.wires.WIRES``. The checker,
CLI, scenarios, goldens, coverage, normalize, surface, parallel checker and strategies take a
``Wire`` and read its fields; none of them branches on a wire's name (docs/architecture.md:
"Adding a wire").

A rule machine is a small incremental state machine: ``feed`` sees every record in order
(objects that failed the schema too, with ``record.valid`` False, so a machine must tolerate
any shape), ``finish`` runs once at the end of the stream. Machines write findings to a sink
(``contract.core.sink.Sink``) and never raise; each declares the rule ids it emits (``rules``), and a
test checks that the union of every emitter's declaration is exactly the catalog.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum, IntEnum, StrEnum
from pathlib import Path
from typing import Any, Protocol, TypeVar, cast, runtime_checkable

from contract.core.reader import Record
from contract.core.resources import data_dir
from contract.core.rule import Basis, Rule
from contract.core.sink import Sink

Line = dict[str, Any]
_T = TypeVar("_T")
Edge = Callable[[list[Line]], bool]  # a coverage edge: does this transcript show the shape?
Segment = str | int  # one step of a path into a line: a member name or an array index


class Treatment(Enum):
    """What normalization does with a volatile field (``contract.goldens.normalize``)."""

    MAP = "map"  # a placeholder per distinct value, by first appearance
    ERASE = "erase"  # one placeholder for every value
    OFFSET = "offset"  # the value minus the line's number among the JSON object lines


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


@runtime_checkable
class FactMachine(BatchMachine, Protocol):
    """A batch machine whose work on a block splits into the part each line decides alone and the
    part that depends on the run so far, so the first can run in another process.

    ``block_facts(objs)`` (no state: a static method) gives a block's facts as plain data (what
    ``marshal`` carries), or None when the block needs ``feed_batch``; ``feed_facts`` takes the
    facts of the lines ``first``, ``first + 1``, ... with the same findings ``feed`` would give,
    or returns False with nothing done (the caller then calls ``feed_batch``). ``load(offset)``
    gives the object of the block's line at ``offset``, for the rare step that needs it whole.
    """

    @staticmethod
    def block_facts(objs: list[Line]) -> Any | None: ...

    def feed_facts(self, first: int, facts: Any, out: Sink, load: Callable[[int], Line]) -> bool: ...


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
    # How many goldens the wire ships at least: the shipped suite's floor (contract/tests), so a
    # corpus that lost scenarios (a wheel without them, say) fails rather than covers less.
    goldens: int = 0


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
class Cites:
    """What a wire's seed says on the rules every wire shares (framing, line.ansi, the harness and
    consumer rules): the catalog composes those rules' ``source`` from each registered wire's words
    here, in registry order (``contract.rules.catalog``), so no common rule names a wire.

    Each is the wire's clause of that rule's source, or None where its seed has nothing to add.
    """

    framing: str | None = None  # the seed's framing words, or the policy standing in for them
    framing_basis: Basis = Basis.WRITTEN  # how the framing rules stand on this seed
    opaque: str | None = None  # the wire's rules in which a line failing framing keeps its place
    ansi: str | None = None  # why line.ansi applies to the wire (Wire.ansi) or why it does not
    stdout_held: str | None = None  # what the seed's framing makes of a descendant holding stdout
    consumer: str | None = None  # the obligation the seed puts on consumers


@dataclass(frozen=True)
class Allowance:
    """One code of change the ADR gate (``contract.evolution.classify``) calls additive, and how
    ``feed --future`` feeds it on a wire: the future change ``kinds`` that make it on a stream, or none
    (``()``) when it changes no line a producer writes (``why`` says which, and the words it stands on)."""

    kinds: tuple[str, ...]
    why: str


NO_LINE = "changes no line a producer writes"
# The additive codes that change no line on any wire (words, the corpus, the suite's own notes): every
# wire's ``may_change`` table holds them beside its own (``{**NO_LINE_CHANGES, ...}``).
NO_LINE_CHANGES: dict[str, Allowance] = {
    "description-edited": Allowance((), f"words only: {NO_LINE}"),
    "schema-edited": Allowance((), f"the schema's title or description: {NO_LINE}"),
    "unreferenced-edited": Allowance((), f"a $defs entry nothing references: {NO_LINE}"),
    "policy-edited": Allowance((), f"the suite's policy notes: {NO_LINE}"),
    "corpus-size": Allowance((), f"the number of goldens: the corpus, not the wire; {NO_LINE}"),
    "kind-seen": Allowance((), f"goldens now show a line kind the schema had: {NO_LINE} it did not allow"),
    "field-seen": Allowance((), f"goldens now show a member the schema had: {NO_LINE} it did not allow"),
    "rule-cited": Allowance((), f"a rule of the checker now quotes words the schema said: {NO_LINE}"),
    "rule-uncited": Allowance((), f"a rule of the checker no longer quotes words the schema says: {NO_LINE}"),
    "rules-baseline": Allowance((), f"a stored surface recorded its rules section: {NO_LINE}"),
}

# The key of ``Future.may_change`` for change kinds no change of the schema stands for: what the schema
# in force already allows that no golden shows (an event the client did not ask about).
NO_SCHEMA_CHANGE = "(no schema change)"


@dataclass(frozen=True)
class Future:
    """A wire's future-compatible variants: what a conformant producer may send that no golden
    shows, and a consumer must accept (built by the module ``Wire.future`` names, so hypothesis
    loads lazily).

    ``variants``: the wire's own drawing, for the feeder of its live mode (``contract.consumers.feed`` for a
    stream wire, ``contract.consumers.feed_client`` for a conversation); ``vector(name, data)``: a strategy
    drawing ``(changes, stream)`` from the golden ``name`` whose transcript is ``data`` (ValueError
    when the golden has no place for a change); ``obligation``: the seed's words a consumer of the
    variants is held to (``contract.consumers.vectors``); ``kinds``/``of_kind``: one change of each kind.
    """

    variants: Callable[..., Any]
    vector: Callable[[str, bytes], Any]
    obligation: str
    # The vectors draw one change of each kind on its own (``contract.vectors``): ``kinds(data)``
    # names the kinds the golden ``data`` has a place for, ``of_kind(name, data, kind)`` draws
    # ``(changes, stream)`` with one change of that kind (ValueError when it has no place).
    kinds: Callable[[bytes], tuple[str, ...]] | None = None
    of_kind: Callable[[str, bytes, str], Any] | None = None
    # What a producer may change, the wire's one table (``contract/wires/<wire>/changes.py``): each
    # additive change code of the ADR gate -> the change kinds ``variants`` draws for it (tests hold
    # that every additive code is declared and every declared kind drawn: tests/consumers/test_may_change.py).
    may_change: Mapping[str, Allowance] | None = None


class Evidence(IntEnum):
    """How sure a wire is, from a first object line alone, that the line is its own (``Wire.detect``).

    Each wire judges by its own evidence; ``--wire auto`` takes the surest (``contract.wires.detect``),
    so no global order of wires decides, and a wire added later cannot be shadowed by one that
    happens to be tried first.
    """

    NONE = 0  # nothing of this wire's
    MEMBER = 1  # a member this wire's lines carry, but that other wires may carry too (``seq``)
    TYPE = 2  # a line type this wire's schema names: the wire's own word


@dataclass(frozen=True)
class Dialogue:
    """The line types of a conversation wire (``Live.CONVERSATION``) and how to write a command.

    ``command``: the type of the client's lines; ``response``: the type of the host's answer to
    one command (the n-th answers the n-th); ``event``: the type of a line the host pushes
    unasked; ``build``: a command line, with ``id`` when one is given (None: no id member).
    """

    command: str
    response: str
    event: str | None
    build: Callable[[str | None], Line]


@dataclass(frozen=True)
class Capabilities:
    """What a wire's runs declare they can do, and which rules only a declared capability's lines exercise.

    ``declared(obj)``: the capabilities a first object line declares (a frozenset, empty when it
    declares none), or None when that line is not the one that declares them (no init first);
    it must tolerate any shape (hostile input). ``gates``: capability -> the rules that judge
    only what its lines carry: on a run that declared capabilities without it, such a rule is not
    applicable (the emitter did not declare it), never a gap; once declared it is applicable, and
    a suite in which no run exercised any of its rules says so (declared but never shown).
    """

    declared: Callable[[Line], frozenset[str] | None]
    gates: Mapping[str, frozenset[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Hints:
    """The wire's lines as the hints of the generic live rules name them (``contract.live.timeline``):
    ``opening``, the line a run starts with (run.first-line); ``progress``, the line a producer writes
    to show it is alive during long work (run.stall). The defaults name no line type."""

    opening: str = "the first line"
    progress: str = "progress lines"


@dataclass(frozen=True)
class Feeds:
    """What ``feed --broken`` and ``feed --transport`` make of a stream wire's goldens (built by the
    module ``Wire.feeds`` names, in the wire's kit).

    ``--broken`` (``contract.consumers.broken_feed``): ``kinds`` maps each broken kind to (what it is,
    the public thread it comes from, the producer's exit status); ``streams(lines)`` cuts a golden's
    object lines (at least ``min_lines``) into one stream per kind, in ``kinds``' order; ``failed`` is
    the pointer into the terminal line that says the run failed, the member a consumer's report must
    map (``--expect-json``), and ``honest`` the hint of ``consumer.dishonest``. ``--transport``
    (``contract.consumers.transport``): ``padding`` is the member a conformant line may carry
    provider detail in, added to the line ``padded_line`` (0-based) to make long lines. ``golden``:
    the one fed when no ``--scenario`` is given.
    """

    golden: str
    min_lines: int
    kinds: Mapping[str, tuple[str, str, int]]
    streams: Callable[[list[bytes]], dict[str, bytes]]
    failed: str
    honest: str
    padding: str
    padded_line: int


@dataclass(frozen=True)
class Wire:
    """One wire, completely: everything milk-contract needs to check, run, record and generate it."""

    name: str  # the id users type (--wire) and the folder of its goldens
    schema_file: str  # under schemas/: the seed schema, byte-identical, never edited
    schema_rule: str  # the catalog rule a schema failure is reported as
    rules: tuple[Rule, ...]  # the wire's own catalog rules (framing, harness rules are common)
    machines: Callable[[], list[Machine]]  # a fresh set of rule machines per stream
    # How sure this wire is, from its own evidence, that a first object line is one of its own:
    # ``--wire auto`` takes the surest wire (``contract.wires.detect``), never a global rank.
    detect: Callable[[Line], Evidence]
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
    # escapes"). Under --wire auto the wire is decided first and every line judged by its setting.
    ansi: bool = False
    # Whether the line type is an open set by the seed's own words: a line of a type the top-level
    # ``oneOf`` does not list is judged by the schema without that ``oneOf`` (``contract.checking.schema``).
    open_types: bool = False
    # Rules the wire's machines judge on every stream, an empty one included (their finish
    # decides them), so no capture leaves them not exercised (``contract.rules.requirements``).
    always_judged: frozenset[str] = frozenset()
    # Rules whose findings explain a failure wherever they are (the terminal-line ones): kept past
    # the report's general cap like the run, framing and checker rules (``contract.rules.report``).
    vital: frozenset[str] = frozenset()
    # The line type that ends a run (stream-json's result), if the wire has one: a live emitter is
    # held to exit soon after it (run.exit-after-result, ``contract.live.timeline``).
    terminal: str | None = None
    # The member whose value is a line's type, what ``terminal`` is matched against: ``type`` on
    # milk's wires; a wire whose lines are told apart by another member (``kind``) names it here.
    type_member: str = "type"
    # The conversation's line types and command builder (None for a ``Live.STREAM`` wire).
    dialogue: Dialogue | None = None
    # The order in which to compare a transcript's lines with a golden's, from their parsed
    # values (None for a line that is not an object): what timing decides is not behaviour.
    canonical: Callable[[list[Line | None]], list[int]] | None = None
    # The emitter version a transcript reports about itself, if the wire carries one.
    version: Callable[[bytes], str | None] | None = None
    # The surface's policy notes on the wire's seed's own quirks (name, note), printed in its
    # ``policy`` beside the notes on every schema (``contract.evolution.surface.policy``).
    surface_policy: tuple[tuple[str, str], ...] = ()
    # Whether a file of this wire is judged a block at a time (``pipeline.check_blocks``) though its
    # machines take no batch: a block proven clean (``proof.clean_block``) skips the reader and the
    # schema step and its records go to the machines one by one. A ``batch`` wire always is.
    blocks: bool = False
    # What the wire's seed says on the rules every wire shares (the catalog composes their sources).
    cites: Cites = Cites()
    # The folder holding the wire's data, its goldens in ``goldens/<name>/`` (``goldens_dir``): the
    # bundled data (``contract.core.resources.data_dir``) when empty; a wire registered by a test keeps
    # its own beside it (an absolute path).
    data_root: str = ""
    # The module whose ``FUTURE`` is the wire's future-compatible variants (``Future``), if it has
    # any: a name, imported only by ``load_future`` (hypothesis), as ``strategies`` is.
    future: str | None = None
    # What a run declares it can do (its init line's capabilities) and the rules each one gates
    # (``contract.rules.requirements``: not applicable when undeclared), or None when the wire has none.
    capabilities: Capabilities | None = None
    # The wire's lines named in the hints of the generic live rules (run.first-line, run.stall).
    hints: Hints = Hints()
    # The members every line of a run carries with the run's own values (stream-json: session_id,
    # ts): a line made for a run (``feed --adr``'s line of a new kind) takes them from the line before.
    envelope: tuple[str, ...] = ()
    # The member that numbers a run's lines in order (stream-json: seq), if any: renumbered when a
    # line is inserted into a run.
    counter: str | None = None
    # The module whose ``FEEDS`` says how ``feed --broken`` and ``--transport`` make streams of the
    # wire's goldens (``Feeds``), if they can: a name, imported only by ``load_feeds``.
    feeds: str | None = None
    # The module whose ``reading(lines)`` is the wire's one reference reading of a stream (what a
    # correct consumer makes of it: docs/consumers.md, "The reading protocol"), if the wire has one:
    # ``milk-contract feed`` judges a consumer's reading against it (``contract.consumers.reading``).
    reading: str | None = None

    @property
    def schema_path(self) -> Path:
        """The seed schema's file: ``schema_file`` under the bundled ``schemas/`` (an absolute
        ``schema_file`` is taken as it is: a wire registered by a test keeps its schema beside it)."""
        given = Path(self.schema_file)
        return given if given.is_absolute() else data_dir("schemas") / given

    @property
    def goldens_dir(self) -> Path:
        """The wire's goldens: ``goldens/<name>/`` under its ``data_root`` (the bundled ``goldens/``
        by default). Every wire's are found here, by ``contract.goldens.store`` and everything above it."""
        root = Path(self.data_root) / "goldens" if self.data_root else data_dir("goldens")
        return root / self.name

    def load_strategies(self) -> Strategies:
        """The wire's hypothesis strategies (imports hypothesis)."""
        return _loaded(self.strategies, "STRATEGIES", Strategies)

    def load_feeds(self) -> Feeds | None:
        """How ``feed --broken`` and ``--transport`` make the wire's streams, or None when they cannot."""
        if self.feeds is None:
            return None
        return _loaded(self.feeds, "FEEDS", Feeds)

    def load_reading(self) -> Callable[[Iterable[bytes]], dict[str, Any]] | None:
        """The wire's reference reading (``reading``'s ``reading`` function), or None when it has none."""
        if self.reading is None:
            return None
        found = importlib.import_module(self.reading).reading
        if not callable(found):
            raise TypeError(f"{self.reading}.reading is not a function")
        return cast("Callable[[Iterable[bytes]], dict[str, Any]]", found)

    def load_future(self) -> Future | None:
        """The wire's future-compatible variants (imports hypothesis), or None when it has none."""
        if self.future is None:
            return None
        return _loaded(self.future, "FUTURE", Future)


def _loaded(module: str, name: str, kind: type[_T]) -> _T:
    """``module.name``, imported only now (what a ``Wire`` names lazily), checked to be a ``kind``."""
    found = getattr(importlib.import_module(module), name)
    if not isinstance(found, kind):
        raise TypeError(f"{module}.{name} is not a {kind.__name__}")
    return found
