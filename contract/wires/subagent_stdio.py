"""The subagent-stdio wire: a conversation of commands, responses and events.

(Rule machines: see issue 3; this module starts with schema validation only.)
"""

from __future__ import annotations

from typing import Any

from contract.wires.base import Machine, Wire

LINE_TYPES = ("subagent_status", "response", "subagent_event")


def _machines() -> list[Machine]:
    return []


def _detect(obj: dict[str, Any]) -> bool:
    return obj.get("type") in LINE_TYPES


SUBAGENT_STDIO = Wire(
    name="subagent-stdio",
    schema_rule="sa.schema",
    machines=_machines,
    detect=_detect,
    description="read-only subagent stdio observability v1: commands in, responses and events out",
)
