"""One live conversation while it runs: the host's lines read, the plan's commands written, each answer awaited.

``contract.live.driver.record`` starts the host and judges the transcript; what happens in between
is here. A :class:`Session` holds the conversation's state: a reader thread moves the host's
stdout, whole lines, into an inbox, and the session takes them into the transcript in order with
the commands it writes (``send``), waits for each response with a deadline (``await_answers``),
times them (``run.response-late``), and ends the host (``finish``: stdin closed, the exit awaited
with its grace, descendants holding stdout read on for the late grace). :func:`run_steps` is the
loop over a plan's steps. What goes wrong is a :class:`Finding` the driver emits after judging the
transcript. With an early stop (``Session.stop_early``), a watch judges each line as it is
added (private to the driver: ``record`` has refused an ``ignore`` that cannot be, before it is made).

Nothing waits unbounded: every wait has a deadline, and a flood ends at ``max_output_bytes``.
"""

from __future__ import annotations

import contextvars
import fcntl
import queue
import sys
import termios
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import orjson

from contract.checking.pipeline import Judge
from contract.core.reader import Block, frame
from contract.core.textsafe import counted
from contract.live import timeline
from contract.live.harness import (
    DEFAULT_LATE_GRACE,
    GRACE_SECONDS,
    LimitedStream,
    Process,
    describe_status,
    identity,
)
from contract.live.plan import Step, writes
from contract.live.timeline import DEFAULT_LIVENESS, Clock
from contract.rules.report import Collector, Report
from contract.rules.requirements import Scope
from contract.wires import Dialogue, Wire

EXIT_GRACE = 1.0  # after stdin closes, a host gets at least this long to exit, whatever is left

# After an early stop, the host may still be writing what it owes: it gets this long of quiet
# (each line it writes starts it again, within its response timeout) before it is killed.
SETTLE_QUIET = 1.0


@dataclass
class Finding:
    """What only the live run shows (a ``run.*`` rule), emitted once the transcript is judged."""

    rule: str
    line: int | None
    message: str
    hint: str | None = None


class _Watch:
    """Each transcript line judged as it is added, to see when the verdict can no longer pass.

    The same reader (one line at a time, as ``check`` reads a live pipe), schema step and
    rule machines as the final judgement, fed in transcript order but never finished: a
    finding made while feeding depends only on the lines up to it, so it is also in the
    judgement of any transcript that starts with them. Only which line the conversation
    stops at is decided here; the verdict is still the final judgement's.
    """

    def __init__(self, strict: bool, ignore: Iterable[str], max_line_bytes: int, wire: Wire) -> None:
        self.report = Report(wire=wire.name, strict=strict, scope=Scope.LIVE)
        self._out = Collector(self.report, ignore)
        self._judge = Judge(wire.name, self._out)
        self._max_line_bytes = max_line_bytes
        self._ansi = wire.ansi
        self.lines = 0
        self.failed_at: int | None = None  # the line that made the conversation non-conformant
        self.fault: BaseException | None = None  # the watch's own fault: it then stops watching

    def add(self, line: bytes) -> None:
        """Judge one whole line (ending in LF)."""
        if self.failed_at is not None or self.fault is not None:
            return
        try:
            block = Block([line[:-1]], False, True, True)
            for record in frame(block, self.lines, self._out, self._max_line_bytes, None, ansi=self._ansi):
                self._judge.feed(record)
            self.lines += 1
            if not self.report.conformant:
                self.failed_at = self.lines
        except Exception as exc:  # never a verdict: the conversation just runs to its end
            self.fault = exc

    def rules(self) -> list[str]:
        """The rules of the findings that made it fail."""
        return sorted({v.rule for v in self.report.failing()} or set(self.report.counts))


@dataclass
class Session:
    """The state of one conversation while it runs."""

    proc: Process
    deadline: float
    response_timeout: float
    max_line_bytes: int
    max_output_bytes: int
    types: Dialogue  # the held wire's line types: a command, the host's answer to one (Wire.dialogue)
    transcript: list[bytes] = field(default_factory=list)
    lines: int = 0  # lines in the transcript (LF-terminated)
    sent: list[tuple[int, float]] = field(default_factory=list)  # (line, time) per command sent
    answered: int = 0
    steps_done: int = 0  # steps completed (each sent and answered): what an interruption leaves
    eof: bool = False
    findings: list[Finding] = field(default_factory=list)
    inbox: queue.Queue[bytes | None] = field(default_factory=queue.Queue)
    stream: LimitedStream | None = None
    read_error: BaseException | None = None  # what stopped the reader thread, if not end of output
    watch: _Watch | None = None  # set when the conversation stops at its first failing line
    exit_grace: float = EXIT_GRACE  # after stdin closes, the least time the host gets to exit
    late_grace: float = DEFAULT_LATE_GRACE  # after the host exits, how long descendants may hold stdout
    held: tuple[str, ...] = ()  # the descendants that still held it then (run.stdout-held)
    exited: bool = False  # the host exited by itself after stdin closed (so run.stdout-held was judged)
    timeout: float = 0.0  # the conversation's --timeout (its deadline is this after the start)
    started: float = 0.0  # when the host was started (time.monotonic())
    unsent: int = 0  # commands of the plan the deadline cut off (said in run.timeout)
    clock: Clock | None = None  # when each of the host's lines arrived (contract.live.timeline)
    host_lines: int = 0  # the host's lines taken into the transcript
    response_within: float = DEFAULT_LIVENESS.response_within  # later than this is run.response-late
    # (command line, seconds, answered): answered late, or never answered as a line (the seconds waited)
    late: list[tuple[int, float, bool]] = field(default_factory=list)

    def stop_early(self, strict: bool, ignore: Iterable[str], max_line_bytes: int, wire: Wire) -> None:
        """Judge each line as it is added, to stop at the first after which the conversation cannot pass."""
        self.watch = _Watch(strict, ignore, max_line_bytes, wire)

    @property
    def halted(self) -> bool:
        """The transcript already fails: nothing more is sent, awaited or read."""
        return self.watch is not None and self.watch.failed_at is not None

    def start_reader(self) -> threading.Thread:
        self.clock, pipe = timeline.timed(self.proc.stdout.fileno(), self.started)
        self.stream = LimitedStream(pipe, self.max_output_bytes)
        reader = threading.Thread(target=contextvars.copy_context().run, args=(self._read, self.stream), daemon=True)
        reader.start()
        return reader

    def _read(self, stream: LimitedStream) -> None:
        """Whole lines from the host's stdout into the inbox; None at end of output (or on a fault)."""
        try:
            self._read_lines(stream)
        except BaseException as exc:  # a reader fault is a finding (checker.internal), never a hang
            self.read_error = exc
        finally:
            self.inbox.put(None)

    def _read_lines(self, stream: LimitedStream) -> None:
        piece_limit = self.max_line_bytes + 1
        buffer = bytearray()
        while True:
            piece = stream.readline(piece_limit)
            if not piece:
                break
            # past the limit a line is only judged too long: keep its start, drop the rest
            buffer += piece[: max(piece_limit + 1 - len(buffer), 0)]
            if piece.endswith(b"\n") and not buffer.endswith(b"\n"):
                buffer += b"\n"
            if piece.endswith(b"\n"):
                self.inbox.put(bytes(buffer))
                buffer.clear()
        if buffer:
            self.inbox.put(bytes(buffer))

    # -- reading ---------------------------------------------------------------------------

    def take(self, until: float) -> bool:
        """Move one line from the inbox into the transcript; False when none came by ``until``."""
        if self.halted:
            return False
        try:
            item = self.inbox.get(timeout=max(until - time.monotonic(), 0.0))
        except queue.Empty:
            return False
        self._keep(item)
        return True

    def _keep(self, item: bytes | None) -> None:
        """One item of the inbox into the transcript (None: the output ended)."""
        if item is None:
            self.eof = True
            return
        self.transcript.append(item)
        if item.endswith(b"\n"):
            self.lines += 1
            self.host_lines += 1
            if self.watch is not None:
                self.watch.add(item)
        if _is_response(item, self.types.response):
            self._timed(self.answered, item.endswith(b"\n"))
            self.answered += 1

    def _timed(self, answer: int, whole: bool) -> None:
        """How long the response to the ``answer``-th command took, from its sending to its arrival.

        A response that never ended (no LF: its bytes came only as the output ended) never arrived
        as a line: it is noted as never answered, with the time waited, not as a late answer.
        """
        if answer >= len(self.sent) or self.clock is None:
            return
        line, sent_at = self.sent[answer]
        arrived = self.clock.arrival(self.host_lines) if whole else None
        took = (self.clock.start + arrived[0] if arrived is not None else time.monotonic()) - sent_at
        if arrived is None or took > self.response_within:
            self.late.append((line, took, arrived is not None))

    def drain(self, limit: int = 100_000) -> None:
        """What is already read, without waiting (bounded: a flooding host cannot keep us here)."""
        for _ in range(limit):
            if self.eof or self.halted or not self.take(0.0):
                return

    # -- writing ---------------------------------------------------------------------------

    def send(self, step: Step) -> bool:
        """Write one step's commands; False when the host no longer reads its stdin."""
        self.drain()  # lines the host wrote before this step come first in the transcript
        if self.halted:
            return False
        pieces = writes(step)
        data = b"".join(pieces)
        if not self._write(pieces, step.split.pause if step.split is not None else 0.0):
            if self.proc.popen.poll() is None and time.monotonic() >= self.deadline:
                # the host still runs and had its time: the suite's deadline stopped the conversation
                self.cut(f"after {counted(len(self.sent), 'command')} written")
                return False
            self.findings.append(Finding(
                "run.no-response", None,
                f"expected the host to read {counted(len(step.commands), 'more command')}, "
                f"found its stdin closed or unread after {len(self.sent)} (did it exit, or stop reading?)"))
            return False
        now = time.monotonic()
        self.unsent = max(self.unsent - len(step.commands), 0)
        for _ in step.commands:
            self.lines += 1
            self.sent.append((self.lines, now))
        self.transcript.append(data)
        if self.watch is not None:
            for sent in data.split(b"\n")[:-1]:  # every command line ends in LF
                self.watch.add(sent + b"\n")
        return True

    def _write(self, pieces: list[bytes], pause: float) -> bool:
        """Each piece in its own write; False when the host stops reading.

        At the first cut the driver waits until the host has read the first piece (the pipe is
        empty again), then ``pause`` more: two writes back to back land in one read whenever the
        host is not already waiting in ``read`` (still starting, say), so without the wait a
        cut would reach the host only by chance. The wait is bounded by the response timeout: a
        host that does not read is the no-response finding's, not a hang.

        Nothing is read into the transcript meanwhile: the step's commands come first in it, so
        a response read mid-step must not be placed before the command it answers (the reader
        thread still empties the pipe, so the host never blocks on its stdout).
        """
        for number, piece in enumerate(pieces):
            # a host that takes none of it within the response timeout has stopped reading
            # (run.no-response); one cut short by the conversation's deadline has not (run.timeout)
            left = min(self.response_timeout, self.deadline - time.monotonic())
            if not self.proc.write(piece, timeout=max(left, 0.0)):
                return False
            if number == 0 and len(pieces) > 1:
                self._until_read(min(time.monotonic() + self.response_timeout, self.deadline))
                time.sleep(max(min(pause, self.deadline - time.monotonic()), 0.0))
        return True

    def _until_read(self, until: float) -> None:
        """Wait until the host has read all that was written to its stdin, or ``until``."""
        pipe = self.proc.popen.stdin
        if pipe is None:
            return
        while time.monotonic() < until:
            try:  # the bytes still in the pipe (FIONREAD works on either end of a pipe)
                pending = int.from_bytes(fcntl.ioctl(pipe.fileno(), termios.FIONREAD, b"\0" * 4), sys.byteorder)
            except (OSError, ValueError):  # not to be had here: the pause alone stands
                return
            if pending == 0:
                return
            time.sleep(0.002)

    def await_answers(self) -> bool:
        """Wait for a response to every command sent; False (with findings) when one never came."""
        while self.answered < len(self.sent):
            if self.halted:
                return False
            at = self.sent[self.answered][1]
            until = min(at + self.response_timeout, self.deadline)
            if self.eof:
                why = ("found the output limit reached" if self._flooded()
                       else "found the host's stdout closed before it answered")
                self._unanswered(why)
                return False
            # checked before reading: a host pushing events forever still times out
            if time.monotonic() >= until:
                self.drain()  # an answer read just in time, but not yet taken, still counts
                if self.answered < len(self.sent) and not self.eof:
                    if until < at + self.response_timeout:  # the deadline came first: the host's time was cut
                        line = self.sent[self.answered][0]
                        self.cut(f"{until - at:.3g}s after the command on line {line} was sent, before its "
                                 f"response came (a response may take up to {self.response_timeout:g}s)")
                    else:
                        self._unanswered(f"found none within {until - at:.3g}s")
                    return False
                continue
            self.take(until)
        return True

    def _unanswered(self, why: str) -> None:
        for line, _ in self.sent[self.answered:]:
            self.findings.append(Finding(
                "run.no-response", line,
                f"expected a response to the command on line {line}, {why}",
                f"a host answers every {self.types.command} command, in order"))

    def cut(self, when: str) -> None:
        """The conversation's deadline stopped it, not the host: run.timeout (not judged to the end)."""
        unsent = f", {counted(self.unsent, 'command')} of the plan unsent" if self.unsent else ""
        self.findings.append(Finding(
            "run.timeout", None,
            f"expected the conversation to end within {self.timeout:g}s, found its deadline reached {when}"
            f"{unsent}; the host was still running: the conversation was cut there, not judged to the end",
            "raise --timeout if the host is only slow"))

    # -- ending ----------------------------------------------------------------------------

    def stop(self, reader: threading.Thread) -> int | None:
        """The transcript already fails: kill the host (and its group) without reading more."""
        self._settle()
        self.proc.kill()
        reader.join(GRACE_SECONDS)
        return self.proc.popen.returncode

    def _settle(self) -> None:
        """Before an early stop's kill: the commands already sent get their answers' time (each its
        response timeout, within the deadline), what the host writes until then kept in order,
        nothing more sent. The verdict already fails; this keeps the transcript from blaming the
        host for an answer it was killed before it could write (``sa.response-correlation`` on a
        replay). It ends once every command sent is answered (what comes after is not taken, so
        the transcript does not depend on when the kill lands), or at the first ``SETTLE_QUIET``
        seconds (at most the response timeout) with nothing written: an answer that came
        unreadable is not waited for."""
        quiet = min(self.response_timeout, SETTLE_QUIET)
        while self.answered < len(self.sent) and not self.eof:
            until = min(time.monotonic() + quiet, self.sent[self.answered][1] + self.response_timeout,
                        self.deadline)
            if time.monotonic() >= until:
                return
            try:
                item = self.inbox.get(timeout=max(until - time.monotonic(), 0.0))
            except queue.Empty:
                return
            self._keep(item)

    def finish(
        self, reader: threading.Thread, timeout: float, expect_exit: int | None
    ) -> int | None:
        """Close stdin, read to the end, wait for the exit; kill the group if it does not come."""
        self.proc.close_stdin()
        until = max(self.deadline, time.monotonic() + self.exit_grace)
        while not self.eof and not self._flooded() and self.proc.popen.poll() is None:
            now = time.monotonic()
            if now >= until:
                break
            # short slices: a host that exited while a child of its keeps stdout open must not
            # cost the whole timeout; its leftovers are read after the group is reaped
            self.take(min(until, now + 0.05))
        status = None if self._flooded() else self.proc.wait(until - time.monotonic())
        if status is None:
            self.proc.kill()
            self._killed(timeout)
        else:
            self._late()
            self.proc.reap_group()
        reader.join(GRACE_SECONDS)
        self.drain()
        # a host ended by a signal did not finish, whatever was expected (even nothing, from Python)
        if status is not None and (status < 0 or (expect_exit is not None and status != expect_exit)):
            expected = f"exit status {expect_exit}" if expect_exit is not None and expect_exit >= 0 else \
                "the host to end by itself"
            self.findings.append(Finding(
                "run.exit-status", None,
                f"expected {expected} after stdin closed, found {describe_status(status)}"
                + (" (a run ended by a signal did not finish: never conformant)" if status < 0 else "")))
        return status if status is not None else self.proc.popen.returncode

    def _late(self) -> None:
        """After the host exited: read on while descendants hold stdout, up to the late grace.

        What they write is part of the transcript (and judged); whoever still holds stdout after
        the grace is ``run.stdout-held`` (then reaped, by the caller), as in a stream run.
        """
        self.exited = True
        until = time.monotonic() + self.late_grace
        while not self.eof and not self._flooded() and not self.halted and time.monotonic() < until:
            self.take(until)
        if not self.eof and not self._flooded() and not self.halted:
            self.held = tuple(self.proc.holders(self.output))

    @property
    def output(self) -> tuple[int, int] | None:
        return identity(self.proc.stdout.fileno())

    def _flooded(self) -> bool:
        return self.stream is not None and self.stream.exceeded

    def _killed(self, timeout: float) -> None:
        if self._flooded():
            self.findings.append(Finding(
                "run.output-limit", None,
                f"expected at most {self.max_output_bytes} bytes of output, found more; "
                "the host was killed", "raise --max-output-bytes if that much is legitimate"))
            return
        self.findings.append(Finding(
            "run.timeout", None,
            f"expected the host to exit within {timeout:g}s (at least {self.exit_grace:g}s after stdin "
            "closed), found it still running; killed it and its process group",
            "a host exits when its stdin reaches end of input"))


def _is_response(raw: bytes, response: str) -> bool:
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return False
    return isinstance(value, dict) and value.get("type") == response


def run_steps(session: Session, steps: Sequence[Step]) -> int:
    """Run the steps until one fails; the number of steps completed."""
    for done, step in enumerate(steps):
        if step.pause:
            pause(session, step.pause)
        if session.halted:
            return done
        session.unsent = sum(len(s.commands) for s in steps[done:])
        if time.monotonic() >= session.deadline and session.proc.popen.poll() is None and not session.eof:
            # the plan is not done and the host still runs: the suite's deadline ends it, not the host
            session.cut(f"after {counted(done, 'step')} of {len(steps)}")
            return done
        if session.eof:
            left = sum(len(s.commands) for s in steps[done:])
            session.findings.append(Finding(
                "run.no-response", None,
                f"expected answers to {counted(left, 'more command')}, found the host's stdout closed "
                f"after {len(session.sent)} (the host died mid-conversation?)"))
            return done
        if not session.send(step) or not session.await_answers():
            return done
        session.steps_done = done + 1
    return len(steps)


def pause(session: Session, seconds: float) -> None:
    """Wait between steps, still moving lines (pushed events) into the transcript."""
    until = min(time.monotonic() + seconds, session.deadline)
    while not session.eof and not session.halted and time.monotonic() < until:
        session.take(until)


__all__ = ["EXIT_GRACE", "Finding", "Session", "pause", "run_steps"]
