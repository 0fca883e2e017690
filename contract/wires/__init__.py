"""The wires milk-contract knows: ``WIRES``, the one registry (adding a wire is one line here).

Each wire is one package under ``contract/wires/`` declaring one ``Wire`` descriptor
(``contract.wires.base``); everything else looks a wire up here and reads its fields.
"""

from __future__ import annotations

from typing import Any

from contract.wires.base import BatchMachine, Coverage, Live, Machine, Strategies, Wire
from contract.wires.stream_json import STREAM_JSON
from contract.wires.subagent_stdio import SUBAGENT_STDIO

WIRES: dict[str, Wire] = {wire.name: wire for wire in (STREAM_JSON, SUBAGENT_STDIO)}
NAMES = tuple(WIRES)
DEFAULT = STREAM_JSON  # what --wire defaults to, and what auto falls back to when no line decides
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


def is_auto(name: str) -> bool:
    """Whether a --wire value asks for detection rather than naming a wire."""
    return name == AUTO


def ansi_for(name: str) -> bool | None:
    """The reader's ``ansi`` setting for a --wire value (``contract.reader.read_records``):
    the wire's own when it is known, None (decided per line by its type) under auto."""
    return None if is_auto(name) else get(name).ansi


def detect(obj: dict[str, Any] | None) -> str | None:
    """The wire a first line belongs to, or None when it looks like neither."""
    if obj is None:
        return None
    for wire in sorted(WIRES.values(), key=lambda w: w.detect_rank):
        if wire.detect(obj):
            return wire.name
    return None


__all__ = [
    "AUTO", "DEFAULT", "NAMES", "WIRES", "BatchMachine", "Coverage", "Live", "Machine", "Strategies", "Wire",
    "ansi_for", "detect", "get", "is_auto", "resolve",
]
