"""Provoked environments for stream-json emitters: the run again under a terminal, colour, back-pressure.

An emitter that writes ANSI colour only when stdout is a terminal, or only when ``FORCE_COLOR``
is set (a common CI setting), passes every pipe capture. ``provoke(argv, …)`` (``milk-contract
run --provoke``) runs the emitter first as ``run`` does (a pipe, the caller's environment), then
again in each of :data:`ENVIRONMENTS`:

* ``pipe+colour``: a pipe, with colour forced (``FORCE_COLOR=1``, ``CLICOLOR_FORCE=1``,
  ``TERM=xterm-256color``, ``NO_COLOR`` unset);
* ``pty``: stdout is a pseudo-terminal, so ``isatty(1)`` is true;
* ``pty+colour``: a pseudo-terminal with colour forced;
* ``slow-reader``: a pipe read in small pieces with pauses, so the emitter meets a full pipe
  (back-pressure): a line lost or interleaved breaks the framing and sequence rules.

Every capture is judged by the same reader and rules as ``check`` (streamed: memory stays flat
whatever the output), with the same live rules as ``run`` (``run.timeout``, ``run.exit-status``,
``run.output-limit``). Findings from a provoked run are merged into the one report with the
environment named in the message (``under pty+colour: …``); the notes list every environment
tried and which ones showed ``line.ansi``.

The pseudo-terminal is put in raw mode before the emitter starts: otherwise the terminal's own
output processing (``onlcr``) turns every LF into CR LF, and the report would blame the emitter
for a CR it never wrote (``line.newline``).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from contract.checker import check
from contract.harness import (
    DEFAULT_MAX_OUTPUT_BYTES,
    GRACE_SECONDS,
    Interrupted,
    Process,
    StartError,
    default_command,
    internal,
    interrupted,
    judge_end,
    run_stream,
)
from contract.reader import DEFAULT_MAX_LINE_BYTES
from contract.report import Collector, Report

WIRE = "stream-json"
COLOUR = {"FORCE_COLOR": "1", "CLICOLOR_FORCE": "1", "TERM": "xterm-256color"}
SLOW_PIECE = 256  # bytes per read while reading slowly
SLOW_PAUSE = 0.01  # seconds between slow reads: a pipe page (4 KiB) frees only every 160 ms
SLOW_SECONDS = 2.0  # then full speed: a long run is not turned into a timeout by our slowness
READ_SIZE = 65536


@dataclass(frozen=True)
class Environment:
    """One provoked environment: how stdout is connected and read, and whether colour is forced."""

    name: str
    pty: bool = False
    colour: bool = False
    slow: bool = False

    def describe(self) -> str:
        how = "a pseudo-terminal (raw mode)" if self.pty else "a pipe"
        if self.slow:
            how += (f" read {SLOW_PIECE} bytes at a time with {SLOW_PAUSE * 1000:g} ms pauses "
                    f"for the first {SLOW_SECONDS:g}s")
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
    Environment("slow-reader", slow=True),
)
BASE = "pipe: a pipe, the caller's environment (as run)"


class _Output:
    """The emitter's stdout as byte chunks for the checker: bounded, slow when asked, EIO as end."""

    def __init__(self, fd: int, limit: int, slow: bool) -> None:
        self.fd = fd
        self.left = limit
        self.slow = slow
        self.exceeded = False

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
            if len(chunk) > self.left:
                self.exceeded = True
                yield chunk[: self.left]
                return
            self.left -= len(chunk)
            yield chunk
            if slow:
                time.sleep(SLOW_PAUSE)


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
) -> Report:
    """Run the emitter once in ``environment`` and judge its stdout as ``check`` would."""
    ignore = tuple(ignore)
    source = " ".join(argv)
    master = slave = -1
    if environment.pty:
        import pty
        import tty

        master, slave = pty.openpty()
        tty.setraw(slave)  # no onlcr: the emitter's LF reaches us as LF, not CR LF
    try:
        proc = Process(argv, env=environment.environ(env), stdout=slave if environment.pty else None)
    except StartError as exc:
        for fd in (master, slave):
            if fd >= 0:
                os.close(fd)
        report = Report(wire=WIRE, strict=strict, source=source)
        Collector(report, ignore).emit("run.start", None, None, str(exc), "check the command and PATH")
        return report
    if environment.pty:
        os.close(slave)  # only the emitter's side holds it now: EIO on the master marks the end
    fd = master if environment.pty else proc.stdout.fileno()
    output = _Output(fd, max_output_bytes, environment.slow)
    result: list[Report] = []
    failure: list[BaseException] = []

    def judge() -> None:
        try:
            result.append(check(output.chunks(), WIRE, strict=strict, ignore=ignore,
                                max_line_bytes=max_line_bytes, source=source, jobs=1))
        except BaseException as exc:  # a fault is a finding, never a pass
            failure.append(exc)
            with contextlib.suppress(Exception):
                for _ in output.chunks():  # keep draining: the emitter must not block on a full pipe
                    pass

    reader = threading.Thread(target=judge, daemon=True)
    deadline = time.monotonic() + timeout
    try:
        with proc:
            reader.start()
            reaped = False
            while reader.is_alive() and time.monotonic() < deadline and not output.exceeded:
                reader.join(min(0.05, max(deadline - time.monotonic(), 0.0)))
                if reader.is_alive() and not reaped and proc.popen.poll() is not None:
                    proc.reap_group()  # a descendant holding stdout open dies with the emitter
                    reaped = True
            exited_itself = proc.popen.poll() is not None
            timed_out = reader.is_alive() and not output.exceeded
            status = None if timed_out or output.exceeded else proc.wait(deadline - time.monotonic())
            if status is None:
                proc.kill()
                timed_out = not output.exceeded
            reader.join(GRACE_SECONDS)
            status = proc.popen.returncode
            stderr = proc.stderr_tail()
    finally:
        if master >= 0:
            with contextlib.suppress(OSError):
                os.close(master)
    report = result[0] if result else Report(wire=WIRE, strict=strict, source=source)
    out = Collector(report, ignore)
    if failure:
        internal(report, "reader and rule machines", failure[0])
    elif not result:
        internal(report, "reader", TimeoutError("output still open after the emitter was killed"))
    judge_end(report, out, timed_out, output.exceeded, status, expect_exit, timeout, max_output_bytes,
               exited_itself)
    report.stderr = stderr
    return report


def _merge(into: Collector, report: Report, environment: str) -> None:
    """``report``'s findings into ``into``, each saying the environment that showed it."""
    for violation in report.violations:
        into.emit(violation.rule, violation.line, violation.pointer, f"under {environment}: {violation.message}",
                  violation.hint)
    for rule, count in report.counts.items():
        missing = count - report.kept[rule]
        if missing > 0:  # past the report's retention cap: still counted, never dropped silently
            findings = "finding" if missing == 1 else "findings"
            into.emit(rule, None, None, f"under {environment}: {missing} more {rule} {findings} not kept")


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
) -> Report:
    """``milk-contract run --provoke``: the run as ``run`` does it, then once per environment.

    ``timeout`` bounds each run, so the whole is bounded by about ``(1 + len(environments)) *
    (timeout + GRACE_SECONDS)``. A run that cannot start stops there (``run.start``).
    Ctrl-C raises :class:`contract.harness.Interrupted` as a live run does.
    """
    command = list(argv) if argv else default_command(WIRE)
    ignore = tuple(ignore)
    report = run_stream(command, wire=WIRE, timeout=timeout, env=env, expect_exit=expect_exit, strict=strict,
                        ignore=ignore, max_line_bytes=max_line_bytes, max_output_bytes=max_output_bytes)
    if "run.start" in report.counts:
        return report
    out = Collector(report, ignore)
    coloured: list[str] = ["pipe"] if "line.ansi" in report.counts else []
    for environment in environments:
        try:
            provoked = _capture(command, environment, env=env, timeout=timeout, expect_exit=expect_exit,
                                strict=strict, ignore=ignore, max_line_bytes=max_line_bytes,
                                max_output_bytes=max_output_bytes)
        except KeyboardInterrupt:  # the emitter is already killed (Process closes on the way out)
            interrupted(report, f"the emitter (under {environment.name})")
            raise Interrupted(report) from None
        except Exception as exc:  # a harness fault is a finding, never a pass (the emitter is killed)
            internal(report, f"provoked run under {environment.name}", exc)
            continue
        _merge(out, provoked, environment.name)
        report.exercised |= provoked.exercised  # the requirement verdicts count every environment
        if "line.ansi" in provoked.counts:
            coloured.append(environment.name)
        for note in provoked.notes:
            report.notes.append(f"under {environment.name}: {note}")
        if provoked.stderr and not report.stderr:
            report.stderr = provoked.stderr
    report.notes.append("provoked environments tried: " + "; ".join([BASE, *(e.describe() for e in environments)]))
    report.notes.append("line.ansi seen under: " + (", ".join(coloured) if coloured else "none of them"))
    return report
