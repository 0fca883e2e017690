"""The pipeline's steps: reader → schema → rule machines → report, in one process.

``check_stream`` runs them over one stream; ``contract.checking.checker.check`` (the public entry) adds
argument checks and the choice of two processes (``contract.checking.parallel``), which runs the same
steps split between a worker and the main process. The live harness and the conversation
driver feed records to ``run_rules`` as they arrive. See docs/architecture.md.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import Any, Literal, Protocol

import orjson

from contract.checking import capture_coverage, failsafe
from contract.checking.deciding import Deciding, Held
from contract.checking.proof import clean_block
from contract.checking.schema import Engine, SchemaError, engine, known_types
from contract.core.jsonvalue import clip, shown
from contract.core.reader import Block, Piece, Record, Source, as_stream, blocks, frame, read_records
from contract.core.sink import Sink
from contract.rules import requirements
from contract.rules.report import Collector, Report
from contract.wires import (
    DEFAULT,
    WIRES,
    Wire,
    WireRegistry,
    candidates,
    derived,
    detect,
    evidence,
    get,
    is_auto,
    resolve,
)


def check_stream(data: Source, wire: Wire | str, *, strict: bool, ignore: Iterable[str], max_line_bytes: int,
                 source: str, sample: capture_coverage.Sample | None = None) -> Report:
    """Check one stream in this process (``wire``: a descriptor, a name, or auto); every fault becomes a finding.

    The name is resolved to the descriptor here, once (after the look ahead under auto), and the
    descriptor is what the steps below are given.

    ``sample``: where the records are also sampled for capture coverage (``contract.checking.checker``)."""
    name = wire if isinstance(wire, str) else wire.name
    descriptor = None if is_auto(name) else resolve(wire)
    report = Report(wire=name, strict=strict, source=source)
    out = Collector(report, ignore)
    if descriptor is not None and (descriptor.batch or descriptor.blocks):
        stream = as_stream(data)
        if hasattr(stream, "read1"):  # a file or a buffer: read in blocks (a live pipe: line by line)
            with no_cycle_collection():
                check_blocks(stream, descriptor, out, max_line_bytes, sample)
            return report
        data = stream
    # line.ansi applies as the wire's descriptor says; under auto the reader's findings are held
    # until the wire is decided, then judged by that wire's setting (Deciding, pick_wire).
    deciding = Deciding(out) if descriptor is None else None
    guarded = failsafe.GuardedRecords(read_records(data, out if deciding is None else deciding, max_line_bytes,
                                                   ansi=True if descriptor is None else descriptor.ansi), out)
    with no_cycle_collection():
        try:
            records: Iterator[Record] = iter(guarded)
            if sample is not None:
                records = sample.records(records)
            if descriptor is None:
                records, name = pick_wire(records, report, deciding)
                descriptor = get(name)
            else:
                records = wire_hint(records, name, report)
            run_rules(records, descriptor, out, guarded)
        except Exception as exc:  # the last net: what the guards inside did not catch
            failsafe.internal(out, guarded.last or None, "the checker", exc,
                              "the check stopped there, so the stream cannot be declared conformant")
    return report


def measured(report: Report, sample: capture_coverage.Sample | None) -> Report:
    """The report with its coverage (unless a fallback check already measured it)."""
    if sample is None or report.coverage is not None:
        return report
    wire = report.wire if report.wire in WIRES else DEFAULT.name
    try:
        report.coverage = capture_coverage.measure(wire, sample)
    except Exception as exc:  # coverage is no verdict, but its failure is said, never hidden
        report.notes.append(f"coverage could not be measured ({failsafe.describe(exc)})")
    return report


@contextlib.contextmanager
def no_cycle_collection() -> Iterator[None]:
    """Pause Python's cycle collector while checking.

    Parsed JSON holds no reference cycles and is freed by reference counting as each line is
    done; the collector would only rescan the rule machines' state every few hundred lines,
    which measured a third of the checking time. It is restored afterwards.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def run_rules(records: Iterable[Record], wire: Wire | str, out: Collector,
              guarded: failsafe.GuardedRecords | None = None) -> None:
    """Validate each record against the wire's schema and feed the rule machines.

    Fail closed (``contract.checking.failsafe``): an exception in the reader, the schema step or a
    machine is a ``checker.internal`` finding, never a traceback or a silent pass. After the
    reader failed, the end-of-stream checks do not run (the stream was cut by the checker).
    """
    if guarded is None:
        guarded = failsafe.GuardedRecords(records, out)
        records = guarded
    judge = Judge(wire, out)
    validate, feed = judge.validate, judge.machines.feed  # bound once: the per-line hot path
    last = 0
    for record in declaring(records, resolve(wire), out.report):
        last = record.line
        validate(record)
        feed(record)
    if not guarded.failed:
        judge.machines.finish()
    out.report.lines = max(out.report.lines, last)
    requirements.mark_checked(out.report)


# What a block's prover elsewhere (contract.checking.parallel's worker) says of it: None, nothing (judge it
# here, as one process does: prove it, and judge it line by line if that fails); True, clean; a
# tuple, clean, with the lone machine's facts of its lines (``FactMachine.block_facts``). A block
# the prover elsewhere could not prove is None, not a verdict: that prover reads only what orjson
# reads as written, so a block with an "e+" float or another spelling of a number is proven here
# (line by line it cost a two-process check half as much again on such streams: BENCHMARKS.md).
Proof = Literal[True] | tuple[Any, ...] | None


class Proofs(Protocol):
    """Another process's proofs of a stream's blocks (``contract.checking.parallel``)."""

    def __call__(self, index: int, block: Block | Piece) -> Proof:
        """What was proven of block ``index`` (None: prove it here)."""

    def lazy(self, index: int) -> bool:
        """Whether block ``index`` is read unsplit (a ``reader.Piece``): it is likely proven elsewhere."""

    def noting(self, noted: Callable[[set[Any]], bool]) -> None:
        """Told whether the notes of line types the schema does not list are given (``SchemaStep.noted``)."""


def check_blocks(stream: Any, wire: Wire | str, out: Collector, max_line_bytes: int,
                 sample: capture_coverage.Sample | None = None, proofs: Proofs | None = None) -> None:
    """``run_rules`` over a buffered stream of a ``Wire.batch`` wire, a block at a time: the same
    findings, in the same order, for a fraction of the work per line.

    A block of clean lines (``clean_block``: the strict parse's fast path holds for each, each an
    object of a type the schema lists and valid under it) has nothing for the reader or the
    schema step to report, so it is proven with a few C-level passes and handed whole to the
    lone rule machine's ``feed_batch``. Any other block is judged line by line as ``run_rules``
    does, as is the first block (a run's start is never in step for a batch machine, and a
    fault there names its line). Fail closed as ``run_rules``: the reader raising ends the
    stream with ``checker.internal`` and no end-of-stream checks; the machines are guarded by
    ``failsafe.Machines``; a proof that raised only sends its block down the line-by-line path.

    ``proofs(index, block)``: what another process proved of the block (``Proof``; the two-process
    checker, ``contract.checking.parallel``): a clean block with facts is then fed by them alone
    (``failsafe.Machines.folding``), without parsing it here; None has the block proven here
    (the first block too: a batch machine feeds a batch it is not in step with line by line, so
    the report is the same; proven, the first block's lines are parsed here, once).
    """
    at = _Progress()
    try:
        _judge_blocks(stream, resolve(wire), out, max_line_bytes, sample, at, proofs)
    except Exception as exc:  # the last net: what the guards inside did not catch
        failsafe.internal(out, at.last or None, "the checker", exc,
                          "the check stopped there, so the stream cannot be declared conformant")


class _Progress:
    """The last line ``_judge_blocks`` took (what its last net reports)."""

    __slots__ = ("last",)

    def __init__(self) -> None:
        self.last = 0


def _judge_blocks(stream: Any, wire: Wire, out: Collector, max_line_bytes: int,
                  sample: capture_coverage.Sample | None, at: _Progress, proofs: Proofs | None = None) -> None:
    walk = _Walk(stream, wire, out, max_line_bytes, sample, at, proofs)
    while walk.step():
        pass
    if not walk.failed:
        walk.judge.machines.finish()
    out.report.lines = max(out.report.lines, walk.last)
    requirements.mark_checked(out.report)


class _Walk:
    """``_judge_blocks`` over one stream, a block a step: each block is read and proven
    (``_read``), then folded by another process's facts (``_fold``), fed whole as proven here
    (``_batch``), or judged line by line (``_lines``)."""

    def __init__(self, stream: Any, wire: Wire, out: Collector, max_line_bytes: int,
                 sample: capture_coverage.Sample | None, at: _Progress, proofs: Proofs | None) -> None:
        self.wire, self.out, self.report, self.max_line_bytes = wire, out, out.report, max_line_bytes
        self.sample, self.at, self.proofs = sample, at, proofs
        self.judge = judge = Judge(wire, out)
        self.feed_batch = judge.machines.batch()
        # Wire.blocks: a clean block's records go to the machines one by one (no lone batch machine)
        self.each = judge.machines.feed if self.feed_batch is None and wire.blocks else None
        self.fold = judge.machines.folding() if proofs is not None and self.feed_batch is not None else None
        self.prove = clean_block(wire, max_line_bytes, judge.validate.noted)
        if proofs is not None:
            proofs.noting(judge.validate.noted)
        self.pieces = blocks(stream, max_line_bytes, proofs.lazy if self.fold is not None and proofs is not None
                             else None)
        self.hint = True  # the first object line is still to be shown to note_other_wire
        self.number = self.last = 0
        self.index = -1
        self.failed = False

    def step(self) -> bool:
        """Judge the next block; False at the stream's end or once the reader failed."""
        read = self._read()
        if read is None:
            return False
        block, values, facts = read
        fold, feed_batch = self.fold, self.feed_batch
        if facts is not None and fold is not None and feed_batch is not None:
            self._fold(block, facts, fold, feed_batch)
            return True
        if values is not None and feed_batch is not None:
            self._batch(values, feed_batch)
        elif values is not None and self.each is not None:
            self._records(block, values, self.each)
        elif not self._lines(frame(block, self.number, self.out, self.max_line_bytes, None, ansi=self.wire.ansi)):
            return False
        self.number += len(block.bodies) or 1
        return True

    def _read(self) -> tuple[Any, list[Any] | None, tuple[Any, ...] | None] | None:
        """The next block, its objects if it is proven clean (here, or elsewhere and parsed here)
        and the facts another process sent for it; None at the end, or when the reader failed
        (fail closed: any exception is a finding)."""
        try:
            block = next(self.pieces, None)
            if block is None:
                return None
            self.index += 1
            feed_batch, proofs, sample = self.feed_batch, self.proofs, self.sample
            proof = proofs(self.index, block) if feed_batch is not None and proofs is not None else None
            if self.fold is not None and type(proof) is tuple and not self.hint and (sample is None or sample.full):
                return block, None, proof
            if type(block) is Piece:
                block = block.block()
            if proof is None:  # proven here (the first block of one process: line by line)
                proven = (feed_batch is not None or self.each is not None) and (self.number or proofs is not None)
                return block, self.prove(block) if proven else None, None
            return block, list(map(orjson.loads, block.bodies)), None  # clean, proven elsewhere: parsed as proven
        except Exception as exc:
            self._lost(exc)
            return None

    def _lost(self, exc: Exception) -> None:
        self.failed = True
        failsafe.internal(self.out, self.last + 1, "the line reader", exc,
                          "the lines from here on were not read or checked")

    def _fold(self, block: Block | Piece, facts: tuple[Any, ...], fold: Any, feed_batch: Any) -> None:
        """A block another process proved, fed by its facts (parsed here only if a step needs it)."""
        count = facts[0]  # the block's lines (the proof matched the block's size)
        if self.sample is not None:
            self.sample.seen += count  # full: only counted (capture_coverage.Sample.extend)
        whole = _Whole(block)
        if not fold(self.number + 1, count, facts, whole.line):
            feed_batch(self.number + 1, whole.objects())
        self.last = self.at.last = self.number + count
        self.number += count

    def _batch(self, values: list[Any], feed_batch: Any) -> None:
        """A block proven clean, fed whole to the lone machine."""
        number = self.number
        if self.sample is not None:
            self.sample.extend(values)
        feed_batch(number + 1, values)
        self.last = self.at.last = number + len(values)
        if self.hint:
            self._first(values[0], number + 1)

    def _records(self, block: Block, values: list[Any], feed: Callable[[Record], None]) -> None:
        """A block proven clean, its records fed to the machines one by one: what the line path
        would feed them (``clean_block``: every line an object read as the reader reads it, with no
        repeated member and nothing to report, and valid under the schema)."""
        number = self.number
        if self.sample is not None:
            self.sample.extend(values)
        at = self.at
        for offset, (raw, obj) in enumerate(zip(block.bodies, values, strict=True)):
            self.last = at.last = number + offset + 1
            feed(Record(number + offset + 1, raw, obj, True))
        if self.hint:
            self._first(values[0], number + 1)

    def _first(self, obj: dict[str, Any], line: int) -> None:
        self.hint = False
        note_other_wire(obj, line, self.wire.name, self.report)
        declare(self.report, self.wire, obj)

    def _lines(self, records: Iterator[Record]) -> bool:
        """A block judged line by line, as ``run_rules`` judges; False when the reader failed."""
        validate, feed, at = self.judge.validate, self.judge.machines.feed, self.at
        add = self.sample.add if self.sample is not None else None
        while True:
            try:
                record = next(records, None)
            except Exception as exc:  # fail closed, as failsafe.GuardedRecords
                self._lost(exc)
                return False
            if record is None:
                return True
            self.last = at.last = record.line
            if add is not None:
                add(record.obj)
            validate(record)
            feed(record)
            if self.hint and record.obj is not None:
                self._first(record.obj, record.line)


class _Whole:
    """A block folded by its facts, split and parsed only if a step needs a line whole."""

    __slots__ = ("_block", "_bodies")

    def __init__(self, block: Block | Piece) -> None:
        self._block = block
        self._bodies: list[bytes] | None = None

    def bodies(self) -> list[bytes]:
        if self._bodies is None:
            block = self._block
            self._bodies = (block.block() if isinstance(block, Piece) else block).bodies
        return self._bodies

    def line(self, offset: int) -> Any:
        return orjson.loads(self.bodies()[offset])

    def objects(self) -> list[Any]:
        return list(map(orjson.loads, self.bodies()))


class Judge:
    """How each record of one stream is judged: the schema step, then the wire's rule machines.

    ``run_rules`` judges a whole stream with it; the live driver's early stop judges a
    conversation line by line with it, so both are one judgement by construction.
    """

    def __init__(self, wire: Wire | str, out: Collector) -> None:
        wire = resolve(wire)
        self.machines = failsafe.Machines(wire.machines(), out, wire.schema_rule)
        self.validate = SchemaStep(wire, out)

    def feed(self, record: Record) -> None:
        self.validate(record)
        self.machines.feed(record)


class SchemaStep:
    """The schema check of one record: the fast engine's verdict, the explainer's detail."""

    def __init__(self, wire: Wire | str, out: Sink) -> None:
        wire = resolve(wire)
        self._engine = eng = engine(wire.name)
        self._is_valid = eng.is_valid_fast
        self._out = out
        self._emit = out.emit
        self._rule = wire.schema_rule
        self._explain = _Explainer(eng, out)
        # Open line types (contract.checking.schema): a line of a type the schema does not list is judged
        # by the common envelope only, and the report says so, once per type (a bounded few).
        self._open_types = wire.open_types
        self._known = known_types(wire.name)
        self._unknown: dict[str, int] = {}

    def __call__(self, record: Record) -> None:
        obj = record.obj
        if obj is None:
            if record.readings:
                self._opaque(record)
            return
        if self._open_types:
            kind = obj.get("type")
            if type(kind) is str and kind not in self._known:
                self._note_unknown(kind, record.line)
        try:
            try:
                valid = self._is_valid(obj)
            except (ValueError, OverflowError, TypeError):  # e.g. integers the Rust engine cannot hold
                valid = self._engine.is_valid(obj)
            other = record.other  # a repeated member's first-wins reading, where it differs
            if valid and other is not None:
                if self._engine.is_valid(other):
                    record.valid = True
                    return
                errors = [replace(error, message=f"{error.message} (in the reading that keeps a repeated "
                                                 "member's first value)") for error in self._explain(record.raw, other)]
            elif valid:
                record.valid = True
                return
            else:
                errors = self._explain(record.raw, obj)
        except Exception as exc:  # fail closed: the line stays invalid, with a finding
            failsafe.internal(self._out, record.line, "the schema step", exc,
                              "this line's schema verdict is unknown and it counts as failing")
            return
        for error in errors:
            self._emit(self._rule, record.line, error.pointer, error.message)


    def _opaque(self, record: Record) -> None:
        """An opaque object line's readings (``reader._readings``): the first that breaks the
        schema is reported, worded by how it was read; the line stays opaque to the machines."""
        try:
            failing = next(((how, reading) for how, reading in record.readings
                            if not self._engine.is_valid(reading)), None)
            if failing is None:
                return
            how, errors = failing[0], self._explain(record.raw, failing[1])
        except Exception as exc:  # fail closed, as for any line
            failsafe.internal(self._out, record.line, "the schema step", exc,
                              "this line's schema verdict is unknown and it counts as failing")
            return
        for error in errors:
            self._emit(self._rule, record.line, error.pointer, f"{error.message} ({how})")

    MAX_UNKNOWN_NOTES = 8  # distinct unknown types named in notes; one more note says there were more

    def noted(self, kinds: set[Any]) -> bool:
        """Whether lines of these unlisted types have nothing more to note: each named in a note
        already, or the notes at their end (``clean_block`` then proves their block)."""
        return len(self._unknown) > self.MAX_UNKNOWN_NOTES or kinds <= self._unknown.keys()

    def _note_unknown(self, kind: str, line: int) -> None:
        if kind in self._unknown or len(self._unknown) > self.MAX_UNKNOWN_NOTES:
            return
        self._unknown[kind] = line
        if len(self._unknown) > self.MAX_UNKNOWN_NOTES:
            self._out.note(f"{self._rule}: more line types the schema does not list from line {line} on, "
                           f"judged the same way (the first {self.MAX_UNKNOWN_NOTES} are named above)")
            return
        listed = " | ".join(sorted(self._known))
        self._out.note(
            f"{self._rule}: line {line} has type {shown(clip(kind, 60))}, which the schema does not list ({listed}): "
            "judged by the common envelope only, the schema without its top-level oneOf (open set: the seed "
            "says 'open set: ignore unknown values' and 'open-set enums everywhere')")


@derived
def schema_rules(registry: WireRegistry) -> frozenset[str]:
    """What a ``SchemaStep`` emits: each wire's schema rule, and checker.internal for a step that raised."""
    return frozenset({*(w.schema_rule for w in registry), *failsafe.RULES})


class _Explainer:
    """Schema errors for failing lines, in bounded time however many lines fail.

    The reference engine explains best but costs about half a millisecond a line: a hostile
    stream of hundreds of thousands of failing lines would take minutes. So identical lines
    (``{}`` repeated) are explained once, and after ``DETAILED`` distinct failing lines the
    rest are explained by the fast engine, with a note saying so.
    """

    DETAILED = 1000  # about half a second of the reference engine
    MEMO_LINES = 4096
    MEMO_LINE_BYTES = 4096

    def __init__(self, eng: Engine, out: Sink) -> None:
        self._engine = eng
        self._out = out
        self._memo: dict[bytes, list[SchemaError]] = {}
        self._explained = 0

    def __call__(self, raw: bytes, obj: object) -> list[SchemaError]:
        errors = self._memo.get(raw)
        if errors is not None:
            return errors
        self._explained += 1
        if self._explained <= self.DETAILED:
            errors = self._engine.explain(obj)
        else:
            if self._explained == self.DETAILED + 1:
                self._out.note(
                    f"schema detail: after {self.DETAILED} distinct failing lines, schema findings "
                    "come from the fast engine (plainer messages)")
            errors = self._engine.explain_fast(obj)
        if len(raw) <= self.MEMO_LINE_BYTES and len(self._memo) < self.MEMO_LINES:
            self._memo[raw] = errors
        return errors


def wire_hint(records: Iterator[Record], wire: str, report: Report) -> Iterator[Record]:
    """The records unchanged; and a note when the first object line fits another registered wire
    rather than ``wire`` (each descriptor's ``detect`` decides), naming ``--wire`` for it.

    A hint, never a verdict: the stream is judged as ``wire`` whatever the note says.
    """
    for record in records:
        yield record
        if record.obj is not None:
            note_other_wire(record.obj, record.line, wire, report)
            break
    yield from records


def declaring(records: Iterable[Record], wire: Wire, report: Report) -> Iterator[Record]:
    """The records unchanged; the first object line's declared capabilities go to ``report``."""
    it = iter(records)
    if wire.capabilities is None:
        yield from it
        return
    for record in it:
        yield record
        if record.obj is not None:
            declare(report, wire, record.obj)
            break
    yield from it


def declare(report: Report, wire: Wire, obj: dict[str, Any]) -> None:
    """What the first object line ``obj`` declares it can do (``Wire.capabilities``), into the report.

    Hostile input: a declaration that cannot be read declares nothing, and the report says so
    (the gated rules then stay applicable: a gap is never hidden by a fault)."""
    caps = wire.capabilities
    if caps is None:
        return
    try:
        report.declared = caps.declared(obj)
    except Exception as exc:
        report.notes.append(f"capabilities: the first line's declaration could not be read ({failsafe.describe(exc)})")


def note_other_wire(obj: dict[str, object], line: int, wire: str, report: Report) -> None:
    """The note of :func:`wire_hint` for the first object line ``obj``, if another wire is surer of it.

    (The two-process checker calls it too, so both paths give the same report.)
    """
    own = evidence(get(wire), obj)
    others = [w.name for w in candidates(obj) if w.name != wire and evidence(w, obj) > own]
    if others:
        # first among the notes: it explains every finding after it (the schema's notes included)
        report.notes.insert(0, f"wire: checked as {wire}, but line {line} looks like {others[0]}: "
                               f"pass --wire {others[0]} (or --wire auto) if that is what it is")


def pick_wire(records: Iterator[Record], report: Report,
              deciding: Deciding | None = None) -> tuple[Iterator[Record], str]:
    """Look ahead to the first object line, decide the wire, and put the lines back.

    ``deciding``: the reader's sink, when the reader writes through one (``Deciding``): what it
    held for each line looked at is released, judged by the decided wire, just before that line.
    """
    seen: list[tuple[Record, list[Held]]] = []
    picked = None
    for record in records:
        seen.append((record, deciding.take() if deciding is not None else []))
        picked = detect(record.obj)
        if picked is not None or len(seen) >= 16:
            break
    if picked is None:
        picked = DEFAULT
        report.notes.append(f"wire: {picked.name} (auto: no line looked like either wire; defaulting)")
    else:
        report.notes.append(f"wire: {picked.name} (auto: from line {seen[-1][0].line})")
    report.wire = picked.name
    if deciding is not None:
        deciding.decide(picked.ansi)
    return _replay(seen, records, deciding), picked.name


def _replay(seen: list[tuple[Record, list[Held]]], records: Iterator[Record],
            deciding: Deciding | None) -> Iterator[Record]:
    for record, held in seen:
        if deciding is not None:
            deciding.release(held)
        yield record
    if deciding is not None:
        deciding.release(deciding.take())  # what the reader said after the last line looked at
        deciding.open()
    yield from records
