"""SIGTERM and SIGHUP as the interruption Ctrl-C already is, for live runs (docs/live-runs.md).

Ctrl-C (SIGINT) raises ``KeyboardInterrupt`` in the main thread, and every live run already
turns that into a report: the emitter and its descendants are killed and reaped, what was seen
is reported with ``run.interrupted``. CI cancellation and ``timeout`` send SIGTERM, a closed
terminal SIGHUP; Python's default for both is to die at once, leaving the emitter (in its own
session, so it never gets the signal) running and printing nothing. :class:`as_interrupts`
makes both take the Ctrl-C path: its handler raises :class:`Signalled`, a ``KeyboardInterrupt``
carrying the signal number, so every ``except KeyboardInterrupt`` that cleans up today cleans
up for them too, and the report and the exit status (128 + the signal,
``contract.exitcodes.exit_interrupted``) can name the signal.

It is installed at the edges only (each CLI verb, the pytest plugin around a live test) and
restores the handlers it found, so a library caller keeps its own signal handling.
"""

from __future__ import annotations

import os
import signal
from types import FrameType

SIGNALS = (signal.SIGTERM, signal.SIGHUP)  # SIGINT already raises KeyboardInterrupt


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
    """While active, SIGTERM and SIGHUP raise :class:`Signalled` in the main thread.

    Only the first signal raises: a second one (CI sends SIGTERM again, or a process group
    gets it twice) must not break the cleanup the first one started, which is bounded anyway
    (the harness' kill and reap take a few seconds at most); it is only recorded. Outside the
    main thread (where Python cannot install handlers) it does nothing. A process forked while it
    is active (the two-process checker's worker, a process pool's) inherits the handler but not
    the run: there the signal does what it did before, it ends the process. ``received`` is the
    first signal caught, or None.
    """

    def __init__(self) -> None:
        self.received: int | None = None
        self._previous: dict[int, object] = {}
        self._pid = os.getpid()

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if os.getpid() != self._pid:  # a forked child: die by the signal, as without the handler
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        if self.received is not None:
            return
        self.received = signum
        raise Signalled(signum)

    def __enter__(self) -> as_interrupts:
        self._pid = os.getpid()
        for signum in SIGNALS:
            try:
                self._previous[signum] = signal.signal(signum, self._handle)
            except ValueError:  # not the main thread: leave the handlers to whoever owns it
                break
        return self

    def __exit__(self, *_: object) -> None:
        for signum, previous in self._previous.items():
            # None: a handler installed from C, which Python cannot put back; the default is the closest
            signal.signal(signum, signal.SIG_DFL if previous is None else previous)  # type: ignore[arg-type]
        self._previous.clear()
