"""Whether a second core is free now: the measured choice behind ``check``'s default ``--jobs``.

Two processes pay only when the worker gets a core of its own: on a two-core machine where another
process holds one core, ``--jobs 2`` measured slower in wall time than one process (BENCHMARKS.md,
issue 34). Whether the file is worth splitting at all is ``parallel.worth_it``'s to say (wire,
size, cores, threads, a mostly valid sample); this module adds what that cannot know, the
machine's load at the moment of the check, by a quick probe: the kernel's count of runnable
threads (``/proc/loadavg``'s fourth field, an instantaneous figure, not the decaying average),
read ``SAMPLES`` times ``GAP`` seconds apart (a few milliseconds in all), less this process's own
thread. When the other runnable threads average ``BUSY`` or more, a core is taken and the check
stays in one process. Where the count cannot be read (no ``/proc``), the choice is as before the
probe: two processes. The report's notes say which was used and why (``Choice.note``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

SAMPLES = 4
GAP = 0.0005  # seconds between samples: 2 ms of wall in all, next to the check of 2 MiB or more
BUSY = 0.5  # other runnable threads on average from which a core counts as taken


@dataclass(frozen=True)
class Choice:
    """The default's choice: two processes or one, and what the probe found."""

    two: bool
    others: float | None  # other runnable threads on average (None: not measured)
    cores: int

    @property
    def note(self) -> str:
        if self.others is None:
            return ("--jobs unset: checked in two processes (the machine's load could not be read, "
                    f"{self.cores} cores)")
        found = f"{self.others:.1f} other runnable threads on average over {SAMPLES} samples, {self.cores} cores"
        if self.two:
            return f"--jobs unset: checked in two processes (a second core was free: {found})"
        return (f"--jobs unset: checked in one process (another process held a core: {found}; "
                "two processes cannot win then, and --jobs 2 forces them)")


def runnable() -> int | None:
    """The runnable threads now, system-wide (this one included), or None where unknown."""
    try:
        with open("/proc/loadavg", "rb") as handle:
            field = handle.read(200).split()[3]
        return int(field.split(b"/")[0])
    except (OSError, IndexError, ValueError):
        return None


def choose(cores: int, sample: Callable[[], int | None] = runnable, sleep: Callable[[float], None] = time.sleep
           ) -> Choice:
    """Two processes or one, by ``SAMPLES`` probes of ``sample`` (``runnable``) ``GAP`` apart."""
    counts: list[int] = []
    for index in range(SAMPLES):
        if index:
            sleep(GAP)
        count = sample()
        if count is None:
            return Choice(True, None, cores)
        counts.append(count)
    others = max(0.0, sum(counts) / len(counts) - 1)  # this thread is running while it reads
    return Choice(others < BUSY, others, cores)
