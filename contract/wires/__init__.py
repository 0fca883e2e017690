"""The wires milk-contract knows: ``BUNDLED_REGISTRY`` (adding a wire is one line here) and the current registry.

Each wire is one package under ``contract/wires/`` declaring one ``Wire`` descriptor
(``contract.wires.base``). A ``WireRegistry`` (``contract.wires.registry``) holds wires and the tables
derived from them; the bundled one is the default. An entry point given another registry
(``contract.check(..., registry=...)``) makes it current for the call with ``using``; every layer
below reads the current one through the lookups here (``get``, ``WIRES``, ``NAMES``...).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, ParamSpec, Protocol, TypeVar, overload

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
from contract.wires.registry import AUTO, DetectFailed, WireRegistry, evidence
from contract.wires.stream_json import STREAM_JSON
from contract.wires.subagent_stdio import SUBAGENT_STDIO

# The wires the package ships: their schemas are under schemas/ (pinned), their goldens bundled, their
# surfaces snapshotted, their rules in docs/rules.md. A new wire is its import above and its name here.
SHIPPED = (STREAM_JSON, SUBAGENT_STDIO)
BUNDLED_REGISTRY = WireRegistry(SHIPPED, bundled=[wire.name for wire in SHIPPED])
BUNDLED: tuple[str, ...] = BUNDLED_REGISTRY.bundled
# What --wire defaults to, and what auto falls back to when no line decides: the registry's first.
DEFAULT = BUNDLED_REGISTRY.default
T = TypeVar("T")
P = ParamSpec("P")
T_co = TypeVar("T_co", covariant=True)

_CURRENT: contextvars.ContextVar[WireRegistry] = contextvars.ContextVar("contract.wires.current",
                                                                     default=BUNDLED_REGISTRY)


def current() -> WireRegistry:
    """The registry of the running call: the one an entry point was given, else the bundled one."""
    return _CURRENT.get()


@contextlib.contextmanager
def using(registry: WireRegistry | None) -> Iterator[WireRegistry]:
    """``registry`` current for the duration (in this context only: another thread or call keeps
    its own; a thread the checker starts copies its starter's). None keeps the current one: how an
    entry point takes an optional ``registry`` argument."""
    if registry is None:
        yield _CURRENT.get()
        return
    if not isinstance(registry, WireRegistry):
        raise TypeError(f"registry must be a contract.wires.WireRegistry, not {type(registry).__name__}")
    token = _CURRENT.set(registry)
    try:
        yield registry
    finally:
        _CURRENT.reset(token)


def entry(function: Callable[P, T]) -> Callable[P, T]:
    """An entry point taking a ``registry`` keyword (``WireRegistry | None``): the call runs with that
    registry current (``using``; None keeps the current one, the bundled one by default)."""

    @functools.wraps(function)
    def entered(*args: P.args, **kwargs: P.kwargs) -> T:
        with using(kwargs.get("registry")):  # type: ignore[arg-type]  # None or what the signature says
            return function(*args, **kwargs)

    return entered


class _Wires(Mapping[str, Wire]):
    """The current registry's wires by name, in registry order (read live)."""

    def __getitem__(self, name: str) -> Wire:
        return _CURRENT.get().wires[name]

    def __len__(self) -> int:
        return len(_CURRENT.get().wires)

    def __iter__(self) -> Iterator[str]:
        return iter(_CURRENT.get().names)

    def __contains__(self, name: object) -> bool:
        return name in _CURRENT.get().wires

    def __repr__(self) -> str:
        return repr(dict(_CURRENT.get().wires))


class _Names(Sequence[str]):
    """The current registry's wires' names in registry order (read live)."""

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        return _CURRENT.get().names[index]

    def __len__(self) -> int:
        return len(_CURRENT.get().wires)

    def __contains__(self, name: object) -> bool:
        return name in _CURRENT.get().wires

    def __iter__(self) -> Iterator[str]:
        return iter(_CURRENT.get().names)

    def __repr__(self) -> str:
        return repr(_CURRENT.get().names)


WIRES: Mapping[str, Wire] = _Wires()
NAMES: Sequence[str] = _Names()


def get(name: str) -> Wire:
    """The wire named ``name`` in the current registry; ValueError (naming the known wires) for any other."""
    return _CURRENT.get().get(name)


def resolve(wire: Wire | str) -> Wire:
    """A wire given as a descriptor or by name (public APIs take both)."""
    return wire if isinstance(wire, Wire) else _CURRENT.get().get(wire)


def derived(build: Callable[[WireRegistry], T]) -> Callable[[], T]:
    """A table derived from the wires (the catalog, the vital rules...): ``build`` of the current
    registry, built once per registry (``WireRegistry.table``). A decorator: call the result for the table."""

    def table() -> T:
        return _CURRENT.get().table(build)

    functools.update_wrapper(table, build)
    return table


class Cached(Protocol[T_co]):
    """What ``by_wire`` returns: the function, and a way to empty what it keeps."""

    def __call__(self, *args: Any, **kwargs: Any) -> T_co: ...

    def cache_clear(self) -> None: ...


def by_wire(function: Callable[..., T]) -> Cached[T]:
    """A cache for a function of a wire's name (its schema, its compiled engine), keyed by the wire
    *object* the name stands for in the current registry: a registry holding another wire of that
    name (a variant) gets its own value. A name the registry lacks is not cached (the function's
    own lookup refuses it)."""
    kept: dict[tuple[Any, ...], tuple[Wire, T]] = {}

    def cached(name: str, *args: Any, **kwargs: Any) -> T:
        wire = _CURRENT.get().wires.get(name)
        if wire is None:
            return function(name, *args, **kwargs)
        key = (id(wire), name, args, tuple(sorted(kwargs.items())) if kwargs else ())
        hit = kept.get(key)
        if hit is not None and hit[0] is wire:
            return hit[1]
        value = function(name, *args, **kwargs)
        kept[key] = (wire, value)  # the wire is kept with its value: its id names no other while kept
        return value

    functools.update_wrapper(cached, function)
    cached.cache_clear = kept.clear  # type: ignore[attr-defined]
    return cached  # type: ignore[return-value]


def is_auto(name: str) -> bool:
    """Whether a --wire value asks for detection rather than naming a wire."""
    return name == AUTO


def ansi_for(name: str) -> bool:
    """The reader's ``ansi`` setting for a --wire value (``WireRegistry.ansi_for``)."""
    return _CURRENT.get().ansi_for(name)


def candidates(obj: dict[str, Any]) -> list[Wire]:
    """The wires ``obj`` (a first object line) looks like, surest first (``WireRegistry.candidates``)."""
    return _CURRENT.get().candidates(obj)


def detect(obj: dict[str, Any] | None) -> Wire | None:
    """The wire a first object line belongs to (the surest), or None when it looks like none."""
    return _CURRENT.get().detect(obj)


def first(live: Live) -> Wire:
    """The current registry's first wire whose live mode is ``live``: what a verb made for that mode
    (``run --provoke``, ``feed``; the conversation driver, the fuzzer) holds by default."""
    return _CURRENT.get().first(live)


def named(live: Live) -> str:
    """The current registry's wires of live mode ``live`` by name, for prose (help texts, misuse messages)."""
    return _CURRENT.get().named(live)


def conversation() -> Wire:
    """The current registry's first conversation wire (``Live.CONVERSATION``, with its ``dialogue``)."""
    return _CURRENT.get().conversation()


__all__ = [
    "AUTO",
    "BUNDLED",
    "BUNDLED_REGISTRY",
    "DEFAULT",
    "NAMES",
    "WIRES",
    "BatchMachine",
    "Capabilities",
    "Cites",
    "Coverage",
    "DetectFailed",
    "Dialogue",
    "Evidence",
    "Future",
    "Live",
    "Machine",
    "Strategies",
    "Wire",
    "WireRegistry",
    "ansi_for",
    "by_wire",
    "candidates",
    "conversation",
    "current",
    "derived",
    "detect",
    "entry",
    "evidence",
    "first",
    "get",
    "is_auto",
    "named",
    "resolve",
    "using",
]
