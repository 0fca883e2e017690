"""Pacing a feed by its reader: how much a consumer left unread, and waiting until it took it all.

``contract.consumers.feed`` writes a stream's next line (or piece) only once the consumer has taken the one
before, so a consumer that stops early cannot have pulled the rest into a buffer of its own
(CPython's 8 KiB readline, Node's stream chunks, C stdio): what it never asked for is never
written, and is counted unread. The suite holds its own copy of the read end of the consumer's
stdin pipe (or the slave end of its terminal) and asks it FIONREAD; it never reads from it.
"""

from __future__ import annotations

import termios
import threading
import time


def pending(fd: int) -> int | None:
    """The bytes waiting unread in a pipe or a terminal's input queue (FIONREAD); None when not known."""
    import fcntl
    import struct

    try:
        answer: int = struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]
    except OSError:
        return None
    return answer


DRAIN_POLL_SECONDS = 0.005  # the longest wait between two looks at a pipe the consumer has not drained


# A terminal queues what the master wrote a moment later: the kernel moves it to the slave's input
# queue from a work queue (its flip buffer), which a loaded machine runs late. 2 ms was too short at
# a load of 4 on two cores (an outside trial: a consumer that never read was written two lines, not
# one); an empty queue is believed after 20 ms, the cost a terminal-fed consumer that reads at once
# pays per line (docs/limits.md).
PTY_SETTLE_SECONDS = 0.02


def drained(witness: int | None, deadline: float, stop: threading.Event, settle: float = 0.0) -> bool:
    """Wait until the consumer has read everything written to it (its pipe or terminal holds nothing
    unread), it went away (``stop``) or ``deadline`` passed; whether it drained. Without a witness
    nothing can be waited for (True at once). ``settle``: an empty queue is looked at again after
    this long before it counts (a terminal's input queue fills a moment after the write)."""
    if witness is None:
        return True
    wait = 0.0001
    while not stop.is_set() and time.monotonic() < deadline:
        left = pending(witness)
        if left == 0 and settle:
            stop.wait(settle)
            left = pending(witness)
        if left is None or left == 0:
            return True
        stop.wait(wait)  # a consumer that reads at its own pace is waited for, in growing steps
        wait = min(wait * 2, DRAIN_POLL_SECONDS)
    return False


__all__ = ["DRAIN_POLL_SECONDS", "PTY_SETTLE_SECONDS", "drained", "pending"]
