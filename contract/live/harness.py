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
import ctypes
import io
import os
import select
import shlex
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any

from contract.checking.pipeline import no_cycle_collection, run_rules
from contract.core import interrupts, textsafe
from contract.core.reader import DEFAULT_MAX_LINE_BYTES, Record, read_records
from contract.rules.report import Collector, Report
from contract.rules.requirements import Scope
from contract.wires import DEFAULT, Wire, ansi_for, resolve

STDERR_TAIL_BYTES = 16 * 1024
# The catalog rules a live stream run emits beside the reader's, the schema's and the machines'.
RULES = frozenset({"run.start", "run.timeout", "run.exit-status", "run.output-limit", "run.interrupted",
                   "run.stdout-held", "checker.internal"})
DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024 * 1024
GRACE_SECONDS = 2.0  # how long we wait for pipes to drain after a kill
# After the emitter exits, how long its descendants may still hold stdout open: what they write
# meanwhile is judged as part of the stream; one still holding it then is run.stdout-held.
DEFAULT_LATE_GRACE = 2.0
HELD_SHOWN = 5  # descendants named in a run.stdout-held finding (the rest are counted)


TOKEN_VARIABLE = "MILK_CONTRACT_RUN"  # names every process a run starts (see _descendants)
PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h
REAP_SECONDS = 1.0  # how long a SIGKILLed descendant may take to become reapable


class StartError(Exception):
    """The command could not be started (not found, not executable)."""


class _Subreaper:
    """This process as a child subreaper while at least one run is live (Linux; a no-op elsewhere).

    Orphaned descendants of an emitter (say a grandchild that called ``setsid`` and outlived its
    parent) then become our children instead of init's, so we can kill and reap them. It is
    counted, so nested or concurrent runs share it, and switched off when the last run ends: a
    library caller (or a pytest worker) is a subreaper only while a run is live, and reaps only
    the descendants it identified, never a child some other code of the caller is waiting for.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._users = 0
        self._prctl: Any = None
        if sys.platform.startswith("linux"):
            with contextlib.suppress(OSError, AttributeError):
                self._prctl = ctypes.CDLL(None, use_errno=True).prctl

    def _set(self, on: bool) -> None:
        if self._prctl is not None:
            self._prctl(PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0)  # fails harmlessly (EINVAL) on old kernels

    def __enter__(self) -> _Subreaper:
        with self._lock:
            if self._users == 0:
                self._set(True)
            self._users += 1
        return self

    def __exit__(self, *_: object) -> None:
        with self._lock:
            self._users -= 1
            if self._users == 0:
                self._set(False)


SUBREAPER = _Subreaper()


def _proc_pids() -> list[int]:
    try:
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:  # no /proc (not Linux): only the process group can be killed
        return []


def _stat(pid: int) -> tuple[int, int, int] | None:
    """(parent pid, process group, session) from ``/proc/<pid>/stat``; a zombie still has them."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()  # the command name may hold spaces and ')'
        return int(fields[1]), int(fields[2]), int(fields[3])
    except (OSError, IndexError, ValueError):
        return None


def _our_children() -> frozenset[int]:
    """The processes whose parent is this one, now (what a run's adopted orphans are told apart from)."""
    me = os.getpid()
    return frozenset(pid for pid in _proc_pids() if (stat := _stat(pid)) is not None and stat[0] == me)


# While a process execs, /proc/PID/environ reads empty for a moment (seen in CI: a setsid
# grandchild caught between writing a file and its exec). An orphan reparented to us (we are its
# subreaper) that reads empty is asked again for a bounded while, so it is not missed for that.
EXEC_RETRIES, EXEC_PAUSE = 10, 0.005


def _environ(pid: int) -> bytes | None:
    try:
        with open(f"/proc/{pid}/environ", "rb") as environ:
            return environ.read()
    except OSError:  # gone, or another user's process: not one of ours
        return None


def _carries(pid: int, marker: bytes, patient: bool = False) -> bool:
    """Whether ``pid``'s environment holds ``marker``; ``patient``: read an empty one again (an exec)."""
    data = _environ(pid)
    for _ in range(EXEC_RETRIES if patient else 0):
        if data != b"":
            break
        time.sleep(EXEC_PAUSE)
        data = _environ(pid)
    return data is not None and marker in b"\0" + data


def identity(fd: int) -> tuple[int, int] | None:
    """What an open file is, as (device, inode): a pipe's two ends, or a pty's slave, share it."""
    try:
        info = os.fstat(fd)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _holds(pid: int, target: tuple[int, int]) -> bool | None:
    """Whether ``pid`` has ``target`` open (None: its descriptors cannot be read)."""
    try:
        names = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return None
    for name in names:
        try:
            info = os.stat(f"/proc/{pid}/fd/{name}")  # follows the link to the open file itself
        except OSError:  # closed meanwhile
            continue
        if (info.st_dev, info.st_ino) == target:
            return True
    return False


def _command_name(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm", "rb") as comm:  # at most 16 bytes, chosen by the process: input
            return textsafe.text(comm.read(64).decode("utf-8", "replace").rstrip("\n"))
    except OSError:
        return "?"


def _descendants(token: str, group: int, before: frozenset[int] = frozenset()) -> set[int]:
    """Processes started by the run: in its process group, carrying its token, or their descendants.

    The token is in the environment every child inherits, so a ``setsid`` one is found while it
    lives; a descendant that cleared its environment is still found while its parent is found
    (by walking parent links). A zombie shows no environment but keeps its group: call this
    before killing, and again after, to reap what was killed.

    One more kind is found: a descendant that both left the session (``setsid``) and cleared its
    environment, once its parents exited. It is then an orphan adopted by us (the subreaper):
    a child of ours, in a session not ours, that was not our child before the run started
    (``before``) and carries no run token at all. Our own children stay in our session (the
    emitters, in sessions of their own, carry their tokens), so none of them is taken for one.
    """
    marker = f"\0{TOKEN_VARIABLE}={token}\0".encode()
    any_token = f"\0{TOKEN_VARIABLE}=".encode()
    me = os.getpid()
    session = os.getsid(0)
    stats = {pid: stat for pid in _proc_pids() if pid != me and (stat := _stat(pid)) is not None}
    found = {pid for pid, (parent, pgrp, sid) in stats.items()
             if pgrp == group or _carries(pid, marker, patient=parent == me)
             or (parent == me and sid != session and pid not in before and not _carries(pid, any_token))}
    grew = True
    while grew:
        more = {pid for pid, (parent, _, _) in stats.items() if parent in found and pid not in found}
        found |= more
        grew = bool(more)
    return found


class Process:
    """One emitter process in its own process group, and every process it starts.

    Use it as a context manager (or call :meth:`close`): while open, this process is a child
    subreaper, and on close every descendant still alive is killed and reaped.
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        stdin: bool = False,
        cwd: str | None = None,
        stdout: int | None = None,
        stdin_fd: int | None = None,
        stderr: int | None = None,
    ) -> None:
        self.token = uuid.uuid4().hex
        environ = dict(env) if env is not None else dict(os.environ)
        environ[TOKEN_VARIABLE] = self.token
        SUBREAPER.__enter__()
        self._closed = False
        self._before = _our_children()  # adopted orphans of this run are the children that come later
        try:
            self.popen = subprocess.Popen(
                list(argv),
                # stdin_fd, stdout, stderr: a pty's fd (contract.live.provoke, which holds and drains the
                # other end; contract.consumers.feed feeds a consumer through a terminal)
                stdin=stdin_fd if stdin_fd is not None else subprocess.PIPE if stdin else subprocess.DEVNULL,
                stdout=subprocess.PIPE if stdout is None else stdout,
                stderr=subprocess.PIPE if stderr is None else stderr,
                start_new_session=True,
                env=environ,
                cwd=cwd,
            )
        except (OSError, ValueError) as exc:
            self._closed = True
            SUBREAPER.__exit__()
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
        """Kill the whole process group and every descendant, and reap the emitter."""
        found = self._found()  # before the kill: a killed process no longer shows its token
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            self.popen.kill()
        self.popen.wait()
        self.kill_descendants(found)
        self._stderr_thread.join(GRACE_SECONDS)

    def reap_group(self) -> None:
        """After the emitter exited: children it left, in its group or not, die with it."""
        found = self._found()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        self.kill_descendants(found)
        self._stderr_thread.join(GRACE_SECONDS)

    def _found(self) -> set[int]:
        return _descendants(self.token, self.popen.pid, self._before) - {self.popen.pid}

    def holders(self, output: tuple[int, int] | None) -> list[str]:
        """The descendants that hold ``output`` (an :func:`identity`) open, as ``pid (name)``.

        Fail closed: a descendant whose descriptors cannot be read counts as holding it, and so
        does every descendant when the output's identity is unknown.
        """
        held = []
        for pid in sorted(self._found()):
            if output is None or _holds(pid, output) is not False:
                held.append(f"{pid} ({_command_name(pid)})")
        return held

    def kill_descendants(self, found: set[int] | None = None) -> set[int]:
        """SIGKILL every process the run started (``setsid`` ones too) and reap our orphans.

        Repeated until no new one is found, so a descendant forking while we kill is caught on
        the next round. The emitter itself is left to ``popen`` (which reaps it); the others that
        became our children (we are their subreaper) are reaped here, zombies included, so none
        piles up. Only identified descendants are reaped: never a child other code waits for.
        """
        handled: set[int] = set()
        found = self._found() if found is None else set(found)
        for _ in range(20):
            found -= handled
            if not found:
                break
            for pid in found:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            self._reap(found)
            handled |= found
            found = self._found()
        return handled

    def _reap(self, pids: set[int]) -> None:
        until = time.monotonic() + REAP_SECONDS
        left = set(pids)
        while left and time.monotonic() < until:
            for pid in list(left):
                try:
                    done, _ = os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:  # not our child: its own parent (or init) reaps it
                    left.discard(pid)
                    continue
                if done:
                    left.discard(pid)
            if left:
                time.sleep(0.01)

    def close(self) -> None:
        """Kill whatever is left and stop being a subreaper for this run (idempotent)."""
        if self._closed:
            return
        self._closed = True
        try:
            try:
                if self.popen.poll() is None:
                    self.kill()
                else:
                    self.reap_group()
            except KeyboardInterrupt:  # Ctrl-C or SIGTERM mid-cleanup: finish the kill, then pass it on
                self.kill()
                raise
        finally:
            # stdout is not closed here: a reader thread still blocked on it would hold its lock
            # (release() closes it once its reader is done); stdin is written from this thread only
            self.close_stdin()
            SUBREAPER.__exit__()

    def release(self, reader: threading.Thread | None) -> None:
        """Close stdout once its ``reader`` thread has ended (None: nobody reads it), so that no
        pipe is left to the garbage collector: under ``-W error`` its ResourceWarning fails the
        test that ran the emitter. A reader still blocked keeps the pipe, as :meth:`close` says."""
        pipe = self.popen.stdout
        if pipe is not None and (reader is None or not reader.is_alive()):
            with contextlib.suppress(OSError):
                pipe.close()

    def __enter__(self) -> Process:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def stderr_tail(self) -> str:
        return b"".join(self._tail).decode("utf-8", "replace")

    def _drain_stderr(self) -> None:
        pipe = self.popen.stderr
        if pipe is None:  # stderr is a pty the caller drains (contract.live.provoke)
            return
        assert isinstance(pipe, io.BufferedReader)  # subprocess pipes are buffered unless bufsize=0
        try:
            for chunk in iter(lambda: pipe.read1(4096), b""):
                self._tail.append(chunk)
                self._tail_size += len(chunk)
                while self._tail_size > STDERR_TAIL_BYTES and len(self._tail) > 1:
                    self._tail_size -= len(self._tail.popleft())
        except (OSError, ValueError):
            pass
        finally:  # this thread is the pipe's only reader
            with contextlib.suppress(OSError):
                pipe.close()


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


def default_command(wire: Wire | str) -> list[str]:
    """The bundled reference emitter for ``wire`` (``Wire.reference``), run with this interpreter."""
    return [sys.executable, "-m", resolve(wire).reference]


def describe_status(status: int) -> str:
    if status < 0:
        try:
            return f"killed by signal {signal.Signals(-status).name}"
        except ValueError:
            return f"killed by signal {-status}"
    return f"exit status {status}"


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


class _Judge:
    """The reader thread: reads the emitter's stdout and judges each line as it comes.

    It writes into a report the harness owns, so whatever happens (an exception here, a
    timeout, Ctrl-C) the findings seen so far are there to report.
    """

    def __init__(self, stream: LimitedStream, wire: str, out: Collector, max_line_bytes: int) -> None:
        self.stream = stream
        self.wire = wire
        self.out = out
        self.max_line_bytes = max_line_bytes
        self.line = 0  # the line being judged
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _records(self) -> Iterator[Record]:
        for record in read_records(self.stream, self.out, self.max_line_bytes,  # type: ignore[arg-type]  # a readable stream
                                   ansi=ansi_for(self.wire)):
            self.line = record.line
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
) -> tuple[Report, bytes]:
    """Like :func:`run_stream`; with ``keep``, also the transcript (for goldens).

    After the emitter exits, stdout is read for up to ``late_grace`` more seconds while any
    descendant holds it open (even past ``timeout``: the worst case is about ``timeout +
    late_grace + GRACE_SECONDS``); what arrives is judged as part of the stream, and a
    descendant still holding it then is ``run.stdout-held``. Then every descendant is reaped.

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
    try:
        proc = Process(argv, env=env)
    except StartError as exc:
        out.emit("run.start", None, None, str(exc), "check the command and PATH")
        return report, b""
    stream = LimitedStream(proc.stdout, max_output_bytes, keep)
    judge = _Judge(stream, wire, out, max_line_bytes)
    stopped: int | None = None  # the signal that interrupted the run
    late_grace = max(late_grace, 0.0)
    deadline = time.monotonic() + timeout
    # the reader gets one grace after the deadline (or after the late grace), in total
    join_until = deadline + late_grace + GRACE_SECONDS
    with proc:
        try:
            judge.thread.start()
            ending = await_output(proc, judge.thread, lambda: stream.exceeded, deadline, late_grace,
                                  identity(proc.stdout.fileno()))
            status = None if ending.timed_out or stream.exceeded else ending.status
            timed_out = status is None and not stream.exceeded
            exited_itself = proc.popen.poll() is not None  # before our kill: what exit_status will mean
            if status is None or stream.exceeded:
                proc.kill()
                status = proc.popen.returncode
                judge.thread.join(max(join_until - time.monotonic(), 0.0))
            else:
                proc.reap_group()
            judge_end(report, out, timed_out, stream.exceeded, status, expect_exit, timeout, max_output_bytes,
                       exited_itself, ending.held, late_grace)
            if timed_out or stream.exceeded:
                report.notes.append("exit_status: how the emitter ended by itself" if exited_itself else
                                    "exit_status: -9, the harness killed the emitter")
        except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM/SIGHUP (contract.core.interrupts)
            proc.kill()
            report.exit_status = proc.popen.returncode
            join_until = min(join_until, time.monotonic() + GRACE_SECONDS)
            judge.thread.join(max(join_until - time.monotonic(), 0.0))
            report.lines = max(report.lines, judge.line)
            stopped = interrupts.signal_of(exc)
            interrupted(report, "the emitter", stopped)
        except Exception as exc:  # a harness fault is a finding, never a pass
            proc.kill()
            report.exit_status = proc.popen.returncode
            join_until = min(join_until, time.monotonic() + GRACE_SECONDS)
            internal(report, "live harness", exc)
    judge.thread.join(max(join_until - time.monotonic(), 0.0))
    report.lines = max(report.lines, judge.line)
    if judge.error is not None:
        internal(report, "reader and rule machines", judge.error, judge.line or None)
    elif judge.thread.is_alive():
        internal(report, "reader", TimeoutError("output still open after the emitter was killed"),
                 judge.line or None)
    report.stderr = proc.stderr_tail()
    proc.release(judge.thread)
    if stopped is not None:
        raise Interrupted(report, b"".join(stream.kept or ()), stopped)
    return report, b"".join(stream.kept or ())


@dataclass(frozen=True)
class Ending:
    """How a live stream's output ended (:func:`await_output`)."""

    status: int | None  # the emitter's exit status; None while it still runs
    timed_out: bool  # the output had not ended by the deadline (nor, after an exit, the late grace)
    held: tuple[str, ...] = ()  # descendants that held the output open past the late grace


def await_output(
    proc: Process,
    reader: threading.Thread,
    flooded: Callable[[], bool],
    deadline: float,
    late_grace: float,
    output: tuple[int, int] | None,
) -> Ending:
    """Wait for the emitter's output to end (``reader`` is the thread reading it to its end).

    A flood is cut at once rather than at the deadline. After the emitter exits, the output is
    still read while descendants hold it open, up to ``late_grace`` seconds (even past the
    deadline: the emitter itself finished in time): what they write then is part of the stream.
    Whoever still holds it (``output``, an :func:`identity`) is named in ``held`` and the group
    and descendants are reaped, which ends the output; a reader still busy with what was already
    written gets until the deadline. Public for contract.live.provoke.
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
        if now >= until:
            break
        reader.join(min(0.05, until - now))
    if reader.is_alive() and not flooded():
        return Ending(proc.popen.poll(), True, held)
    return Ending(None if flooded() else proc.wait(deadline - time.monotonic()), False, held)


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
