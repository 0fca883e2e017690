"""The two wires milk-contract knows, by name."""

from __future__ import annotations

from typing import Any

from contract.wires.base import Machine, Wire
from contract.wires.stream_json import STREAM_JSON
from contract.wires.subagent_stdio import SUBAGENT_STDIO

WIRES: dict[str, Wire] = {wire.name: wire for wire in (STREAM_JSON, SUBAGENT_STDIO)}
NAMES = tuple(WIRES)


def detect(obj: dict[str, Any] | None) -> str | None:
    """The wire a first line belongs to, or None when it looks like neither."""
    if obj is None:
        return None
    for wire in (SUBAGENT_STDIO, STREAM_JSON):  # subagent types are the more specific test
        if wire.detect(obj):
            return wire.name
    return None


__all__ = ["NAMES", "WIRES", "Machine", "Wire", "detect"]
