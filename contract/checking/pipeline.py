"""The pipeline's steps: reader → schema → rule machines → report, in one process.

``check_stream`` runs them over one stream; ``contract.checking.checker.check`` (the public entry) adds
argument checks and the choice of two processes (``contract.checking.parallel``), which runs the same
steps split between a worker and the main process. The live harness and the conversation
driver feed records to ``run_rules`` as they arrive. See docs/architecture.md.
"""

from __future__ import annotations

import contextlib
import gc
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from itertools import repeat
from typing import Any, ClassVar, Protocol

import orjson

from contract.checking import capture_coverage, failsafe
from contract.checking.schema import Engine, SchemaError, engine, known_types
from contract.core.jsonline import ANSI_RULES, Spellings, parse, written_exactly
from contract.core.jsonvalue import clip, shown
from contract.core.reader import Block, Piece, Record, Source, as_stream, blocks, frame, may_exponent, read_records
from contract.core.sink import Sink
from contract.rules import requirements
from contract.rules.report import FIRST_PER_RULE, MAX_KEPT_VIOLATIONS, VITAL_PER_RULE, Collector, Report
from contract.wires import DEFAULT, WIRES, Wire, candidates, derived, detect, get, is_auto, resolve


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
    if descriptor is not None and descriptor.batch:
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
# here, as one process does); False, not clean (line by line); True, clean; a tuple, clean, with
# the lone machine's facts of its lines (``FactMachine.block_facts``).
Proof = bool | tuple[Any, ...] | None


class Proofs(Protocol):
    """Another process's proofs of a stream's blocks (``contract.checking.parallel``)."""

    def __call__(self, index: int, block: Block | Piece) -> Proof:
        """What was proven of block ``index`` (None: prove it here)."""

    def lazy(self, index: int) -> bool:
        """Whether block ``index`` is read unsplit (a ``reader.Piece``): it is likely proven elsewhere."""


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
    report = out.report
    judge = Judge(wire, out)
    validate, feed, feed_batch = judge.validate, judge.machines.feed, judge.machines.batch()
    fold = judge.machines.folding() if proofs is not None and feed_batch is not None else None
    add = sample.add if sample is not None else None
    prove = clean_block(wire, max_line_bytes, judge.validate.noted)
    loads = orjson.loads
    pieces = blocks(stream, max_line_bytes, proofs.lazy if fold is not None and proofs is not None else None)
    ansi = wire.ansi
    hint = True  # the first object line is still to be shown to note_other_wire
    number = last = 0
    index = -1
    failed = False
    while True:
        facts: tuple[Any, ...] | None = None
        try:
            block = next(pieces, None)
            if block is None:
                break
            index += 1
            proof = proofs(index, block) if feed_batch is not None and proofs is not None else None
            if fold is not None and type(proof) is tuple and not hint and (sample is None or sample.full):
                values, facts = None, proof
            else:
                if type(block) is Piece:
                    block = block.block()
                if proof is None:  # proven here (the first block of one process: line by line)
                    values = prove(block) if feed_batch is not None and (number or proofs is not None) else None
                elif proof is False:
                    values = None
                else:  # clean, proven elsewhere: its objects, parsed as clean_block parses them
                    values = list(map(loads, block.bodies))
            records = None if values is not None or facts is not None else \
                frame(block, number, out, max_line_bytes, None, ansi=ansi)
        except Exception as exc:  # fail closed: any exception is a finding
            failed = True
            failsafe.internal(out, last + 1, "the line reader", exc, "the lines from here on were not read or checked")
            break
        if facts is not None and fold is not None and feed_batch is not None:
            count = facts[0]  # the block's lines (the proof matched the block's size)
            if sample is not None:
                sample.seen += count  # full: only counted (capture_coverage.Sample.extend)
            whole = _Whole(block)
            if not fold(number + 1, count, facts, whole.line):
                feed_batch(number + 1, whole.objects())
            last = at.last = number + count
            number += count
            continue
        elif values is not None and feed_batch is not None:
            if sample is not None:
                sample.extend(values)
            feed_batch(number + 1, values)
            last = at.last = number + len(values)
            if hint:
                hint = False
                note_other_wire(values[0], number + 1, wire.name, report)
                declare(report, wire, values[0])
        elif records is not None:
            while True:
                try:
                    record = next(records, None)
                except Exception as exc:  # fail closed, as failsafe.GuardedRecords
                    failed = True
                    failsafe.internal(out, last + 1, "the line reader", exc,
                                      "the lines from here on were not read or checked")
                    break
                if record is None:
                    break
                last = at.last = record.line
                if add is not None:
                    add(record.obj)
                validate(record)
                feed(record)
                if hint and record.obj is not None:
                    hint = False
                    note_other_wire(record.obj, record.line, wire.name, report)
                    declare(report, wire, record.obj)
            if failed:
                break
        number += len(block.bodies) or 1
    if not failed:
        judge.machines.finish()
    report.lines = max(report.lines, last)
    requirements.mark_checked(report)


class _Whole:
    """A block folded by its facts, split and parsed only if a step needs a line whole."""

    __slots__ = ("_block", "_bodies")

    def __init__(self, block: Block | Piece) -> None:
        self._block = block
        self._bodies: list[bytes] | None = None

    def bodies(self) -> list[bytes]:
        if self._bodies is None:
            block = self._block
            self._bodies = (block.block() if type(block) is Piece else block).bodies  # type: ignore[union-attr]
        return self._bodies

    def line(self, offset: int) -> Any:
        return orjson.loads(self.bodies()[offset])

    def objects(self) -> list[Any]:
        return list(map(orjson.loads, self.bodies()))


def clean_block(wire: Wire, max_line_bytes: int, noted: Callable[[set[Any]], bool] | None = None,
                exact: bool = True) -> Callable[[Block], list[Any] | None]:
    """A proof that a block has nothing for the reader or the schema step to report.

    It returns the block's objects when every line is an object read as the line path reads it,
    no longer than ``max_line_bytes``, of a type the schema lists (an unlisted one gets a note;
    ``noted(types)``: whether those unlisted types' notes are given already, ``SchemaStep.noted``)
    and valid under the schema, in a block with no CR and no escaped ESC or C1 character; else
    None. A line that is a canonical spelling of what orjson read (``jsonline.Spellings``:
    orjson's own compact text, Go's escapes of it, Python's default ``json.dumps``; no duplicate
    member, every number as written, ``contract.core.jsonline.parse``'s fast path) is read by
    orjson, but for one that may hold an "e+" float (``reader.may_exponent``), whose numbers are
    read as written (``jsonline.written_exactly``). With ``exact``, any other line (another
    spelling of a number, other spaces) is read by the strict parse, as the line path reads it
    (``_exactly``); without (the two-process worker: its main reads a clean block with orjson)
    a block with a line orjson may not read as written is None. Any exception is a None too: the
    block is then judged line by line, where every step is guarded.
    """
    eng = engine(wire.name)
    loads, get_member = orjson.loads, dict.get
    open_types = wire.open_types
    known = known_types(wire.name) if open_types else frozenset()
    spellings = Spellings()

    def prove(block: Block) -> list[Any] | None:
        if block.overlong or block.unterminated or block.may_cr or block.may_esc:
            return None
        bodies = block.bodies
        try:
            values = list(map(loads, bodies))
            if set(map(type, values)) != {dict} or max(map(len, bodies)) > max_line_bytes:
                return None
            unspelt = spellings.unproven(bodies, values)
            exponents = [at for at, body in enumerate(bodies) if may_exponent(body)] if block.may_exp else []
            left = sorted({*unspelt, *exponents}) if exponents else unspelt
            if left and (not exact or not _exactly(bodies, values, unspelt, exponents)):
                return None  # some lines take the strict parse, and one of them has something to say
            unlisted = False
            if open_types:
                kinds = set(map(get_member, values, repeat("type")))
                unlisted = not kinds <= known
                if unlisted and (noted is None or not noted(kinds - known)):
                    return None
            if not valid(values, left, unlisted):
                return None
        except Exception:  # a proof that fails proves nothing: the line-by-line path judges the block
            return None
        return values

    def tolerant(value: Any) -> bool:
        """The schema's verdict as ``SchemaStep`` gives it on a strictly parsed value (a Decimal
        the fast engine cannot take goes to the reference engine)."""
        try:
            return eng.is_valid_fast(value)
        except (ValueError, OverflowError, TypeError):
            return eng.is_valid(value)

    def valid(values: list[Any], strict: list[int], unlisted: bool) -> bool:
        """The engine's verdict on every line, as ``SchemaStep`` gives it: the strictly parsed
        lines (``strict``, maybe holding Decimals) one by one, the rest in one call for the lot
        (with ``unlisted``, those of a type the schema does not list one by one: the lot's call
        takes the closed schema)."""
        if strict and not all(tolerant(values[at]) for at in strict):
            return False
        if strict:
            taken = set(strict)
            values = [value for at, value in enumerate(values) if at not in taken]
        if unlisted:
            unknown = [value for value in values if value.get("type") not in known]
            if not all(map(eng.is_valid_fast, unknown)):
                return False
            values = [value for value in values if value.get("type") in known]
        return eng.all_valid(values)

    return prove


def _exactly(bodies: list[bytes], values: list[Any], unspelt: list[int], exponents: list[int]) -> bool:
    """The values of the lines orjson may not have read as written replaced by the strict
    parse's, as the line path reads them: a line of ``unspelt`` (no canonical spelling of its
    value, ``jsonline.Spellings``) by ``contract.core.jsonline.parse`` (exact numbers, duplicate
    members), any other of ``exponents`` (it may hold an "e+" number: ``reader.may_exponent``)
    by ``jsonline.written_exactly``; False when such a line has a fault or is no object."""
    for index in unspelt:
        value, faults = parse(bodies[index])
        if faults or type(value) is not dict:
            return False
        values[index] = value
    taken = set(unspelt)
    for index in exponents:
        if index not in taken:
            value, faults = written_exactly(bodies[index])
            if faults or type(value) is not dict:
                return False
            values[index] = value
    return True


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

    # each wire's schema rule, and checker.internal for a step that raised (set by _schema_rules)
    rules: ClassVar[frozenset[str]] = frozenset()

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
            if valid:
                record.valid = True
                return
            errors = self._explain(record.raw, obj)
        except Exception as exc:  # fail closed: the line stays invalid, with a finding
            failsafe.internal(self._out, record.line, "the schema step", exc,
                              "this line's schema verdict is unknown and it counts as failing")
            return
        for error in errors:
            self._emit(self._rule, record.line, error.pointer, error.message)


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
def _schema_rules() -> None:
    SchemaStep.rules = frozenset({*(w.schema_rule for w in WIRES.values()), *failsafe.RULES})


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
    own = get(wire).detect(obj)
    others = [w.name for w in candidates(obj) if w.name != wire and w.detect(obj) > own]
    if others:
        # first among the notes: it explains every finding after it (the schema's notes included)
        report.notes.insert(0, f"wire: checked as {wire}, but line {line} looks like {others[0]}: "
                               f"pass --wire {others[0]} (or --wire auto) if that is what it is")


class Deciding:
    """The reader's sink under ``--wire auto``: holds what it is told until the wire is decided.

    The reader judges line.ansi on every line while the wire is unknown (``ansi_for``); once
    ``pick_wire`` decides, each line's held findings are passed on just before its record, with
    line.ansi kept only if the decided wire's ``ansi`` says so, and from then on the same filter
    applies as they come. So a stream under auto gets the very findings, in the very order, that
    it gets under the decided wire's own name (tests/wires/test_wire_registry.py).

    Bounded: one hostile line can hold millions of escapes. Past ``MAX_KEPT_VIOLATIONS`` held
    findings of one rule, the collector would only count the rest (it has kept that many, and
    the rule's first and vital quotas are no larger), so only their number is held, released as
    that many emits of the first one: the same counts, the same kept findings.
    """

    # at least each quota the collector keeps a rule's findings by (report.Collector.emit)
    HELD_PER_RULE = max(MAX_KEPT_VIOLATIONS, FIRST_PER_RULE, VITAL_PER_RULE)

    def __init__(self, out: Sink) -> None:
        self._out = out
        self._held: list[tuple[str, tuple[object, ...]]] | None = []
        self._per_rule: Counter[str] = Counter()
        self._more: dict[str, tuple[int, tuple[object, ...]]] = {}  # rule: (count, first) past the bound
        self._ansi = True

    def emit(self, rule: str, line: int | None, pointer: str | None, message: str,
             hint: str | None = None) -> None:
        if self._held is not None:
            self._per_rule[rule] += 1
            if self._per_rule[rule] <= self.HELD_PER_RULE:
                self._held.append(("emit", (rule, line, pointer, message, hint)))
            else:  # counted only, as the collector will
                count, first = self._more.get(rule, (0, (rule, line, pointer, message, hint)))
                self._more[rule] = (count + 1, first)
        elif self._ansi or rule not in ANSI_RULES:
            self._out.emit(rule, line, pointer, message, hint)

    def note(self, text: str) -> None:
        if self._held is not None:
            self._held.append(("note", (text,)))
        else:
            self._out.note(text)

    def exercised(self, rule: str) -> None:
        if self._held is not None:
            self._held.append(("exercised", (rule,)))
        else:
            self._out.exercised(rule)

    def take(self) -> list[tuple[str, tuple[object, ...]]]:
        """What was held since the last take (the findings of the record just read, and before it)."""
        held, self._held = self._held or [], [] if self._held is not None else None
        held += [("more", (rule, count, first)) for rule, (count, first) in self._more.items()]
        self._more = {}
        return held

    def decide(self, ansi: bool) -> None:
        """The wire is known: from now on pass everything on, line.ansi only if ``ansi``."""
        self._ansi = ansi

    def release(self, held: list[tuple[str, tuple[object, ...]]]) -> None:
        """Pass ``held`` on, judged by the decided wire's setting."""
        for kind, args in held:
            if kind == "emit":
                if self._ansi or args[0] not in ANSI_RULES:
                    self._out.emit(*args)  # type: ignore[arg-type]  # as emit received them
            elif kind == "more":
                rule, count, first = args
                if self._ansi or rule not in ANSI_RULES:
                    for _ in range(count):  # type: ignore[call-overload]  # an int
                        self._out.emit(*first)  # type: ignore[misc]  # as emit received it
            elif kind == "note":
                self._out.note(*args)  # type: ignore[arg-type]
            else:
                self._out.exercised(*args)  # type: ignore[arg-type]

    def open(self) -> None:
        """Stop holding: what comes next is passed on as it comes."""
        self._held = None


def pick_wire(records: Iterator[Record], report: Report,
              deciding: Deciding | None = None) -> tuple[Iterator[Record], str]:
    """Look ahead to the first object line, decide the wire, and put the lines back.

    ``deciding``: the reader's sink, when the reader writes through one (``Deciding``): what it
    held for each line looked at is released, judged by the decided wire, just before that line.
    """
    seen: list[tuple[Record, list[tuple[str, tuple[object, ...]]]]] = []
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


def _replay(seen: list[tuple[Record, list[tuple[str, tuple[object, ...]]]]], records: Iterator[Record],
            deciding: Deciding | None) -> Iterator[Record]:
    for record, held in seen:
        if deciding is not None:
            deciding.release(held)
        yield record
    if deciding is not None:
        deciding.release(deciding.take())  # what the reader said after the last line looked at
        deciding.open()
    yield from records
