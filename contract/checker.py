"""The pipeline: reader → schema → rule machines → report.

``check`` is the whole of it; the CLI, the live harness and the pytest plugin all call it.
Nothing here raises on bad input: every fault becomes a finding in the report.
"""

from __future__ import annotations

import contextlib
import gc
import io
import itertools
import os
from collections.abc import Iterable, Iterator

from contract import capture_coverage, failsafe, requirements
from contract.catalog import CATALOG
from contract.reader import DEFAULT_MAX_LINE_BYTES, Record, Source, read_records
from contract.report import UNIGNORABLE, Collector, Report
from contract.schema import Engine, SchemaError, engine
from contract.wires import WIRES, detect

AUTO = "auto"


def check(
    data: Source | os.PathLike[str],
    wire: str = "stream-json",
    *,
    strict: bool = False,
    ignore: Iterable[str] = (),
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    source: str = "-",
    jobs: int | None = None,
    coverage: bool = False,
) -> Report:
    """Check a whole stream (bytes, a binary file, a ``pathlib.Path``, or an iterable of byte chunks).

    A ``Path`` (any ``os.PathLike``) is opened and read as a file. A ``str`` is refused with
    a ``TypeError``: it could be a path or the stream's text, and guessing wrong would check
    the wrong bytes; pass ``Path("run.jsonl")`` or ``data.encode()``. A text-mode file is
    refused too (the checker judges bytes: UTF-8 and line endings are part of the contract).
    An unknown rule id in ``ignore`` raises ``ValueError`` naming the known ones.

    ``jobs``: 1 checks in this process; 2 splits the work of a regular file over two
    processes (``contract.parallel``); None (auto) does so for files large enough to gain.
    The report is the same either way.

    ``coverage``: also measure what the capture showed of the wire's surface
    (``report.coverage``, from a bounded sample: ``contract.capture_coverage``).
    """
    if wire != AUTO and wire not in WIRES:
        raise ValueError(f"unknown wire {wire!r}; expected one of {', '.join(WIRES)} or auto")
    ignore = _known_rules(ignore)
    if isinstance(data, os.PathLike):
        path = str(os.fspath(data))
        with open(path, "rb") as handle:
            return check(handle, wire, strict=strict, ignore=ignore, max_line_bytes=max_line_bytes,
                         source=path if source == "-" else source, jobs=jobs, coverage=coverage)
    _refuse_text(data)
    sample = capture_coverage.Sample() if coverage else None
    if jobs != 1:
        from contract import parallel

        if parallel.worth_it(data, jobs, wire):
            with no_cycle_collection():
                report = parallel.check_file(data, wire, strict=strict, ignore=ignore,  # type: ignore[arg-type]
                                             max_line_bytes=max_line_bytes, source=source, sample=sample)
            return _measured(report, sample)
    report = Report(wire=wire, strict=strict, source=source)
    out = Collector(report, ignore)
    # line.ansi is stream-json's rule: every line of a known stream-json stream, no line of a
    # known subagent-stdio one, and by each line's type while the wire is chosen (auto).
    guarded = failsafe.GuardedRecords(read_records(data, out, max_line_bytes, ansi=ansi_for(wire)), out)
    with no_cycle_collection():
        try:
            records: Iterator[Record] = iter(guarded)
            if sample is not None:
                records = sample.records(records)
            if wire == AUTO:
                records, wire = _pick_wire(records, report)
            run_rules(records, wire, out, guarded)
        except Exception as exc:  # the last net: what the guards inside did not catch
            failsafe.internal(out, guarded.last or None, "the checker", exc,
                              "the check stopped there, so the stream cannot be declared conformant")
    return _measured(report, sample)


def _measured(report: Report, sample: capture_coverage.Sample | None) -> Report:
    """The report with its coverage (unless a fallback check already measured it)."""
    if sample is None or report.coverage is not None:
        return report
    wire = report.wire if report.wire in WIRES else "stream-json"
    try:
        report.coverage = capture_coverage.measure(wire, sample)
    except Exception as exc:  # coverage is no verdict, but its failure is said, never hidden
        report.notes.append(f"coverage could not be measured ({failsafe.describe(exc)})")
    return report


def ansi_for(wire: str) -> bool | None:
    """The reader's ``ansi`` setting for ``wire`` (see ``contract.reader.read_records``)."""
    return None if wire == AUTO else wire == "stream-json"


def _known_rules(ignore: Iterable[str]) -> tuple[str, ...]:
    if isinstance(ignore, str):
        raise TypeError(f"ignore must be a collection of rule ids, not the str {ignore!r}: "
                        f"pass [{ignore!r}]")
    rules = tuple(ignore)
    unknown = [rule for rule in rules if rule not in CATALOG]
    if unknown:
        raise ValueError(f"ignore: unknown rule {unknown[0]!r}; known rules: {', '.join(CATALOG)}")
    refused = sorted(UNIGNORABLE.intersection(rules))
    if refused:
        raise ValueError(f"ignore: {refused[0]!r} cannot be ignored: it says the check did not finish")
    return rules


def _refuse_text(data: object) -> None:
    if isinstance(data, str):
        raise TypeError("check() takes bytes, a binary file, a pathlib.Path or byte chunks, not a str "
                        "(a path or the text?): pass pathlib.Path(path) for a file, or text.encode()")
    if isinstance(data, io.TextIOBase):
        raise TypeError("check() needs a binary file: open it with open(path, 'rb'), not in text mode "
                        "(the checker judges the bytes: UTF-8 and line endings are part of the contract)")


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
    machines = failsafe.Machines(WIRES[wire].machines(), out, WIRES[wire].schema_rule)
    feed = machines.feed
    validate = SchemaStep(wire, out)
    last = 0
    for record in records:
        last = record.line
        validate(record)
        feed(record)
    if not guarded.failed:
        machines.finish()
    out.report.lines = max(out.report.lines, last)
    requirements.mark_checked(out.report)


class SchemaStep:
    """The schema check of one record: the fast engine's verdict, the explainer's detail."""

    def __init__(self, wire: str, out: Collector) -> None:
        self._engine = eng = engine(wire)
        self._is_valid = eng.is_valid_fast
        self._out = out
        self._emit = out.emit
        self._rule = WIRES[wire].schema_rule
        self._explain = _Explainer(eng, out.report)

    def __call__(self, record: Record) -> None:
        obj = record.obj
        if obj is None:
            return
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

    def __init__(self, eng: Engine, report: Report) -> None:
        self._engine = eng
        self._report = report
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
                self._report.notes.append(
                    f"schema detail: after {self.DETAILED} distinct failing lines, schema findings "
                    "come from the fast engine (plainer messages)")
            errors = self._engine.explain_fast(obj)
        if len(raw) <= self.MEMO_LINE_BYTES and len(self._memo) < self.MEMO_LINES:
            self._memo[raw] = errors
        return errors


def _pick_wire(records: Iterator[Record], report: Report) -> tuple[Iterator[Record], str]:
    """Look ahead to the first object line, decide the wire, and put the lines back."""
    seen: list[Record] = []
    picked: str | None = None
    for record in records:
        seen.append(record)
        picked = detect(record.obj)
        if picked is not None or len(seen) >= 16:
            break
    if picked is None:
        picked = "stream-json"
        report.notes.append("wire: stream-json (auto: no line looked like either wire; defaulting)")
    else:
        report.notes.append(f"wire: {picked} (auto: from line {seen[-1].line})")
    report.wire = picked
    return itertools.chain(seen, records), picked
