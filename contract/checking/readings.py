"""The rule machines on every reading of a line whose repeated member names read two ways.

RFC 8259 §4 leaves a repeated member name to the parser: Python's json, orjson and JavaScript's
``JSON.parse`` keep the last value, others the first, others refuse the line. The reader gives the
machines the last-wins reading (``Record.obj``) and keeps the others (``Record.other``, the
first-wins one; ``Record.readings`` for a line the machines cannot place, a type read two ways).
The schema judges all of them (``pipeline.SchemaStep``); this judges them by the machines too:
before the line, the machines are copied once per other reading, each copy is fed that reading
and dropped, and whatever a copy finds that the machines did not (a rule at a line and pointer) is
reported, worded by the reading. So no rule's break in a reading some consumer makes is hidden behind the policy finding
``line.duplicate-key`` (an independent reading of the seeds and RFC 8259 asked exactly that:
``"seq":0,"seq":2`` after seq 1 steps back for a first-wins parser).

Copying costs the machines' state, so at most ``MAX_LINES`` lines of a stream are judged so; the
next such line is a ``checker.limit`` finding (never conformant: docs/limits.md), never a silent
skip.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from contract.core.reader import FIRST, Record
from contract.core.sink import Emit, Sink

MAX_LINES = 32
LIMIT_RULE = "checker.limit"


class _Seen:
    """A sink that keeps the findings it is given (and forwards them to ``out`` when it has one)."""

    def __init__(self, out: Sink | None) -> None:
        self.found: list[Emit] = []
        self._out = out

    def emit(self, rule: str, line: int | None, pointer: str | None, message: str,
             hint: str | None = None) -> None:
        self.found.append(Emit(rule, line, pointer, message, hint))
        if self._out is not None:
            self._out.emit(rule, line, pointer, message, hint)

    def note(self, text: str) -> None:
        if self._out is not None:
            self._out.note(text)

    def exercised(self, rule: str) -> None:
        if self._out is not None:
            self._out.exercised(rule)


def others(record: Record) -> list[tuple[str, dict[str, Any]]]:
    """The readings of ``record`` the machines are not fed: (how it was read, the value)."""
    if record.other is not None:
        return [(FIRST, record.other)]
    return list(record.readings)


class Readings:
    """Feeds a line read two ways to the machines and to a copy of them per other reading."""

    __slots__ = ("_left", "_out")

    def __init__(self, out: Sink) -> None:
        self._out = out
        self._left = MAX_LINES

    def feed(self, machines: list[Any], record: Record, feed: Callable[[Sink], None],
             failed: Callable[[Exception], None]) -> None:
        """``feed(sink)``: the machines fed ``record`` into ``sink``; ``failed``: a copy raised."""
        readings = others(record)
        if self._left <= 0:
            if self._left == 0:
                self._out.emit(LIMIT_RULE, record.line, None,
                               f"expected at most {MAX_LINES} lines whose repeated member names read two ways, "
                               f"found more: from line {record.line} on, the rule machines judge only the "
                               "last-wins reading (the schema still judges every reading)")
            self._left -= 1
            feed(self._out)
            return
        self._left -= 1
        copies = [copy.deepcopy(machines) for _ in readings]  # the state before this line
        seen = _Seen(self._out)
        feed(seen)
        # A rule already failed at a place is not said again for another reading of it.
        known = {(rule, line, pointer) for rule, line, pointer, _, _ in seen.found}
        for (how, reading), shadow in zip(readings, copies, strict=True):
            mine = _Seen(None)
            try:
                for machine in shadow:
                    machine.feed(Record(record.line, record.raw, reading), mine)
            except Exception as exc:  # fail closed: the copy's verdict is unknown
                failed(exc)
                continue
            for rule, line, pointer, message, hint in mine.found:
                if (rule, line, pointer) not in known:
                    known.add((rule, line, pointer))
                    self._out.emit(rule, line, pointer, f"{message} ({how})", hint)
