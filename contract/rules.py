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


@dataclass(frozen=True)
class Rule:
    id: str
    level: Level
    wire: str  # "line" (both wires), "stream-json", "subagent-stdio", "run", "checker" (its own integrity)
    # or "consumer" (a consumer fed streams, either wire)
    title: str
    source: str
    observed: Observed = Observed.STREAM


SJ_SCHEMA = "stream-json schema"
SA_SCHEMA = "subagent-stdio schema"
