"""The live subagent-stdio driver: hold a real conversation with a host process and judge it.

``run_subagent(argv, timeout=…)`` starts the host (the bundled reference host when ``argv`` is
empty), sends its wire's commands (``Wire.dialogue``) on its stdin in steps (one alone, several pipelined
at once, then spaced ones, with and without ids, one with the empty id), waits for a response
to each with a deadline, then closes stdin and expects a clean exit. Every line it sent and
every line it read goes, in order, into one transcript, which is judged by exactly the same
reader and rule machines as ``milk-contract check --wire subagent-stdio``: a recorded and a
live conversation get the same verdict. What only a live run can show is reported with the
``run.*`` rules: no response within the response timeout, or a host that exited or stopped
reading (``run.no-response``), a conversation its deadline cut, or no exit (``run.timeout``: when
the conversation's ``timeout`` ends a wait before the host's response timeout did, or before the
plan was sent, the suite stopped the conversation, not the host, so it was not judged to the end),
a bad exit status (``run.exit-status``), a command that cannot start
(``run.start``), a flood (``run.output-limit``), a descendant still holding stdout a late grace
after the host exited (``run.stdout-held``; what it wrote meanwhile is in the transcript) and
Ctrl-C, SIGTERM or SIGHUP (``run.interrupted``, with what was read so far). A fault in the
driver, its reader thread or the judge is ``checker.internal``.

With ``stop_early`` (the fuzzer's choice) the conversation ends at the first line that makes
it non-conformant (a line that is not JSON, a response whose id matches no command…): each
line is also judged as it is added, by the same reader and machines, and once a finding the
verdict cannot lose is there, nothing the host says later can make the conversation pass.
The host is then killed rather than awaited, and the transcript read up to that line is judged
as usual, so the verdict is ``check``'s on that transcript.

Nothing waits unbounded: stdout is read on a thread into a queue, every wait has a deadline,
and the host's whole process group is killed at the end (``contract.live.harness.Process``).
"""

from __future__ import annotations

import fcntl
import json
import queue
import shlex
import sys
import termios
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from contract.checking.pipeline import Judge, run_rules
from contract.core.interrupts import signal_of
from contract.core.reader import DEFAULT_MAX_LINE_BYTES, Block, frame, read_records
from contract.core.textsafe import counted
from contract.live import timeline
from contract.live.harness import (
    DEFAULT_LATE_GRACE,
    DEFAULT_MAX_OUTPUT_BYTES,
    GRACE_SECONDS,
    Interrupted,
    LimitedStream,
    Process,
    StartError,
    default_command,
    describe_status,
    identity,
    internal,
    interrupted,
    stdout_held,
)
from contract.live.timeline import DEFAULT_LIVENESS, Clock
from contract.rules.report import Collector, Report
from contract.rules.requirements import Scope
from contract.wires import Dialogue, Wire, conversation

# The catalog rules a live conversation emits beside the reader's, the schema's and the machines'.
RULES = frozenset({"run.start", "run.timeout", "run.exit-status", "run.output-limit", "run.no-response",
                   "run.stdout-held", "run.response-late"})
# The conversation wire the driver holds unless told another: the registry's first with a
# dialogue (its line types and command builder come from the descriptor, Wire.dialogue).
WIRE = conversation()
EXIT_GRACE = 1.0  # after stdin closes, a host gets at least this long to exit, whatever is left
SPACING = 0.05  # pause before a spaced command: the host must answer one it did not see coming


def command(ident: str | None, wire: Wire = WIRE) -> dict[str, Any]:
    """A command of ``wire``'s dialogue, with ``id`` when ``ident`` is not None."""
    return dialogue(wire).build(ident)


def dialogue(wire: Wire) -> Dialogue:
    """``wire``'s dialogue (ValueError for a wire that holds no conversation)."""
    if wire.dialogue is None:
        raise ValueError(f"{wire.name} is not a conversation wire")
    return wire.dialogue


# How a step's bytes may be cut into writes (Split.cut). A pipe is a byte stream: a host must put a
# command together from however many reads it arrives in. No cut adds a byte: a conformant client
# never sends CR (line.newline, framing of both wires), so "CR LF" is no position to cut at.
CUTS = ("in-string", "in-utf8", "before-lf", "per-line", "dribble")
MID_LINE_PAUSE = 0.05  # seconds held at the first cut, once the host has read the first part


@dataclass(frozen=True)
class Split:
    """How one step's bytes are cut into several writes (a :class:`Step` without one: one write).

    ``cut`` is the position class: ``in-string`` (one command cut between the quotes of one of
    its strings), ``in-utf8`` (inside a multi-byte UTF-8 character; a command with none is cut in
    a string instead, and :func:`cuts` says so), ``before-lf`` (just before the LF that ends a
    command), ``per-line`` (each command its own write: cut only between lines) and ``dribble``
    (every byte its own write). ``command`` picks the command cut and ``at`` the position among
    those of its class, each taken modulo how many there are, so the choice stays valid while a
    conversation shrinks. At the first cut the driver waits until the host has read what was
    written, then ``pause`` seconds more (a pause mid-line), so the cut is one the host sees.
    """

    cut: str
    command: int = 0
    at: int = 0
    pause: float = 0.0


@dataclass(frozen=True)
class Step:
    """Commands written together (pipelined), after a pause; the driver then awaits each answer.

    ``split``: how their bytes are cut into writes (None: in one write).
    """

    commands: tuple[dict[str, Any], ...]
    pause: float = 0.0
    split: Split | None = None


def encode(line: dict[str, Any]) -> bytes:
    """A command as the driver writes it: compact JSON, UTF-8, one LF."""
    return json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def _in_strings(line: bytes) -> list[int]:
    """Cut positions between the quotes of a JSON string (``line[:p]`` ends inside one)."""
    positions = []
    inside = escaped = False
    for index, byte in enumerate(line):
        if not inside:
            inside = byte == 0x22
            continue
        positions.append(index)
        if escaped:
            escaped = False
        elif byte == 0x5C:
            escaped = True
        elif byte == 0x22:
            inside = False
    return positions


def cuts(step: Step) -> tuple[tuple[int, ...], str]:
    """The offsets in the step's bytes where a write ends, and what they are, in words."""
    lines = [encode(line) for line in step.commands]
    total = sum(len(line) for line in lines)
    split = step.split
    if split is None or not lines:
        return (), "in one write"
    pause = f", with a {split.pause:g}s pause at the first cut" if split.pause else ""
    if split.cut == "dribble":
        return tuple(range(1, total)), f"byte by byte ({counted(total, 'write')}{pause})"
    if split.cut == "per-line":
        ends = tuple(sum(len(line) for line in lines[: i + 1]) for i in range(len(lines) - 1))
        if not ends:
            return (), "in one write (a single line: per-line cuts nothing)"
        return ends, f"one write per command ({counted(len(lines), 'write')}{pause})"
    which = split.command % len(lines)
    line = lines[which]
    where = {"in-string": "inside a string", "in-utf8": "inside a UTF-8 character", "before-lf": "before its LF"}
    kind = split.cut
    if kind == "in-utf8":
        positions = [i for i in range(1, len(line)) if 0x80 <= line[i] <= 0xBF]  # continuation bytes
        if not positions:
            kind, positions = "in-string", _in_strings(line)
    elif kind == "before-lf":
        positions = [len(line) - 1]
    else:
        positions = _in_strings(line)
    at = positions[split.at % len(positions)]
    start = sum(len(earlier) for earlier in lines[:which])
    return ((start + at,), f"in 2 writes, command {which + 1} cut after byte {at} of {len(line)} "
                          f"({where[kind]}){pause}")


def writes(step: Step) -> list[bytes]:
    """The step's bytes, cut as its split says (one piece when it has none)."""
    data = b"".join(encode(line) for line in step.commands)
    ends = [*cuts(step)[0], len(data)]
    return [data[a:b] for a, b in zip([0, *ends[:-1]], ends, strict=True)]


def default_plan(wire: Wire = WIRE) -> tuple[Step, ...]:
    """The client's side when none is given: ``wire``'s commands (its dialogue's builder) alone,
    pipelined, and spaced, with and without ids, one with the empty id."""
    def c(ident: str | None) -> dict[str, Any]:
        return command(ident, wire)

    return (
        Step((c("c1"),)),
        Step((c("c2"), c(None), c(""), c("c3 ü"))),  # pipelined
        Step((c(None),), pause=SPACING),  # spaced, no id
        Step((c("c4"),), pause=SPACING),
    )


DEFAULT_PLAN: tuple[Step, ...] = default_plan()


def plan_from(transcript: bytes, wire: Wire = WIRE) -> tuple[Step, ...]:
    """The client side of a recorded conversation (a golden) as a plan to replay live.

    Commands written back to back, with no response between them, were pipelined: they form
    one step. Lines that are not commands are the host's and are left out.
    """
    steps: list[list[dict[str, Any]]] = []
    grouping = False
    types = dialogue(wire)
    for raw in transcript.split(b"\n"):
        try:
            line = orjson.loads(raw) if raw.strip() else None
        except orjson.JSONDecodeError:
            continue
        if not isinstance(line, dict):
            continue
        if line.get("type") == types.command:
            if not grouping:
                steps.append([])
            steps[-1].append(line)
            grouping = True
        elif line.get("type") == types.response:
            grouping = False
    return tuple(Step(tuple(commands)) for commands in steps)


@dataclass
class Conversation:
    """A finished live conversation: the verdict and the transcript it was judged on."""

    report: Report
    transcript: bytes


@dataclass
class _Finding:
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

    def __init__(self, strict: bool, ignore: Iterable[str], max_line_bytes: int, wire: Wire = WIRE) -> None:
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
class _Session:
    """The state of one conversation while it runs."""

    proc: Process
    deadline: float
    response_timeout: float
    max_line_bytes: int
    max_output_bytes: int
    transcript: list[bytes] = field(default_factory=list)
    lines: int = 0  # lines in the transcript (LF-terminated)
    sent: list[tuple[int, float]] = field(default_factory=list)  # (line, time) per command sent
    answered: int = 0
    steps_done: int = 0  # steps completed (each sent and answered): what an interruption leaves
    eof: bool = False
    findings: list[_Finding] = field(default_factory=list)
    inbox: queue.Queue[bytes | None] = field(default_factory=queue.Queue)
    stream: LimitedStream | None = None
    read_error: BaseException | None = None  # what stopped the reader thread, if not end of output
    watch: _Watch | None = None  # set when the conversation stops at its first failing line
    exit_grace: float = EXIT_GRACE  # after stdin closes, the least time the host gets to exit
    late_grace: float = DEFAULT_LATE_GRACE  # after the host exits, how long descendants may hold stdout
    held: tuple[str, ...] = ()  # the descendants that still held it then (run.stdout-held)
    response: str = dialogue(WIRE).response  # the type of the host's answer to one command
    exited: bool = False  # the host exited by itself after stdin closed (so run.stdout-held was judged)
    timeout: float = 0.0  # the conversation's --timeout (its deadline is this after the start)
    started: float = 0.0  # when the host was started (time.monotonic())
    unsent: int = 0  # commands of the plan the deadline cut off (said in run.timeout)
    clock: Clock | None = None  # when each of the host's lines arrived (contract.live.timeline)
    host_lines: int = 0  # the host's lines taken into the transcript
    response_within: float = DEFAULT_LIVENESS.response_within  # later than this is run.response-late
    late: list[tuple[int, float]] = field(default_factory=list)  # (command line, seconds) answered late

    @property
    def halted(self) -> bool:
        """The transcript already fails: nothing more is sent, awaited or read."""
        return self.watch is not None and self.watch.failed_at is not None

    def start_reader(self) -> threading.Thread:
        self.clock, pipe = timeline.timed(self.proc.stdout.fileno(), self.started)
        self.stream = LimitedStream(pipe, self.max_output_bytes)
        reader = threading.Thread(target=self._read, args=(self.stream,), daemon=True)
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
        if item is None:
            self.eof = True
            return True
        self.transcript.append(item)
        if item.endswith(b"\n"):
            self.lines += 1
            self.host_lines += 1
            if self.watch is not None:
                self.watch.add(item)
        if _is_response(item, self.response):
            self._timed(self.answered)
            self.answered += 1
        return True

    def _timed(self, answer: int) -> None:
        """How long the response to the ``answer``-th command took, from its sending to its arrival."""
        if answer >= len(self.sent) or self.clock is None:
            return
        line, sent_at = self.sent[answer]
        arrived = self.clock.arrival(self.host_lines)
        took = (self.clock.start + arrived[0] if arrived is not None else time.monotonic()) - sent_at
        if took > self.response_within:
            self.late.append((line, took))

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
            self.findings.append(_Finding(
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
            self.findings.append(_Finding(
                "run.no-response", line,
                f"expected a response to the command on line {line}, {why}",
                f"a host answers every {dialogue(WIRE).command} command, in order"))

    def cut(self, when: str) -> None:
        """The conversation's deadline stopped it, not the host: run.timeout (not judged to the end)."""
        unsent = f", {counted(self.unsent, 'command')} of the plan unsent" if self.unsent else ""
        self.findings.append(_Finding(
            "run.timeout", None,
            f"expected the conversation to end within {self.timeout:g}s, found its deadline reached {when}"
            f"{unsent}; the host was still running: the conversation was cut there, not judged to the end",
            "raise --timeout if the host is only slow"))

    # -- ending ----------------------------------------------------------------------------

    def stop(self, reader: threading.Thread) -> int | None:
        """The transcript already fails: kill the host (and its group) without reading more."""
        self.proc.kill()
        reader.join(GRACE_SECONDS)
        return self.proc.popen.returncode

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
            self.findings.append(_Finding(
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
            self.findings.append(_Finding(
                "run.output-limit", None,
                f"expected at most {self.max_output_bytes} bytes of output, found more; "
                "the host was killed", "raise --max-output-bytes if that much is legitimate"))
            return
        self.findings.append(_Finding(
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


def record(
    argv: Sequence[str],
    *,
    timeout: float = 60.0,
    env: Mapping[str, str] | None = None,
    plan: Sequence[Step] | None = None,
    commands: Sequence[dict[str, Any]] | None = None,
    expect_exit: int | None = 0,
    response_timeout: float | None = None,
    strict: bool = False,
    ignore: Iterable[str] = (),
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
    stop_early: bool = False,
    exit_grace: float = EXIT_GRACE,
    late_grace: float = DEFAULT_LATE_GRACE,
    wire: Wire = WIRE,
    response_within: float = DEFAULT_LIVENESS.response_within,
) -> Conversation:
    """Hold the conversation with ``argv`` and judge it; the transcript is kept (for goldens).

    Ctrl-C kills the host and raises :class:`contract.live.harness.Interrupted` carrying the report
    of what was read (with ``run.interrupted``).

    ``plan`` is the client's side (default :data:`DEFAULT_PLAN`; :func:`plan_from` turns a
    golden into one); ``commands`` is shorthand for a plan sending them one at a time.
    ``timeout`` bounds the whole conversation; ``response_timeout`` (default: ``timeout``)
    bounds the wait for each response. The host always gets ``exit_grace`` seconds (default
    ``EXIT_GRACE``) to exit after stdin closes, even past ``timeout``, so the worst case is about
    ``timeout + exit_grace + late_grace + GRACE_SECONDS``. After the host exits, its stdout is read
    on for up to ``late_grace`` seconds while descendants hold it open (what they write is part of
    the transcript); one still holding it then is ``run.stdout-held``.
    ``stop_early`` ends the conversation at the first line after which it cannot be conformant
    (the module docstring says why the verdict is the same); the report then says where.
    """
    argv = list(argv)
    report = Report(wire=wire.name, strict=strict, source=shlex.join(argv), scope=Scope.LIVE)
    out = Collector(report, ignore)
    out.exercised("run.start")
    started = time.monotonic()
    try:
        proc = Process(argv, env=env, stdin=True)
    except StartError as exc:
        out.emit("run.start", None, None, f"expected a host that starts, found: {exc}",
                 "check the command and PATH")
        return Conversation(report, b"")
    session = _Session(proc, time.monotonic() + timeout, response_timeout or timeout,
                       max_line_bytes, max_output_bytes)
    session.timeout = timeout
    session.started = started
    session.response_within = response_within
    session.exit_grace = max(exit_grace, 0.0)
    session.late_grace = max(late_grace, 0.0)
    session.response = dialogue(wire).response
    if stop_early:
        session.watch = _Watch(strict, ignore, max_line_bytes, wire)
    if plan is None and commands is not None:
        plan = tuple(Step((line,)) for line in commands)
    steps = tuple(plan) if plan is not None else DEFAULT_PLAN if wire is WIRE else default_plan(wire)
    done, status = 0, None
    stopped: BaseException | None = None  # Ctrl-C or a driver fault: the conversation did not finish
    reader: threading.Thread | None = None
    with proc:
        try:
            reader = session.start_reader()
            done = _converse(session, steps)
            status = session.stop(reader) if session.halted else session.finish(reader, timeout, expect_exit)
        except (KeyboardInterrupt, Exception) as exc:  # kill first, then judge what was seen
            stopped = exc
            proc.kill()
            status = proc.popen.returncode
            session.drain()
    proc.release(reader)
    transcript = b"".join(session.transcript)
    try:
        run_rules(read_records(transcript, out, max_line_bytes, ansi=wire.ansi), wire.name, out)
    except Exception as exc:  # a judge fault is a finding, never a pass
        internal(report, "reader and rule machines", exc)
    report.exit_status = status  # before the findings: a killed host's run.exit-status is unignorable
    for finding in session.findings:
        out.emit(finding.rule, finding.line, None, finding.message, finding.hint)
    if session.held:
        stdout_held(out, session.held, session.late_grace, "host")
    if stopped is None and not session.halted:  # the conversation reached its end: these rules judged it
        for rule in ("run.output-limit", "run.timeout", "run.interrupted"):
            out.exercised(rule)
        if status is not None and (expect_exit is not None or status < 0):
            out.exercised("run.exit-status")
        if session.exited:  # who held stdout after the host exited was judged
            out.exercised("run.stdout-held")
    if session.sent:
        out.exercised("run.no-response")  # at least one command waited for its answer
    _late(session, out)
    report.lines = max(report.lines, session.lines)
    if session.watch is not None:
        _stopped_early(report, session.watch)
    if isinstance(stopped, KeyboardInterrupt):  # Ctrl-C, or SIGTERM/SIGHUP (contract.core.interrupts)
        interrupted(report, "the host", signal_of(stopped))
    elif stopped is not None:
        internal(report, "live driver", stopped)
    if session.read_error is not None:
        internal(report, "reader", session.read_error)
    report.exit_status = status
    report.stderr = proc.stderr_tail()
    total = sum(len(step.commands) for step in steps)
    done = done if stopped is None else session.steps_done  # stopped mid-step: what completed before
    during = f"; interrupted in step {done + 1}" if isinstance(stopped, KeyboardInterrupt) else ""
    report.notes.append(
        f"conversation: sent {len(session.sent)} of {counted(total, 'command')} in {done} of "
        f"{counted(len(steps), 'step')}, read {counted(session.answered, 'answer')}{during}")
    if isinstance(stopped, KeyboardInterrupt):
        raise Interrupted(report, transcript, signal_of(stopped))
    return Conversation(report, transcript)


def _late(session: _Session, out: Collector) -> None:
    """run.response-late for each response that took longer than ``--response-within``; the timeline."""
    if session.clock is None:
        return
    out.report.timeline = session.clock.timeline(time.monotonic() - session.started)
    if session.answered:
        out.exercised("run.response-late")
    for line, took in session.late:
        out.emit("run.response-late", line, None,
                 f"expected a response within {session.response_within:g}s of the command on line {line}, "
                 f"found it {took:.2f}s after",
                 "answer each command as soon as it is read (raise --response-within if the host is "
                 "legitimately slow)")


def _stopped_early(report: Report, watch: _Watch) -> None:
    """Say where an early stop ended the conversation; fail closed if the judge disagrees."""
    if watch.fault is not None:
        report.notes.append("conversation: the early stop was off (its line-by-line judge failed: "
                            f"{type(watch.fault).__name__}), so the conversation ran to its end")
        return
    if watch.failed_at is None:
        return
    report.notes.append(
        f"conversation: stopped at line {watch.failed_at}, where {', '.join(watch.rules())} made it "
        "non-conformant (nothing later can undo that); the host was killed there, not asked to exit")
    if report.conformant:  # cannot happen (the same judge, the same lines); never a pass if it does
        internal(report, "live driver", RuntimeError(
            f"the conversation was stopped early at line {watch.failed_at} for "
            f"{', '.join(watch.rules())}, which the judgement of the transcript does not show"))


def _converse(session: _Session, steps: Sequence[Step]) -> int:
    """Run the steps until one fails; the number of steps completed."""
    for done, step in enumerate(steps):
        if step.pause:
            _pause(session, step.pause)
        if session.halted:
            return done
        session.unsent = sum(len(s.commands) for s in steps[done:])
        if time.monotonic() >= session.deadline and session.proc.popen.poll() is None and not session.eof:
            # the plan is not done and the host still runs: the suite's deadline ends it, not the host
            session.cut(f"after {counted(done, 'step')} of {len(steps)}")
            return done
        if session.eof:
            left = sum(len(s.commands) for s in steps[done:])
            session.findings.append(_Finding(
                "run.no-response", None,
                f"expected answers to {counted(left, 'more command')}, found the host's stdout closed "
                f"after {len(session.sent)} (the host died mid-conversation?)"))
            return done
        if not session.send(step) or not session.await_answers():
            return done
        session.steps_done = done + 1
    return len(steps)


def _pause(session: _Session, seconds: float) -> None:
    """Wait between steps, still moving lines (pushed events) into the transcript."""
    until = min(time.monotonic() + seconds, session.deadline)
    while not session.eof and not session.halted and time.monotonic() < until:
        session.take(until)


def converse(argv: Sequence[str], *, timeout: float = 60.0, **options: Any) -> Report:
    """The report of a live conversation with ``argv`` (see :func:`record` for the options)."""
    return record(argv, timeout=timeout, **options).report


def run_subagent(
    argv: Sequence[str] | None = None,
    *,
    timeout: float = 60.0,
    strict: bool = False,
    ignore: Iterable[str] = (),
    expect_exit: int | None = 0,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
    late_grace: float = DEFAULT_LATE_GRACE,
    wire: Wire = WIRE,
    response_within: float = DEFAULT_LIVENESS.response_within,
) -> Report:
    """``milk-contract run --wire subagent-stdio [-- CMD …]``: the bundled host when no command.

    ``wire``: the conversation wire held (its descriptor, resolved by the caller at the edge)."""
    return record(list(argv) if argv else default_command(wire), wire=wire, timeout=timeout, strict=strict,
                  ignore=ignore, expect_exit=expect_exit, max_line_bytes=max_line_bytes,
                  max_output_bytes=max_output_bytes, late_grace=late_grace,
                  response_within=response_within).report
