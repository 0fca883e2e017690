"""SIGINT, SIGTERM and SIGHUP as one interruption, the first one only, for live runs (docs/live-runs.md).

Ctrl-C (SIGINT) raises ``KeyboardInterrupt`` in the main thread, and every live run turns that
into a report: the emitter and its descendants are killed and reaped, what was seen is reported
with ``run.interrupted``. CI cancellation and ``timeout`` send SIGTERM, a closed terminal SIGHUP;
Python's default for both is to die at once, leaving the emitter (in its own session, so it
never gets the signal) running and printing nothing. :class:`as_interrupts` makes all three take
that path: its handler raises :class:`Signalled`, a ``KeyboardInterrupt`` carrying the signal
number, so every ``except KeyboardInterrupt`` that cleans up cleans up for them too, and the
report and the exit status (128 + the signal, ``contract.core.exitcodes.exit_interrupted``) name the
signal. It handles SIGINT itself too, so that a SIGTERM right after a Ctrl-C (or the reverse) is
a second signal, only noted, and not a second ``KeyboardInterrupt`` in the middle of the cleanup.

It is installed at the edges only (``milk-contract``'s ``main`` for the whole process, the
pytest plugin for a contract run's session) and restores the handlers it found, so a library
caller keeps its own signal handling.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable
from types import FrameType
from typing import Any

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_WAKEUPS: set[int] = set()  # the write ends of the wakeup pipes of the blocks active now
# What signal.signal installs and returns (typeshed's private signal._HANDLER, without its None)
_Handler = Callable[[int, FrameType | None], Any] | int | signal.Handlers


class Signalled(KeyboardInterrupt):
    """SIGTERM or SIGHUP received during a live run (a ``KeyboardInterrupt``, so cleanups run)."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"received {name(signum)}")
        self.signum = signum


def signal_of(exc: BaseException) -> int:
    """The signal an interruption stands for: its ``signum``, or SIGINT for a plain Ctrl-C."""
    signum = getattr(exc, "signum", None)
    return signum if isinstance(signum, int) else int(signal.SIGINT)


def name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


class as_interrupts:  # a context manager, named like contextlib's
    """While active, SIGINT, SIGTERM and SIGHUP raise :class:`Signalled` in the main thread.

    Only the first signal acts; the handlers switch to "note only" in the first handler, before
    the exception it raises starts any cleanup, so a second signal however soon after (CI sends
    SIGTERM again, a process group gets SIGINT and SIGTERM, a user presses Ctrl-C twice) neither
    breaks the cleanup nor changes what the run reports: it is appended to ``later``.

    "First" is the first the kernel delivered. Python runs its signal handlers in signal-number
    order, not in the order the signals came (two pending together: SIGHUP, then SIGINT, then
    SIGTERM), so the order is read from the wakeup file descriptor (``signal.set_wakeup_fd``),
    to which Python's C-level handler writes each signal's number as it arrives. Two signals
    sent before the process next runs are pending together, and Linux delivers those lowest
    number first: no process can tell which was sent first then.

    ``first(signum)`` replaces the raise (the pytest-xdist controller forwards the signal to its
    workers instead). ``ending=True`` is for an edge that ends the process after an interruption
    (the CLI, pytest): once a signal was received, leaving the block sets the three to SIG_IGN
    instead of restoring them, so no later signal can end the process with another status while
    it prints the report and exits (SIG_IGN, unlike a Python handler, outlives the interpreter's
    finalization). Without a signal, or with ``ending=False`` (a library caller), the handlers and
    the wakeup descriptor found on entry are put back.

    Blocks nest: an inner block installs its own handlers and puts the outer one's back. Outside
    the main thread (where Python cannot install handlers) it does nothing. A process forked while
    it is active (the two-process checker's worker, a process pool's) inherits the handler but not
    the run: there the signal does what it did before, it ends the process. ``received`` is the
    first signal caught, or None.
    """

    def __init__(self, *, ending: bool = False, first: Callable[[int], None] | None = None) -> None:
        self.received: int | None = None
        self.later: list[int] = []
        self.ending = ending
        self._first = first
        self._taken = False
        self._owed: int | None = None
        self._previous: dict[int, _Handler | None] = {}  # None: a handler installed from C
        self._wakeup: tuple[int, int] | None = None  # our pipe (read end, write end)
        self._previous_wakeup = -1
        self._pid = os.getpid()

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if os.getpid() != self._pid:  # a forked child: die by the signal, as without the handler
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        # The check and the switch, with no call between them: Python can run a handler at a
        # call, so a second signal's handler could otherwise run inside this one between the
        # two (one that runs before the check does the whole of it, reading the same pipe).
        if self._taken:
            if signum == self._owed:  # the first signal's own call, after another's that read the pipe
                self._owed = None
            else:
                self.later.append(signum)
            return
        self._taken = True
        first = self._delivered_first(signum)
        if first != signum:  # Python calls the first one's handler too, next: that call is owed
            self._owed = first
            self.later.append(signum)
        self.received = first
        if self._first is not None:
            self._first(first)
            return
        raise Signalled(first)

    def _delivered_first(self, signum: int) -> int:
        """The first of the handled signals the wakeup pipe recorded; ``signum`` if none yet
        (the byte is written just after the signal is marked, from whichever thread got it)."""
        if self._wakeup is None:
            return signum
        try:
            arrived = os.read(self._wakeup[0], 4096)
        except OSError:  # empty (non-blocking)
            return signum
        for number in arrived:
            if number in SIGNALS:
                return number
        return signum

    def __enter__(self) -> as_interrupts:
        self._pid = os.getpid()
        self._taken = False
        try:
            signal.getsignal(signal.SIGINT)
            self._open_wakeup()  # before the handlers: a signal caught by them is in the pipe
        except ValueError:  # not the main thread: leave the handlers to whoever owns it
            return self
        for signum in SIGNALS:
            self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def _open_wakeup(self) -> None:
        read, write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        previous = signal.set_wakeup_fd(write, warn_on_full_buffer=False)
        if previous != -1 and previous not in _WAKEUPS:  # someone's (asyncio's): keep it, go by Python's order
            signal.set_wakeup_fd(previous)
            os.close(read)
            os.close(write)
            return
        self._wakeup = (read, write)  # an outer block's is put back on exit
        self._previous_wakeup = previous
        _WAKEUPS.add(write)

    def __exit__(self, *_: object) -> None:
        for signum, previous in self._previous.items():
            if self.ending and self._taken:
                signal.signal(signum, signal.SIG_IGN)
            else:  # None: a handler installed from C, which Python cannot put back; the default is the closest
                signal.signal(signum, signal.SIG_DFL if previous is None else previous)
        self._previous.clear()
        if self._wakeup is not None:
            with contextlib.suppress(ValueError):
                signal.set_wakeup_fd(self._previous_wakeup)
            _WAKEUPS.discard(self._wakeup[1])
            for end in self._wakeup:
                os.close(end)
            self._wakeup = None
