"""The wires milk-contract knows: ``WIRES``, the one registry (adding a wire is one line here).

Each wire is one package under ``contract/wires/`` declaring one ``Wire`` descriptor
(``contract.wires.base``); everything else looks a wire up here and reads its fields.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol, TypeVar, overload

from contract.wires.base import (
    BatchMachine,
    Capabilities,
    Cites,
    Coverage,
    Dialogue,
    Evidence,
    Future,
    Live,
    Machine,
    Strategies,
    Wire,
)
from contract.wires.stream_json import STREAM_JSON
from contract.wires.subagent_stdio import SUBAGENT_STDIO

WIRES: dict[str, Wire] = {wire.name: wire for wire in (STREAM_JSON, SUBAGENT_STDIO)}
# The wires the package ships: their schemas are under schemas/ (pinned), their goldens bundled, their
# surfaces snapshotted, their rules in docs/rules.md. A wire registered later (``registered``: the
# tests' synthetic one) is judged like any other but is none of those.
BUNDLED: tuple[str, ...] = tuple(WIRES)
T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class _Names(Sequence[str]):
    """The registered wires' names in registry order, read live (a wire registered later shows)."""

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        return tuple(WIRES)[index]

    def __len__(self) -> int:
        return len(WIRES)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in WIRES

    def __iter__(self) -> Iterator[str]:
        return iter(tuple(WIRES))

    def __repr__(self) -> str:
        return repr(tuple(WIRES))


NAMES: Sequence[str] = _Names()
# What --wire defaults to, and what auto falls back to when no line decides: the registry's first.
DEFAULT = next(iter(WIRES.values()))
AUTO = "auto"  # --wire auto: the wire is picked from the first line that looks like one


def get(name: str) -> Wire:
    """The wire named ``name``; ValueError (naming the known wires) for any other name."""
    wire = WIRES.get(name)
    if wire is None:
        raise ValueError(f"unknown wire {name!r}; expected one of {', '.join(NAMES)}")
    return wire


def resolve(wire: Wire | str) -> Wire:
    """A wire given as a descriptor or by name (public APIs take both)."""
    return wire if isinstance(wire, Wire) else get(wire)


# Tables other modules derive from the registry (the catalog, the vital and always-judged rules,
# the schema step's rules): each rebuilt when the registry changes (``registered``).
_DERIVED: list[Callable[[], None]] = []


def derived(rebuild: Callable[[], None]) -> Callable[[], None]:
    """Declare ``rebuild`` as recomputing a table derived from ``WIRES``; it runs now and whenever
    the registry changes. (A decorator: the deriving module keeps its table a module global.)"""
    _DERIVED.append(rebuild)
    rebuild()
    return rebuild


class Cached(Protocol[T_co]):
    """What ``by_wire`` returns: the function, and a way to empty what it keeps."""

    def __call__(self, *args: Any, **kwargs: Any) -> T_co: ...

    def cache_clear(self) -> None: ...


def by_wire(function: Callable[..., T]) -> Cached[T]:
    """``functools.cache`` for a function of a wire's name (its schema, its compiled engine),
    emptied whenever the registry changes: a wire registered under a name another wire held (a
    test's variant, ``registered``) is then read from its own schema, not the one that name had."""
    cached = functools.cache(function)
    _DERIVED.append(cached.cache_clear)
    return cached


@contextlib.contextmanager
def registered(wire: Wire) -> Iterator[Wire]:
    """``wire`` in the registry for the duration, after the bundled ones, with every derived table
    following: how the tests hold a synthetic wire to the claim that a wire is its package plus
    one registry line (tests/wires/audit_log/)."""
    if wire.name in WIRES or is_auto(wire.name):
        raise ValueError(f"a wire named {wire.name!r} is already registered")
    WIRES[wire.name] = wire
    try:
        for rebuild in _DERIVED:
            rebuild()
        yield wire
    finally:
        del WIRES[wire.name]
        for rebuild in _DERIVED:
            rebuild()


@contextlib.contextmanager
def unregistered(name: str) -> Iterator[Wire]:
    """The wire ``name`` out of the registry for the duration (every derived table following), then
    back in its place: how a test replaces a wire the session registered (``registered`` refuses a
    second wire of one name)."""
    before = dict(WIRES)
    wire = WIRES.pop(name)
    try:
        for rebuild in _DERIVED:
            rebuild()
        yield wire
    finally:
        WIRES.clear()
        WIRES.update(before)  # in registry order again: the first of a live mode is the default
        for rebuild in _DERIVED:
            rebuild()


@contextlib.contextmanager
def bundled_only() -> Iterator[None]:
    """Only the wires the package ships (``BUNDLED``) registered for the duration: what describes the
    product (docs/rules.md's table, the shipped catalog) is made under it, whatever a test added."""
    with contextlib.ExitStack() as stack:
        for name in [name for name in WIRES if name not in BUNDLED]:
            stack.enter_context(unregistered(name))
        yield


def is_auto(name: str) -> bool:
    """Whether a --wire value asks for detection rather than naming a wire."""
    return name == AUTO


def ansi_for(name: str) -> bool:
    """The reader's ``ansi`` setting for a --wire value (``contract.core.reader.read_records``): the
    wire's own when it is known; True under auto, where every line.ansi finding is held until the
    wire is decided and then kept only if that wire's ``ansi`` says so (``contract.checking.pipeline.pick_wire``),
    so auto judges each line exactly as the decided wire does."""
    return True if is_auto(name) else get(name).ansi


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


def candidates(obj: dict[str, Any]) -> list[Wire]:
    """The wires ``obj`` (a first object line) looks like, surest first (each by its own evidence;
    wires as sure as each other keep their registry order)."""
    sure = [(evidence(wire, obj), index, wire) for index, wire in enumerate(WIRES.values())]
    return [wire for evidence, _, wire in sorted(sure, key=lambda s: (-s[0], s[1])) if evidence > Evidence.NONE]


def detect(obj: dict[str, Any] | None) -> Wire | None:
    """The wire a first object line belongs to (the surest), or None when it looks like none."""
    if obj is None:
        return None
    found = candidates(obj)
    return found[0] if found else None


def first(live: Live) -> Wire:
    """The registry's first wire whose live mode is ``live``: what a verb made for that mode
    (``run --provoke``, ``feed``; the conversation driver, the fuzzer) holds by default."""
    return next(wire for wire in WIRES.values() if wire.live is live)


def named(live: Live) -> str:
    """The registered wires of live mode ``live`` by name, for prose (help texts, misuse messages):
    ``"a"``, ``"a, b"``, in registry order."""
    return ", ".join(wire.name for wire in WIRES.values() if wire.live is live)


def conversation() -> Wire:
    """The registry's first conversation wire (``Live.CONVERSATION``, with its ``dialogue``)."""
    return next(wire for wire in WIRES.values() if wire.live is Live.CONVERSATION and wire.dialogue is not None)


__all__ = [
    "AUTO", "DEFAULT", "NAMES", "WIRES", "BatchMachine", "Capabilities", "Cites", "Coverage", "DetectFailed",
    "Dialogue", "Evidence", "Future", "Live", "Machine", "Strategies", "Wire", "ansi_for", "by_wire", "candidates",
    "conversation", "derived", "detect", "evidence", "first", "get", "is_auto", "named", "registered", "resolve",
]
