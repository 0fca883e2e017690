"""Checking a large regular file on two cores, with the very report one process would give.

Checking a line costs a strict parse (orjson, then a re-serialisation that proves there were
no duplicate members and that every number survived), a schema check and the rule machines.
One core cannot do all of that as fast as ``json.loads`` alone reads the file, so the work is
split (BENCHMARKS.md has the numbers):

* a forked **worker** reads the file itself and does the line-level work: framing, the strict
  parse, duplicate keys, decoded ESC, the schema. It sends its findings, and the numbers of the
  lines whose value needed the exact parser ("marks"), in small messages;
* the **main** process reads the file too, parses each line with plain ``orjson.loads`` (the
  strict parser for marked lines, so every value is exactly the one the strict parse gives),
  and feeds the cross-line rule machines.

Order: the serial checker emits, for each record, the reader's findings, then the schema's,
then the machines'. The worker tags each finding with the last record whose schema step was
done when it was found; the main emits the worker's findings with a tag below a record's line
just before feeding that record. So the findings, their order, the counts, the memory cap and
``--ignore`` all come out as in the serial checker, which ``tests/test_parallel.py`` checks.

Failure: if the worker dies, stalls or sends garbage, the main kills it, reaps it and checks
the file again in one process: slower, never a different report, never a silent pass.
"""

from __future__ import annotations

import contextlib
import io
import marshal
import os
import select
import signal
import stat
import struct
import threading
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO, TypeGuard

import orjson

from contract import failsafe, requirements
from contract.capture_coverage import Sample
from contract.jsonline import Fault, parse
from contract.reader import BLOCK_BYTES, Record, read_records
from contract.report import Collector, Report
from contract.wires import DEFAULT, NAMES, ansi_for, get, is_auto

MIN_PARALLEL_BYTES = 2 * 1024 * 1024  # below this a fork costs more than it saves
STALL_SECONDS = 120.0  # no message from the worker for this long: it is stuck; check alone
SEND_EVERY = 64  # records between the worker's progress messages
_HEADER = struct.Struct(">I")


class WorkerLost(Exception):
    """The worker died, stalled or broke the protocol."""


def worth_it(data: object, jobs: int | None, wire: str = DEFAULT.name) -> TypeGuard[BinaryIO]:
    """Whether to check ``data`` on two processes (``jobs`` None means decide by wire and size)."""
    if jobs is not None and jobs < 2:
        return False
    if not hasattr(os, "fork") or not hasattr(data, "fileno"):
        return False
    try:
        info = os.fstat(data.fileno())
        start = data.tell()  # type: ignore[attr-defined]  # a file: it has fileno, so tell
    except (OSError, ValueError, io.UnsupportedOperation):
        return False
    if not stat.S_ISREG(info.st_mode):
        return False  # a pipe or a terminal: one process, reading as the data comes
    if jobs is not None:
        return True
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    # forking a process that runs other threads risks locks they hold: only the CLI's case
    # Wire.batch: where two processes measured faster (BENCHMARKS.md); auto decides too late
    gains = not is_auto(wire) and get(wire).batch
    return (gains and cores >= 2 and threading.active_count() == 1
            and info.st_size - start >= MIN_PARALLEL_BYTES and _mostly_valid(data.fileno(), start, wire))


SAMPLE_BYTES = 64 * 1024
MAX_SAMPLE_FAILURES = 0.25


def _mostly_valid(fd: int, start: int, wire: str) -> bool:
    """Whether the file's first lines mostly pass the schema: the split only pays on such input.

    On a stream where nearly every line fails, the worker's findings dominate and their messages
    cost more than the split saves (1M `{}` lines: 14.7 s on two processes, 6.2 s on one).
    """
    from contract.schema import engine

    try:
        sample = os.pread(fd, SAMPLE_BYTES, start)
    except OSError:
        return False
    lines = sample.split(b"\n")[:-1] or [sample]  # the last piece may be cut mid-line
    is_valid = engine(wire).is_valid_fast
    failed = 0
    for line in lines:
        try:
            failed += not is_valid(orjson.loads(line))
        except (orjson.JSONDecodeError, ValueError, OverflowError, TypeError):
            failed += 1
    return failed <= MAX_SAMPLE_FAILURES * len(lines)


def check_file(
    handle: BinaryIO,
    wire: str,
    *,
    strict: bool = False,
    ignore: Iterable[str] = (),
    max_line_bytes: int,
    source: str = "-",
    sample: Sample | None = None,
) -> Report:
    """Check a regular file with a worker process; fall back to one process if it fails.

    ``sample``: filled with the file's object lines in order, as the one-process checker does
    (for the coverage); a fallback check measures its own coverage instead.
    """
    from contract.pipeline import SchemaStep, run_rules  # noqa: F401 - imported before the fork
    from contract.schema import engine
    ignore = frozenset(ignore)
    fd = handle.fileno()
    start = handle.tell()
    end = os.fstat(fd).st_size  # both processes stop here, even if the file grows meanwhile
    for name in NAMES if is_auto(wire) else (wire,):
        engine(name)  # build the validators once, before the fork
    try:
        return _with_worker(fd, start, end, wire, strict, ignore, max_line_bytes, source, sample)
    except WorkerLost:
        return _serial(fd, start, end, wire, strict, ignore, max_line_bytes, source, sample is not None)
    except Exception as exc:  # fail closed: the one-process checker reports what it meets
        from contract.failsafe import describe

        report = _serial(fd, start, end, wire, strict, ignore, max_line_bytes, source, sample is not None)
        report.notes.append(f"parallel checker failed ({describe(exc)}); the file was checked in one process")
        return report


def _serial(fd: int, start: int, end: int, wire: str, strict: bool, ignore: frozenset[str],
            max_line_bytes: int, source: str, coverage: bool = False) -> Report:
    from contract.pipeline import check_stream, measured

    sample = Sample() if coverage else None
    report = check_stream(_open(fd, start, end), wire, strict=strict, ignore=ignore, max_line_bytes=max_line_bytes,
                          source=source, sample=sample)
    return measured(report, sample)


# -- reading the same bytes from two processes -------------------------------------------------


class _Span(io.RawIOBase):
    """Bytes ``start`` to ``end`` of an open file, read with pread: no shared file offset."""

    def __init__(self, fd: int, start: int, end: int) -> None:
        self._fd, self._at, self._end = fd, start, end

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        size = min(len(buffer), self._end - self._at)
        if size <= 0:
            return 0
        data = os.pread(self._fd, size, self._at)
        buffer[: len(data)] = data
        self._at += len(data)
        return len(data)


def _open(fd: int, start: int, end: int) -> io.BufferedReader:
    return io.BufferedReader(_Span(fd, start, end), buffer_size=BLOCK_BYTES)


# -- the worker ---------------------------------------------------------------------------------


def _with_worker(fd: int, start: int, end: int, wire: str, strict: bool, ignore: frozenset[str],
                 max_line_bytes: int, source: str, sample: Sample | None = None) -> Report:
    read_end, write_end = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the worker: never returns, never runs the parent's cleanup
        status = 1
        try:
            os.close(read_end)
            _work(fd, start, end, wire, ignore, max_line_bytes, write_end, parent)
            status = 0
        except BaseException:
            pass
        finally:
            os._exit(status)
    os.close(write_end)
    try:
        inbox = _Inbox(read_end)
        return _main(_open(fd, start, end), inbox, wire, strict, ignore, max_line_bytes, source, sample)
    finally:
        os.close(read_end)
        _reap(pid)


def _reap(pid: int) -> None:
    """Make sure the worker is gone (it has normally exited already)."""
    with contextlib.suppress(ChildProcessError):
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done == 0:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


class _Events:
    """The worker's sink: findings and notes in order, tagged for the main's merge."""

    __slots__ = ("_ignore", "events", "tag")

    def __init__(self, ignore: frozenset[str]) -> None:
        self._ignore = ignore
        self.events: list[tuple[Any, ...]] = []
        self.tag = 0  # the line of the last record whose schema step is done

    def emit(self, rule: str, line: int | None, pointer: str | None, message: str, hint: str | None = None) -> None:
        if rule not in self._ignore:
            self.events.append((self.tag, rule, line, pointer, message, hint))

    def note(self, text: str) -> None:
        self.events.append((self.tag, text))

    def exercised(self, rule: str) -> None:
        pass  # the main process's machines say which rules judged (the worker's steps do not)


def _work(fd: int, start: int, end: int, wire: str, ignore: frozenset[str], max_line_bytes: int,
          out_fd: int, parent: int) -> None:
    from contract.pipeline import Deciding, SchemaStep, pick_wire

    report = Report(wire=wire)
    out = _Events(ignore)
    marks: list[int] = []
    stream = _open(fd, start, end)
    parse_line = _marking(marks)
    if is_auto(wire):  # the wire is known after a look ahead: line by line
        # the reader's findings are held until the wire is decided, then judged by it (Deciding)
        deciding = Deciding(out)
        records, wire = pick_wire(read_records(stream, deciding, max_line_bytes, parse_line,
                                               ansi=ansi_for(wire)), report, deciding)
        steps: Iterator[Iterator[Record] | int] = iter([records])
    else:
        steps = _worker_blocks(stream, out, max_line_bytes, parse_line, wire)
    validate = SchemaStep(wire, out)
    since = 0
    for step in steps:
        if isinstance(step, int):  # a block of clean lines: nothing to report
            out.tag = step
            since += SEND_EVERY // 4
        else:
            for record in step:
                validate(record)  # its notes reach the events through out.note, tagged like findings
                out.tag = record.line
                since += 1
                if since >= SEND_EVERY:
                    since = _flush(out_fd, out, marks, parent)
        if since >= SEND_EVERY:
            since = _flush(out_fd, out, marks, parent)
    _send(out_fd, (-1, out.events, marks))


def _flush(out_fd: int, out: _Events, marks: list[int], parent: int) -> int:
    if os.getppid() != parent:
        raise WorkerLost("the main process is gone")
    _send(out_fd, (out.tag, out.events, marks))
    out.events = []
    marks.clear()
    return 0


def _worker_blocks(stream: BinaryIO, out: _Events, max_line_bytes: int, parse_line: Any,
                   wire: str) -> Iterator[Iterator[Record] | int]:
    """Per block: the line of its last record when every line is clean, else its records.

    A clean block (every line canonical compact JSON, an object, valid under the schema, no
    CR, no escaped control character, none too long) has nothing to report, and proving it
    takes a few C-level passes over the whole block instead of a Python loop per line.
    """
    from contract.reader import blocks, frame
    from contract.schema import engine, known_types

    is_valid, loads, dumps = engine(wire).is_valid_fast, orjson.loads, orjson.dumps
    # a line of a type the schema does not list is valid (open set) but has a note to say
    # (pipeline.SchemaStep): its block is not clean, so its lines go through the step
    known = known_types(wire) if get(wire).open_types else None
    number = 0
    for block in blocks(stream, max_line_bytes):
        bodies = block.bodies
        size = len(bodies) or 1
        clean = False
        if not (block.overlong or block.unterminated or block.may_cr or block.may_esc or block.may_exp):
            try:
                values = list(map(loads, bodies))
                clean = (list(map(dumps, values)) == bodies and set(map(type, values)) == {dict}
                         and max(map(len, bodies)) <= max_line_bytes and all(map(is_valid, values))
                         and (known is None or {value.get("type") for value in values} <= known))
            except (orjson.JSONDecodeError, orjson.JSONEncodeError, ValueError, OverflowError, TypeError):
                clean = False
        if clean:
            yield number + size
        else:
            yield frame(block, number, out, max_line_bytes, parse_line, ansi=get(wire).ansi)
        number += size


def _marking(marks: list[int]) -> Any:
    """The strict parse, noting the lines whose value is not plain ``orjson.loads``'s."""

    def parse_line(body: bytes, number: int) -> tuple[Any, tuple[Fault, ...]]:
        try:
            value = orjson.loads(body)
            if orjson.dumps(value) == body and b"e+" not in body:  # parse's own fast path, exactly
                return value, ()
        except (orjson.JSONDecodeError, orjson.JSONEncodeError):
            pass
        marks.append(number)
        return parse(body)

    return parse_line


def _send(fd: int, message: Any) -> None:
    data = marshal.dumps(message)
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view) :]


# -- the main process ---------------------------------------------------------------------------


class _Inbox:
    """The worker's messages, read as the main needs them."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._buffer = bytearray()
        self.upto = 0  # every finding tagged below this line, and every mark up to it, is in
        self.done = False
        self.events: deque[tuple[Any, ...]] = deque()
        self.marks: set[int] = set()

    def need(self, line: int) -> None:
        """Wait until the worker has judged ``line`` (or finished)."""
        while self.upto < line and not self.done:
            upto, events, marks = self._receive()
            self.events.extend(events)
            self.marks.update(marks)
            if upto < 0:
                self.done = True
            else:
                self.upto = upto

    def _receive(self) -> Any:
        size = self._fill(_HEADER.size)
        (length,) = _HEADER.unpack(bytes(self._buffer[:size]))
        self._fill(size + length)
        data = bytes(self._buffer[size : size + length])
        del self._buffer[: size + length]
        try:
            message = marshal.loads(data)
            upto, events, marks = message
        except (ValueError, EOFError, TypeError) as exc:
            raise WorkerLost(f"garbled message: {exc}") from None
        return upto, events, marks

    def _fill(self, size: int) -> int:
        while len(self._buffer) < size:
            ready, _, _ = select.select([self._fd], [], [], STALL_SECONDS)
            if not ready:
                raise WorkerLost("no progress")
            chunk = os.read(self._fd, 1 << 16)
            if not chunk:
                raise WorkerLost("ended early")
            self._buffer += chunk
        return size


def _main(stream: BinaryIO, inbox: _Inbox, wire: str, strict: bool, ignore: frozenset[str],
          max_line_bytes: int, source: str, sample: Sample | None = None) -> Report:
    from contract.pipeline import pick_wire

    report = Report(wire=wire, strict=strict, source=source)
    out = Collector(report, ignore)
    if is_auto(wire):  # the wire is known after a look ahead: line by line
        records = read_records(stream, _DISCARD, max_line_bytes, _reusing(inbox), escapes=False)
        steps: Iterator[Iterator[Record] | tuple[int, list[Any]]] = iter([pick_wire(records, report)[0]])
        wire = report.wire
    else:
        steps = _hinted(_main_blocks(stream, inbox, max_line_bytes), wire, report)
    machines = failsafe.Machines(get(wire).machines(), out, get(wire).schema_rule)  # exceptions: checker.internal
    feed = machines.feed
    feed_batch = machines.batch()
    pending = inbox.events
    last = 0
    for step in steps:
        if isinstance(step, tuple):  # a block of object lines, parsed at once
            first, values = step
            if sample is not None:
                sample.extend(values)
            _deliver(pending, first, out)
            if not pending or pending[0][0] >= first + len(values) - 1:  # no finding due inside
                if feed_batch is not None:
                    feed_batch(first, values)
                else:
                    for line, value in enumerate(values, first):
                        feed(Record(line, b"", value))
                last = first + len(values) - 1
                continue
            step = (Record(line, b"", value) for line, value in enumerate(values, first))
        elif sample is not None:
            step = sample.records(step)
        for record in step:
            line = last = record.line
            if inbox.upto < line:
                inbox.need(line)
            if pending and pending[0][0] < line:
                _deliver(pending, line, out)
            feed(record)
    inbox.need(1 << 62)
    _deliver(pending, 1 << 62, out)
    machines.finish()
    report.lines = max(report.lines, last)
    requirements.mark_checked(report)
    return report


def _hinted(steps: Iterator[Iterator[Record] | tuple[int, list[Any]]], wire: str,
            report: Report) -> Iterator[Iterator[Record] | tuple[int, list[Any]]]:
    """The steps unchanged; the first object line is shown to ``pipeline.note_other_wire``, as the
    one-process checker does (``pipeline.wire_hint``), once its step has been fed."""
    from contract.pipeline import note_other_wire

    seen = False

    def records(step: Iterator[Record]) -> Iterator[Record]:
        nonlocal seen
        for record in step:
            yield record
            if not seen and record.obj is not None:
                seen = True
                note_other_wire(record.obj, record.line, wire, report)

    for step in steps:
        if isinstance(step, tuple):
            yield step
            if step[1]:
                seen = True
                note_other_wire(step[1][0], step[0], wire, report)
        else:
            yield records(step)
        if seen:
            break
    yield from steps


def _main_blocks(
    stream: BinaryIO, inbox: _Inbox, max_line_bytes: int
) -> Iterator[Iterator[Record] | tuple[int, list[Any]]]:
    """Per block: (first line, objects) when it is plain object lines, else its records.

    Plain: no line too long, no CR, none the worker marked, and ``orjson.loads`` gives an
    object for each; then the whole block is parsed by one C-level ``map``.
    """
    from contract.reader import blocks, frame

    loads = orjson.loads
    parse_line = _reusing(inbox)
    number = 0
    for block in blocks(stream, max_line_bytes):
        bodies = block.bodies
        size = len(bodies) or 1
        inbox.need(number + size)
        values: list[Any] | None = None
        if not (block.overlong or block.unterminated or block.may_cr) and (
                not inbox.marks or min(inbox.marks) > number + size):
            try:
                values = list(map(loads, bodies))
            except orjson.JSONDecodeError:
                values = None
            if values is not None and (set(map(type, values)) != {dict} or max(map(len, bodies)) > max_line_bytes):
                values = None
        if values is not None:
            yield number + 1, values
        else:
            yield frame(block, number, _DISCARD, max_line_bytes, parse_line, escapes=False)
        number += size


def _deliver(pending: deque[tuple[Any, ...]], line: int, out: Collector) -> None:
    """The worker's findings and notes due before the record on ``line`` is fed."""
    while pending and pending[0][0] < line:
        event = pending.popleft()
        if len(event) == 2:
            out.report.notes.append(event[1])
        else:
            out.emit(*event[1:])


def _reusing(inbox: _Inbox) -> Any:
    """Plain ``orjson.loads``, except where the worker found that the strict parse differs."""
    loads = orjson.loads

    def parse_line(body: bytes, number: int) -> tuple[Any, tuple[Fault, ...]]:
        if inbox.upto < number:
            inbox.need(number)
        if number in inbox.marks:
            inbox.marks.discard(number)
            return parse(body)
        try:
            return loads(body), ()
        except orjson.JSONDecodeError:  # the worker said it parses: trust the strict parser
            return parse(body)

    return parse_line


class _Discard:
    """The main's reader reports nothing: the worker reports every line finding and note."""

    def emit(self, rule: str, line: int | None, pointer: str | None, message: str, hint: str | None = None) -> None:
        pass

    def note(self, text: str) -> None:
        pass

    def exercised(self, rule: str) -> None:
        pass


_DISCARD = _Discard()
