"""Requirement verdicts: per catalogued rule of a wire, passed, failed, not exercised or ignored.

A green run on a three-line capture must never read as full conformance, so every report
says, for each rule of its wire (``catalog.rules_for``), what the capture did with it:

* ``failed``: the rule has a finding (MUST or SHOULD: the level is given beside it);
* ``passed``: the rule judged something in the capture and found nothing;
* ``not-exercised``: the capture held nothing the rule applies to (no tool_result for
  ``sj.tool-result-ref``, no live run for ``run.*``);
* ``ignored``: switched off with ``--ignore`` (a finding it would have had is not counted);
* ``outside-basis``: its basis (written, derived, policy) was left out with ``--basis``: its
  findings are still counted and listed, but do not fail the run (rules that are not
  filterable, the checker's, the harness', the baseline's, an unreadable line's, ``line.limit``
  and a whole run's, never get it).

Each verdict carries the rule's basis on the wire (``contract.core.rule.Basis``).

A check that did not finish (a rule machine raised, an internal bound stopped a check, the live
run could not start, timed out, was interrupted or flooded, or the emitter was ended by a signal:
``catalog.not_judged_to_the_end``, the one predicate of docs/unjudged.md) cannot vouch for what
it did not see, so no rule is ``passed`` then: a rule that judged something and found nothing
is ``not-exercised``, with the reason "not judged to the end".

Whether a rule was exercised is said where it judges: each rule machine calls
``out.exercised(rule)`` at the point it compares something (``contract.wires``), the schema
rule is exercised by every object line the schema step saw, the harness marks the ``run.*``
rules it judged (so they are not exercised for files), and ``baseline.stale`` is exercised
when a baseline was applied. Two families are exercised by declaration, since every check
judges them: the framing rules (``line.*``) by any line read, and ``checker.*`` by any check
that ran (the checker vouches that it finished and hit no bound, or says otherwise).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Protocol

from contract.core.rule import BASES, Basis, Observed
from contract.core.textsafe import counted
from contract.rules.catalog import CATALOG, Rule, not_judged_to_the_end, rules_for
from contract.wires import DEFAULT, NAMES, WIRES, derived


class Report(Protocol):
    """What a verdict reads of a report (contract.rules.report.Report): named here, not imported,
    so the report, which lists its verdicts, and this module do not import each other."""

    wire: str
    counts: Counter[str]
    lines: int
    exit_status: int | None
    exercised: set[str]
    ignored: tuple[str, ...]
    bases: tuple[Basis, ...]

    @property
    def narrowed(self) -> bool: ...

PASSED = "passed"
FAILED = "failed"
NOT_EXERCISED = "not-exercised"
IGNORED = "ignored"
OUTSIDE_BASIS = "outside-basis"
STATUSES = (PASSED, FAILED, NOT_EXERCISED, IGNORED, OUTSIDE_BASIS)

# Exercised by declaration (see the module docstring).
CHECKER_RULES = frozenset({"checker.internal", "checker.limit"})
# Judged by a wire's machines' finish on every stream, an empty one included, so no capture
# leaves them not exercised: each wire declares its own (Wire.always_judged).
ALWAYS_JUDGED: frozenset[str] = frozenset()


@derived
def _always_judged() -> None:
    global ALWAYS_JUDGED
    ALWAYS_JUDGED = frozenset(rule for wire in WIRES.values() for rule in wire.always_judged)


def framing_rules(wire: str) -> frozenset[str]:
    """The line.* rules of ``wire`` (line.ansi is stream-json's only)."""
    return frozenset(r.id for r in rules_for(wire) if r.id.startswith("line."))


@dataclass(frozen=True)
class Requirement:
    """One rule's verdict on one capture."""

    rule: Rule
    status: str
    findings: int
    unfinished: str | None = None  # the finding that stopped the check, when it did not finish
    basis: Basis = field(kw_only=True)  # the rule's basis on the report's wire
    bases: tuple[Basis, ...] = field(default=BASES, kw_only=True)  # the bases judged (--basis)

    def to_json(self) -> dict[str, object]:
        return {
            "rule": self.rule.id,
            "level": self.rule.level.value,
            "basis": self.basis.value,
            "status": self.status,
            "findings": self.findings,
            "source": self.rule.source,
            "reason": self.reason,  # why it was skipped: empty when passed or failed
        }

    @property
    def reason(self) -> str:
        """Why a rule was skipped, for JUnit and SARIF (empty for passed and failed)."""
        if self.status == IGNORED:
            return "ignored (--ignore)"
        if self.status == OUTSIDE_BASIS:
            judged = ",".join(b.value for b in self.bases)
            verb = "is" if self.findings == 1 else "are"
            listed = (f"its {counted(self.findings, 'finding')} {verb} listed, not failing" if self.findings
                      else "no finding")
            return f"outside --basis {judged}: a {self.basis.value} rule; {listed}"
        if self.status == NOT_EXERCISED:
            if self.unfinished:
                return f"not judged to the end: {self.unfinished} stopped the check"
            if self.rule.observed is Observed.PROCESS:
                return "not exercised: judged only in live runs (milk-contract run), not on a file"
            if self.rule.observed is Observed.BASELINE:
                return "not exercised: no --baseline was given"
            if self.rule.observed is Observed.CONSUMER:
                return "not exercised: judged only when feeding a consumer (milk-contract feed)"
            return "not exercised: the capture held nothing this rule applies to"
        return ""


def mark_checked(report: Report) -> None:
    """Mark the rules every check judges: checker.* always, line.* once a line was read."""
    report.exercised.update(CHECKER_RULES)
    if report.lines > 0:
        report.exercised.update(framing_rules(report.wire))


def verdicts(report: Report) -> list[Requirement]:
    """One verdict per catalogued rule of the report's wire, in catalog order."""
    wire = report.wire if report.wire in NAMES else DEFAULT.name
    ignored, counts, exercised = set(report.ignored), report.counts, report.exercised
    stopped = unfinished(report)
    out: list[Requirement] = []
    for rule in rules_for(wire):
        found = counts.get(rule.id, 0)
        basis = rule.basis_for(wire)
        if rule.filterable and basis not in report.bases:  # --basis left it out: listed, not failing
            status = OUTSIDE_BASIS
        elif found:  # a finding wins: a finding not judged to the end is never dropped by an ignore list
            status = FAILED
        elif rule.id in ignored:
            status = IGNORED
        elif rule.id in exercised and stopped is None:
            status = PASSED
        else:
            status = NOT_EXERCISED
        out.append(Requirement(rule, status, found, stopped if status == NOT_EXERCISED else None, basis=basis,
                               bases=report.bases))
    return out


def unfinished(report: Report) -> str | None:
    """What stopped the check or the run before its end (None: it was judged to the end).

    The first finding, in catalog order, that ``catalog.not_judged_to_the_end`` says did (the
    one predicate of docs/unjudged.md), else an emitter ended by a signal even where no rule
    judged its exit status (``expect_exit=None``): a run that did not finish earns no "passed".
    """
    status = report.exit_status
    found = next((rule for rule in CATALOG if report.counts.get(rule) and not_judged_to_the_end(rule, status)), None)
    if found is None and status is not None and status < 0:
        return f"the emitter's end by signal {-status}"
    return found


def tally(report: Report) -> dict[str, int]:
    """How many rules have each status (every status listed, zeros included)."""
    counts = dict.fromkeys(STATUSES, 0)
    for requirement in verdicts(report):
        counts[requirement.status] += 1
    return counts


def summary_lines(report: Report) -> list[str]:
    """The text report's requirement lines: the tally, then the rules not exercised or ignored."""
    found = verdicts(report)
    counts = tally(report)
    exercised = counts[PASSED] + counts[FAILED]
    outside = f", {counts[OUTSIDE_BASIS]} outside --basis" if report.narrowed else ""
    lines = [f"requirements: {exercised} of {counted(len(found), 'rule')} exercised ({counts[PASSED]} passed, "
             f"{counts[FAILED]} failed), {counts[NOT_EXERCISED]} not exercised, {counts[IGNORED]} ignored"
             f"{outside}"]
    idle = [r.rule.id for r in found if r.status == NOT_EXERCISED]
    if idle:
        lines.append(f"  not exercised: {', '.join(idle)}")
    off = [r.rule.id for r in found if r.status == IGNORED]
    if off:
        lines.append(f"  ignored: {', '.join(off)}")
    left = [f"{r.rule.id} ({r.basis.value}{f', {r.findings} listed' if r.findings else ''})"
            for r in found if r.status == OUTSIDE_BASIS]
    if left:
        lines.append(f"  outside --basis: {', '.join(left)}")
    return lines
