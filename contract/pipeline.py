"""The pipeline's steps: reader → schema → rule machines → report, in one process.

``check_stream`` runs them over one stream; ``contract.checker.check`` (the public entry) adds
argument checks and the choice of two processes (``contract.parallel``), which runs the same
steps split between a worker and the main process. The live harness and the conversation
driver feed records to ``run_rules`` as they arrive. See docs/architecture.md.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
from collections.abc import Callable, Iterable, Iterator
from itertools import repeat
from typing import Any, ClassVar

import orjson

from contract import capture_coverage, failsafe, requirements
from contract.jsonvalue import clip
from contract.reader import Block, Record, Source, as_stream, blocks, frame, read_records
from contract.report import Collector, Report
from contract.schema import OPEN_TYPE_WIRES, Engine, SchemaError, engine, known_types
from contract.sink import Sink
from contract.wires import DEFAULT, WIRES, ansi_for, detect, get, is_auto


def check_stream(data: Source, wire: str, *, strict: bool, ignore: Iterable[str], max_line_bytes: int,
                 source: str, sample: capture_coverage.Sample | None = None) -> Report:
    """Check one stream in this process (``wire`` may be auto); every fault becomes a finding.

    ``sample``: where the records are also sampled for capture coverage (``contract.checker``)."""
    report = Report(wire=wire, strict=strict, source=source)
    out = Collector(report, ignore)
    if not is_auto(wire) and get(wire).batch:
        stream = as_stream(data)
        if hasattr(stream, "read1"):  # a file or a buffer: read in blocks (a live pipe: line by line)
            with no_cycle_collection():
                check_blocks(stream, wire, out, max_line_bytes, sample)
            return report
        data = stream
    # line.ansi is stream-json's rule: every line of a known stream-json stream, no line of a
    # known subagent-stdio one, and by each line's type while the wire is chosen (auto).
    guarded = failsafe.GuardedRecords(read_records(data, out, max_line_bytes, ansi=ansi_for(wire)), out)
    with no_cycle_collection():
        try:
            records: Iterator[Record] = iter(guarded)
            if sample is not None:
                records = sample.records(records)
            if is_auto(wire):
                records, wire = pick_wire(records, report)
            else:
                records = wire_hint(records, wire, report)
            run_rules(records, wire, out, guarded)
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


def run_rules(records: Iterable[Record], wire: str, out: Collector,
              guarded: failsafe.GuardedRecords | None = None) -> None:
    """Validate each record against the wire's schema and feed the rule machines.

    Fail closed (``contract.failsafe``): an exception in the reader, the schema step or a
    machine is a ``checker.internal`` finding, never a traceback or a silent pass. After the
    reader failed, the end-of-stream checks do not run (the stream was cut by the checker).
    """
    if guarded is None:
        guarded = failsafe.GuardedRecords(records, out)
        records = guarded
    judge = Judge(wire, out)
    validate, feed = judge.validate, judge.machines.feed  # bound once: the per-line hot path
    last = 0
    for record in records:
        last = record.line
        validate(record)
        feed(record)
    if not guarded.failed:
        judge.machines.finish()
    out.report.lines = max(out.report.lines, last)
    requirements.mark_checked(out.report)


def check_blocks(stream: Any, wire: str, out: Collector, max_line_bytes: int,
                 sample: capture_coverage.Sample | None = None) -> None:
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
    """
    at = _Progress()
    try:
        _judge_blocks(stream, wire, out, max_line_bytes, sample, at)
    except Exception as exc:  # the last net: what the guards inside did not catch
        failsafe.internal(out, at.last or None, "the checker", exc,
                          "the check stopped there, so the stream cannot be declared conformant")


class _Progress:
    """The last line ``_judge_blocks`` took (what its last net reports)."""

    __slots__ = ("last",)

    def __init__(self) -> None:
        self.last = 0


def _judge_blocks(stream: Any, wire: str, out: Collector, max_line_bytes: int,
                  sample: capture_coverage.Sample | None, at: _Progress) -> None:
    report = out.report
    judge = Judge(wire, out)
    validate, feed, feed_batch = judge.validate, judge.machines.feed, judge.machines.batch()
    add = sample.add if sample is not None else None
    prove = clean_block(wire, max_line_bytes)
    pieces = blocks(stream, max_line_bytes)
    ansi = get(wire).ansi
    hint = True  # the first object line is still to be shown to note_other_wire
    number = last = 0
    failed = False
    while True:
        try:
            block = next(pieces, None)
            if block is None:
                break
            values = prove(block) if feed_batch is not None and number else None
            records = None if values is not None else frame(block, number, out, max_line_bytes, None, ansi=ansi)
        except Exception as exc:  # fail closed: any exception is a finding
            failed = True
            failsafe.internal(out, last + 1, "the line reader", exc, "the lines from here on were not read or checked")
            break
        if values is not None and feed_batch is not None:
            if sample is not None:
                sample.extend(values)
            feed_batch(number + 1, values)
            last = at.last = number + len(values)
            if hint:
                hint = False
                note_other_wire(values[0], number + 1, wire, report)
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
                    note_other_wire(record.obj, record.line, wire, report)
            if failed:
                break
        number += len(block.bodies) or 1
    if not failed:
        judge.machines.finish()
    report.lines = max(report.lines, last)
    requirements.mark_checked(report)


def clean_block(wire: str, max_line_bytes: int) -> Callable[[Block], list[Any] | None]:
    """A proof that a block has nothing for the reader or the schema step to report.

    It returns the block's objects when every line is compact canonical JSON (what
    ``orjson.dumps`` writes back byte for byte: no duplicate member, every number exact, as
    ``contract.jsonline.parse``'s fast path), an object, no longer than ``max_line_bytes``, of a
    type the schema lists (an unlisted one gets a note) and valid under the schema, in a block
    with no CR, no escaped control or C1 character and no "e+" float; else None. Any exception
    is a None too: the block is then judged line by line, where every step is guarded.
    """
    from contract.schema import OPEN_TYPE_WIRES, engine, known_types

    eng = engine(wire)
    loads, dumps, get_member = orjson.loads, orjson.dumps, dict.get
    known = known_types(wire) if wire in OPEN_TYPE_WIRES else None

    def prove(block: Block) -> list[Any] | None:
        if block.overlong or block.unterminated or block.may_cr or block.may_esc or block.may_exp:
            return None
        bodies = block.bodies
        try:
            values = list(map(loads, bodies))
            if (list(map(dumps, values)) != bodies or set(map(type, values)) != {dict}
                    or max(map(len, bodies)) > max_line_bytes):
                return None
            if known is not None and not set(map(get_member, values, repeat("type"))) <= known:
                return None
            # looked up per block, as SchemaStep does per stream: the engine's own verdict
            if not all(map(eng.is_valid_fast, values)):
                return None
        except Exception:  # a proof that fails proves nothing: the line-by-line path judges the block
            return None
        return values

    return prove


class Judge:
    """How each record of one stream is judged: the schema step, then the wire's rule machines.

    ``run_rules`` judges a whole stream with it; the live driver's early stop judges a
    conversation line by line with it, so both are one judgement by construction.
    """

    def __init__(self, wire: str, out: Collector) -> None:
        self.machines = failsafe.Machines(get(wire).machines(), out, get(wire).schema_rule)
        self.validate = SchemaStep(wire, out)

    def feed(self, record: Record) -> None:
        self.validate(record)
        self.machines.feed(record)


class SchemaStep:
    """The schema check of one record: the fast engine's verdict, the explainer's detail."""

    # each wire's schema rule, and checker.internal for a step that raised
    rules: ClassVar[frozenset[str]] = frozenset({*(w.schema_rule for w in WIRES.values()), *failsafe.RULES})

    def __init__(self, wire: str, out: Sink) -> None:
        self._engine = eng = engine(wire)
        self._is_valid = eng.is_valid_fast
        self._out = out
        self._emit = out.emit
        self._rule = get(wire).schema_rule
        self._explain = _Explainer(eng, out)
        # Open line types (contract.schema): a line of a type the schema does not list is judged
        # by the common envelope only, and the report says so, once per type (a bounded few).
        self._open_types = wire in OPEN_TYPE_WIRES
        self._known = known_types(wire)
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
            f"{self._rule}: line {line} has type {clip(kind, 60)!r}, which the schema does not list ({listed}): "
            "judged by the common envelope only, the schema without its top-level oneOf (open set: the seed "
            "says 'open set: ignore unknown values' and 'open-set enums everywhere')")


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


def note_other_wire(obj: dict[str, object], line: int, wire: str, report: Report) -> None:
    """The note of :func:`wire_hint` for the first object line ``obj``, if it fits another wire.

    (The two-process checker calls it too, so both paths give the same report.)
    """
    if get(wire).detect(obj):
        return
    others = [w.name for w in sorted(WIRES.values(), key=lambda w: w.detect_rank)
              if w.name != wire and w.detect(obj)]
    if others:
        # first among the notes: it explains every finding after it (the schema's notes included)
        report.notes.insert(0, f"wire: checked as {wire}, but line {line} looks like {others[0]}: "
                               f"pass --wire {others[0]} (or --wire auto) if that is what it is")


def pick_wire(records: Iterator[Record], report: Report) -> tuple[Iterator[Record], str]:
    """Look ahead to the first object line, decide the wire, and put the lines back."""
    seen: list[Record] = []
    picked: str | None = None
    for record in records:
        seen.append(record)
        picked = detect(record.obj)
        if picked is not None or len(seen) >= 16:
            break
    if picked is None:
        picked = DEFAULT.name
        report.notes.append(f"wire: {picked} (auto: no line looked like either wire; defaulting)")
    else:
        report.notes.append(f"wire: {picked} (auto: from line {seen[-1].line})")
    report.wire = picked
    return itertools.chain(seen, records), picked
