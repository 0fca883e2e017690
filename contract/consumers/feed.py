"""Judging a stream-json consumer: feed it the goldens (and their future variants) and watch it.

``milk-contract feed -- CONSUMER…`` runs the consumer once per stream, the stream on its stdin
written line by line with a pause between lines (as a live emitter writes; through a pipe or,
with ``pty``, a pseudo-terminal), each line once the consumer has taken the one before (so a
consumer that stops early has not pulled the rest into a buffer of its own), and judges how it
ended:

- ``consumer.crash``: it exited with a status other than 0, or was killed by a signal;
- ``consumer.hang``: it was still running ``timeout`` seconds after it started (its process group
  and descendants are killed, as ``contract.live.harness.Process`` kills an emitter's);
- ``consumer.early-exit``: it exited 0 with some of the stream unread (through a pipe the suite holds
  a copy of the read end, so what is left in it is known; through a terminal only what was never
  written);
- ``consumer.output``: an expectation was given and its stdout does not meet it (or its stdout
  passed the capture bound, so it could not be compared: fail closed).

With ``future``, each golden is also transformed the ways the seed lets a producer change a stream
without a new ADR (the wire's ``Wire.future``), drawn by hypothesis; the first failing variant
of a golden is shrunk to the fewest, simplest changes that still fail, and reported with its
changes and its stream. Every variant is conformant under ``check --strict`` (tests hold it), so
a consumer that fails one fails on a stream a conformant milk may write.

Every wait is bounded (``timeout`` per stream, the shrink budget per golden) and every buffer too:
the consumer's stdout is kept up to ``max_output_bytes`` (read on, and dropped, beyond it), its
stderr as the harness keeps an emitter's (a bounded tail).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import select
import shlex
import termios
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

import orjson

from contract.consumers.pacing import PTY_SETTLE_SECONDS, drained, pending
from contract.core import textsafe
from contract.core.interrupts import signal_of
from contract.core.jsonvalue import clip, quoted, shown
from contract.live.harness import (
    GRACE_SECONDS,
    Interrupted,
    Process,
    StartError,
    describe_status,
    internal,
    interrupted,
)
from contract.rules.report import Collector, Report
from contract.rules.requirements import CHECKER_RULES, Scope
from contract.wires import Live, first, get

RULES = frozenset({"consumer.crash", "consumer.hang", "consumer.early-exit", "consumer.output", "run.start",
                   "run.interrupted", "checker.internal"})
WIRE = first(Live.STREAM).name  # the default wire fed (--wire); a conversation wire plays the host
DEFAULT_TIMEOUT = 10.0
DEFAULT_PACE = 0.002  # seconds between lines: a live emitter's lines arrive apart, not in one read
DEFAULT_EXAMPLES = 10  # future variants per golden
DEFAULT_SHRINK_SECONDS = 30.0
MAX_SHRINK_RUNS = 200
DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024  # the consumer's stdout kept for comparison
PTY_LINE_BYTES = 4095  # a terminal's canonical line discipline holds at most this much of a line
SHOWN_LINES = 200  # of a failing stream, after a text report (--transcript FILE saves the first one whole)
SHOWN_LINE_CHARS = 300  # of each of those lines


class ExpectationError(ValueError):
    """An expectation file that cannot be used (misuse: the CLI says so on one line)."""


@dataclass(frozen=True)
class Expectation:
    """What the consumer's stdout must be: exactly ``stdout``, and/or a last line reporting ``members``.

    ``members`` maps a member of the JSON object on the consumer's last non-empty stdout line to a
    JSON pointer into the fed stream's result line: ``{"is_error": "/is_error", "text": "/result"}``
    says the consumer reports the result's is_error and final text. A pointer that finds nothing
    (no result line, no such member) expects ``null``.
    """

    stdout: bytes | None = None
    members: Mapping[str, str] | None = None

    @property
    def given(self) -> bool:
        return self.stdout is not None or self.members is not None


def load_members(document: Any) -> dict[str, str]:
    """The members contract from a parsed JSON file; ExpectationError when it is not one."""
    if not isinstance(document, dict) or set(document) != {"members"} or not isinstance(document["members"], dict):
        raise ExpectationError('expected {"members": {NAME: "/json/pointer", ...}}')
    members = document["members"]
    if not members:
        raise ExpectationError("expected at least one member")
    for name, pointer in members.items():
        if not isinstance(pointer, str) or not (pointer == "" or pointer.startswith("/")):
            raise ExpectationError(f"member {quoted(clip(name))}: expected a JSON pointer, "  # the CLI escapes it
                                   f"found {clip(shown(pointer))}")
    return dict(members)


def members_problem(members: Mapping[str, str], goldens: Sequence[Any]) -> str | None:
    """Why an ``--expect-json`` contract cannot hold on these goldens (None when it can).

    A pointer finds nothing in a result line that lacks its member, and then expects ``null``
    (an error run's result has no ``/result``: a consumer reports none). A pointer that finds
    nothing in the result line of any golden fed expects ``null`` of every stream, so a typo
    such as ``/reslt`` would pass a consumer that reports nothing and fail a correct one: that
    is misuse, said before anything is fed.
    """
    results = [(golden.name, _result_line(golden.data())) for golden in goldens]
    for name, pointer in members.items():
        if not any(result is not None and _found(result, pointer) for _, result in results):
            where = (f"golden {results[0][0]}" if len(results) == 1
                     else f"any of the {textsafe.counted(len(results), 'golden')} fed")
            return (f"member {quoted(clip(name))}: {quoted(clip(pointer))} finds nothing in the result line of "
                    f"{where}, so it could only ever expect null (a pointer into the stream's result line, "
                    "such as /result or /is_error, is needed)")
    return None


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
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        read = getattr(self._stream, "read1", self._stream.read)
        with contextlib.suppress(OSError, ValueError):
            while chunk := read(65536):
                self.total += len(chunk)
                room = self._limit - len(self.kept)
                if room > 0:
                    self.kept += chunk[:room]


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
    lines = [line + b"\n" for line in data.split(b"\n")[:-1]] if data.endswith(b"\n") else data.splitlines(True)
    # each line's pause after it: one for all, or a sequence (contract.goldens.pacing, --pace recorded)
    pauses = [pace] * len(lines) if isinstance(pace, (int, float)) else [*pace, *[0.0] * len(lines)][:len(lines)]
    pieces = list(zip(lines, pauses, strict=True)) if chunks is None else list(chunks)
    if b"".join(piece for piece, _ in pieces) != data:
        raise ValueError("the chunks to write are not the stream")  # a bug of the caller
    notes: list[str] = []
    if pty and any(len(line) > PTY_LINE_BYTES for line in lines):
        notes.append(f"a line longer than {PTY_LINE_BYTES} bytes cannot pass a terminal's line discipline: "
                     "this stream was fed through a pipe")
        pty = False
    master = slave = None
    if pty:
        master, slave = _pty()
        os.set_blocking(master, False)
    # Through a pipe, the suite makes it and keeps a copy of its read end (the witness, never read
    # from): once the consumer has exited, what is still in the pipe is what it left unread
    # (through /proc/PID/fd/0 it could no longer be seen). The copy keeps a write from failing
    # with EPIPE when the consumer exits early, so the writer is stopped when it exits.
    witness = inlet = None
    if not pty:
        witness, inlet = os.pipe()
    began = time.monotonic()
    try:
        proc = Process(argv, env=env, stdin_fd=slave if pty else witness)
    except StartError as exc:
        for fd in (master, slave, witness, inlet):
            if fd is not None:
                os.close(fd)
        return Outcome(None, False, b"", 0, "", 0, len(lines), 0.0, start_error=str(exc))
    # Through a terminal the suite keeps its own copy of the slave end (the terminal's witness):
    # what the consumer left unread stays in the terminal's input queue, asked with FIONREAD once
    # it has exited (a second outside review: a consumer that read one line passed under --pty).
    if slave is not None:
        witness = slave
    deadline = began + timeout
    # written to the pty's master, or straight to the stdin pipe's fd (non-blocking): every byte
    # written is counted, so a consumer found hanging is told how much of it it had read
    target = master if master is not None else inlet if inlet is not None else -1
    pipe = None
    if master is None and target >= 0:
        os.set_blocking(target, False)
        pipe = os.fstat(target).st_ino
    fed, written, ends = [0], [0], list[int]()
    ended, inlet_closed = [False], [False]
    left: int | None = None
    stop = threading.Event()  # set before the pty is closed: the writer must not touch a reused fd

    def put(data: bytes) -> bool:
        sent = _write_fd(target, data, deadline, stop)
        written[0] += sent
        return sent == len(data)

    def write() -> None:
        try:
            for number, (piece, pause) in enumerate(pieces):
                if not put(piece):
                    return
                for _ in range(piece.count(b"\n")):
                    fed[0] += 1
                    ends.append(written[0])  # (within a piece the end is its end: enough for a count)
                if pause:
                    stop.wait(pause)
                if number + 1 < len(pieces):
                    # the next piece only once the consumer has taken this one: a consumer that stops
                    # early cannot have pulled the rest into its own buffer first (stdio, a runtime's
                    # reader), so what it never asked for is never written, and counted unread
                    drained(witness, deadline, stop, PTY_SETTLE_SECONDS if master is not None else 0.0)
            if pieces and not pieces[-1][0].endswith(b"\n"):
                fed[0] += 1  # a last line without its end of line was written too
            if linger:
                stop.wait(linger)  # stdin held open after the last byte (the result), as a producer may
            if master is not None:  # VEOF (^D) after the last LF: the consumer's read returns 0 bytes
                ended[0] = put(bytes([termios.tcgetattr(master)[6][termios.VEOF][0]]))
            elif inlet is not None:
                inlet_closed[0] = True
                os.close(inlet)  # the end of input: the witness is a reader, not a writer
                ended[0] = True
        except (OSError, ValueError):  # the consumer went away (EIO on a pty, a closed pipe): stop writing
            return

    with proc:
        drain = _Drain(proc.stdout, max_output_bytes)
        writer = threading.Thread(target=write, daemon=True)
        try:
            writer.start()
            status = proc.wait(deadline - time.monotonic())
            hung = status is None
            read = unread = None
            if hung:
                stop.set()  # the writer stops first, so what was written is counted before the pipe is looked into
                writer.join(GRACE_SECONDS)
                if pipe is not None and not writer.is_alive():
                    unread = _unread_in_stdin(proc.popen.pid, pipe)
                    if unread is not None:
                        read = sum(1 for end in ends if end <= written[0] - unread)
                proc.kill()
                status = proc.popen.returncode
            else:
                stop.set()  # it exited: nothing more is written to it (the witness keeps EPIPE away)
                writer.join(GRACE_SECONDS)
                proc.reap_group()  # a child that keeps stdout open must not keep us here
                if not writer.is_alive():
                    left = _left(sum(len(line) for line in lines), written[0], witness)
            drain.thread.join(GRACE_SECONDS)
        except BaseException:
            proc.kill()
            raise
        finally:
            stop.set()
            writer.join(GRACE_SECONDS)
            if master is not None and not writer.is_alive():
                os.close(master)
            if inlet is not None and not inlet_closed[0] and not writer.is_alive():
                os.close(inlet)
            if witness is not None:
                os.close(witness)
    if drain.thread.is_alive():
        notes.append("the consumer's stdout was still open after it exited and its group was killed")
    return Outcome(status, hung, bytes(drain.kept), drain.total, proc.stderr_tail(), fed[0], len(lines),
                   time.monotonic() - began, notes=notes, ended=ended[0], written=written[0], read=read,
                   unread=unread,
                   through="stdin" if master is None else "terminal", left=left,
                   never=max(0, sum(len(line) for line in lines) - written[0]) if left is not None else 0)


def _left(total: int, written: int, witness: int | None) -> int | None:
    """Bytes of a ``total``-byte stream a consumer that exited did not read: never written to it,
    plus those still in its stdin (asked of the ``witness``: the pipe's read end, or the terminal's
    slave end, whose input queue keeps what was not read); without one only the first are known."""
    never = max(0, total - written)  # through a terminal the end of input (VEOF) is one byte written more
    waiting = pending(witness) if witness is not None else None
    if waiting is None:
        return never if never > 0 else None
    return never + waiting


def hang_detail(outcome: Outcome) -> str:
    """What is known of how far a consumer found hanging got: lines written, and read when known."""
    whole = (f"all {textsafe.counted(outcome.lines, 'line')}" if outcome.fed == outcome.lines and outcome.lines != 1
             else f"{outcome.fed} of {textsafe.counted(outcome.lines, 'line')}")
    written = f"{whole}{' and the end of input' if outcome.ended else ''} written to its {outcome.through}"
    if not outcome.written:
        return written
    if outcome.read is None or outcome.unread is None:
        return f"{written}; how much of it it read is not known"
    taken = outcome.written - outcome.unread
    if taken <= 0:
        return f"{written}; it had read none of it (all {textsafe.counted(outcome.written, 'byte')} waiting unread)"
    if outcome.unread == 0:
        return f"{written}; it had read all of it"
    return (f"{written}; it had read {taken} of the {textsafe.counted(outcome.written, 'byte')} "
            f"({textsafe.counted(outcome.read or 0, 'line')} whole)")


def _pointer(document: Any, pointer: str) -> Any:
    """RFC 6901; None when the pointer finds nothing (the expectation is then null)."""
    return _walk(document, pointer)[1]


def _found(document: Any, pointer: str) -> bool:
    """Whether ``pointer`` finds a value in ``document`` (a null it finds is found)."""
    return _walk(document, pointer)[0]


def _walk(document: Any, pointer: str) -> tuple[bool, Any]:
    """RFC 6901: (found, the value found or None)."""
    for token in pointer[1:].split("/") if pointer else ():
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(document, dict) and token in document:
            document = document[token]
        elif isinstance(document, list) and token.isdigit() and int(token) < len(document):
            document = document[int(token)]
        else:
            return False, None
    return True, document


def _result_line(data: bytes) -> Any:
    for raw in reversed(data.split(b"\n")):
        with contextlib.suppress(orjson.JSONDecodeError):
            value = orjson.loads(raw) if raw.strip() else None
            if isinstance(value, dict) and value.get("type") == "result":
                return value
    return None


def _same(a: Any, b: Any) -> bool:
    """JSON equality that tells 1 from 1.0 and true from 1 (a consumer reports what it read)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _show(value: bytes | str, limit: int = 120) -> str:
    text_ = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
    return textsafe.text(clip(text_, limit))


@dataclass(frozen=True)
class Finding:
    rule: str
    message: str
    hint: str | None = None


def judge(outcome: Outcome, data: bytes, expect: Expectation, label: str, golden: bool = False) -> list[Finding]:
    """The consumer findings for one run on ``data``; ``label`` names the stream (already escaped),
    ``golden`` says it is a golden as recorded (not a future variant), which the crash hint follows."""
    findings: list[Finding] = []
    said = said_on_stderr(outcome.stderr)
    if outcome.hung:
        findings.append(Finding(
            "consumer.hang",
            f"expected the consumer to exit on {label}, found it still running after {outcome.elapsed:.3g}s "
            f"({hang_detail(outcome)}); killed it and its process group{said}",
            "a consumer exits at the end of its input (or after the result line), whatever else it saw"))
        return findings
    if outcome.status != 0:
        findings.append(Finding(
            "consumer.crash",
            f"expected exit status 0 on {label}, found {describe_status(outcome.status or 0)}{said}",
            crash_hint(golden)))
    elif outcome.left:  # exited 0 with some of the stream unread: its exit says nothing of the rest
        total = len(data)
        none = outcome.left >= total
        findings.append(Finding(
            "consumer.early-exit",
            f"expected the consumer to read {label} to its end before it exited, found it exited 0 with "
            + (f"none of its {textsafe.counted(total, 'byte')} read: nothing of the wire was exercised" if none
               else f"{outcome.left} of its {textsafe.counted(total, 'byte')} unread"
                    + (f" ({outcome.never} never written: the next line is written once the consumer has taken "
                       "the one before)" if outcome.never else ""))
            + f" ({outcome.fed} of {textsafe.counted(outcome.lines, 'line')} written to its {outcome.through}){said}",
            "read stdin to its end (or to the result line, the last); exit 0 only then"))
    if not expect.given:
        return findings
    if outcome.overflowed:
        findings.append(Finding(
            "consumer.output",
            f"expected output to compare on {label}, found {outcome.stdout_bytes} bytes, more than the "
            f"{len(outcome.stdout)} kept (--max-output-bytes): not compared"))
        return findings
    if expect.stdout is not None and outcome.stdout != expect.stdout:
        findings.append(Finding(
            "consumer.output",
            f"expected stdout {_show(expect.stdout)!s} on {label}, found {_show(outcome.stdout)!s}"))
    if expect.members is not None:
        findings.extend(_members(outcome.stdout, data, expect.members, label))
    return findings


def said_on_stderr(stderr: str) -> str:
    """What a finding quotes of the consumer's stderr: its first error and last lines
    (contract.core.stderr_tail, bounded), escaped as the rest of the message is."""
    from contract.core.stderr_tail import excerpt

    shown = excerpt(stderr)
    return f"; its stderr: {textsafe.text(shown)}" if shown else ""


def crash_hint(golden: bool) -> str:
    """The hint a crash gets: a golden as recorded is today's wire, which the consumer does not
    read; only a future variant's crash is about values it does not recognize."""
    if golden:
        return ("this stream is a golden as recorded, what a conformant milk writes today: the consumer fails "
                "on the wire's current shape, not on anything new (its stderr says where)")
    return ("ignore line types, subtypes, block and delta types and members you do not recognize "
            "(the seed: 'consumers must ignore values they don't recognize')")


def _members(stdout: bytes, data: bytes, members: Mapping[str, str], label: str) -> list[Finding]:
    lines = [raw for raw in stdout.split(b"\n") if raw.strip()]
    try:
        report = orjson.loads(lines[-1]) if lines else None
    except orjson.JSONDecodeError:
        report = None
    if not isinstance(report, dict):
        return [Finding("consumer.output",
                        f"expected a JSON object on the consumer's last stdout line on {label}, found "
                        + (_show(lines[-1]) if lines else "no output"))]
    result = _result_line(data)
    found = []
    for name, pointer in members.items():
        want = _pointer(result, pointer) if result is not None else None
        have = report.get(name)
        if name not in report or not _same(have, want):
            got = "no such member" if name not in report else _show(json.dumps(have, ensure_ascii=False))
            found.append(Finding(
                "consumer.output",
                f"expected {textsafe.text(clip(name))} = {_show(json.dumps(want, ensure_ascii=False))} (the result "
                f"line's {textsafe.text(clip(pointer))}) on {label}, found {got}"))
    return found


# -- the search over future variants -------------------------------------------------------------


@dataclass
class Failure:
    """A stream the consumer failed on: what it was, how it ended, what was found."""

    scenario: str
    variant: str  # its name
    changes: str  # what was changed, for a person
    data: bytes
    outcome: Outcome
    findings: list[Finding]
    shrink_runs: int = 0
    shrink_cut: bool = False


@dataclass
class FeedResult:
    """What feeding found: the report to print, and each failing stream (or conversation)."""

    report: Report
    seed: int
    failures: list[Failure] = field(default_factory=list)
    streams: int = 0  # consumer runs in all
    broken: bool = False  # the streams fed are broken on purpose (feed --broken): none is conformant


BROKEN_ONLY = "judged only when the consumer is fed broken streams (feed --broken)"


class Feed:
    """What every feed loop shares (a consumer's streams, a client's conversations): the report and
    its collector, the result, how a party that cannot start, an interruption and a fault of the
    feeder end it, and which rules a loop that ran to its end judged."""

    def __init__(self, argv: Sequence[str], seed: int | None, wire: str) -> None:
        self.seed = seed if seed is not None else random.SystemRandom().randrange(2**32)
        self.report = Report(wire=wire, source=shlex.join(argv), scope=Scope.FEED)
        self.out = Collector(self.report)
        self.out.exercised("run.start")
        self.result = FeedResult(self.report, self.seed)
        self.started = False  # a party ran: the loop's rules judged something
        self.faulted = False
        self.doing = ""  # what the loop is feeding now (a scenario, its future variants): an interruption says it

    def held(self, outcome: Outcome, who: str = "consumer") -> FeedResult | None:
        """Count one stream held (and its lines); the feed's end when ``who`` could not start, else None."""
        self.result.streams += 1
        self.report.lines += outcome.lines
        if outcome.start_error is not None:
            return self.cannot_start(outcome.start_error, who)
        self.started = True
        return None

    def cannot_start(self, error: str, who: str) -> FeedResult:
        self.out.emit("run.start", None, None, f"expected a {who} that starts, found: {error}",
                      "check the command and PATH")
        return self.result

    @contextlib.contextmanager
    def guarded(self, who: str, feeder: str) -> Iterator[None]:
        """Ctrl-C, SIGTERM or SIGHUP: ``run.interrupted`` naming the signal, then
        :class:`contract.live.harness.Interrupted`; any other fault of the feeder is ``checker.internal``
        (never a pass, never a traceback) and ends the loop."""
        try:
            yield
        except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM/SIGHUP (contract.core.interrupts)
            signum = signal_of(exc)
            interrupted(self.report, f"the {who}", signum)
            doing = f" while feeding {self.doing}" if self.doing else ""
            self.report.notes.append(f"feed: interrupted{doing} (seed {self.seed}: --seed {self.seed} feeds the "
                                     "same variants again)")
            raise Interrupted(self.report, signum=signum) from None
        except Exception as exc:
            internal(self.report, feeder, exc)
            self.faulted = True

    def end(self, *judged: str) -> FeedResult:
        """The result; a loop that ran to its end judged these rules, and ``judged`` too."""
        if self.started and not self.faulted:
            for rule in ("consumer.crash", "consumer.hang", "run.interrupted", *judged):
                self.out.exercised(rule)
            # the feeder finished and hit no bound it did not report: checker.* by declaration, as
            # every check (contract.rules.requirements.CHECKER_RULES)
            self.report.exercised.update(CHECKER_RULES)
        return self.result


class ShrinkSpent(BaseException):
    """Ends hypothesis' search once the shrink budget is spent (contract.live.fuzz says why a BaseException)."""


class Search:
    """The condition hypothesis searches with: feed the variant, does the consumer fail on it?

    A variant has ``data`` (the bytes it is known by) and ``changes`` (a sequence: fewer is
    smaller); ``run(variant)`` returns (outcome, findings), no findings being a pass. Shared by
    the stream-json and the subagent-stdio client modes (``contract.consumers.feed_client``).
    """

    def __init__(self, run: Any, examples: int, shrink_seconds: float) -> None:
        self.run = run
        self.examples = examples
        self.shrink_seconds = shrink_seconds
        self.searched = 0
        self.shrink_runs = 0
        self.shrink_until: float | None = None
        self.shrink_cut = False
        self.failures: dict[bytes, tuple[Any, Outcome, Any]] = {}
        self.verdicts: dict[bytes, bool] = {}

    def __call__(self, variant: Any) -> bool:
        key = variant.data
        if key in self.verdicts:
            return self.verdicts[key]
        if self.shrink_until is None:
            if self.searched >= self.examples:
                return False
            self.searched += 1
        else:
            if time.monotonic() >= self.shrink_until or self.shrink_runs >= MAX_SHRINK_RUNS:
                self.shrink_cut = True
                raise ShrinkSpent
            self.shrink_runs += 1
        outcome, findings = self.run(variant)
        failed = bool(findings)
        self.verdicts[key] = failed
        if failed:
            if self.shrink_until is None:
                self.shrink_until = time.monotonic() + self.shrink_seconds
            self.failures[key] = (variant, outcome, findings)
            if len(self.failures) > 50:  # bounded: drop the largest
                del self.failures[max(self.failures, key=len)]
        return failed

    def smallest(self, answer: Any) -> tuple[Any, Outcome, Any] | None:
        if answer is not None and answer.data in self.failures:
            return self.failures[answer.data]
        if not self.failures:
            return None
        return min(self.failures.values(), key=lambda f: (len(f[0].changes), len(f[0].data)))


def _paced(options: dict[str, Any], golden: Any, data: bytes) -> dict[str, Any]:
    """``options`` for one golden: ``pace="recorded"`` becomes its own recorded delays (--pace recorded)."""
    if options.get("pace") != "recorded":
        return options
    from contract.goldens.pacing import delays

    lines = data.count(b"\n")
    return {**options, "pace": [*delays("recorded", golden.path, lines)[1:], 0.0]}  # the pause after each line


def feed_stream(
    argv: Sequence[str],
    goldens: Iterable[Any],
    *,
    future: bool = False,
    examples: int = DEFAULT_EXAMPLES,
    seed: int | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    pace: float | str = DEFAULT_PACE,
    pty: bool = False,
    expect: Expectation = Expectation(),
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
    shrink_seconds: float = DEFAULT_SHRINK_SECONDS,
) -> FeedResult:
    """Feed the consumer every golden (and, with ``future``, its variants); the verdict as a Report.

    Ctrl-C raises :class:`contract.live.harness.Interrupted` with what was found so far (``run.interrupted``).
    """
    argv = list(argv)
    goldens = list(goldens)
    if not goldens:  # feeding nothing is never a pass
        raise ValueError("no golden to feed")
    feed = Feed(argv, seed, WIRE)
    result, out = feed.result, feed.out
    options: dict[str, Any] = {"timeout": timeout, "pace": pace, "pty": pty, "max_output_bytes": max_output_bytes}
    with feed.guarded("consumer", "consumer feeder"):
        for golden in goldens:
            feed.doing = f"the golden {golden.name}"
            data = golden.data()
            outcome = hold(argv, data, **_paced(options, golden, data))
            stopped = feed.held(outcome)
            if stopped is not None:
                return stopped
            feed.report.notes.extend(f"{golden.name}: {note}" for note in outcome.notes)
            label = f"the golden {textsafe.text(golden.name)}"
            findings = judge(outcome, data, expect, label, golden=True)
            _record(result, out, Failure(golden.name, golden.name, "the golden as recorded", data, outcome,
                                         findings))
            if future and not findings:
                feed.doing = f"the future variants of {golden.name}"
                _search_future(result, out, argv, golden, data, options, expect, examples, shrink_seconds)
    # consumer.early-exit is judged through a pipe and a terminal alike (each has its witness)
    if not expect.given:
        feed.report.unasked["consumer.output"] = "no --expect-stdout or --expect-json was given"
    feed.report.unasked["consumer.dishonest"] = BROKEN_ONLY
    return feed.end(*(("consumer.output",) if expect.given else ()), "consumer.early-exit")


def _record(result: FeedResult, out: Collector, failure: Failure) -> None:
    for finding in failure.findings:
        out.emit(finding.rule, None, None, finding.message, finding.hint)
    if failure.findings:
        result.failures.append(failure)
        note_failure(out, failure, saved=len(result.failures) == 1)


record = _record  # for the other feed loops (contract.consumers.broken_feed, contract.consumers.transport)


def note_failure(out: Collector, failure: Failure, saved: bool) -> None:
    """Say in the report itself (every format) which stream failed and where to see it.

    ``saved``: it is the first failing stream, the one ``--transcript FILE`` writes (the CLI saves
    that one only); a later one is shown, not saved.
    """
    lines = failure.data.count(b"\n")
    where = ("saved whole by --transcript FILE" if saved
             else "not saved by --transcript FILE, which saves the first failing stream")
    out.note(f"failing stream {textsafe.text(failure.variant)} ({textsafe.counted(lines, 'line')}): "
             f"{textsafe.text(clip(failure.changes, 400))}; shown after a text report (on stderr for "
             f"the other formats; up to {SHOWN_LINES} lines of up to {SHOWN_LINE_CHARS} characters), {where}")


def _search_future(result: FeedResult, out: Collector, argv: list[str], golden: Any, data: bytes,
                   options: dict[str, Any], expect: Expectation, examples: int, shrink_seconds: float) -> None:
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis.errors import NoSuchExample

    future = golden.descriptor.load_future()
    if future is None:
        out.note(f"{golden.name}: the {golden.wire} wire has no future variants (Wire.future)")
        return
    golden_lines = [orjson.loads(raw) for raw in data.split(b"\n") if raw.strip()]
    try:
        strategy = future.variants(golden.name, golden_lines)
    except ValueError as exc:
        out.note(f"{golden.name}: {exc}")
        return

    def run(variant: Any) -> tuple[Outcome, list[Finding]]:
        outcome = hold(argv, variant.data, **options)
        result.streams += 1
        result.report.lines += outcome.lines
        label = f"{textsafe.text(variant.name)} ({textsafe.text(clip(variant.describe(), 400))})"
        return outcome, judge(outcome, variant.data, expect, label)

    search = Search(run, examples, shrink_seconds)
    shape = settings(max_examples=examples, deadline=None, database=None, derandomize=False,
                     suppress_health_check=list(HealthCheck), phases=(Phase.generate, Phase.shrink))
    answer = None
    trouble: Exception | None = None
    try:
        answer = find(strategy, search, settings=shape, random=random.Random(result.seed))
    except (NoSuchExample, ShrinkSpent):
        pass
    except Exception as exc:  # hypothesis gave up: what was held still counts, and a search that broke is no pass
        trouble = exc
    found = search.smallest(answer)
    if found is None:
        if trouble is not None:
            internal(result.report, "future-variant search", trouble)
            return
        if search.searched == 0:  # nothing was varied: no pass can be claimed for --future
            internal(result.report, "future-variant search", RuntimeError(f"no variant of {golden.name} was generated"))
            return
        out.note(f"{golden.name}: the golden and {search.searched} future variants accepted (seed {result.seed})"
                 + (f"; {examples - search.searched} generated variants repeated earlier ones and were not fed again"
                    if search.searched < examples else ""))
        return
    variant, outcome, findings = found
    failure = Failure(golden.name, variant.name, variant.describe(), variant.data, outcome, findings,
                      search.shrink_runs, search.shrink_cut)
    _record(result, out, failure)
    out.note(f"{golden.name}: a failing future variant found within {search.searched} generated ones (seed "
             f"{result.seed}), shrunk to {textsafe.counted(len(variant.changes), 'change')} in "
             f"{textsafe.counted(search.shrink_runs, 'more run', 'more runs')}"
             + (" (shrinking stopped at its budget: the smallest failing variant found so far)"
                if search.shrink_cut else ""))


def describe(result: FeedResult, replay: str, max_line_chars: int = SHOWN_LINE_CHARS) -> str:
    """Each failing stream as text: the variant, its changes, the stream fed, how to find it again."""
    if not result.failures:
        return ""
    out: list[str] = []
    for number, failure in enumerate(result.failures):
        out += ["", f"failing stream: {textsafe.text(failure.variant)}",
                f"changes: {textsafe.text(clip(failure.changes, 2000))}",
                _heading(result.report.wire, saved=number == 0, max_line_chars=max_line_chars,
                         broken=result.broken)]
        lines = failure.data.split(b"\n")
        if lines and not lines[-1]:
            lines.pop()
        for index, raw in enumerate(lines[:SHOWN_LINES], 1):
            out.append(f"{index:>4} {textsafe.json_line(clip(raw.decode('utf-8', 'replace'), max_line_chars))}")
        if len(lines) > SHOWN_LINES:
            out.append(f"     … {textsafe.counted(len(lines) - SHOWN_LINES, 'more line', 'more lines')} not shown")
    out += ["", f"seed: {result.seed}; find it again with: {replay}"]
    return "\n".join(out) + "\n"


def _heading(wire: str, saved: bool, max_line_chars: int, broken: bool = False) -> str:
    """What the lines below are, and what ``--transcript FILE`` holds and how to use it (first failure only)."""
    clipped = f"each line shown up to {max_line_chars} characters"
    if broken:
        return (f"broken stream fed ({clipped}; " + ("--transcript FILE saves it whole: `milk-contract check FILE` "
                "finds it not conformant, as meant, and `CONSUMER < FILE` feeds it again):" if saved else
                "--transcript FILE saves the first failing stream, not this one):"))
    if get(wire).live is Live.STREAM:
        if not saved:
            return f"stream fed ({clipped}; --transcript FILE saves the first failing stream, not this one):"
        return (f"stream fed ({clipped}; --transcript FILE saves it whole, byte for byte as fed: "
                "`milk-contract check --strict FILE` finds it conformant, and `CONSUMER < FILE` feeds it again):")
    if not saved:
        return (f"conversation, both directions in order ({clipped}; --transcript FILE saves the first failing "
                "conversation, not this one):")
    return (f"conversation, both directions in order ({clipped}; --transcript FILE saves it whole: "
            f"`milk-contract check --wire {wire} FILE` gives its {wire} findings again; how the client ended "
            "is not in it):")


__all__ = ["DEFAULT_EXAMPLES", "Expectation", "ExpectationError", "FeedResult", "Outcome", "describe", "feed_stream",
           "hold", "judge", "load_members"]
