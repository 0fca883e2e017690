"""How much of a wire's surface one capture exercised, and what it never showed.

The surface is the golden coverage catalog (``contract.checking.coverage.required``): every schema
field reachable from the root, every enum value, stream-json's known values stated in the
descriptions (line types, subtypes, block types, ...) and the edge shapes no keyword states.
A third-party emitter author reads the list of what the capture never showed to see what to
capture next.

Cheap by construction: walking a line against the schema costs about ten times checking it,
so the checker keeps a bounded sample (``Sample``: the first ``MAX_LINES`` object lines, at
most ``MAX_BYTES`` of them as compact JSON) and the coverage is computed once, at the end,
from the sample. A capture longer than the sample says so (``complete`` false, and the text
names the bound): items it never showed in the sample may still be further on. The sample is
taken in the same order, from the same parsed values, by the one-process and the parallel
checker, so both give the same coverage.

The capture is hostile input: a line or an edge test that raises on an unexpected shape is
counted (``unreadable``) and reported, never a traceback and never a silent omission.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from contract.checking import coverage
from contract.checking.coverage import Item
from contract.checking.schemawalk import walker
from contract.core.textsafe import counted
from contract.wires import get

MAX_LINES = 500  # about a quarter second of schema walking at most (BENCHMARKS.md)
MAX_BYTES = 8 * 1024 * 1024  # compact JSON bytes kept, so a few huge lines cannot grow memory


@dataclass
class Sample:
    """The first object lines of a capture, bounded in count and bytes."""

    lines: list[dict[str, Any]] = field(default_factory=list)
    size: int = 0
    seen: int = 0  # object lines offered, kept or not
    full: bool = False  # a bound was reached: later lines are not in the sample
    unpriced: int = 0  # lines left out because their size could not be told (nested too deep)

    def add(self, obj: Any) -> None:
        if type(obj) is not dict:
            return
        self.seen += 1
        if self.full:
            return
        if len(self.lines) >= MAX_LINES:
            self.full = True
            return
        try:
            cost = len(orjson.dumps(obj))
        except (TypeError, orjson.JSONEncodeError):
            # integers beyond 64 bits or nesting beyond orjson's 255 levels: such a line is left
            # out (counted and reported); pricing it some other way could recurse past the stack
            self.unpriced += 1
            return
        if self.size + cost > MAX_BYTES:
            self.full = True
            return
        self.size += cost
        self.lines.append(obj)

    def extend(self, objs: Iterable[Any]) -> None:
        if self.full:
            self.seen += len(objs) if isinstance(objs, list) else sum(1 for _ in objs)
            return
        for obj in objs:
            self.add(obj)

    def records(self, records: Iterable[Any]) -> Iterator[Any]:
        """Pass records through, sampling their objects."""
        add = self.add
        for record in records:
            add(record.obj)
            yield record


@dataclass(frozen=True)
class Coverage:
    """What one capture showed of its wire's surface."""

    wire: str
    shown: frozenset[Item]
    required: frozenset[Item]
    sampled: int  # object lines the coverage was computed from
    seen: int  # object lines in the capture
    complete: bool  # the sample held every object line
    unreadable: int  # lines or edge tests that raised (counted as showing nothing)

    @property
    def missing(self) -> list[Item]:
        return sorted(self.required - self.shown)

    def percent(self) -> float:
        return round(100.0 * len(self.shown) / len(self.required), 1) if self.required else 100.0

    def groups(self) -> dict[str, tuple[int, int]]:
        """Per group (field, value, line type, ..., edge): (shown, catalogued)."""
        out: dict[str, list[int]] = {}
        for item in sorted(self.required):
            entry = out.setdefault(item.group, [0, 0])
            entry[1] += 1
            entry[0] += item in self.shown
        return {group: (shown, total) for group, (shown, total) in out.items()}

    def to_json(self) -> dict[str, object]:
        return {
            "items": len(self.required),
            "shown": len(self.shown),
            "percent": self.percent(),
            "groups": {group: {"shown": s, "items": t} for group, (s, t) in self.groups().items()},
            "missing": [str(item) for item in self.missing],
            "lines_sampled": self.sampled,
            "object_lines": self.seen,
            "complete": self.complete,
            "unreadable": self.unreadable,
        }

    def text_lines(self) -> list[str]:
        """The ``--coverage`` block of the text report."""
        groups = ", ".join(f"{group} {s}/{t}" for group, (s, t) in self.groups().items())
        out = [f"coverage: {len(self.shown)} of {counted(len(self.required), 'item')} of the {self.wire} surface "
               f"({self.percent():g}%): {groups}"]
        if not self.complete:
            out.append(f"  coverage is from the first {self.sampled} of {self.seen} object lines (the sample "
                       f"bound: {MAX_LINES} lines, {MAX_BYTES} bytes); later lines were not counted")
        if self.unreadable:
            unread = counted(self.unreadable, "line or edge test", "lines or edge tests")
            out.append(f"  {unread} could not be read for coverage "
                       "(unexpected shapes; counted as showing nothing)")
        by_group: dict[str, list[str]] = {}
        for item in self.missing:
            by_group.setdefault(item.group, []).append(item.name)
        for group, names in by_group.items():
            out.append(f"  never shown ({group}): {'; '.join(names)}")
        return out


def measure(wire: str, sample: Sample) -> Coverage:
    """The coverage of ``sample`` against ``wire``'s surface."""
    required = coverage.required(wire)
    walk = walker(wire)
    shown: set[Item] = set()
    unreadable = sample.unpriced
    for line in sample.lines:
        try:
            shown.update(coverage.schema_items(walk, line))
            shown.update(coverage.known_items(wire, line))
        except Exception:  # a shape the walker did not expect: counted, reported
            unreadable += 1
    for name, test in get(wire).coverage.edges.items():
        try:
            if test(sample.lines):
                shown.add(Item("edge", name))
        except Exception:  # an edge test met an unexpected shape (a list where an object was)
            unreadable += 1
    return Coverage(wire, frozenset(shown) & required, required, len(sample.lines), sample.seen,
                    not sample.full, unreadable)
