"""Normalization of per-run values, so two runs of one scenario can be compared.

A golden and a fresh run of its scenario differ in values that are new on every run (session
ids, clocks, durations, rates, generated ids) and in nothing else when the emitter is
faithful. Before comparing, both sides go through the same normalization:

- ``MAP`` fields get a placeholder per distinct value, numbered by first appearance within the
  transcript (``<tool:1>``, ``<tool:2>``, ...). Identity is kept: a tool_result that names the
  second tool_use still names ``<tool:2>``, so a wrong reference remains a difference.
- ``ERASE`` fields get one placeholder for every value (``<ts>``): their magnitude is per-run,
  and their order and format are the checker's business (sj.ts-order, sa.node-times, ...).
- ``OFFSET`` fields (stream-json ``seq``) become their offset from the line number
  (``<line+0>``): that keeps what the contract says about them (where they start, one step
  per line) while one missing or extra line does not make every later line differ.

A field is normalized only when its value has the expected JSON type; anything else is left
as it is, so a type change (a duration sent as a string, a null session id) is still seen.
The goldens on disk are never normalized: they stay valid wire data.

The volatile fields of each wire are the data in ``VOLATILE``: JSON pointer patterns where
``*`` is one segment (a member name or array index) and ``**`` any number of segments.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any

Segment = str | int


class Treatment(Enum):
    MAP = "map"  # a placeholder per distinct value, by first appearance
    ERASE = "erase"  # one placeholder for every value
    OFFSET = "offset"  # the value minus the 1-based line number


@dataclass(frozen=True)
class Volatile:
    """One per-run field: where it is, what placeholder it gets, and why it varies."""

    pattern: str
    name: str  # the placeholder's name, and for MAP the namespace of the numbering
    treatment: Treatment
    json_type: str  # "string", "integer" or "number": other values are left alone
    why: str

    @property
    def segments(self) -> tuple[str, ...]:
        return tuple(self.pattern.split("/")[1:])


M, E, OFF = Treatment.MAP, Treatment.ERASE, Treatment.OFFSET

STREAM_JSON: tuple[Volatile, ...] = (
    Volatile("/seq", "line", OFF, "integer", "counts lines: kept as its offset from the line"),
    Volatile("/session_id", "session", M, "string", "a new sess_ id per run"),
    Volatile("/ts", "ts", E, "string", "wall clock"),
    Volatile("/duration_ms", "duration_ms", E, "integer", "measured time"),
    Volatile("/ttft_ms", "ttft_ms", E, "integer", "measured time to first token"),
    Volatile("/output_tokens_per_second", "rate", E, "number", "derived from measured time"),
    Volatile("/message/id", "message", M, "string", "provider-generated message id"),
    Volatile("/message/content/*/id", "tool", M, "string", "generated tool_use id"),
    Volatile("/message/content/*/tool_use_id", "tool", M, "string", "refers to a tool_use id"),
    Volatile("/parent_tool_use_id", "tool", M, "string", "refers to a tool_use id"),
    Volatile("/event/tool_use_id", "tool", M, "string", "refers to a tool_use id"),
    Volatile("/task_id", "task", M, "string", "generated task id"),
    Volatile("/running_ids/*", "task", M, "string", "refers to task ids"),
    Volatile("/finished_ids/*", "task", M, "string", "refers to task ids"),
    Volatile("/percept_id", "percept", M, "string", "generated memory id"),
    Volatile("/cwd", "cwd", E, "string", "where the emitter was started"),
    Volatile("/milk_version", "milk_version", E, "string", "the build under test"),
)

SUBAGENT_STDIO: tuple[Volatile, ...] = (
    Volatile("/id", "command", M, "string", "chosen by the client; echoed by the host"),
    Volatile("/sessionId", "session", M, "string", "the host's session (null stays null)"),
    Volatile("/*/sessionId", "session", M, "string", "the snapshot's session"),
    Volatile("/epoch", "epoch", M, "string", "new each time the host starts"),
    Volatile("/*/epoch", "epoch", M, "string", "the snapshot's epoch"),
    # Revisions count the host's internal updates, which a live host makes at its own pace;
    # mapping keeps "same revision" and "another revision", and sa.revision-order keeps order.
    Volatile("/revision", "revision", M, "integer", "the host's update counter"),
    Volatile("/*/revision", "revision", M, "integer", "the snapshot's update counter"),
    Volatile("/**/startedAt", "ms", E, "integer", "wall clock (epoch ms)"),
    Volatile("/**/updatedAt", "ms", E, "integer", "wall clock (epoch ms)"),
    Volatile("/**/endedAt", "ms", E, "integer", "wall clock (epoch ms)"),
    Volatile("/**/observedAt", "ms", E, "integer", "wall clock (epoch ms)"),
    Volatile("/**/runId", "run", M, "string", "generated run id"),
    Volatile("/**/workflowId", "workflow", M, "string", "generated workflow id"),
)

VOLATILE: dict[str, tuple[Volatile, ...]] = {
    "stream-json": STREAM_JSON,
    "subagent-stdio": SUBAGENT_STDIO,
}


def _has_type(value: Any, json_type: str) -> bool:
    if json_type == "string":
        return type(value) is str
    if json_type == "integer":
        return type(value) is int
    # Emitters differ in how they print a whole float (16 or 16.0): both are a rate.
    return type(value) in (int, float)


def _matches(pattern: tuple[str, ...], path: tuple[Segment, ...]) -> bool:
    if not pattern:
        return not path
    head, rest = pattern[0], pattern[1:]
    if head == "**":
        return any(_matches(rest, path[i:]) for i in range(len(path) + 1))
    if not path:
        return False
    return (head == "*" or head == str(path[0])) and _matches(rest, path[1:])


def volatile_at(wire: str, path: tuple[Segment, ...], value: Any) -> Volatile | None:
    """The volatile field a value at ``path`` of a line is, if any (its type must fit too)."""
    for rule in VOLATILE[wire]:
        if _has_type(value, rule.json_type) and _matches(rule.segments, path):
            return rule
    return None


class Normalizer:
    """Normalizes the lines of one transcript in order (numbering spans the transcript)."""

    def __init__(self, wire: str) -> None:
        self.wire = wire
        self.numbers: dict[tuple[str, Any], str] = {}
        self.counts: dict[str, int] = {}
        self.number = 0

    def line(self, value: Any) -> Any:
        """A normalized deep copy of the next line's value."""
        self.number += 1
        return self._visit(copy.deepcopy(value), ())

    def _visit(self, value: Any, path: tuple[Segment, ...]) -> Any:
        if path:
            rule = self._rule(path, value)
            if rule is not None:
                return self._placeholder(rule, value)
        if type(value) is dict:
            return {key: self._visit(child, (*path, key)) for key, child in value.items()}
        if type(value) is list:
            return [self._visit(child, (*path, i)) for i, child in enumerate(value)]
        return value

    def _rule(self, path: tuple[Segment, ...], value: Any) -> Volatile | None:
        return volatile_at(self.wire, path, value)

    def _placeholder(self, rule: Volatile, value: Any) -> str:
        if rule.treatment is Treatment.ERASE:
            return f"<{rule.name}>"
        if rule.treatment is Treatment.OFFSET:
            return f"<{rule.name}{value - self.number:+d}>"
        key = (rule.name, value)
        if key not in self.numbers:
            self.counts[rule.name] = self.counts.get(rule.name, 0) + 1
            self.numbers[key] = f"<{rule.name}:{self.counts[rule.name]}>"
        return self.numbers[key]


def normalize(wire: str, values: Iterable[Any]) -> list[Any]:
    """Normalize a whole transcript's parsed lines (in order)."""
    normalizer = Normalizer(wire)
    return [normalizer.line(value) for value in values]
