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

The driver is this module (``record``: start the host, hold the conversation, judge the
transcript); the plan a host is sent is ``contract.live.plan`` (``Step``, ``Split``, ``cuts``),
and the conversation while it runs ``contract.live.session`` (``Session``, ``run_steps``). Their
public names are imported here too, so ``from contract.live.driver import Step`` keeps working.
The wire held is a parameter (``wire=``): by default the registry's conversation wire, looked up
when called (``held_wire``).
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from contract.checking.pipeline import run_rules
from contract.core.interrupts import signal_of
from contract.core.reader import DEFAULT_MAX_LINE_BYTES, read_records
from contract.core.textsafe import counted
from contract.live.harness import (
    DEFAULT_LATE_GRACE,
    DEFAULT_MAX_OUTPUT_BYTES,
    Interrupted,
    Process,
    StartError,
    default_command,
    internal,
    interrupted,
    stdout_held,
)
from contract.live.plan import (
    CUTS,
    MID_LINE_PAUSE,
    SPACING,
    Split,
    Step,
    command,
    cuts,
    default_plan,
    dialogue,
    encode,
    held_wire,
    plan_from,
    writes,
)
from contract.live.session import EXIT_GRACE, Session, run_steps
from contract.live.timeline import DEFAULT_LIVENESS
from contract.rules.report import Collector, Report
from contract.rules.requirements import Scope
from contract.wires import Wire

# The catalog rules a live conversation emits beside the reader's, the schema's and the machines'.
RULES = frozenset({"run.start", "run.timeout", "run.exit-status", "run.output-limit", "run.no-response",
                   "run.stdout-held", "run.response-late"})


@dataclass
class Conversation:
    """A finished live conversation: the verdict and the transcript it was judged on."""

    report: Report
    transcript: bytes


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
    wire: Wire | None = None,
    response_within: float = DEFAULT_LIVENESS.response_within,
) -> Conversation:
    """Hold the conversation with ``argv`` and judge it; the transcript is kept (for goldens).

    Ctrl-C kills the host and raises :class:`contract.live.harness.Interrupted` carrying the report
    of what was read (with ``run.interrupted``).

    ``plan`` is the client's side (default :func:`default_plan`; :func:`plan_from` turns a
    golden into one); ``commands`` is shorthand for a plan sending them one at a time.
    ``timeout`` bounds the whole conversation; ``response_timeout`` (default: ``timeout``)
    bounds the wait for each response. The host always gets ``exit_grace`` seconds (default
    ``EXIT_GRACE``) to exit after stdin closes, even past ``timeout``, so the worst case is about
    ``timeout + exit_grace + late_grace + GRACE_SECONDS``. After the host exits, its stdout is read
    on for up to ``late_grace`` seconds while descendants hold it open (what they write is part of
    the transcript); one still holding it then is ``run.stdout-held``.
    ``stop_early`` ends the conversation at the first line after which it cannot be conformant
    (the module docstring says why the verdict is the same); the report then says where.
    ``wire``: the conversation wire held (default: :func:`held_wire`'s, the registry's).
    """
    argv = list(argv)
    held = held_wire(wire)
    types = dialogue(held)  # a wire that holds no conversation is misuse: said before any host starts
    report = Report(wire=held.name, strict=strict, source=shlex.join(argv), scope=Scope.LIVE)
    out = Collector(report, ignore)
    out.exercised("run.start")
    started = time.monotonic()
    proc = _start(argv, env, out)
    if proc is None:
        return Conversation(report, b"")
    session = Session(proc, time.monotonic() + timeout, response_timeout or timeout, max_line_bytes,
                      max_output_bytes, types, timeout=timeout, started=started,
                      response_within=response_within, exit_grace=max(exit_grace, 0.0),
                      late_grace=max(late_grace, 0.0))
    if stop_early:
        session.stop_early(strict, ignore, max_line_bytes, held)
    steps = _steps(plan, commands, held)
    done, status, stopped = _hold(session, steps, timeout, expect_exit)
    transcript = b"".join(session.transcript)
    _judge(out, session, transcript, held, status, stopped, expect_exit)
    _say_how_far(report, session, steps, done, stopped)
    if isinstance(stopped, KeyboardInterrupt):
        raise Interrupted(report, transcript, signal_of(stopped))
    return Conversation(report, transcript)


def _start(argv: list[str], env: Mapping[str, str] | None, out: Collector) -> Process | None:
    """The host started with its stdin a pipe; None (a run.start finding) when it cannot start."""
    try:
        return Process(argv, env=env, stdin=True)
    except StartError as exc:
        out.emit("run.start", None, None, f"expected a host that starts, found: {exc}",
                 "check the command and PATH")
        return None


def _steps(plan: Sequence[Step] | None, commands: Sequence[dict[str, Any]] | None, wire: Wire) -> tuple[Step, ...]:
    """The plan sent: ``plan``, else ``commands`` one at a time, else the wire's default plan."""
    if plan is None and commands is not None:
        return tuple(Step((line,)) for line in commands)
    return tuple(plan) if plan is not None else default_plan(wire)


def _hold(session: Session, steps: tuple[Step, ...], timeout: float,
          expect_exit: int | None) -> tuple[int, int | None, BaseException | None]:
    """Run the plan and end the host; (steps done, exit status, what stopped it: Ctrl-C or a driver fault)."""
    proc = session.proc
    done, status = 0, None
    stopped: BaseException | None = None  # Ctrl-C or a driver fault: the conversation did not finish
    reader = None
    with proc:
        try:
            reader = session.start_reader()
            done = run_steps(session, steps)
            status = session.stop(reader) if session.halted else session.finish(reader, timeout, expect_exit)
        except (KeyboardInterrupt, Exception) as exc:  # kill first, then judge what was seen
            stopped = exc
            proc.kill()
            status = proc.popen.returncode
            session.drain()
    proc.release(reader)
    return done, status, stopped


def _judge(out: Collector, session: Session, transcript: bytes, wire: Wire, status: int | None,
           stopped: BaseException | None, expect_exit: int | None) -> None:
    """The transcript judged as ``check`` judges it, then what only the live run showed."""
    report = out.report
    try:
        run_rules(read_records(transcript, out, session.max_line_bytes, ansi=wire.ansi), wire.name, out)
    except Exception as exc:  # a judge fault is a finding, never a pass
        internal(report, "reader and rule machines", exc)
    report.exit_status = status  # before the findings: a killed host's run.exit-status is unignorable
    for finding in session.findings:
        out.emit(finding.rule, finding.line, None, finding.message, finding.hint)
    if session.held:
        stdout_held(out, session.held, session.late_grace, "host")
    _judged_rules(out, session, status, stopped, expect_exit)
    _late(session, out)
    report.lines = max(report.lines, session.lines)
    _stopped_early(report, session)
    if isinstance(stopped, KeyboardInterrupt):  # Ctrl-C, or SIGTERM/SIGHUP (contract.core.interrupts)
        interrupted(report, "the host", signal_of(stopped))
    elif stopped is not None:
        internal(report, "live driver", stopped)
    if session.read_error is not None:
        internal(report, "reader", session.read_error)
    report.exit_status = status
    report.stderr = session.proc.stderr_tail()


def _judged_rules(out: Collector, session: Session, status: int | None, stopped: BaseException | None,
                  expect_exit: int | None) -> None:
    """The run.* rules the conversation judged (so a requirement can say "passed")."""
    if stopped is None and not session.halted:  # the conversation reached its end: these rules judged it
        for rule in ("run.output-limit", "run.timeout", "run.interrupted"):
            out.exercised(rule)
        if status is not None and (expect_exit is not None or status < 0):
            out.exercised("run.exit-status")
        if session.exited:  # who held stdout after the host exited was judged
            out.exercised("run.stdout-held")
    if session.sent:
        out.exercised("run.no-response")  # at least one command waited for its answer


def _say_how_far(report: Report, session: Session, steps: tuple[Step, ...], done: int,
                 stopped: BaseException | None) -> None:
    """The report's note on how much of the plan was sent and answered."""
    total = sum(len(step.commands) for step in steps)
    done = done if stopped is None else session.steps_done  # stopped mid-step: what completed before
    during = f"; interrupted in step {done + 1}" if isinstance(stopped, KeyboardInterrupt) else ""
    report.notes.append(
        f"conversation: sent {len(session.sent)} of {counted(total, 'command')} in {done} of "
        f"{counted(len(steps), 'step')}, read {counted(session.answered, 'answer')}{during}")


def _late(session: Session, out: Collector) -> None:
    """run.response-late for each response that took longer than ``--response-within``; the timeline."""
    if session.clock is None:
        return
    out.report.timeline = session.clock.timeline(time.monotonic() - session.started)
    if session.answered:
        out.exercised("run.response-late")
    for line, took, answered in session.late:
        found = f"found it {took:.2f}s after" if answered else \
            f"found it never answered (waited {took:.2f}s; what came was no whole line)"
        out.emit("run.response-late", line, None,
                 f"expected a response within {session.response_within:g}s of the command on line {line}, {found}",
                 "answer each command as soon as it is read (raise --response-within if the host is "
                 "legitimately slow)")


def _stopped_early(report: Report, session: Session) -> None:
    """Say where an early stop ended the conversation; fail closed if the judge disagrees."""
    watch = session.watch
    if watch is None:  # no early stop was asked for
        return
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
    wire: Wire | None = None,
    response_within: float = DEFAULT_LIVENESS.response_within,
) -> Report:
    """``milk-contract run --wire subagent-stdio [-- CMD …]``: the bundled host when no command.

    ``wire``: the conversation wire held (its descriptor, resolved by the caller at the edge)."""
    held = held_wire(wire)
    return record(list(argv) if argv else default_command(held), wire=held, timeout=timeout, strict=strict,
                  ignore=ignore, expect_exit=expect_exit, max_line_bytes=max_line_bytes,
                  max_output_bytes=max_output_bytes, late_grace=late_grace,
                  response_within=response_within).report


__all__ = ["CUTS", "EXIT_GRACE", "MID_LINE_PAUSE", "SPACING", "Conversation", "Split", "Step", "command", "converse",
           "cuts", "default_plan", "dialogue", "encode", "held_wire", "plan_from", "record", "run_subagent", "writes"]
