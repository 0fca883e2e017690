"""Provoked environments for stream-json emitters: the run again under terminals, colour, back-pressure.

An emitter that writes ANSI colour only when stdout is a terminal, only when stderr or stdin is
one (``milk … | jq`` typed in a shell: stdout a pipe, stdin and stderr the terminal), or only
when ``FORCE_COLOR`` is set (a common CI setting), passes every pipe capture. ``provoke(argv,
…)`` (``milk-contract run --provoke``) runs the emitter first as ``run`` does (a pipe, the
caller's environment), then again in each of :data:`ENVIRONMENTS`:

* ``pipe+colour``: a pipe, with colour forced (``FORCE_COLOR=1``, ``CLICOLOR_FORCE=1``,
  ``TERM=xterm-256color``, ``NO_COLOR`` unset);
* ``pty``: stdout is a pseudo-terminal, so ``isatty(1)`` is true;
* ``pty+colour``: a pseudo-terminal with colour forced;
* ``stderr-tty``: stdout a pipe, stderr a pseudo-terminal (``isatty(2)``);
* ``stdin-tty``: stdout a pipe, stdin a pseudo-terminal (``isatty(0)``; nothing is ever typed
  on it, so an emitter that reads it waits, and ``--timeout`` ends the run);
* ``stderr-tty+colour``, ``stdin-tty+colour``: the same with colour forced;
* ``slow-reader``: a pipe read in small pieces with pauses, so the emitter meets a full pipe
  (back-pressure): a line lost or interleaved breaks the framing and sequence rules.

Every capture is judged by the same reader and rules as ``check`` (streamed: memory stays flat
whatever the output), with the same live rules as ``run`` (``run.timeout``, ``run.exit-status``,
``run.output-limit``). Findings from a provoked run are merged into the one report with the
environment named in the message (``under stderr-tty: …``); the notes list every environment
tried (what each of stdin, stdout and stderr was) and which ones showed ``line.ansi``.

Every pseudo-terminal is put in raw mode before the emitter starts: otherwise the terminal's own
output processing (``onlcr``) turns every LF into CR LF, and the report would blame the emitter
for a CR it never wrote (``line.newline``). A pseudo-terminal on stderr is drained as the stderr
pipe of a plain run is (its last ``STDERR_TAIL_BYTES`` kept for the report), so a chatty emitter
never blocks on it. On a terminal stderr, the environment running is shown (``contract.core.progress``).

The code is cut at the steps, each short enough to read (and to check a descriptor's lifetime
in) on its own (issue 29): :func:`provoke` runs the plain run, then each environment
(``_capture_under``: a fault there is a finding, Ctrl-C an interruption), and ``_Provoked`` merges
each into the one report. ``_capture`` is one run: ``_start`` (the ptys, then the process),
``_Ends`` (our ends of its streams), ``_Judge`` (the checker on a thread), ``_await_end`` (the end,
waited for as ``run`` waits), then the live rules.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import shlex
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from contract.checking.checker import check
from contract.core import textsafe
from contract.core.interrupts import signal_of
from contract.core.progress import Progress
from contract.core.reader import DEFAULT_MAX_LINE_BYTES
from contract.live.harness import (
    DEFAULT_LATE_GRACE,
    DEFAULT_MAX_OUTPUT_BYTES,
    GRACE_SECONDS,
    STDERR_TAIL_BYTES,
    Interrupted,
    Process,
    StartError,
    await_output,
    default_command,
    identity,
    internal,
    interrupted,
    judge_end,
    run_stream,
)
from contract.live.terminal import close_all, raw_pty
from contract.live.timeline import DEFAULT_LIVENESS, Clock, Liveness, Timeline, streams_only_on_a_terminal
from contract.rules.report import Collector, Report
from contract.rules.requirements import Scope
from contract.wires import Live, first, get

COLOUR = {"FORCE_COLOR": "1", "CLICOLOR_FORCE": "1", "TERM": "xterm-256color"}
SLOW_PIECE = 256  # bytes per read while reading slowly
SLOW_PAUSE = 0.01  # seconds between slow reads: a pipe page (4 KiB) frees only every 160 ms
SLOW_SECONDS = 2.0  # then full speed: a long run is not turned into a timeout by our slowness
READ_SIZE = 65536


@dataclass(frozen=True)
class Environment:
    """One provoked environment: which of stdin, stdout, stderr are terminals, how stdout is read,
    whether colour is forced."""

    name: str
    pty: bool = False  # stdout a pseudo-terminal
    colour: bool = False
    slow: bool = False
    stdin_tty: bool = False
    stderr_tty: bool = False

    def describe(self) -> str:
        terminal = "a pseudo-terminal (raw mode)"
        how = "stdout " + (terminal if self.pty else "a pipe")
        if self.slow:
            how += (f" read {SLOW_PIECE} bytes at a time with {SLOW_PAUSE * 1000:g} ms pauses "
                    f"for the first {SLOW_SECONDS:g}s")
        how += ", stdin " + (terminal if self.stdin_tty else "/dev/null")
        how += ", stderr " + (terminal if self.stderr_tty else "a pipe")
        if self.colour:
            how += ", colour forced (" + " ".join(f"{k}={v}" for k, v in COLOUR.items()) + ", NO_COLOR unset)"
        return f"{self.name}: {how}"

    def environ(self, base: Mapping[str, str] | None) -> dict[str, str]:
        env = dict(base) if base is not None else dict(os.environ)
        if self.colour:
            env.pop("NO_COLOR", None)
            env.update(COLOUR)
        return env


ENVIRONMENTS: tuple[Environment, ...] = (
    Environment("pipe+colour", colour=True),
    Environment("pty", pty=True),
    Environment("pty+colour", pty=True, colour=True),
    # milk … | jq typed in a shell: stdout a pipe, the terminal on the other two
    Environment("stderr-tty", stderr_tty=True),
    Environment("stdin-tty", stdin_tty=True),
    Environment("stderr-tty+colour", stderr_tty=True, colour=True),
    Environment("stdin-tty+colour", stdin_tty=True, colour=True),
    Environment("slow-reader", slow=True),
)
BASE = "pipe: stdout a pipe, stdin /dev/null, stderr a pipe, the caller's environment (as run)"


class _Output:
    """The emitter's stdout as byte chunks for the checker: bounded, slow when asked, EIO as end."""

    def __init__(self, fd: int, limit: int, slow: bool, clock: Clock) -> None:
        self.fd = fd
        self.left = limit
        self.slow = slow
        self.exceeded = False
        self.clock = clock  # when each chunk came (contract.live.timeline): the pty run's timing

    def chunks(self) -> Iterator[bytes]:
        slow_until = time.monotonic() + SLOW_SECONDS if self.slow else 0.0
        while True:
            slow = time.monotonic() < slow_until
            try:
                chunk = os.read(self.fd, SLOW_PIECE if slow else READ_SIZE)
            except OSError:  # EIO: every holder of the pty's other end has closed it
                return
            if not chunk:
                return
            self.clock.note(chunk, len(chunk), time.monotonic() - self.clock.start)
            if len(chunk) > self.left:
                self.exceeded = True
                yield chunk[: self.left]
                return
            self.left -= len(chunk)
            yield chunk
            if slow:
                time.sleep(SLOW_PAUSE)


_Terminals = dict[str, tuple[int, int]]  # stream name -> (master, slave) of its own pty


def _capture(
    argv: Sequence[str],
    environment: Environment,
    *,
    env: Mapping[str, str] | None,
    timeout: float,
    expect_exit: int | None,
    strict: bool,
    ignore: Iterable[str],
    max_line_bytes: int,
    max_output_bytes: int,
    late_grace: float = DEFAULT_LATE_GRACE,
    wire: str,
) -> Report:
    """Run the emitter once in ``environment`` and judge its stdout as ``check`` would (by ``wire``).

    The steps: start it (:func:`_start`), take our ends of its streams (:class:`_Ends`), judge
    its stdout on a thread (:class:`_Judge`) until the output ends (:func:`_await_end`), then
    the live rules on how it ended (``judge_end``, as ``run`` judges them).
    """
    ignore = tuple(ignore)
    source = shlex.join(argv)
    started = time.monotonic()
    try:
        proc, terminals = _start(argv, environment, env)
    except StartError as exc:
        report = Report(wire=wire, strict=strict, source=source, scope=Scope.LIVE)
        Collector(report, ignore).emit("run.start", None, None, str(exc), "check the command and PATH")
        return report
    ends = _Ends(proc, terminals, environment, max_output_bytes, started)
    judge = _Judge(ends.output, wire, strict, ignore, max_line_bytes, source)
    late_grace = max(late_grace, 0.0)
    end = _await_end(proc, ends, judge, time.monotonic() + timeout, late_grace)
    report = judge.report()
    judge_end(report, Collector(report, ignore), end.timed_out, ends.output.exceeded, end.status, expect_exit,
              timeout, max_output_bytes, end.exited_itself, end.held, late_grace)
    report.stderr = end.stderr
    report.timeline = ends.output.clock.timeline(time.monotonic() - started, tty=environment.pty)
    return report


def _start(argv: Sequence[str], environment: Environment, env: Mapping[str, str] | None) -> tuple[Process, _Terminals]:
    """The emitter started in ``environment``, each stream it has on a terminal on a raw pty of its own.

    Whatever stops it (StartError: the command cannot start; no pty to be had; Ctrl-C) closes
    every pty opened, so no descriptor leaks; the caller reports it.
    """
    terminals: _Terminals = {}
    try:
        for stream, wanted in (("stdout", environment.pty), ("stdin", environment.stdin_tty),
                               ("stderr", environment.stderr_tty)):
            if wanted:
                terminals[stream] = raw_pty()
        proc = Process(argv, env=environment.environ(env), stdout=_slave(terminals, "stdout"),
                       stdin_fd=_slave(terminals, "stdin"), stderr=_slave(terminals, "stderr"))
    except BaseException:
        close_all(fd for pair in terminals.values() for fd in pair)
        raise
    return proc, terminals


class _Ends:
    """Our ends of a started emitter's streams: its stdout as chunks, its stderr pty drained, the masters to close."""

    def __init__(self, proc: Process, terminals: _Terminals, environment: Environment, max_output_bytes: int,
                 started: float) -> None:
        # who holds the output open after the emitter exits: a pty's slave, or the pipe (harness.identity)
        self.held_file = identity(terminals["stdout"][1] if "stdout" in terminals else proc.stdout.fileno())
        # only the emitter's side holds a slave now: EIO on a master marks the end of that stream
        close_all(slave for _, slave in terminals.values())
        self.masters = [master for master, _ in terminals.values()]
        master = terminals["stdout"][0] if "stdout" in terminals else -1
        self.stderr_tail = _Tail(terminals["stderr"][0]) if "stderr" in terminals else None
        fd = master if environment.pty else proc.stdout.fileno()
        self.output = _Output(fd, max_output_bytes, environment.slow, Clock(fd, started))


class _Judge:
    """The checker on a thread of its own, judging the output as it comes, as ``check`` would."""

    def __init__(self, output: _Output, wire: str, strict: bool, ignore: tuple[str, ...], max_line_bytes: int,
                 source: str) -> None:
        self.output, self.wire, self.strict, self.ignore = output, wire, strict, ignore
        self.max_line_bytes, self.source = max_line_bytes, source
        self.result: Report | None = None
        self.failure: BaseException | None = None
        self.thread = threading.Thread(target=contextvars.copy_context().run, args=(self._judge,), daemon=True)

    def _judge(self) -> None:
        try:
            self.result = check(self.output.chunks(), self.wire, strict=self.strict, ignore=self.ignore,
                                max_line_bytes=self.max_line_bytes, source=self.source, jobs=1)
        except BaseException as exc:  # a fault is a finding, never a pass
            self.failure = exc
            with contextlib.suppress(Exception):
                for _ in self.output.chunks():  # keep draining: the emitter must not block on a full pipe
                    pass

    def report(self) -> Report:
        """The checker's report; a fault of it, or an output still open, as ``checker.internal``."""
        report = self.result
        if report is None:
            report = Report(wire=self.wire, strict=self.strict, source=self.source, scope=Scope.LIVE)
        if self.failure is not None:
            internal(report, "reader and rule machines", self.failure)
        elif self.result is None:
            internal(report, "reader", TimeoutError("output still open after the emitter was killed"))
        return report


@dataclass(frozen=True)
class _End:
    """How a provoked run ended, for ``judge_end``; and what its stderr said last."""

    timed_out: bool
    status: int | None
    exited_itself: bool
    held: tuple[str, ...]
    stderr: str


def _await_end(proc: Process, ends: _Ends, judge: _Judge, deadline: float, late_grace: float) -> _End:
    """Judge the output until it ends, then reap the emitter; every master is closed on the way out.

    As ``run`` does: descendants still holding stdout get the late grace, then are reaped; an
    emitter past the deadline, or past the output bound, is killed.
    """
    output = ends.output
    try:
        with proc:
            judge.thread.start()
            ending = await_output(proc, judge.thread, lambda: output.exceeded, deadline, late_grace, ends.held_file)
            exited_itself = proc.popen.poll() is not None
            timed_out = ending.timed_out and not output.exceeded
            status = None if timed_out or output.exceeded else ending.status
            if status is None:
                proc.kill()
                timed_out = not output.exceeded
            judge.thread.join(GRACE_SECONDS)
            proc.release(judge.thread)
            status = proc.popen.returncode
            stderr = proc.stderr_tail()
        if ends.stderr_tail is not None:  # every descendant is dead now: the stderr pty ends (EIO)
            ends.stderr_tail.thread.join(GRACE_SECONDS)
            stderr = ends.stderr_tail.text()
    finally:
        close_all(ends.masters)  # the stdin pty's too: held open until here, so reading it waits, never ends
    return _End(timed_out, status, exited_itself, ending.held, stderr)


def _pipe_versus_terminal(out: Collector, report: Report, terminal: Timeline | None) -> None:
    """run.buffered, named: the pipe run dumped (run.buffered) while the pty run streamed its lines.

    Under a pseudo-terminal stdio is line-buffered, so run.buffered is not judged there; what the
    two runs' timing shows together is said in one more finding (docs/live-runs.md, "Liveness").
    """
    if "run.buffered" not in report.counts:
        return
    pipe = report.timeline if isinstance(report.timeline, Timeline) else None
    named = streams_only_on_a_terminal(pipe, terminal)
    if named is not None:
        out.emit("run.buffered", None, None,
                 f"under pty and pipe: expected the same streaming on both, found it {named}",
                 "flush stdout after each line whatever it is (Python print(..., flush=True) or python -u; C "
                 "setvbuf(stdout, NULL, _IOLBF, 0)): a consumer reads a pipe, not a terminal")


def _slave(terminals: Mapping[str, tuple[int, int]], stream: str) -> int | None:
    return terminals[stream][1] if stream in terminals else None


class _Tail:
    """A stderr pseudo-terminal drained on a thread (a full pty would block the emitter), last bytes kept."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.chunks: deque[bytes] = deque()
        self.size = 0
        self.thread = threading.Thread(target=contextvars.copy_context().run, args=(self._drain,), daemon=True)
        self.thread.start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self.fd, 4096)
            except OSError:  # EIO: every holder of the slave has closed it (or we closed the master)
                return
            if not chunk:
                return
            self.chunks.append(chunk)
            self.size += len(chunk)
            while self.size > STDERR_TAIL_BYTES and len(self.chunks) > 1:
                self.size -= len(self.chunks.popleft())

    def text(self) -> str:
        return b"".join(self.chunks).decode("utf-8", "replace")


def _merge(into: Collector, report: Report, environment: str) -> None:
    """``report``'s findings into ``into``, each saying the environment that showed it."""
    for violation in report.violations:
        into.emit(violation.rule, violation.line, violation.pointer, f"under {environment}: {violation.message}",
                  violation.hint)
    for rule, count in report.counts.items():
        missing = count - report.kept[rule]
        if missing > 0:  # past the report's retention cap: still counted, never dropped silently
            into.emit(rule, None, None,
                      f"under {environment}: {missing} more {rule} {textsafe.number(missing, 'finding')} not kept")


def provoke(
    argv: Sequence[str] | None = None,
    *,
    timeout: float = 60.0,
    env: Mapping[str, str] | None = None,
    expect_exit: int | None = 0,
    strict: bool = False,
    ignore: Iterable[str] = (),
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
    environments: Sequence[Environment] = ENVIRONMENTS,
    late_grace: float = DEFAULT_LATE_GRACE,
    wire: str | None = None,
    liveness: Liveness = DEFAULT_LIVENESS,
) -> Report:
    """``milk-contract run --provoke``: the run as ``run`` does it, then once per environment.

    ``wire`` is the stream wire to judge by (default: the registry's first stream wire); a wire
    whose live mode is a conversation is refused (ValueError): its hosts are fuzzed instead.

    ``timeout`` bounds each run, so the whole is bounded by about ``(1 + len(environments)) *
    (timeout + late_grace + GRACE_SECONDS)``. A run that cannot start stops there (``run.start``).
    Ctrl-C raises :class:`contract.live.harness.Interrupted` as a live run does.
    """
    wire = _stream_wire(wire)
    command = list(argv) if argv else default_command(wire)
    options = _Options(env=env, timeout=timeout, expect_exit=expect_exit, strict=strict, ignore=tuple(ignore),
                       max_line_bytes=max_line_bytes, max_output_bytes=max_output_bytes, late_grace=late_grace,
                       wire=wire)
    with Progress("run --provoke") as progress:  # shown on a terminal stderr only (contract.core.progress)
        total = 1 + len(environments)
        progress.update(f"environment 1 of {total}: pipe (as run)")
        report = run_stream(command, wire=wire, timeout=timeout, env=env, expect_exit=expect_exit,
                            strict=strict, ignore=options.ignore, max_line_bytes=max_line_bytes,
                            max_output_bytes=max_output_bytes, late_grace=late_grace, liveness=liveness)
        if _plain_run_ends_it(report):
            return report
        provoked = _Provoked(report, options.ignore)
        for number, environment in enumerate(environments, 2):
            progress.update(f"environment {number} of {total}: {environment.name}")
            run = _capture_under(environment, command, options, report)
            if run is not None:
                provoked.add(environment, run)
        _pipe_versus_terminal(provoked.out, report, provoked.terminal)
    report.notes.append("provoked environments tried: " + "; ".join([BASE, *(e.describe() for e in environments)]))
    coloured = provoked.coloured
    report.notes.append("line.ansi seen under: " + (", ".join(coloured) if coloured else "none of them"))
    return report


def _stream_wire(wire: str | None) -> str:
    """The name of the stream wire to judge by; a conversation wire is refused (ValueError)."""
    judged = first(Live.STREAM) if wire is None else get(wire)  # KeyError for an unknown name
    if judged.live is not Live.STREAM:
        raise ValueError(f"provoke runs stream emitters; {judged.name} is a conversation wire (fuzz its host)")
    return judged.name


def _plain_run_ends_it(report: Report) -> bool:
    """Whether the plain run leaves nothing to provoke: it did not start, or it hung (said in a note)."""
    if "run.start" in report.counts:
        return True
    if "run.timeout" in report.counts:  # hung as run: each environment would cost one more timeout
        report.notes.append("provoked environments not tried: the emitter did not finish as run does "
                            "(run.timeout), so the run is not conformant whatever they show")
        return True
    return False


@dataclass(frozen=True)
class _Options:
    """What every provoked run is held to (``_capture``'s keywords)."""

    env: Mapping[str, str] | None
    timeout: float
    expect_exit: int | None
    strict: bool
    ignore: tuple[str, ...]
    max_line_bytes: int
    max_output_bytes: int
    late_grace: float
    wire: str


def _capture_under(environment: Environment, command: list[str], options: _Options, report: Report) -> Report | None:
    """The run under ``environment``; None when a harness fault stopped it (a finding in ``report``).

    Ctrl-C (or SIGTERM, SIGHUP) raises :class:`Interrupted` with ``report``, as a live run does.
    """
    try:
        return _capture(command, environment, env=options.env, timeout=options.timeout,
                        expect_exit=options.expect_exit, strict=options.strict, ignore=options.ignore,
                        max_line_bytes=options.max_line_bytes, max_output_bytes=options.max_output_bytes,
                        late_grace=options.late_grace, wire=options.wire)
    except KeyboardInterrupt as exc:  # the emitter is already killed (Process closes on the way out)
        signum = signal_of(exc)  # Ctrl-C, or SIGTERM/SIGHUP (contract.core.interrupts)
        interrupted(report, f"the emitter (under {environment.name})", signum)
        raise Interrupted(report, signum=signum) from None
    except Exception as exc:  # a harness fault is a finding, never a pass (the emitter is killed)
        internal(report, f"provoked run under {environment.name}", exc)
        return None


class _Provoked:
    """What the provoked runs add to the plain run's report."""

    def __init__(self, report: Report, ignore: tuple[str, ...]) -> None:
        self.report = report
        self.out = Collector(report, ignore)
        self.coloured: list[str] = ["pipe"] if "line.ansi" in report.counts else []
        self.terminal: Timeline | None = None  # the plain pty run's timeline, compared with the pipe run's

    def add(self, environment: Environment, provoked: Report) -> None:
        """One run's findings and notes, each naming ``environment``; its stderr if the report has none."""
        report = self.report
        _merge(self.out, provoked, environment.name)
        if environment.pty and not environment.colour and isinstance(provoked.timeline, Timeline):
            self.terminal = provoked.timeline
        report.exercised |= provoked.exercised  # the requirement verdicts count every environment
        if "line.ansi" in provoked.counts:
            self.coloured.append(environment.name)
        for note in provoked.notes:
            report.notes.append(f"under {environment.name}: {note}")
        if provoked.stderr and not report.stderr:
            report.stderr = provoked.stderr
