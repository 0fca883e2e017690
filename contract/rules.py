"""What a catalog rule is: its id, level, wire, words, basis and how it is observed.

The catalog itself (``contract.catalog``) gathers the rules from where they live: the framing,
checker, harness and baseline rules there, each wire's own rules in its package
(``contract/wires/<wire>/rules.py``), next to the machines that emit them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum


class Level(StrEnum):
    MUST = "MUST"
    SHOULD = "SHOULD"


class Observed(StrEnum):
    """Where a rule's findings come from, so no consumer has to special-case a rule id."""

    STREAM = "stream"  # in the bytes of a stream or conversation (a broken stream can show it)
    PROCESS = "process"  # by the live harness: a process, its exit, its timing, its output volume
    BASELINE = "baseline"  # by comparing a baseline file with a report
    CHECKER = "checker"  # the checker's own integrity: an internal error or a bound reached
    CONSUMER = "consumer"  # by feeding a consumer streams (contract.feed): how it ended, what it printed


class Unjudged(StrEnum):
    """Whether a finding of the rule says the stream or run was *not judged to the end*.

    The rule of the house (docs/unjudged.md): such a finding can be neither ignored nor
    baselined, by any path, and no requirement verdict says "passed" beside it, since the
    checker cannot vouch for what it did not see. ``contract.catalog.not_judged_to_the_end``
    is the one predicate every path consults; this field is what it reads.
    """

    NEVER = "never"  # a finding is a verdict on what was seen: it may be ignored or baselined
    ALWAYS = "always"  # the check or the run stopped before its end (checker.*, run.timeout, ...)
    # run.exit-status: a status the emitter chose is a verdict, but an emitter ended by a
    # signal (exit_status < 0: killed by the harness, by itself or by anyone) did not finish
    # its run, so that one finding is not judged to the end. The report's exit_status tells
    # the two apart; the rule id alone cannot.
    KILLED = "killed"


class Basis(StrEnum):
    """What a rule stands on (docs/rules.md): each rule has exactly one, per wire.

    A rule that would mix two is split, so that every finding names one basis and
    ``--basis written`` can say what the seed literally demands.
    """

    WRITTEN = "written"  # the seed's words say it (or the standard they name: RFC 3339, ECMA-48)
    DERIVED = "derived"  # follows from the seed's structure or a purpose it states
    POLICY = "policy"  # our choice where the seed is silent (limits, duplicate names, the harness)


BASES: tuple[Basis, ...] = tuple(Basis)


def bases(names: Iterable[str] | None) -> tuple[Basis, ...]:
    """The bases named (``--basis``, cumulative; commas allowed), in catalog order; all for none.

    An unknown name raises ``ValueError`` naming the known ones (misuse: exit 2 in the CLI).
    """
    if names is None:
        return BASES
    if isinstance(names, str):
        names = [names]
    wanted = {part.strip() for name in names for part in name.split(",") if part.strip()}
    unknown = sorted(wanted - {basis.value for basis in BASES})
    if unknown:
        raise ValueError(f"unknown basis {unknown[0]!r}; expected one of {', '.join(b.value for b in BASES)}")
    return tuple(basis for basis in BASES if basis.value in wanted) or BASES


@dataclass(frozen=True)
class Rule:
    id: str
    level: Level
    wire: str  # "line" (both wires), "stream-json", "subagent-stdio", "run", "checker" (its own integrity)
    # or "consumer" (a consumer fed streams, either wire)
    title: str
    source: str
    observed: Observed = Observed.STREAM
    unjudged: Unjudged = Unjudged.NEVER
    # Required, by keyword: no rule gets a basis by default.
    basis: Basis = field(kw_only=True)
    # A framing rule shared by both wires can stand on words in one seed and on structure in the
    # other (the subagent-stdio seed has no descriptions): (wire, basis) pairs that override.
    basis_on: tuple[tuple[str, Basis], ...] = field(default=(), kw_only=True)
    # False for the findings that say the check did not finish or concern the run, the checker
    # or a baseline rather than the seed's text: --basis never drops them (fail closed).
    filterable: bool = field(default=True, kw_only=True)

    def basis_for(self, wire: str) -> Basis:
        """The rule's basis on ``wire`` (a stream's wire; any other name gives the default)."""
        for name, basis in self.basis_on:
            if name == wire:
                return basis
        return self.basis


SJ_SCHEMA = "stream-json schema"
SA_SCHEMA = "subagent-stdio schema"
