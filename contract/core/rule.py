"""What a catalog rule is (``Rule``), and where a wire's rules are declared once (``Registry``).

The catalog itself (``contract.rules.catalog``) gathers the rules from where they live: the framing,
checker, harness and baseline rules there, each wire's own rules in its package. There a wire's
``Registry`` holds each rule once: its metadata, the ``Family`` (the class holding its logic,
declared with ``Registry.family`` beside it) that emits it, and optionally the name of its
breaking strategy. The wire's catalog rules (``Wire.rules``), each family's ``rules`` and the
strategies' breakers are derived from it (docs/architecture.md, "Adding a rule").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, TypeVar

from contract.core.jsonvalue import shown
from contract.core.sink import Sink


class Level(StrEnum):
    MUST = "MUST"
    SHOULD = "SHOULD"


class Observed(StrEnum):
    """Where a rule's findings come from, so no consumer has to special-case a rule id."""

    STREAM = "stream"  # in the bytes of a stream or conversation (a broken stream can show it)
    PROCESS = "process"  # by the live harness: a process, its exit, its timing, its output volume
    BASELINE = "baseline"  # by comparing a baseline file with a report
    CHECKER = "checker"  # the checker's own integrity: an internal error or a bound reached
    CONSUMER = "consumer"  # by feeding a consumer streams (contract.consumers.feed): how it ended, what it printed


class Unjudged(StrEnum):
    """Whether a finding of the rule says the stream or run was *not judged to the end*.

    The rule of the house (docs/unjudged.md): such a finding can be neither ignored nor
    baselined, by any path, and no requirement verdict says "passed" beside it, since the
    checker cannot vouch for what it did not see. ``contract.rules.catalog.not_judged_to_the_end``
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
        raise ValueError(f"unknown basis {shown(unknown[0])}; expected one of {', '.join(b.value for b in BASES)}")
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
    # False for the rules whose finding says the stream does not show a whole run (no system/init
    # first, no result last): no --ignore, baseline or Python ignore list silences them, exactly
    # as the unjudged rules (docs/unjudged.md), but their findings are verdicts on what was seen,
    # so the requirement verdicts stay as they are. Such a rule is not filterable either.
    silenceable: bool = field(default=True, kw_only=True)
    # The name of the function in the wire's strategies module (``Wire.strategies``) that draws
    # lines breaking this rule, or None: the strategies' breakers are derived from this field,
    # and a rule without one shows as skipped in tests/rules/test_rule_registry.py.
    breaker: str | None = field(default=None, kw_only=True)
    # The live mode (a ``contract.wires.Live`` value: "stream", "conversation") whose runs alone can
    # exercise the rule, or None for every wire: on a wire of another mode it is not applicable
    # (``contract.rules.requirements``), never "not exercised".
    live: str | None = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        if not self.silenceable and self.filterable:  # --basis would silence what nothing else may
            raise ValueError(f"rule {self.id}: a rule that cannot be silenced is not filterable either")

    def basis_for(self, wire: str) -> Basis:
        """The rule's basis on ``wire`` (a stream's wire; any other name gives the default)."""
        for name, basis in self.basis_on:
            if name == wire:
                return basis
        return self.basis


SCHEMA_STEP = "schema"  # the emitter of a wire's schema rule: the checker's schema step (contract.checking.pipeline)


class Family:
    """A rule, or a family of closely related rules, as one object: its declaration and its logic.

    ``Registry.family(*rules)`` decorates the class that holds the rules' logic and declares the
    rules there, beside it: the registry records the class as their emitter and sets ``rules``
    (their ids) and ``declared`` (the ``Rule`` objects) on it. This is the one way a wire's rule
    gets into the catalog (the schema rule aside, ``Registry.add(SCHEMA_STEP, ...)``: the checker's
    schema step is its logic). How the family is run is the wire's machine's business: a wire may
    put several families together over one state (stream-json's ``StreamRules``, whose families
    read each other's state and share a block fast path), or run a family alone (subagent-stdio's
    machines, and any ``Check``).
    """

    rules: ClassVar[frozenset[str]] = frozenset()
    declared: ClassVar[tuple[Rule, ...]] = ()
    # The rules of the catalog's own the family may emit too (checker.limit, a bound it reached):
    # declared elsewhere, they join ``rules`` (what a machine says it emits).
    also: ClassVar[frozenset[str]] = frozenset()


class Check(Family):
    """A family its wire's machines feed by line type, with no state shared with other families.

    ``kinds`` names the line types (the ``type`` member) it judges; ``line`` is called on each
    parsed object line of those types, in order, valid against the schema or not (so it must
    tolerate any shape, as a machine does); ``opaque`` on each line no content rule reads (not
    JSON, too long, a policy fault); ``finish`` once at the end. ``rule`` is the id of its
    first rule, set by ``Registry.family``: emit with ``out.emit(self.rule, ...)``, so the id stays
    written once. A check instance lives for one stream (the wire's machines build a fresh one per
    stream).
    """

    kinds: ClassVar[tuple[str, ...]] = ()
    rule: ClassVar[str] = ""

    def line(self, obj: dict[str, Any], line: int, out: Sink) -> None:
        raise NotImplementedError

    def opaque(self, line: int, out: Sink) -> None:
        """Line ``line`` is opaque: no content rule reads it, but it keeps its place (nothing, by default).

        A check that judges across lines hears of it here, as the machines' own families do, so
        that it judges nothing the unread line may have held."""

    def finish(self, out: Sink) -> None:
        """Judge what only the end of the stream tells (nothing, by default)."""


F = TypeVar("F", bound=type[Family])


class Registry:
    """One wire's rules, each declared once, beside its logic, with the family that emits it.

    ``family(*rules)`` decorates a ``Family`` class that emits ``rules``; ``add(SCHEMA_STEP, rule)``
    declares the schema rule, the schema step's. ``order`` (rule ids) is the catalog order: what
    reports and verdict tables list, whichever module declares a rule first. What the code reads is
    derived: ``rules`` (the wire's catalog rules, ``Wire.rules``), ``emitted_by`` (a family's
    rules), ``checks`` (the ``Check`` families, which the wire's machines run by line type) and
    ``breakers`` (the strategies' rule-to-breaker table).
    """

    def __init__(self, wire: str, order: tuple[str, ...] = ()) -> None:
        self.wire = wire
        self.order = order
        self._rules: dict[str, Rule] = {}
        self._by: dict[str, str] = {}
        self._checks: list[type[Check]] = []

    def add(self, by: str, *rules: Rule) -> None:
        """Declare ``rules`` emitted by ``by`` (``SCHEMA_STEP``, or a family's class name)."""
        for rule in rules:
            if rule.id in self._rules:
                raise ValueError(f"rule {rule.id} declared twice")
            if rule.wire != self.wire:
                raise ValueError(f"rule {rule.id} is a {rule.wire} rule, declared for {self.wire}")
            self._rules[rule.id] = rule
            self._by[rule.id] = by

    def family(self, *rules: Rule) -> Callable[[F], F]:
        """Declare ``rules`` and the ``Family`` class below that holds their logic and emits them."""
        if not rules:
            raise ValueError("a family declares at least one rule")

        def declare(cls: F) -> F:
            self.add(cls.__name__, *rules)
            cls.rules = frozenset(rule.id for rule in rules) | cls.also
            cls.declared = rules
            if issubclass(cls, Check):
                cls.rule = rules[0].id
                self._checks.append(cls)
            return cls

        return declare

    @property
    def rules(self) -> tuple[Rule, ...]:
        """The declared rules in catalog order: ``order`` first, then any other in declaration order."""
        if not self.order:
            return tuple(self._rules.values())
        unknown = [rule for rule in self.order if rule not in self._rules]
        if unknown:  # an id in the order no family declares: fail closed, not a shorter catalog
            raise LookupError(f"{self.wire}: rule {unknown[0]} is in the catalog order but not declared")
        first = set(self.order)
        return (*(self._rules[rule] for rule in self.order),
                *(rule for rule in self._rules.values() if rule.id not in first))

    def emitted_by(self, by: str) -> frozenset[str]:
        """The ids of the rules ``by`` emits (a family's class name, or ``SCHEMA_STEP``)."""
        return frozenset(rule for rule, emitter in self._by.items() if emitter == by)

    def emitters(self) -> frozenset[str]:
        return frozenset(self._by.values())

    def checks(self) -> tuple[type[Check], ...]:
        return tuple(self._checks)

    def breakers(self, namespace: Mapping[str, Any]) -> dict[str, Any]:
        """Each rule with a ``breaker`` mapped to that function of ``namespace`` (a strategies
        module's globals), in catalog order; a name it lacks raises ``LookupError``."""
        found: dict[str, Any] = {}
        for rule in self.rules:
            if rule.breaker is None:
                continue
            if rule.breaker not in namespace:
                raise LookupError(f"rule {rule.id}: its breaker {rule.breaker!r} is not defined")
            found[rule.id] = namespace[rule.breaker]
        return found
