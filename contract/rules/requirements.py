"""Requirement verdicts: per catalogued rule of a wire, passed, failed, not exercised or ignored.

A green run on a three-line capture must never read as full conformance, so every report
says, for each rule of its wire (``catalog.rules_for``), what the capture did with it:

* ``failed``: the rule has a finding (MUST or SHOULD: the level is given beside it);
* ``passed``: the rule judged something in the capture and found nothing;
* ``not-exercised``: the rule applies, and the capture held nothing for it (no tool_result for
  ``sj.tool-result-ref``): a gap a longer capture or another scenario fills;
* ``not-applicable``: the capture or run could never exercise it, with the reason
  (``Requirement.applicability``): the verb cannot (``run.*`` on a file, ``consumer.*`` outside
  ``feed``, the emitter's rules when feeding a consumer, ``baseline.stale`` without a baseline),
  the emitter did not declare the capability that gates it (``Wire.capabilities``: a
  capability the init line declares makes its rules applicable), or it is another wire's
  (``run.no-response`` is a conversation's). Never counted as a gap;
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
from enum import StrEnum
from typing import Protocol

from contract.core.rule import BASES, Basis, Observed
from contract.core.textsafe import counted
from contract.rules.catalog import CATALOG, Rule, not_judged_to_the_end, rules_for
from contract.wires import DEFAULT, NAMES, WIRES, WireRegistry, derived


class Scope(StrEnum):
    """What produced a report, and so which rules it could ever exercise (``not-applicable`` otherwise)."""

    FILE = "file"  # check: a capture; the stream, the checker and (given one) the baseline rules
    LIVE = "live"  # run, the scenarios, provoke, fuzz: an emitter or host run; the process rules too
    FEED = "feed"  # feed: a consumer fed the suite's own streams; the consumer and its process rules


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
    scope: Scope
    declared: frozenset[str] | None

    @property
    def narrowed(self) -> bool: ...


PASSED = "passed"
FAILED = "failed"
NOT_EXERCISED = "not-exercised"
IGNORED = "ignored"
OUTSIDE_BASIS = "outside-basis"
NOT_APPLICABLE = "not-applicable"
STATUSES = (PASSED, FAILED, NOT_EXERCISED, NOT_APPLICABLE, IGNORED, OUTSIDE_BASIS)
# Why a rule is not applicable (``Requirement.applicability``), machine-readable beside the reason.
VERB = "verb"  # the verb that made the report cannot exercise it
CAPABILITY = "capability"  # the emitter did not declare the capability that gates it
OTHER_WIRE = "wire"  # it is judged only on wires of another live mode
EXIT_AFTER_TERMINAL = "run.exit-after-result"  # judged only on a wire whose runs end in a terminal line

# Exercised by declaration (see the module docstring).
CHECKER_RULES = frozenset({"checker.internal", "checker.limit"})
# Judged by a wire's machines' finish on every stream, an empty one included, so no capture
# leaves them not exercised: each wire declares its own (Wire.always_judged).
@derived
def always_judged_rules(registry: WireRegistry) -> frozenset[str]:
    """The rules the current registry's wires' machines judge on every stream (each ``Wire.always_judged``)."""
    return frozenset(rule for wire in registry for rule in wire.always_judged)


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
    # not-applicable: (VERB, CAPABILITY or OTHER_WIRE, the sentence that says why); None otherwise
    inapplicable: tuple[str, str] | None = field(default=None, kw_only=True)

    def to_json(self) -> dict[str, object]:
        return {
            "rule": self.rule.id,
            "level": self.rule.level.value,
            "basis": self.basis.value,
            "status": self.status,
            "findings": self.findings,
            "source": self.rule.source,
            "reason": self.reason,  # why it was skipped: empty when passed or failed
            "applicability": self.applicability,  # why not applicable (verb, capability, wire), else null
        }

    @property
    def applicability(self) -> str | None:
        """Why the rule does not apply: ``VERB``, ``CAPABILITY`` or ``OTHER_WIRE`` (None: it applies)."""
        return None if self.inapplicable is None else self.inapplicable[0]

    @property
    def applicable(self) -> bool:
        return self.status != NOT_APPLICABLE

    @property
    def reason(self) -> str:
        """Why a rule was skipped, for JUnit and SARIF (empty for passed and failed)."""
        if self.inapplicable is not None:
            return f"not applicable: {self.inapplicable[1]}"
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
            if self.rule.observed in (Observed.PROCESS, Observed.CONSUMER):
                return "not exercised: the run ended before this rule judged anything"
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
        why = None
        if rule.filterable and basis not in report.bases:  # --basis left it out: listed, not failing
            status = OUTSIDE_BASIS
        elif found:  # a finding wins: a finding not judged to the end is never dropped by an ignore list
            status = FAILED
        elif rule.id in ignored:
            status = IGNORED
        elif rule.id not in exercised and (why := inapplicable(rule, wire, report)) is not None:
            status = NOT_APPLICABLE
        elif rule.id in exercised and stopped is None:
            status = PASSED
        else:
            status = NOT_EXERCISED
        out.append(Requirement(rule, status, found, stopped if status == NOT_EXERCISED else None, basis=basis,
                               bases=report.bases, inapplicable=why))
    return out


def inapplicable(rule: Rule, wire: str, report: Report) -> tuple[str, str] | None:
    """Why ``rule`` could never be exercised by ``report`` (kind, sentence), or None when it could.

    Asked only of a rule that judged nothing: a rule that judged something applied, whatever
    produced the report.
    """
    unasked = getattr(report, "unasked", {}).get(rule.id)
    if unasked is not None:
        return VERB, unasked
    scope = getattr(report, "scope", Scope.FILE)
    descriptor = WIRES.get(wire)
    if rule.live is not None and descriptor is not None and descriptor.live.value != rule.live:
        return OTHER_WIRE, f"judged only on {rule.live} wires, and {wire} is a {descriptor.live.value} wire"
    if rule.id == EXIT_AFTER_TERMINAL and descriptor is not None and descriptor.terminal is None:
        return OTHER_WIRE, f"judged only on wires with a terminal line, and {wire} has none"
    verb = _verb_reason(rule, scope)
    if verb is not None:
        return VERB, verb
    declared = getattr(report, "declared", None)
    gate = gating(wire, rule.id)
    if declared is not None and gate is not None and gate not in declared:
        return CAPABILITY, f"the emitter's init did not declare {gate}, which its lines need"
    return None


def _verb_reason(rule: Rule, scope: Scope) -> str | None:
    """Why the verb that made a ``scope`` report cannot exercise ``rule`` (None: it can)."""
    observed = rule.observed
    if observed is Observed.CHECKER and rule.id not in CHECKER_RULES and scope is not Scope.FILE:
        return "judged only when check reads an input (a file or a stream it was given)"  # checker.input-changed
    if observed is Observed.BASELINE:
        return "no --baseline was given"  # baseline.stale is exercised whenever one is applied
    if scope is Scope.FEED:
        if observed in (Observed.CONSUMER, Observed.CHECKER):
            return None
        if observed is Observed.PROCESS:
            return "feed judges a consumer's runs by the consumer rules; this run rule judged nothing there"
        return "feed judges the consumer: the streams it is fed are the suite's own, so the emitter's rules judge none"
    if observed is Observed.CONSUMER:
        return "judged only when feeding a consumer, by milk-contract feed"
    if observed is Observed.PROCESS and scope is Scope.FILE:
        return "judged only in a live run, never on a file"
    return None


def gating(wire: str, rule: str) -> str | None:
    """The capability whose lines alone exercise ``rule`` on ``wire`` (``Wire.capabilities``), or None."""
    descriptor = WIRES.get(wire)
    caps = descriptor.capabilities if descriptor is not None else None
    if caps is None:
        return None
    return next((name for name, rules in caps.gates.items() if rule in rules), None)


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
    """The text report's requirement lines: the tally of the applicable rules, then the rules not
    exercised or ignored, then how many did not apply and why (by kind, the rules named)."""
    found = verdicts(report)
    counts = tally(report)
    exercised = counts[PASSED] + counts[FAILED]
    outside = f", {counts[OUTSIDE_BASIS]} outside --basis" if report.narrowed else ""
    applicable = len(found) - counts[NOT_APPLICABLE]
    lines = [f"requirements: {exercised} of {counted(applicable, 'applicable rule')} exercised "
             f"({counts[PASSED]} passed, "
             f"{counts[FAILED]} failed), {counts[NOT_EXERCISED]} not exercised, {counts[IGNORED]} ignored"
             f"{outside}; {counts[NOT_APPLICABLE]} not applicable"]
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
    lines.extend(f"  not applicable ({why}): {', '.join(rules)}" for why, rules in not_applicable(found).items())
    return lines


def not_applicable(found: list[Requirement]) -> dict[str, list[str]]:
    """The not-applicable rules grouped by their reason, in catalog order (for the human formats)."""
    groups: dict[str, list[str]] = {}
    for requirement in found:
        if requirement.inapplicable is not None:
            groups.setdefault(requirement.inapplicable[1], []).append(requirement.rule.id)
    return groups
