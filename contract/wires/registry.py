"""A registry of wires: an immutable value holding the wires in order and the tables derived from them.

``contract.wires.BUNDLED_REGISTRY`` (the wires the package ships) is one instance; a caller that
knows another wire builds its own (``BUNDLED_REGISTRY.plus(wire)``) and passes it to an entry
point (``contract.check(..., registry=...)``, ``contract.api``, ``contract.cli.run``). The entry
point makes it current for the call (``contract.wires.using``); the layers below look wires up in
the current one. Nothing mutates a registry: a variant is a new one, with its own derived tables.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import Any, TypeVar

from contract.wires.base import Evidence, Live, Wire

AUTO = "auto"  # --wire auto: the wire is picked from the first line that looks like one
T = TypeVar("T")


class DetectFailed(Exception):
    """A wire's ``detect`` raised: a defect of that wire, named, for the checker's fail-closed finding."""


def evidence(wire: Wire, obj: dict[str, Any]) -> Evidence:
    """How sure ``wire`` is that ``obj`` is one of its lines: its ``detect``, whose exception is
    raised again naming the wire. Every wire's ``detect`` sees every stream's first object line
    (``candidates``, the other-wire note of a named ``--wire``), so one wire's ``detect`` that
    cannot take a member of another type would otherwise surface as a bare ``TypeError`` in the
    report of a stream of another wire; the checker still stops there (fail closed)."""
    try:
        return wire.detect(obj)
    except Exception as exc:
        raise DetectFailed(f"the {wire.name} wire's detect raised {type(exc).__name__}: {exc} (a wire's "
                           f"detect must take any JSON object: docs/architecture.md)") from exc


class WireRegistry:
    """The wires known to a run, in order (the first is the default of its live mode), and the
    tables derived from them (``table``), each built once per registry."""

    __slots__ = ("_tables", "_wires", "bundled")

    def __init__(self, wires: Iterable[Wire], *, bundled: Iterable[str] = ()) -> None:
        by_name: dict[str, Wire] = {}
        for wire in wires:
            if wire.name in by_name or wire.name == AUTO:
                raise ValueError(f"a wire named {wire.name!r} is already registered")
            by_name[wire.name] = wire
        if not by_name:
            raise ValueError("a registry holds at least one wire")
        self._wires: Mapping[str, Wire] = MappingProxyType(by_name)
        # The wires the package ships (their schemas pinned, goldens bundled, rules in docs/rules.md).
        self.bundled: tuple[str, ...] = tuple(name for name in bundled if name in by_name)
        self._tables: dict[Callable[[WireRegistry], Any], Any] = {}

    # -- the wires -------------------------------------------------------------------------

    @property
    def wires(self) -> Mapping[str, Wire]:
        """The wires by name, in registry order (read-only)."""
        return self._wires

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._wires)

    @property
    def default(self) -> Wire:
        """What --wire defaults to, and what auto falls back to when no line decides: the first."""
        return next(iter(self._wires.values()))

    def __iter__(self) -> Iterator[Wire]:
        return iter(self._wires.values())

    def __len__(self) -> int:
        return len(self._wires)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._wires

    def __repr__(self) -> str:
        return f"WireRegistry({', '.join(self._wires)})"

    def get(self, name: str) -> Wire:
        """The wire named ``name``; ValueError (naming the known wires) for any other name."""
        wire = self._wires.get(name)
        if wire is None:
            raise ValueError(f"unknown wire {name!r}; expected one of {', '.join(self._wires)}")
        return wire

    def resolve(self, wire: Wire | str) -> Wire:
        """A wire given as a descriptor or by name (public APIs take both)."""
        return wire if isinstance(wire, Wire) else self.get(wire)

    # -- variants (new registries; this one is unchanged) -------------------------------------

    def plus(self, wire: Wire) -> WireRegistry:
        """This registry and ``wire`` after its wires (ValueError if its name is taken)."""
        return WireRegistry((*self._wires.values(), wire), bundled=self.bundled)

    def without(self, name: str) -> WireRegistry:
        """This registry without the wire ``name`` (ValueError if it holds no such wire)."""
        self.get(name)
        return WireRegistry((w for w in self._wires.values() if w.name != name), bundled=self.bundled)

    def replacing(self, wire: Wire) -> WireRegistry:
        """This registry with ``wire`` in the place of the wire of its name (added last if none)."""
        if wire.name not in self._wires:
            return self.plus(wire)
        return WireRegistry((wire if w.name == wire.name else w for w in self._wires.values()), bundled=self.bundled)

    def shipped(self) -> WireRegistry:
        """Only the wires the package ships: what describes the product (docs/rules.md's table)."""
        if len(self.bundled) == len(self._wires):
            return self
        return WireRegistry((self._wires[name] for name in self.bundled), bundled=self.bundled)

    # -- derived tables ---------------------------------------------------------------------

    def table(self, build: Callable[[WireRegistry], T]) -> T:
        """``build(self)``, built once per registry: the catalog, the vital rules, the schema step's rules."""
        try:
            found: T = self._tables[build]
        except KeyError:
            found = self._tables[build] = build(self)
        return found

    # -- lookups by what a wire is --------------------------------------------------------------

    def ansi_for(self, name: str) -> bool:
        """The reader's ``ansi`` setting for a --wire value (``contract.core.reader.read_records``):
        the wire's own when it is known; True under auto, where every line.ansi finding is held
        until the wire is decided and then kept only if that wire's ``ansi`` says so
        (``contract.checking.pipeline.pick_wire``), so auto judges each line as the decided wire does."""
        return True if name == AUTO else self.get(name).ansi

    def candidates(self, obj: dict[str, Any]) -> list[Wire]:
        """The wires ``obj`` (a first object line) looks like, surest first (each by its own
        evidence; wires as sure as each other keep their registry order)."""
        sure = [(evidence(wire, obj), index, wire) for index, wire in enumerate(self._wires.values())]
        return [wire for found, _, wire in sorted(sure, key=lambda s: (-s[0], s[1])) if found > Evidence.NONE]

    def detect(self, obj: dict[str, Any] | None) -> Wire | None:
        """The wire a first object line belongs to (the surest), or None when it looks like none."""
        if obj is None:
            return None
        found = self.candidates(obj)
        return found[0] if found else None

    def first(self, live: Live) -> Wire:
        """The first wire whose live mode is ``live``: what a verb made for that mode holds by default."""
        return next(wire for wire in self._wires.values() if wire.live is live)

    def named(self, live: Live) -> str:
        """The wires of live mode ``live`` by name, for prose: ``"a"``, ``"a, b"``, in registry order."""
        return ", ".join(wire.name for wire in self._wires.values() if wire.live is live)

    def conversation(self) -> Wire:
        """The first conversation wire (``Live.CONVERSATION``, with its ``dialogue``)."""
        return next(wire for wire in self._wires.values()
                    if wire.live is Live.CONVERSATION and wire.dialogue is not None)


__all__ = ["AUTO", "DetectFailed", "WireRegistry", "evidence"]
