"""The emitter as a process: started in its own session, every descendant found, killed and reaped.

``Process`` is what every live run holds (``contract.live.harness`` for a stream,
``contract.live.driver`` for a conversation, ``contract.live.provoke``, the consumers' feeds):
the emitter in a new session so that a kill reaches its children, this process a child
subreaper while a run is live (Linux) so that orphaned descendants become ours, and a per-run
token in every descendant's environment by which one that left the session is still found in
``/proc``. Its stderr is drained on a thread into a bounded tail. docs/live-runs.md, "Reaping",
tells the whole story; the module was split from the harness so that the harness reads as the
run it drives.
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import os
import select
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import deque
from collections.abc import Mapping, Sequence
from typing import IO, Any

from contract.core import textsafe
from contract.wires import Wire, resolve

STDERR_TAIL_BYTES = 16 * 1024
GRACE_SECONDS = 2.0  # how long we wait for pipes to drain after a kill
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

# Runs on several threads of one process (the API's callers, tests/live/test_liveness.py) start
# emitters while others look for orphans. Between its fork and its exec an emitter is a child of
# ours in a session of its own whose environment (ours) carries no run token: exactly what an
# adopted orphan looks like, so another run's scan killed it and reaped it (its Popen then read
# exit status 0: issue 32's liveness cases failed so under load). Starting an emitter and scanning
# for orphans take this lock, so a scan never sees an emitter before its exec; and every emitter a
# Process started is in _STARTED until it is closed, so none is taken for an orphan afterwards.
_SPAWN = threading.Lock()
_STARTED: set[int] = set()


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
    with _SPAWN:  # no emitter of another run is between its fork and its exec now (see _SPAWN)
        stats = {pid: stat for pid in _proc_pids() if pid != me and (stat := _stat(pid)) is not None}
        found = {pid for pid, (parent, pgrp, sid) in stats.items()
                 if pgrp == group or _carries(pid, marker, patient=parent == me)
                 or (parent == me and sid != session and pid not in before and pid not in _STARTED
                     and not _carries(pid, any_token))}
    grew = True
    while grew:
        more = {pid for pid, (parent, _, _) in stats.items() if parent in found and pid not in found}
        found |= more
        grew = bool(more)
    return found


def _kill_carrying(token: str) -> None:
    """SIGKILL and reap every process carrying the run ``token`` (a child started as Ctrl-C came)."""
    for pid in _descendants(token, -1):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.waitpid(pid, 0)  # ours: reaped at once after SIGKILL; another's: ChildProcessError


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
            with _SPAWN:  # see _SPAWN: no orphan scan while this emitter is between fork and exec
                self.popen = self._start(argv, environ, cwd, stdin, stdin_fd, stdout, stderr)
                _STARTED.add(self.popen.pid)
        except (OSError, ValueError) as exc:
            self._closed = True
            SUBREAPER.__exit__()
            raise StartError(f"cannot start {argv[0] if argv else '(empty command)'}: {exc}") from exc
        except BaseException:  # Ctrl-C inside Popen, after the fork: the child may run, with no Popen to kill it
            self._closed = True
            _kill_carrying(self.token)
            SUBREAPER.__exit__()
            raise
        self._tail: deque[bytes] = deque()
        self._tail_size = 0
        self._stderr_thread = threading.Thread(target=self._drain_stderr, daemon=True)
        try:
            self._stderr_thread.start()  # waits for the thread to run: a Ctrl-C can come here too
        except BaseException:
            self._closed = True
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.popen.pid, signal.SIGKILL)
            _kill_carrying(self.token)
            with _SPAWN:
                _STARTED.discard(self.popen.pid)
            SUBREAPER.__exit__()
            raise

    @staticmethod
    def _start(argv: Sequence[str], environ: dict[str, str], cwd: str | None, stdin: bool, stdin_fd: int | None,
               stdout: int | None, stderr: int | None) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
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
            with _SPAWN:
                _STARTED.discard(self.popen.pid)
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
