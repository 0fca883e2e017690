"""The reader's sink under ``--wire auto`` (``contract.checking.pipeline.pick_wire``)."""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple

from contract.core.jsonline import ANSI_RULES
from contract.core.sink import Emit, Sink
from contract.rules.report import FIRST_PER_RULE, MAX_KEPT_VIOLATIONS, VITAL_PER_RULE


class More(NamedTuple):
    """``times`` more findings of ``rule`` past the bound, released as that many of ``first``."""

    rule: str
    times: int
    first: Emit


class Note(NamedTuple):
    text: str


class Exercised(NamedTuple):
    rule: str


Held = Emit | More | Note | Exercised


class Deciding:
    """The reader's sink under ``--wire auto``: holds what it is told until the wire is decided.

    The reader judges line.ansi on every line while the wire is unknown (``ansi_for``); once
    ``pick_wire`` decides, each line's held findings are passed on just before its record, with
    line.ansi kept only if the decided wire's ``ansi`` says so, and from then on the same filter
    applies as they come. So a stream under auto gets the very findings, in the very order, that
    it gets under the decided wire's own name (tests/wires/test_wire_registry.py).

    Bounded: one hostile line can hold millions of escapes. Past ``MAX_KEPT_VIOLATIONS`` held
    findings of one rule, the collector would only count the rest (it has kept that many, and
    the rule's first and vital quotas are no larger), so only their number is held, released as
    that many emits of the first one: the same counts, the same kept findings.
    """

    # at least each quota the collector keeps a rule's findings by (report.Collector.emit)
    HELD_PER_RULE = max(MAX_KEPT_VIOLATIONS, FIRST_PER_RULE, VITAL_PER_RULE)

    def __init__(self, out: Sink) -> None:
        self._out = out
        self._held: list[Held] | None = []
        self._per_rule: Counter[str] = Counter()
        self._more: dict[str, More] = {}  # past the bound
        self._ansi = True

    def emit(self, rule: str, line: int | None, pointer: str | None, message: str,
             hint: str | None = None) -> None:
        if self._held is not None:
            self._per_rule[rule] += 1
            if self._per_rule[rule] <= self.HELD_PER_RULE:
                self._held.append(Emit(rule, line, pointer, message, hint))
            else:  # counted only, as the collector will
                more = self._more.get(rule) or More(rule, 0, Emit(rule, line, pointer, message, hint))
                self._more[rule] = more._replace(times=more.times + 1)
        elif self._ansi or rule not in ANSI_RULES:
            self._out.emit(rule, line, pointer, message, hint)

    def note(self, text: str) -> None:
        if self._held is not None:
            self._held.append(Note(text))
        else:
            self._out.note(text)

    def exercised(self, rule: str) -> None:
        if self._held is not None:
            self._held.append(Exercised(rule))
        else:
            self._out.exercised(rule)

    def take(self) -> list[Held]:
        """What was held since the last take (the findings of the record just read, and before it)."""
        held, self._held = self._held or [], [] if self._held is not None else None
        held += self._more.values()
        self._more = {}
        return held

    def decide(self, ansi: bool) -> None:
        """The wire is known: from now on pass everything on, line.ansi only if ``ansi``."""
        self._ansi = ansi

    def release(self, held: list[Held]) -> None:
        """Pass ``held`` on, judged by the decided wire's setting."""
        for item in held:
            if type(item) is Emit:
                if self._ansi or item.rule not in ANSI_RULES:
                    self._out.emit(*item)
            elif type(item) is More:
                if self._ansi or item.rule not in ANSI_RULES:
                    for _ in range(item.times):
                        self._out.emit(*item.first)
            elif type(item) is Note:
                self._out.note(item.text)
            elif type(item) is Exercised:
                self._out.exercised(item.rule)

    def open(self) -> None:
        """Stop holding: what comes next is passed on as it comes."""
        self._held = None
