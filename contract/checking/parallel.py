"""Checking a large regular file on two cores, with the very report one process would give.

One process checks a file a block at a time (``pipeline.check_blocks``): a block of clean lines
is proven with a few C-level passes (the strict parse's fast path, the schema) and fed to the
rule machine, whose per-line work splits in two (``wires.base.FactMachine``): what each line
decides alone (its **facts**), and the sequential fold over the run. The proof and the facts are
most of the work and depend on nothing before the block, so they are what is shared out:

* a forked **worker** reads the file itself, frames the same blocks, and for the blocks it owns
  (``_owns``: a fixed share, spread through the file) proves each and computes its facts, and
  sends, in block order, a small message per block: its line count and length (so both are
  sure they mean the same block) and its proof (not proven, or clean with the facts);
* the **main** process runs the one-process block checker itself, with the worker's proofs:
  it proves and judges its own blocks as one process does, and for the worker's it folds the
  facts into the machine (no parse at all), or, when the worker could not prove the block,
  proves and judges it as one process does (the worker reads as orjson does, so a block that
  needs the exact parse, an "e+" float or another spelling of a number, is the main's to prove).
  Every finding, note and count is the main's own, in the one-process order.

So the report is the one-process report by construction (``tests/checking/test_parallel.py`` compares
them on every case, golden and large generated input). The worker can only ever spare the main
work: a block it did not prove, or a proof that does not match the main's block, is proven by
the main. The main never waits for the worker: a proof that has not come when the main reaches
its block is the main's to make (the worker, told through a shared word, skips that block). If
the worker dies, sends garbage or a proof of another block, the main kills and reaps it and
proves the rest of the blocks itself: slower, never a different report, never a silent pass.
"""

from __future__ import annotations

import contextlib
import io
import marshal
import mmap
import os
import signal
import stat
import struct
import threading
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any, BinaryIO, TypeGuard

import orjson

from contract.checking.capture_coverage import Sample
from contract.core.reader import BLOCK_BYTES, Block, Piece, blocks, size
from contract.rules.report import Collector, Report
from contract.wires import DEFAULT, Wire, is_auto, resolve
from contract.wires.base import FactMachine

MIN_PARALLEL_BYTES = 2 * 1024 * 1024  # below this a fork costs more than it saves
# The worker's share of the blocks: WORKER_SHARE of every SHARE_OF, spread through the file. The
# main folds the worker's blocks (cheap) and proves and feeds its own (as one process does); a
# worker's block whose proof has not come when the main reaches it is taken by the main (the main
# never waits), which wastes what the worker had done of it. Every other block measured best: the
# main's share is then a little the larger, so it seldom has to take one (BENCHMARKS.md, issue 25).
WORKER_SHARE, SHARE_OF = 1, 2
_HEADER = struct.Struct(">I")
_TAKEN = struct.Struct("=q")


class WorkerLost(Exception):
    """The worker died or broke the protocol."""


def worth_it(data: object, jobs: int | None, wire: Wire | str = DEFAULT) -> TypeGuard[BinaryIO]:
    """Whether to check ``data`` on two processes (``jobs`` None means decide by wire and size)."""
    if jobs is not None and jobs < 2:
        return False
    if not hasattr(os, "fork") or not hasattr(data, "fileno") or not hasattr(data, "tell"):
        return False
    try:
        info = os.fstat(data.fileno())
        start = data.tell()
    except (OSError, ValueError, io.UnsupportedOperation):
        return False
    if not stat.S_ISREG(info.st_mode):
        return False  # a pipe or a terminal: one process, reading as the data comes
    if jobs is not None:
        return True
    name = wire if isinstance(wire, str) else wire.name
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    # forking a process that runs other threads risks locks they hold: only the CLI's case
    # Wire.batch: where two processes measured faster (BENCHMARKS.md); auto decides too late
    gains = not is_auto(name) and resolve(wire).batch
    return (gains and cores >= 2 and threading.active_count() == 1
            and info.st_size - start >= MIN_PARALLEL_BYTES and _mostly_valid(data.fileno(), start, resolve(wire)))


SAMPLE_BYTES = 64 * 1024
MAX_SAMPLE_FAILURES = 0.25


def _mostly_valid(fd: int, start: int, wire: Wire) -> bool:
    """Whether the file's first lines mostly pass the schema: the split only pays on such input.

    On a stream where nearly every line fails, every block is judged line by line in the main
    process, and the worker's proofs are work for nothing.
    """
    from contract.checking.schema import engine

    try:
        sample = os.pread(fd, SAMPLE_BYTES, start)
    except OSError:
        return False
    lines = sample.split(b"\n")[:-1] or [sample]  # the last piece may be cut mid-line
    is_valid = engine(wire.name).is_valid_fast
    failed = 0
    for line in lines:
        try:
            failed += not is_valid(orjson.loads(line))
        except (orjson.JSONDecodeError, ValueError, OverflowError, TypeError):
            failed += 1
    return failed <= MAX_SAMPLE_FAILURES * len(lines)


def splits(wire: Wire) -> bool:
    """Whether the wire's check splits over two processes: a batch wire whose lone rule machine
    is a ``FactMachine``. Any other (a wire whose machines take no facts; ``--wire auto``, decided
    only after a look ahead) is checked in one process, which is the faster there (BENCHMARKS.md)."""
    if not wire.batch:
        return False
    machines = wire.machines()
    return len(machines) == 1 and isinstance(machines[0], FactMachine)


def check_file(
    handle: BinaryIO,
    wire: Wire | str,
    *,
    strict: bool = False,
    ignore: Iterable[str] = (),
    max_line_bytes: int,
    source: str = "-",
    sample: Sample | None = None,
) -> Report:
    """Check a regular file with a worker process (or in one, where the split does not pay).

    ``sample``: filled with the file's object lines in order, as the one-process checker does
    (for the coverage); a fallback check measures its own coverage instead.
    """
    from contract.checking.pipeline import check_stream
    from contract.checking.schema import engine

    ignore = frozenset(ignore)
    fd = handle.fileno()
    start = handle.tell()
    end = os.fstat(fd).st_size  # both processes stop here, even if the file grows meanwhile
    name = wire if isinstance(wire, str) else wire.name
    descriptor = None if is_auto(name) else resolve(wire)
    if descriptor is None or not splits(descriptor):
        return check_stream(_open(fd, start, end), wire, strict=strict, ignore=ignore, max_line_bytes=max_line_bytes,
                            source=source, sample=sample)
    engine(descriptor.name)  # build the validators once, before the fork
    try:
        return _with_worker(fd, start, end, descriptor, strict, ignore, max_line_bytes, source, sample)
    except Exception as exc:  # fail closed: the one-process checker reports what it meets
        from contract.checking.failsafe import describe
        from contract.checking.pipeline import measured

        fresh = Sample() if sample is not None else None
        report = measured(check_stream(_open(fd, start, end), descriptor, strict=strict, ignore=ignore,
                                       max_line_bytes=max_line_bytes, source=source, sample=fresh), fresh)
        report.notes.append(f"parallel checker failed ({describe(exc)}); the file was checked in one process")
        return report


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


def _owns(index: int) -> bool:
    """Whether block ``index`` is the worker's (both processes ask the same)."""
    return index * WORKER_SHARE % SHARE_OF < WORKER_SHARE


def _elsewhere(index: int) -> bool:
    return not _owns(index)


def _identity(block: Block | Piece) -> tuple[int, int]:
    """What both processes must agree on for a block: its line count and length."""
    return block.size() if isinstance(block, Piece) else size(block)


# -- the worker ---------------------------------------------------------------------------------


def _with_worker(fd: int, start: int, end: int, wire: Wire, strict: bool, ignore: frozenset[str],
                 max_line_bytes: int, source: str, sample: Sample | None) -> Report:
    read_end, write_end = os.pipe()
    taken = mmap.mmap(-1, _TAKEN.size)  # shared with the worker: the last block the main took itself
    _TAKEN.pack_into(taken, 0, -1)
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the worker: never returns, never runs the parent's cleanup
        status = 1
        try:
            os.close(read_end)
            # the lowest priority: on a core of its own it runs at full speed, on a core shared
            # with other processes it takes little from them or from the main (which never waits
            # for it and takes over its blocks), so two processes do not run slower than one
            with contextlib.suppress(OSError):
                os.nice(19)
            _work(fd, start, end, wire, max_line_bytes, write_end, parent, taken)
            status = 0
        except BaseException:
            pass
        finally:
            os._exit(status)
    os.close(write_end)
    try:
        os.set_blocking(read_end, False)  # the main never waits for the worker
        return _main(_open(fd, start, end), _Inbox(read_end, pid, taken), wire, strict, ignore, max_line_bytes,
                     source, sample)
    finally:
        os.close(read_end)
        _reap(pid)
        taken.close()


def _reap(pid: int) -> None:
    """Make sure the worker is gone: once the main is done, what it still does is of no use."""
    with contextlib.suppress(ChildProcessError):
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done == 0:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


def _work(fd: int, start: int, end: int, wire: Wire, max_line_bytes: int, out_fd: int, parent: int,
          taken: mmap.mmap) -> None:
    """The worker: for each block it owns that the main has not taken, in order, a message
    ``(index, count, length, proof, unlisted)`` (False, not proven here, which the main then proves; the facts,
    or True when the machine gave none; ``unlisted``: the line types of a clean block that the
    schema does not list, whose notes the main must have given for the proof to hold)."""
    from contract.checking.proof import clean_block
    from contract.checking.schema import known_types

    # the main reads a clean block with orjson; a block of unlisted types is proven as if their
    # notes were given, and the types are sent with the proof (the main judges whether they were)
    prove = clean_block(wire, max_line_bytes, lambda kinds: True, exact=False)
    known = known_types(wire.name) if wire.open_types else None
    [machine] = wire.machines()
    if not isinstance(machine, FactMachine):  # splits() checked it: a worker never starts without
        raise TypeError(f"{wire.name}'s machine gives no facts")
    facts_of: Callable[[list[Any]], Any] = machine.block_facts
    for index, block in enumerate(blocks(_open(fd, start, end), max_line_bytes, _elsewhere)):
        if not _owns(index) or index <= _TAKEN.unpack_from(taken, 0)[0]:
            continue  # the main's, or taken by the main while this process was behind
        values = prove(block)  # never raises: a proof that fails proves nothing
        unlisted = _unlisted(values, known)
        proof = False if values is None or unlisted is None else (facts_of(values) or True)
        if os.getppid() != parent:
            raise WorkerLost("the main process is gone")
        _send(out_fd, (index, *_identity(block), proof, unlisted or ()))
    _send(out_fd, _END)


def _unlisted(values: list[Any] | None, known: frozenset[str] | None) -> tuple[str, ...] | None:
    """The line types of proven ``values`` that the schema does not list (``known``), sorted;
    None when one is no string (no note names it: the block is not proven)."""
    if values is None or known is None:
        return ()
    kinds = {value.get("type") for value in values} - known
    if any(type(kind) is not str for kind in kinds):
        return None
    return tuple(sorted(kinds))


_END = (-1, 0, 0, None, ())  # the worker's last message: it has seen every block


def _send(fd: int, message: Any) -> None:
    data = marshal.dumps(message)
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view) :]


# -- the main process ---------------------------------------------------------------------------


class _Inbox:
    """The worker's proofs, read as the main reaches the worker's blocks, without ever waiting:
    a block whose proof has not come yet is taken by the main (and the worker told, so it skips
    it)."""

    def __init__(self, fd: int, pid: int, taken: mmap.mmap) -> None:
        self._fd = fd
        self._pid = pid
        self._taken = taken
        self._buffer = bytearray()
        self._proofs: deque[tuple[Any, ...]] = deque()
        self.ended = False  # the worker sent its last message
        self.lost = False  # the worker is gone before its end (or was sent away): the main proves the rest
        self._noted: Callable[[set[Any]], bool] | None = None

    def noting(self, noted: Callable[[set[Any]], bool]) -> None:
        """Whether the notes of unlisted line types are given already (``SchemaStep.noted``): a
        clean block of such types is the worker's only then."""
        self._noted = noted

    def lazy(self, index: int) -> bool:
        """The worker's blocks come unsplit to the main: most are folded by their facts."""
        return not self.lost and _owns(index)

    def __call__(self, index: int, block: Block | Piece) -> Any:
        """The worker's proof of block ``index`` (``pipeline.Proof``); None: prove it here."""
        if self.lost or not _owns(index):
            return None
        try:
            self._take_in(index)
            proofs = self._proofs
            while proofs and proofs[0][0] < index:
                proofs.popleft()  # a block the main took itself
            if proofs and proofs[0][0] == index:
                _, count, length, proof, unlisted = proofs.popleft()
                if (count, length) != _identity(block):
                    raise WorkerLost(f"block {index} is not the same block in both processes")
                if proof is False:  # not proven there (it reads as orjson does, not exactly): proven here
                    return None
                if unlisted and (self._noted is None or not self._noted(set(unlisted))):
                    return None  # a type whose note is still to come: the main proves it
                return proof
        except WorkerLost:
            self._drop()
            return None
        _TAKEN.pack_into(self._taken, 0, index)  # proven here: the worker skips it if it has not begun
        return None

    def _drop(self) -> None:
        self.lost = True
        self._proofs.clear()
        with contextlib.suppress(ProcessLookupError):
            os.kill(self._pid, signal.SIGKILL)

    def _take_in(self, index: int) -> None:
        """What the worker has sent, up to its proof of block ``index`` or later (reading never
        blocks; what is not read waits in the pipe, which holds the worker back: bounded memory)."""
        while not self.ended and not (self._proofs and self._proofs[-1][0] >= index):
            try:
                chunk = os.read(self._fd, 1 << 16)
            except BlockingIOError:
                return
            if not chunk:
                raise WorkerLost("ended early")
            self._buffer += chunk
            self._unpack()

    def _unpack(self) -> None:
        buffer = self._buffer
        while len(buffer) >= _HEADER.size:
            (length,) = _HEADER.unpack_from(buffer)
            if len(buffer) < _HEADER.size + length:
                return
            data = bytes(buffer[_HEADER.size : _HEADER.size + length])
            del buffer[: _HEADER.size + length]
            try:
                message = marshal.loads(data)
                if type(message) is not tuple or len(message) != 5 or type(message[0]) is not int or not (
                        message[3] is True or message[3] is False or type(message[3]) is tuple or message == _END
                ) or type(message[4]) is not tuple or not all(type(kind) is str for kind in message[4]):
                    raise ValueError("not a proof")  # anything else could be taken for a clean block
            except (ValueError, EOFError, TypeError) as exc:
                raise WorkerLost(f"garbled message: {exc}") from None
            if message == _END:
                self.ended = True
                return
            self._proofs.append(message)


def _main(stream: BinaryIO, inbox: _Inbox, wire: Wire, strict: bool, ignore: frozenset[str],
          max_line_bytes: int, source: str, sample: Sample | None) -> Report:
    from contract.checking.pipeline import check_blocks

    report = Report(wire=wire.name, strict=strict, source=source)
    check_blocks(stream, wire, Collector(report, ignore), max_line_bytes, sample, inbox)
    return report
