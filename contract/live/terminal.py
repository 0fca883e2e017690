"""Pseudo-terminals for live runs: a raw one, and the twin run that times an emitter on one.

``run.buffered`` is judged surely only on evidence that holds (``contract.live.timeline``): where
the pipe run's one sign is a burst of lines after a silence, the harness runs the emitter again
with stdout a pseudo-terminal (:func:`twin_timeline`), where C stdio and Python alike are
line-buffered, and compares when the same lines came. ``contract.live.provoke`` takes its
terminals from here too (:func:`raw_pty`, :func:`close_all`).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterable, Mapping, Sequence

from contract.live.process import GRACE_SECONDS, Process, StartError
from contract.live.timeline import Clock, Timeline

READ_SIZE = 65536


def raw_pty() -> tuple[int, int]:
    """A pseudo-terminal (master, slave) in raw mode: no onlcr, so LF reaches us as LF, not CR LF."""
    import pty
    import tty

    master, slave = pty.openpty()
    try:
        tty.setraw(slave)
    except BaseException:
        close_all((master, slave))
        raise
    return master, slave


def close_all(fds: Iterable[int]) -> None:
    """Close each descriptor, whatever state it is in."""
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


def twin_timeline(argv: Sequence[str], *, env: Mapping[str, str] | None, timeout: float,
                  max_output_bytes: int) -> Timeline | None:
    """Run ``argv`` again with stdout a raw pseudo-terminal, only to time its lines; None when it
    could not run (no pty, or the command did not start).

    Bounded as the run was: killed with its group and descendants at ``timeout`` or past
    ``max_output_bytes``; what it writes is timed (a :class:`Clock`), not judged or kept.
    Ctrl-C passes through once it is killed.
    """
    try:
        master, slave = raw_pty()
    except OSError:
        return None
    started = time.monotonic()
    try:
        proc = Process(argv, env=env, stdout=slave)
    except StartError:
        close_all((master, slave))
        return None
    close_all((slave,))  # only the emitter's side holds it now: EIO on the master is the end
    clock = Clock(master, started)
    reader = threading.Thread(target=_time, args=(clock, master, max_output_bytes), daemon=True)
    try:
        with proc:
            reader.start()
            reader.join(max(started + timeout - time.monotonic(), 0.0))
            exited_at = time.monotonic() - started
            proc.kill()  # whatever still runs, and its group and descendants: the pty ends
            reader.join(GRACE_SECONDS)
    finally:
        close_all((master,))
    return clock.timeline(exited_at, tty=True)


def _time(clock: Clock, fd: int, limit: int) -> None:
    left = limit
    while left > 0:
        try:
            chunk = os.read(fd, READ_SIZE)
        except OSError:  # EIO: every holder of the slave has closed it
            return
        if not chunk:
            return
        clock.note(chunk, len(chunk), time.monotonic() - clock.start)
        left -= len(chunk)
