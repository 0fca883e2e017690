"""The stream-json machine metered: which lines the block facts judged, and why the rest were
judged another way (``contract.checking.fastpath.measure`` runs it; issue 34).

The block checker (``pipeline.check_blocks``) judges a clean block by its facts
(``wires.stream_json.facts``, folded by ``StreamRules.feed_facts``) when it can, and otherwise line
by line; both give the same report, only the cost differs (BENCHMARKS.md, issue 34). ``measure``
runs the one-process block checker over a stream with this machine (``Metered``, found there by
its name beside the wire's machine) and counts, line by line, which way each line went:

* ``facts``: folded by the block's facts (the fast path);
* every other line under a reason: the stream's first block (judged line by line by design, so a
  fault there names its line), a block the reader or the schema step has something to say of
  (``not clean``), the run's init or result line fed alone beside facts, or why a clean block's
  facts were declined (``_why``: the first condition of ``block_facts`` or ``feed_facts`` that
  failed, named as the code names it).

It is a measuring tool (``bench/run.py``, ``bench/regress.py`` and the shape catalogue's test use
it), not on the checker's path: the metered machine is ``StreamRules`` with counting around it.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from itertools import repeat
from typing import Any

from contract.core.reader import Record
from contract.core.sink import Sink
from contract.core.textsafe import number
from contract.wires.stream_json import facts as batch
from contract.wires.stream_json import stamps
from contract.wires.stream_json.machines import StreamRules

FACTS = "facts"
FIRST_BLOCK = "the first block (line by line by design: a fault there names its line)"
NOT_CLEAN = "a block not clean (the reader or the schema step has something to report)"
INIT_LINE = "the run's init line (fed alone, the rest of its block by facts)"
RESULT_LINE = "the run's result line (fed alone, the rest of its block by facts)"
# a second 60 is judged against the table of leap seconds (sj.ts-leap-second) line by line: once
# in years, and the block path would have to mark that rule exercised as the line path does
LEAP_SECOND = "a block holding a second 60 (line by line by design: sj.ts-format and sj.ts-leap-second)"
BY_DESIGN = frozenset({FIRST_BLOCK, INIT_LINE, RESULT_LINE, LEAP_SECOND})


@dataclasses.dataclass
class Coverage:
    """How a stream's lines were judged: ``ways[reason]`` lines each (``FACTS``: the fast path)."""

    lines: int = 0
    ways: Counter[str] = dataclasses.field(default_factory=Counter)

    @property
    def facts(self) -> int:
        return self.ways[FACTS]

    @property
    def share(self) -> float:
        """The share of lines judged by facts."""
        return self.facts / self.lines if self.lines else 0.0

    def declined(self, *, designed: bool = True) -> Counter[str]:
        """Lines judged another way, by reason (``designed=False``: leaving out ``BY_DESIGN``)."""
        return Counter({why: n for why, n in self.ways.items()
                        if why != FACTS and (designed or why not in BY_DESIGN)})

    @property
    def coverage(self) -> float:
        """Facts lines over the lines facts could judge (all but ``BY_DESIGN``'s)."""
        eligible = self.lines - sum(n for why, n in self.ways.items() if why in BY_DESIGN)
        return self.facts / eligible if eligible else 1.0

    def lines_of_text(self) -> list[str]:
        """The figures as a few printable lines."""
        out = [f"facts {self.facts:,} of {self.lines:,} lines ({100 * self.share:.2f} %; "
               f"{100 * self.coverage:.2f} % of those not line by line by design)"]
        out += [f"  {n:,} {number(n, 'line')}: {why}" for why, n in self.declined().most_common()]
        return out


class Metered(StreamRules):
    """``StreamRules`` counting each line's way (``Coverage``); it judges exactly as the machine."""

    def __init__(self, head: int) -> None:
        super().__init__()
        self.coverage = Coverage()
        self._why: str | None = None  # inside feed_batch: why a line fed alone was not folded
        self._head = head  # the first block's lines

    def feed(self, record: Record, out: Sink) -> None:
        why = self._why
        if why is None:
            why = FIRST_BLOCK if record.line <= self._head else NOT_CLEAN
        elif why == _TAIL:
            why = (INIT_LINE if self.first else RESULT_LINE if record.obj is not None
                   and record.obj.get("type") == "result" else "block_facts: an init or result line inside the block")
        self.coverage.ways[why] += 1
        super().feed(record, out)

    def feed_facts(self, first: int, facts: batch.Facts, out: Sink, load: Any) -> bool:
        taken = super().feed_facts(first, facts, out, load)
        if taken:
            self.coverage.ways[FACTS] += facts[0]
        return taken

    def feed_batch(self, first: int, objs: list[dict[str, Any]], out: Sink) -> None:
        before = sum(self.coverage.ways.values())
        why = _why(self, objs)
        self._why = _TAIL if why in (_TAIL_INIT, _TAIL_RESULT) else why
        try:
            super().feed_batch(first, objs, out)
        finally:
            self._why = None
        rest = len(objs) - (sum(self.coverage.ways.values()) - before)
        if rest:  # judged by _batch_in_step and the type handlers
            self.coverage.ways[f"in step, by the type handlers: {why}"] += rest


_TAIL = "(an edge line)"
_TAIL_INIT, _TAIL_RESULT = "an init line", "a result line"


def _why(machine: StreamRules, objs: list[dict[str, Any]]) -> str:
    """Why ``objs`` would not be folded by its facts as one block (the first reason met), or
    ``_TAIL_*`` for a block the machine folds around its init or result line."""
    facts = machine.block_facts(objs)
    if facts is None:
        return _why_no_facts(objs)
    if not machine._continues(facts[1], facts[2], facts[3], facts[5]):  # the meter replays it
        return _why_not_continued(machine, facts)
    return "the fold declined: a bound near, or a call begun earlier or repeated"


def _why_no_facts(objs: list[dict[str, Any]]) -> str:
    get = dict.get
    seqs: list[Any] = list(map(get, objs, repeat("seq")))
    if set(map(type, seqs)) != {int} or seqs != list(range(seqs[0], seqs[0] + len(objs))):
        return "block_facts: seq not one step a line"
    if len(set(map(get, objs, repeat("session_id")))) != 1:
        return "block_facts: more than one session_id"
    ts: list[Any] = list(map(get, objs, repeat("ts")))
    if set(map(type, ts)) != {str}:
        return "block_facts: a ts missing or not a string"
    for kind, subtype in zip(map(get, objs, repeat("type")), map(get, objs, repeat("subtype")), strict=True):
        if kind == "result":
            return _TAIL_RESULT
        if kind == "system" and subtype == "init":
            return _TAIL_INIT
    if not stamps.in_order(ts, "\n".join(ts)):
        return _why_stamps(ts)
    return "block_facts: a line's own form (a finding of its own)"


def _why_stamps(ts: list[str]) -> str:
    if any(t[16:19] == ":60" for t in ts):
        return LEAP_SECOND
    if len({t[-1] if t[-1:] == "Z" else t[-6:] for t in ts}) != 1:
        return "block_facts: ts of several offsets"
    if not stamps.STAMPS.fullmatch("\n".join(ts)):
        return ("block_facts: a ts the block pattern does not take (lower-case t or z, or invalid)")
    return "block_facts: ts out of order, or a day not in its month"


def _why_not_continued(machine: StreamRules, facts: batch.Facts) -> str:
    before = machine.last_ts
    if machine.checks:
        return "feed_facts: declared checks run"
    if machine.first or machine.result_line is not None:
        return "feed_facts: before init or after the result"
    if facts[1] != machine.next_seq:
        return "feed_facts: seq does not continue the run"
    if facts[2] != machine.session:
        return "feed_facts: session_id not the run's"
    if before is None or not stamps.follows(before, facts[3]):
        return "feed_facts: ts does not follow the run's"
    return "feed_facts: a capability not advertised"
