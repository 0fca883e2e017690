"""Normalization of per-run values, so two runs of one scenario can be compared.

A golden and a fresh run of its scenario differ in values that are new on every run (session
ids, clocks, durations, rates, generated ids) and in nothing else when the emitter is
faithful. Before comparing, both sides go through the same normalization:

- ``MAP`` fields get a placeholder per distinct value, numbered by first appearance within the
  transcript (``<tool:1>``, ``<tool:2>``, ...). Identity is kept: a tool_result that names the
  second tool_use still names ``<tool:2>``, so a wrong reference remains a difference.
- ``ERASE`` fields get one placeholder for every value (``<ts>``): their magnitude is per-run,
  and their order and format are the checker's business (sj.ts-order, sa.node-times, ...).
- ``OFFSET`` fields (stream-json ``seq``) become their offset from the number of the line among
  the transcript's JSON objects (``<line+0>``: on a stream of objects, the line number): that
  keeps what the contract says about them (where they start, one step per line) while one
  missing or extra line does not make every later line differ, nor a line that is no object
  (a banner printed before the stream, a log line: issue 47; ``compare`` counts a line that
  opens as an object but cannot be read as one).

A field is normalized only when its value has the expected JSON type; anything else is left
as it is, so a type change (a duration sent as a string, a null session id) is still seen.
The goldens on disk are never normalized: they stay valid wire data.

The volatile fields of each wire are data in its descriptor (``Wire.volatile``): JSON pointer
patterns where ``*`` is one segment (a member name or array index) and ``**`` any number of
segments.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from contract.wires import WIRES, Wire, resolve
from contract.wires.base import Segment, Treatment, Volatile

# The volatile fields themselves are part of each wire's descriptor (``Wire.volatile``);
# ``VOLATILE`` is the view by wire name, of the current registry's wires (read live).


class _ByName(Mapping[str, tuple[Volatile, ...]]):
    def __getitem__(self, name: str) -> tuple[Volatile, ...]:
        return WIRES[name].volatile

    def __len__(self) -> int:
        return len(WIRES)

    def __iter__(self) -> Iterator[str]:
        return iter(WIRES)


VOLATILE: Mapping[str, tuple[Volatile, ...]] = _ByName()


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


def volatile_at(wire: Wire | str, path: tuple[Segment, ...], value: Any) -> Volatile | None:
    """The volatile field a value at ``path`` of a line is, if any (its type must fit too)."""
    for rule in resolve(wire).volatile:
        if _has_type(value, rule.json_type) and _matches(rule.segments, path):
            return rule
    return None


class Normalizer:
    """Normalizes the lines of one transcript in order (numbering spans the transcript)."""

    def __init__(self, wire: Wire | str) -> None:
        self.wire = resolve(wire)
        self.numbers: dict[tuple[str, Any], str] = {}
        self.counts: dict[str, int] = {}
        self.number = 0
        self.objects = 0  # the lines that were JSON objects, what an OFFSET field counts from

    def line(self, value: Any) -> Any:
        """A normalized copy of the next line's value.

        A copy without ``copy.deepcopy``: ``_visit`` builds every dict and list anew and the
        leaves a parser gives (str, int, float, bool, None, Decimal) are immutable, so the result
        shares nothing the caller could change.
        """
        self.number += 1
        self.objects += type(value) is dict
        return self._visit(value, ())

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
            return f"<{rule.name}{value - self.objects:+d}>"
        key = (rule.name, value)
        if key not in self.numbers:
            self.counts[rule.name] = self.counts.get(rule.name, 0) + 1
            self.numbers[key] = f"<{rule.name}:{self.counts[rule.name]}>"
        return self.numbers[key]


def normalize(wire: Wire | str, values: Iterable[Any]) -> list[Any]:
    """Normalize a whole transcript's parsed lines (in order)."""
    normalizer = Normalizer(wire)
    return [normalizer.line(value) for value in values]


__all__ = ["VOLATILE", "Normalizer", "Segment", "Treatment", "Volatile", "normalize", "volatile_at"]
