"""When a live run's lines arrived: the clock on the emitter's stdout, the timeline summary, the liveness rules.

A stream that is well formed but arrives all at once at exit (a block-buffered stdout on a
pipe) or never ends after its result passes every content rule; a consumer UI waiting on it
shows nothing until the end. So the harness (``contract.live.harness``) and the conversation
driver (``contract.live.driver``) read the emitter's stdout through a :class:`Clock`: a raw
reader that notes, per ``read`` (never per line), when it returned and how many line ends it
held, so each line's arrival (when its last byte came, ``time.monotonic()`` from the emitter's
start) and the read it came in are known at no per-line cost (bench/timeline.py measures it).

:class:`Timeline` is what a report carries (``Report.timeline``): every format shows its
summary (time to first line, longest gap and where, gap percentiles, lines that came in the
same read, result to exit), and the JSON report lists the arrivals up to ``LISTED_LINES``, then
says how many more it summarised. :func:`judge` holds a stream run to the liveness rules
(``run.first-line``, ``run.stall``, ``run.buffered``; the harness itself emits
``run.exit-after-result`` when it has to kill an emitter that did not exit after its result),
with the thresholds of :class:`Liveness` (docs/limits.md, docs/live-runs.md, "Liveness").
"""

from __future__ import annotations

import io
import os
import time
from array import array
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from contract.core.sink import Sink
from contract.core.textsafe import counted

# One read takes all a pipe holds (64 KiB by default on Linux, up to 1 MiB), so a read's size is
# the emitter's write, never our buffer's: a read cut at 8 KiB mid-line is the emitter's doing.
READ_BYTES = 1 << 20
TIMED_READS = 200_000  # reads holding a line end kept in detail (16 bytes each); past it, summarised
LISTED_LINES = 1_000  # arrivals listed in the JSON report; past it, the summary alone (and said so)
GAPS_KEPT = 100  # gaps longer than --max-gap kept (the longest is tracked over the whole run anyway)

# run.buffered, the dump at exit: a run whose output came only after this long, all of it within
# BURST seconds, while the emitter's processes were idle (neither running nor waiting to run,
# /proc/PID/schedstat) for at least MIN_IDLE of it: it slept with its lines held back. The idle
# measure is what tells a dump from a slow start on a loaded machine (the interpreter starting,
# then writing everything at once, is busy, not idle).
BUFFERED_MIN_RUN = 1.0
BUFFERED_BURST = 0.05
BUFFERED_MIN_IDLE = 0.5
# run.buffered, the cut reads: a read of a block size (a multiple of 4 KiB up to 64 KiB) ending
# mid-line, followed by this much silence, at least CUT_READS times: a buffer flushed when full.
BLOCK = 4096
CUT_QUIET = 0.1
CUT_READS = 2
CUTS_KEPT = 16

RULES = frozenset({"run.first-line", "run.stall", "run.buffered", "run.exit-after-result"})


@dataclass(frozen=True)
class Liveness:
    """The liveness thresholds, in seconds (CLI ``--first-line-within``, ``--max-gap``, ``--exit-grace``,
    ``--response-within``; the plugin's ``--contract-…``; defaults in docs/limits.md)."""

    first_line_within: float = 10.0
    max_gap: float = 30.0
    exit_grace: float = 5.0
    response_within: float = 10.0


DEFAULT_LIVENESS = Liveness()


def _busy_seconds(pid: int) -> float | None:
    """CPU time plus time waiting to run (``/proc/PID/schedstat``), or None where it cannot be read."""
    try:
        with open(f"/proc/{pid}/schedstat", "rb") as stat:
            fields = stat.read().split()
        return (int(fields[0]) + int(fields[1])) / 1e9
    except (OSError, IndexError, ValueError):
        return None


_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _age(pid: int) -> float | None:
    """Seconds since the process began (``/proc/PID/stat``'s start time on the boot clock), or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()  # the name, in parentheses, may hold anything
        return time.clock_gettime(time.CLOCK_BOOTTIME) - int(fields[19]) / _TICKS
    except (OSError, IndexError, ValueError, AttributeError):
        return None


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children", "rb") as children:
            return [int(child) for child in children.read().split()]
    except (OSError, ValueError):
        return []


class Clock(io.RawIOBase):
    """The emitter's stdout, read raw: each read's time and line ends noted as it returns.

    Wrapped in an ``io.BufferedReader`` of ``READ_BYTES`` (:func:`timed`), it is what the
    harness's reader reads lines from. Per read: one ``time.monotonic()`` and one C-level count
    of LF bytes; per line: nothing. Reads that end no line are folded into the next that does.
    """

    def __init__(self, fd: int, start: float, max_gap: float = DEFAULT_LIVENESS.max_gap) -> None:
        super().__init__()
        self._fd = fd
        self.start = start
        self.max_gap = max_gap
        self.at = array("d")  # per read that ended a line: when, from the start
        self.ends = array("q")  # ... and how many lines had ended by then
        self.truncated = False  # reads past TIMED_READS were counted, not kept
        self.reads = 0  # every read that returned data
        self.lines = 0  # line ends seen
        self.first_byte: float | None = None
        self.last_at: float | None = None  # the latest read that ended a line
        self.tail_at: float | None = None  # the latest read of any data
        self.eof_at: float | None = None
        self.longest = (0.0, 0)  # the longest gap between two lines, and the line after it
        self.gaps: list[tuple[float, int]] = []  # gaps over max_gap (seconds, the line after), the first GAPS_KEPT
        self.more_gaps = 0
        # block-sized reads ending mid-line: (at, size, the silence after it), the first CUTS_KEPT
        self.cuts: list[tuple[float, int, float | None]] = []
        self.quiet_cuts = 0  # of them, those followed by CUT_QUIET of silence
        self.result_line: int | None = None  # set by the reader: the wire's terminal line
        self._busy: dict[int, float] = {}
        self.idle: float | None = None  # the emitter's processes idle before its first line (sample)
        self.sampled = False

    def readable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def readinto(self, buffer: Any) -> int:
        data = os.read(self._fd, len(buffer))
        now = time.monotonic() - self.start
        size = len(data)
        if not size:
            self.eof_at = now
            return 0
        buffer[:size] = data
        self.note(data, size, now)
        return size

    def note(self, data: bytes, size: int, now: float) -> None:
        """One read of ``size`` bytes (``data``, not empty) that returned ``now`` seconds after the start
        (called by :meth:`readinto`; contract.live.provoke calls it for the chunks it reads itself)."""
        self.reads += 1
        if self.first_byte is None:
            self.first_byte = now
        if self.cuts and self.cuts[-1][2] is None:  # the silence after the last cut read
            at, cut, _ = self.cuts[-1]
            self.cuts[-1] = (at, cut, now - self.tail_at if self.tail_at is not None else 0.0)
            self.quiet_cuts += now - (self.tail_at or 0.0) >= CUT_QUIET
        self.tail_at = now
        if data[-1] != 0x0A and size % BLOCK == 0 and size <= 16 * BLOCK and len(self.cuts) < CUTS_KEPT:
            self.cuts.append((now, size, None))
        ended = data.count(b"\n")
        if not ended:
            return
        first = self.lines + 1
        self.lines += ended
        if self.last_at is not None:
            gap = now - self.last_at
            if gap > self.longest[0]:
                self.longest = (gap, first)
            if gap > self.max_gap:
                if len(self.gaps) < GAPS_KEPT:
                    self.gaps.append((gap, first))
                else:
                    self.more_gaps += 1
        self.last_at = now
        if len(self.at) < TIMED_READS:
            self.at.append(now)
            self.ends.append(self.lines)
        else:
            self.truncated = True

    def sample(self, pid: int) -> None:
        """Note how long the emitter's processes (it and its descendants) were idle before its first line.

        Called by the harness while the emitter lives (every 50 ms at most) and until its first
        line: a few small reads in ``/proc``, never per line. Busy is CPU time plus time waiting
        for a CPU, summed over the processes (so two busy processes count twice: fewer dumps,
        never more); what an emitter does after its first line does not count.
        """
        if self.lines:
            return
        now = time.monotonic() - self.start
        # idle is counted from the process's own start, not the clock's: on a loaded machine the
        # fork can come a second after the clock started (threads starting runs at once), and a
        # process that did not exist yet was not sleeping with its lines held back
        age = _age(pid)
        if age is not None:
            now = min(now, age)
        todo, seen = [pid], 0
        while todo and seen < 64:
            current = todo.pop()
            seen += 1
            busy = _busy_seconds(current)
            if busy is None:
                continue
            self._busy[current] = busy
            todo.extend(_children(current))
        if self._busy:
            self.sampled = True
            self.idle = max(now - sum(self._busy.values()), 0.0)

    def arrival(self, line: int) -> tuple[float, int] | None:
        """When ``line`` (1-based) arrived and in which read (1-based, among reads ending lines)."""
        if line < 1 or not self.ends or line > self.ends[-1]:
            return None
        read = bisect_left(self.ends, line)
        return self.at[read], read + 1

    def timeline(self, exited_at: float | None, tty: bool = False) -> Timeline:
        """The summary of what was read, once the output has ended."""
        return Timeline(self, exited_at, tty)


def timed(fd: int, start: float, max_gap: float = DEFAULT_LIVENESS.max_gap) -> tuple[Clock, io.BufferedReader]:
    """A :class:`Clock` on ``fd`` and the buffered reader to read lines from."""
    clock = Clock(fd, start, max_gap)
    return clock, io.BufferedReader(clock, buffer_size=READ_BYTES)


def _percentile(values: list[float], zeros: int, share: float) -> float:
    """The ``share`` percentile of ``values`` plus ``zeros`` zeros (nearest rank)."""
    total = len(values) + zeros
    rank = max(int(share * total + 0.999999) - 1, 0)
    return 0.0 if rank < zeros else values[rank - zeros]


def streams_only_on_a_terminal(pipe: Timeline | None, pty: Timeline | None) -> str | None:
    """What to say when a build dumped on a pipe but streamed on a terminal (``--provoke``), else None.

    The pipe run came in one read (or one burst); the pty run's lines came in several reads
    spread over at least ``BUFFERED_BURST``: its stdio is line-buffered on a terminal, block-buffered
    on a pipe (the classic ``isatty`` default of C stdio and Python alike).
    """
    if pipe is None or pty is None or pty.lines < 2 or pipe.lines < 2:
        return None
    spread = (pty.arrivals[-1][0] - pty.arrivals[0][0]) if pty.arrivals else 0.0
    if pty.reads < 2 or spread < BUFFERED_BURST or pipe.longest_gap > BUFFERED_BURST:
        return None
    return (f"streams on a terminal and dumps on a pipe: under pty its {counted(pty.lines, 'line')} came in "
            f"{counted(pty.reads, 'read')} "
            f"over {_s(spread)}, on a pipe all {pipe.lines} in one burst at {_s(pipe.first_line)}: its stdout is "
            "line-buffered on a terminal and block-buffered on a pipe")


def _s(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


@dataclass
class Timeline:
    """A live run's arrival times, summarised for every report format (``Report.timeline``)."""

    lines: int
    reads: int
    first_line: float | None
    longest_gap: float
    longest_gap_line: int
    percentiles: dict[str, float]
    same_read: int
    result_line: int | None
    result_at: float | None
    exited_at: float | None
    tty: bool
    truncated: bool
    arrivals: list[tuple[float, int]] = field(default_factory=list)  # (seconds, read) per line, the first LISTED_LINES

    def __init__(self, clock: Clock, exited_at: float | None, tty: bool = False) -> None:
        self.lines, self.reads, self.tty, self.exited_at = clock.lines, clock.reads, tty, exited_at
        self.truncated = clock.truncated
        self.first_line = clock.at[0] if clock.at else None
        self.longest_gap, self.longest_gap_line = clock.longest
        ends = clock.ends
        counts = [ends[0], *(b - a for a, b in pairwise(ends))] if ends else []
        self.same_read = sum(n for n in counts if n > 1)
        gaps = sorted(b - a for a, b in pairwise(clock.at))
        zeros = sum(n - 1 for n in counts)
        self.percentiles = {name: _percentile(gaps, zeros, share) for name, share in
                            (("p50", 0.5), ("p90", 0.9), ("p99", 0.99))} if gaps or zeros else {}
        self.result_line = clock.result_line
        found = clock.arrival(clock.result_line) if clock.result_line is not None else None
        self.result_at = found[0] if found is not None else None
        self.arrivals = list(_arrivals(clock, LISTED_LINES))

    @property
    def result_to_exit(self) -> float | None:
        if self.result_at is None or self.exited_at is None:
            return None
        return max(self.exited_at - self.result_at, 0.0)

    def summary(self) -> str:
        """One line: the timeline at a glance (every format shows it)."""
        if not self.lines:
            return f"timeline: no line arrived; exit at {_s(self.exited_at)}"
        gap = (f"longest gap {_s(self.longest_gap)} before line {self.longest_gap_line}"
               if self.longest_gap_line else "no gap (every line in one read)")
        shares = ", ".join(f"{name} {_s(value)}" for name, value in self.percentiles.items())
        return (f"timeline: first line at {_s(self.first_line)}; {gap}; gaps {shares or '-'}; "
                f"{self.same_read} of {counted(self.lines, 'line')} came in a read with others "
                f"({counted(self.reads, 'read')}); "
                f"result to exit {_s(self.result_to_exit)}" + (" (stdout a terminal)" if self.tty else ""))

    def text_lines(self) -> list[str]:
        return [self.summary()]

    def to_json(self) -> dict[str, object]:
        listed = len(self.arrivals)
        return {
            "lines": self.lines, "reads": self.reads, "first_line": self.first_line,
            "longest_gap": self.longest_gap, "longest_gap_line": self.longest_gap_line or None,
            "gap_percentiles": self.percentiles, "same_read": self.same_read,
            "result_line": self.result_line, "result_at": self.result_at, "exited_at": self.exited_at,
            "result_to_exit": self.result_to_exit, "tty": self.tty,
            # each line's arrival (seconds from the start) and the read it came in, the first LISTED_LINES
            "arrivals": [[round(at, 6), read] for at, read in self.arrivals],
            "listed": listed, "summarised": self.lines - listed,
            **({"note": f"arrivals past line {listed} are summarised, not listed (at most {LISTED_LINES}); "
                        "the figures above cover every line"
                        + (f" (the percentiles the first {TIMED_READS} reads)" if self.truncated else "")}
               if self.lines > listed else {}),
        }


def _arrivals(clock: Clock, limit: int) -> Iterator[tuple[float, int]]:
    done = 0
    for read, (at, end) in enumerate(zip(clock.at, clock.ends, strict=True), start=1):
        while done < end:
            if done >= limit:
                return
            done += 1
            yield at, read


def judge(clock: Clock, timeline: Timeline, liveness: Liveness, out: Sink, alive_until: float | None) -> None:
    """The liveness rules on a stream run that reached its end (``alive_until``: the emitter's exit).

    A run cut short (a timeout, a flood, an interruption) is not judged here: its own rule says
    it did not end, and a stall past ``--timeout`` stays ``run.timeout``.
    """
    for rule in ("run.first-line", "run.stall", "run.buffered"):
        out.exercised(rule)
    _first_line(timeline, liveness, out, alive_until)
    _stall(clock, timeline, liveness, out, alive_until)
    _buffered(clock, timeline, out)


def _first_line(timeline: Timeline, liveness: Liveness, out: Sink, alive_until: float | None) -> None:
    within = liveness.first_line_within
    first = timeline.first_line
    alive = alive_until is None or alive_until > within
    if alive and (first is None or first > within):
        found = "none before it exited" if first is None else f"the first at {_s(first)}"
        out.emit("run.first-line", 1 if first is not None else None, None,
                 f"expected a line within {within:g}s of the start while the emitter ran, found {found} "
                 f"(it exited at {_s(alive_until)})",
                 "write system/init as soon as the run starts, and flush stdout after each line "
                 "(raise --first-line-within if a slow start is legitimate)")


def _stall(clock: Clock, timeline: Timeline, liveness: Liveness, out: Sink, alive_until: float | None) -> None:
    result = timeline.result_line
    gaps = [(gap, line) for gap, line in clock.gaps
            if gap > liveness.max_gap and (result is None or line <= result)]
    if result is None and clock.last_at is not None and alive_until is not None \
            and alive_until - clock.last_at > liveness.max_gap:
        gaps.append((alive_until - clock.last_at, clock.lines + 1))  # silent from its last line to its exit
    if not gaps:
        return
    gap, line = max(gaps)
    more = f" ({counted(len(gaps) + clock.more_gaps, 'gap')} over it in all)" if len(gaps) + clock.more_gaps > 1 else ""
    where = f"before line {line}" if line <= clock.lines else f"after line {clock.lines}, until the exit"
    out.emit("run.stall", line if line <= clock.lines else None, None,
             f"expected no gap over {liveness.max_gap:g}s between lines while the emitter ran with no result "
             f"written, found {_s(gap)} {where}{more}",
             "flush stdout after each line, and write progress (stream_event) lines during long work "
             "(raise --max-gap if the silence is legitimate)")


def _buffered(clock: Clock, timeline: Timeline, out: Sink) -> None:
    if timeline.tty:
        return  # a terminal's stdio is line-buffered: nothing held back to see here
    if clock.quiet_cuts >= CUT_READS:
        cuts = [f"{size} B at {_s(at)}" for at, size, quiet in clock.cuts if quiet is not None and quiet >= CUT_QUIET]
        out.emit("run.buffered", None, None,
                 f"expected lines written as they are made, found {clock.quiet_cuts} reads cut at a buffer size "
                 f"mid-line, each followed by {CUT_QUIET:g}s or more of silence ({', '.join(cuts[:4])}): stdout "
                 "is block-buffered", _FLUSH)
        return
    dump = _dump(clock, timeline)
    if dump is not None:
        out.emit("run.buffered", None, None, dump, _FLUSH)


_FLUSH = ("a block-buffered stdout on a pipe: flush after each line (Python print(..., flush=True) or "
          "python -u, C setvbuf(stdout, NULL, _IOLBF, 0), stdbuf -oL)")


def _dump(clock: Clock, timeline: Timeline) -> str | None:
    """The message when the whole output came in one burst after the emitter sat idle, else None."""
    first, last = timeline.first_line, clock.last_at
    if first is None or last is None or clock.lines < 2 or clock.idle is None:
        return None
    if first < BUFFERED_MIN_RUN or last - first > BUFFERED_BURST or clock.idle < BUFFERED_MIN_IDLE:
        return None
    return (f"expected lines as they are written, found all {counted(clock.lines, 'line')} within "
            f"{_s(last - first)} at "
            f"{_s(first)} after the start, the emitter idle (sleeping, not working) {_s(clock.idle)} of that "
            "time: its output was held back and dumped")
