"""What the golden corpus covers of each wire's catalog, and what it misses.

The required items come from the schemas wherever the schemas say them:

- every property of every object schema reachable from the root (so ``$defs/event``, which
  nothing references, is not counted), except the ones the wire exempts with their reason;
- every ``enum`` value (subagent-stdio: node status, activity, processTerminal state), except
  the enums the wire exempts;
- open sets a schema states only in prose: the known values are read out of the
  ``description`` texts at the locations the wire lists (for example the stream-json subtype
  description "system family: init | agent_switch | ... ; result family: success | ...").

Edge shapes no keyword can state (both forms of a dual-form field, nesting, trees three levels
deep, an epoch change, ...) are listed per wire, each with the test that finds it. All of it is
the wire's ``Wire.coverage`` (``contract/wires/<wire>/coverage.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from contract.checking.schemawalk import EnumValue, Member, Walker, walker
from contract.core import prose
from contract.core.jsonline import parse
from contract.wires import Wire, by_wire, get, resolve
from contract.wires.base import Line


@dataclass(frozen=True, order=True)
class Item:
    """One thing the goldens must show: a group (field, value, known set, edge) and its name."""

    group: str
    name: str

    def __str__(self) -> str:
        return f"{self.group}: {self.name}"


def known_values(walk: Walker, location: str, which: int) -> tuple[str, ...]:
    """The values a description lists: the which-th "a | b" run, or (-1) its "known: a, b" (read
    as the surface reads them, ``contract.core.prose``)."""
    text = " ".join(str(walk.at(location).get("description", "")).split())
    if which < 0:
        lists = prose.known(text)
        if not lists:
            raise LookupError(f"no 'known:' list in the description at {location}")
        return lists[0]
    found = prose.runs(text)
    if which >= len(found):
        raise LookupError(f"no list number {which + 1} in the description at {location}")
    return found[which]


def required(wire: Wire | str) -> frozenset[Item]:
    """Everything the goldens of ``wire`` must show (the wire's surface, computed once)."""
    return _required(resolve(wire).name)


@by_wire
def _required(name: str) -> frozenset[Item]:
    plan = get(name).coverage
    walk = walker(name)
    items: set[Item] = set()
    for loc in walk.reachable():
        schema = walk.at(loc)
        for key in schema.get("properties", {}):
            if (loc, key) not in plan.exempt:
                items.add(Item("field", f"{loc} {key}"))
        if "enum" in schema and loc not in plan.exempt_enums:
            items.update(Item("value", f"{loc} {_show(v)}") for v in schema["enum"])
    for group, loc, which in plan.known_sets:
        items.update(Item(group, v) for v in known_values(walk, loc, which))
    items.update(Item("edge", name) for name in plan.edges)
    return frozenset(items)


def covered(wire: Wire | str, transcripts: Iterable[bytes]) -> frozenset[Item]:
    """Everything the given transcripts show (of what ``required`` can ask for)."""
    items: set[Item] = set()
    for data in transcripts:
        items |= covered_lines(wire, _lines(data))
    return frozenset(items)


def covered_lines(wire: Wire | str, lines: list[Line]) -> frozenset[Item]:
    """Everything one transcript's parsed lines show (edges judged over these lines together)."""
    wire = resolve(wire)
    walk = walker(wire.name)
    items: set[Item] = set()
    for line in lines:
        items.update(schema_items(walk, line))
        items.update(known_items(wire, line))
    items.update(Item("edge", name) for name, test in wire.coverage.edges.items() if test(lines))
    return frozenset(items)


def known_items(wire: Wire | str, line: Line) -> Iterator[Item]:
    """The known-set values (stated in description prose) one parsed line shows."""
    plan = resolve(wire).coverage
    if plan.values is None:
        return
    for group, _, _ in plan.known_sets:
        yield from (Item(group, v) for v in plan.values(group, line) if v)


def schema_items(walk: Walker, line: Line) -> Iterator[Item]:
    """The fields and enum values one parsed line shows."""
    for found in walk.walk(line):
        if isinstance(found, Member):
            yield Item("field", f"{found.schema} {found.key}")
        elif isinstance(found, EnumValue):
            yield Item("value", f"{found.schema} {_show(found.value)}")


def gaps(wire: Wire | str, transcripts: Iterable[bytes]) -> list[Item]:
    """Required items no transcript covers, sorted (empty when the corpus is complete)."""
    return sorted(required(wire) - covered(wire, transcripts))


def _lines(data: bytes) -> list[Line]:
    lines: list[Line] = []
    for body in data.split(b"\n"):
        if body.strip():
            value, _ = parse(body)
            if isinstance(value, dict):
                lines.append(value)
    return lines


def _show(value: Any) -> str:
    return value if isinstance(value, str) else repr(value)
