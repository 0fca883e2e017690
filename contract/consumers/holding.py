"""One consumer run: a stream written to its stdin, paced, and how the run ended (``hold``).

The holding half of ``contract.consumers.feed`` (which judges the runs and loops over the goldens):
the pipe or pseudo-terminal the stream goes through, the writer thread that writes each line once
the consumer has taken the one before, the drain of its stdout, and what is known afterwards of how
far it read (an :class:`Outcome`). Nothing here judges: ``contract.consumers.judging`` turns an
outcome into findings. Every wait is bounded (``timeout`` per run) and every buffer too.
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import os
import select
import shutil
import stat
import tempfile
import termios
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO

from contract.consumers.pacing import PTY_SETTLE_SECONDS, drained, pending
from contract.consumers.reading import MAX_READING_BYTES, VARIABLE
from contract.live.harness import GRACE_SECONDS, Process, StartError

DEFAULT_TIMEOUT = 10.0
DEFAULT_PACE = 0.002  # seconds between lines: a live emitter's lines arrive apart, not in one read
DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024  # the consumer's stdout kept for comparison
PTY_LINE_BYTES = 4095  # a terminal's canonical line discipline holds at most this much of a line


@dataclass
class Outcome:
    """How one consumer run ended."""

    status: int | None  # exit status, or minus the signal; None when it never ran
    hung: bool
    stdout: bytes  # kept up to the bound
    stdout_bytes: int  # written in all
    stderr: str
    fed: int  # lines written (taken by its stdin pipe or terminal: not necessarily read)
    lines: int  # lines in the stream
    elapsed: float
    start_error: str | None = None
    notes: list[str] = field(default_factory=list)
    flooded: str | None = None  # why a conversation was cut (contract.consumers.feed_client): never a pass
    # What is known of how far a consumer found hanging had read (``hold``): whether the end of
    # input was written after the lines, and, when its stdin pipe could be looked into, how many
    # of the lines written it had read whole and how many bytes written it had not read (None
    # when not known: a terminal, or a pipe it no longer holds as its stdin).
    ended: bool = False
    written: int = 0  # bytes written
    read: int | None = None
    unread: int | None = None
    through: str = "stdin"  # what the stream was written to: "stdin" (a pipe) or "terminal" (a pty)
    # Of a consumer that exited by itself: the bytes of the stream it did not read (never written
    # to it, or left in its stdin pipe), or None when that is not known (a terminal's buffer
    # cannot be looked into: only bytes never written are known there).
    left: int | None = None
    never: int = 0  # of ``left``: the bytes never written (it stopped asking for them: the feed is paced)
    host_lines: frozenset[int] = frozenset()  # of a conversation (feed_client): the transcript's host lines (1-based)
    # What the consumer wrote to its reading file (the reading protocol, ``contract.consumers.reading``),
    # up to ``MAX_READING_BYTES``; None when it wrote none (it does not speak the protocol).
    reading: bytes | None = None
    reading_overflowed: bool = False
    reading_not_file: str | None = None  # what stood at the reading path instead of a file ("a FIFO", ...)

    @property
    def overflowed(self) -> bool:
        return self.stdout_bytes > len(self.stdout)


def _pty() -> tuple[int, int]:
    """A pseudo-terminal pair whose line discipline passes JSONL through unchanged.

    Canonical mode (so end of input can be said with VEOF and reads as end of file; in raw mode
    the only end is the master closing, which a reader sees as EIO), no echo, no signals, no flow
    control, no CR/NL translation, and no erase/kill/literal-next characters (DEL may appear raw
    in a JSON string).
    """
    import pty

    master, slave = pty.openpty()
    attrs = termios.tcgetattr(slave)
    attrs[0] &= ~(termios.ICRNL | termios.INLCR | termios.IGNCR | termios.IXON | termios.IXOFF | termios.ISTRIP)
    attrs[3] &= ~(termios.ECHO | termios.ECHONL | termios.ISIG | termios.IEXTEN)
    attrs[3] |= termios.ICANON
    cc = attrs[6]
    for name in ("VERASE", "VKILL", "VWERASE", "VREPRINT", "VLNEXT", "VINTR", "VQUIT", "VSUSP"):
        index = getattr(termios, name, None)
        if index is not None:
            cc[index] = b"\0"  # _POSIX_VDISABLE on Linux; NUL never appears raw in a JSON line
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    return master, slave


def _write_fd(fd: int, data: bytes, deadline: float, stop: threading.Event) -> int:
    """Write ``data`` to a non-blocking ``fd`` before ``deadline``, in short slices so that ``stop``
    is seen at once; the bytes written, fewer than ``len(data)`` when it could not write them all
    (the reader stopped reading, or went away: EPIPE, or EIO on a pty)."""
    view = memoryview(data)
    written = 0
    while written < len(data):
        if stop.is_set() or time.monotonic() >= deadline:
            break
        if not select.select([], [fd], [], 0.05)[1]:
            continue
        try:
            written += os.write(fd, view[written:])
        except BlockingIOError:
            continue
        except OSError:
            break
    return written


def _unread_in_stdin(pid: int, pipe: int) -> int | None:
    """The bytes waiting unread in process ``pid``'s stdin, when it is still the pipe of inode ``pipe``.

    Linux: the pipe is opened again through ``/proc/PID/fd/0`` (read-only, non-blocking, never
    read from) and asked FIONREAD. None when that cannot be known (no /proc, another stdin).
    """
    import fcntl
    import stat
    import struct

    try:
        fd = os.open(f"/proc/{pid}/fd/0", os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISFIFO(info.st_mode) or info.st_ino != pipe:
            return None
        answer: int = struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]
        return answer
    except OSError:
        return None
    finally:
        os.close(fd)


class _Drain:
    """The consumer's stdout on a thread: kept up to ``limit`` bytes, read on (and dropped) past it."""

    def __init__(self, stream: IO[bytes], limit: int) -> None:
        self.kept = bytearray()
        self.total = 0
        self._stream = stream
        self._limit = limit
        self.thread = threading.Thread(target=contextvars.copy_context().run, args=(self._run,), daemon=True)
        self.thread.start()

    def _run(self) -> None:
        read = getattr(self._stream, "read1", self._stream.read)
        with contextlib.suppress(OSError, ValueError):
            while chunk := read(65536):
                self.total += len(chunk)
                room = self._limit - len(self.kept)
                if room > 0:
                    self.kept += chunk[:room]


@dataclass
class _Ends:
    """The file descriptors one run's stream goes through, as the suite holds them.

    Through a pipe, the suite makes it and keeps a copy of its read end (``witness``, never read
    from): once the consumer has exited, what is still in the pipe is what it left unread
    (through /proc/PID/fd/0 it could no longer be seen). The copy keeps a write from failing
    with EPIPE when the consumer exits early, so the writer is stopped when it exits. ``inlet``
    is the write end. Through a terminal, ``master`` is written to and ``slave`` is the
    consumer's stdin; once it has started, the suite's copy of the slave end is the witness.
    """

    master: int | None = None
    slave: int | None = None
    witness: int | None = None
    inlet: int | None = None
    inlet_closed: bool = False  # the writer closed it: the end of input through a pipe

    @classmethod
    def open(cls, pty: bool) -> _Ends:
        if pty:
            master, slave = _pty()
            os.set_blocking(master, False)
            return cls(master=master, slave=slave)
        witness, inlet = os.pipe()
        return cls(witness=witness, inlet=inlet)

    @property
    def stdin(self) -> int | None:
        """The consumer's stdin: the terminal's slave end, or the pipe's read end."""
        return self.slave if self.master is not None else self.witness

    def started(self) -> None:
        # Through a terminal the suite keeps its own copy of the slave end (the terminal's witness):
        # what the consumer left unread stays in the terminal's input queue, asked with FIONREAD once
        # it has exited (a second outside review: a consumer that read one line passed under --pty).
        if self.slave is not None:
            self.witness = self.slave

    def close_all(self) -> None:
        """The consumer never started: every end is the suite's to close."""
        for fd in (self.master, self.slave, self.witness, self.inlet):
            if fd is not None:
                os.close(fd)


class _Writer:
    """The thread writing a run's pieces, each once the consumer has taken the one before.

    Written to the pty's master, or straight to the stdin pipe's fd (non-blocking): every byte
    written is counted, so a consumer found hanging is told how much of it it had read.
    """

    def __init__(self, pieces: list[tuple[bytes, float]], ends: _Ends, deadline: float, linger: float) -> None:
        self.pieces = pieces
        self.ends = ends
        self.deadline = deadline
        self.linger = linger
        self.target = ends.master if ends.master is not None else ends.inlet if ends.inlet is not None else -1
        self.pipe: int | None = None  # the stdin pipe's inode, to look into it (None through a terminal)
        if ends.master is None and self.target >= 0:
            os.set_blocking(self.target, False)
            self.pipe = os.fstat(self.target).st_ino
        self.fed = 0  # lines written
        self.written = 0  # bytes written
        self.line_ends: list[int] = []  # the byte count at the end of each line written
        self.ended = False  # the end of input was written
        self.stop = threading.Event()  # set before the pty is closed: the writer must not touch a reused fd
        self.thread = threading.Thread(target=contextvars.copy_context().run, args=(self._run,), daemon=True)

    def join(self) -> None:
        """Stop the writer and wait for it, bounded (``done`` says whether it ended)."""
        self.stop.set()
        self.thread.join(GRACE_SECONDS)

    @property
    def done(self) -> bool:
        """The writer has ended: its counts are final and the ends it wrote to are free to close."""
        return not self.thread.is_alive()

    def _put(self, data: bytes) -> bool:
        sent = _write_fd(self.target, data, self.deadline, self.stop)
        self.written += sent
        return sent == len(data)

    def _run(self) -> None:
        try:
            if self._write_pieces():
                self._end_input()
        except (OSError, ValueError):  # the consumer went away (EIO on a pty, a closed pipe): stop writing
            return

    def _write_pieces(self) -> bool:
        """Each piece and its pause; False when the consumer stopped taking them."""
        for number, (piece, pause) in enumerate(self.pieces):
            if not self._put(piece):
                return False
            for _ in range(piece.count(b"\n")):
                self.fed += 1
                self.line_ends.append(self.written)  # (within a piece the end is its end: enough for a count)
            if number + 1 < len(self.pieces):
                # the next piece only once the consumer has taken this one: a consumer that stops
                # early cannot have pulled the rest into its own buffer first (stdio, a runtime's
                # reader), so what it never asked for is never written, and counted unread
                settle = PTY_SETTLE_SECONDS if self.ends.master is not None else 0.0
                drained(self.ends.witness, self.deadline, self.stop, settle)
            if pause:
                # after the drain: the pause is between the consumer's reads, as recorded (timed
                # from the write, a consumer's start-up swallowed the first gap)
                self.stop.wait(pause)
        if self.pieces and not self.pieces[-1][0].endswith(b"\n"):
            self.fed += 1  # a last line without its end of line was written too
        return True

    def _end_input(self) -> None:
        if self.linger:
            self.stop.wait(self.linger)  # stdin held open after the last byte (the result), as a producer may
        master, inlet = self.ends.master, self.ends.inlet
        if master is not None:  # VEOF (^D) after the last LF: the consumer's read returns 0 bytes
            self.ended = self._put(bytes([termios.tcgetattr(master)[6][termios.VEOF][0]]))
        elif inlet is not None:
            self.ends.inlet_closed = True
            os.close(inlet)  # the end of input: the witness is a reader, not a writer
            self.ended = True


@dataclass
class _End:
    """How the wait for one run ended: its status, and how far it read when that is known."""

    status: int | None
    hung: bool
    read: int | None = None
    unread: int | None = None
    left: int | None = None


def _stream_pieces(data: bytes, pace: float | Sequence[float],
                   chunks: Sequence[tuple[bytes, float]] | None) -> tuple[list[bytes], list[tuple[bytes, float]]]:
    """The stream's lines, and the pieces to write (each with the pause after it)."""
    lines = [line + b"\n" for line in data.split(b"\n")[:-1]] if data.endswith(b"\n") else data.splitlines(True)
    # each line's pause after it: one for all, or a sequence (contract.goldens.pacing, --pace recorded)
    pauses = [pace] * len(lines) if isinstance(pace, (int, float)) else [*pace, *[0.0] * len(lines)][:len(lines)]
    pieces = list(zip(lines, pauses, strict=True)) if chunks is None else list(chunks)
    if b"".join(piece for piece, _ in pieces) != data:
        raise ValueError("the chunks to write are not the stream")  # a bug of the caller
    return lines, pieces


def hold(
    argv: Sequence[str],
    data: bytes,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    pace: float | Sequence[float] = DEFAULT_PACE,
    pty: bool = False,
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
    env: Mapping[str, str] | None = None,
    chunks: Sequence[tuple[bytes, float]] | None = None,
    linger: float = 0.0,
) -> Outcome:
    """Run the consumer ``argv`` once with ``data`` on its stdin; how it ended (never raises for it).

    ``chunks`` (``contract.consumers.transport``): write ``data`` as these pieces instead of line by line,
    each followed by its pause and written once the consumer has taken the one before; ``linger``:
    seconds to hold its stdin open after the last byte before the end of input.
    Ctrl-C kills the consumer's group and is re-raised (the caller reports ``run.interrupted``).
    """
    lines, pieces = _stream_pieces(data, pace, chunks)
    notes: list[str] = []
    if pty and any(len(line) > PTY_LINE_BYTES for line in lines):
        notes.append(f"a line longer than {PTY_LINE_BYTES} bytes cannot pass a terminal's line discipline: "
                     "this stream was fed through a pipe")
        pty = False
    folder = tempfile.mkdtemp(prefix="milk-reading-")
    try:
        outcome = _hold(argv, lines, pieces, timeout, pty, max_output_bytes,
                        {**(env if env is not None else os.environ), VARIABLE: os.path.join(folder, "reading.jsonl")},
                        linger, notes)
        outcome.reading, outcome.reading_overflowed, outcome.reading_not_file = _reading(
            os.path.join(folder, "reading.jsonl"))
        return outcome
    finally:
        shutil.rmtree(folder, ignore_errors=True)


_NOT_FILES = {stat.S_IFIFO: "a FIFO", stat.S_IFDIR: "a directory", stat.S_IFCHR: "a device", stat.S_IFBLK: "a device",
              stat.S_IFSOCK: "a socket"}


def _reading(path: str) -> tuple[bytes | None, bool, str | None]:
    """The reading file a consumer wrote (bounded), whether it was longer than the bound, and what stood
    at the path if not a regular file (then nothing is read). (None, False, None): nothing written.

    Opened without blocking and without following a link: a FIFO left there must not hang the feed
    (it would wait for a writer), nor a link make it read another file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None, False, None
    except OSError as exc:  # ELOOP: a symbolic link; anything else: not a file it can read
        return None, False, "a symbolic link" if exc.errno == errno.ELOOP else "a path it cannot read"
    kind = stat.S_IFMT(os.fstat(fd).st_mode)
    if kind != stat.S_IFREG:
        os.close(fd)
        return None, False, _NOT_FILES.get(kind, "no regular file")
    with os.fdopen(fd, "rb") as file:
        kept = file.read(MAX_READING_BYTES + 1)
    return kept[:MAX_READING_BYTES], len(kept) > MAX_READING_BYTES, None


def _hold(argv: Sequence[str], lines: list[bytes], pieces: list[tuple[bytes, float]], timeout: float, pty: bool,
          max_output_bytes: int, env: Mapping[str, str], linger: float, notes: list[str]) -> Outcome:
    """``hold``'s run, its reading file named in ``env``."""
    ends = _Ends.open(pty)
    began = time.monotonic()
    try:
        proc = Process(argv, env=env, stdin_fd=ends.stdin)
    except StartError as exc:
        ends.close_all()
        return Outcome(None, False, b"", 0, "", 0, len(lines), 0.0, start_error=str(exc))
    with proc:  # from here on, any exception (Ctrl-C as the consumer starts) kills its group on the way out
        ends.started()
        writer = _Writer(pieces, ends, began + timeout, linger)
        total = sum(len(line) for line in lines)
        drain = _Drain(proc.stdout, max_output_bytes)
        end = _run(proc, writer, drain, total)
    if drain.thread.is_alive():
        notes.append("the consumer's stdout was still open after it exited and its group was killed")
    return Outcome(end.status, end.hung, bytes(drain.kept), drain.total, proc.stderr_tail(), writer.fed, len(lines),
                   time.monotonic() - began, notes=notes, ended=writer.ended, written=writer.written, read=end.read,
                   unread=end.unread,
                   through="stdin" if ends.master is None else "terminal", left=end.left,
                   never=max(0, total - writer.written) if end.left is not None else 0)


def _run(proc: Process, writer: _Writer, drain: _Drain, total: int) -> _End:
    """Write while the consumer runs, until it exits or the deadline; the suite's ends closed after.

    Any exception (Ctrl-C) kills the consumer's group first and is re-raised.
    """
    ends = writer.ends
    try:
        writer.thread.start()
        status = proc.wait(writer.deadline - time.monotonic())
        end = _hung(proc, writer) if status is None else _exited(proc, writer, status, total)
        drain.thread.join(GRACE_SECONDS)
        return end
    except BaseException as exc:
        proc.kill()
        if isinstance(exc, KeyboardInterrupt):  # what this run had written counts: "after N lines" (the feed's report)
            writer.join()
            exc.lines_fed = writer.fed  # type: ignore[attr-defined]
        raise
    finally:
        writer.join()
        if ends.master is not None and writer.done:
            os.close(ends.master)
        if ends.inlet is not None and not ends.inlet_closed and writer.done:
            os.close(ends.inlet)
        if ends.witness is not None:
            os.close(ends.witness)


def _hung(proc: Process, writer: _Writer) -> _End:
    """Still running at the deadline: how far it read (when its stdin pipe can be looked into), then killed."""
    read = unread = None
    writer.join()  # the writer stops first, so what was written is counted before the pipe is looked into
    if writer.pipe is not None and writer.done:
        unread = _unread_in_stdin(proc.popen.pid, writer.pipe)
        if unread is not None:
            read = sum(1 for end in writer.line_ends if end <= writer.written - unread)
    proc.kill()
    return _End(proc.popen.returncode, True, read, unread)


def _exited(proc: Process, writer: _Writer, status: int, total: int) -> _End:
    """It exited: nothing more is written to it (the witness keeps EPIPE away); what it left unread."""
    writer.join()
    proc.reap_group()  # a child that keeps stdout open must not keep us here
    left = _left(total, writer.written, writer.ends.witness) if writer.done else None
    return _End(status, False, left=left)


def _left(total: int, written: int, witness: int | None) -> int | None:
    """Bytes of a ``total``-byte stream a consumer that exited did not read: never written to it,
    plus those still in its stdin (asked of the ``witness``: the pipe's read end, or the terminal's
    slave end, whose input queue keeps what was not read); without one only the first are known."""
    never = max(0, total - written)  # through a terminal the end of input (VEOF) is one byte written more
    waiting = pending(witness) if witness is not None else None
    if waiting is None:
        return never if never > 0 else None
    return never + waiting
