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
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from contract.core.sink import Sink
from contract.core.textsafe import counted
from contract.wires.base import Hints

# One read takes all a pipe holds (64 KiB by default on Linux, up to 1 MiB), so a read's size is
# the emitter's write, never our buffer's: a read cut at 8 KiB mid-line is the emitter's doing.
READ_BYTES = 1 << 20
TIMED_READS = 200_000  # reads holding a line end kept in detail (16 bytes each); past it, summarised
LISTED_LINES = 1_000  # arrivals listed in the JSON report; past it, the summary alone (and said so)
GAPS_KEPT = 100  # gaps longer than --max-gap kept (the longest is tracked over the whole run anyway)

# run.buffered, the burst: lines held back show as two or more lines within BURST seconds of
# each other after MIN_RUN seconds or more of silence (from the start or the line before). That
# alone is no proof: an emitter that works, then writes each line flushed, looks the same. So a
# burst is confirmed by a twin run with stdout a pseudo-terminal (stdio line-buffered there): the
# same lines spread over TWIN_SPREAD seconds or more under it is the proof; anything else, and
# run.buffered is not judged on that run (said in a note), never a finding on a guess.
BUFFERED_MIN_RUN = 1.0
BUFFERED_BURST = 0.05
TWIN_SPREAD = 0.5
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

    def stall_at(self) -> float | None:
        """When the silence now under way passes ``max_gap`` (seconds from the start), or None once
        the terminal line is in: the start counts as a line end, so a silent emitter stalls too."""
        if self.result_line is not None:
            return None
        return (self.last_at if self.last_at is not None else 0.0) + self.max_gap

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
            return f"timeline: no line arrived; ended at {_s(self.exited_at)}"
        gap = (f"longest gap {_s(self.longest_gap)} before line {self.longest_gap_line}"
               if self.longest_gap_line else "one line only" if self.lines == 1 else "every line in one read")
        last = self.arrivals[-1][0] if self.arrivals and len(self.arrivals) == self.lines else None
        if last is not None and self.exited_at is not None \
                and self.exited_at - last > max(self.longest_gap, BUFFERED_MIN_RUN):
            gap += f"; then silent {_s(self.exited_at - last)} until the end"
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


def judge(clock: Clock, timeline: Timeline, liveness: Liveness, out: Sink, alive_until: float | None,
          twin: Callable[[], Timeline | None] | None = None, hints: Hints | None = None) -> None:
    """The liveness rules on a stream run that reached its end (``alive_until``: the emitter's exit,
    or when the harness killed it at a stall).

    A run cut short (a timeout, a flood, an interruption) is not judged here: its own rule says
    it did not end, and a stall past ``--timeout`` stays ``run.timeout``. ``twin`` runs the
    emitter again with stdout a pseudo-terminal and returns that run's timeline (None when it
    could not run): it is called only when the run's one sign of buffering is a burst
    (:func:`burst`), to confirm it; without it, such a run is not judged for run.buffered. ``hints``:
    the wire's lines the hints name (``Wire.hints``).
    """
    for rule in ("run.first-line", "run.stall"):
        out.exercised(rule)
    hints = hints if hints is not None else Hints()
    _first_line(timeline, liveness, out, alive_until, hints)
    _stall(clock, timeline, liveness, out, alive_until, hints)
    _buffered(clock, timeline, out, twin)


def _first_line(timeline: Timeline, liveness: Liveness, out: Sink, alive_until: float | None, hints: Hints) -> None:
    within = liveness.first_line_within
    first = timeline.first_line
    alive = alive_until is None or alive_until > within
    if alive and (first is None or first > within):
        found = "none before it exited" if first is None else f"the first at {_s(first)}"
        out.emit("run.first-line", 1 if first is not None else None, None,
                 f"expected a line within {within:g}s of the start while the emitter ran, found {found} "
                 f"(it exited at {_s(alive_until)})",
                 f"write {hints.opening} as soon as the run starts, and flush stdout after each line "
                 "(raise --first-line-within if a slow start is legitimate)")


def _stall(clock: Clock, timeline: Timeline, liveness: Liveness, out: Sink, alive_until: float | None,
           hints: Hints) -> None:
    result = timeline.result_line
    gaps = [(gap, line) for gap, line in clock.gaps
            if gap > liveness.max_gap and (result is None or line <= result)]
    first = timeline.first_line
    if first is not None and first > liveness.max_gap:  # the start counts as a line end (Clock.stall_at)
        gaps.append((first, 1))
    if result is None and alive_until is not None \
            and alive_until - (clock.last_at if clock.last_at is not None else 0.0) > liveness.max_gap:
        # silent from its last line (or from its start) to its exit, or to its kill at the stall
        gaps.append((alive_until - (clock.last_at or 0.0), clock.lines + 1))
    if not gaps:
        return
    gap, line = max(gaps)
    more = f" ({counted(len(gaps) + clock.more_gaps, 'gap')} over it in all)" if len(gaps) + clock.more_gaps > 1 else ""
    where = ("from the start, with no line at all" if not clock.lines else "from the start to line 1" if line == 1
             else f"before line {line}" if line <= clock.lines else f"after line {clock.lines}, until the end")
    out.emit("run.stall", line if line <= clock.lines else None, None,
             f"expected no gap over {liveness.max_gap:g}s between lines (the start counts as one) while the emitter "
             f"ran with no result written, found {_s(gap)} {where}{more}",
             f"flush stdout after each line, and write {hints.progress} during long work "
             "(raise --max-gap if the silence is legitimate)")


@dataclass(frozen=True)
class Burst:
    """Lines that came together after a silence: the one sign of buffering that needs a twin run."""

    first: int  # its first line (1-based)
    last: int  # its last line
    at: float  # when it came, seconds from the start
    silence: float  # the silence before it (from the start, or from the line before)


def burst(clock: Clock) -> Burst | None:
    """The largest group of two or more lines that came within ``BUFFERED_BURST`` of each other after
    ``BUFFERED_MIN_RUN`` or more of silence, or None (reads past ``TIMED_READS`` are not looked at)."""
    found: Burst | None = None
    at, ends = clock.at, clock.ends
    start = 0
    while start < len(at):
        stop = start
        while stop + 1 < len(at) and at[stop + 1] - at[start] <= BUFFERED_BURST:
            stop += 1
        before = ends[start - 1] if start else 0
        silence = at[start] - (at[start - 1] if start else 0.0)
        lines = ends[stop] - before
        if lines >= 2 and silence >= BUFFERED_MIN_RUN and (found is None or lines > found.last - found.first + 1):
            found = Burst(before + 1, ends[stop], at[start], silence)
        start = stop + 1
    return found


def streamed_on_a_terminal(held: Burst, lines: int, pty: Timeline | None) -> str | None:
    """What the twin run under a pseudo-terminal shows of the lines of ``held``, when it shows them
    streamed (spread over ``TWIN_SPREAD`` or more, in two reads or more), else None.

    The twin must have written as many lines as the pipe run (``lines``): a build that writes
    something else on a terminal is not the same run, and proves nothing.
    """
    if pty is None or pty.lines != lines or len(pty.arrivals) < held.last:
        return None
    first, last = pty.arrivals[held.first - 1], pty.arrivals[held.last - 1]
    spread = last[0] - first[0]
    if spread < TWIN_SPREAD or last[1] == first[1]:
        return None
    return (f"lines {held.first} to {held.last} came within {_s(BUFFERED_BURST)} at {_s(held.at)}, after "
            f"{_s(held.silence)} of silence, while the same build with stdout a pseudo-terminal wrote them over "
            f"{_s(spread)} in {counted(last[1] - first[1] + 1, 'read')}: they were made as it went and held back "
            "on the pipe")


def _buffered(clock: Clock, timeline: Timeline, out: Sink, twin: Callable[[], Timeline | None] | None) -> None:
    if timeline.tty:
        out.exercised("run.buffered")
        return  # a terminal's stdio is line-buffered: nothing held back to see here
    if clock.quiet_cuts >= CUT_READS:
        out.exercised("run.buffered")
        cuts = [f"{size} B at {_s(at)}" for at, size, quiet in clock.cuts if quiet is not None and quiet >= CUT_QUIET]
        out.emit("run.buffered", None, None,
                 f"expected lines written as they are made, found {clock.quiet_cuts} reads cut at a buffer size "
                 f"mid-line, each followed by {CUT_QUIET:g}s or more of silence ({', '.join(cuts[:4])}): stdout "
                 "is block-buffered", _FLUSH)
        return
    held = burst(clock)
    if held is None:
        out.exercised("run.buffered")
        return
    pty = twin() if twin is not None else None
    if pty is None:
        out.note(f"run.buffered not judged: lines {held.first} to {held.last} came in one burst after "
                 f"{_s(held.silence)} of silence, and no twin run under a pseudo-terminal could tell held-back "
                 "lines from lines made late")
        return
    out.exercised("run.buffered")
    shown = streamed_on_a_terminal(held, clock.lines, pty)
    if shown is None:
        out.note(f"run.buffered: lines {held.first} to {held.last} came in one burst after {_s(held.silence)} of "
                 "silence; a twin run with stdout a pseudo-terminal wrote them the same way, so they were made "
                 "late, not held back (passed)")
        return
    out.emit("run.buffered", held.first, None, f"expected lines written as they are made, found {shown}", _FLUSH)


_FLUSH = ("a block-buffered stdout on a pipe: flush after each line (Python print(..., flush=True) or "
          "python -u, C setvbuf(stdout, NULL, _IOLBF, 0), stdbuf -oL)")
