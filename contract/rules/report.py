"""Findings collected into a report object (never raised), and the collector the checks write to.

A check calls :meth:`Collector.emit`; the collector looks the rule up in the catalog, applies
``--ignore``, keeps occurrences up to a memory cap (counting every one; see
``MAX_KEPT_VIOLATIONS`` for what is kept past it), and at the end
hands back a :class:`Report`. Reporters (``contract.reporting.reporters``) only read reports.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from contract.core.jsonvalue import shown
from contract.core.rule import BASES, Basis
from contract.rules import requirements, revisions
from contract.rules.catalog import CATALOG, Level, never_silenced, silence_refusal, unsilenceable
from contract.wires import WIRES, WireRegistry, derived


class Coverage(Protocol):
    """A capture's coverage as a report carries it (contract.checking.capture_coverage.Coverage, a
    layer above: named by what the report and its reporters use of it, not imported)."""

    def to_json(self) -> dict[str, Any]: ...

    def text_lines(self) -> list[str]: ...


class Timed(Protocol):
    """A live run's arrival times as a report carries them (contract.live.timeline.Timeline, a layer
    above: named by what the report and its reporters use of it, not imported)."""

    def to_json(self) -> dict[str, object]: ...

    def summary(self) -> str: ...

# Hostile input can break a rule on every one of millions of lines. The report keeps every
# occurrence up to MAX_KEPT_VIOLATIONS (plenty for a person or a baseline file) and counts the
# rest exactly (``Report.counts``), so the checker's memory stays bounded whatever it reads.
# Past that cap a finding is still kept when it explains the failure: each rule's first
# FIRST_PER_RULE occurrences (so no rule is ever only a number), and the findings of the
# VITAL rules (the run, the framing, the checker's own and the terminal-line ones), up to
# VITAL_PER_RULE each. Every report says how many it kept and counted, per rule.
MAX_KEPT_VIOLATIONS = 100_000
FIRST_PER_RULE = 10
VITAL_PER_RULE = 10_000
VITAL_PREFIXES = ("run.", "line.", "checker.")
@derived
def _vital(registry: WireRegistry) -> frozenset[str]:
    return frozenset(rule for wire in registry for rule in wire.vital)  # each wire's (Wire.vital)


def is_vital(rule: str) -> bool:
    """A rule whose findings are kept past the general cap (up to ``VITAL_PER_RULE``)."""
    return rule in _vital() or rule.startswith(VITAL_PREFIXES)


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

    kept: Counter[str] = field(default_factory=Counter)  # rule id -> occurrences kept in violations
    # Rules that judged something in this stream (the machines say so through
    # ``Collector.exercised``), and the rules --ignore switched off: the requirement verdicts
    # (contract.rules.requirements) are read from these and ``counts``.
    exercised: set[str] = field(default_factory=set)
    ignored: tuple[str, ...] = ()
    # What the capture showed of the wire's surface, when asked for (check(coverage=True)).
    coverage: Coverage | None = None
    # When a live run's lines arrived (contract.live.timeline): every format shows its summary.
    timeline: Timed | None = None
    # The bases judged (--basis): a finding of a rule whose basis is not among them is still
    # listed but does not fail the run; rules that are not filterable (checker.*, run.*,
    # baseline.stale, line.limit, an unreadable line, a run not whole: the check did not finish, the
    # line could not be read, or not about the seed's text) always fail.
    bases: tuple[Basis, ...] = BASES
    # What produced the report (a file check, a live run, a feed): the rules it could never
    # exercise are not applicable, never gaps (contract.rules.requirements).
    scope: requirements.Scope = requirements.Scope.FILE
    # The capabilities the run's init line declared (Wire.capabilities), None when no line did:
    # a rule only an undeclared capability's lines exercise is not applicable.
    declared: frozenset[str] | None = None
    # Rules the verb was not asked to judge, with why (consumer.output when feed got no expectation):
    # not applicable, never gaps (contract.rules.requirements).
    unasked: dict[str, str] = field(default_factory=dict)

    @property
    def dropped(self) -> int:
        return sum(self.counts.values()) - len(self.violations)

    def trim(self, limit: int) -> None:
        """Keep at most about ``limit`` findings in detail, by the collector's own policy.

        For reports that are many to a run (``check`` over many files): the first ``limit``
        findings, then past them each rule's first FIRST_PER_RULE and the vital rules' findings
        (up to VITAL_PER_RULE each), so a run, framing or terminal finding late in a file is
        never the one dropped. Counts stay exact.
        """
        if len(self.violations) <= limit:
            return
        kept: Counter[str] = Counter()
        survivors = []
        for index, violation in enumerate(self.violations):
            rule = violation.rule
            if (index < limit or kept[rule] < FIRST_PER_RULE
                    or (kept[rule] < VITAL_PER_RULE and is_vital(rule))):
                kept[rule] += 1
                survivors.append(violation)
        self.violations = survivors
        self.kept = kept

    def kept_counts(self) -> Counter[str]:
        """Occurrences kept per rule (recounted when a report was built without a collector)."""
        if sum(self.kept.values()) != len(self.violations):
            self.kept = Counter(v.rule for v in self.violations)
        return self.kept

    def basis_of(self, rule: str) -> Basis:
        """``rule``'s basis on this report's wire (read when reported: ``--wire auto`` picks it late)."""
        return CATALOG[rule].basis_for(self.wire)

    def violation_json(self, violation: Violation) -> dict[str, object]:
        """One finding as JSON, with its rule's basis and whether it fails this report (--basis)."""
        return {**violation.to_json(), "basis": self.basis_of(violation.rule).value,
                "judged": self.judged(violation.rule)}

    def judged(self, rule: str) -> bool:
        """Whether ``rule``'s findings can fail this report under its ``bases`` (--basis)."""
        entry = CATALOG[rule]
        return not entry.filterable or entry.basis_for(self.wire) in self.bases

    @property
    def narrowed(self) -> bool:
        """Whether --basis left out a basis (some findings may be listed without failing)."""
        return set(self.bases) != set(BASES)

    def fails(self, rule: str) -> bool:
        """Whether a finding of ``rule`` makes this report non-conformant (level, --strict, --basis)."""
        return (self.strict or CATALOG[rule].level is Level.MUST) and self.judged(rule)

    def failing(self) -> list[Violation]:
        """The findings that make the stream non-conformant (SHOULD only under strict; --basis)."""
        return [v for v in self.violations if self.fails(v.rule)]

    def unjudged(self) -> dict[str, int]:
        """Rules with findings that --basis left out: counted and listed, not failing."""
        return {rule: n for rule, n in sorted(self.counts.items()) if not self.judged(rule)}

    @property
    def conformant(self) -> bool:
        return not any(self.fails(rule) for rule in self.counts)

    def rules(self) -> set[str]:
        return set(self.counts)

    def to_json(self) -> dict[str, object]:
        return {**self.header_json(), "violations": [self.violation_json(v) for v in self.violations]}

    def header_json(self) -> dict[str, object]:
        """``to_json()`` without its ``violations``: what a streaming writer writes before them."""
        return {
            "conformant": self.conformant,
            "wire": self.wire,
            "source": self.source,
            "strict": self.strict,
            "bases": [basis.value for basis in self.bases],
            "lines": self.lines,
            "counts": dict(sorted(self.counts.items())),
            "kept": dict(sorted(self.kept_counts().items())),
            "dropped": self.dropped,
            "notes": self.notes,
            "exit_status": self.exit_status,
            "stderr": self.stderr,
            "scope": self.scope.value,
            "revision": revisions.current(self.wire) if self.wire in WIRES else None,  # the set judged by
            "capabilities": None if self.declared is None else sorted(self.declared),
            "requirements": [r.to_json() for r in requirements.verdicts(self)],
            **({} if self.coverage is None else {"coverage": self.coverage.to_json()}),
            **({} if self.timeline is None else {"timeline": self.timeline.to_json()}),
        }


# Findings that say the verdict itself cannot be trusted (the checker failed or stopped, the run
# was cut short: ``catalog.not_judged_to_the_end``), or that the stream does not show a whole run
# (sj.init-first, sj.result-last: ``Rule.silenceable``), docs/unjudged.md. Ignoring one would turn
# an unfinished check or a truncated run into a pass, so no ignore list reaches them: the CLI and
# ``contract.check`` refuse them by name, and the collector refuses an ignore list that names one
# however it got there (ValueError), and never drops a killed run's run.exit-status.
UNIGNORABLE = unsilenceable()  # the bundled catalog's; ``catalog.unsilenceable()`` reads it afresh


def ignore_problem(rules: Iterable[str]) -> str | None:
    """What is wrong with an ignore list (an unknown rule id, or one that cannot be ignored), or None.

    The one check behind every ignore list: the CLI's ``--ignore``, ``contract.check(ignore=...)``
    and the collector every live API (run_stream, record, provoke, fuzz_host) hands its list to.
    """
    rules = tuple(rules)
    unknown = [rule for rule in rules if rule not in CATALOG]
    if unknown:
        return f"unknown rule {shown(unknown[0])}"
    refused = sorted(rule for rule in set(rules) if silence_refusal(rule) is not None)
    if refused:
        return f"{shown(refused[0])} cannot be ignored: {silence_refusal(refused[0])}"
    return None


class Collector:
    """Where checks write findings; applies ``--ignore`` (never to an unjudged finding) and the memory cap."""

    __slots__ = ("_ignore", "_report", "exercised")

    def __init__(self, report: Report, ignore: Iterable[str] = ()) -> None:
        self._report = report
        ignore = frozenset(ignore)
        refused = sorted(rule for rule in ignore if silence_refusal(rule) is not None)
        if refused:  # every path that reaches a collector is refused here, not silently corrected
            raise ValueError(f"ignore: {ignore_problem(refused)}")
        self._ignore = ignore
        report.ignored = tuple(sorted(self._ignore | set(report.ignored)))
        # ``out.exercised(rule)``: a machine says it judged ``rule`` (passed or not) on this
        # stream. A bound ``set.add``, so a call on every line costs next to nothing.
        self.exercised = report.exercised.add

    def emit(
        self,
        rule: str,
        line: int | None,
        pointer: str | None,
        message: str,
        hint: str | None = None,
    ) -> None:
        report = self._report
        if rule in self._ignore and not never_silenced(rule, report.exit_status):
            return
        level = CATALOG[rule].level  # KeyError here is a bug: every id must be catalogued
        report.counts[rule] += 1
        kept = report.kept[rule]
        if (len(report.violations) < MAX_KEPT_VIOLATIONS or kept < FIRST_PER_RULE
                or (kept < VITAL_PER_RULE and is_vital(rule))):
            report.kept[rule] = kept + 1
            report.violations.append(Violation(rule, level, line, pointer, message, hint))

    def note(self, text: str) -> None:
        self._report.notes.append(text)

    @property
    def report(self) -> Report:
        return self._report
