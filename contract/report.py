"""Findings collected into a report object (never raised), and the collector the checks write to.

A check calls :meth:`Collector.emit`; the collector looks the rule up in the catalog, applies
``--ignore``, keeps every occurrence up to a memory cap (counting the rest), and at the end
hands back a :class:`Report`. Reporters (``contract.reporters``) only read reports.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from contract.catalog import CATALOG, Level

# Hostile input can break a rule on every one of millions of lines. The report keeps every
# occurrence up to this many (plenty for a person or a baseline file) and counts the rest,
# so the checker's memory stays bounded whatever it reads.
MAX_KEPT_VIOLATIONS = 100_000


@dataclass(frozen=True, slots=True)
class Violation:
    """One finding: which rule, where (1-based line, JSON pointer), what was expected and found."""

    rule: str
    level: Level
    line: int | None
    pointer: str | None
    message: str
    hint: str | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "rule": self.rule,
            "level": self.level.value,
            "line": self.line,
            "pointer": self.pointer,
            "message": self.message,
            "hint": self.hint,
        }


@dataclass
class Report:
    """The verdict on one stream or conversation."""

    wire: str
    violations: list[Violation] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)  # rule id -> occurrences, kept or not
    lines: int = 0
    strict: bool = False
    source: str = "-"
    notes: list[str] = field(default_factory=list)  # what the checker decided (wire picked, ...)
    stderr: str = ""  # a live emitter's stderr tail, kept for the person reading the report
    exit_status: int | None = None

    @property
    def dropped(self) -> int:
        return sum(self.counts.values()) - len(self.violations)

    def failing(self) -> list[Violation]:
        """The findings that make the stream non-conformant (SHOULD only under strict)."""
        return [v for v in self.violations if v.level is Level.MUST or self.strict]

    @property
    def conformant(self) -> bool:
        if self.strict:
            return not self.counts
        return not any(CATALOG[rule].level is Level.MUST for rule in self.counts)

    def rules(self) -> set[str]:
        return set(self.counts)

    def to_json(self) -> dict[str, object]:
        return {
            "conformant": self.conformant,
            "wire": self.wire,
            "source": self.source,
            "strict": self.strict,
            "lines": self.lines,
            "counts": dict(sorted(self.counts.items())),
            "dropped": self.dropped,
            "notes": self.notes,
            "exit_status": self.exit_status,
            "stderr": self.stderr,
            "violations": [v.to_json() for v in self.violations],
        }


class Collector:
    """Where checks write findings; applies ``--ignore`` and the memory cap."""

    __slots__ = ("_ignore", "_report")

    def __init__(self, report: Report, ignore: Iterable[str] = ()) -> None:
        self._report = report
        self._ignore = frozenset(ignore)

    def emit(
        self,
        rule: str,
        line: int | None,
        pointer: str | None,
        message: str,
        hint: str | None = None,
    ) -> None:
        if rule in self._ignore:
            return
        report = self._report
        report.counts[rule] += 1
        if len(report.violations) < MAX_KEPT_VIOLATIONS:
            level = CATALOG[rule].level  # KeyError here is a bug: every id must be catalogued
            report.violations.append(Violation(rule, level, line, pointer, message, hint))

    @property
    def report(self) -> Report:
        return self._report
