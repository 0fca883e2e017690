"""Running an emitter process: start it in its own process group, bound every wait, kill it all.

Both live drivers (stream-json capture here, the subagent-stdio conversation in
``contract.live.driver``) use :class:`Process`. The emitter runs in a new session so that a timeout
kills its children too; its stderr is drained on a thread into a bounded tail that goes into
the report, so a chatty emitter can neither block on a full pipe nor grow our memory.

Descendants that leave the process group (``setsid``) are found too: while a run is live this
process is a child subreaper (Linux), so orphaned descendants become our children, and every
process started by the emitter carries a per-run token in its environment, by which it is found
in ``/proc``, killed and reaped. After the emitter exits, its stdout is read on for a late grace
while descendants hold it open (what they write is judged; one still holding it then is
``run.stdout-held``). Fail closed: an exception in the reader, the judge or the harness is a
``checker.internal`` finding and Ctrl-C (SIGTERM and SIGHUP too, under
``contract.core.interrupts.as_interrupts``) is ``run.interrupted``, both with every finding seen so
far; neither can ever leave an empty, passing report. docs/live-runs.md tells the whole story.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import shlex
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from contract.checking.pipeline import no_cycle_collection, run_rules
from contract.core import interrupts, textsafe
from contract.core.reader import DEFAULT_MAX_LINE_BYTES, Record, read_records
from contract.live import timeline
from contract.live.process import (
    GRACE_SECONDS,
    STDERR_TAIL_BYTES,
    TOKEN_VARIABLE,
    LimitedStream,
    Process,
    StartError,
    default_command,
    describe_status,
    identity,
)
from contract.live.timeline import DEFAULT_LIVENESS, Clock, Liveness
from contract.rules.report import Collector, Report
from contract.rules.requirements import Scope
from contract.wires import DEFAULT, WIRES, ansi_for
from contract.wires.base import Hints

# The catalog rules a live stream run emits beside the reader's, the schema's and the machines'.
RULES = frozenset({"run.start", "run.timeout", "run.exit-status", "run.output-limit", "run.interrupted",
                   "run.stdout-held", "checker.internal"}) | timeline.RULES
DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024 * 1024
# After the emitter exits, how long its descendants may still hold stdout open: what they write
# meanwhile is judged as part of the stream; one still holding it then is run.stdout-held.
DEFAULT_LATE_GRACE = 2.0
HELD_SHOWN = 5  # descendants named in a run.stdout-held finding (the rest are counted)

__all__ = ["DEFAULT_LATE_GRACE", "DEFAULT_MAX_OUTPUT_BYTES", "GRACE_SECONDS", "RULES", "STDERR_TAIL_BYTES",
           "TOKEN_VARIABLE", "Ending", "Interrupted", "LimitedStream", "Process", "StartError", "await_output",
           "default_command", "describe_status", "identity", "internal", "interrupted", "judge_end",
           "record_stream", "run_stream", "stdout_held"]


class Interrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM, SIGHUP under ``contract.core.interrupts.as_interrupts``) during a live run,
    raised once the emitter is killed and what it wrote is judged.

    A KeyboardInterrupt still (a library caller or pytest stops as usual); ``report`` holds the
    findings seen so far with ``run.interrupted``, ``transcript`` what was read (for record) and
    ``signum`` the signal that interrupted it (SIGINT for Ctrl-C).
    """

    def __init__(self, report: Report, transcript: bytes = b"", signum: int = signal.SIGINT) -> None:
        super().__init__(f"live run interrupted ({interrupts.name(signum)})")
        self.report = report
        self.transcript = transcript
        self.signum = signum


def internal(report: Report, where: str, exc: BaseException, line: int | None = None) -> None:
    """A fault of the checker itself as a ``checker.internal`` finding (never ignorable)."""
    detail = str(exc)
    if len(detail) > 300:
        detail = detail[:300] + "…"
    at = f" at line {line}" if line else ""
    Collector(report).emit(  # checker.internal is UNIGNORABLE: no --ignore reaches it
        "checker.internal", line, None,
        f"expected the {where} to finish, found {type(exc).__name__}{at}: {detail}; "
        "the findings before it are kept, the rest was not judged",
        "a bug in milk-contract: please report it with the transcript")


def interrupted(report: Report, what: str, signum: int = signal.SIGINT) -> None:
    """Ctrl-C, SIGTERM or SIGHUP as a ``run.interrupted`` finding naming the signal (never
    ignorable: the run did not finish)."""
    Collector(report).emit(
        "run.interrupted", None, None,
        f"expected the run to finish, found it interrupted ({interrupts.name(signum)}) after "
        f"{textsafe.counted(report.lines, 'line')}; "
        f"killed {what}, its process group and its descendants; the findings before it are kept",
        "an interrupted run is never conformant: run it again to the end")


def run_stream(argv: Sequence[str], **options: Any) -> Report:
    """Start ``argv``, check its stdout as it comes, and judge how it ended."""
    return record_stream(argv, **options)[0]


def _terminal(wire: str) -> tuple[str, str] | None:
    """The member and the line type that end a run of ``wire`` (``Wire.type_member``,
    ``Wire.terminal``), or None when its runs end in no such line; under auto, the first stream
    wire's that has one."""
    descriptor = WIRES.get(wire)
    found = [descriptor] if descriptor is not None else list(WIRES.values())
    return next(((w.type_member, w.terminal) for w in found if w.terminal is not None), None)


class _Judge:
    """The reader thread: reads the emitter's stdout and judges each line as it comes.

    It writes into a report the harness owns, so whatever happens (an exception here, a
    timeout, Ctrl-C) the findings seen so far are there to report. It tells the clock which
    line is the run's terminal one (the result), so the harness can hold the exit to it.
    """

    def __init__(self, stream: LimitedStream, wire: str, out: Collector, max_line_bytes: int,
                 clock: Clock | None = None) -> None:
        self.stream = stream
        self.wire = wire
        self.out = out
        self.max_line_bytes = max_line_bytes
        self.clock = clock
        self.line = 0  # the line being judged
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=contextvars.copy_context().run, args=(self._run,), daemon=True)

    def _records(self) -> Iterator[Record]:
        clock, terminal = self.clock, _terminal(self.wire)
        for record in read_records(self.stream, self.out, self.max_line_bytes,
                                   ansi=ansi_for(self.wire)):
            self.line = record.line
            # no terminal, no result line: a line without the member is not one (None == None)
            if clock is not None and clock.result_line is None and terminal is not None \
                    and record.obj is not None and record.obj.get(terminal[0]) == terminal[1]:
                clock.result_line = record.line
            yield record

    def _run(self) -> None:
        try:
            with no_cycle_collection():
                run_rules(self._records(), self.wire, self.out)
        except BaseException as exc:  # every fault must become a finding
            self.error = exc
            # keep reading (and dropping) so the emitter is not blocked on a full pipe and can exit
            with contextlib.suppress(Exception):
                while self.stream.readline(65536):
                    pass


@dataclass(frozen=True)
class _Options:
    """What a stream run is held to (record_stream's keywords)."""

    wire: str
    timeout: float
    expect_exit: int | None
    max_line_bytes: int
    max_output_bytes: int
    late_grace: float
    liveness: Liveness
    keep: bool
    argv: tuple[str, ...] = ()
    env: Mapping[str, str] | None = None


class _Run:
    """One stream run, from the emitter's start to its verdict: the process, its clocked stdout, the judge."""

    def __init__(self, proc: Process, report: Report, out: Collector, options: _Options, start: float) -> None:
        self.proc, self.report, self.out, self.options, self.start = proc, report, out, options, start
        self.clock, pipe = timeline.timed(proc.stdout.fileno(), start, options.liveness.max_gap)
        self.stream = LimitedStream(pipe, options.max_output_bytes, options.keep)
        self.judge = _Judge(self.stream, options.wire, out, options.max_line_bytes, self.clock)
        self.deadline = time.monotonic() + options.timeout
        # the reader gets one grace after the deadline (or after the late grace), in total
        self.join_until = self.deadline + options.late_grace + GRACE_SECONDS
        self.stopped: int | None = None  # the signal that interrupted the run
        self.exited_at: float | None = None  # when the emitter ended (by itself or killed), from the start
        self.judged_to_the_end = False  # it ended by itself or at its exit grace (no timeout, flood, Ctrl-C)

    def drive(self) -> None:
        """Run the emitter to its end, or kill it at a timeout, a flood, a lingering exit or Ctrl-C."""
        proc = self.proc
        with proc:
            try:
                self._await()
            except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM/SIGHUP (contract.core.interrupts)
                self._kill_now()
                self.report.lines = max(self.report.lines, self.judge.line)
                self.stopped = interrupts.signal_of(exc)
                interrupted(self.report, "the emitter", self.stopped)
            except Exception as exc:  # a harness fault is a finding, never a pass
                self._kill_now()
                internal(self.report, "live harness", exc)

    def _kill_now(self) -> None:
        self.proc.kill()
        self.report.exit_status = self.proc.popen.returncode
        self.join_until = min(self.join_until, time.monotonic() + GRACE_SECONDS)
        self.judge.thread.join(max(self.join_until - time.monotonic(), 0.0))

    def _await(self) -> None:
        proc, stream, options = self.proc, self.stream, self.options
        self.judge.thread.start()
        ending = await_output(proc, self.judge.thread, lambda: stream.exceeded, self.deadline, options.late_grace,
                              identity(proc.stdout.fileno()), self.clock, options.liveness.exit_grace)
        cut = ending.timed_out or stream.exceeded or ending.lingered or ending.stalled
        status = None if cut else ending.status
        timed_out = status is None and not stream.exceeded and not ending.lingered and not ending.stalled
        exited_itself = proc.popen.poll() is not None  # before our kill: what exit_status will mean
        if status is None or stream.exceeded:
            proc.kill()
            status = proc.popen.returncode
            self.judge.thread.join(max(self.join_until - time.monotonic(), 0.0))
        else:
            proc.reap_group()
        self.exited_at = (ending.exited_at if ending.exited_at is not None else time.monotonic()) - self.start
        judge_end(self.report, self.out, timed_out, stream.exceeded,
                  None if ending.lingered or ending.stalled else status,
                  options.expect_exit, options.timeout, options.max_output_bytes, exited_itself, ending.held,
                  options.late_grace)
        if timed_out or stream.exceeded:
            self.report.notes.append("exit_status: how the emitter ended by itself" if exited_itself else
                                     "exit_status: -9, the harness killed the emitter")
        elif ending.lingered:
            self._lingered(status)
        elif ending.stalled:  # run.stall says it (contract.live.timeline.judge), judged at the kill
            self.report.exit_status = status
            self.report.notes.append(f"exit_status: -9, the harness killed the emitter at {self.exited_at:.2f}s, "
                                     f"silent past --max-gap ({options.liveness.max_gap:g}s) with no result "
                                     "written (run.stall)")
        self.judged_to_the_end = not timed_out and not stream.exceeded

    def _lingered(self, status: int | None) -> None:
        """run.exit-after-result: the emitter still ran ``--exit-grace`` after its result line; killed."""
        grace = self.options.liveness.exit_grace
        line = self.clock.result_line
        arrived = self.clock.arrival(line) if line is not None else None
        at = f" (line {line}, at {arrived[0]:.2f}s)" if arrived is not None else ""
        self.out.emit("run.exit-after-result", line, None,
                      f"expected the emitter to exit within {grace:g}s of its result line{at}, found it still "
                      f"running at {self.exited_at:.2f}s; killed it, its process group and its descendants",
                      "exit once the result line is written and flushed (raise --exit-grace if the cleanup "
                      "after it is legitimately slow)")
        self.report.exit_status = status
        self.report.notes.append("exit_status: -9, the harness killed the emitter after its result")

    def conclude(self) -> None:
        """After the process is gone: the reader's end, the timeline and the liveness verdict."""
        report, judge = self.report, self.judge
        judge.thread.join(max(self.join_until - time.monotonic(), 0.0))
        report.lines = max(report.lines, judge.line)
        if judge.error is not None:
            internal(report, "reader and rule machines", judge.error, judge.line or None)
        elif judge.thread.is_alive():
            internal(report, "reader", TimeoutError("output still open after the emitter was killed"),
                     judge.line or None)
        report.stderr = self.proc.stderr_tail()
        self.proc.release(judge.thread)
        line_timeline = self.clock.timeline(self.exited_at)
        report.timeline = line_timeline
        if self.stopped is None and self.judged_to_the_end:
            if self.clock.result_line is not None:
                self.out.exercised("run.exit-after-result")
            descriptor = WIRES.get(self.options.wire)
            timeline.judge(self.clock, line_timeline, self.options.liveness, self.out, self.exited_at, self._twin,
                           descriptor.hints if descriptor is not None else Hints())

    def _twin(self) -> timeline.Timeline | None:
        """The emitter run again with stdout a pseudo-terminal, timed only (run.buffered's proof)."""
        from contract.live.terminal import twin_timeline

        options = self.options
        try:
            return twin_timeline(options.argv, env=options.env, timeout=options.timeout,
                                 max_output_bytes=options.max_output_bytes)
        except KeyboardInterrupt as exc:  # Ctrl-C in the twin: the run is interrupted, as any
            self.stopped = interrupts.signal_of(exc)
            interrupted(self.report, "the emitter's twin run under a pseudo-terminal", self.stopped)
            return None

    def transcript(self) -> bytes:
        return b"".join(self.stream.kept or ())


def record_stream(
    argv: Sequence[str],
    *,
    wire: str = DEFAULT.name,
    timeout: float = 60.0,
    env: Mapping[str, str] | None = None,
    expect_exit: int | None = 0,
    strict: bool = False,
    ignore: Sequence[str] = (),
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
    keep: bool = False,
    late_grace: float = DEFAULT_LATE_GRACE,
    liveness: Liveness = DEFAULT_LIVENESS,
) -> tuple[Report, bytes]:
    """Like :func:`run_stream`; with ``keep``, also the transcript (for goldens).

    After the emitter exits, stdout is read for up to ``late_grace`` more seconds while any
    descendant holds it open (even past ``timeout``: the worst case is about ``timeout +
    late_grace + GRACE_SECONDS``); what arrives is judged as part of the stream, and a
    descendant still holding it then is ``run.stdout-held``. Then every descendant is reaped.
    Each line's arrival is recorded (``Report.timeline``) and held to ``liveness``
    (``contract.live.timeline``): an emitter still running ``liveness.exit_grace`` after its
    result line is killed there (``run.exit-after-result``).

    Never raises for what the emitter or the checker does: an exception in the reader or judge
    (or here) is ``checker.internal``, with the findings seen so far. Ctrl-C raises
    :class:`Interrupted` carrying the report (with ``run.interrupted``) once the emitter is killed.
    ``exit_status`` is how the emitter process itself ended: its exit status, or a negative signal
    number when it was killed (``-9`` when the harness killed it at a timeout or flood).
    """
    source = shlex.join(argv)
    report = Report(wire=wire, strict=strict, source=source, scope=Scope.LIVE)
    out = Collector(report, ignore)
    out.exercised("run.start")
    start = time.monotonic()
    try:
        proc = Process(argv, env=env)
    except StartError as exc:
        out.emit("run.start", None, None, str(exc), "check the command and PATH")
        return report, b""
    unbuffered = (env if env is not None else os.environ).get("PYTHONUNBUFFERED")
    if unbuffered:
        report.notes.append(f"PYTHONUNBUFFERED={textsafe.text(unbuffered, 40)} is set for the emitter: a Python "
                            "emitter's stdout is unbuffered under it, so a missing flush does not show here "
                            "(run.buffered); CI shells often set it: unset it to see how the emitter buffers "
                            "on its own")
    run = _Run(proc, report, out, _Options(wire, timeout, expect_exit, max_line_bytes, max_output_bytes,
                                           max(late_grace, 0.0), liveness, keep, tuple(argv), env), start)
    run.drive()
    run.conclude()
    if run.stopped is not None:
        raise Interrupted(report, run.transcript(), run.stopped)
    return report, run.transcript()


@dataclass(frozen=True)
class Ending:
    """How a live stream's output ended (:func:`await_output`)."""

    status: int | None  # the emitter's exit status; None while it still runs
    timed_out: bool  # the output had not ended by the deadline (nor, after an exit, the late grace)
    held: tuple[str, ...] = ()  # descendants that held the output open past the late grace
    lingered: bool = False  # still running an exit grace after its result line (to be killed)
    stalled: bool = False  # silent past --max-gap with no result written (to be killed: run.stall is sure)
    exited_at: float | None = None  # when the emitter was seen to exit (time.monotonic())


def _result_deadline(clock: Clock | None, exit_grace: float | None) -> float | None:
    """When an emitter that wrote its result must have exited (time.monotonic()), or None."""
    if clock is None or exit_grace is None or clock.result_line is None:
        return None
    arrived = clock.arrival(clock.result_line)
    return None if arrived is None else clock.start + arrived[0] + exit_grace


def await_output(
    proc: Process,
    reader: threading.Thread,
    flooded: Callable[[], bool],
    deadline: float,
    late_grace: float,
    output: tuple[int, int] | None,
    clock: Clock | None = None,
    exit_grace: float | None = None,
) -> Ending:
    """Wait for the emitter's output to end (``reader`` is the thread reading it to its end).

    A flood is cut at once rather than at the deadline. After the emitter exits, the output is
    still read while descendants hold it open, up to ``late_grace`` seconds (even past the
    deadline: the emitter itself finished in time): what they write then is part of the stream.
    Whoever still holds it (``output``, an :func:`identity`) is named in ``held`` and the group
    and descendants are reaped, which ends the output; a reader still busy with what was already
    written gets until the deadline. With a ``clock``, the emitter's idleness is sampled until
    its first line and, with ``exit_grace``, an emitter still running that long after its result
    line ends the wait (``lingered``). Public for contract.live.provoke.
    """
    exited_at: float | None = None
    held: tuple[str, ...] = ()
    reaped = False
    while reader.is_alive() and not flooded():
        now = time.monotonic()
        if exited_at is None and proc.popen.poll() is not None:
            exited_at = now
        if exited_at is not None and not reaped and now >= exited_at + late_grace:
            held = tuple(proc.holders(output))  # before the reap: who kept it open
            proc.reap_group()
            reaped = True
            continue
        until = deadline if exited_at is None else max(deadline, exited_at + late_grace)
        if exited_at is None:
            linger = _result_deadline(clock, exit_grace)
            if linger is not None and linger < deadline:
                if now >= linger:
                    return Ending(None, False, held, lingered=True)
                until = linger
            stall = _stall_deadline(clock, exit_grace)
            if stall is not None and stall < until:
                if now > stall:
                    return Ending(None, False, held, stalled=True)
                until = stall + 0.01  # strictly past it
        if now >= until:
            break
        reader.join(min(0.05, until - now))
    if reader.is_alive() and not flooded():
        return Ending(proc.popen.poll(), True, held, exited_at=exited_at)
    if flooded():
        return Ending(None, False, held, exited_at=exited_at)
    return _exit_after_output(proc, deadline, held, exited_at, _result_deadline(clock, exit_grace))


def _stall_deadline(clock: Clock | None, exit_grace: float | None) -> float | None:
    """When a silence under way passes --max-gap with no result written (time.monotonic()), or None.

    Only for a stream run held to its liveness (``exit_grace`` given): a silence that long is
    ``run.stall`` whatever comes after it, so waiting on to ``--timeout`` would judge nothing more.
    """
    if clock is None or exit_grace is None:
        return None
    at = clock.stall_at()
    return None if at is None else clock.start + at


def _exit_after_output(proc: Process, deadline: float, held: tuple[str, ...], exited_at: float | None,
                       linger: float | None) -> Ending:
    """The output ended: wait for the emitter's exit, until the deadline or its result's exit grace."""
    until = deadline if linger is None else min(deadline, linger)
    status = proc.wait(until - time.monotonic())
    if status is None and linger is not None and linger < deadline:
        return Ending(None, False, held, lingered=True)
    return Ending(status, False, held, exited_at=exited_at if exited_at is not None else time.monotonic())


def judge_end(
    report: Report,
    out: Collector,
    timed_out: bool,
    flooded: bool,
    status: int | None,
    expect_exit: int | None,
    timeout: float,
    max_output_bytes: int,
    exited_itself: bool = False,
    held: Sequence[str] = (),
    late_grace: float = DEFAULT_LATE_GRACE,
) -> None:
    """Judge how a live stream run ended (timeout, flood, exit status, stdout held past the late
    grace); public for contract.live.provoke."""
    # The run reached its end here (Ctrl-C does not come this way): these rules judged it.
    for rule in ("run.output-limit", "run.timeout", "run.interrupted"):
        out.exercised(rule)
    # An emitter ended by a signal did not finish its run, whatever status was expected (even
    # none, from Python): that is a run.exit-status finding of its own, never conformant.
    killed = status is not None and status < 0
    if (expect_exit is not None or killed) and not timed_out and not flooded and status is not None:
        out.exercised("run.exit-status")
    if not timed_out and not flooded and status is not None:  # it exited: who held stdout was judged
        out.exercised("run.stdout-held")
    if held:
        stdout_held(out, held, late_grace, "emitter")
    if flooded:
        out.emit("run.output-limit", None, None,
                 f"expected at most {max_output_bytes} bytes of output, found more; the emitter was killed",
                 "raise --max-output-bytes if the run is legitimately that long")
    elif timed_out:
        out.emit("run.timeout", None, None,
                 f"expected the emitter's output to end within {timeout:g}s, found "
                 + ("it still open after the emitter exited (a descendant we could not kill?)" if exited_itself
                    else "the emitter still running; killed it, its process group and its descendants"),
                 "a hung emitter, or one that closed stdout but kept running")
    if status is not None:
        report.exit_status = status
    if timed_out or flooded or status is None:
        return
    if killed or (expect_exit is not None and status != expect_exit):
        expected = f"exit status {expect_exit}" if expect_exit is not None and expect_exit >= 0 else \
            "the emitter to end by itself"
        out.emit("run.exit-status", None, None, f"expected {expected}, found {describe_status(status)}"
                 + (" (a run ended by a signal did not finish: never conformant)" if killed else ""))


def stdout_held(out: Collector, held: Sequence[str], late_grace: float, who: str) -> None:
    """``run.stdout-held``: descendants still held stdout open ``late_grace`` seconds after ``who`` exited."""
    shown = ", ".join(held[:HELD_SHOWN]) + (f" and {len(held) - HELD_SHOWN} more" if len(held) > HELD_SHOWN else "")
    out.emit("run.stdout-held", None, None,
             f"expected the {who}'s stdout to close within {late_grace:g}s of its exit (nothing else on stdout "
             f"after the run), found it still held open by {textsafe.counted(len(held), 'descendant')}: {shown}; "
             "killed them, so what they would have written later was not judged",
             f"a child of the {who} inherited stdout: close or redirect it in the child, or wait for the child "
             "before exiting (raise --late-grace if it is legitimately slow)")
