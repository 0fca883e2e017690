"""Running an emitter process: start it in its own process group, bound every wait, kill it all.

Both live drivers (stream-json capture here, the subagent-stdio conversation in
``contract.driver``) use :class:`Process`. The emitter runs in a new session so that a timeout
kills its children too; its stderr is drained on a thread into a bounded tail that goes into
the report, so a chatty emitter can neither block on a full pipe nor grow our memory.
"""

from __future__ import annotations

import contextlib
import io
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence
from typing import IO, Any

from contract.checker import check
from contract.reader import DEFAULT_MAX_LINE_BYTES
from contract.report import Collector, Report

STDERR_TAIL_BYTES = 16 * 1024
DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024 * 1024
GRACE_SECONDS = 2.0  # how long we wait for pipes to drain after a kill


class StartError(Exception):
    """The command could not be started (not found, not executable)."""


class Process:
    """One emitter process in its own process group."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        stdin: bool = False,
        cwd: str | None = None,
    ) -> None:
        try:
            self.popen = subprocess.Popen(
                list(argv),
                stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                env=dict(env) if env is not None else None,
                cwd=cwd,
            )
        except (OSError, ValueError) as exc:
            raise StartError(f"cannot start {argv[0] if argv else '(empty command)'}: {exc}") from exc
        self._tail: deque[bytes] = deque()
        self._tail_size = 0
        self._stderr_thread = threading.Thread(target=self._drain_stderr, daemon=True)
        self._stderr_thread.start()

    @property
    def stdout(self) -> IO[bytes]:
        assert self.popen.stdout is not None
        return self.popen.stdout

    def write(self, data: bytes, timeout: float | None = None) -> bool:
        """Write to the emitter's stdin; False when it no longer reads (closed, dead, or, with
        ``timeout``, not reading: a full pipe must not block the driver past its deadline)."""
        pipe = self.popen.stdin
        if pipe is None:
            return False
        try:
            if timeout is None:
                pipe.write(data)
                pipe.flush()
                return True
            pipe.flush()
            return _write_within(pipe.fileno(), data, time.monotonic() + timeout)
        except (BrokenPipeError, OSError, ValueError):
            return False

    def close_stdin(self) -> None:
        pipe = self.popen.stdin
        if pipe is not None:
            with contextlib.suppress(BrokenPipeError, OSError):
                pipe.close()

    def wait(self, timeout: float) -> int | None:
        """The exit status, or None if it is still running after ``timeout`` seconds."""
        try:
            return self.popen.wait(timeout=max(timeout, 0.0))
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        """Kill the whole process group and reap the emitter."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            self.popen.kill()
        self.popen.wait()
        self._stderr_thread.join(GRACE_SECONDS)

    def reap_group(self) -> None:
        """After the emitter exited: children it left in its group die with it."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        self._stderr_thread.join(GRACE_SECONDS)

    def stderr_tail(self) -> str:
        return b"".join(self._tail).decode("utf-8", "replace")

    def _drain_stderr(self) -> None:
        pipe = self.popen.stderr
        assert isinstance(pipe, io.BufferedReader)  # subprocess pipes are buffered unless bufsize=0
        try:
            for chunk in iter(lambda: pipe.read1(4096), b""):
                self._tail.append(chunk)
                self._tail_size += len(chunk)
                while self._tail_size > STDERR_TAIL_BYTES and len(self._tail) > 1:
                    self._tail_size -= len(self._tail.popleft())
        except (OSError, ValueError):
            pass


def _write_within(fd: int, data: bytes, until: float) -> bool:
    """Write all of ``data`` to ``fd`` before ``until``; False if the reader does not take it."""
    view = memoryview(data)
    os.set_blocking(fd, False)
    try:
        while view:
            left = until - time.monotonic()
            if left <= 0:
                return False
            if not select.select([], [fd], [], left)[1]:
                continue
            try:
                view = view[os.write(fd, view):]
            except BlockingIOError:
                continue
    finally:
        os.set_blocking(fd, True)
    return True


class LimitedStream:
    """A readline-able view of a pipe that stops after ``limit`` bytes (a flooding emitter)."""

    def __init__(self, stream: IO[bytes], limit: int, keep: bool = False) -> None:
        self._stream = stream
        self._left = limit
        self.exceeded = False
        self.kept: list[bytes] | None = [] if keep else None  # the transcript, when recording

    def readline(self, size: int = -1) -> bytes:
        if self._left <= 0:
            self.exceeded = True
            return b""
        want = self._left if size < 0 else min(size, self._left)
        try:
            data = self._stream.readline(want)
        except (OSError, ValueError):
            return b""
        self._left -= len(data)
        if self.kept is not None:
            self.kept.append(data)
        return data


def default_command(wire: str) -> list[str]:
    """The bundled reference emitter for ``wire``, run with this interpreter."""
    module = {"stream-json": "stream_json_emitter", "subagent-stdio": "subagent_host"}[wire]
    return [sys.executable, "-m", f"contract.reference.{module}"]


def describe_status(status: int) -> str:
    if status < 0:
        try:
            return f"killed by signal {signal.Signals(-status).name}"
        except ValueError:
            return f"killed by signal {-status}"
    return f"exit status {status}"


def run_stream(argv: Sequence[str], **options: Any) -> Report:
    """Start ``argv``, check its stdout as it comes, and judge how it ended."""
    return record_stream(argv, **options)[0]


def record_stream(
    argv: Sequence[str],
    *,
    wire: str = "stream-json",
    timeout: float = 60.0,
    env: Mapping[str, str] | None = None,
    expect_exit: int | None = 0,
    strict: bool = False,
    ignore: Sequence[str] = (),
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
    keep: bool = False,
) -> tuple[Report, bytes]:
    """Like :func:`run_stream`; with ``keep``, also the transcript (for goldens)."""
    source = " ".join(argv)
    try:
        proc = Process(argv, env=env)
    except StartError as exc:
        failed = Report(wire=wire, strict=strict, source=source)
        Collector(failed, ignore).emit("run.start", None, None, str(exc), "check the command and PATH")
        return failed, b""
    deadline = time.monotonic() + timeout
    stream = LimitedStream(proc.stdout, max_output_bytes, keep)
    holder: dict[str, Any] = {}

    def consume() -> None:
        holder["report"] = check(stream, wire, strict=strict, ignore=ignore,  # type: ignore[arg-type]
                                 max_line_bytes=max_line_bytes, source=source)

    reader = threading.Thread(target=consume, daemon=True)
    reader.start()
    status = _await_end(proc, reader, stream, deadline)
    timed_out = status is None and not stream.exceeded
    if status is None or stream.exceeded:
        proc.kill()
        status = proc.popen.returncode
        reader.join(GRACE_SECONDS + 5)
    else:
        proc.reap_group()
    report: Report = holder.get("report") or Report(wire=wire, strict=strict, source=source)
    _judge_end(report, Collector(report, ignore), timed_out, stream.exceeded, status,
               expect_exit, timeout, max_output_bytes)
    report.stderr = proc.stderr_tail()
    return report, b"".join(stream.kept or ())


def _await_end(proc: Process, reader: threading.Thread, stream: LimitedStream, deadline: float) -> int | None:
    """The exit status once output has ended; None on a flood or when the deadline passes first.

    A flood is cut at once rather than at the deadline, and an emitter that exited while a
    child of its holds stdout open costs no timeout: its group is reaped, which ends the output.
    """
    reaped = False
    while reader.is_alive() and time.monotonic() < deadline:
        reader.join(min(0.05, max(deadline - time.monotonic(), 0.0)))
        if reader.is_alive() and not reaped and proc.popen.poll() is not None:
            proc.reap_group()
            reaped = True
    if reader.is_alive() or stream.exceeded:
        return None
    return proc.wait(deadline - time.monotonic())


def _judge_end(
    report: Report,
    out: Collector,
    timed_out: bool,
    flooded: bool,
    status: int | None,
    expect_exit: int | None,
    timeout: float,
    max_output_bytes: int,
) -> None:
    if flooded:
        out.emit("run.output-limit", None, None,
                 f"expected at most {max_output_bytes} bytes of output, found more; the emitter was killed",
                 "raise --max-output-bytes if the run is legitimately that long")
    elif timed_out:
        out.emit("run.timeout", None, None,
                 f"expected the emitter to exit within {timeout:g}s, found it still running; "
                 "killed it and its process group",
                 "a hung emitter, or one that closed stdout but kept running")
    if status is not None:
        report.exit_status = status
    if not timed_out and not flooded and status is not None and expect_exit is not None and status != expect_exit:
        out.emit("run.exit-status", None, None,
                 f"expected exit status {expect_exit}, found {describe_status(status)}")
