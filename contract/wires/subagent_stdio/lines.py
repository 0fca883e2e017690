"""What the subagent-stdio machines share: the line types, and how a host line is read.

The three line types (``COMMAND``, ``RESPONSE``, ``EVENT``), the snapshot a host line carries
(``snapshot_of``) and how a value is shown in a finding (``show``), for the machines of
``conversation`` and ``snapshots`` alike (``machines.py`` says what they judge and how).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from contract.core.jsonvalue import clip, quoted

COMMAND, RESPONSE, EVENT = "subagent_status", "response", "subagent_event"
LINE_TYPES = (COMMAND, RESPONSE, EVENT)


def snapshot_of(obj: dict[str, Any] | None) -> tuple[str, dict[str, Any]] | None:
    """The snapshot a host line carries and its pointer: a response's data, an event's snapshot."""
    if obj is None:
        return None
    kind = obj.get("type")
    where = "/data" if kind == RESPONSE else "/snapshot" if kind == EVENT else None
    if where is None:
        return None
    snap = obj.get(where[1:])
    return (where, snap) if type(snap) is dict else None


def show(value: Any) -> str:
    """A value read from a line, as a finding's message shows it (a string quoted and clipped)."""
    if type(value) is str:
        return quoted(clip(value))  # raw: the reporter escapes it (contract.core.textsafe)
    if value is None:
        return "null"
    if type(value) is bool:
        return "true" if value else "false"
    if type(value) is Decimal:
        return clip(str(value))
    return str(value) if type(value) in (int, float) else type(value).__name__
