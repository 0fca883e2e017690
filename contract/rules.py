"""What a catalog rule is: its id, level, wire, words and how it is observed.

The catalog itself (``contract.catalog``) gathers the rules from where they live: the framing,
checker, harness and baseline rules there, each wire's own rules in its package
(``contract/wires/<wire>/rules.py``), next to the machines that emit them.
"""

from __future__ import annotations

from dataclasses import dataclass
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


SJ_SCHEMA = "stream-json schema"
SA_SCHEMA = "subagent-stdio schema"
