"""Fail closed by design: an exception inside the checker becomes a ``checker.internal`` finding.

Every place the checker runs code on input — the line reader, the schema step, each rule
machine's ``feed``, ``feed_batch``, ``feed_facts`` and ``finish`` — is called through this module, so a bug
met by some unforeseen input can never end in a traceback, nor (worse) in a report that
says "conformant" because the check that would have objected died quietly. The finding
names the line, the component and the exception; ``checker.internal`` is a MUST rule, so
the report is then not conformant.

A rule machine that raised is not fed again: its state is whatever the exception left, so
its later findings (or silence) could not be trusted. The other machines go on, so the
report still holds everything they can vouch for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from contract.checking.readings import Readings
from contract.core.jsonvalue import clip
from contract.core.reader import Record
from contract.core.sink import Sink
from contract.wires.base import BatchMachine, FactMachine, Machine

RULE = "checker.internal"
RULES = frozenset({RULE})  # the one catalog rule this module emits
HINT = "a bug in milk-contract, not necessarily in the stream: please report it with the input line"


def describe(exc: BaseException) -> str:
    """``TypeError: unhashable type: 'list'``, clipped, for a one-line message."""
    text = str(exc)
    return f"{type(exc).__name__}: {clip(text, 200)}" if text else type(exc).__name__


def internal(out: Sink, line: int | None, component: str, exc: BaseException, consequence: str) -> None:
    """Report one exception raised inside ``component`` while it handled ``line``."""
    out.emit(RULE, line, None,
             f"expected {component} to finish, found it raised {describe(exc)}; {consequence}", HINT)


class GuardedRecords:
    """The reader's records; an exception while reading ends the stream with a finding.

    ``failed`` tells the caller that the stream was not read to its end, so the end-of-stream
    checks (``finish``) must not run: they would judge a stream that was cut by the checker,
    not by the emitter (a false ``sj.result-last``, say).
    """

    __slots__ = ("_it", "_out", "failed", "last")

    def __init__(self, records: Iterable[Record], out: Sink) -> None:
        self._it = iter(records)
        self._out = out
        self.failed = False
        self.last = 0

    def __iter__(self) -> Iterator[Record]:
        it = self._it
        while True:
            try:
                record = next(it)
            except StopIteration:
                return
            except Exception as exc:  # fail closed: any exception is a finding
                self.failed = True
                internal(self._out, self.last + 1, "the line reader", exc,
                         "the lines from here on were not read or checked")
                return
            self.last = record.line
            yield record


class Machines:
    """A wire's rule machines behind one front that turns their exceptions into findings."""

    __slots__ = ("_live", "_out", "_readings", "_schema_rule")

    def __init__(self, machines: Iterable[Machine], out: Sink, schema_rule: str | None = None) -> None:
        self._live: list[Machine] = list(machines)
        self._out = out
        # Every object line reaches the machines after the schema step judged it (in this
        # process or, on the parallel path, in the worker), so the wire's schema rule is
        # exercised here, the one place both paths share.
        self._schema_rule = schema_rule
        self._readings: Readings | None = None  # made at the first line read two ways

    def _fail(self, machine: Machine, line: int | None, exc: Exception, what: str) -> None:
        if machine in self._live:
            self._live.remove(machine)
        name = type(machine).__name__
        internal(self._out, line, f"rule machine {name} ({what})", exc,
                 f"{name} is not fed again, so its rules are not checked from this line on")

    def feed(self, record: Record) -> None:
        out = self._out
        if record.obj is not None and self._schema_rule is not None:
            out.exercised(self._schema_rule)
        if record.other is not None or record.readings:  # repeated names read two ways
            if self._readings is None:
                self._readings = Readings(out)
            self._readings.feed(self._live, record, lambda sink: self._feed(record, sink),
                                lambda exc: internal(out, record.line, "a copy of the rule machines", exc,
                                                     "the line's other reading is not judged by them"))
            return
        self._feed(record, out)

    def _feed(self, record: Record, out: Sink) -> None:
        for machine in tuple(self._live):
            try:
                machine.feed(record, out)
            except Exception as exc:  # fail closed: any exception is a finding
                self._fail(machine, record.line, exc, "feed")

    def batch(self) -> Callable[[int, list[Any]], None] | None:
        """The lone machine's ``feed_batch(first, objs)`` when it is a batch machine, else None."""
        if len(self._live) != 1:
            return None
        machine = self._live[0]
        if not isinstance(machine, BatchMachine):
            return None

        def feed_batch(first: int, objs: list[Any]) -> None:
            if objs and self._schema_rule is not None:
                self._out.exercised(self._schema_rule)
            if machine not in self._live:
                return
            try:
                machine.feed_batch(first, objs, self._out)
            except Exception as exc:  # fail closed: any exception is a finding
                self._fail(machine, first, exc, f"feed_batch of lines {first}-{first + len(objs) - 1}")

        return feed_batch

    def folding(self) -> Callable[[int, int, Any, Callable[[int], Any]], bool] | None:
        """The lone machine's ``feed_facts(first, facts, load)`` (``count``: the block's lines, for
        the message) when it is a fact machine, else None. It returns False when the machine
        declined the facts (call ``batch()``'s ``feed_batch`` then), True when it took them or
        raised (then the machine is dropped with a ``checker.internal`` finding, as ``batch``)."""
        if len(self._live) != 1:
            return None
        machine = self._live[0]
        if not isinstance(machine, FactMachine):
            return None

        def feed_facts(first: int, count: int, facts: Any, load: Callable[[int], Any]) -> bool:
            if self._schema_rule is not None:
                self._out.exercised(self._schema_rule)
            if machine not in self._live:
                return True
            try:
                return machine.feed_facts(first, facts, self._out, load)
            except Exception as exc:  # fail closed: any exception is a finding
                self._fail(machine, first, exc, f"feed_facts of lines {first}-{first + count - 1}")
                return True

        return feed_facts

    def finish(self) -> None:
        out = self._out
        for machine in tuple(self._live):
            try:
                machine.finish(out)
            except Exception as exc:  # fail closed: any exception is a finding
                self._fail(machine, None, exc, "finish")
